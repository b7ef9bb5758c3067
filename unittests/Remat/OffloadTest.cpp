//===- OffloadTest.cpp - Offload schedules and the offload solver --------===//

#include "ckpt/Remat/OffloadSolver.h"

#include "RematTestSupport.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::ckpt::remat;
using mlir::ckpt::remat::testing::addNode;

namespace {

/// 100 bytes per second each way, no latency: a 100-byte copy takes 1 s.
CopyLink slowLink() {
  CopyLink link;
  link.hostToDeviceBytesPerSecond = 100;
  link.deviceToHostBytesPerSecond = 100;
  return link;
}

/// a (100 B) -> b (10 B); backward c reads b, d reads a and c.
Problem smallStep() {
  Problem problem;
  addNode(problem, 1, 100, {});
  addNode(problem, 1, 10, {0});
  addNode(problem, 1, 10, {1}, /*recomputable=*/false);
  addNode(problem, 1, 10, {0, 2}, /*recomputable=*/false);
  problem.nodes[3].isOutput = true;
  return problem;
}

OffloadSchedule steps(std::vector<OffloadStep> list) {
  OffloadSchedule schedule;
  schedule.steps = std::move(list);
  return schedule;
}

constexpr StepKind C = StepKind::Compute;
constexpr StepKind O = StepKind::Offload;
constexpr StepKind P = StepKind::Prefetch;

} // namespace

TEST(OffloadScheduleTest, PrefetchIssuedLateStallsTheReader) {
  // a is computed by t=1, its copy out runs 1..2; b runs 1..2, c 2..3; the
  // prefetch issued at 3 arrives at 4, so d waits 1 s and ends at 5. a's
  // buffer lives through step 2 (issued at 1, before the copy ends at 2).
  Problem problem = smallStep();
  OffloadEvaluation eval = evaluateOffloadSchedule(
      problem, steps({{C, 0}, {O, 0}, {C, 1}, {C, 2}, {P, 0}, {C, 3}}),
      slowLink());
  ASSERT_TRUE(eval.valid()) << eval.error;
  EXPECT_EQ(eval.liveBytes,
            (std::vector<int64_t>{100, 100, 110, 20, 110, 120}));
  EXPECT_EQ(eval.devicePeakBytes, 120);
  EXPECT_EQ(eval.peakStep, 5);
  EXPECT_EQ(eval.hostPeakBytes, 100);
  EXPECT_DOUBLE_EQ(eval.exposedCopySeconds, 1);
  EXPECT_DOUBLE_EQ(eval.totalSeconds, 5);
  EXPECT_DOUBLE_EQ(eval.computeSeconds, 4);
  EXPECT_EQ(eval.bytesToHost, 100);
  EXPECT_EQ(eval.bytesToDevice, 100);
  EXPECT_EQ(eval.offloads, 1);
  EXPECT_EQ(eval.prefetches, 1);
  // The copy out is waited for after step 2, the last issued before it ends.
  EXPECT_EQ(eval.copyHeldThrough,
            (std::vector<int64_t>{-1, 2, -1, -1, -1, -1}));
}

TEST(OffloadScheduleTest, PrefetchIssuedEarlyHidesBehindCompute) {
  // Issued after b, the copy back runs 2..3 beside c: no stall.
  Problem problem = smallStep();
  OffloadEvaluation eval = evaluateOffloadSchedule(
      problem, steps({{C, 0}, {O, 0}, {C, 1}, {P, 0}, {C, 2}, {C, 3}}),
      slowLink());
  ASSERT_TRUE(eval.valid()) << eval.error;
  EXPECT_DOUBLE_EQ(eval.exposedCopySeconds, 0);
  EXPECT_DOUBLE_EQ(eval.totalSeconds, 4);
  // a's device buffer lives through step 2; the prefetch's from step 3.
  EXPECT_EQ(eval.liveBytes,
            (std::vector<int64_t>{100, 100, 110, 110, 120, 120}));
}

TEST(OffloadScheduleTest, AnOffloadedBufferLivesUntilItsCopyEnds) {
  // With a 10 B/s link the copy out of a ends at t=11: a stays on the
  // device through every step, although nothing reads it after step 1.
  Problem problem = smallStep();
  CopyLink link = slowLink();
  link.deviceToHostBytesPerSecond = 10;
  OffloadEvaluation eval = evaluateOffloadSchedule(
      problem, steps({{C, 0}, {O, 0}, {C, 1}, {C, 2}, {P, 0}, {C, 3}}), link);
  ASSERT_TRUE(eval.valid()) << eval.error;
  EXPECT_EQ(eval.liveBytes,
            (std::vector<int64_t>{100, 100, 110, 120, 210, 120}));
  // The prefetch waits for the copy out (11), arrives at 12; d ends at 13.
  EXPECT_DOUBLE_EQ(eval.totalSeconds, 13);
  // Every step up to the prefetch is issued before the copy out ends.
  EXPECT_EQ(eval.copyHeldThrough,
            (std::vector<int64_t>{-1, 4, -1, -1, -1, -1}));
}

TEST(OffloadScheduleTest, RejectsWhatCannotRun) {
  Problem problem = smallStep();
  auto error = [&](std::vector<OffloadStep> list) {
    return evaluateOffloadSchedule(problem, steps(std::move(list)), slowLink())
        .error;
  };
  EXPECT_NE(error({{C, 0}, {C, 1}, {C, 2}, {P, 0}, {C, 3}})
                .find("step 3: prefetch of node 0 (n0), which has not been "
                      "offloaded"),
            std::string::npos);
  EXPECT_NE(error({{O, 0}, {C, 0}, {C, 1}, {C, 2}, {C, 3}})
                .find("step 0: offload of node 0 (n0), which is not on the "
                      "device"),
            std::string::npos);
  EXPECT_NE(error({{C, 0}, {O, 0}, {O, 0}, {C, 1}, {C, 2}, {C, 3}})
                .find("offloaded twice"),
            std::string::npos);
  EXPECT_NE(error({{C, 0}, {C, 1}, {C, 2}, {C, 3}, {O, 3}}).find("an output"),
            std::string::npos);
  EXPECT_NE(
      error({{C, 0}, {C, 1}, {C, 2}, {C, 2}, {C, 3}}).find("not recomputable"),
      std::string::npos);
  EXPECT_NE(error({{C, 0}, {C, 1}, {C, 2}}).find("never computed"),
            std::string::npos);
  CopyLink none;
  EXPECT_FALSE(evaluateOffloadSchedule(
                   problem,
                   OffloadSchedule::fromSchedule(Schedule::identity(problem)),
                   none)
                   .valid());
}

namespace {

/// A training step: `layers` forward layers of `bytes` each (costs 1..3 s),
/// a loss, and a backward layer per forward one reading its activation.
Problem trainingChain(int layers, std::mt19937 &rng) {
  Problem problem;
  int32_t previous = -1;
  std::vector<int32_t> forward;
  for (int i = 0; i < layers; ++i) {
    std::vector<int32_t> deps;
    if (previous >= 0)
      deps.push_back(previous);
    previous = addNode(problem, 1 + rng() % 3, 100 + 10 * (rng() % 10), deps);
    forward.push_back(previous);
  }
  int32_t grad = addNode(problem, 1, 100, {previous}, false);
  for (int i = layers - 1; i >= 0; --i)
    grad = addNode(problem, 2, 100, {grad, forward[i]}, false);
  problem.nodes[grad].isOutput = true;
  return problem;
}

} // namespace

TEST(OffloadScheduleTest, WithoutCopiesItIsTheRematSemantics) {
  std::mt19937 rng(7);
  int checked = 0;
  for (int trial = 0; trial < 20; ++trial) {
    Problem problem = trainingChain(3 + trial % 5, rng);
    int64_t budget =
        mlir::ckpt::remat::testing::randomBudgetAboveFloor(rng, problem);
    SolveResult solved = solve(Strategy::Optimal, problem, budget, {});
    if (!solved.hasSchedule())
      continue;
    Evaluation plain = evaluateSchedule(problem, solved.schedule);
    OffloadEvaluation eval = evaluateOffloadSchedule(
        problem, OffloadSchedule::fromSchedule(solved.schedule), slowLink());
    ASSERT_TRUE(eval.valid()) << eval.error;
    EXPECT_EQ(eval.devicePeakBytes, plain.peakBytes);
    EXPECT_EQ(eval.liveBytes, plain.liveBytes);
    EXPECT_DOUBLE_EQ(eval.totalSeconds, plain.totalCost);
    EXPECT_DOUBLE_EQ(eval.recomputeSeconds, plain.recomputeCost);
    EXPECT_EQ(eval.hostPeakBytes, 0);
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST(OffloadSolverTest, CandidatesAreForwardValuesReadBackward) {
  Problem problem = smallStep();
  EXPECT_EQ(findOffloadCandidates(problem), (std::vector<int32_t>{0, 1}));
}

TEST(OffloadSolverTest, NeverSlowerThanRecomputationAndFasterWhereItHelps) {
  // A fast link (1000 B/s: a 100-byte copy takes 0.1 s against layers of
  // 1-3 s) hides every copy, so offload replaces recomputation.
  std::mt19937 rng(11);
  OffloadOptions options;
  options.link.hostToDeviceBytesPerSecond = 1000;
  options.link.deviceToHostBytesPerSecond = 1000;
  int faster = 0, onlyWithOffload = 0;
  for (int trial = 0; trial < 12; ++trial) {
    Problem problem = trainingChain(6 + trial % 4, rng);
    int64_t budget =
        mlir::ckpt::remat::testing::randomBudgetAboveFloor(rng, problem);
    SolveResult plain = solve(Strategy::Optimal, problem, budget, {});
    OffloadResult result = solveWithOffload(problem, budget, options);
    if (plain.hasSchedule()) {
      ASSERT_TRUE(result.found);
    }
    if (!result.found)
      continue;
    // The verifier's figures, recomputed here from the schedule.
    OffloadEvaluation eval =
        evaluateOffloadSchedule(problem, result.schedule, options.link);
    ASSERT_TRUE(eval.valid()) << eval.error;
    EXPECT_LE(eval.devicePeakBytes, budget);
    EXPECT_EQ(eval.devicePeakBytes, result.evaluation.devicePeakBytes);
    if (!plain.hasSchedule()) {
      // A budget recomputation alone does not reach.
      ++onlyWithOffload;
      EXPECT_FALSE(result.offloaded.empty());
      continue;
    }
    EXPECT_LE(eval.totalSeconds, plain.cost + 1e-9);
    if (eval.totalSeconds < plain.cost - 1e-9) {
      ++faster;
      EXPECT_FALSE(result.offloaded.empty());
    }
  }
  EXPECT_GT(faster, 0);
  EXPECT_GT(onlyWithOffload, 0);
}

TEST(OffloadSolverTest, HostBudgetIsHeld) {
  std::mt19937 rng(5);
  Problem problem = trainingChain(8, rng);
  int64_t floor = computeProvenFloor(problem).bytes;
  OffloadOptions options;
  options.link.hostToDeviceBytesPerSecond = 1000;
  options.link.deviceToHostBytesPerSecond = 1000;
  options.hostBudgetBytes = 250;
  OffloadResult result = solveWithOffload(problem, floor + 100, options);
  ASSERT_TRUE(result.found);
  EXPECT_LE(result.evaluation.hostPeakBytes, 250);
  options.hostBudgetBytes = 0;
  OffloadResult none = solveWithOffload(problem, floor + 100, options);
  ASSERT_TRUE(none.found);
  EXPECT_TRUE(none.offloaded.empty());
  EXPECT_EQ(none.evaluation.bytesToHost, 0);
}
