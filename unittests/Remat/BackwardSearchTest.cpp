//===- BackwardSearchTest.cpp - Pebbling search back from the last node ---===//
//
// The claims of BackwardSearch.h, checked by brute force on tiny DAGs: the
// search finds a schedule exactly at the smallest peak any schedule has,
// and one byte below it visits every set and says so. Its schedules are
// valid and fit; the generic engine passes its proof on; problems of other
// forms are refused.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/BackwardSearch.h"
#include "ckpt/Remat/GenericSolver.h"
#include "ckpt/Remat/ReorderedSchedules.h"

#include "RematTestSupport.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::testing;

namespace {

using Outcome = BackwardSearchResult::Outcome;

TEST(BackwardSearch, FindsThePebblingNumberAndProvesItExactly) {
  const unsigned seed = 20261201;
  std::mt19937 rng(seed);
  int recomputing = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Problem problem = randomSingleSinkDag(rng, 2 + static_cast<int>(rng() % 9));
    const int64_t smallest = smallestPeakOfAnySchedule(problem);
    SCOPED_TRACE("seed " + std::to_string(seed) + " trial " +
                 std::to_string(trial) + "\n" + describe(problem, smallest));
    BackwardSearchResult found = searchBackward(problem, smallest);
    ASSERT_EQ(found.outcome, Outcome::Found) << found.message;
    Evaluation eval = evaluateInItsOwnOrder(problem, found.computations);
    ASSERT_TRUE(eval.valid()) << eval.error;
    ASSERT_LE(eval.peakBytes, smallest);
    ASSERT_EQ(found.computations.back(),
              static_cast<int32_t>(problem.nodes.size() - 1));
    recomputing += eval.recomputations > 0;
    BackwardSearchResult below = searchBackward(problem, smallest - 1);
    ASSERT_EQ(below.outcome, Outcome::Exhausted) << below.message;
    EXPECT_TRUE(below.computations.empty());
  }
  // The smallest peak often needs recomputation: the test is not only about
  // the no-recompute schedule.
  EXPECT_GT(recomputing, 30);
}

TEST(BackwardSearch, SchedulesOfLargerDagsAreValidAndFit) {
  std::mt19937 rng(77);
  int found = 0;
  for (int trial = 0; trial < 60; ++trial) {
    Problem problem =
        randomSingleSinkDag(rng, 10 + static_cast<int>(rng() % 60));
    int64_t budget = randomBudgetBelowPeak(rng, problem);
    BackwardSearchOptions options;
    options.maxWork = 5'000'000;
    BackwardSearchResult result = searchBackward(problem, budget, options);
    SCOPED_TRACE("trial " + std::to_string(trial) + "\n" +
                 describe(problem, budget));
    ASSERT_NE(result.outcome, Outcome::NotApplicable) << result.message;
    if (result.outcome != Outcome::Found)
      continue;
    ++found;
    Evaluation eval = evaluateInItsOwnOrder(problem, result.computations);
    ASSERT_TRUE(eval.valid()) << eval.error;
    ASSERT_LE(eval.peakBytes, budget);
  }
  EXPECT_GT(found, 20);
}

TEST(BackwardSearch, InTheProblemOrderNeedsNoReplay) {
  // With `problemOrder`, plans run as they are: first computations in the
  // problem's order. Running out of sets there proves nothing.
  std::mt19937 rng(2026);
  int found = 0, recomputing = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Problem problem =
        randomSingleSinkDag(rng, 3 + static_cast<int>(rng() % 30));
    int64_t budget = randomBudgetBelowPeak(rng, problem);
    BackwardSearchOptions options;
    options.problemOrder = true;
    options.maxWork = 2'000'000;
    BackwardSearchResult result = searchBackward(problem, budget, options);
    SCOPED_TRACE("trial " + std::to_string(trial) + "\n" +
                 describe(problem, budget));
    ASSERT_NE(result.outcome, Outcome::Exhausted);
    ASSERT_NE(result.outcome, Outcome::NotApplicable) << result.message;
    if (result.outcome != Outcome::Found)
      continue;
    ++found;
    Evaluation eval =
        evaluateSchedule(problem, Schedule{result.computations});
    ASSERT_TRUE(eval.valid()) << eval.error;
    ASSERT_LE(eval.peakBytes, budget);
    recomputing += eval.recomputations > 0;
  }
  // Many of the random budgets are below the smallest peak.
  EXPECT_GT(found, 40);
  EXPECT_GT(recomputing, 10) << found;
}

TEST(BackwardSearch, StopsAtTheWorkCap) {
  std::mt19937 rng(5);
  Problem problem = randomSingleSinkDag(rng, 60);
  int64_t peak = noRecomputePeak(problem);
  BackwardSearchOptions options;
  options.maxWork = 10;
  BackwardSearchResult result = searchBackward(problem, peak, options);
  EXPECT_EQ(result.outcome, Outcome::Capped) << result.message;
  EXPECT_TRUE(result.computations.empty());
}

TEST(BackwardSearch, RefusesOtherForms) {
  std::mt19937 rng(11);
  Problem base = randomSingleSinkDag(rng, 8);
  const int64_t budget = 1 << 20;

  Problem fixedNode = base;
  fixedNode.nodes[3].recomputable = false;
  EXPECT_EQ(searchBackward(fixedNode, budget).outcome, Outcome::NotApplicable);

  Problem earlyOutput = base;
  earlyOutput.nodes[2].isOutput = true;
  EXPECT_EQ(searchBackward(earlyOutput, budget).outcome,
            Outcome::NotApplicable);

  // A node the last one does not need: the search would never compute it.
  Problem stray = base;
  addNode(stray, 1, 4, {0});
  addNode(stray, 1, 4, {static_cast<int32_t>(stray.nodes.size() - 2)});
  for (Node &node : stray.nodes)
    node.isOutput = false;
  stray.nodes.back().isOutput = true;
  EXPECT_EQ(searchBackward(stray, budget).outcome, Outcome::NotApplicable);

  BackwardSearchOptions small;
  small.maxNodes = 4;
  BackwardSearchResult tooLarge = searchBackward(base, budget, small);
  EXPECT_EQ(tooLarge.outcome, Outcome::NotApplicable);
  EXPECT_NE(tooLarge.message.find("more than 4 nodes"), std::string::npos);
}

TEST(BackwardSearch, GenericEngineReportsTheProof) {
  // Below the smallest peak, the generic engine finds nothing in any order,
  // and the backward search proves that nothing exists.
  std::mt19937 rng(3);
  int considered = 0, proven = 0, byBackward = 0;
  for (int trial = 0; trial < 40; ++trial) {
    Problem problem = randomSingleSinkDag(rng, 4 + static_cast<int>(rng() % 7));
    const int64_t smallest = smallestPeakOfAnySchedule(problem);
    if (smallest - 1 < problem.fixedBytes)
      continue; // Refused before any search.
    ++considered;
    SolveResult result = solveGeneric(problem, smallest - 1);
    SCOPED_TRACE(describe(problem, smallest - 1) + describe(result));
    ASSERT_FALSE(result.hasSchedule());
    if (result.status != SolveResult::Status::Infeasible)
      continue;
    ++proven;
    EXPECT_EQ(result.lowerBound, std::numeric_limits<double>::infinity());
    EXPECT_NE(result.message.find("no schedule fits"), std::string::npos);
    // The backward search's proof is carried in `proof` (the pass's note);
    // a floor's proof is described by the floor's own report.
    if (result.message.rfind("backward search: ", 0) == 0) {
      EXPECT_EQ(result.proof, result.message);
      ++byBackward;
    } else {
      EXPECT_TRUE(result.proof.empty()) << result.proof;
    }
  }
  EXPECT_GT(considered, 30);
  EXPECT_EQ(proven, considered);
  EXPECT_GT(byBackward, 0);
}

} // namespace
