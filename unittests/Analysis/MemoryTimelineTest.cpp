//===- MemoryTimelineTest.cpp - Liveness and peak memory ------------------===//

#include "ckpt/Analysis/MemoryTimeline.h"

#include "ParseHelper.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ckpt;

namespace {

class MemoryTimelineTest : public ::testing::Test, public test::IRFixture {};

// The MLP step of examples/mlp.mlir, with the live bytes of every op worked
// out by hand. Arguments: x 128, t 32, w1 512, b1 64, w2 640, b2 40, seed 4
// = 1420 B.
constexpr const char *kMlp = R"mlir(
func.func @mlp(%x: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>},
               %t: tensor<4xi64> {ckpt.role = #ckpt.role<input>},
               %w1: tensor<16x8xf32> {ckpt.role = #ckpt.role<param>},
               %b1: tensor<16xf32> {ckpt.role = #ckpt.role<param>},
               %w2: tensor<10x16xf32> {ckpt.role = #ckpt.role<param>},
               %b2: tensor<10xf32> {ckpt.role = #ckpt.role<param>},
               %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>},
        tensor<16x8xf32> {ckpt.grad_of = 2 : i64, ckpt.role = #ckpt.role<grad>},
        tensor<16xf32> {ckpt.grad_of = 3 : i64, ckpt.role = #ckpt.role<grad>},
        tensor<10x16xf32> {ckpt.grad_of = 4 : i64, ckpt.role = #ckpt.role<grad>},
        tensor<10xf32> {ckpt.grad_of = 5 : i64, ckpt.role = #ckpt.role<grad>})
    attributes {ckpt.step} {
  %0 = ckpt.linear fwd %x, %w1, %b1 : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %1 = ckpt.relu fwd %0 : tensor<4x16xf32>
  %2 = ckpt.linear fwd %1, %w2, %b2 : (tensor<4x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %loss, %lse = ckpt.cross_entropy fwd mean %2, %t : (tensor<4x10xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<4xf32>)
  %3 = ckpt.cross_entropy_grad bwd mean %seed, %2, %t, %lse : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x10xf32>
  %4 = ckpt.matmul bwd %3, %1 {transpose_lhs} : tensor<4x10xf32>, tensor<4x16xf32> -> tensor<10x16xf32>
  %5 = ckpt.reduce_sum bwd %3 axes [0] : tensor<4x10xf32> -> tensor<10xf32>
  %6 = ckpt.matmul bwd %3, %w2 : tensor<4x10xf32>, tensor<10x16xf32> -> tensor<4x16xf32>
  %7 = ckpt.relu_grad bwd %6, %1 : tensor<4x16xf32>
  %8 = ckpt.matmul bwd %7, %x {transpose_lhs} : tensor<4x16xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
  %9 = ckpt.reduce_sum bwd %7 axes [0] : tensor<4x16xf32> -> tensor<16xf32>
  return %loss, %8, %9, %4, %5 : tensor<f32>, tensor<16x8xf32>, tensor<16xf32>, tensor<10x16xf32>, tensor<10xf32>
})mlir";

TEST_F(MemoryTimelineTest, MlpStepByHand) {
  func::FuncOp func = parseFunc(kMlp);
  ASSERT_TRUE(func);
  FailureOr<MemoryTimeline> t = computeMemoryTimeline(func);
  ASSERT_TRUE(succeeded(t));
  EXPECT_EQ(t->liveAtEntry, 1420);
  // op0 +h 256; op1 +a 256, h dies; op2 +logits 160; op3 +loss 4 +lse 16;
  // op4 +dlogits 160, logits and lse die; op5 +dw2 640 (returned);
  // op6 +db2 40; op7 +da 256, dlogits dies; op8 +dh 256, da and a die;
  // op9 +dw1 512; op10 +db1 64, dh dies.
  std::vector<int64_t> during = {1676, 1932, 1836, 1856, 2016, 2480,
                                 2520, 2776, 2872, 2872, 2936};
  std::vector<int64_t> after = {1676, 1676, 1836, 1856, 1840, 2480,
                                2520, 2616, 2360, 2872, 2680};
  EXPECT_EQ(t->liveDuring, during);
  EXPECT_EQ(t->liveAfter, after);
  EXPECT_EQ(t->peakBytes, 2936);
  EXPECT_EQ(t->peakOp, 10);
  EXPECT_EQ(t->backwardStart, 4);
  // Saved: a (256), logits (160), loss (4), lse (16).
  EXPECT_EQ(t->savedBytes, 436);
  EXPECT_EQ(t->savedActivations.size(), 4u);
  // At the peak: parameters 1256, inputs 164, gradients dw2 + db2 + dw1 +
  // db1 = 1256, activations: the loss (4), temporaries: dh (256).
  const KindBytes &atPeak = t->liveDuringByKind[10];
  EXPECT_EQ(atPeak[size_t(BufferKind::Parameter)], 1256);
  EXPECT_EQ(atPeak[size_t(BufferKind::Input)], 164);
  EXPECT_EQ(atPeak[size_t(BufferKind::Gradient)], 1256);
  EXPECT_EQ(atPeak[size_t(BufferKind::Activation)], 4);
  EXPECT_EQ(atPeak[size_t(BufferKind::Temporary)], 256);
}

TEST_F(MemoryTimelineTest, ScopedPeakByHand) {
  func::FuncOp func = parseFunc(kMlp);
  ASSERT_TRUE(func);
  FailureOr<MemoryTimeline> t = computeMemoryTimeline(func);
  ASSERT_TRUE(succeeded(t));
  // Step: everything, as `peakBytes`.
  ScopedPeak step = computeScopedPeak(*t, BudgetScope::Step);
  EXPECT_EQ(step.bytes, 2936);
  EXPECT_EQ(step.op, 10);
  // Activations: live bytes minus the 1420 argument bytes and the gradients
  // returned so far (dw2 640 from op 5, db2 40 from op 6, dw1 512 from op 9,
  // db1 64 at op 10).
  std::vector<int64_t> inScope = {256, 512, 416, 436, 596, 420,
                                  420, 676, 772, 260, 260};
  for (size_t i = 0; i < inScope.size(); ++i)
    EXPECT_EQ(liveInScope(*t, i, BudgetScope::Activations), inScope[i]) << i;
  ScopedPeak activations = computeScopedPeak(*t, BudgetScope::Activations);
  EXPECT_EQ(activations.bytes, 772);
  EXPECT_EQ(activations.op, 8);
  for (size_t i = 0; i < inScope.size(); ++i)
    EXPECT_EQ(liveInScope(*t, i, BudgetScope::Step), t->liveDuring[i]) << i;
  EXPECT_TRUE(countsInScope(BufferKind::Gradient, BudgetScope::Step));
  EXPECT_FALSE(countsInScope(BufferKind::Gradient, BudgetScope::Activations));
  EXPECT_FALSE(countsInScope(BufferKind::Parameter, BudgetScope::Activations));
  EXPECT_TRUE(countsInScope(BufferKind::Temporary, BudgetScope::Activations));
}

TEST(BudgetScopeTest, SpellingsRoundTrip) {
  for (BudgetScope scope : {BudgetScope::Step, BudgetScope::Activations})
    EXPECT_EQ(symbolizeBudgetScope(stringifyBudgetScope(scope)), scope);
  EXPECT_EQ(symbolizeBudgetScope("activations"), BudgetScope::Activations);
  EXPECT_FALSE(symbolizeBudgetScope("Step"));
  EXPECT_FALSE(symbolizeBudgetScope(""));
}

TEST_F(MemoryTimelineTest, GradientReturnedThroughAViewIsAGradient) {
  func::FuncOp func = parseFunc(R"mlir(
    func.func @f(%w: tensor<4x8xf32> {ckpt.role = #ckpt.role<param>},
                 %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>})
        -> (tensor<f32> {ckpt.role = #ckpt.role<loss>},
            tensor<4x8xf32> {ckpt.grad_of = 0 : i64, ckpt.role = #ckpt.role<grad>})
        attributes {ckpt.step} {
      %loss = ckpt.reduce_sum fwd %w axes [0, 1] : tensor<4x8xf32> -> tensor<f32>
      %g = ckpt.broadcast bwd %seed : tensor<f32> -> tensor<32xf32>
      %gw = ckpt.reshape bwd %g : tensor<32xf32> -> tensor<4x8xf32>
      return %loss, %gw : tensor<f32>, tensor<4x8xf32>
    })mlir");
  ASSERT_TRUE(func);
  FailureOr<MemoryTimeline> t = computeMemoryTimeline(func);
  ASSERT_TRUE(succeeded(t));
  // The broadcast's 128-byte buffer is the returned gradient (through the
  // reshape view): a gradient, not a temporary.
  const KindBytes &last = t->liveDuringByKind.back();
  EXPECT_EQ(last[size_t(BufferKind::Gradient)], 128);
  EXPECT_EQ(last[size_t(BufferKind::Temporary)], 0);
}

TEST_F(MemoryTimelineTest, NonCkptOpIsAnError) {
  func::FuncOp func = parseFunc(R"mlir(
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %b = "test.unknown"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      return %b : tensor<4xf32>
    })mlir");
  // Unregistered ops do not parse without allowUnregisteredDialects.
  EXPECT_FALSE(func);
  context.allowUnregisteredDialects();
  func = parseFunc(R"mlir(
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %b = "test.unknown"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      return %b : tensor<4xf32>
    })mlir");
  ASSERT_TRUE(func);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(computeMemoryTimeline(func)));
  EXPECT_NE(message.find("has no cost model"), std::string::npos) << message;
}

} // namespace
