//===- ForwardStructureTest.cpp - Cut points and repeated blocks ----------===//

#include "ckpt/Remat/ForwardStructure.h"
#include "ckpt/Remat/KeptSetSchedules.h"

#include "RematTestSupport.h"

#include <gtest/gtest.h>

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::testing;

namespace {

/// A training chain of `layers` layers of `perLayer` forward nodes each
/// (every node reads the one before), then a backward node per forward node
/// in reverse, reading its forward node and the backward node before it.
Problem trainingChain(int layers, int perLayer) {
  Problem problem;
  int32_t previous = -1;
  for (int i = 0; i < layers * perLayer; ++i)
    previous = addNode(problem, 1, 100,
                       previous < 0 ? std::vector<int32_t>{}
                                    : std::vector<int32_t>{previous});
  const int32_t forward = previous + 1;
  int32_t gradient = -1;
  for (int32_t f = forward - 1; f >= 0; --f) {
    std::vector<int32_t> deps{f};
    if (gradient >= 0)
      deps.push_back(gradient);
    gradient = addNode(problem, 1, 100, deps, /*recomputable=*/false);
  }
  problem.nodes.back().isOutput = true;
  return problem;
}

/// Expects the plan dropping `drop` to be valid and to peak lower than the
/// plan that recomputes nothing.
void expectLowerPeak(const Problem &problem, const std::vector<bool> &drop) {
  Evaluation plain = evaluateSchedule(problem, Schedule::identity(problem));
  Evaluation dropped =
      evaluateSchedule(problem, scheduleDroppingNodes(problem, drop));
  ASSERT_TRUE(dropped.valid()) << dropped.error;
  EXPECT_LT(dropped.peakBytes, plain.peakBytes);
}

TEST(CutPoints, EveryNodeOfAChainButTheLast) {
  Problem problem = trainingChain(4, 1);
  // The last forward node has no forward reader: it is the tail.
  EXPECT_EQ(findForwardCutPoints(problem), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(segmentsBetweenCutPoints(problem),
            (std::vector<int32_t>{0, 1, 2, -1, -1, -1, -1, -1}));
}

TEST(CutPoints, ResidualBlocksAreSegments) {
  // x0 -> a -> b -> add(x0, b) -> c -> add2(add, c) -> head: the residual
  // edges leave x0, add and add2 as the cut points.
  Problem problem;
  int32_t x0 = addNode(problem, 1, 10, {});
  int32_t a = addNode(problem, 1, 10, {x0});
  int32_t b = addNode(problem, 1, 10, {a});
  int32_t add = addNode(problem, 1, 10, {x0, b});
  int32_t c = addNode(problem, 1, 10, {add});
  int32_t add2 = addNode(problem, 1, 10, {add, c});
  int32_t head = addNode(problem, 1, 10, {add2});
  addNode(problem, 1, 10, {head, add2, c, add, b, a, x0},
          /*recomputable=*/false);
  problem.nodes.back().isOutput = true;
  EXPECT_EQ(findForwardCutPoints(problem),
            (std::vector<int32_t>{x0, add, add2}));
  EXPECT_EQ(segmentsBetweenCutPoints(problem),
            (std::vector<int32_t>{0, 1, 1, 1, 2, 2, -1, -1}));
}

TEST(RepeatedBlocks, LayersOfTwoKinds) {
  // linear, relu, linear, relu, ...: the unit is two segments.
  Problem problem = trainingChain(5, 2);
  std::vector<int32_t> kindOf(problem.nodes.size(), 9);
  for (int i = 0; i < 10; ++i)
    kindOf[i] = i % 2;
  std::vector<int32_t> blocks = findRepeatedBlocks(problem, kindOf);
  // Nine segments (the last node is the tail): four units of two, the ninth
  // segment outside.
  EXPECT_EQ(std::vector<int32_t>(blocks.begin(), blocks.begin() + 10),
            (std::vector<int32_t>{0, 0, 1, 1, 2, 2, 3, 3, -1, -1}));
  // Checkpointing them drops the first node of each block and lowers the
  // peak.
  std::vector<bool> drop = dropInsideBlocks(problem, blocks);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(drop[i], i % 2 == 0) << i;
  expectLowerPeak(problem, drop);
}

TEST(RepeatedBlocks, UnitsSavingOneValueGoInPairs) {
  // linear, relu, ... whose backward reads only the relu outputs (as in an
  // MLP): checkpointing one layer keeps what it drops, so a block is two
  // layers, and checkpointing them lowers the peak.
  Problem problem;
  int32_t previous = -1;
  for (int i = 0; i < 10; ++i)
    previous = addNode(problem, 1, 100,
                       previous < 0 ? std::vector<int32_t>{}
                                    : std::vector<int32_t>{previous});
  int32_t gradient = -1;
  for (int32_t f = 9; f >= 1; f -= 2) {
    std::vector<int32_t> deps{f};
    if (gradient >= 0)
      deps.push_back(gradient);
    gradient = addNode(problem, 1, 100, deps, /*recomputable=*/false);
  }
  problem.nodes.back().isOutput = true;
  std::vector<int32_t> kindOf(problem.nodes.size(), 9);
  for (int i = 0; i < 10; ++i)
    kindOf[i] = i % 2;
  std::vector<int32_t> blocks = findRepeatedBlocks(problem, kindOf);
  EXPECT_EQ(std::vector<int32_t>(blocks.begin(), blocks.begin() + 10),
            (std::vector<int32_t>{0, 0, 0, 0, 1, 1, 1, 1, -1, -1}));
  std::vector<bool> drop = dropInsideBlocks(problem, blocks);
  expectLowerPeak(problem, drop);
}

TEST(RepeatedBlocks, TwoStagesOfDifferentUnits) {
  // (a b a b c) twice then (a b a b a b c) three times, as VGG's stages
  // (conv relu ... pool, the pool's output the smallest): the longer unit is
  // picked first, in the rotation that ends at the pools, then the shorter.
  std::vector<int32_t> pattern;
  for (int stage = 0; stage < 2; ++stage)
    pattern.insert(pattern.end(), {0, 1, 0, 1, 2});
  for (int stage = 0; stage < 3; ++stage)
    pattern.insert(pattern.end(), {0, 1, 0, 1, 0, 1, 2});
  pattern.push_back(3); // the tail
  Problem problem = trainingChain(static_cast<int>(pattern.size()), 1);
  std::vector<int32_t> kindOf(problem.nodes.size(), 9);
  std::copy(pattern.begin(), pattern.end(), kindOf.begin());
  for (size_t i = 0; i < pattern.size(); ++i)
    if (pattern[i] == 2)
      problem.nodes[i].bytes = 25;
  std::vector<int32_t> blocks = findRepeatedBlocks(problem, kindOf);
  std::vector<int32_t> expected;
  for (int32_t block = 0; block < 2; ++block)
    expected.insert(expected.end(), 5, block);
  for (int32_t block = 2; block < 5; ++block)
    expected.insert(expected.end(), 7, block);
  expected.push_back(-1);
  EXPECT_EQ(std::vector<int32_t>(blocks.begin(),
                                 blocks.begin() + pattern.size()),
            expected);
}

TEST(RepeatedBlocks, NoneWithoutRepeats) {
  Problem problem = trainingChain(4, 1);
  std::vector<int32_t> kindOf(problem.nodes.size());
  for (size_t i = 0; i < kindOf.size(); ++i)
    kindOf[i] = static_cast<int32_t>(i);
  for (int32_t block : findRepeatedBlocks(problem, kindOf))
    EXPECT_EQ(block, -1);
}

} // namespace
