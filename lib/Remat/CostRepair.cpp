//===- CostRepair.cpp - Lowering a plan's cost window by window ------------===//
//
// See CostRepair.h.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/CostRepair.h"

#include "ckpt/Remat/BackwardSearch.h"
#include "ckpt/Remat/WindowRepair.h"

#include "ProblemShape.h"
#include "ScheduleProfile.h"

#include <algorithm>

using namespace mlir::ckpt::remat;

namespace {

/// One run of the stage: the schedule so far and its profile.
class CostRepair {
public:
  CostRepair(const Problem &problem, int64_t budget,
             const CostRepairOptions &options, CostRepairResult &result)
      : problem(problem), budget(budget), options(options), result(result) {}

  /// Slides windows of `width` steps over the schedule once; returns
  /// whether one was replaced.
  bool pass(int64_t width);

  /// Moves the schedule reached into `schedule`.
  void take(Schedule &schedule) { schedule.order = std::move(current); }

  /// Sets the schedule to improve (valid, within the budget).
  void reset(std::vector<int32_t> computations) {
    current = std::move(computations);
    profile = detail::profileOf(problem, current);
  }

private:
  /// Plans steps (before, after] again; returns whether they were
  /// replaced by a cheaper plan.
  bool improveWindow(int64_t before, int64_t after);

  const Problem &problem;
  const int64_t budget;
  const CostRepairOptions &options;
  CostRepairResult &result;
  std::vector<int32_t> current;
  detail::Profile profile;
};

bool CostRepair::improveWindow(int64_t before, int64_t after) {
  // A window whose every step is a node's first computation is as cheap
  // as it can be: each of them must be computed in it.
  double windowCost = 0;
  bool recomputes = false;
  std::vector<char> seen(problem.nodes.size(), 0);
  int32_t firstNew = 0, endNew = 0;
  for (int64_t t = 0; t <= after; ++t) {
    const int32_t v = current[t];
    if (t > before) {
      windowCost += problem.nodes[v].cost;
      recomputes = recomputes || seen[v];
    } else {
      firstNew = std::max(firstNew, v + 1);
    }
    endNew = std::max(endNew, v + 1);
    seen[v] = 1;
  }
  if (!recomputes)
    return false;
  BackwardWindow window;
  window.needed = detail::liveAfter(current, profile, after);
  if (before >= 0)
    window.available = detail::liveAfter(current, profile, before);
  // The schedule is in the problem's order, so the nodes computed before
  // the window are those up to the latest one computed there.
  window.firstNew = firstNew;
  window.endNew = endNew;
  BackwardSearchOptions searchOptions;
  searchOptions.minimizeCost = true;
  searchOptions.problemOrder = true;
  searchOptions.maxWork =
      std::min(options.windowWork, options.maxWork - result.work);
  ++result.windowsSearched;
  BackwardSearchResult found =
      searchBackwardWindow(problem, budget, window, searchOptions);
  result.work += std::max<int64_t>(found.work, 1);
  if (found.outcome != BackwardSearchResult::Outcome::Found) {
    result.windowsCapped += found.outcome == BackwardSearchResult::Outcome::Capped;
    return false;
  }
  double foundCost = 0;
  for (int32_t v : found.computations)
    foundCost += problem.nodes[v].cost;
  // Strictly cheaper, beyond rounding.
  if (!(foundCost < windowCost - 1e-9 * std::max(1.0, windowCost)))
    return false;
  Schedule spliced{spliceWindow(current, before, after, found.computations)};
  Evaluation eval = evaluateSchedule(problem, spliced);
  if (!eval.valid()) {
    ++result.windowsOutOfOrder;
    return false;
  }
  if (eval.peakBytes > budget || !(eval.totalCost < result.cost))
    return false;
  result.cost = eval.totalCost;
  ++result.windowsImproved;
  reset(std::move(spliced.order));
  return true;
}

bool CostRepair::pass(int64_t width) {
  bool improved = false;
  const int64_t stride = std::max<int64_t>(1, width / 2);
  for (int64_t start = 0; result.work < options.maxWork; start += stride) {
    const int64_t steps = static_cast<int64_t>(current.size());
    if (start >= steps)
      break;
    const int64_t after = std::min(steps - 1, start + width - 1);
    improved |= improveWindow(start - 1, after);
    if (after == steps - 1)
      break;
  }
  return improved;
}

} // namespace

CostRepairResult
mlir::ckpt::remat::improveByWindows(const Problem &problem,
                                    int64_t budgetBytes, const Schedule &start,
                                    const CostRepairOptions &options) {
  CostRepairResult result;
  result.schedule = start;
  Evaluation eval = evaluateSchedule(problem, start);
  result.cost = eval.totalCost;
  if (!eval.valid() || eval.peakBytes > budgetBytes) {
    result.message = "the starting schedule is not a plan within the budget";
    return result;
  }
  if (problem.nodes.size() > static_cast<size_t>(options.maxNodes)) {
    result.message =
        "more than " + std::to_string(options.maxNodes) + " nodes";
    return result;
  }
  if (!detail::hasNoProjections(problem)) {
    result.message = "windows need a problem without projections";
    return result;
  }
  const double startCost = result.cost;
  CostRepair repair(problem, budgetBytes, options, result);
  repair.reset(start.order);
  int64_t width = std::max(2, options.width);
  for (int32_t k = 0; k <= options.widenings && result.work < options.maxWork;
       ++k, width *= 2)
    while (result.work < options.maxWork && repair.pass(width)) {
    }
  repair.take(result.schedule);
  result.message = "cost " + std::to_string(startCost) + " -> " +
                   std::to_string(result.cost) + ", " +
                   std::to_string(result.windowsImproved) + " of " +
                   std::to_string(result.windowsSearched) +
                   " windows planned cheaper (" +
                   std::to_string(result.windowsOutOfOrder) +
                   " out of order, " + std::to_string(result.windowsCapped) +
                   " capped), work " + std::to_string(result.work);
  return result;
}
