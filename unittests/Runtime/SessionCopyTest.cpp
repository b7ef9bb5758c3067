//===- SessionCopyTest.cpp - Offload copies through ExecContext -----------===//
//
// A hand-written step with one offload: x (argument, arena 0) -> t = relu x
// at 256; t is copied to the host arena (copy 0, at 0), waited for, and its
// device range released; u = mul x, x reuses 256; t is prefetched into 512
// and z = add t', u (result, at 768). The session copies the bytes, counts
// both arenas' live ranges and the copies, and rejects copies out of order
// or out of range.
//
//===----------------------------------------------------------------------===//
#include "ckpt/Runtime/Session.h"

#include "ckpt/Runtime/Kernels.h"

#include "SessionTestUtil.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using namespace ckpt::rt;
using ckpt::rt::test::runError;
using ckpt::rt::test::vectorBinding;

namespace {

/// What the step does wrong (0: nothing).
int gCopyMode = 0;

const Binding kCopyArgs[] = {vectorBinding("x", Role::Input, 0)};
const Binding kCopyResults[] = {vectorBinding("z", Role::Output, 768)};

const OpInfo kCopyOps[] = {
    {0, "relu", "m.py:1", Phase::Forward, false, -1},
    {1, "offload", "m.py:1", Phase::Forward, false, -1},
    {2, "offload_wait", "m.py:1", Phase::Forward, false, -1},
    {3, "mul", "m.py:2", Phase::Forward, false, -1},
    {4, "prefetch", "m.py:1", Phase::Forward, false, -1},
    {5, "add", "m.py:3", Phase::Backward, false, -1},
};

void runCopyStep(ExecContext &ctx) {
  char *a = ctx.arena();
  Tensor x(ctx.argument(0), DType::F32, {4});
  Tensor t(a + 256, DType::F32, {4}), u(a + 256, DType::F32, {4});
  Tensor back(a + 512, DType::F32, {4}), z(ctx.result(0), DType::F32, {4});
  Tensor none;
  {
    ctx.acquire(256, 256);
    Tensor ops[] = {x}, res[] = {t};
    ctx.call(kCopyOps[0], kernels::relu, {ops, 1}, {res, 1}, Attrs{}, none);
  }
  if (gCopyMode == 1) // prefetch before the offload
    ctx.prefetch(kCopyOps[4], 0, 0, 512, 16);
  ctx.acquireHost(0, 256);
  ctx.offload(kCopyOps[1], 0, 256, 0, gCopyMode == 2 ? 4096 : 16);
  if (gCopyMode == 3) // never waited for
    return;
  ctx.waitOffload(kCopyOps[2], 0);
  ctx.release(256, 256);
  if (gCopyMode == 4) // overlaps the live host buffer
    ctx.acquireHost(128, 256);
  {
    ctx.acquire(256, 256);
    Tensor ops[] = {x, x}, res[] = {u};
    ctx.call(kCopyOps[3], kernels::mul, {ops, 2}, {res, 1}, Attrs{}, none);
  }
  ctx.acquire(512, 256);
  ctx.prefetch(kCopyOps[4], 0, 0, 512, 16);
  ctx.releaseHost(0, 256);
  {
    ctx.acquire(768, 256);
    Tensor ops[] = {back, u}, res[] = {z};
    ctx.waitPrefetch(kCopyOps[5], gCopyMode == 5 ? 1 : 0);
    ctx.call(kCopyOps[5], kernels::add, {ops, 2}, {res, 1}, Attrs{}, none);
    ctx.release(256, 256);
    ctx.release(512, 256);
  }
}

StepProgram makeCopyProgram() {
  StepProgram p{};
  p.name = "copy_step";
  p.arenaSize = 1024;
  p.plannedPeakBytes = 768;
  p.alignment = 256;
  p.numOps = 6;
  p.arguments = kCopyArgs;
  p.numArguments = 1;
  p.results = kCopyResults;
  p.numResults = 1;
  p.run = runCopyStep;
  p.hostArenaSize = 256;
  p.plannedHostPeakBytes = 256;
  p.numOffloads = 1;
  return p;
}

class SessionCopyTest : public ::testing::Test {
protected:
  void SetUp() override { gCopyMode = 0; }
  StepProgram program = makeCopyProgram();
};

} // namespace

TEST_F(SessionCopyTest, CopiesTheBytesAndCountsBothArenas) {
  Session s(program, {});
  float x[4] = {1, -2, 3, -4};
  s.setArgument(0, x, sizeof x);
  s.run();
  // z = relu(x) (through the host and back) + x * x: the device copy of t
  // was overwritten by u in between.
  const float *z = static_cast<const float *>(s.result(0));
  EXPECT_FLOAT_EQ(z[0], 1 + 1);
  EXPECT_FLOAT_EQ(z[1], 0 + 4);
  EXPECT_FLOAT_EQ(z[2], 3 + 9);
  EXPECT_FLOAT_EQ(z[3], 0 + 16);
  const Stats &stats = s.stats();
  EXPECT_EQ(stats.peakBytesInUse, 1024u); // x, u, t', z
  EXPECT_EQ(stats.hostArenaBytes, 256u);
  EXPECT_EQ(stats.hostPeakBytesInUse, 256u);
  EXPECT_EQ(stats.offloads, 1u);
  EXPECT_EQ(stats.prefetches, 1u);
  EXPECT_EQ(stats.bytesToHost, 16u);
  EXPECT_EQ(stats.bytesToDevice, 16u);
  EXPECT_NE(describe(stats).find("offloads=1 prefetches=1"), std::string::npos);
  // A second step starts from a clean slate.
  s.run();
  EXPECT_EQ(s.stats().offloads, 1u);
}

TEST_F(SessionCopyTest, RejectsCopiesOutOfOrderOrRange) {
  gCopyMode = 1;
  Session a(program, {});
  EXPECT_NE(runError(a).find("op #4 'prefetch' at m.py:1: prefetches "
                                 "copy 0, which was never offloaded"),
            std::string::npos);
  gCopyMode = 2;
  Session b(program, {});
  EXPECT_NE(runError(b).find("lies outside the arena of 1024 bytes"),
            std::string::npos);
  gCopyMode = 3;
  Session c(program, {});
  EXPECT_NE(runError(c).find("copy 0 was offloaded but never waited for"),
            std::string::npos);
  gCopyMode = 4;
  Session d(program, {});
  EXPECT_NE(runError(d).find("in the host arena"), std::string::npos);
  gCopyMode = 5;
  Session e(program, {});
  EXPECT_NE(runError(e).find("op #5 'add' at m.py:3: waits for a prefetch "
                                 "of copy 1, which has not run"),
            std::string::npos);
}
