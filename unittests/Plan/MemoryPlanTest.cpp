//===- MemoryPlanTest.cpp - Packing hand-made instances -------------------===//
//
// Instances whose optimal arena is known by hand: each test states the
// arithmetic behind the expected offsets and sizes.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Plan/MemoryPlan.h"

#include "gtest/gtest.h"

using namespace mlir::ckpt::plan;

namespace {

PlanProblem makeProblem(std::vector<PlanBuffer> buffers,
                        int64_t alignment = 1) {
  PlanProblem problem;
  problem.buffers = std::move(buffers);
  problem.alignment = alignment;
  return problem;
}

PlanBuffer buffer(int64_t size, int64_t start, int64_t end,
                  int64_t inPlaceOf = -1) {
  return PlanBuffer{size, start, end, inPlaceOf};
}

/// Plans with `options` and checks the result independently.
MemoryPlan planAndCheck(const PlanProblem &problem,
                        const PlanOptions &options = {}) {
  EXPECT_EQ(validateProblem(problem), "");
  MemoryPlan plan = planMemory(problem, options);
  EXPECT_EQ(checkPlan(problem, plan.offsets, plan.arenaSize), "");
  EXPECT_GE(plan.arenaSize, plan.lowerBound);
  return plan;
}

TEST(MemoryPlan, EmptyProblem) {
  MemoryPlan plan = planAndCheck(makeProblem({}));
  EXPECT_EQ(plan.arenaSize, 0);
  EXPECT_EQ(plan.lowerBound, 0);
  EXPECT_TRUE(plan.provenOptimal);
}

TEST(MemoryPlan, DisjointLifetimesShareOffsetZero) {
  // Steps 0, 1, 2 each hold one buffer: the arena is the largest, 300.
  MemoryPlan plan = planAndCheck(
      makeProblem({buffer(100, 0, 0), buffer(200, 1, 1), buffer(300, 2, 2)}));
  EXPECT_EQ(plan.arenaSize, 300);
  EXPECT_EQ(plan.lowerBound, 300);
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 0}));
}

TEST(MemoryPlan, OverlappingLifetimesStack) {
  // All live at step 1: 100 + 200 + 300 = 600.
  MemoryPlan plan = planAndCheck(
      makeProblem({buffer(100, 0, 1), buffer(200, 1, 1), buffer(300, 1, 2)}));
  EXPECT_EQ(plan.arenaSize, 600);
  EXPECT_EQ(plan.lowerBound, 600);
  EXPECT_TRUE(plan.provenOptimal);
}

TEST(MemoryPlan, AlignmentRoundsSizesAndOffsets) {
  // 1 byte rounds up to 256, 300 to 512: 768 in all, both live at step 0.
  MemoryPlan plan =
      planAndCheck(makeProblem({buffer(1, 0, 0), buffer(300, 0, 0)}, 256));
  EXPECT_EQ(plan.arenaSize, 768);
  EXPECT_EQ(plan.lowerBound, 768);
  for (int64_t offset : plan.offsets)
    EXPECT_EQ(offset % 256, 0);
}

TEST(MemoryPlan, GreedyBySizeIsBeatenByTheLifetimeOrder) {
  // LB = 10 at step 1: #1 6 + #4 4 (step 2: 1 + 1 + 4 = 6; step 4: 2 + 1 +
  // 4 = 7). Greedy by size puts #1@0, #4@6, #5@0, #2@4, #0@0; then #3 (1
  // byte, steps 2..4) finds [0, 10) full at some step and goes on top: 11.
  PlanProblem problem = makeProblem({buffer(1, 2, 2), buffer(6, 0, 1),
                                     buffer(2, 4, 7), buffer(1, 2, 4),
                                     buffer(4, 1, 2), buffer(4, 3, 4)});
  PlanOptions greedy;
  greedy.algorithm = PlanAlgorithm::GreedyBySize;
  EXPECT_EQ(planAndCheck(problem, greedy).arenaSize, 11);
  MemoryPlan best = planAndCheck(problem);
  EXPECT_EQ(best.lowerBound, 10);
  EXPECT_EQ(best.arenaSize, 10);
  EXPECT_TRUE(best.provenOptimal);
}

TEST(MemoryPlan, ExactSearchFindsWhatNoOrderingHeuristicFinds) {
  // A 7 [0,3], B 6 [6,9], C 5 [2,5], D 6 [5,7], E 4 [5,5]. Step 5 holds
  // C 5 + D 6 + E 4 = 15 = LB. Optimal: D@0, E@6, C@10 (above A@0, 7 bytes),
  // B@6 (over E, after it). Every ordering of the portfolio, the restarts and
  // the local search included, ends at 16 (found by a random search).
  PlanProblem problem =
      makeProblem({buffer(7, 0, 3), buffer(6, 6, 9), buffer(5, 2, 5),
                   buffer(6, 5, 7), buffer(4, 5, 5)});
  PlanOptions heuristicsOnly;
  heuristicsOnly.exactMaxBuffers = 0;
  EXPECT_EQ(planAndCheck(problem, heuristicsOnly).arenaSize, 16);
  MemoryPlan exact = planAndCheck(problem);
  EXPECT_EQ(exact.method, "exact");
  EXPECT_EQ(exact.arenaSize, 15);
  EXPECT_TRUE(exact.provenOptimal);
}

TEST(MemoryPlan, InPlaceChainSharesOneOffset) {
  // a [0,1] -> b [1,2] -> c [2,3] in place, 512 bytes each, next to d
  // [0,3] of 256: LB 512 + 256 = 768; without in-place, step 1 holds a, b
  // and d: 1280.
  PlanProblem problem =
      makeProblem({buffer(512, 0, 1), buffer(512, 1, 2, 0),
                   buffer(512, 2, 3, 1), buffer(256, 0, 3)},
                  256);
  MemoryPlan plan = planAndCheck(problem);
  EXPECT_EQ(plan.lowerBound, 768);
  EXPECT_EQ(plan.arenaSize, 768);
  EXPECT_EQ(plan.inPlaceBuffers, 2);
  EXPECT_EQ(plan.offsets[0], plan.offsets[1]);
  EXPECT_EQ(plan.offsets[1], plan.offsets[2]);
  for (PlanBuffer &b : problem.buffers)
    b.inPlaceOf = -1;
  EXPECT_EQ(planAndCheck(problem).arenaSize, 1280);
}

TEST(MemoryPlan, ValidationNamesTheProblem) {
  EXPECT_EQ(validateProblem(makeProblem({buffer(-1, 0, 0)})),
            "buffer #0 has negative size -1");
  EXPECT_EQ(validateProblem(makeProblem({buffer(1, 3, 2)})),
            "buffer #0 ends (step 2) before it starts (step 3)");
  EXPECT_EQ(validateProblem(makeProblem({buffer(1, 0, 0, 0)})),
            "buffer #0 has an invalid in-place partner 0");
  EXPECT_EQ(validateProblem(makeProblem({buffer(1, 0, 1), buffer(2, 1, 2, 0)})),
            "buffer #1 cannot take over buffer #0: the partner must start "
            "earlier, end where it starts and have its size");
  EXPECT_EQ(validateProblem(makeProblem({buffer(1, 0, 1), buffer(1, 1, 2, 0),
                                         buffer(1, 1, 1, 0)})),
            "buffer #0 is the in-place partner of two buffers");
  EXPECT_EQ(validateProblem(makeProblem({}, 0)),
            "alignment must be positive, got 0");
}

TEST(MemoryPlan, CheckerRejectsBadPlans) {
  PlanProblem problem = makeProblem({buffer(256, 0, 1), buffer(256, 1, 2)},
                                    256);
  EXPECT_EQ(checkPlan(problem, {0, 256}, 512), "");
  EXPECT_EQ(checkPlan(problem, {0, 0}, 512),
            "buffer #1 (steps 1..2, bytes [0, 256)) overlaps buffer #0 (steps "
            "0..1, bytes [0, 256)) at step 1");
  EXPECT_EQ(checkPlan(problem, {0, 256}, 500),
            "buffer #1 at [256, 512) lies outside the arena of 500 bytes");
  EXPECT_EQ(checkPlan(problem, {0, 128}, 512),
            "buffer #1 has offset 128, not a non-negative multiple of the "
            "alignment 256");
  EXPECT_EQ(checkPlan(problem, {0}, 512), "the plan has 1 offsets for 2 "
                                          "buffers");
  // As in-place partners, the two may share offset 0; otherwise not.
  problem.buffers[1].inPlaceOf = 0;
  EXPECT_EQ(checkPlan(problem, {0, 0}, 256), "");
  // Partial overlap is never allowed, partners or not.
  problem.alignment = 128;
  EXPECT_NE(checkPlan(problem, {0, 128}, 384), "");
}

} // namespace
