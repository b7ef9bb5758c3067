//===- GenericSolver.cpp - Rematerialization without a training form ------===//
//
// See GenericSolver.h for the solution space and the search. Terms used here:
//   group   a node with its projections (StageGroups.h); one computation
//           produces all members. Stage t computes group t for the first time.
//   readers the stages whose group reads a member of group g, sorted, unique.
//   gap j   of group g: the stages (start, end] with start = g (j = 0) or
//           readers[j-1], and end = readers[j]. rec[gap] = -1 keeps the
//           buffer through the gap; rec[gap] = r in (start, end] frees it after
//           the read at start and recomputes it in stage r, kept to end.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/GenericSolver.h"

#include "ckpt/Remat/LowerBound.h"
#include "ckpt/Remat/ReorderedSchedules.h"

#include "ScheduleCheck.h"
#include "SolveClock.h"
#include "StageGroups.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <tuple>

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::detail;

bool mlir::ckpt::remat::isTrainingForm(const Problem &problem) {
  size_t n = problem.nodes.size(), forward = 0;
  while (forward < n && problem.nodes[forward].recomputable)
    ++forward;
  if (forward == 0 || forward == n)
    return false;
  for (size_t i = forward; i < n; ++i)
    if (problem.nodes[i].recomputable)
      return false;
  return true;
}

namespace {

/// Figures of one evaluated schedule.
struct Figures {
  double cost = 0;
  int64_t peak = 0;
  int64_t peakStep = -1;
  /// Sum over steps of the live bytes above the budget.
  double excess = 0;
  bool fits = false;
};

/// A candidate move: recompute the gap's group in stage `stage` (-1: keep
/// it through the gap); with `keepInputs`, its inputs that would be dead in
/// that stage are kept alive until then instead of being recomputed too.
struct Move {
  int32_t gap = -1;
  int32_t stage = -1;
  bool keepInputs = false;
  double estimate = 0;
  /// Instead of changing a gap: keep group `extend` alive past its last
  /// read until `stage` (-1: not such a move).
  int32_t extend = -1;

  bool isSet() const { return gap >= 0 || extend >= 0; }
};

/// What applying a move changed, to undo it.
struct Undo {
  int32_t gap = -1;
  int32_t stage = -1;
  std::vector<std::pair<int32_t, int32_t>> extensions;
};

class GenericSearch {
public:
  GenericSearch(const Problem &problem, int64_t budget,
                const GenericOptions &options);

  SolveResult run();

  /// Simulates the given order under the budget, evicting resident buffers
  /// when the next computation would not fit (the one whose next read is
  /// farthest per byte and unit of recomputation cost) and recomputing
  /// evicted ones where they are read, recursively (dynamic tensor
  /// rematerialization, Kirisame et al. 2021, with the schedule's known
  /// future reads). Returns the schedule, or an empty one if some
  /// computation does not fit even with every evictable buffer evicted.
  Schedule scheduleByEviction();

private:
  // Structure.
  int32_t gapStart(int32_t gap) const {
    int32_t g = gapGroup[gap], j = gap - gapBase[g];
    return j == 0 ? g : readers[g][j - 1];
  }
  int32_t gapEnd(int32_t gap) const {
    int32_t g = gapGroup[gap], j = gap - gapBase[g];
    return j < static_cast<int32_t>(readers[g].size()) ? readers[g][j] : G - 1;
  }
  /// The gap of group d holding stage t > d, or -1 if d is dead there (or
  /// not recomputable).
  int32_t gapAt(int32_t d, int32_t t) const {
    const std::vector<int32_t> &rs = readers[d];
    int32_t j = static_cast<int32_t>(std::lower_bound(rs.begin(), rs.end(), t) -
                                     rs.begin());
    return gapBase[d] + j < gapBase[d + 1] ? gapBase[d] + j : -1;
  }
  /// Whether group d's buffer is live at stage t > d under `rec` (without
  /// recomputing it in stage t).
  bool liveAt(int32_t d, int32_t t) const;

  // Schedules.
  /// Builds the schedule of `rec` into `order` / `stageOf`.
  void build();
  void need(int32_t d, int32_t t);
  void mark(int32_t g, int32_t t);
  /// Reorders `pending`, the recomputations of stage t, depth first.
  void orderDepthFirst(int32_t t);
  /// Evaluates `order` exactly as `evaluateSchedule` does.
  Figures evaluate();
  Figures buildAndEvaluate() {
    build();
    return evaluate();
  }

  // Search.
  double estimateCost(int32_t g, int32_t stage, bool deadIsLive = false);
  /// Whether group d is past its last read (and no output) at stage t.
  bool deadAt(int32_t d, int32_t t) const {
    return groups.recomputable[d] && !outputGroup[d] && gapAt(d, t) < 0 &&
           t > extendedTo[d];
  }
  Undo apply(const Move &move);
  void revert(const Undo &undo);
  /// The candidate moves at the peak of `at` (and at the highest steps of
  /// up to `peakSteps - 1` other stages over the budget), most promising
  /// first.
  std::vector<Move> collectMoves(const Figures &at,
                                 const std::vector<bool> &tabu);
  /// Appends the moves that lower the live bytes at step P: drop a gap
  /// holding a buffer across it (one move per gap in `seen`), or, when P is
  /// a recomputation, keep or move it.
  void collectMovesAt(int64_t P, const std::vector<bool> &tabu,
                      std::vector<int32_t> &seen, std::vector<Move> &moves);
  bool descend(Figures &current, std::vector<bool> tabu);
  /// Undoes drops (of `only`, or of every dropped gap when null), most
  /// expensive first, where the plan still fits at no higher cost; then
  /// releases extensions no longer needed.
  void undoDrops(Figures &current, const std::vector<int32_t> *only = nullptr);
  void shiftStages(Figures &current);
  std::vector<int32_t> droppedGapsByCost();
  bool better(const Figures &a, const Figures &b) const {
    return a.fits && (!b.fits || a.cost < b.cost);
  }
  bool workLeft() const { return work < options.maxWork; }

  const Problem &problem;
  int64_t budget;
  GenericOptions options;
  StageGroups groups;
  int32_t G = 0;
  std::vector<std::vector<int32_t>> depGroups, readers;
  std::vector<int32_t> gapBase, gapGroup;
  std::vector<bool> outputGroup;
  std::vector<int64_t> groupBytes;

  /// The decision of every gap.
  std::vector<int32_t> rec;
  /// Stage until which each group is kept past its last read, to feed
  /// recomputations (-1: not kept).
  std::vector<int32_t> extendedTo;

  // Builder scratch.
  std::vector<std::vector<int32_t>> scheduledAt;
  std::vector<int32_t> computedStage, pending;
  std::vector<int32_t> order, stageOf;
  /// Whether `build` orders each stage's recomputations depth first
  /// (`orderDepthFirst`) instead of in problem order.
  bool depthFirstStages = false;
  /// Depth-first scratch: the recomputations of the stage each one reads,
  /// and the memory it needs with them.
  std::vector<std::vector<int32_t>> children;
  std::vector<int64_t> stageNeed;
  std::vector<int32_t> dfsOrder;
  std::vector<std::pair<int32_t, size_t>> dfsStack;

  // Evaluator scratch.
  std::vector<int64_t> latest, until, freed;
  std::vector<int64_t> live;

  // Estimator scratch.
  std::vector<int32_t> visitStamp;
  int32_t stamp = 0;

  int64_t work = 0;
  int64_t evaluations = 0;
  /// How the descent picks moves: by excess removed alone (the fallback
  /// for tight budgets) instead of per unit of added cost, and how many
  /// times `candidatesPerStep` it evaluates per round.
  bool feasibilityFirst = false;
  size_t widen = 1;
  /// Stages over the budget a descent collects moves at (the fallbacks
  /// vary it).
  int32_t peakSteps = 1;
  /// Work beyond which a descent gives up (the fallbacks' cap), and whether
  /// one did.
  int64_t descentLimit = std::numeric_limits<int64_t>::max();
  bool descentCapped = false;
};

} // namespace

GenericSearch::GenericSearch(const Problem &problem, int64_t budget,
                             const GenericOptions &options)
    : problem(problem), budget(budget), options(options),
      groups(buildStageGroups(problem)) {
  G = groups.size();
  depGroups.assign(G, {});
  readers.assign(G, {});
  outputGroup.assign(G, false);
  groupBytes.assign(G, 0);
  for (int32_t g = 0; g < G; ++g) {
    for (int32_t i = groups.begin[g]; i < groups.begin[g + 1]; ++i) {
      const Node &node = problem.nodes[i];
      groupBytes[g] += node.bytes;
      outputGroup[g] = outputGroup[g] || node.isOutput;
      for (int32_t dep : node.deps) {
        int32_t d = groups.groupOf[dep];
        if (d != g)
          depGroups[g].push_back(d);
      }
    }
    std::vector<int32_t> &deps = depGroups[g];
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (int32_t d : deps)
      readers[d].push_back(g); // g increases, so readers stay sorted.
  }
  gapBase.assign(G + 1, 0);
  for (int32_t g = 0; g < G; ++g) {
    // One gap before each reader; an output has one more, from its last
    // read (or its computation) to the end, where it may be recomputed late.
    int32_t last = readers[g].empty() ? g : readers[g].back();
    int32_t count = groups.recomputable[g]
                        ? static_cast<int32_t>(readers[g].size()) +
                              (outputGroup[g] && last < G - 1 ? 1 : 0)
                        : 0;
    gapBase[g + 1] = gapBase[g] + count;
    for (int32_t j = 0; j < count; ++j)
      gapGroup.push_back(g);
  }
  rec.assign(gapBase[G], -1);
  extendedTo.assign(G, -1);
  scheduledAt.assign(G, {});
  computedStage.assign(G, -1);
  latest.assign(problem.nodes.size(), -1);
  visitStamp.assign(G, 0);
  children.assign(G, {});
  stageNeed.assign(G, 0);
}

bool GenericSearch::liveAt(int32_t d, int32_t t) const {
  if (!groups.recomputable[d])
    return true; // Read where needed: its buffer lives longer.
  int32_t gap = gapAt(d, t);
  if (gap < 0)
    return outputGroup[d] || t <= extendedTo[d]; // Past its last read.
  int32_t r = rec[gap];
  return r < 0 || r < t;
}

void GenericSearch::mark(int32_t g, int32_t t) {
  if (computedStage[g] == t)
    return;
  computedStage[g] = t;
  pending.push_back(g);
  for (int32_t d : depGroups[g])
    need(d, t);
}

void GenericSearch::need(int32_t d, int32_t t) {
  if (computedStage[d] == t || liveAt(d, t))
    return;
  mark(d, t);
}

void GenericSearch::build() {
  for (std::vector<int32_t> &list : scheduledAt)
    list.clear();
  for (int32_t gap = 0; gap < static_cast<int32_t>(rec.size()); ++gap)
    if (rec[gap] >= 0)
      scheduledAt[rec[gap]].push_back(gapGroup[gap]);
  std::fill(computedStage.begin(), computedStage.end(), -1);
  order.clear();
  stageOf.clear();
  for (int32_t t = 0; t < G; ++t) {
    pending.clear();
    for (int32_t g : scheduledAt[t])
      mark(g, t);
    for (int32_t d : depGroups[t])
      need(d, t);
    std::sort(pending.begin(), pending.end());
    if (depthFirstStages && pending.size() > 1)
      orderDepthFirst(t);
    pending.push_back(t);
    computedStage[t] = t;
    for (int32_t g : pending)
      for (int32_t i = groups.begin[g]; i < groups.begin[g + 1]; ++i) {
        order.push_back(i);
        stageOf.push_back(t);
      }
  }
}

void GenericSearch::orderDepthFirst(int32_t t) {
  // `pending` is sorted. Estimate, bottom up, the memory each recomputation
  // needs with its recomputed inputs computed one after another (each kept
  // until it is read), the one that needs the most beyond its own output
  // first (Sethi-Ullman order).
  auto neediestFirst = [&](int32_t a, int32_t b) {
    int64_t ka = stageNeed[a] - groupBytes[a];
    int64_t kb = stageNeed[b] - groupBytes[b];
    return ka != kb ? ka > kb : a > b;
  };
  for (int32_t g : pending) {
    children[g].clear();
    for (int32_t d : depGroups[g])
      if (computedStage[d] == t)
        children[g].push_back(d);
    std::sort(children[g].begin(), children[g].end(), neediestFirst);
    int64_t held = 0, need = 0;
    for (int32_t d : children[g]) {
      need = std::max(need, held + stageNeed[d]);
      held += groupBytes[d];
    }
    stageNeed[g] = std::max(need, held + groupBytes[g]);
  }
  // Roots: every recomputation no other recomputation of the stage reads.
  ++stamp;
  std::vector<int32_t> &roots = children[t]; // t is not in `pending`.
  roots.clear();
  for (int32_t g : pending)
    for (int32_t d : children[g])
      visitStamp[d] = stamp;
  for (int32_t g : pending)
    if (visitStamp[g] != stamp)
      roots.push_back(g);
  std::sort(roots.begin(), roots.end(), neediestFirst);
  // Post-order walk from the roots: each recomputation right after the ones
  // it reads.
  ++stamp;
  dfsOrder.clear();
  std::vector<std::pair<int32_t, size_t>> &stack = dfsStack;
  for (int32_t root : roots) {
    if (visitStamp[root] == stamp)
      continue;
    visitStamp[root] = stamp;
    stack.assign(1, {root, 0});
    while (!stack.empty()) {
      auto &[g, next] = stack.back();
      if (next < children[g].size()) {
        int32_t d = children[g][next++];
        if (visitStamp[d] != stamp) {
          visitStamp[d] = stamp;
          stack.push_back({d, 0});
        }
        continue;
      }
      dfsOrder.push_back(g);
      stack.pop_back();
    }
  }
  pending.swap(dfsOrder);
}

Figures GenericSearch::evaluate() {
  ++evaluations;
  const int64_t steps = static_cast<int64_t>(order.size());
  std::fill(latest.begin(), latest.end(), -1);
  until.assign(steps, -1);
  double cost = 0;
  for (int64_t step = 0; step < steps; ++step) {
    const Node &node = problem.nodes[order[step]];
    for (int32_t dep : node.deps)
      until[latest[dep]] = step;
    work += 1 + static_cast<int64_t>(node.deps.size());
    latest[order[step]] = step;
    cost += node.cost;
  }
  for (size_t id = 0; id < problem.nodes.size(); ++id)
    if (problem.nodes[id].isOutput && latest[id] >= 0)
      until[latest[id]] = steps;
  freed.assign(steps + 1, 0);
  live.resize(steps);
  Figures f;
  f.cost = cost;
  int64_t current = problem.fixedBytes;
  f.peak = problem.fixedBytes;
  for (int64_t step = 0; step < steps; ++step) {
    const Node &node = problem.nodes[order[step]];
    current += node.bytes;
    until[step] = std::max(until[step], step);
    if (until[step] < steps)
      freed[until[step]] += node.bytes;
    int64_t during = current + node.workspace;
    live[step] = during;
    if (during > f.peak) {
      f.peak = during;
      f.peakStep = step;
    }
    if (during > budget)
      f.excess += static_cast<double>(during - budget);
    current -= freed[step];
  }
  f.fits = f.peak <= budget;
  return f;
}

double GenericSearch::estimateCost(int32_t g, int32_t stage, bool deadIsLive) {
  // The recomputation of g in `stage` and of every input not live there.
  ++stamp;
  double total = 0;
  std::vector<int32_t> stack{g};
  visitStamp[g] = stamp;
  while (!stack.empty()) {
    int32_t x = stack.back();
    stack.pop_back();
    total += groups.cost[x];
    for (int32_t d : depGroups[x])
      if (visitStamp[d] != stamp && !liveAt(d, stage) &&
          !(deadIsLive && x == g && deadAt(d, stage))) {
        visitStamp[d] = stamp;
        stack.push_back(d);
      }
  }
  return total;
}

std::vector<Move> GenericSearch::collectMoves(const Figures &at,
                                              const std::vector<bool> &tabu) {
  std::vector<Move> moves;
  if (at.peakStep < 0)
    return moves;
  std::vector<int32_t> seen;
  collectMovesAt(at.peakStep, tabu, seen, moves);
  if (peakSteps > 1) {
    // Also the highest step of the other stages over the budget, highest
    // first: one of them may be the one to lower first.
    std::vector<std::pair<int64_t, int64_t>> highest;
    int64_t step = 0;
    const int64_t steps = static_cast<int64_t>(order.size());
    while (step < steps) {
      int32_t stage = stageOf[step];
      int64_t top = step;
      for (; step < steps && stageOf[step] == stage; ++step)
        if (live[step] > live[top])
          top = step;
      if (live[top] > budget && stage != stageOf[at.peakStep])
        highest.push_back({-live[top], top});
    }
    std::sort(highest.begin(), highest.end());
    for (size_t i = 0;
         i + 1 < static_cast<size_t>(peakSteps) && i < highest.size(); ++i)
      collectMovesAt(highest[i].second, tabu, seen, moves);
  }
  std::stable_sort(
      moves.begin(), moves.end(),
      [](const Move &a, const Move &b) { return a.estimate < b.estimate; });
  return moves;
}

void GenericSearch::collectMovesAt(int64_t P, const std::vector<bool> &tabu,
                                   std::vector<int32_t> &seen,
                                   std::vector<Move> &moves) {
  const int32_t tp = stageOf[P];
  const int32_t peakGroup = groups.groupOf[order[P]];
  const Node &peakNode = problem.nodes[order[P]];
  if (feasibilityFirst && peakGroup != tp && groups.recomputable[peakGroup]) {
    // The peak is a recomputation in this stage, whose own inputs may be
    // transient copies here. Avoid it: keep the buffer instead (past its
    // last read when it is dead here), or recompute it in an earlier stage
    // of its gap.
    int32_t gap = gapAt(peakGroup, tp);
    double bytes =
        std::max<double>(1, static_cast<double>(groupBytes[peakGroup]));
    if (gap < 0 && !outputGroup[peakGroup] && extendedTo[peakGroup] < tp) {
      moves.push_back({-1, tp, false, 0, peakGroup});
    } else if (gap >= 0 && rec[gap] >= tp && !tabu[gap]) {
      moves.push_back({gap, -1, false, 0});
      int32_t start = gapStart(gap);
      int32_t earlier[] = {start + 1, (start + 1 + tp) / 2, tp - 1};
      for (int32_t i = 0; i < 3; ++i)
        if (earlier[i] > start && earlier[i] < tp &&
            (i == 0 || earlier[i] != earlier[i - 1]))
          moves.push_back({gap, earlier[i], false,
                           estimateCost(peakGroup, earlier[i]) / bytes});
    }
  }
  for (int64_t s = 0; s < P; ++s) {
    if (until[s] < P)
      continue;
    int32_t v = order[s];
    int32_t g = groups.groupOf[v];
    if (!groups.recomputable[g] || g == peakGroup ||
        std::find(peakNode.deps.begin(), peakNode.deps.end(), v) !=
            peakNode.deps.end())
      continue;
    int32_t gap = gapAt(g, tp);
    if (gap < 0 || gapEnd(gap) <= tp)
      continue; // Dead, or read in this very stage.
    if (tabu[gap] || (rec[gap] >= 0 && rec[gap] > tp))
      continue; // A transient copy, or the gap may not change.
    if (std::find(seen.begin(), seen.end(), gap) != seen.end())
      continue;
    seen.push_back(gap);
    int32_t end = gapEnd(gap);
    double bytes = std::max<double>(1, static_cast<double>(groupBytes[g]));
    moves.push_back({gap, end, false, estimateCost(g, end) / bytes});
    if (tp + 1 < end)
      moves.push_back({gap, tp + 1, false, estimateCost(g, tp + 1) / bytes});
    bool deadInput = false;
    for (int32_t d : depGroups[g])
      deadInput = deadInput || deadAt(d, end);
    if (deadInput)
      moves.push_back({gap, end, true, estimateCost(g, end, true) / bytes});
  }
}

Undo GenericSearch::apply(const Move &move) {
  Undo undo;
  undo.gap = move.gap;
  if (move.extend >= 0) {
    undo.extensions.push_back({move.extend, extendedTo[move.extend]});
    extendedTo[move.extend] = std::max(extendedTo[move.extend], move.stage);
    return undo;
  }
  undo.stage = rec[move.gap];
  if (move.keepInputs)
    for (int32_t d : depGroups[gapGroup[move.gap]])
      if (deadAt(d, move.stage)) {
        undo.extensions.push_back({d, extendedTo[d]});
        extendedTo[d] = move.stage;
      }
  rec[move.gap] = move.stage;
  return undo;
}

void GenericSearch::revert(const Undo &undo) {
  if (undo.gap >= 0)
    rec[undo.gap] = undo.stage;
  for (auto it = undo.extensions.rbegin(); it != undo.extensions.rend(); ++it)
    extendedTo[it->first] = it->second;
}

bool GenericSearch::descend(Figures &current, std::vector<bool> tabu) {
  const size_t K =
      static_cast<size_t>(std::max(1, options.candidatesPerStep)) * widen;
  // Moves that remove no excess are allowed a limited number of times, each
  // on a gap not changed since (so the descent ends): one move can shift the
  // peak to where a second one removes it.
  int32_t sideways = 0;
  while (!current.fits) {
    if (work > descentLimit) {
      descentCapped = true;
      return false;
    }
    std::vector<Move> moves = collectMoves(current, tabu);
    // Evaluate the most promising moves exactly; take the one that removes
    // the most excess per unit of added cost (feasibility first: the most
    // excess). If none of the first K removes excess, look further down the
    // list.
    Move best, side;
    Figures sideFigures;
    double bestScore = std::numeric_limits<double>::infinity();
    for (size_t first = 0; first < moves.size() && !best.isSet(); first += K) {
      for (size_t i = first; i < std::min(moves.size(), first + K); ++i) {
        const Move &move = moves[i];
        Undo undo = apply(move);
        Figures f = buildAndEvaluate();
        revert(undo);
        double removed = current.excess - f.excess;
        if (!(removed > 0)) {
          // A sideways move must not add excess, or must lower the peak.
          if (removed < 0 && f.peak >= current.peak)
            continue;
          if (!side.isSet() ||
              std::tie(f.peak, f.excess, f.cost) < std::tie(sideFigures.peak,
                                                            sideFigures.excess,
                                                            sideFigures.cost)) {
            side = move;
            sideFigures = f;
          }
          continue;
        }
        double score = feasibilityFirst
                           ? -removed
                           : std::max(0.0, f.cost - current.cost) / removed;
        if (score < bestScore) {
          bestScore = score;
          best = move;
        }
      }
    }
    if (!best.isSet()) {
      if (!side.isSet() || ++sideways > options.maxSidewaysMoves) {
        return false;
      }
      best = side;
      if (side.gap >= 0)
        tabu[side.gap] = true;
    }
    apply(best);
    // The next round's moves are read off the schedule of `rec` (its order,
    // stages and lifetimes), not off the last candidate evaluated.
    current = buildAndEvaluate();
  }
  // `order` describes `rec`: callers build before descending, and so does
  // every applied move.
  return true;
}

std::vector<int32_t> GenericSearch::droppedGapsByCost() {
  std::vector<std::pair<double, int32_t>> dropped;
  for (int32_t gap = 0; gap < static_cast<int32_t>(rec.size()); ++gap)
    if (rec[gap] >= 0)
      dropped.push_back({-estimateCost(gapGroup[gap], rec[gap]), gap});
  std::stable_sort(dropped.begin(), dropped.end());
  std::vector<int32_t> gaps;
  for (auto &entry : dropped)
    gaps.push_back(entry.second);
  return gaps;
}

void GenericSearch::undoDrops(Figures &current,
                              const std::vector<int32_t> *only) {
  for (int32_t gap : droppedGapsByCost()) {
    if (only && std::find(only->begin(), only->end(), gap) == only->end())
      continue;
    if (!workLeft())
      break;
    int32_t saved = rec[gap];
    rec[gap] = -1;
    Figures f = buildAndEvaluate();
    if (f.fits && f.cost <= current.cost)
      current = f;
    else
      rec[gap] = saved;
  }
  for (int32_t g = 0; g < G && workLeft(); ++g) {
    if (extendedTo[g] < 0)
      continue;
    int32_t saved = extendedTo[g];
    extendedTo[g] = -1;
    Figures f = buildAndEvaluate();
    if (f.fits && f.cost <= current.cost)
      current = f;
    else
      extendedTo[g] = saved;
  }
}

void GenericSearch::shiftStages(Figures &current) {
  for (int32_t gap : droppedGapsByCost()) {
    if (!workLeft())
      break;
    int32_t start = gapStart(gap), end = gapEnd(gap);
    // Earlier stages may find the inputs still live (cheaper); later ones
    // hold the buffer for less time.
    int32_t options[] = {start + 1, (start + 1 + end) / 2, end};
    for (int32_t stage : options) {
      if (stage == rec[gap] || stage <= start || stage > end)
        continue;
      int32_t before = rec[gap];
      rec[gap] = stage;
      Figures f = buildAndEvaluate();
      if (f.fits && f.cost < current.cost)
        current = f;
      else
        rec[gap] = before;
    }
  }
}

namespace {

/// The state of the eviction simulation.
class EvictionSimulation {
public:
  EvictionSimulation(const Problem &problem, int64_t budget,
                     const StageGroups &groups,
                     const std::vector<std::vector<int32_t>> &depGroups,
                     const std::vector<std::vector<int32_t>> &readers,
                     const std::vector<bool> &outputGroup,
                     const std::vector<int64_t> &groupBytes)
      : problem(problem), budget(budget), groups(groups), depGroups(depGroups),
        readers(readers), outputGroup(outputGroup), groupBytes(groupBytes),
        resident(groups.size(), false), pinned(groups.size(), 0),
        computed(groups.size(), false), workspace(groups.size(), 0) {
    for (int32_t g = 0; g < groups.size(); ++g)
      for (int32_t i = groups.begin[g]; i < groups.begin[g + 1]; ++i)
        workspace[g] = std::max(workspace[g], problem.nodes[i].workspace);
  }

  Schedule run() {
    live = problem.fixedBytes;
    const int32_t G = groups.size();
    for (now = 0; now < G; ++now) {
      if (!ensure(now, /*first=*/true))
        return {};
      release(now, now + 1);
    }
    // Outputs evicted on the way are computed again at the end.
    now = G;
    for (int32_t g = 0; g < G; ++g)
      if (outputGroup[g] && !resident[g] && !ensure(g, false))
        return {};
    return std::move(schedule);
  }

private:
  /// The first stage >= t that reads g (G if none).
  int32_t nextRead(int32_t g, int32_t t) const {
    auto it = std::lower_bound(readers[g].begin(), readers[g].end(), t);
    return it == readers[g].end() ? groups.size() : *it;
  }
  bool needed(int32_t g, int32_t t) const {
    return outputGroup[g] || nextRead(g, t) < groups.size();
  }

  /// Computes group g (its first computation when `first`) with its inputs
  /// resident, evicting others as needed.
  bool ensure(int32_t g, bool first) {
    if (!first && resident[g])
      return true;
    if (!first && (!groups.recomputable[g] || !computed[g]))
      return false;
    // Recomputations can cascade (thrashing): give up beyond a few
    // computations per node.
    if (schedule.order.size() > 8 * problem.nodes.size() + 64)
      return false;
    ++pinned[g];
    size_t ready = 0;
    bool ok = true;
    for (int32_t d : depGroups[g]) {
      if (!resident[d] && !ensure(d, false)) {
        ok = false;
        break;
      }
      ++pinned[d];
      ++ready;
    }
    ok = ok && makeRoom(groupBytes[g] + workspace[g]);
    if (ok) {
      for (int32_t i = groups.begin[g]; i < groups.begin[g + 1]; ++i)
        schedule.order.push_back(i);
      live += groupBytes[g];
      resident[g] = true;
      computed[g] = true;
    }
    for (size_t i = 0; i < ready; ++i)
      --pinned[depGroups[g][i]];
    --pinned[g];
    // A recomputation's inputs may go; g itself is read next by the caller
    // (which pins it), so it stays.
    if (ok && !first)
      release(g, now, /*self=*/false);
    return ok;
  }

  /// Frees g's inputs that no stage >= t reads (and, with `self`, g itself
  /// if unread).
  void release(int32_t g, int32_t t, bool self = true) {
    for (int32_t d : depGroups[g])
      if (resident[d] && !pinned[d] && !needed(d, t) &&
          groups.recomputable[d]) {
        resident[d] = false;
        live -= groupBytes[d];
      }
    if (self && t > g && resident[g] && !pinned[g] && !needed(g, t)) {
      resident[g] = false;
      live -= groupBytes[g];
    }
  }

  /// Evicts until `extra` more bytes fit.
  bool makeRoom(int64_t extra) {
    while (live + extra > budget) {
      int32_t victim = -1;
      double best = std::numeric_limits<double>::infinity();
      for (int32_t v = 0; v < groups.size(); ++v) {
        if (!resident[v] || pinned[v] || !groups.recomputable[v] ||
            groupBytes[v] == 0)
          continue;
        double cost = groups.cost[v];
        for (int32_t d : depGroups[v])
          if (!resident[d])
            cost += groups.cost[d];
        double distance = nextRead(v, now) - now + 1;
        double score =
            (cost + 1e-9) / (static_cast<double>(groupBytes[v]) * distance);
        if (score < best) {
          best = score;
          victim = v;
        }
      }
      if (victim < 0)
        return false;
      resident[victim] = false;
      live -= groupBytes[victim];
    }
    return true;
  }

  const Problem &problem;
  int64_t budget;
  const StageGroups &groups;
  const std::vector<std::vector<int32_t>> &depGroups, &readers;
  const std::vector<bool> &outputGroup;
  const std::vector<int64_t> &groupBytes;
  std::vector<bool> resident;
  std::vector<int32_t> pinned;
  std::vector<bool> computed;
  std::vector<int64_t> workspace;
  int64_t live = 0;
  int32_t now = 0;
  Schedule schedule;
};

} // namespace

Schedule GenericSearch::scheduleByEviction() {
  return EvictionSimulation(problem, budget, groups, depGroups, readers,
                            outputGroup, groupBytes)
      .run();
}

SolveResult GenericSearch::run() {
  SolveResult result;
  std::vector<bool> noTabu(rec.size(), false);
  Figures current = buildAndEvaluate();
  bool descended = descend(current, noTabu);
  // Tight budgets: descents that evaluate more candidates per round and
  // pick moves by the excess they remove alone (feasibility first; the
  // local search below recovers cost), then by cost per excess removed.
  // The first that fits is kept. Each may spend an eighth of the work cap
  // or twice what the first descent spent, whichever is more, all together
  // twice the work cap; they stop once one runs out (the others would too).
  // If none fits, the same descents run again with each stage's
  // recomputations in depth-first order (lower peaks, but the descents'
  // paths differ, so it is not the default), with the same allowance. The
  // work they spend does not count against the local search.
  struct Fallback {
    bool feasibilityFirst;
    size_t widen;
    int32_t peakSteps;
  };
  static const Fallback fallbacks[] = {
      {true, 3, 1}, {true, 4, 2}, {true, 6, 1},  {true, 2, 3},
      {true, 8, 2}, {true, 1, 1}, {false, 2, 1}, {false, 4, 2}};
  const int32_t fallbackCount =
      std::min<int32_t>(options.fallbackDescents, std::size(fallbacks));
  const int64_t constructionWork = work;
  const int64_t share = std::max(options.maxWork / 8, 2 * work);
  int32_t fallbackUsed = 0;
  for (int32_t round = 0; round < 2 && !descended && fallbackCount > 0;
       ++round) {
    const int64_t fallbackEnd = work + 2 * options.maxWork;
    descentCapped = false;
    for (int32_t i = round == 0 ? 0 : -1;
         i < fallbackCount && !descended && !descentCapped; ++i) {
      fallbackUsed = round * (fallbackCount + 1) + i + 1;
      std::fill(rec.begin(), rec.end(), -1);
      std::fill(extendedTo.begin(), extendedTo.end(), -1);
      depthFirstStages = round == 1;
      feasibilityFirst = i >= 0 && fallbacks[i].feasibilityFirst;
      widen = i >= 0 ? fallbacks[i].widen : 1;
      peakSteps = i >= 0 ? fallbacks[i].peakSteps : 1;
      descentLimit = std::min(work + share, fallbackEnd);
      current = buildAndEvaluate();
      descended = descend(current, noTabu);
    }
  }
  feasibilityFirst = false;
  widen = 1;
  peakSteps = 1;
  descentLimit = std::numeric_limits<int64_t>::max();
  work = constructionWork;
  if (!descended) {
    // Tight budgets: the eviction simulation may still find a plan.
    result.schedule = scheduleByEviction();
    if (!result.schedule.order.empty() &&
        checkSchedule(problem, budget, result).empty()) {
      result.status = SolveResult::Status::Feasible;
      result.fromEviction = true;
      result.message = "eviction simulation (the descent found no move that "
                       "lowers the peak of " +
                       std::to_string(current.peak) + " bytes)";
      return result;
    }
    result.schedule.order.clear();
    result.status = SolveResult::Status::Unknown;
    result.message = "the descent found no move that lowers the peak of " +
                     std::to_string(current.peak) +
                     " bytes towards the budget, and the eviction simulation "
                     "found no plan either";
    return result;
  }
  undoDrops(current);
  shiftStages(current);
  std::vector<int32_t> bestRec = rec, bestExtended = extendedTo;
  Figures best = current;
  int32_t kicks = 0, sinceImprovement = 0;
  // Iterated search: keep one dropped gap (most expensive first, in turn),
  // descend again without re-dropping it, clean up; keep what is cheaper.
  // The last fifth of the work is kept for the final clean-up.
  const int64_t kickWork = options.maxWork / 5 * 4;
  for (int32_t round = 0; round < options.maxKicks && work < kickWork;
       ++round) {
    std::vector<int32_t> dropped = droppedGapsByCost();
    if (dropped.empty())
      break;
    int32_t gap = dropped[static_cast<size_t>(round) % dropped.size()];
    std::vector<bool> tabu(rec.size(), false);
    tabu[gap] = true;
    rec[gap] = -1;
    std::vector<int32_t> before = rec;
    Figures f = buildAndEvaluate();
    bool ok = descend(f, tabu);
    if (ok) {
      // Undo what became unneeded among the drops this descent made.
      std::vector<int32_t> changed;
      for (int32_t g2 = 0; g2 < static_cast<int32_t>(rec.size()); ++g2)
        if (rec[g2] != before[g2] && rec[g2] >= 0)
          changed.push_back(g2);
      undoDrops(f, &changed);
    }
    ++kicks;
    if (ok && better(f, best)) {
      sinceImprovement = 0;
      best = f;
      bestRec = rec;
      bestExtended = extendedTo;
    } else {
      rec = bestRec;
      extendedTo = bestExtended;
      // Stop once every dropped gap was released without improvement.
      if (++sinceImprovement >= static_cast<int32_t>(dropped.size()))
        break;
    }
  }
  rec = bestRec;
  extendedTo = bestExtended;
  if (kicks > 0) {
    Figures f = buildAndEvaluate();
    shiftStages(f);
    undoDrops(f);
  }
  build();
  result.schedule.order = order;
  if (std::string why = checkSchedule(problem, budget, result); !why.empty()) {
    result.status = SolveResult::Status::Unknown;
    result.message = "internal error: " + why;
    return result;
  }
  result.status = SolveResult::Status::Feasible;
  SolveResult evicted;
  evicted.schedule = scheduleByEviction();
  if (!evicted.schedule.order.empty() &&
      checkSchedule(problem, budget, evicted).empty() &&
      evicted.cost < result.cost) {
    evicted.status = SolveResult::Status::Feasible;
    evicted.fromEviction = true;
    evicted.message = "eviction simulation (cheaper than the gap search)";
    return evicted;
  }
  int64_t drops = 0;
  for (int32_t r : rec)
    drops += r >= 0;
  result.message = std::to_string(drops) + " dropped gaps of " +
                   std::to_string(rec.size()) + ", " +
                   std::to_string(evaluations) + " evaluations, " +
                   std::to_string(kicks) + " kicks";
  if (fallbackUsed > 0)
    result.message += ", fallback descent " + std::to_string(fallbackUsed);
  if (depthFirstStages)
    result.message += ", depth-first stages";
  return result;
}

/// Where the window repair starts: the plan of a search in the problem's
/// order at the tightest of the budgets 1/16, 3/32, 1/8, 1/4 and 1/2 of the
/// way from `budgetBytes` to the peak without recomputation that finds one,
/// else the problem's order without recomputation.
static std::vector<int32_t> repairStart(const Problem &problem,
                                        int64_t budgetBytes,
                                        const GenericOptions &options) {
  const int64_t peak =
      evaluateSchedule(problem, Schedule::identity(problem)).peakBytes;
  GenericOptions looser = options;
  looser.tryOtherOrders = false;
  // Thirty-seconds of the way from the budget to the peak.
  for (int64_t parts : {2, 3, 4, 8, 16}) {
    if (peak <= budgetBytes)
      break;
    SolveResult plan =
        GenericSearch(problem,
                      budgetBytes + (peak - budgetBytes) * parts / 32,
                      looser)
            .run();
    if (plan.hasSchedule())
      return plan.schedule.order;
  }
  return Schedule::identity(problem).order;
}

SolveResult mlir::ckpt::remat::solveGeneric(const Problem &problem,
                                            int64_t budgetBytes,
                                            const GenericOptions &options) {
  SolveClock clock;
  SolveResult result;
  if (!clock.accept(problem, result))
    return clock.finish(result);
  if (budgetBytes < problem.fixedBytes) {
    result.message = "the budget does not cover the fixed bytes";
    return clock.finish(result);
  }
  // Below a proven floor no schedule fits: say so before searching (the
  // backward search would otherwise spend its whole work cap).
  int64_t floor = std::max(computeMemoryFloor(problem).bytes,
                           computeLookBackFloor(problem).bytes);
  if (budgetBytes < floor) {
    result.status = SolveResult::Status::Infeasible;
    result.lowerBound = std::numeric_limits<double>::infinity();
    result.message = "no schedule fits: the budget is below the proven "
                     "memory floor of " +
                     std::to_string(floor) + " bytes";
    return clock.finish(result);
  }
  result = GenericSearch(problem, budgetBytes, options).run();
  if (!result.hasSchedule() && options.tryOtherOrders) {
    SolveResult reordered =
        solveReordered(problem, budgetBytes, options, solveGeneric,
                       [&](const Problem &inOrder) {
                         return repairStart(inOrder, budgetBytes, options);
                       });
    if (reordered.hasSchedule() ||
        reordered.status == SolveResult::Status::Infeasible)
      result = std::move(reordered);
    else
      result.message += "; " + reordered.message;
  }
  return clock.finish(result);
}
