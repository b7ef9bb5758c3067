//===- CostRepairTest.cpp - Lowering a plan's cost window by window -------===//
//
// The claims of CostRepair.h: the repair never returns a schedule worse
// than its start, its schedules are valid, in the problem's order and
// within the budget, never below the proven lower bound; and it improves
// suboptimal plans to the optimum that the exhaustive engine proves: a plan
// with a needless recomputation, and the optimum of a tighter budget
// repaired at a looser one.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/CostRepair.h"
#include "ckpt/Remat/ExactSolvers.h"
#include "ckpt/Remat/LowerBound.h"

#include "RematTestSupport.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <random>
#include <vector>

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::testing;

namespace {

/// Checks the result of repairing `start` within `budget`: valid in the
/// problem's order, within the budget, no dearer than `start`, not below
/// the proven bound; returns its cost.
double checkRepair(const Problem &problem, int64_t budget,
                   const Schedule &start, const CostRepairResult &repaired) {
  Evaluation eval = evaluateSchedule(problem, repaired.schedule);
  EXPECT_TRUE(eval.valid()) << eval.error << "\n" << describe(problem, budget);
  EXPECT_LE(eval.peakBytes, budget) << describe(problem, budget);
  EXPECT_DOUBLE_EQ(eval.totalCost, repaired.cost);
  EXPECT_LE(repaired.cost, evaluateSchedule(problem, start).totalCost);
  EXPECT_GE(repaired.cost + 1e-9,
            computeCostLowerBound(problem, budget).totalCost);
  return repaired.cost;
}

/// Random small DAGs, the last third of their nodes not recomputable on
/// every other one (as the backward half of a training graph).
Problem smallProblem(std::mt19937 &rng, int trial) {
  Problem problem = randomSingleSinkDag(rng, 7 + trial % 2);
  if (trial % 2)
    for (size_t v = 2 * problem.nodes.size() / 3; v < problem.nodes.size();
         ++v)
      problem.nodes[v].recomputable = false;
  return problem;
}

// A needless recomputation (the optimal plan with one of its recomputable
// steps computed twice in a row: same peak, more cost) is removed: the
// repair reaches the proven optimum.
TEST(CostRepairTest, RemovesNeedlessRecomputationToTheOptimum) {
  std::mt19937 rng(27);
  int cases = 0, reached = 0;
  for (int trial = 0; trial < 60; ++trial) {
    Problem problem = smallProblem(rng, trial);
    int64_t budget = randomBudgetAboveFloor(rng, problem);
    SolveResult optimum = solveExhaustive(problem, budget);
    if (!optimum.hasSchedule())
      continue;
    Schedule start = optimum.schedule;
    size_t step = rng() % start.order.size();
    if (!problem.nodes[start.order[step]].recomputable)
      continue;
    start.order.insert(start.order.begin() + step + 1, start.order[step]);
    Evaluation startEval = evaluateSchedule(problem, start);
    ASSERT_TRUE(startEval.valid()) << startEval.error;
    if (startEval.peakBytes > budget)
      continue;
    CostRepairResult repaired = improveByWindows(problem, budget, start);
    double cost = checkRepair(problem, budget, start, repaired);
    ++cases;
    reached += cost <= optimum.cost + 1e-9;
  }
  std::printf("needless recomputations removed to the optimum: %d of %d\n",
              reached, cases);
  EXPECT_GE(cases, 10);
  EXPECT_EQ(reached, cases);
}

// The optimal plan of a tighter budget recomputes more than the looser
// budget needs: repaired at the looser budget, it reaches that budget's
// proven optimum (in every such case of these seeds, so that a repair
// that stops improving fails).
TEST(CostRepairTest, RepairsATighterPlanTowardsTheOptimum) {
  std::mt19937 rng(10);
  int suboptimal = 0, reached = 0;
  for (int trial = 0; trial < 150; ++trial) {
    Problem problem = smallProblem(rng, trial);
    int64_t floor = computeMemoryFloor(problem).bytes;
    int64_t peak = noRecomputePeak(problem);
    int64_t tight = floor + (peak - floor) * (rng() % 30) / 100;
    int64_t loose = tight + (peak - tight) * (1 + rng() % 60) / 100;
    SolveResult tighter = solveExhaustive(problem, tight);
    SolveResult optimum = solveExhaustive(problem, loose);
    if (!tighter.hasSchedule() || !optimum.hasSchedule() ||
        !(tighter.cost > optimum.cost + 1e-9))
      continue;
    ++suboptimal;
    CostRepairResult repaired =
        improveByWindows(problem, loose, tighter.schedule);
    double cost = checkRepair(problem, loose, tighter.schedule, repaired);
    reached += cost <= optimum.cost + 1e-9;
  }
  std::printf("tighter plans repaired to the optimum: %d of %d\n", reached,
              suboptimal);
  EXPECT_GE(suboptimal, 4);
  EXPECT_EQ(reached, suboptimal);
}

// Problems larger than the limit, and starts that do not fit, come back
// unchanged.
TEST(CostRepairTest, LeavesWhatItDoesNotApplyTo) {
  std::mt19937 rng(3);
  Problem problem = randomSingleSinkDag(rng, 12);
  Schedule start = Schedule::identity(problem);
  int64_t peak = noRecomputePeak(problem);
  CostRepairOptions small;
  small.maxNodes = 4;
  CostRepairResult tooLarge = improveByWindows(problem, peak, start, small);
  EXPECT_EQ(tooLarge.schedule.order, start.order);
  EXPECT_EQ(tooLarge.windowsSearched, 0);
  CostRepairResult overBudget = improveByWindows(problem, peak - 1, start);
  EXPECT_EQ(overBudget.schedule.order, start.order);
  EXPECT_FALSE(overBudget.message.empty());
}

} // namespace
