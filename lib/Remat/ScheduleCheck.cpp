//===- ScheduleCheck.cpp - The last steps of every engine -----------------===//

#include "ScheduleCheck.h"

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::detail;

int64_t detail::dropNeedlessRecomputations(const Problem &problem,
                                           int64_t budgetBytes,
                                           Schedule &schedule) {
  Evaluation current = evaluateSchedule(problem, schedule);
  if (!current.valid())
    return 0;
  int64_t dropped = 0;
  std::vector<bool> seen(problem.nodes.size(), false);
  std::vector<bool> isRecomputation(schedule.order.size(), false);
  for (size_t step = 0; step < schedule.order.size(); ++step) {
    isRecomputation[step] = seen[schedule.order[step]];
    seen[schedule.order[step]] = true;
  }
  for (size_t step = schedule.order.size(); step-- > 0;) {
    int32_t id = schedule.order[step];
    if (!isRecomputation[step] || problem.nodes[id].primary >= 0)
      continue;
    // The recomputed group: the primary and the projections right after it.
    size_t end = step + 1;
    while (end < schedule.order.size() &&
           problem.nodes[schedule.order[end]].primary == id)
      ++end;
    Schedule candidate;
    candidate.order = schedule.order;
    candidate.order.erase(candidate.order.begin() + step,
                          candidate.order.begin() + end);
    Evaluation eval = evaluateSchedule(problem, candidate);
    if (!eval.valid() || eval.peakBytes > budgetBytes ||
        eval.totalCost > current.totalCost)
      continue;
    schedule = std::move(candidate);
    isRecomputation.erase(isRecomputation.begin() + step,
                          isRecomputation.begin() + end);
    current = std::move(eval);
    ++dropped;
  }
  return dropped;
}

std::string detail::checkSchedule(const Problem &problem, int64_t budgetBytes,
                                  SolveResult &result) {
  Evaluation eval = evaluateSchedule(problem, result.schedule);
  if (!eval.valid())
    return "invalid schedule: " + eval.error;
  result.cost = eval.totalCost;
  result.peakBytes = eval.peakBytes;
  if (eval.peakBytes > budgetBytes)
    return "schedule peaks at " + std::to_string(eval.peakBytes) +
           " bytes, over the budget of " + std::to_string(budgetBytes);
  return "";
}
