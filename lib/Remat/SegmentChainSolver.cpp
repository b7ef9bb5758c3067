//===- SegmentChainSolver.cpp - Segments, keep options, chain DP ----------===//
//
// Terms used below (K segments numbered 0..K-1 in forward order):
//  * F: the number of forward (recomputable) nodes, which precede all others.
//  * B_j: the backward nodes that belong to segment j -- those whose latest
//    forward read lies in segment j (a node reading no forward value belongs
//    with the backward node before it). Cuts are placed only where this
//    makes B_{K-1}, ..., B_0 consecutive ranges of the backward order.
//  * X_c, the checkpoint at cut c (after segment c): the forward values of
//    segments <= c read after the cut, by a forward node of a later segment
//    or by a backward node of a later segment. FX_c: the part read by
//    forward nodes. Y_j = X_j restricted to segment j's own values.
//  * R_j: the values of segment j that B_j reads. A keep option keeps a
//    subset A of R_j (always including R_j & Y_j); the rest is recomputed
//    inside B_j right before its first read there.
//  * Forward outputs (the loss) live to the end in every schedule; they are
//    counted as constant memory and never recomputed.
//
// C(s, t, m): least recomputation cost of running the backward of segments
// t..s (X_{s-1} stored, the caller's values held), with m memory quanta left
// for this call's forward values and the backward buffers live meanwhile:
//  * s == t: recompute what option o keeps, run B_s.
//  * keep segment s (option o): recompute s keeping A_o and Y_s, solve
//    C(s+1, t) with their bytes held, run B_s.
//  * checkpoint: recompute segments s..s'-1, storing X_{s'-1}; solve
//    C(s', t) with it held, then C(s, s'-1).
// D(s, m) is the same for the first forward pass (t = K-1), whose
// computations are the step's own, not recomputations.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/SegmentChainSolver.h"

#include "SolveClock.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

using namespace mlir::ckpt::remat;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
/// DP choice: run B_t on P first (see `backwardNeedsOnlyP`).
constexpr int16_t kBackwardFirst = std::numeric_limits<int16_t>::max();
/// DP choice base: a checkpoint sweep whose stored checkpoint is released to
/// the call after it (so it cannot keep P for the call before it).
constexpr int16_t kReleasedCheckpoint = 1000;

/// One way of keeping a segment's values for its backward pass.
struct KeepOption {
  /// Values of R_j recomputed inside B_j instead of kept.
  std::vector<int32_t> dropped;
  /// Values of the segment that B_j does not read but that are kept anyway,
  /// so that recomputing the dropped values from them is cheap.
  std::vector<int32_t> extraKept;
  /// Recomputation cost inside B_j.
  double backwardCost = 0;
  /// Peak of backward buffers plus the segment's own values during B_j.
  int64_t backwardPeak = 0;
  /// Bytes kept at a leaf (A) and when later segments follow (A and Y).
  int64_t leafBytes = 0, branchBytes = 0;
  /// Cost and peak of recomputing what is kept (leaf, branch).
  double leafCost = 0, branchCost = 0;
  int64_t leafPeak = 0, branchPeak = 0;
  /// Peaks of the first forward pass over the segment (leaf, branch).
  int64_t firstLeafPeak = 0, firstBranchPeak = 0;
  /// The leaf figures when the segment's part of the checkpoint after it
  /// (P: values both stored there and read by B_j) is still in memory and
  /// held by the caller: cost and peak of recomputing the rest, and the
  /// peak of B_j without P.
  double presentLeafCost = 0;
  int64_t presentLeafPeak = 0, presentBackwardPeak = 0;

  /// Whether B_j, run with this option, reads a value from before the
  /// segment (then the checkpoint before it cannot be released earlier).
  bool usesInput = false;

  /// The figures by which options are compared (all: smaller is better).
  std::vector<double> criteria() const {
    return {double(usesInput),
            backwardCost,
            backwardCost + leafCost,
            backwardCost + branchCost,
            backwardCost + presentLeafCost,
            double(leafBytes),
            double(branchBytes),
            double(backwardPeak),
            double(presentBackwardPeak),
            double(leafPeak),
            double(branchPeak),
            double(presentLeafPeak),
            double(firstLeafPeak),
            double(firstBranchPeak)};
  }
};

/// A segment: forward nodes [lo, hi], backward nodes [backLo, backHi).
struct Segment {
  int32_t lo = 0, hi = -1;
  int32_t backLo = 0, backHi = 0;
  /// Cost and peak of recomputing the segment in a checkpoint sweep, as a
  /// middle segment (producing FX) and as the last one (producing Y).
  double midCost = 0, lastCost = 0;
  int64_t midPeak = 0, lastPeak = 0;
  /// The same for the first forward pass.
  int64_t firstMidPeak = 0, firstLastPeak = 0;
  /// Bytes of P (see KeepOption).
  int64_t presentBytes = 0;
  /// Whether B_j can run on P alone: it reads only values of P (and no
  /// value of an earlier segment), so with P held it needs no checkpoint.
  bool backwardNeedsOnlyP = false;
  /// Whether every value of the checkpoint before this segment (X_{j-1})
  /// belongs to segment j - 1 and is read by no forward node after segment
  /// j: the caller that stored it may then hand its bytes back once segment
  /// j's last recomputation has read it ("release", DP state r).
  bool shortInput = false;
  /// Bytes of X_{j-1} (when `shortInput`).
  int64_t inputBytes = 0;
  std::vector<KeepOption> options;
};

class ChainSolver {
public:
  ChainSolver(const Problem &problem, int64_t budget,
              const SegmentChainOptions &options)
      : problem(problem), nodes(problem.nodes), budget(budget),
        options(options), n(static_cast<int32_t>(problem.nodes.size())) {}

  SolveResult solve();

private:
  // --- Structure -----------------------------------------------------------
  bool findTrainingForm(std::string &why);
  void chooseSegments();
  void assignBackward();
  void computeReaders();
  void computeBackwardLiveness();
  void buildSegmentFigures(int32_t j);
  void buildCheckpointTables();

  int32_t primaryOf(int32_t v) const {
    return nodes[v].primary >= 0 ? nodes[v].primary : v;
  }
  /// Whether forward value v takes part in decisions (not an output).
  bool isTracked(int32_t v) const { return v < F && !nodes[v].isOutput; }

  // --- Simulation ----------------------------------------------------------
  /// Marks (in `mark`) the nodes of [lo, hi] needed to produce `targets`
  /// (whole groups), treating everything before lo and outputs as present.
  void markAncestors(const std::vector<int32_t> &targets, int32_t lo,
                     int32_t hi);
  /// Cost and peak of computing the marked nodes of [lo, hi] in order (all
  /// of them if `all`), values in `keep` living to the end.
  std::pair<double, int64_t> simulateSweep(int32_t lo, int32_t hi, bool all);
  /// Appends B_j's events -- recomputations and backward nodes -- given the
  /// values of the segment that are kept (`kept[v]`).
  void planBackward(int32_t j, std::vector<int32_t> &events);
  /// Peak of running `events` of B_j with the kept values.
  int64_t backwardPeak(int32_t j, const std::vector<int32_t> &events);

  // --- DP and emission -------------------------------------------------------
  void runDp();
  /// Index of the table row C(s, t, ., withP, release): `withP` says P of
  /// segment t is held by the caller; `release` that the caller hands the
  /// bytes of X_{s-1} back once segment s's last recomputation read it.
  size_t rowC(int32_t s, int32_t t, bool withP, bool release) const {
    size_t pair = static_cast<size_t>(t) * (t + 1) / 2 + s;
    return ((pair * 2 + withP) * 2 + release) * (static_cast<size_t>(M) + 1);
  }
  double *costC(int32_t s, int32_t t, bool withP, bool release) {
    return &tableC[rowC(s, t, withP, release)];
  }
  int16_t *choiceC(int32_t s, int32_t t, bool withP, bool release) {
    return &decisionC[rowC(s, t, withP, release)];
  }
  /// After a checkpoint sweep stored X_e: the cheaper of C(s, e) with and
  /// without P_e kept (per m), and which.
  size_t rowAfter(int32_t s, int32_t e, bool release) const {
    size_t pair = static_cast<size_t>(e) * (e + 1) / 2 + s;
    return (pair * 2 + release) * (static_cast<size_t>(M) + 1);
  }
  /// Whether a release may be granted to C(s, ...) (or D(s)).
  bool releasable(int32_t s) const { return s > 0 && segments[s].shortInput; }
  /// Bytes in memory quanta, rounded to the nearest: the DP's model is then
  /// as often optimistic as pessimistic; the exact re-check and the repair
  /// rounds catch the optimistic cases.
  int64_t quanta(int64_t bytes) const {
    return (bytes + quantum / 2) / quantum;
  }
  /// Peak of a checkpoint sweep over segments s..e (first pass or not).
  int64_t sweepPeak(int32_t s, int32_t e, bool first) const;
  double sweepCost(int32_t s, int32_t e) const;

  void emitC(int32_t s, int32_t t, int32_t m, bool withP, bool release);
  void emitD(int32_t s, int32_t m, bool release);
  /// Emits C(s, e) after a checkpoint sweep stored X_e: with P held if
  /// that is cheaper (as the DP decided).
  void emitAfterCheckpoint(int32_t s, int32_t e, int32_t m, bool release);
  void emitSweep(int32_t s, int32_t e, bool first);
  void emitKeep(int32_t j, const KeepOption &option, bool branch, bool first,
                bool withP);
  void emitBackward(int32_t j, const KeepOption &option);
  /// Sets `kept` (values B_j finds in memory), `keep` (values the forward
  /// recomputation of segment j keeps) and `present` (P, if `withPresent`).
  void setKept(int32_t j, const KeepOption &option, bool branch,
               bool withPresent = false);

  const Problem &problem;
  const std::vector<Node> &nodes;
  int64_t budget;
  SegmentChainOptions options;
  int32_t n;
  int32_t F = 0;
  int32_t K = 0;

  std::vector<Segment> segments;
  std::vector<int32_t> segmentOf;       // forward nodes
  std::vector<int32_t> backwardSegment; // indexed by node (>= F)
  std::vector<int32_t> groupEnd;        // one past a primary's projections
  std::vector<int32_t> lastForwardSeg;  // latest segment reading v forward
  std::vector<int32_t> lastSeg;         // latest segment reading v at all
  std::vector<bool> readBySameBackward; // v in R_{segmentOf(v)}
  /// Backward buffers live just before node b runs (index b - F; the entry
  /// at n - F is after the last) and while b runs (its output, workspace).
  std::vector<int64_t> backGap, backDuring;
  int64_t constantBytes = 0; // fixed bytes and forward outputs

  /// cf[s * K + j]: bytes of FX_{j-1} in segments >= s; nu[s * K + e]:
  /// bytes of X_e in segments >= s.
  std::vector<int64_t> carriedForward, stored;

  // Scratch marks.
  std::vector<int32_t> markStamp;
  int32_t stamp = 0;
  std::vector<bool> keep;
  std::vector<bool> kept;
  /// Values held by the caller (P of the segment being handled).
  std::vector<bool> present;

  // DP.
  int64_t quantum = 1;
  int32_t M = 0;
  std::vector<double> tableC, tableD, tableAfter;
  std::vector<int16_t> decisionC, decisionD;
  std::vector<bool> afterWithP;

  Schedule schedule;
};

} // namespace

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

bool ChainSolver::findTrainingForm(std::string &why) {
  while (F < n && nodes[F].recomputable)
    ++F;
  for (int32_t i = F; i < n; ++i)
    if (nodes[i].recomputable) {
      why = "not a training step: recomputable node " + std::to_string(i) +
            " (" + nodes[i].name + ") follows a non-recomputable one";
      return false;
    }
  if (F == 0) {
    why = "nothing to recompute";
    return false;
  }
  groupEnd.assign(n, 0);
  // groupEnd of a primary: one past its last projection.
  for (int32_t i = 0; i < n; ++i) {
    if (nodes[i].primary >= 0)
      continue;
    int32_t end = i + 1;
    while (end < n && nodes[end].primary == i)
      ++end;
    groupEnd[i] = end;
  }
  return true;
}

void ChainSolver::computeReaders() {
  // Latest forward reader of every forward value, and which backward nodes
  // read forward values.
  lastForwardSeg.assign(F, -1);
  lastSeg.assign(F, -1);
  readBySameBackward.assign(F, false);
  for (int32_t i = 0; i < F; ++i)
    for (int32_t dep : nodes[i].deps)
      lastForwardSeg[dep] = std::max(lastForwardSeg[dep], segmentOf[i]);
  for (int32_t b = F; b < n; ++b)
    for (int32_t dep : nodes[b].deps) {
      if (dep >= F)
        continue;
      int32_t seg = backwardSegment[b];
      lastSeg[dep] = std::max(lastSeg[dep], seg);
      if (seg == segmentOf[dep])
        readBySameBackward[dep] = true;
    }
  for (int32_t v = 0; v < F; ++v)
    lastSeg[v] = std::max(lastSeg[v], lastForwardSeg[v]);
}

void ChainSolver::chooseSegments() {
  // A cut after node c (between c and c + 1) is allowed if it does not split
  // a group and keeps the backward segments consecutive: if a backward node
  // reads a later forward value than an earlier backward node did, no cut
  // may separate the two.
  std::vector<int32_t> forbid(F + 1, 0);
  int32_t runningMin = std::numeric_limits<int32_t>::max();
  for (int32_t b = F; b < n; ++b) {
    int32_t latest = -1;
    for (int32_t dep : nodes[b].deps)
      if (dep < F)
        latest = std::max(latest, dep);
    if (latest < 0)
      continue;
    if (latest > runningMin) {
      ++forbid[runningMin];
      --forbid[latest];
    }
    runningMin = std::min(runningMin, latest);
  }
  // Forward bytes crossing each cut, to prefer narrow cuts.
  std::vector<int64_t> crossing(F + 1, 0);
  std::vector<int32_t> lastFwd(F, -1);
  for (int32_t i = 0; i < F; ++i)
    for (int32_t dep : nodes[i].deps)
      lastFwd[dep] = std::max(lastFwd[dep], i);
  for (int32_t v = 0; v < F; ++v)
    if (lastFwd[v] > v && !nodes[v].isOutput) {
      crossing[v] += nodes[v].bytes;
      crossing[lastFwd[v]] -= nodes[v].bytes;
    }
  std::vector<int32_t> allowed;
  int32_t open = 0;
  int64_t width = 0;
  std::vector<int64_t> widthAt(F, 0);
  for (int32_t c = 0; c + 1 < F; ++c) {
    open += forbid[c];
    width += crossing[c];
    widthAt[c] = width;
    if (open == 0 && nodes[c + 1].primary < 0)
      allowed.push_back(c);
  }
  std::vector<int32_t> cuts;
  int32_t maxCuts = std::max(0, options.maxSegments - 1);
  if (static_cast<int32_t>(allowed.size()) <= maxCuts) {
    cuts = allowed;
  } else if (maxCuts > 0) {
    // One cut per window of equal node count: the narrowest in the window.
    size_t next = 0;
    for (int32_t w = 1; w <= maxCuts; ++w) {
      int64_t windowEnd =
          static_cast<int64_t>(F) * w / (maxCuts + 1); // cut at or before
      int32_t best = -1;
      while (next < allowed.size() && allowed[next] < windowEnd) {
        if (best < 0 || widthAt[allowed[next]] < widthAt[best])
          best = allowed[next];
        ++next;
      }
      if (best >= 0)
        cuts.push_back(best);
    }
  }
  segments.clear();
  int32_t lo = 0;
  for (int32_t c : cuts) {
    Segment seg;
    seg.lo = lo;
    seg.hi = c;
    segments.push_back(seg);
    lo = c + 1;
  }
  Segment last;
  last.lo = lo;
  last.hi = F - 1;
  segments.push_back(last);
  K = static_cast<int32_t>(segments.size());
  segmentOf.assign(F, 0);
  for (int32_t j = 0; j < K; ++j)
    for (int32_t v = segments[j].lo; v <= segments[j].hi; ++v)
      segmentOf[v] = j;
}

void ChainSolver::assignBackward() {
  backwardSegment.assign(n, 0);
  int32_t current = K - 1;
  for (int32_t b = F; b < n; ++b) {
    int32_t latest = -1;
    for (int32_t dep : nodes[b].deps)
      if (dep < F)
        latest = std::max(latest, dep);
    if (latest >= 0)
      current = segmentOf[latest];
    backwardSegment[b] = current;
  }
  for (Segment &seg : segments)
    seg.backLo = seg.backHi = -1;
  for (int32_t b = F; b < n; ++b) {
    Segment &seg = segments[backwardSegment[b]];
    if (seg.backLo < 0)
      seg.backLo = b;
    seg.backHi = b + 1;
  }
  // Empty ranges sit where the order would put them.
  int32_t position = F;
  for (int32_t j = K - 1; j >= 0; --j) {
    Segment &seg = segments[j];
    if (seg.backLo < 0)
      seg.backLo = seg.backHi = position;
    position = seg.backHi;
  }
}

void ChainSolver::computeBackwardLiveness() {
  constantBytes = problem.fixedBytes;
  for (int32_t v = 0; v < F; ++v)
    if (nodes[v].isOutput)
      constantBytes += nodes[v].bytes;
  std::vector<int32_t> lastRead(n, -1);
  for (int32_t b = F; b < n; ++b)
    for (int32_t dep : nodes[b].deps)
      if (dep >= F)
        lastRead[dep] = b;
  std::vector<int64_t> freed(n + 1, 0);
  backGap.assign(n - F + 1, 0);
  backDuring.assign(n - F + 1, 0);
  int64_t live = 0;
  for (int32_t b = F; b < n; ++b) {
    backGap[b - F] = live;
    live += nodes[b].bytes;
    backDuring[b - F] = live + nodes[b].workspace;
    int32_t until = nodes[b].isOutput ? n : std::max(lastRead[b], b);
    freed[until] += nodes[b].bytes;
    live -= freed[b];
  }
  backGap[n - F] = live;
}

void ChainSolver::markAncestors(const std::vector<int32_t> &targets,
                                int32_t lo, int32_t hi) {
  ++stamp;
  std::vector<int32_t> stack;
  auto push = [&](int32_t v) {
    if (v < lo || v > hi || nodes[v].isOutput || present[v])
      return;
    int32_t p = primaryOf(v);
    if (markStamp[p] == stamp)
      return;
    for (int32_t i = p; i < groupEnd[p]; ++i)
      markStamp[i] = stamp;
    stack.push_back(p);
  };
  for (int32_t v : targets)
    push(v);
  while (!stack.empty()) {
    int32_t p = stack.back();
    stack.pop_back();
    for (int32_t dep : nodes[p].deps)
      push(dep);
  }
}

std::pair<double, int64_t> ChainSolver::simulateSweep(int32_t lo, int32_t hi,
                                                      bool all) {
  // Last read of each computed value within the sweep.
  auto computed = [&](int32_t v) { return all || markStamp[v] == stamp; };
  std::vector<int32_t> lastRead(hi - lo + 1, -1);
  for (int32_t v = lo; v <= hi; ++v) {
    if (!computed(v))
      continue;
    for (int32_t dep : nodes[v].deps)
      if (dep >= lo && computed(dep))
        lastRead[dep - lo] = v;
  }
  std::vector<int64_t> freed(hi - lo + 2, 0);
  double cost = 0;
  int64_t live = 0, peak = 0;
  for (int32_t v = lo; v <= hi; ++v) {
    if (!computed(v))
      continue;
    cost += nodes[v].cost;
    int64_t bytes = nodes[v].isOutput ? 0 : nodes[v].bytes;
    live += bytes;
    peak = std::max(peak, live + nodes[v].workspace);
    if (!keep[v])
      freed[std::max(lastRead[v - lo], v) - lo] += bytes;
    live -= freed[v - lo];
  }
  return {cost, peak};
}

void ChainSolver::planBackward(int32_t j, std::vector<int32_t> &events) {
  const Segment &seg = segments[j];
  ++stamp; // markStamp == stamp: recomputed in this pass
  std::vector<std::pair<int32_t, size_t>> stack;
  auto available = [&](int32_t v) {
    return v < seg.lo || nodes[v].isOutput || kept[v] ||
           markStamp[v] == stamp;
  };
  auto recompute = [&](int32_t root) {
    stack.push_back({primaryOf(root), 0});
    while (!stack.empty()) {
      auto &[p, next] = stack.back();
      const std::vector<int32_t> &deps = nodes[p].deps;
      while (next < deps.size() && available(deps[next]))
        ++next;
      if (next < deps.size()) {
        int32_t dep = primaryOf(deps[next]);
        // A group under construction is not available yet; its deps are
        // earlier nodes, so no cycle.
        stack.push_back({dep, 0});
        continue;
      }
      int32_t done = p;
      stack.pop_back();
      if (markStamp[done] == stamp)
        continue;
      for (int32_t i = done; i < groupEnd[done]; ++i) {
        markStamp[i] = stamp;
        events.push_back(i);
      }
    }
  };
  for (int32_t b = seg.backLo; b < seg.backHi; ++b) {
    for (int32_t dep : nodes[b].deps)
      if (dep < F && !available(dep))
        recompute(dep);
    events.push_back(b);
  }
}

int64_t ChainSolver::backwardPeak(int32_t j, const std::vector<int32_t> &events) {
  const Segment &seg = segments[j];
  // Bind reads of the segment's values to their latest copy.
  std::vector<int32_t> latest(seg.hi - seg.lo + 1, -1); // -1: the kept copy
  std::vector<int32_t> lastReadOfKept(seg.hi - seg.lo + 1, -1);
  std::vector<int32_t> lastRead(events.size(), -1);
  for (size_t e = 0; e < events.size(); ++e) {
    int32_t id = events[e];
    for (int32_t dep : nodes[id].deps) {
      if (dep < seg.lo || dep > seg.hi || nodes[dep].isOutput)
        continue;
      int32_t copy = latest[dep - seg.lo];
      if (copy >= 0)
        lastRead[copy] = static_cast<int32_t>(e);
      else
        lastReadOfKept[dep - seg.lo] = static_cast<int32_t>(e);
    }
    if (id < F)
      latest[id - seg.lo] = static_cast<int32_t>(e);
  }
  std::vector<int64_t> freed(events.size() + 1, 0);
  int64_t live = 0;
  for (int32_t v = seg.lo; v <= seg.hi; ++v)
    if (kept[v] && !nodes[v].isOutput && !present[v]) {
      live += nodes[v].bytes;
      int32_t until = lastReadOfKept[v - seg.lo];
      freed[until < 0 ? 0 : until] += nodes[v].bytes;
    }
  int64_t peak = 0;
  int32_t nextBackward = seg.backLo;
  for (size_t e = 0; e < events.size(); ++e) {
    int32_t id = events[e];
    int64_t during;
    if (id < F) {
      live += nodes[id].bytes;
      during = backGap[nextBackward - F] + live + nodes[id].workspace;
      int32_t until = std::max<int32_t>(lastRead[e], static_cast<int32_t>(e));
      freed[until] += nodes[id].bytes;
    } else {
      during = backDuring[id - F] + live;
      nextBackward = id + 1;
    }
    peak = std::max(peak, during);
    live -= freed[e];
  }
  return peak;
}

void ChainSolver::setKept(int32_t j, const KeepOption &option, bool branch,
                          bool withPresent) {
  const Segment &seg = segments[j];
  for (int32_t v = seg.lo; v <= seg.hi; ++v) {
    kept[v] = isTracked(v) && readBySameBackward[v];
    present[v] = withPresent && kept[v] && lastSeg[v] > j;
    keep[v] = (kept[v] && !present[v]) ||
              (branch && isTracked(v) && lastSeg[v] > j);
  }
  for (int32_t v : option.dropped)
    kept[v] = keep[v] = false;
  for (int32_t v : option.extraKept) {
    kept[v] = true;
    keep[v] = !present[v];
  }
}

void ChainSolver::buildSegmentFigures(int32_t j) {
  Segment &seg = segments[j];
  // Checkpoint sweeps: middle (produce FX) and last (produce Y).
  std::vector<int32_t> forwardOut, boundary;
  for (int32_t v = seg.lo; v <= seg.hi; ++v) {
    if (!isTracked(v))
      continue;
    if (lastForwardSeg[v] > j)
      forwardOut.push_back(v);
    if (lastSeg[v] > j)
      boundary.push_back(v);
  }
  auto setKeep = [&](const std::vector<int32_t> &values) {
    for (int32_t v = seg.lo; v <= seg.hi; ++v)
      keep[v] = false;
    for (int32_t v : values)
      keep[v] = true;
  };
  setKeep(forwardOut);
  markAncestors(forwardOut, seg.lo, seg.hi);
  std::tie(seg.midCost, seg.midPeak) = simulateSweep(seg.lo, seg.hi, false);
  seg.firstMidPeak = simulateSweep(seg.lo, seg.hi, true).second;
  setKeep(boundary);
  markAncestors(boundary, seg.lo, seg.hi);
  std::tie(seg.lastCost, seg.lastPeak) = simulateSweep(seg.lo, seg.hi, false);
  seg.firstLastPeak = simulateSweep(seg.lo, seg.hi, true).second;

  // Keep options: drop candidates in order of bytes freed per unit of cost.
  std::vector<int32_t> candidates;
  for (int32_t v = seg.lo; v <= seg.hi; ++v)
    if (isTracked(v) && readBySameBackward[v] && lastSeg[v] == j)
      candidates.push_back(v);
  auto ratio = [&](int32_t v) {
    return double(nodes[v].bytes) /
           std::max(nodes[primaryOf(v)].cost, 1e-300);
  };
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](int32_t a, int32_t b) { return ratio(a) > ratio(b); });
  std::vector<size_t> prefixes;
  for (size_t k = 0; k <= candidates.size();
       k = k < 8 ? k + 1 : std::max(k + 1, k * 3 / 2))
    prefixes.push_back(k);
  if (prefixes.back() != candidates.size())
    prefixes.push_back(candidates.size());

  std::vector<KeepOption> all;
  std::vector<int32_t> events;
  auto evaluate = [&](KeepOption option) {
    for (bool branch : {false, true}) {
      setKept(j, option, branch);
      std::vector<int32_t> targets;
      int64_t bytes = 0;
      for (int32_t v = seg.lo; v <= seg.hi; ++v)
        if (keep[v]) {
          targets.push_back(v);
          bytes += nodes[v].bytes;
        }
      markAncestors(targets, seg.lo, seg.hi);
      auto [cost, peak] = simulateSweep(seg.lo, seg.hi, false);
      int64_t firstPeak = simulateSweep(seg.lo, seg.hi, true).second;
      (branch ? option.branchBytes : option.leafBytes) = bytes;
      (branch ? option.branchCost : option.leafCost) = cost;
      (branch ? option.branchPeak : option.leafPeak) = peak;
      (branch ? option.firstBranchPeak : option.firstLeafPeak) = firstPeak;
    }
    setKept(j, option, false, /*withPresent=*/true);
    {
      std::vector<int32_t> targets;
      for (int32_t v = seg.lo; v <= seg.hi; ++v)
        if (keep[v])
          targets.push_back(v);
      markAncestors(targets, seg.lo, seg.hi);
      std::tie(option.presentLeafCost, option.presentLeafPeak) =
          simulateSweep(seg.lo, seg.hi, false);
    }
    events.clear();
    planBackward(j, events);
    option.presentBackwardPeak = backwardPeak(j, events);
    for (int32_t v = seg.lo; v <= seg.hi; ++v)
      present[v] = false;
    setKept(j, option, false);
    events.clear();
    planBackward(j, events);
    for (int32_t id : events) {
      if (id < F)
        option.backwardCost += nodes[id].cost;
      for (int32_t dep : nodes[id].deps)
        if (dep < seg.lo && !nodes[dep].isOutput)
          option.usesInput = true;
    }
    option.backwardPeak = backwardPeak(j, events);
    all.push_back(std::move(option));
  };
  std::vector<bool> isCandidate(seg.hi - seg.lo + 1, false);
  for (int32_t v : candidates)
    isCandidate[v - seg.lo] = true;
  for (size_t k : prefixes) {
    KeepOption option;
    option.dropped.assign(candidates.begin(), candidates.begin() + k);
    std::sort(option.dropped.begin(), option.dropped.end());
    // A variant that keeps the inputs of the dropped values which B_j does
    // not read (e.g. attention scores under a dropped softmax), so that the
    // recomputation is cheap -- as greedy drop sets do implicitly.
    KeepOption withInputs = option;
    for (int32_t v : option.dropped)
      for (int32_t dep : nodes[primaryOf(v)].deps)
        if (dep >= seg.lo && isTracked(dep) && !readBySameBackward[dep] &&
            !isCandidate[dep - seg.lo])
          withInputs.extraKept.push_back(dep);
    std::sort(withInputs.extraKept.begin(), withInputs.extraKept.end());
    withInputs.extraKept.erase(std::unique(withInputs.extraKept.begin(),
                                           withInputs.extraKept.end()),
                               withInputs.extraKept.end());
    bool variant = !withInputs.extraKept.empty();
    evaluate(std::move(option));
    if (variant)
      evaluate(std::move(withInputs));
  }
  seg.backwardNeedsOnlyP = true;
  for (int32_t v = seg.lo; v <= seg.hi; ++v) {
    if (!isTracked(v) || !readBySameBackward[v])
      continue;
    if (lastSeg[v] > j)
      seg.presentBytes += nodes[v].bytes;
    else
      seg.backwardNeedsOnlyP = false;
  }
  for (int32_t b = seg.backLo; b < seg.backHi; ++b)
    for (int32_t dep : nodes[b].deps)
      if (dep < seg.lo && !nodes[dep].isOutput)
        seg.backwardNeedsOnlyP = false;
  // Pareto set over every figure the DP uses, thinned.
  std::vector<KeepOption> pareto;
  for (size_t a = 0; a < all.size(); ++a) {
    std::vector<double> mine = all[a].criteria();
    bool dominated = false;
    for (size_t b = 0; b < all.size() && !dominated; ++b) {
      if (a == b)
        continue;
      std::vector<double> theirs = all[b].criteria();
      bool noWorse = true, better = false;
      for (size_t k = 0; k < mine.size(); ++k) {
        noWorse = noWorse && theirs[k] <= mine[k];
        better = better || theirs[k] < mine[k];
      }
      dominated = noWorse && (better || b < a);
    }
    if (!dominated)
      pareto.push_back(all[a]);
  }
  size_t limit = std::max<int32_t>(1, options.maxOptionsPerSegment);
  if (pareto.size() > limit) {
    std::vector<KeepOption> thinned;
    for (size_t i = 0; i < limit; ++i)
      thinned.push_back(pareto[i * (pareto.size() - 1) / (limit - 1 > 0 ? limit - 1 : 1)]);
    pareto = std::move(thinned);
  }
  seg.options = std::move(pareto);
}

void ChainSolver::buildCheckpointTables() {
  // A cut c is crossed "long" by a value read after segment c + 1's forward
  // nodes; its checkpoint cannot be released early.
  std::vector<int32_t> longCrossing(K + 1, 0);
  for (int32_t v = 0; v < F; ++v)
    if (isTracked(v) && lastSeg[v] >= segmentOf[v] + 2) {
      ++longCrossing[segmentOf[v]];
      --longCrossing[lastSeg[v] - 1];
    }
  int32_t open = 0;
  for (int32_t c = 0; c + 1 < K; ++c) {
    open += longCrossing[c];
    segments[c + 1].shortInput = open == 0;
  }
  // Difference arrays over cuts, per segment of the value.
  std::vector<int64_t> storedDiff(static_cast<size_t>(K) * (K + 1), 0);
  std::vector<int64_t> forwardDiff(static_cast<size_t>(K) * (K + 1), 0);
  for (int32_t v = 0; v < F; ++v) {
    if (!isTracked(v))
      continue;
    int32_t s = segmentOf[v];
    if (lastSeg[v] > s) { // in X_c for c in [s, lastSeg - 1]
      storedDiff[s * (K + 1) + s] += nodes[v].bytes;
      storedDiff[s * (K + 1) + lastSeg[v]] -= nodes[v].bytes;
    }
    if (lastForwardSeg[v] > s) {
      forwardDiff[s * (K + 1) + s] += nodes[v].bytes;
      forwardDiff[s * (K + 1) + lastForwardSeg[v]] -= nodes[v].bytes;
    }
  }
  // bySeg[s][c]: bytes of segment s's values in X_c / FX_c.
  std::vector<int64_t> storedBy(static_cast<size_t>(K) * K, 0),
      forwardBy(static_cast<size_t>(K) * K, 0);
  for (int32_t s = 0; s < K; ++s) {
    int64_t a = 0, b = 0;
    for (int32_t c = 0; c < K; ++c) {
      a += storedDiff[s * (K + 1) + c];
      b += forwardDiff[s * (K + 1) + c];
      storedBy[s * K + c] = a;
      forwardBy[s * K + c] = b;
    }
  }
  stored.assign(static_cast<size_t>(K) * K, 0);
  carriedForward.assign(static_cast<size_t>(K) * K, 0);
  for (int32_t c = 0; c < K; ++c) {
    int64_t a = 0, b = 0;
    for (int32_t s = c; s >= 0; --s) {
      a += storedBy[s * K + c];
      b += forwardBy[s * K + c];
      stored[s * K + c] = a; // X_c in segments >= s
      if (c + 1 < K)
        carriedForward[s * K + c + 1] = b; // FX_c in segments >= s
    }
  }
  for (int32_t j = 1; j < K; ++j)
    segments[j].inputBytes = stored[(j - 1) * K + j - 1];
}

//===----------------------------------------------------------------------===//
// DP
//===----------------------------------------------------------------------===//

int64_t ChainSolver::sweepPeak(int32_t s, int32_t e, bool first) const {
  int64_t peak = 0;
  for (int32_t j = s; j < e; ++j)
    peak = std::max(peak, (j > s ? carriedForward[s * K + j] : 0) +
                              (first ? segments[j].firstMidPeak
                                     : segments[j].midPeak));
  peak = std::max(peak, (e > s ? carriedForward[s * K + e] : 0) +
                            (first ? segments[e].firstLastPeak
                                   : segments[e].lastPeak));
  return std::max(peak, stored[s * K + e]);
}

double ChainSolver::sweepCost(int32_t s, int32_t e) const {
  double cost = segments[e].lastCost;
  for (int32_t j = s; j < e; ++j)
    cost += segments[j].midCost;
  return cost;
}

void ChainSolver::runDp() {
  const size_t width = static_cast<size_t>(M) + 1;
  const size_t pairs = static_cast<size_t>(K) * (K + 1) / 2;
  tableC.assign(pairs * 4 * width, kInf);
  decisionC.assign(pairs * 4 * width, 0);
  tableAfter.assign(pairs * 2 * width, kInf);
  afterWithP.assign(pairs * 2 * width, false);
  auto background = [&](int32_t t) {
    return quanta(backGap[segments[t].backLo - F]);
  };
  auto at = [&](const double *row, int64_t m) {
    return row[std::min<int64_t>(m, M)];
  };
  auto relax = [](double *cost, int16_t *choice, double value, int16_t code) {
    if (value < *cost) {
      *cost = value;
      *choice = code;
    }
  };
  // Fills the "after checkpoint" row of (s, e) once C(s, e) is final.
  auto finishPair = [&](int32_t s, int32_t e) {
    int64_t p = quanta(segments[e].presentBytes);
    for (bool release : {false, true}) {
      const double *free = costC(s, e, false, release);
      const double *held = costC(s, e, true, release);
      double *after = &tableAfter[rowAfter(s, e, release)];
      auto withP = afterWithP.begin() + rowAfter(s, e, release);
      for (size_t m = 0; m < width; ++m) {
        after[m] = free[m];
        withP[m] = false;
        if (static_cast<int64_t>(m) >= p && held[m - p] < after[m]) {
          after[m] = held[m - p];
          withP[m] = true;
        }
      }
    }
  };
  for (int32_t len = 0; len < K; ++len) {
    for (int32_t s = 0; s + len < K; ++s) {
      int32_t t = s + len;
      int64_t bg = background(t);
      const Segment &seg = segments[s];
      int64_t give = releasable(s) ? quanta(seg.inputBytes) : 0;
      for (bool release : {false, true}) {
        if (release && !releasable(s))
          continue;
        for (bool withP : {false, true}) {
          double *cost = costC(s, t, withP, release);
          int16_t *choice = choiceC(s, t, withP, release);
          for (size_t o = 0; o < seg.options.size(); ++o) {
            const KeepOption &option = seg.options[o];
            int16_t code = static_cast<int16_t>(-1 - static_cast<int32_t>(o));
            int64_t back = quanta(withP && len == 0
                                      ? option.presentBackwardPeak
                                      : option.backwardPeak);
            int64_t returned = release && !option.usesInput ? give : 0;
            if (len == 0) {
              int64_t need =
                  std::max(bg + quanta(withP ? option.presentLeafPeak
                                             : option.leafPeak),
                           back - returned);
              double value =
                  (withP ? option.presentLeafCost : option.leafCost) +
                  option.backwardCost;
              for (int64_t m = std::max<int64_t>(need, 0); m <= M; ++m)
                relax(cost + m, choice + m, value, code);
              continue;
            }
            int64_t held = quanta(option.branchBytes);
            int64_t need = std::max(
                {bg + quanta(option.branchPeak), back - returned, held});
            double base = option.branchCost + option.backwardCost;
            const double *rest = costC(s + 1, t, withP, false);
            for (int64_t m = std::max<int64_t>(need, 0); m <= M; ++m)
              relax(cost + m, choice + m,
                    base + at(rest, m - held + returned), code);
          }
          // With P held and B_t needing nothing else: run B_t first, then
          // the rest without a checkpoint after segment t - 1.
          const Segment &top = segments[t];
          if (withP && len > 0 && top.backwardNeedsOnlyP &&
              !top.options.empty() && top.options.front().dropped.empty()) {
            int64_t need = quanta(top.options.front().presentBackwardPeak);
            int64_t freed = quanta(top.presentBytes);
            const double *rest = costC(s, t - 1, false, release);
            for (int64_t m = need; m <= M; ++m)
              relax(cost + m, choice + m, at(rest, m + freed), kBackwardFirst);
          }
          for (int32_t next = s + 1; next <= t; ++next) {
            int64_t held = quanta(stored[s * K + next - 1]);
            int64_t need =
                std::max(bg + quanta(sweepPeak(s, next - 1, false)), held);
            double base = sweepCost(s, next - 1);
            const double *later = costC(next, t, withP, false);
            const double *after = &tableAfter[rowAfter(s, next - 1, release)];
            for (int64_t m = need; m <= M; ++m)
              relax(cost + m, choice + m, base + later[m - held] + after[m],
                    static_cast<int16_t>(next));
            if (!releasable(next))
              continue;
            // The stored checkpoint goes back to C(next, t) once read, so
            // C(s, next - 1) cannot keep its P.
            const double *released = costC(next, t, withP, true);
            const double *plain = costC(s, next - 1, false, release);
            for (int64_t m = need; m <= M; ++m)
              relax(cost + m, choice + m,
                    base + released[m - held] + plain[m],
                    static_cast<int16_t>(kReleasedCheckpoint + next));
          }
        }
      }
      finishPair(s, t);
    }
  }
  // First pass: D(s, release) is C(s, K - 1) with the first computations
  // free.
  tableD.assign(static_cast<size_t>(K) * 2 * width, kInf);
  decisionD.assign(static_cast<size_t>(K) * 2 * width, 0);
  auto rowD = [&](int32_t s, bool release) {
    return (static_cast<size_t>(s) * 2 + release) * width;
  };
  int64_t bg = background(K - 1);
  for (int32_t s = K - 1; s >= 0; --s) {
    const Segment &seg = segments[s];
    int64_t give = releasable(s) ? quanta(seg.inputBytes) : 0;
    for (bool release : {false, true}) {
      if (release && !releasable(s))
        continue;
      double *cost = &tableD[rowD(s, release)];
      int16_t *choice = &decisionD[rowD(s, release)];
      for (size_t o = 0; o < seg.options.size(); ++o) {
        const KeepOption &option = seg.options[o];
        int16_t code = static_cast<int16_t>(-1 - static_cast<int32_t>(o));
        int64_t returned = release && !option.usesInput ? give : 0;
        int64_t back = quanta(option.backwardPeak) - returned;
        if (s == K - 1) {
          int64_t need = std::max(bg + quanta(option.firstLeafPeak), back);
          for (int64_t m = std::max<int64_t>(need, 0); m <= M; ++m)
            relax(cost + m, choice + m, option.backwardCost, code);
          continue;
        }
        int64_t held = quanta(option.branchBytes);
        int64_t need =
            std::max({bg + quanta(option.firstBranchPeak), back, held});
        const double *rest = &tableD[rowD(s + 1, false)];
        for (int64_t m = std::max<int64_t>(need, 0); m <= M; ++m)
          relax(cost + m, choice + m,
                option.backwardCost + at(rest, m - held + returned), code);
      }
      for (int32_t next = s + 1; next < K; ++next) {
        int64_t held = quanta(stored[s * K + next - 1]);
        int64_t need =
            std::max(bg + quanta(sweepPeak(s, next - 1, true)), held);
        const double *later = &tableD[rowD(next, false)];
        const double *after = &tableAfter[rowAfter(s, next - 1, release)];
        for (int64_t m = need; m <= M; ++m)
          relax(cost + m, choice + m, later[m - held] + after[m],
                static_cast<int16_t>(next));
        if (!releasable(next))
          continue;
        const double *released = &tableD[rowD(next, true)];
        const double *plain = costC(s, next - 1, false, release);
        for (int64_t m = need; m <= M; ++m)
          relax(cost + m, choice + m, released[m - held] + plain[m],
                static_cast<int16_t>(kReleasedCheckpoint + next));
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

void ChainSolver::emitSweep(int32_t s, int32_t e, bool first) {
  int32_t lo = segments[s].lo, hi = segments[e].hi;
  if (first) {
    for (int32_t v = lo; v <= hi; ++v)
      schedule.order.push_back(v);
    return;
  }
  std::vector<int32_t> targets;
  for (int32_t v = lo; v <= hi; ++v)
    if (isTracked(v) && lastSeg[v] > e)
      targets.push_back(v);
  markAncestors(targets, lo, hi);
  for (int32_t v = lo; v <= hi; ++v)
    if (markStamp[v] == stamp)
      schedule.order.push_back(v);
}

void ChainSolver::emitKeep(int32_t j, const KeepOption &option, bool branch,
                           bool first, bool withP) {
  const Segment &seg = segments[j];
  if (first) {
    for (int32_t v = seg.lo; v <= seg.hi; ++v)
      schedule.order.push_back(v);
    return;
  }
  setKept(j, option, branch, withP);
  std::vector<int32_t> targets;
  for (int32_t v = seg.lo; v <= seg.hi; ++v)
    if (keep[v])
      targets.push_back(v);
  markAncestors(targets, seg.lo, seg.hi);
  for (int32_t v = seg.lo; v <= seg.hi; ++v) {
    if (markStamp[v] == stamp)
      schedule.order.push_back(v);
    present[v] = false;
  }
}

void ChainSolver::emitBackward(int32_t j, const KeepOption &option) {
  setKept(j, option, false);
  planBackward(j, schedule.order);
}

void ChainSolver::emitAfterCheckpoint(int32_t s, int32_t e, int32_t m,
                                      bool release) {
  if (afterWithP[rowAfter(s, e, release) + m])
    emitC(s, e, static_cast<int32_t>(m - quanta(segments[e].presentBytes)),
          true, release);
  else
    emitC(s, e, m, false, release);
}

/// Memory index after handing `extra` quanta back, capped at the table.
static int32_t withReturned(int32_t m, int64_t extra, int32_t limit) {
  return static_cast<int32_t>(std::min<int64_t>(limit, m + extra));
}

void ChainSolver::emitC(int32_t s, int32_t t, int32_t m, bool withP,
                        bool release) {
  int16_t code = choiceC(s, t, withP, release)[m];
  if (code == kBackwardFirst) {
    emitBackward(t, segments[t].options.front());
    emitC(s, t - 1,
          withReturned(m, quanta(segments[t].presentBytes), M), false,
          release);
    return;
  }
  if (code < 0) {
    const KeepOption &option = segments[s].options[-1 - code];
    int64_t returned =
        release && !option.usesInput ? quanta(segments[s].inputBytes) : 0;
    if (s == t) {
      emitKeep(s, option, /*branch=*/false, /*first=*/false, withP);
    } else {
      emitKeep(s, option, /*branch=*/true, /*first=*/false, false);
      emitC(s + 1, t,
            withReturned(m - static_cast<int32_t>(quanta(option.branchBytes)),
                         returned, M),
            withP, false);
    }
    emitBackward(s, option);
    return;
  }
  bool released = code >= kReleasedCheckpoint;
  int32_t next = released ? code - kReleasedCheckpoint : code;
  emitSweep(s, next - 1, /*first=*/false);
  emitC(next, t, m - static_cast<int32_t>(quanta(stored[s * K + next - 1])),
        withP, released);
  if (released)
    emitC(s, next - 1, m, false, release);
  else
    emitAfterCheckpoint(s, next - 1, m, release);
}

void ChainSolver::emitD(int32_t s, int32_t m, bool release) {
  const size_t width = static_cast<size_t>(M) + 1;
  int16_t code = decisionD[(static_cast<size_t>(s) * 2 + release) * width + m];
  if (code < 0) {
    const KeepOption &option = segments[s].options[-1 - code];
    int64_t returned =
        release && !option.usesInput ? quanta(segments[s].inputBytes) : 0;
    emitKeep(s, option, /*branch=*/s != K - 1, /*first=*/true, false);
    if (s != K - 1)
      emitD(s + 1,
            withReturned(m - static_cast<int32_t>(quanta(option.branchBytes)),
                         returned, M),
            false);
    emitBackward(s, option);
    return;
  }
  bool released = code >= kReleasedCheckpoint;
  int32_t next = released ? code - kReleasedCheckpoint : code;
  emitSweep(s, next - 1, /*first=*/true);
  emitD(next, m - static_cast<int32_t>(quanta(stored[s * K + next - 1])),
        released);
  if (released)
    emitC(s, next - 1, m, false, release);
  else
    emitAfterCheckpoint(s, next - 1, m, release);
}

SolveResult ChainSolver::solve() {
  SolveResult result;
  std::string why;
  if (!findTrainingForm(why)) {
    result.message = why;
    return result;
  }
  markStamp.assign(n, 0);
  keep.assign(n, false);
  kept.assign(n, false);
  present.assign(n, false);
  chooseSegments();
  assignBackward();
  for (int32_t b = F + 1; b < n; ++b)
    if (backwardSegment[b] > backwardSegment[b - 1]) {
      result.message = "internal error: backward segments out of order";
      return result;
    }
  computeReaders();
  computeBackwardLiveness();
  for (int32_t j = 0; j < K; ++j)
    buildSegmentFigures(j);
  buildCheckpointTables();

  int64_t available = budget - constantBytes;
  if (available < 0) {
    result.message = "the budget does not cover the fixed bytes and outputs";
    return result;
  }
  size_t optionCount = 0;
  for (const Segment &seg : segments)
    optionCount += seg.options.size();
  // Per memory slot: the checkpoint transitions (K^3 / 6, times 4 state
  // variants, twice where the checkpoint may be released) and the options.
  double work = double(K) * K * K / 6 * 6 + double(K) * optionCount * 4 + 1;
  int64_t slots = static_cast<int64_t>(
      std::clamp(options.workLimit / work, 64.0, 4096.0));
  quantum = std::max<int64_t>(1, (available + slots - 1) / slots);
  M = static_cast<int32_t>(available / quantum);
  runDp();

  int32_t m = M;
  for (int32_t round = 0; round < options.maxRepairRounds && m >= 0; ++round) {
    if (!(tableD[m] < kInf))
      break;
    schedule.order.clear();
    emitD(0, m, false);
    Evaluation eval = evaluateSchedule(problem, schedule);
    if (!eval.valid()) {
      result.message = "internal error: invalid schedule: " + eval.error;
      return result;
    }
    if (eval.peakBytes <= budget) {
      result.status = SolveResult::Status::Feasible;
      result.schedule = std::move(schedule);
      result.cost = eval.totalCost;
      result.peakBytes = eval.peakBytes;
      result.message = std::to_string(K) + " segments, quantum " +
                       std::to_string(quantum) + " bytes, " +
                       std::to_string(round) + " repair rounds";
      return result;
    }
    int64_t excess = quanta(eval.peakBytes - budget);
    m -= static_cast<int32_t>(std::max<int64_t>(1, excess));
  }
  result.message = "no schedule of the segment chain (" + std::to_string(K) +
                   " segments) fits the budget";
  return result;
}

SolveResult mlir::ckpt::remat::solveSegmentChain(
    const Problem &problem, int64_t budgetBytes,
    const SegmentChainOptions &options) {
  detail::SolveClock clock;
  SolveResult result;
  if (!clock.accept(problem, result))
    return clock.finish(result);
  result = ChainSolver(problem, budgetBytes, options).solve();
  return clock.finish(result);
}
