//===- ReorderedSchedules.cpp - Plans found in another order --------------===//
//
// See ReorderedSchedules.h for why a plan found in any order can be run in
// the problem's order, and how.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/ReorderedSchedules.h"

#include "ckpt/Remat/BackwardSearch.h"
#include "ckpt/Remat/WindowRepair.h"

#include "ProblemShape.h"
#include "ScheduleCheck.h"
#include "SolveClock.h"

#include <algorithm>
#include <limits>
#include <random>

using namespace mlir::ckpt::remat;
using mlir::ckpt::remat::detail::uniqueDeps;

namespace {

/// Depth-first post-order from the last node (then from any node it does
/// not reach), visiting first the input whose computation from nothing
/// needs the most memory beyond its own output (Sethi-Ullman).
std::vector<int32_t>
depthFirstOrder(const Problem &problem,
                const std::vector<std::vector<int32_t>> &deps) {
  const int32_t n = static_cast<int32_t>(problem.nodes.size());
  // need[v]: peak bytes to compute v from nothing when every input is
  // computed from nothing in turn (the inputs as a tree).
  std::vector<int64_t> need(n, 0);
  std::vector<std::vector<int32_t>> sorted(n);
  for (int32_t v = 0; v < n; ++v) {
    sorted[v] = deps[v];
    std::stable_sort(sorted[v].begin(), sorted[v].end(),
                     [&](int32_t a, int32_t b) {
                       return need[a] - problem.nodes[a].bytes >
                              need[b] - problem.nodes[b].bytes;
                     });
    int64_t held = 0, peak = 0;
    for (int32_t u : sorted[v]) {
      peak = std::max(peak, held + need[u]);
      held += problem.nodes[u].bytes;
    }
    need[v] = std::max(peak, held + problem.nodes[v].bytes +
                                 problem.nodes[v].workspace);
  }
  std::vector<int32_t> order;
  order.reserve(n);
  std::vector<char> visited(n, 0);
  // Explicit stack of (node, next input index): graphs may be deep.
  std::vector<std::pair<int32_t, size_t>> stack;
  auto visitFrom = [&](int32_t root) {
    if (visited[root])
      return;
    visited[root] = 1;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto &[v, next] = stack.back();
      if (next < sorted[v].size()) {
        int32_t u = sorted[v][next++];
        if (!visited[u]) {
          visited[u] = 1;
          stack.push_back({u, 0});
        }
        continue;
      }
      order.push_back(v);
      stack.pop_back();
    }
  };
  // Nodes the last one does not need go first, so the last stays last.
  std::vector<char> reached(n, 0);
  reached[n - 1] = 1;
  for (int32_t v = n - 1; v >= 0; --v)
    if (reached[v])
      for (int32_t u : deps[v])
        reached[u] = 1;
  for (int32_t v = 0; v < n; ++v)
    if (!reached[v])
      visitFrom(v);
  visitFrom(n - 1);
  return order;
}

/// A greedy list schedule: among the nodes whose inputs are computed, the
/// one that adds the fewest bytes (its output minus the inputs it is the
/// last reader of), each size scaled by a random factor in [1, 1 + noise).
/// Returns the order and sets `peak` to its no-recompute peak.
std::vector<int32_t>
greedyOrder(const Problem &problem,
            const std::vector<std::vector<int32_t>> &deps,
            const std::vector<std::vector<int32_t>> &readers, double noise,
            std::mt19937_64 &rng, int64_t &peak) {
  const int32_t n = static_cast<int32_t>(problem.nodes.size());
  std::uniform_real_distribution<double> scale(0.0, 1.0);
  std::vector<int32_t> missing(n), unread(n), ready, order;
  for (int32_t v = 0; v < n; ++v) {
    missing[v] = static_cast<int32_t>(deps[v].size());
    unread[v] = static_cast<int32_t>(readers[v].size());
    if (missing[v] == 0)
      ready.push_back(v);
  }
  int64_t live = problem.fixedBytes;
  peak = live;
  while (!ready.empty()) {
    size_t pick = 0;
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < ready.size(); ++i) {
      int32_t v = ready[i];
      // The last node stays last.
      if (v == n - 1 && ready.size() > 1)
        continue;
      double bytes = static_cast<double>(problem.nodes[v].bytes);
      double delta = bytes * (1 + noise * scale(rng));
      for (int32_t u : deps[v])
        if (unread[u] == 1)
          delta -= static_cast<double>(problem.nodes[u].bytes);
      if (delta < best) {
        best = delta;
        pick = i;
      }
    }
    int32_t v = ready[pick];
    ready.erase(ready.begin() + pick);
    order.push_back(v);
    const Node &node = problem.nodes[v];
    live += node.bytes;
    peak = std::max(peak, live + node.workspace);
    for (int32_t u : deps[v])
      if (--unread[u] == 0 && !problem.nodes[u].isOutput)
        live -= problem.nodes[u].bytes;
    if (readers[v].empty() && !node.isOutput)
      live -= node.bytes;
    for (int32_t w : readers[v])
      if (--missing[w] == 0)
        ready.push_back(w);
  }
  return order;
}

/// Builds the replay stage by stage (see `replayInProblemOrder`).
class Replay {
public:
  Replay(const Problem &problem, int64_t budget,
         const std::vector<int32_t> &anyOrder)
      : problem(problem), budget(budget), source(anyOrder),
        deps(uniqueDeps(problem)), first(problem.nodes.size(), -1),
        latest(problem.nodes.size(), -1), lastUse(problem.nodes.size(), -1),
        needed(problem.nodes.size(), 0) {
    for (size_t i = 0; i < source.size(); ++i)
      if (first[source[i]] < 0)
        first[source[i]] = static_cast<int64_t>(i);
  }

  Schedule run() {
    for (int32_t v = 0; v < static_cast<int32_t>(problem.nodes.size()); ++v) {
      if (first[v] < 0)
        return {}; // `anyOrder` never computes v.
      size_t stageStart = order.size();
      // Reuse as much as fits, then a quarter as many bytes, ..., then none.
      int64_t reuseCap = budget;
      while (reuseCap > 0 && !tryStage(v, reuseCap))
        reuseCap = reuseCap > budget / 1024 ? reuseCap / 4 : 0;
      if (reuseCap == 0)
        tryStage(v, 0);
      previousStageStart = stageStart;
    }
    return Schedule{order};
  }

private:
  /// Appends stage `v`: the computations of the source's prefix through v's
  /// first computation that v needs, reusing values whose latest
  /// computation is still live in the previous stage, up to `reuseCap`
  /// bytes of them, where the budget allows. Returns false, changing
  /// nothing, if the stage does not fit; with `reuseCap` 0 it is always
  /// appended.
  bool tryStage(int32_t v, int64_t reuseCap) {
    const bool reuse = reuseCap > 0;
    int64_t reusedBytes = 0;
    std::vector<int32_t> steps, reused;
    std::vector<std::pair<int32_t, int64_t>> extended; // node, old lastUse
    auto rollBack = [&]() {
      for (auto [u, oldUse] : extended) {
        for (int64_t i = oldUse + 1; i < static_cast<int64_t>(live.size());
             ++i)
          live[i] -= problem.nodes[u].bytes;
        lastUse[u] = oldUse;
      }
    };
    needed[v] = 1;
    std::vector<int32_t> touched = {v};
    for (int64_t i = first[v]; i >= 0; --i) {
      int32_t w = source[i];
      if (!needed[w])
        continue;
      needed[w] = 0;
      bool again = std::find(reused.begin(), reused.end(), w) != reused.end();
      if (reuse && w != v &&
          (again || (reusedBytes + problem.nodes[w].bytes <= reuseCap &&
                     canExtend(w)))) {
        if (!again) {
          reusedBytes += problem.nodes[w].bytes;
          extended.push_back({w, lastUse[w]});
          for (size_t k = lastUse[w] + 1; k < live.size(); ++k)
            live[k] += problem.nodes[w].bytes;
          lastUse[w] = static_cast<int64_t>(live.size()) - 1;
          reused.push_back(w);
        }
        continue;
      }
      steps.push_back(w);
      for (int32_t u : deps[w]) {
        needed[u] = 1;
        touched.push_back(u);
      }
    }
    for (int32_t u : touched)
      needed[u] = 0;
    std::reverse(steps.begin(), steps.end());
    std::vector<int64_t> stageLive;
    if (!measureStage(steps, reused, stageLive) && reuse) {
      rollBack();
      return false;
    }
    // Append: the latest computations and their last reads.
    const int64_t base = static_cast<int64_t>(order.size());
    for (size_t j = 0; j < steps.size(); ++j) {
      int32_t w = steps[j];
      for (int32_t u : deps[w])
        lastUse[u] = base + static_cast<int64_t>(j);
      latest[w] = base + static_cast<int64_t>(j);
      lastUse[w] = base + static_cast<int64_t>(j);
      order.push_back(w);
      live.push_back(stageLive[j]);
    }
    return true;
  }

  /// Whether u's latest computation is still live in the previous stage and
  /// keeping it to the end of the replay so far stays within the budget.
  bool canExtend(int32_t u) const {
    if (latest[u] < 0 || lastUse[u] < static_cast<int64_t>(previousStageStart))
      return false;
    for (size_t k = lastUse[u] + 1; k < live.size(); ++k)
      if (live[k] + problem.nodes[u].bytes > budget)
        return false;
    return true;
  }

  /// Live bytes of every step of a stage computing `steps` with `reused`
  /// values live at its start; every value, reused or computed in the stage
  /// (its own node too), is freed after its last read in the stage. Returns
  /// whether all fit.
  bool measureStage(const std::vector<int32_t> &steps,
                    const std::vector<int32_t> &reused,
                    std::vector<int64_t> &stageLive) const {
    const size_t m = steps.size();
    // Last read, within the stage, of each step's value and of each reused
    // value (reads bind to the latest computation before them).
    std::vector<int64_t> end(m);
    std::vector<int64_t> reusedEnd(reused.size(), -1);
    std::vector<int64_t> current(problem.nodes.size(), -2);
    for (size_t r = 0; r < reused.size(); ++r)
      current[reused[r]] = -3 - static_cast<int64_t>(r);
    for (size_t j = 0; j < m; ++j) {
      for (int32_t u : deps[steps[j]]) {
        int64_t c = current[u];
        if (c >= 0)
          end[c] = static_cast<int64_t>(j);
        else if (c <= -3)
          reusedEnd[-3 - c] = static_cast<int64_t>(j);
      }
      end[j] = static_cast<int64_t>(j);
      current[steps[j]] = static_cast<int64_t>(j);
    }
    std::vector<int64_t> delta(m + 1, 0);
    int64_t start = problem.fixedBytes;
    for (size_t r = 0; r < reused.size(); ++r) {
      start += problem.nodes[reused[r]].bytes;
      delta[std::max<int64_t>(reusedEnd[r], 0) + 1] -=
          problem.nodes[reused[r]].bytes;
    }
    bool fits = start <= budget;
    stageLive.assign(m, 0);
    int64_t liveNow = start;
    for (size_t j = 0; j < m; ++j) {
      liveNow += delta[j];
      const Node &node = problem.nodes[steps[j]];
      liveNow += node.bytes;
      stageLive[j] = liveNow + node.workspace;
      fits &= stageLive[j] <= budget;
      delta[end[j] + 1] -= node.bytes;
    }
    return fits;
  }

  const Problem &problem;
  const int64_t budget;
  const std::vector<int32_t> &source;
  const std::vector<std::vector<int32_t>> deps;
  /// Position in `source` of each node's first computation.
  std::vector<int64_t> first;
  /// Position in `order` of each node's latest computation, and of the
  /// last read bound to it so far (-1: none).
  std::vector<int64_t> latest, lastUse;
  std::vector<char> needed;
  std::vector<int32_t> order;
  /// Live bytes (fixed bytes and workspace included) at each step of
  /// `order`, as far as the replay has measured them.
  std::vector<int64_t> live;
  size_t previousStageStart = 0;
};

/// The search in each other order: at most this many fallback descents,
/// and this fraction of the work cap.
constexpr int32_t kFallbacksPerOrder = 2;
constexpr int64_t kWorkShare = 4;

/// The longest replay whose needless recomputations are dropped.
constexpr size_t kMaxDropLength = 20000;

} // namespace

std::vector<std::vector<int32_t>>
mlir::ckpt::remat::lowMemoryOrders(const Problem &problem,
                                   int32_t randomTries) {
  std::vector<std::vector<int32_t>> orders;
  if (problem.nodes.empty())
    return orders;
  std::vector<std::vector<int32_t>> deps = uniqueDeps(problem);
  std::vector<std::vector<int32_t>> readers(problem.nodes.size());
  for (size_t v = 0; v < problem.nodes.size(); ++v)
    for (int32_t u : deps[v])
      readers[u].push_back(static_cast<int32_t>(v));
  orders.push_back(depthFirstOrder(problem, deps));
  std::mt19937_64 rng(1);
  int64_t bestPeak = std::numeric_limits<int64_t>::max();
  std::vector<int32_t> best;
  for (int32_t t = 0; t <= randomTries; ++t) {
    int64_t peak = 0;
    std::vector<int32_t> order =
        greedyOrder(problem, deps, readers, t ? 0.5 : 0.0, rng, peak);
    if (peak < bestPeak) {
      bestPeak = peak;
      best = std::move(order);
    }
  }
  orders.push_back(std::move(best));
  return orders;
}

Problem mlir::ckpt::remat::renumberProblem(const Problem &problem,
                                           const std::vector<int32_t> &order) {
  std::vector<int32_t> position(order.size());
  for (size_t k = 0; k < order.size(); ++k)
    position[order[k]] = static_cast<int32_t>(k);
  Problem result;
  result.fixedBytes = problem.fixedBytes;
  for (int32_t v : order) {
    Node node = problem.nodes[v];
    for (int32_t &dep : node.deps)
      dep = position[dep];
    result.nodes.push_back(std::move(node));
  }
  return result;
}

Schedule mlir::ckpt::remat::replayInProblemOrder(
    const Problem &problem, int64_t budgetBytes,
    const std::vector<int32_t> &anyOrder) {
  return Replay(problem, budgetBytes, anyOrder).run();
}

SolveResult mlir::ckpt::remat::solveReordered(
    const Problem &problem, int64_t budgetBytes, const GenericOptions &options,
    const InOrderSolveFn &solveInOrder, const RepairStartFn &repairStart) {
  detail::SolveClock clock;
  SolveResult result;
  if (!clock.accept(problem, result))
    return clock.finish(result);
  const size_t n = problem.nodes.size();
  if (!detail::isFreelyReorderable(problem)) {
    result.message = "other orders need every node recomputable, no "
                     "projections, and the last node as the only output";
    return clock.finish(result);
  }
  if (n == 0) {
    result.message = "nothing to reorder";
    return clock.finish(result);
  }
  // A schedule in the problem's order, kept if it fits (after dropping
  // needless recomputations) and is the cheapest so far.
  auto keep = [&](Schedule schedule) -> bool {
    SolveResult candidate;
    candidate.schedule = std::move(schedule);
    // Quadratic in the schedule's length, so only on short ones.
    if (candidate.schedule.order.size() <= kMaxDropLength)
      detail::dropNeedlessRecomputations(problem, budgetBytes,
                                         candidate.schedule);
    if (candidate.schedule.order.empty() ||
        !detail::checkSchedule(problem, budgetBytes, candidate).empty())
      return false;
    if (!result.hasSchedule() || candidate.cost < result.cost) {
      candidate.status = SolveResult::Status::Feasible;
      result = std::move(candidate);
    }
    return true;
  };
  // A plan in any order, replayed in the problem's.
  auto offer = [&](const std::vector<int32_t> &anyOrder) {
    return keep(replayInProblemOrder(problem, budgetBytes, anyOrder));
  };
  std::string tried;
  if (options.backwardSearch) {
    // First in the problem's order, with a tenth of the work: a plan there
    // needs no replay, so it costs far less than any replayed one; the full
    // search (for a plan or a proof) and the window repair run only without
    // it.
    BackwardSearchOptions inOrder = options.backward;
    inOrder.problemOrder = true;
    inOrder.maxWork = std::max<int64_t>(inOrder.maxWork / 10, 1);
    BackwardSearchResult direct = searchBackward(problem, budgetBytes, inOrder);
    if (direct.outcome == BackwardSearchResult::Outcome::Found &&
        keep(Schedule{std::move(direct.computations)}))
      tried = "backward in order: a plan";
  }
  if (options.backwardSearch && !result.hasSchedule()) {
    BackwardSearchResult back =
        searchBackward(problem, budgetBytes, options.backward);
    if (back.outcome == BackwardSearchResult::Outcome::Exhausted) {
      result.status = SolveResult::Status::Infeasible;
      result.lowerBound = std::numeric_limits<double>::infinity();
      result.message = "backward search: " + back.message;
      result.proof = result.message;
      return clock.finish(result);
    }
    tried += std::string(tried.empty() ? "" : ", ") + "backward: ";
    if (back.outcome == BackwardSearchResult::Outcome::Found)
      tried += offer(back.computations) ? "a plan"
                                         : "a plan (its replay does not fit)";
    else
      tried += "none (" + back.message + ")";
  }
  // In the order `lowMemoryOrders` returns them.
  const char *names[] = {"depth-first", "greedy"};
  std::vector<std::vector<int32_t>> orders = lowMemoryOrders(problem);
  orders.resize(std::min(orders.size(), std::size(names)));
  auto isIdentity = [&](const std::vector<int32_t> &order) {
    for (size_t i = 0; i < n; ++i)
      if (order[i] != static_cast<int32_t>(i))
        return false;
    return true;
  };
  if (!result.hasSchedule() && options.windowRepair && repairStart) {
    // Starting schedules from the problem's order and from each other one
    // (mapped back to the problem's nodes), lowest peak first.
    struct Start {
      int64_t peak;
      size_t source; // 0: the problem's order, k + 1: orders[k]
      std::vector<int32_t> computations;
    };
    std::vector<Start> starts;
    // The repair's searches try inputs in the order a node lists them: list
    // them sorted, so that the same graph gives the same repair whatever
    // order its edges came in.
    Problem sorted = problem;
    std::vector<std::vector<int32_t>> sortedDeps = uniqueDeps(problem);
    for (size_t v = 0; v < n; ++v)
      sorted.nodes[v].deps = std::move(sortedDeps[v]);
    auto addStart = [&](size_t source, std::vector<int32_t> computations) {
      Evaluation eval =
          evaluateSchedule(problem, Schedule{computations},
                           EvaluationOptions{/*anyFirstOrder=*/true});
      if (eval.valid())
        starts.push_back({eval.peakBytes, source, std::move(computations)});
    };
    addStart(0, repairStart(sorted));
    for (size_t k = 0; k < orders.size(); ++k) {
      if (isIdentity(orders[k]))
        continue;
      std::vector<int32_t> there =
          repairStart(renumberProblem(sorted, orders[k]));
      for (int32_t &id : there)
        id = orders[k][id];
      addStart(k + 1, std::move(there));
    }
    std::stable_sort(starts.begin(), starts.end(),
                     [](const Start &a, const Start &b) {
                       return a.peak < b.peak;
                     });
    if (starts.size() > static_cast<size_t>(kMaxRepairStarts))
      starts.resize(kMaxRepairStarts);
    // Each start is repaired as configured, then, if that falls short,
    // deferring excess (WindowRepair.h); every repair is capped at
    // `options.repair.maxWork`, and all of them share twice that.
    int64_t pool = 2 * options.repair.maxWork;
    for (const Start &start : starts) {
      for (bool defer : {options.repair.deferExcess, true}) {
        if (pool <= 0 || result.hasSchedule())
          break;
        WindowRepairOptions repair = options.repair;
        repair.deferExcess = defer;
        repair.maxWork = std::min(repair.maxWork, pool);
        WindowRepairResult repaired =
            repairByWindows(sorted, budgetBytes, start.computations, repair);
        pool -= repaired.work;
        tried += std::string(tried.empty() ? "" : ", ") +
                 "window repair from " +
                 (start.source ? names[start.source - 1] : "the given order") +
                 (defer ? " deferring excess" : "") + ": ";
        if (repaired.fits)
          tried += offer(repaired.computations)
                       ? "a plan"
                       : "a plan (its replay does not fit)";
        else
          tried += "none (" + repaired.message + ")";
        if (defer)
          break;
      }
    }
  }
  // Each order gets a smaller search than the problem's own order got.
  GenericOptions inner = options;
  inner.tryOtherOrders = false;
  inner.fallbackDescents = std::min(inner.fallbackDescents, kFallbacksPerOrder);
  inner.maxWork = std::max<int64_t>(inner.maxWork / kWorkShare, 1);
  for (size_t k = 0; k < orders.size(); ++k) {
    const std::vector<int32_t> &order = orders[k];
    if (isIdentity(order))
      continue;
    SolveResult there =
        solveInOrder(renumberProblem(problem, order), budgetBytes, inner);
    tried += std::string(tried.empty() ? "" : ", ") + names[k] + ": " +
             (there.hasSchedule() ? "a plan" : "none");
    if (!there.hasSchedule())
      continue;
    std::vector<int32_t> anyOrder;
    anyOrder.reserve(there.schedule.order.size());
    for (int32_t id : there.schedule.order)
      anyOrder.push_back(order[id]);
    if (!offer(anyOrder))
      tried += " (its replay does not fit)";
  }
  result.message = "other orders (" + tried + ")";
  return clock.finish(result);
}
