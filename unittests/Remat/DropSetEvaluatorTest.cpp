//===- DropSetEvaluatorTest.cpp - Fast drop-set evaluation ----------------===//

#include "ckpt/Remat/KeptSetSchedules.h"

#include "RematTestSupport.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::testing;

namespace {

/// A random training-form problem with everything the evaluator must get
/// right: multi-result ops (a primary with projections, recomputed as a
/// group), forward outputs, workspaces, fixed bytes, and backward nodes
/// reading forward values at random.
Problem randomProblemWithProjections(std::mt19937 &rng, int forward) {
  Problem problem;
  problem.fixedBytes = rng() % 8;
  std::vector<int32_t> values;
  for (int i = 0; i < forward; ++i) {
    std::vector<int32_t> deps;
    if (!values.empty())
      deps.push_back(values.back());
    if (values.size() > 2 && rng() % 3 == 0)
      deps.push_back(values[rng() % (values.size() - 1)]);
    auto bytes = 1 + rng() % 16;
    auto cost = 1 + rng() % 5;
    int32_t id = addNode(problem, cost, bytes, deps);
    problem.nodes[id].workspace = rng() % 4 == 0 ? rng() % 8 : 0;
    problem.nodes[id].isOutput = rng() % 10 == 0;
    values.push_back(id);
    for (int p = rng() % 3 == 0 ? 1 + rng() % 2 : 0; p > 0; --p) {
      auto projectionBytes = 1 + rng() % 16;
      int32_t projection = addNode(problem, 0, projectionBytes, {id});
      problem.nodes[projection].primary = id;
      values.push_back(projection);
    }
  }
  // The backward pass: a chain of gradients, each reading one to three
  // forward values drawn at random.
  for (int i = 0; i < forward; ++i) {
    std::vector<int32_t> reads(1 + rng() % 3);
    for (int32_t &read : reads)
      read = values[rng() % values.size()];
    if (i > 0)
      reads.push_back(static_cast<int32_t>(problem.nodes.size()) - 1);
    auto cost = 1 + rng() % 5; // (one draw at a time: argument order is
    auto bytes = 1 + rng() % 16; // unspecified)
    addNode(problem, cost, bytes, reads, false);
  }
  problem.nodes.back().isOutput = true;
  return problem;
}

// Property: on random problems, drop sets and budgets (below, at and above
// each schedule's peak) the evaluator answers exactly what the reference
// evaluation of the drop schedule answers, with the same cost bit for bit.
TEST(DropSetEvaluator, AgreesWithTheReferenceEvaluation) {
  std::mt19937 rng(7);
  int fits = 0, over = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Problem problem = randomProblemWithProjections(rng, 2 + trial % 20);
    ASSERT_FALSE(problem.validate()) << *problem.validate();
    DropSetEvaluator evaluator(problem);
    for (int draw = 0; draw < 10; ++draw) {
      std::vector<bool> drop(problem.nodes.size());
      for (size_t i = 0; i < drop.size(); ++i)
        drop[i] = rng() % 2;
      Evaluation reference =
          evaluateSchedule(problem, scheduleDroppingNodes(problem, drop));
      ASSERT_TRUE(reference.valid()) << reference.error;
      for (int64_t budget : {reference.peakBytes - 1, reference.peakBytes,
                             reference.peakBytes + 1}) {
        SCOPED_TRACE(describe(problem, budget));
        double expected = budget >= reference.peakBytes ? reference.totalCost
                                                        : -1;
        EXPECT_EQ(evaluator.costIfWithin(drop, budget), expected);
        (expected < 0 ? over : fits) += 1;
      }
    }
  }
  EXPECT_EQ(fits, 2 * 300 * 10);
  EXPECT_EQ(over, 300 * 10);
}

// A problem that does not validate gets the reference's answer (an invalid
// schedule is never within a budget).
TEST(DropSetEvaluator, InvalidProblemFallsBackToTheReference) {
  Problem problem;
  addNode(problem, 1, 4, {});
  addNode(problem, 1, 4, {2}); // Reads a later node.
  addNode(problem, 1, 4, {0}, false);
  ASSERT_TRUE(problem.validate());
  DropSetEvaluator evaluator(problem);
  EXPECT_EQ(evaluator.costIfWithin({false, false, false}, 1000), -1);
}

} // namespace
