//===- SessionTest.cpp - Session, ExecContext and the live-range accounting ==//
#include "ckpt/Runtime/Session.h"

#include "ckpt/Runtime/Kernels.h"

#include "SessionTestUtil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>

using namespace ckpt::rt;
using ckpt::rt::test::runError;
using ckpt::rt::test::vectorBinding;

namespace {

// A hand-written step: x (arena 0) and w (caller buffer) are arguments.
//   t = add x, w        @256   (fwd)
//   y = relu t          @256   in place of t (fwd, recomputed, segment 0)
//   u = mul x, x        @512   (bwd)
//   z = add y, u        @768   result 0 (opt)
// Every range is the plan's aligned size (256 bytes; the session acquires x
// rounded up the same way). Live bytes: x + t -> (y in place) -> + u -> + z
// = 1024 at the peak. High water: 768 + 256.
int gMode = 0;

const Binding kArgs[] = {vectorBinding("x", Role::Input, 0),
                         vectorBinding("w", Role::Param, -1)};
const Binding kResults[] = {vectorBinding("z", Role::Output, 768)};

const OpInfo kOps[] = {
    {0, "add", "model.py:1", Phase::Forward, false, -1},
    {1, "relu", "model.py:2", Phase::Forward, true, 0},
    {2, "mul", "model.py:3", Phase::Backward, false, -1},
    {3, "add", "model.py:4", Phase::Optimizer, false, -1},
};

void runStep(ExecContext &ctx) {
  char *a = ctx.arena();
  Tensor x(ctx.argument(0), DType::F32, {4}), w(ctx.argument(1), DType::F32, {4});
  Tensor t(a + 256, DType::F32, {4}), u(a + 512, DType::F32, {4});
  Tensor z(ctx.result(0), DType::F32, {4});
  Attr phase[] = {stringAttr("phase", "fwd")};
  Attrs attrs{phase, 1};
  Tensor none;
  {
    ctx.acquire(256, 256);
    Tensor ops[] = {x, w}, res[] = {t};
    ctx.call(kOps[0], kernels::add, {ops, 2}, {res, 1}, attrs, none);
  }
  if (gMode == 1)
    ctx.acquire(260, 16); // overlaps t: reported before the next op
  ctx.beginSegment(0);
  {
    ctx.acquire(256, 256); // y takes over t's storage
    Tensor ops[] = {t}, res[] = {t};
    ctx.call(kOps[1], kernels::relu, {ops, 1}, {res, 1}, attrs, none);
    ctx.release(256, 256); // t dies, y lives on
  }
  ctx.endSegment(0);
  {
    ctx.acquire(512, 256);
    Tensor ops[] = {x, x}, res[] = {u};
    ctx.call(kOps[2], kernels::mul, {ops, 2}, {res, 1}, attrs, none);
  }
  {
    ctx.acquire(768, 256);
    Tensor ops[] = {t, u}, res[] = {z};
    if (gMode == 2) {
      Tensor bad[] = {Tensor(a + 256, DType::F32, {3}), u};
      ctx.call(kOps[3], kernels::add, {bad, 2}, {res, 1}, attrs, none);
    }
    ctx.call(kOps[3], kernels::add, {ops, 2}, {res, 1}, attrs, none);
    ctx.release(512, 256);
    ctx.release(256, 256);
  }
  if (gMode == 3)
    ctx.release(512, 256); // already dead
}

StepProgram makeProgram() {
  StepProgram p{};
  p.name = "test_step";
  p.arenaSize = 1024;
  p.plannedPeakBytes = 64;
  p.alignment = 256;
  p.numOps = 4;
  p.numRecomputedOps = 1;
  p.numSegments = 1;
  p.arguments = kArgs;
  p.numArguments = 2;
  p.results = kResults;
  p.numResults = 1;
  p.run = runStep;
  return p;
}

class SessionTest : public ::testing::Test {
protected:
  void SetUp() override { gMode = 0; }
  StepProgram program = makeProgram();
};

TEST_F(SessionTest, RunsAndMeasures) {
  Session s(program, {});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(s.arena()) % 256, 0u);
  float x[4] = {1, -2, 3, -4}, w[4] = {0.5f, 0.5f, -4, 5};
  ASSERT_EQ(s.findArgument("x"), 0);
  ASSERT_EQ(s.findArgument("w"), 1);
  ASSERT_EQ(s.findArgument("nope"), -1);
  ASSERT_EQ(s.findResult("z"), 0);
  s.setArgument(0, x, sizeof x);
  s.setArgument(1, w, sizeof w);
  EXPECT_EQ(s.argumentData(0), static_cast<void *>(s.arena()));
  EXPECT_NE(s.argumentData(1), nullptr);
  s.run();
  const float *z = static_cast<const float *>(s.result(0));
  EXPECT_EQ(static_cast<const void *>(z), static_cast<void *>(s.arena() + 768));
  // relu(x + w) + x * x
  float want[4] = {1.5f + 1, 0 + 4, 0 + 9, 1 + 16};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(z[i], want[i]) << i;
  const Stats &st = s.stats();
  EXPECT_EQ(st.arenaBytes, 1024u);
  EXPECT_EQ(st.peakBytesInUse, 1024u);
  EXPECT_EQ(st.highWaterBytes, 1024u);
  EXPECT_EQ(st.opsRun, 4u);
  EXPECT_EQ(st.recomputedOps, 1u);
  EXPECT_EQ(st.segmentsRun, 1u);
  EXPECT_GE(st.forwardSeconds, 0.0);
  EXPECT_GT(st.forwardSeconds + st.recomputeSeconds + st.backwardSeconds +
                st.optimizerSeconds,
            0.0);
  std::string d = describe(st);
  EXPECT_NE(d.find("peak-in-use=1024"), std::string::npos) << d;
  // A second step measures afresh.
  s.run();
  EXPECT_EQ(s.stats().opsRun, 4u);
  EXPECT_EQ(s.stats().peakBytesInUse, 1024u);
}

TEST_F(SessionTest, OverlappingAcquireNamesTheNextOp) {
  gMode = 1;
  Session s(program, {});
  std::string e = runError(s);
  EXPECT_NE(e.find("plan violation"), std::string::npos) << e;
  EXPECT_NE(e.find("[260, 276)"), std::string::npos) << e;
  EXPECT_NE(e.find("[256, 512)"), std::string::npos) << e;
  EXPECT_NE(e.find("'relu'"), std::string::npos) << e;
  EXPECT_NE(e.find("model.py:2"), std::string::npos) << e;
}

TEST_F(SessionTest, KernelErrorNamesTheOp) {
  gMode = 2;
  Session s(program, {});
  std::string e = runError(s);
  EXPECT_NE(e.find("op #3 'add' at model.py:4"), std::string::npos) << e;
  EXPECT_NE(e.find("broadcast"), std::string::npos) << e;
}

TEST_F(SessionTest, ReleaseOfDeadRange) {
  gMode = 3;
  Session s(program, {});
  std::string e = runError(s);
  EXPECT_NE(e.find("not live"), std::string::npos) << e;
  EXPECT_NE(e.find("end of the step"), std::string::npos) << e;
}

TEST_F(SessionTest, BadArguments) {
  Session s(program, {});
  float x[3] = {};
  EXPECT_THROW(s.setArgument(0, x, sizeof x), std::invalid_argument);
  EXPECT_THROW(s.setArgument(5, x, 16), std::invalid_argument);
  StepProgram small = program;
  small.arenaSize = 512; // the result at 768 does not fit
  EXPECT_THROW(Session bad(small, {}), std::invalid_argument);
}

TEST_F(SessionTest, CallerArena) {
  alignas(256) static char arena[1024];
  SessionOptions o;
  o.arena = arena;
  o.threads = 2;
  Session s(program, o);
  EXPECT_EQ(s.arena(), arena);
  float x[4] = {1, 2, 3, 4}, w[4] = {};
  s.setArgument(0, x, 16);
  s.setArgument(1, w, 16);
  s.run();
  EXPECT_EQ(reinterpret_cast<float *>(arena + 768)[3], 4.0f + 16.0f);
  o.arena = arena + 64;
  EXPECT_THROW(Session misaligned(program, o), std::invalid_argument);
}

TEST(SessionErrors, OperandOutsideTheArena) {
  static const OpInfo op{0, "neg", "", Phase::Forward, false, -1};
  StepProgram p{};
  p.name = "outside";
  p.arenaSize = 64;
  p.alignment = 64;
  p.run = [](ExecContext &ctx) {
    static float outside[4];
    Tensor in(outside, DType::F32, {4}), out(ctx.arena(), DType::F32, {4});
    Attrs none;
    ctx.call(op, kernels::neg, {&in, 1}, {&out, 1}, none, Tensor());
  };
  Session s(p, {});
  std::string e = runError(s);
  EXPECT_NE(e.find("outside the arena"), std::string::npos) << e;
}

// A forward matmul + dropout, then the same two ops recomputed inside a
// segment: the recomputed value must equal the original bit for bit, for
// any thread count.
//   x @0, w @16384 (arguments, [64, 64])
//   h  = matmul x, w  @32768      y, m  = dropout h   @49152, @65536
//   h' = matmul x, w  @69632      y', m' = dropout h' @86016, @102400
const OpInfo kReplayOps[] = {
    {0, "matmul", "m.py:1", Phase::Forward, false, -1},
    {1, "dropout", "m.py:2", Phase::Forward, false, -1},
    {2, "matmul", "m.py:1", Phase::Forward, true, 0},
    {3, "dropout", "m.py:2", Phase::Forward, true, 0},
};
Binding square(const char *name, Role role, int64_t offset) {
  Binding b = vectorBinding(name, role, offset);
  b.rank = 2;
  b.shape[0] = b.shape[1] = 64;
  return b;
}
const Binding kReplayArgs[] = {square("x", Role::Input, 0),
                               square("w", Role::Param, 16384)};
const Binding kReplayResults[] = {square("y", Role::Output, 49152),
                                  square("y_again", Role::Output, 86016)};

void replayStep(ExecContext &ctx) {
  char *a = ctx.arena();
  Tensor x(a, DType::F32, {64, 64}), w(a + 16384, DType::F32, {64, 64});
  Attr dropAttrs[] = {floatAttr("p", 0.2), intAttr("seed", 4), intAttr("offset", 0),
                      stringAttr("phase", "fwd")};
  Attrs none, drop{dropAttrs, 4};
  auto once = [&](int first, uint64_t h, uint64_t y, uint64_t m) {
    Tensor ht(a + h, DType::F32, {64, 64}), yt(a + y, DType::F32, {64, 64}),
        mt(a + m, DType::I1, {64, 64});
    ctx.acquire(h, 16384);
    Tensor mmOps[] = {x, w}, mmRes[] = {ht};
    ctx.call(kReplayOps[first], kernels::matmul, {mmOps, 2}, {mmRes, 1}, none, Tensor());
    ctx.acquire(y, 16384);
    ctx.acquire(m, 4096);
    Tensor dOps[] = {ht}, dRes[] = {yt, mt};
    ctx.call(kReplayOps[first + 1], kernels::dropout, {dOps, 1}, {dRes, 2}, drop, Tensor());
    ctx.release(h, 16384);
    ctx.release(m, 4096);
  };
  once(0, 32768, 49152, 65536);
  ctx.beginSegment(0);
  once(2, 69632, 86016, 102400);
  ctx.endSegment(0);
}

TEST(SessionReplay, RecomputedDropoutIsBitIdentical) {
  StepProgram p{};
  p.name = "replay";
  p.arenaSize = 106496;
  p.alignment = 4096;
  p.numOps = 4;
  p.numRecomputedOps = 2;
  p.numSegments = 1;
  p.arguments = kReplayArgs;
  p.numArguments = 2;
  p.results = kReplayResults;
  p.numResults = 2;
  p.run = replayStep;
  std::vector<float> x(4096), w(4096);
  for (int i = 0; i < 4096; ++i) {
    x[i] = static_cast<float>((i * 37) % 101) / 50.0f - 1.0f;
    w[i] = static_cast<float>((i * 53) % 97) / 48.0f - 1.0f;
  }
  std::vector<float> first;
  for (int threads : {1, 2}) {
    SessionOptions o;
    o.seed = 2024;
    o.threads = threads;
    Session s(p, o);
    s.setArgument(0, x.data(), 16384);
    s.setArgument(1, w.data(), 16384);
    s.run();
    const float *y = static_cast<const float *>(s.result(0));
    const float *again = static_cast<const float *>(s.result(1));
    EXPECT_EQ(std::memcmp(y, again, 16384), 0) << threads << " threads";
    int zeros = 0;
    for (int i = 0; i < 4096; ++i)
      zeros += y[i] == 0.0f;
    EXPECT_GT(zeros, 600); // p = 0.2 of 4096
    EXPECT_LT(zeros, 1050);
    if (first.empty())
      first.assign(y, y + 4096);
    else
      EXPECT_EQ(std::memcmp(first.data(), y, 16384), 0) << "1 vs 2 threads";
    EXPECT_EQ(s.stats().recomputedOps, 2u);
    EXPECT_EQ(s.stats().opsRun, 4u);
    // x, w, then h + y + m at once; h' + y' + m' on top of y (y' stays).
    EXPECT_EQ(s.stats().peakBytesInUse, 32768u + 16384u + 16384u + 4096u + 16384u);
    EXPECT_EQ(s.stats().highWaterBytes, 106496u);
  }
}

} // namespace
