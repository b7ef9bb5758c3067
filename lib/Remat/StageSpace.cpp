//===- StageSpace.cpp - Shared pieces of the exact engines ----------------===//

#include "StageSpace.h"

#include <algorithm>

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::detail;

StageGroups detail::buildStageGroups(const Problem &problem) {
  StageGroups groups;
  const int32_t n = static_cast<int32_t>(problem.nodes.size());
  groups.groupOf.resize(n);
  for (int32_t i = 0; i < n; ++i) {
    const Node &node = problem.nodes[i];
    if (node.primary < 0) {
      groups.begin.push_back(i);
      groups.recomputable.push_back(node.recomputable);
      groups.cost.push_back(0);
    }
    groups.groupOf[i] = groups.size() - 1;
    groups.cost.back() += node.cost;
  }
  groups.begin.push_back(n);
  return groups;
}

std::vector<std::vector<int32_t>> detail::uniqueDeps(const Problem &problem) {
  std::vector<std::vector<int32_t>> deps(problem.nodes.size());
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    deps[v] = problem.nodes[v].deps;
    std::sort(deps[v].begin(), deps[v].end());
    deps[v].erase(std::unique(deps[v].begin(), deps[v].end()), deps[v].end());
  }
  return deps;
}

void detail::appendGroup(const StageGroups &groups, int32_t g,
                         std::vector<int32_t> &order) {
  for (int32_t i = groups.begin[g]; i < groups.begin[g + 1]; ++i)
    order.push_back(i);
}

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

const char *mlir::ckpt::remat::statusName(SolveResult::Status status) {
  switch (status) {
  case SolveResult::Status::Optimal:
    return "optimal";
  case SolveResult::Status::Feasible:
    return "feasible";
  case SolveResult::Status::Infeasible:
    return "infeasible";
  case SolveResult::Status::Unknown:
    return "unknown";
  }
  return "unknown";
}

bool mlir::ckpt::remat::detail::isFreelyReorderable(const Problem &problem) {
  const size_t n = problem.nodes.size();
  for (size_t v = 0; v < n; ++v) {
    const Node &node = problem.nodes[v];
    if (!node.recomputable || node.primary >= 0 ||
        (node.isOutput && v + 1 != n))
      return false;
  }
  return true;
}
