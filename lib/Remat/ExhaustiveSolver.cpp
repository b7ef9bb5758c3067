//===- ExhaustiveSolver.cpp - Enumerate the stage space of tiny problems --===//
//
// Enumerates every R matrix of the stage space (see ExactSolvers.h): for each
// stage s, every subset of the recomputable groups before s. No retention
// (Checkmate's S) is enumerated: under `evaluateSchedule` the order alone
// fixes every buffer's lifetime (it dies right after the last read bound to
// it, or at the end for an output's last computation), and keeping a buffer
// longer could only add live bytes at some steps and never remove any, so
// freeing as early as possible is always at least as good and is exactly
// what the evaluator charges.
//
// Two prunings keep the search small without changing its answer:
//  * cost: a prefix whose cost plus the base cost of the remaining groups
//    already exceeds the best complete cost cannot win or tie;
//  * memory: the prefix ending with stage s is itself a complete schedule of
//    the problem truncated after group s with no outputs, and its peak there
//    is a lower bound on the live bytes of any completion at those steps
//    (completions only add reads, which only extend lifetimes). A prefix
//    over the budget has no completion within it.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/ExactSolvers.h"

#include "ScheduleCheck.h"
#include "SolveClock.h"
#include "StageGroups.h"

#include <cmath>
#include <limits>

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::detail;

int64_t mlir::ckpt::remat::stageSpaceBits(const Problem &problem) {
  StageGroups groups = buildStageGroups(problem);
  int64_t bits = 0, recomputableSoFar = 0;
  for (int32_t g = 0; g < groups.size(); ++g) {
    bits += recomputableSoFar;
    recomputableSoFar += groups.recomputable[g];
  }
  return bits;
}

namespace {

/// Depth-first enumeration of the stage space with exact pruning.
class Enumerator {
public:
  Enumerator(const Problem &problem, int64_t budgetBytes)
      : problem(problem), budget(budgetBytes),
        groups(buildStageGroups(problem)) {
    const int32_t numGroups = groups.size();
    restBase.assign(numGroups + 1, 0);
    for (int32_t g = numGroups - 1; g >= 0; --g)
      restBase[g] = restBase[g + 1] + groups.cost[g];
    for (int32_t s = 0; s < numGroups; ++s) {
      Problem prefix;
      prefix.fixedBytes = problem.fixedBytes;
      prefix.nodes.assign(problem.nodes.begin(),
                          problem.nodes.begin() + groups.begin[s + 1]);
      for (Node &node : prefix.nodes)
        node.isOutput = false;
      prefixProblems.push_back(std::move(prefix));
    }
  }

  /// Runs the search; afterwards `found`, `bestOrder`, `bestCost` hold the
  /// answer.
  void run() { visitStage(0, 0); }

  bool found = false;
  std::vector<int32_t> bestOrder;
  double bestCost = std::numeric_limits<double>::infinity();
  /// Number of complete candidates evaluated.
  uint64_t leaves = 0;

private:
  /// Whether `cost` (of a prefix or a whole schedule) is certainly worse
  /// than the best complete schedule found so far.
  bool worse(double cost) const {
    return found && cost > bestCost + 1e-9 * std::max(1.0, std::fabs(bestCost));
  }

  void visitLeaf();
  void visitStage(int32_t s, double prefixCost);

  const Problem &problem;
  int64_t budget;
  StageGroups groups;
  /// Base cost of groups g, g+1, ...
  std::vector<double> restBase;
  /// The problem truncated after each group, outputs cleared.
  std::vector<Problem> prefixProblems;
  /// The schedule built so far.
  Schedule current;
};

} // namespace

void Enumerator::visitLeaf() {
  ++leaves;
  Evaluation eval = evaluateSchedule(problem, current);
  if (!eval.valid() || eval.peakBytes > budget || worse(eval.totalCost))
    return;
  // `worse` excluded costlier schedules: the rest are cheaper or tied. Ties
  // go to the shorter order (no free but useless recomputations of zero-cost
  // nodes), then to the lexicographically smaller one.
  bool better =
      !found ||
      eval.totalCost < bestCost - 1e-9 * std::max(1.0, std::fabs(bestCost)) ||
      current.order.size() < bestOrder.size() ||
      (current.order.size() == bestOrder.size() && current.order < bestOrder);
  if (!better)
    return;
  found = true;
  bestOrder = current.order;
  bestCost = eval.totalCost;
}

void Enumerator::visitStage(int32_t s, double prefixCost) {
  if (s == groups.size())
    return visitLeaf();
  std::vector<int32_t> candidates;
  for (int32_t g = 0; g < s; ++g)
    if (groups.recomputable[g])
      candidates.push_back(g);
  const size_t mark = current.order.size();
  for (uint64_t mask = 0; mask < (uint64_t(1) << candidates.size()); ++mask) {
    double cost = prefixCost + groups.cost[s];
    for (size_t b = 0; b < candidates.size(); ++b) {
      if (!(mask >> b & 1))
        continue;
      appendGroup(groups, candidates[b], current.order);
      cost += groups.cost[candidates[b]];
    }
    appendGroup(groups, s, current.order);
    if (!worse(cost + restBase[s + 1]) &&
        evaluateSchedule(prefixProblems[s], current).peakBytes <= budget)
      visitStage(s + 1, cost);
    current.order.resize(mark);
  }
}

SolveResult mlir::ckpt::remat::solveExhaustive(const Problem &problem,
                                               int64_t budgetBytes,
                                               int64_t maxBits) {
  detail::SolveClock clock;
  SolveResult result;
  auto finish = [&]() { return clock.finish(result); };
  if (!clock.accept(problem, result))
    return finish();
  int64_t bits = stageSpaceBits(problem);
  if (bits > maxBits) {
    result.message = "refused: the stage space has 2^" + std::to_string(bits) +
                     " candidates, over the limit of 2^" +
                     std::to_string(maxBits);
    return finish();
  }
  Enumerator search(problem, budgetBytes);
  search.run();
  result.message = "2^" + std::to_string(bits) + " candidates, " +
                   std::to_string(search.leaves) + " evaluated in full";
  if (!search.found) {
    result.status = SolveResult::Status::Infeasible;
    result.lowerBound = std::numeric_limits<double>::infinity();
    return finish();
  }
  result.schedule.order = search.bestOrder;
  std::string error = checkSchedule(problem, budgetBytes, result);
  if (!error.empty()) {
    result.schedule = {};
    result.message = "internal error: " + error;
    return finish();
  }
  result.status = SolveResult::Status::Optimal;
  result.lowerBound = result.cost;
  return finish();
}
