//===- RematProblemTest.cpp - Tests of the reference semantics ------------===//
//
// evaluateSchedule with hand-computed live bytes, and every kind of invalid
// schedule it reports.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/RematProblem.h"

#include "gtest/gtest.h"

using namespace mlir::ckpt::remat;

namespace {

Node makeNode(const std::string &name, double cost, int64_t bytes,
              std::vector<int32_t> deps, int64_t workspace = 0) {
  Node node;
  node.name = name;
  node.cost = cost;
  node.bytes = bytes;
  node.deps = std::move(deps);
  node.workspace = workspace;
  return node;
}

/// a(10) -> b(20) -> c(5, workspace 3) -> d(7, output), d also reads a.
Problem diamond() {
  Problem problem;
  problem.fixedBytes = 100;
  problem.nodes.push_back(makeNode("a", 1, 10, {}));
  problem.nodes.push_back(makeNode("b", 2, 20, {0}));
  problem.nodes.push_back(makeNode("c", 3, 5, {1}, 3));
  problem.nodes.push_back(makeNode("d", 4, 7, {0, 2}));
  problem.nodes.back().isOutput = true;
  return problem;
}

TEST(RematProblem, IdentityLiveBytes) {
  Problem problem = diamond();
  ASSERT_FALSE(problem.validate());
  Evaluation eval = evaluateSchedule(problem, Schedule::identity(problem));
  ASSERT_TRUE(eval.valid()) << eval.error;
  // a lives to d; b to c; c to d; d to the end.
  EXPECT_EQ(eval.liveBytes, (std::vector<int64_t>{110, 130, 138, 122}));
  // The step of each buffer's last read (the output's: the end).
  EXPECT_EQ(eval.lastRead, (std::vector<int64_t>{3, 2, 3, 4}));
  EXPECT_EQ(eval.peakBytes, 138);
  EXPECT_EQ(eval.peakStep, 2);
  EXPECT_EQ(eval.totalCost, 10);
  EXPECT_EQ(eval.recomputeCost, 0);
  EXPECT_EQ(eval.recomputations, 0);
}

TEST(RematProblem, RecomputationLiveBytes) {
  Problem problem = diamond();
  // a is recomputed before d: the first a dies after b reads it.
  Evaluation eval = evaluateSchedule(problem, Schedule{{0, 1, 2, 0, 3}});
  ASSERT_TRUE(eval.valid()) << eval.error;
  // 100+a | +b | -a +c +ws | -b +a | +d.
  EXPECT_EQ(eval.liveBytes, (std::vector<int64_t>{110, 130, 128, 115, 122}));
  EXPECT_EQ(eval.peakBytes, 130);
  EXPECT_EQ(eval.peakStep, 1);
  EXPECT_EQ(eval.totalCost, 11);
  EXPECT_EQ(eval.recomputeCost, 1);
  EXPECT_EQ(eval.recomputations, 1);
}

TEST(RematProblem, AnyFirstComputationOrder) {
  // x(10) and y(20) are independent; z reads both. First computing y is
  // out of the problem's order, and accepted only when asked for.
  Problem problem;
  problem.nodes.push_back(makeNode("x", 1, 10, {}));
  problem.nodes.push_back(makeNode("y", 1, 20, {}));
  problem.nodes.push_back(makeNode("z", 1, 5, {0, 1}));
  problem.nodes.back().isOutput = true;
  Schedule swapped{{1, 0, 2}};
  EXPECT_FALSE(evaluateSchedule(problem, swapped).valid());
  EvaluationOptions any;
  any.anyFirstOrder = true;
  Evaluation eval = evaluateSchedule(problem, swapped, any);
  ASSERT_TRUE(eval.valid()) << eval.error;
  EXPECT_EQ(eval.liveBytes, (std::vector<int64_t>{20, 30, 35}));
  EXPECT_EQ(eval.lastRead, (std::vector<int64_t>{2, 2, 3}));
  // Every node must still be computed, and after its inputs.
  Evaluation missing = evaluateSchedule(problem, Schedule{{1, 1, 0}}, any);
  EXPECT_NE(missing.error.find("node 2 (z) is never computed"),
            std::string::npos)
      << missing.error;
  EXPECT_FALSE(evaluateSchedule(problem, Schedule{{2, 0, 1}}, any).valid());
}

TEST(RematProblem, OutputsAndUnreadBuffers) {
  Problem problem;
  problem.nodes.push_back(makeNode("a", 1, 10, {}));
  problem.nodes.back().isOutput = true;
  problem.nodes.push_back(makeNode("b", 1, 10, {0}));
  problem.nodes.push_back(makeNode("c", 1, 10, {1}));
  // Identity: a lives to the end, c is unread and not an output.
  Evaluation eval = evaluateSchedule(problem, Schedule::identity(problem));
  ASSERT_TRUE(eval.valid()) << eval.error;
  EXPECT_EQ(eval.liveBytes, (std::vector<int64_t>{10, 20, 30}));
  // Recomputing the output a at the end: only its last computation is kept.
  eval = evaluateSchedule(problem, Schedule{{0, 1, 2, 0}});
  ASSERT_TRUE(eval.valid()) << eval.error;
  EXPECT_EQ(eval.liveBytes, (std::vector<int64_t>{10, 20, 20, 10}));
  EXPECT_EQ(eval.peakBytes, 20);
  EXPECT_EQ(eval.recomputations, 1);
}

TEST(RematProblem, EmptySchedule) {
  Problem problem;
  problem.fixedBytes = 7;
  Evaluation eval = evaluateSchedule(problem, Schedule{});
  ASSERT_TRUE(eval.valid()) << eval.error;
  EXPECT_EQ(eval.peakBytes, 7);
  EXPECT_EQ(eval.peakStep, -1);
}

/// Expects `order` to be rejected with an error mentioning `what`.
void expectInvalid(const Problem &problem, std::vector<int32_t> order,
                   const std::string &what) {
  Evaluation eval = evaluateSchedule(problem, Schedule{std::move(order)});
  EXPECT_FALSE(eval.valid());
  EXPECT_NE(eval.error.find(what), std::string::npos) << eval.error;
}

TEST(RematProblem, InvalidSchedules) {
  Problem problem = diamond();
  expectInvalid(problem, {0, 1, 2, 3, 4}, "does not exist");
  expectInvalid(problem, {0, 1, 2, -1}, "does not exist");
  expectInvalid(problem, {0, 2, 1, 3}, "out of order");
  expectInvalid(problem, {1, 0, 2, 3}, "out of order");
  expectInvalid(problem, {0, 1, 2}, "never computed");
  expectInvalid(problem, {}, "never computed");
  problem.nodes[0].recomputable = false;
  expectInvalid(problem, {0, 1, 2, 0, 3}, "not recomputable");
}

TEST(RematProblem, InvalidProjectionPlacement) {
  Problem problem;
  problem.nodes.push_back(makeNode("q", 1, 10, {}));
  problem.nodes.push_back(makeNode("p", 0, 5, {0}));
  problem.nodes.back().primary = 0;
  problem.nodes.push_back(makeNode("x", 1, 5, {1}));
  ASSERT_FALSE(problem.validate());
  EXPECT_TRUE(evaluateSchedule(problem, Schedule{{0, 1, 2, 0, 1}}).valid());
  expectInvalid(problem, {0, 1, 2, 1}, "does not follow");
  expectInvalid(problem, {0, 1, 0, 2, 1}, "does not follow");
}

TEST(RematProblem, ReadOfUncomputedNode) {
  // Only a malformed problem (a dependency on a later node) can get here.
  Problem problem;
  problem.nodes.push_back(makeNode("a", 1, 10, {1}));
  problem.nodes.push_back(makeNode("b", 1, 10, {}));
  EXPECT_TRUE(problem.validate());
  expectInvalid(problem, {0, 1}, "has not been computed");
}

TEST(RematProblem, Validate) {
  Problem problem = diamond();
  EXPECT_FALSE(problem.validate());
  problem.nodes[1].bytes = -1;
  EXPECT_TRUE(problem.validate());
  problem = diamond();
  problem.nodes[2].primary = 0; // Not adjacent to its primary.
  problem.nodes[2].deps = {0};
  EXPECT_TRUE(problem.validate());
}

} // namespace
