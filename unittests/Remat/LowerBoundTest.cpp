//===- LowerBoundTest.cpp - Proven memory floors against brute force
//-------===//

#include "ckpt/Remat/LowerBound.h"
#include "ckpt/Remat/RematProblem.h"
#include "ckpt/Remat/DeadInputBound.h"
#include "ckpt/Remat/SegmentBound.h"

#include "RematTestSupport.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::testing;

namespace {

/// A random problem of `n` nodes: each reads up to three earlier nodes,
/// some are not recomputable, some have workspace; the sinks are outputs.
Problem randomBoundProblem(std::mt19937 &rng, int n) {
  Problem problem;
  problem.fixedBytes = rng() % 3 == 0 ? static_cast<int64_t>(rng() % 8) : 0;
  for (int i = 0; i < n; ++i) {
    std::vector<int32_t> deps;
    int reads = i == 0 ? 0 : static_cast<int>(rng() % 4);
    for (int r = 0; r < reads; ++r) {
      int32_t dep = static_cast<int32_t>(rng() % i);
      if (std::find(deps.begin(), deps.end(), dep) == deps.end())
        deps.push_back(dep);
    }
    std::sort(deps.begin(), deps.end());
    bool recomputable = rng() % 5 != 0;
    addNode(problem, 1, 1 + rng() % 16, deps, recomputable);
    if (rng() % 4 == 0)
      problem.nodes.back().workspace = rng() % 6;
  }
  std::vector<bool> read(n, false);
  for (const Node &node : problem.nodes)
    for (int32_t dep : node.deps)
      read[dep] = true;
  for (int i = 0; i < n; ++i)
    problem.nodes[i].isOutput = !read[i] || rng() % 7 == 0;
  return problem;
}

// Two values computed from a large one, read together: while the second is
// computed, the first and the large input are in memory, which no single
// op's inputs and output show.
TEST(LookBackFloor, SeesTheLastInputsComputation) {
  Problem problem;
  int32_t big = addNode(problem, 1, 10, {});
  int32_t a = addNode(problem, 1, 1, {big});
  int32_t b = addNode(problem, 1, 1, {big});
  addNode(problem, 1, 1, {a, b});
  problem.nodes.back().isOutput = true;
  EXPECT_EQ(computeMemoryFloor(problem).bytes, 11);
  EXPECT_EQ(computeLookBackFloor(problem, 0).bytes, 11);
  LookBackFloor floor = computeLookBackFloor(problem);
  EXPECT_EQ(floor.bytes, 12);
  EXPECT_EQ(floor.node, 3);
  EXPECT_FALSE(floor.capped);
  EXPECT_EQ(smallestPeakOfAnySchedule(problem), 12);
}

// Property: on random problems the floor never exceeds the smallest peak of
// any schedule (found by brute force), at every depth and under a work cap
// of nothing; it rises with the depth; and it beats the plain floors on
// some of them.
TEST(LookBackFloor, NeverAboveTheSmallestPeakOfAnySchedule) {
  std::mt19937 rng(97);
  int higher = 0, exact = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    Problem problem = randomBoundProblem(rng, 2 + trial % 11);
    int64_t truth = smallestPeakOfAnySchedule(problem);
    ASSERT_NE(truth, std::numeric_limits<int64_t>::max());
    SCOPED_TRACE(describe(problem, truth));
    int64_t previous = 0;
    for (int32_t depth = 0; depth <= 4; ++depth) {
      LookBackFloor floor = computeLookBackFloor(problem, depth);
      EXPECT_LE(floor.bytes, truth) << "depth " << depth;
      EXPECT_GE(floor.bytes, previous) << "depth " << depth;
      previous = floor.bytes;
    }
    LookBackFloor capped = computeLookBackFloor(problem, 3, /*maxWork=*/0);
    EXPECT_LE(capped.bytes, truth);
    int64_t plain = std::max(computeMemoryFloor(problem).bytes,
                             computeCostLowerBound(problem, 0).memoryFloor);
    EXPECT_LE(plain, truth);
    higher += previous > plain;
    exact += std::max(previous, plain) == truth;
  }
  EXPECT_GT(higher, 30);
  std::printf("look-back floor: above the plain floors on %d of 2000 random "
              "problems, equal to the smallest peak on %d\n",
              higher, exact);
}


// The cost bound (knapsack and segment bound together) never exceeds the
// cheapest schedule of all -- not only the stage space -- found by a
// shortest path over (next first computation, live set), nor does each
// bound alone; it is never below the knapsack bound alone; and the linked
// bounds are strictly higher on a good share of cells (the point of them).
TEST(CostLowerBound, NeverAboveTheCheapestScheduleOfAll) {
  std::mt19937 rng(23), costs(29);
  int compared = 0, higher = 0, infeasible = 0, fromDeadInputs = 0;
  const int trials = 3000;
  for (int trial = 0; trial < trials; ++trial) {
    Problem problem = trial % 2 ? randomTrainingDag(rng, 2 + trial % 5)
                                : randomBoundProblem(rng, 3 + trial % 8);
    // Every third problem with costs of 0 to 5 (free values too).
    if (trial % 3 == 0)
      for (Node &node : problem.nodes)
        node.cost = static_cast<double>(costs() % 6);
    int64_t peak = noRecomputePeak(problem);
    int64_t floor = computeMemoryFloor(problem).bytes;
    int64_t budget = floor + (peak - floor) * (rng() % 101) / 100;
    double truth = smallestCostOfAnySchedule(problem, budget);
    CostLowerBound bound = computeCostLowerBound(problem, budget);
    SCOPED_TRACE(describe(problem, budget));
    EXPECT_GE(bound.totalCost, bound.knapsackCost);
    // A small cap gives a valid bound too.
    SegmentBound capped = computeSegmentBound(problem, budget, 3);
    if (std::isinf(truth)) {
      ++infeasible;
      continue;
    }
    ++compared;
    EXPECT_LE(bound.totalCost, truth + 1e-9);
    EXPECT_LE(problem.baseCost() + capped.recomputeCost, truth + 1e-9);
    // Each bound alone, the dead-input one at a single point too.
    EXPECT_LE(problem.baseCost() +
                  computeDeadInputBound(problem, budget, 1).recomputeCost,
              truth + 1e-9);
    higher += bound.totalCost > bound.knapsackCost + 1e-6;
    fromDeadInputs += bound.from == CostLowerBound::Source::DeadInputs;
  }
  std::printf("cost bound vs the cheapest schedule of all: %d of %d cells "
              "compared (%d infeasible), above the knapsack bound on %d "
              "(the dead-input bound the largest on %d)\n",
              compared, trials, infeasible, higher, fromDeadInputs);
  EXPECT_GT(compared, 2200); // measured 2375
  EXPECT_GT(higher, 300);        // measured 424
  EXPECT_GT(fromDeadInputs, 50); // measured 103
}

} // namespace
