//===- OpCostTest.cpp - Exact cost formulas of every ckpt op --------------===//
//
// Each test parses one op and compares its CostOpInterface result with a
// hand-computed value; the arithmetic is written next to the expectation.
// Every expected number follows the formula documented in the op's
// description (CkptOps.td), never the implementation.
//
// Element sizes: f32 = 4, f16 = bf16 = 2, i64 = 8, i32 = 4, i1 = 1 bytes.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptCost.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/CkptVerification.h"
#include "ckpt/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <limits>
#include <string>

using namespace mlir;
using namespace mlir::ckpt;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

/// Parses `body` (ops of one function taking `args`) and returns the cost of
/// the first ckpt op.
class OpCostTest : public ::testing::Test {
protected:
  OpCostTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Returns the cost and view flag of the first ckpt op in `source`.
  std::pair<OpCost, bool> costOf(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source.str();
    if (!module)
      return {};
    CostOpInterface found;
    module->walk([&](CostOpInterface op) {
      if (!found)
        found = op;
    });
    EXPECT_TRUE(found);
    if (!found)
      return {};
    return {found.getCost(), found.isView()};
  }

  /// Cost of `ckpt.<mnemonic> <phase> %x : <type>` (unary elementwise form).
  std::pair<OpCost, bool> unaryCost(StringRef mnemonic, StringRef type,
                                    StringRef extra = "") {
    std::string t = type.str();
    return costOf("func.func @f(%x: " + t + ") -> " + t + " {\n  %y = ckpt." +
                  mnemonic.str() + " fwd " + extra.str() + "%x : " + t +
                  "\n  return %y : " + t + "\n}");
  }

  /// Cost of `ckpt.<mnemonic> bwd %dy, %s : <type>` (activation gradient).
  std::pair<OpCost, bool> gradCost(StringRef mnemonic, StringRef type,
                                   StringRef extra = "") {
    std::string t = type.str();
    return costOf("func.func @f(%dy: " + t + ", %s: " + t + ") -> " + t +
                  " {\n  %dx = ckpt." + mnemonic.str() + " bwd " + extra.str() +
                  "%dy, %s : " + t + "\n  return %dx : " + t + "\n}");
  }

  /// Cost of `ckpt.<mnemonic> fwd %a, %b` with broadcasting types.
  std::pair<OpCost, bool> binaryCost(StringRef mnemonic, StringRef lhs,
                                     StringRef rhs, StringRef result) {
    std::string l = lhs.str(), r = rhs.str(), o = result.str();
    return costOf("func.func @f(%a: " + l + ", %b: " + r + ") -> " + o +
                  " {\n  %c = ckpt." + mnemonic.str() + " fwd %a, %b : " + l +
                  ", " + r + " -> " + o + "\n  return %c : " + o + "\n}");
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, Matmul) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
      %c = ckpt.matmul fwd %a, %b {transpose_rhs} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
      return %c : tensor<4x16xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 4 * 16 * 8);           // 2*M*N*K
  EXPECT_EQ(cost.bytesRead, (4 * 8 + 16 * 8) * 4); // both operands, f32
  EXPECT_EQ(cost.bytesWritten, 4 * 16 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, MatmulTransposeLhs) {
  // op(lhs) = lhs^T: lhs is KxM = 8x4, rhs KxN = 8x16.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%a: tensor<8x4xbf16>, %b: tensor<8x16xbf16>) -> tensor<4x16xbf16> {
      %c = ckpt.matmul bwd %a, %b {transpose_lhs} : tensor<8x4xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
      return %c : tensor<4x16xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 4 * 16 * 8);           // 2*M*N*K, K = 8
  EXPECT_EQ(cost.bytesRead, (8 * 4 + 8 * 16) * 2); // bf16
  EXPECT_EQ(cost.bytesWritten, 4 * 16 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, BatchMatmul) {
  // Batch dims [2,1] and [1,3] broadcast to [2,3]; lhs^T is 4x8 (M=4, K=8).
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%a: tensor<2x1x8x4xf16>, %b: tensor<1x3x8x5xf16>) -> tensor<2x3x4x5xf16> {
      %c = ckpt.batch_matmul fwd %a, %b {transpose_lhs} : tensor<2x1x8x4xf16>, tensor<1x3x8x5xf16> -> tensor<2x3x4x5xf16>
      return %c : tensor<2x3x4x5xf16>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * (2 * 3) * 4 * 5 * 8); // 2*B*M*N*K, B = 6
  EXPECT_EQ(cost.bytesRead, (2 * 1 * 8 * 4 + 1 * 3 * 8 * 5) * 2); // each once
  EXPECT_EQ(cost.bytesWritten, 2 * 3 * 4 * 5 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, BatchMatmulTransposeRhs) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x12x8xf32>) -> tensor<2x4x16x12xf32> {
      %s = ckpt.batch_matmul fwd %q, %k {transpose_rhs} : tensor<2x4x16x8xf32>, tensor<2x4x12x8xf32> -> tensor<2x4x16x12xf32>
      return %s : tensor<2x4x16x12xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * (2 * 4) * 16 * 12 * 8); // 2*B*M*N*K
  EXPECT_EQ(cost.bytesRead, (2 * 4 * 16 * 8 + 2 * 4 * 12 * 8) * 4);
  EXPECT_EQ(cost.bytesWritten, 2 * 4 * 16 * 12 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LinearWithBias) {
  // R = 2*3 rows, in = 8, out = 16.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<2x3x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<2x3x16xf32> {
      %y = ckpt.linear fwd %x, %w, %b : (tensor<2x3x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x3x16xf32>
      return %y : tensor<2x3x16xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 6 * 8 * 16 + 6 * 16); // 2*R*in*out + R*out
  EXPECT_EQ(cost.bytesRead, (2 * 3 * 8 + 16 * 8 + 16) * 4);
  EXPECT_EQ(cost.bytesWritten, 2 * 3 * 16 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LinearWithoutBias) {
  // R = 5, in = 8, out = 3.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<5x8xbf16>, %w: tensor<3x8xbf16>) -> tensor<5x3xbf16> {
      %y = ckpt.linear fwd %x, %w : (tensor<5x8xbf16>, tensor<3x8xbf16>) -> tensor<5x3xbf16>
      return %y : tensor<5x3xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 5 * 8 * 3); // 2*R*in*out
  EXPECT_EQ(cost.bytesRead, (5 * 8 + 3 * 8) * 2);
  EXPECT_EQ(cost.bytesWritten, 5 * 3 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

//===----------------------------------------------------------------------===//
// Elementwise arithmetic
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, AddBroadcast) {
  auto [cost, view] =
      binaryCost("add", "tensor<4x8xf32>", "tensor<8xf32>", "tensor<4x8xf32>");
  EXPECT_EQ(cost.flops, 4 * 8);               // 1 per result element
  EXPECT_EQ(cost.bytesRead, (4 * 8 + 8) * 4); // each operand once
  EXPECT_EQ(cost.bytesWritten, 4 * 8 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, SubBroadcastBothSides) {
  // [3,1,8] and [5,1] broadcast to [3,5,8].
  auto [cost, view] = binaryCost("sub", "tensor<3x1x8xbf16>",
                                 "tensor<5x1xbf16>", "tensor<3x5x8xbf16>");
  EXPECT_EQ(cost.flops, 3 * 5 * 8);
  EXPECT_EQ(cost.bytesRead, (3 * 1 * 8 + 5 * 1) * 2);
  EXPECT_EQ(cost.bytesWritten, 3 * 5 * 8 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, MulSameShape) {
  auto [cost, view] = binaryCost("mul", "tensor<4x6xf16>", "tensor<4x6xf16>",
                                 "tensor<4x6xf16>");
  EXPECT_EQ(cost.flops, 4 * 6);
  EXPECT_EQ(cost.bytesRead, (4 * 6 + 4 * 6) * 2);
  EXPECT_EQ(cost.bytesWritten, 4 * 6 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, DivByScalar) {
  auto [cost, view] =
      binaryCost("div", "tensor<2x7xf32>", "tensor<f32>", "tensor<2x7xf32>");
  EXPECT_EQ(cost.flops, 2 * 7);
  EXPECT_EQ(cost.bytesRead, (2 * 7 + 1) * 4); // rank-0 rhs: one element
  EXPECT_EQ(cost.bytesWritten, 2 * 7 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Neg) {
  auto [cost, view] = unaryCost("neg", "tensor<3x5xf32>");
  EXPECT_EQ(cost.flops, 1 * 3 * 5); // 1 FLOP per element
  EXPECT_EQ(cost.bytesRead, 3 * 5 * 4);
  EXPECT_EQ(cost.bytesWritten, 3 * 5 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Exp) {
  auto [cost, view] = unaryCost("exp", "tensor<2x3x4xbf16>");
  EXPECT_EQ(cost.flops, 1 * 2 * 3 * 4);
  EXPECT_EQ(cost.bytesRead, 2 * 3 * 4 * 2);
  EXPECT_EQ(cost.bytesWritten, 2 * 3 * 4 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Log) {
  auto [cost, view] = unaryCost("log", "tensor<7xf16>");
  EXPECT_EQ(cost.flops, 1 * 7);
  EXPECT_EQ(cost.bytesRead, 7 * 2);
  EXPECT_EQ(cost.bytesWritten, 7 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Sqrt) {
  auto [cost, view] = unaryCost("sqrt", "tensor<4x6xf32>");
  EXPECT_EQ(cost.flops, 1 * 4 * 6);
  EXPECT_EQ(cost.bytesRead, 4 * 6 * 4);
  EXPECT_EQ(cost.bytesWritten, 4 * 6 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Rsqrt) {
  auto [cost, view] = unaryCost("rsqrt", "tensor<5x2xbf16>");
  EXPECT_EQ(cost.flops, 1 * 5 * 2);
  EXPECT_EQ(cost.bytesRead, 5 * 2 * 2);
  EXPECT_EQ(cost.bytesWritten, 5 * 2 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Tanh) {
  auto [cost, view] = unaryCost("tanh", "tensor<3x3xf32>");
  EXPECT_EQ(cost.flops, 1 * 3 * 3);
  EXPECT_EQ(cost.bytesRead, 3 * 3 * 4);
  EXPECT_EQ(cost.bytesWritten, 3 * 3 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Pow) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<2x5xf16>) -> tensor<2x5xf16> {
      %y = ckpt.pow fwd %x, 3.000000e+00 : tensor<2x5xf16>
      return %y : tensor<2x5xf16>
    })mlir");
  EXPECT_EQ(cost.flops, 1 * 2 * 5); // 1 FLOP per element
  EXPECT_EQ(cost.bytesRead, 2 * 5 * 2);
  EXPECT_EQ(cost.bytesWritten, 2 * 5 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Convert) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
      %y = ckpt.convert fwd %x : tensor<4x8xf32> -> tensor<4x8xbf16>
      return %y : tensor<4x8xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 4 * 8 * 4);    // f32 input
  EXPECT_EQ(cost.bytesWritten, 4 * 8 * 2); // bf16 result
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, ConvertIntegersAndMasks) {
  // i64 -> i1: 8 bytes read and 1 written per element, no FLOPs (the
  // `!= 0` of a conversion is not counted, as no conversion is).
  auto [toMask, toMaskView] = costOf(R"mlir(
    func.func @f(%x: tensor<3x5xi64>) -> tensor<3x5xi1> {
      %y = ckpt.convert fwd %x : tensor<3x5xi64> -> tensor<3x5xi1>
      return %y : tensor<3x5xi1>
    })mlir");
  EXPECT_EQ(toMask.flops, 0);
  EXPECT_EQ(toMask.bytesRead, 15 * 8);
  EXPECT_EQ(toMask.bytesWritten, 15 * 1);
  EXPECT_FALSE(toMaskView);
  // i1 -> f32 and f32 -> i32.
  auto [fromMask, fromMaskView] = costOf(R"mlir(
    func.func @f(%x: tensor<7xi1>) -> tensor<7xf32> {
      %y = ckpt.convert fwd %x : tensor<7xi1> -> tensor<7xf32>
      return %y : tensor<7xf32>
    })mlir");
  EXPECT_EQ(fromMask.flops, 0);
  EXPECT_EQ(fromMask.bytesRead, 7);
  EXPECT_EQ(fromMask.bytesWritten, 7 * 4);
  EXPECT_FALSE(fromMaskView);
  auto [toInt, toIntView] = costOf(R"mlir(
    func.func @f(%x: tensor<7xf32>) -> tensor<7xi32> {
      %y = ckpt.convert bwd %x : tensor<7xf32> -> tensor<7xi32>
      return %y : tensor<7xi32>
    })mlir");
  EXPECT_EQ(toInt.flops, 0);
  EXPECT_EQ(toInt.bytesRead, 7 * 4);
  EXPECT_EQ(toInt.bytesWritten, 7 * 4);
  EXPECT_FALSE(toIntView);
}

//===----------------------------------------------------------------------===//
// Activations and their gradients
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, Relu) {
  auto [cost, view] = unaryCost("relu", "tensor<6x2xf32>");
  EXPECT_EQ(cost.flops, 1 * 6 * 2); // 1 FLOP per element
  EXPECT_EQ(cost.bytesRead, 6 * 2 * 4);
  EXPECT_EQ(cost.bytesWritten, 6 * 2 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Sigmoid) {
  auto [cost, view] = unaryCost("sigmoid", "tensor<3x4xbf16>");
  EXPECT_EQ(cost.flops, 4 * 3 * 4); // 4 FLOPs per element
  EXPECT_EQ(cost.bytesRead, 3 * 4 * 2);
  EXPECT_EQ(cost.bytesWritten, 3 * 4 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Silu) {
  auto [cost, view] = unaryCost("silu", "tensor<2x8xf32>");
  EXPECT_EQ(cost.flops, 5 * 2 * 8); // 5 FLOPs per element
  EXPECT_EQ(cost.bytesRead, 2 * 8 * 4);
  EXPECT_EQ(cost.bytesWritten, 2 * 8 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, GeluErf) {
  auto [cost, view] = unaryCost("gelu", "tensor<3x4xf32>", "erf ");
  EXPECT_EQ(cost.flops, 5 * 3 * 4); // erf: 5 FLOPs per element
  EXPECT_EQ(cost.bytesRead, 3 * 4 * 4);
  EXPECT_EQ(cost.bytesWritten, 3 * 4 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, GeluTanh) {
  auto [cost, view] = unaryCost("gelu", "tensor<3x4xbf16>", "tanh ");
  EXPECT_EQ(cost.flops, 9 * 3 * 4); // tanh: 9 FLOPs per element
  EXPECT_EQ(cost.bytesRead, 3 * 4 * 2);
  EXPECT_EQ(cost.bytesWritten, 3 * 4 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, ReluGrad) {
  auto [cost, view] = gradCost("relu_grad", "tensor<4x5xf32>");
  EXPECT_EQ(cost.flops, 1 * 4 * 5);         // 1 FLOP per element
  EXPECT_EQ(cost.bytesRead, 2 * 4 * 5 * 4); // dy and y
  EXPECT_EQ(cost.bytesWritten, 4 * 5 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, SigmoidGrad) {
  auto [cost, view] = gradCost("sigmoid_grad", "tensor<2x6xbf16>");
  EXPECT_EQ(cost.flops, 3 * 2 * 6); // 3 FLOPs per element
  EXPECT_EQ(cost.bytesRead, 2 * 2 * 6 * 2);
  EXPECT_EQ(cost.bytesWritten, 2 * 6 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, TanhGrad) {
  auto [cost, view] = gradCost("tanh_grad", "tensor<7x3xf16>");
  EXPECT_EQ(cost.flops, 3 * 7 * 3); // 3 FLOPs per element
  EXPECT_EQ(cost.bytesRead, 2 * 7 * 3 * 2);
  EXPECT_EQ(cost.bytesWritten, 7 * 3 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, SiluGrad) {
  auto [cost, view] = gradCost("silu_grad", "tensor<3x5xf32>");
  EXPECT_EQ(cost.flops, 9 * 3 * 5); // 9 FLOPs per element
  EXPECT_EQ(cost.bytesRead, 2 * 3 * 5 * 4);
  EXPECT_EQ(cost.bytesWritten, 3 * 5 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, GeluGradErf) {
  auto [cost, view] = gradCost("gelu_grad", "tensor<2x4xf32>", "erf ");
  EXPECT_EQ(cost.flops, 11 * 2 * 4); // erf: 11 FLOPs per element
  EXPECT_EQ(cost.bytesRead, 2 * 2 * 4 * 4);
  EXPECT_EQ(cost.bytesWritten, 2 * 4 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, GeluGradTanh) {
  auto [cost, view] = gradCost("gelu_grad", "tensor<2x4xbf16>", "tanh ");
  EXPECT_EQ(cost.flops, 18 * 2 * 4); // tanh: 18 FLOPs per element
  EXPECT_EQ(cost.bytesRead, 2 * 2 * 4 * 2);
  EXPECT_EQ(cost.bytesWritten, 2 * 4 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Clamp) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<3x5xf16>) -> tensor<3x5xf16> {
      %y = ckpt.clamp fwd %x min 0.000000e+00 max 6.000000e+00 : tensor<3x5xf16>
      return %y : tensor<3x5xf16>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 3 * 5); // 2 FLOPs (comparisons) per element
  EXPECT_EQ(cost.bytesRead, 3 * 5 * 2);
  EXPECT_EQ(cost.bytesWritten, 3 * 5 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, ClampGrad) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<4x6xf32>, %x: tensor<4x6xf32>) -> tensor<4x6xf32> {
      %dx = ckpt.clamp_grad bwd %dy, %x min -1.000000e+00 max 1.000000e+00 : tensor<4x6xf32>
      return %dx : tensor<4x6xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 4 * 6);         // 2 FLOPs per element
  EXPECT_EQ(cost.bytesRead, 2 * 4 * 6 * 4); // dy and x
  EXPECT_EQ(cost.bytesWritten, 4 * 6 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, HardActivations) {
  // N = 3*5 = 15 f16 elements (2 bytes each).
  auto [swish, swishView] = costOf(R"mlir(
    func.func @f(%x: tensor<3x5xf16>) -> tensor<3x5xf16> {
      %y = ckpt.hardswish fwd %x : tensor<3x5xf16>
      return %y : tensor<3x5xf16>
    })mlir");
  EXPECT_EQ(swish.flops, 5 * 15); // add, max, min, mul, div
  EXPECT_EQ(swish.bytesRead, 15 * 2);
  EXPECT_EQ(swish.bytesWritten, 15 * 2);
  EXPECT_EQ(swish.workspaceBytes, 0);
  EXPECT_FALSE(swishView);
  auto [sig, sigView] = costOf(R"mlir(
    func.func @f(%x: tensor<3x5xf16>) -> tensor<3x5xf16> {
      %y = ckpt.hardsigmoid fwd %x : tensor<3x5xf16>
      return %y : tensor<3x5xf16>
    })mlir");
  EXPECT_EQ(sig.flops, 4 * 15); // add, max, min, div
  EXPECT_EQ(sig.bytesRead, 15 * 2);
  EXPECT_EQ(sig.bytesWritten, 15 * 2);
  EXPECT_FALSE(sigView);
}

TEST_F(OpCostTest, HardActivationGrads) {
  // N = 4*6 = 24 f32 elements; dy and x are read.
  auto [swish, swishView] = costOf(R"mlir(
    func.func @f(%dy: tensor<4x6xf32>, %x: tensor<4x6xf32>) -> tensor<4x6xf32> {
      %dx = ckpt.hardswish_grad bwd %dy, %x : tensor<4x6xf32>
      return %dx : tensor<4x6xf32>
    })mlir");
  EXPECT_EQ(swish.flops, 5 * 24); // two comparisons, div, add, mul
  EXPECT_EQ(swish.bytesRead, 2 * 24 * 4);
  EXPECT_EQ(swish.bytesWritten, 24 * 4);
  EXPECT_EQ(swish.workspaceBytes, 0);
  EXPECT_FALSE(swishView);
  auto [sig, sigView] = costOf(R"mlir(
    func.func @f(%dy: tensor<4x6xf32>, %x: tensor<4x6xf32>) -> tensor<4x6xf32> {
      %dx = ckpt.hardsigmoid_grad bwd %dy, %x : tensor<4x6xf32>
      return %dx : tensor<4x6xf32>
    })mlir");
  EXPECT_EQ(sig.flops, 3 * 24); // two comparisons, mul
  EXPECT_EQ(sig.bytesRead, 2 * 24 * 4);
  EXPECT_EQ(sig.bytesWritten, 24 * 4);
  EXPECT_FALSE(sigView);
}

TEST_F(OpCostTest, SinCos) {
  // One FLOP per element, like the other transcendental functions; rank 0
  // has one element.
  auto [sin, sinView] = costOf(R"mlir(
    func.func @f(%x: tensor<2x7xbf16>) -> tensor<2x7xbf16> {
      %y = ckpt.sin fwd %x : tensor<2x7xbf16>
      return %y : tensor<2x7xbf16>
    })mlir");
  EXPECT_EQ(sin.flops, 14);
  EXPECT_EQ(sin.bytesRead, 14 * 2);
  EXPECT_EQ(sin.bytesWritten, 14 * 2);
  EXPECT_FALSE(sinView);
  auto [cos, cosView] = costOf(R"mlir(
    func.func @f(%x: tensor<f32>) -> tensor<f32> {
      %y = ckpt.cos fwd %x : tensor<f32>
      return %y : tensor<f32>
    })mlir");
  EXPECT_EQ(cos.flops, 1);
  EXPECT_EQ(cos.bytesRead, 4);
  EXPECT_EQ(cos.bytesWritten, 4);
  EXPECT_FALSE(cosView);
}

TEST_F(OpCostTest, AbsAndIntegerNeg) {
  // One FLOP per element on floats and integers alike; bytes at the element
  // size (i64: 8, i32: 4, f16: 2).
  auto [absI, absIView] = unaryCost("abs", "tensor<4x16xi64>");
  EXPECT_EQ(absI.flops, 4 * 16);
  EXPECT_EQ(absI.bytesRead, 4 * 16 * 8);
  EXPECT_EQ(absI.bytesWritten, 4 * 16 * 8);
  EXPECT_EQ(absI.workspaceBytes, 0);
  EXPECT_FALSE(absIView);
  auto [absF, absFView] = unaryCost("abs", "tensor<3x5xf16>");
  EXPECT_EQ(absF.flops, 3 * 5);
  EXPECT_EQ(absF.bytesRead, 3 * 5 * 2);
  EXPECT_EQ(absF.bytesWritten, 3 * 5 * 2);
  EXPECT_FALSE(absFView);
  auto [neg, negView] = unaryCost("neg", "tensor<7xi32>");
  EXPECT_EQ(neg.flops, 7);
  EXPECT_EQ(neg.bytesRead, 7 * 4);
  EXPECT_EQ(neg.bytesWritten, 7 * 4);
  EXPECT_FALSE(negView);
}

TEST_F(OpCostTest, MinimumMaximumBroadcast) {
  // One comparison per result element; each operand read once at its own
  // size: minimum reads 4*8 + 1 i64 elements (rank-0 rhs), maximum reads
  // 3*1*8 + 5*8 f32 elements for a 3x5x8 result.
  auto [mn, mnView] = binaryCost("minimum", "tensor<4x8xi64>", "tensor<i64>",
                                 "tensor<4x8xi64>");
  EXPECT_EQ(mn.flops, 4 * 8);
  EXPECT_EQ(mn.bytesRead, (4 * 8 + 1) * 8);
  EXPECT_EQ(mn.bytesWritten, 4 * 8 * 8);
  EXPECT_EQ(mn.workspaceBytes, 0);
  EXPECT_FALSE(mnView);
  auto [mx, mxView] = binaryCost("maximum", "tensor<3x1x8xf32>",
                                 "tensor<5x8xf32>", "tensor<3x5x8xf32>");
  EXPECT_EQ(mx.flops, 3 * 5 * 8);
  EXPECT_EQ(mx.bytesRead, (3 * 8 + 5 * 8) * 4);
  EXPECT_EQ(mx.bytesWritten, 3 * 5 * 8 * 4);
  EXPECT_FALSE(mxView);
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, Softmax) {
  // N = 3*4*6 = 72 elements.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<3x4x6xf32>) -> tensor<3x4x6xf32> {
      %y = ckpt.softmax fwd %x axis 1 : tensor<3x4x6xf32>
      return %y : tensor<3x4x6xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 5 * 72); // 5*N
  EXPECT_EQ(cost.bytesRead, 72 * 4);
  EXPECT_EQ(cost.bytesWritten, 72 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LogSoftmax) {
  // N = 72; rows along axis 1 (size 4): R = 72 / 4 = 3*6 = 18.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<3x4x6xf32>) -> tensor<3x4x6xf32> {
      %y = ckpt.log_softmax fwd %x axis 1 : tensor<3x4x6xf32>
      return %y : tensor<3x4x6xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 5 * 72 + 3 * 6); // 5*N + R
  EXPECT_EQ(cost.bytesRead, 72 * 4);
  EXPECT_EQ(cost.bytesWritten, 72 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LogSoftmaxLastAxis) {
  // N = 5*7 = 35; rows along axis 1 (size 7): R = 5.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<5x7xbf16>) -> tensor<5x7xbf16> {
      %y = ckpt.log_softmax fwd %x axis 1 : tensor<5x7xbf16>
      return %y : tensor<5x7xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 5 * 35 + 5); // 5*N + R
  EXPECT_EQ(cost.bytesRead, 35 * 2);
  EXPECT_EQ(cost.bytesWritten, 35 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, SoftmaxGrad) {
  // N = 3*4*6 = 72.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<3x4x6xbf16>, %y: tensor<3x4x6xbf16>) -> tensor<3x4x6xbf16> {
      %dx = ckpt.softmax_grad bwd %dy, %y axis 2 : tensor<3x4x6xbf16>
      return %dx : tensor<3x4x6xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 4 * 72);         // 4*N
  EXPECT_EQ(cost.bytesRead, 2 * 72 * 2); // dy and y
  EXPECT_EQ(cost.bytesWritten, 72 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LogSoftmaxGrad) {
  // N = 5*3 = 15.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<5x3xf32>, %y: tensor<5x3xf32>) -> tensor<5x3xf32> {
      %dx = ckpt.log_softmax_grad bwd %dy, %y axis 0 : tensor<5x3xf32>
      return %dx : tensor<5x3xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 4 * 15); // 4*N
  EXPECT_EQ(cost.bytesRead, 2 * 15 * 4);
  EXPECT_EQ(cost.bytesWritten, 15 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, LayerNormWeightBias) {
  // Normalizes dims [3, 8] of [2,3,8]: N = 48, R = 2.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<2x3x8xbf16>, %w: tensor<3x8xbf16>, %b: tensor<3x8xbf16>) -> tensor<2x3x8xbf16> {
      %y, %mean, %rstd = ckpt.layer_norm fwd %x weight %w bias %b axis 1 eps 1.000000e-05
          : (tensor<2x3x8xbf16>, tensor<3x8xbf16>, tensor<3x8xbf16>) -> (tensor<2x3x8xbf16>, tensor<2xf32>, tensor<2xf32>)
      return %y : tensor<2x3x8xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 5 * 48 + 4 * 2 + 48 + 48);      // 5N + 4R + N(w) + N(b)
  EXPECT_EQ(cost.bytesRead, (48 + 24 + 24) * 2);        // x, w, b (bf16)
  EXPECT_EQ(cost.bytesWritten, 48 * 2 + 2 * 4 + 2 * 4); // y, mean, rstd (f32)
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LayerNormNoParams) {
  // N = 4*6 = 24, R = 4.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
      %y, %mean, %rstd = ckpt.layer_norm fwd %x axis 1 eps 1.000000e-05
          : (tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4xf32>, tensor<4xf32>)
      return %y : tensor<4x6xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 5 * 24 + 4 * 4); // 5N + 4R
  EXPECT_EQ(cost.bytesRead, 24 * 4);
  EXPECT_EQ(cost.bytesWritten, (24 + 4 + 4) * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LayerNormWeightOnly) {
  // N = 24, R = 4.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x6xf16>, %w: tensor<6xf16>) -> tensor<4x6xf16> {
      %y, %mean, %rstd = ckpt.layer_norm fwd %x weight %w axis 1 eps 1.000000e-05
          : (tensor<4x6xf16>, tensor<6xf16>) -> (tensor<4x6xf16>, tensor<4xf32>, tensor<4xf32>)
      return %y : tensor<4x6xf16>
    })mlir");
  EXPECT_EQ(cost.flops, 5 * 24 + 4 * 4 + 24); // 5N + 4R + N(w)
  EXPECT_EQ(cost.bytesRead, (24 + 6) * 2);
  EXPECT_EQ(cost.bytesWritten, 24 * 2 + 4 * 4 + 4 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LayerNormBiasOnly) {
  // N = 24, R = 4.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x6xf32>, %b: tensor<6xf32>) -> tensor<4x6xf32> {
      %y, %mean, %rstd = ckpt.layer_norm fwd %x bias %b axis 1 eps 1.000000e-05
          : (tensor<4x6xf32>, tensor<6xf32>) -> (tensor<4x6xf32>, tensor<4xf32>, tensor<4xf32>)
      return %y : tensor<4x6xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 5 * 24 + 4 * 4 + 24); // 5N + 4R + N(b)
  EXPECT_EQ(cost.bytesRead, (24 + 6) * 4);
  EXPECT_EQ(cost.bytesWritten, (24 + 4 + 4) * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LayerNormGradNoParamGrads) {
  // N = 24, R = 4; no weight.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<4x6xf32>, %x: tensor<4x6xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>) -> tensor<4x6xf32> {
      %dx = ckpt.layer_norm_grad bwd %dy, %x, %m, %r axis 1
          : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x6xf32>
      return %dx : tensor<4x6xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 9 * 24 + 2 * 4); // 9N + 2R
  EXPECT_EQ(cost.bytesRead, (24 + 24 + 4 + 4) * 4);
  EXPECT_EQ(cost.bytesWritten, 24 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LayerNormGradWeightNoParamGrads) {
  // N = 4*8 = 32, R = 4; weight present, no parameter gradients.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
      %dx = ckpt.layer_norm_grad bwd %dy, %x, %m, %r weight %w axis 1
          : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<4x8xf32>
      return %dx : tensor<4x8xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 9 * 32 + 2 * 4 + 32); // 9N + 2R + N(w)
  EXPECT_EQ(cost.bytesRead, (32 + 32 + 4 + 4 + 8) * 4);
  EXPECT_EQ(cost.bytesWritten, 32 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LayerNormGradOneParamGrad) {
  // Normalizes the last dim of [2,3,8]: N = 48, R = 2*3 = 6.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<2x3x8xbf16>, %x: tensor<2x3x8xbf16>, %m: tensor<2x3xf32>, %r: tensor<2x3xf32>, %w: tensor<8xbf16>) -> tensor<8xbf16> {
      %dx, %dw = ckpt.layer_norm_grad bwd %dy, %x, %m, %r weight %w axis 2
          : (tensor<2x3x8xbf16>, tensor<2x3x8xbf16>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<8xbf16>) -> (tensor<2x3x8xbf16>, tensor<8xbf16>)
      return %dw : tensor<8xbf16>
    })mlir");
  EXPECT_EQ(cost.flops,
            9 * 48 + 2 * 6 + 48 + 2 * 48); // 9N + 2R + N(w) + 2N(dw)
  EXPECT_EQ(cost.bytesRead, (48 + 48) * 2 + (6 + 6) * 4 + 8 * 2);
  EXPECT_EQ(cost.bytesWritten, (48 + 8) * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LayerNormGradTwoParamGrads) {
  // N = 32, R = 4.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<8xf32> {
      %dx, %dw, %db = ckpt.layer_norm_grad bwd %dy, %x, %m, %r weight %w axis 1
          : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
      return %db : tensor<8xf32>
    })mlir");
  // 9N + 2R + N(w) + 2N(dw) + N(db)
  EXPECT_EQ(cost.flops, 9 * 32 + 2 * 4 + 32 + 2 * 32 + 32);
  EXPECT_EQ(cost.bytesRead, (32 + 32 + 4 + 4 + 8) * 4);
  EXPECT_EQ(cost.bytesWritten, (32 + 8 + 8) * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, RmsNormWithWeight) {
  // N = 3*8 = 24, R = 3.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<3x8xbf16>, %w: tensor<8xbf16>) -> tensor<3x8xbf16> {
      %y, %rstd = ckpt.rms_norm fwd %x weight %w axis 1 eps 1.000000e-06
          : (tensor<3x8xbf16>, tensor<8xbf16>) -> (tensor<3x8xbf16>, tensor<3xf32>)
      return %y : tensor<3x8xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 3 * 24 + 3 * 3 + 24); // 3N + 3R + N(w)
  EXPECT_EQ(cost.bytesRead, (24 + 8) * 2);
  EXPECT_EQ(cost.bytesWritten, 24 * 2 + 3 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, RmsNormAllDimsNoWeight) {
  // axis 0: N = 2*5*4 = 40 in a single row, R = 1; rstd is rank 0.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<2x5x4xf32>) -> tensor<2x5x4xf32> {
      %y, %rstd = ckpt.rms_norm fwd %x axis 0 eps 1.000000e-06
          : (tensor<2x5x4xf32>) -> (tensor<2x5x4xf32>, tensor<f32>)
      return %y : tensor<2x5x4xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 3 * 40 + 3 * 1); // 3N + 3R
  EXPECT_EQ(cost.bytesRead, 40 * 4);
  EXPECT_EQ(cost.bytesWritten, 40 * 4 + 1 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, RmsNormGradWithWeightGrad) {
  // N = 24, R = 3.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<3x8xf32>, %x: tensor<3x8xf32>, %r: tensor<3xf32>, %w: tensor<8xf32>) -> tensor<8xf32> {
      %dx, %dw = ckpt.rms_norm_grad bwd %dy, %x, %r weight %w axis 1
          : (tensor<3x8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<8xf32>) -> (tensor<3x8xf32>, tensor<8xf32>)
      return %dw : tensor<8xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 6 * 24 + 3 + 24 + 2 * 24); // 6N + R + N(w) + 2N(dw)
  EXPECT_EQ(cost.bytesRead, (24 + 24 + 3 + 8) * 4);
  EXPECT_EQ(cost.bytesWritten, (24 + 8) * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, RmsNormGradNoWeight) {
  // N = 12, R = 2.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<2x6xbf16>, %x: tensor<2x6xbf16>, %r: tensor<2xf32>) -> tensor<2x6xbf16> {
      %dx = ckpt.rms_norm_grad bwd %dy, %x, %r axis 1
          : (tensor<2x6xbf16>, tensor<2x6xbf16>, tensor<2xf32>) -> tensor<2x6xbf16>
      return %dx : tensor<2x6xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 6 * 12 + 2); // 6N + R
  EXPECT_EQ(cost.bytesRead, (12 + 12) * 2 + 2 * 4);
  EXPECT_EQ(cost.bytesWritten, 12 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, BatchNormWeightBias) {
  // [2,3,4,5]: N = 120, C = 3.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<2x3x4x5xbf16>, %w: tensor<3xbf16>, %b: tensor<3xbf16>) -> tensor<2x3x4x5xbf16> {
      %y, %mean, %rstd = ckpt.batch_norm fwd %x weight %w bias %b eps 1.000000e-05
          : (tensor<2x3x4x5xbf16>, tensor<3xbf16>, tensor<3xbf16>) -> (tensor<2x3x4x5xbf16>, tensor<3xf32>, tensor<3xf32>)
      return %y : tensor<2x3x4x5xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 5 * 120 + 4 * 3 + 120 + 120); // 5N + 4C + N(w) + N(b)
  EXPECT_EQ(cost.bytesRead, (120 + 3 + 3) * 2);
  EXPECT_EQ(cost.bytesWritten, 120 * 2 + 3 * 4 + 3 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, BatchNormNoParams) {
  // [4,3]: N = 12, C = 3.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x3xf16>) -> tensor<4x3xf16> {
      %y, %mean, %rstd = ckpt.batch_norm fwd %x eps 1.000000e-05
          : (tensor<4x3xf16>) -> (tensor<4x3xf16>, tensor<3xf32>, tensor<3xf32>)
      return %y : tensor<4x3xf16>
    })mlir");
  EXPECT_EQ(cost.flops, 5 * 12 + 4 * 3); // 5N + 4C
  EXPECT_EQ(cost.bytesRead, 12 * 2);
  EXPECT_EQ(cost.bytesWritten, 12 * 2 + 3 * 4 + 3 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, BatchNormGradNoParamGrads) {
  // [2,3,4,4]: N = 96, C = 3.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<2x3x4x4xf32>, %x: tensor<2x3x4x4xf32>, %m: tensor<3xf32>, %r: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
      %dx = ckpt.batch_norm_grad bwd %dy, %x, %m, %r
          : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
      return %dx : tensor<2x3x4x4xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 9 * 96 + 2 * 3); // 9N + 2C
  EXPECT_EQ(cost.bytesRead, (96 + 96 + 3 + 3) * 4);
  EXPECT_EQ(cost.bytesWritten, 96 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, BatchNormGradOneParamGrad) {
  // [2,5,3]: N = 30, C = 5.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<2x5x3xf32>, %x: tensor<2x5x3xf32>, %m: tensor<5xf32>, %r: tensor<5xf32>, %w: tensor<5xf32>) -> tensor<5xf32> {
      %dx, %dw = ckpt.batch_norm_grad bwd %dy, %x, %m, %r weight %w
          : (tensor<2x5x3xf32>, tensor<2x5x3xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x5x3xf32>, tensor<5xf32>)
      return %dw : tensor<5xf32>
    })mlir");
  EXPECT_EQ(cost.flops,
            9 * 30 + 2 * 5 + 30 + 2 * 30); // 9N + 2C + N(w) + 2N(dw)
  EXPECT_EQ(cost.bytesRead, (30 + 30 + 5 + 5 + 5) * 4);
  EXPECT_EQ(cost.bytesWritten, (30 + 5) * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, BatchNormGradTwoParamGrads) {
  // [2,5,3]: N = 30, C = 5.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<2x5x3xbf16>, %x: tensor<2x5x3xbf16>, %m: tensor<5xf32>, %r: tensor<5xf32>, %w: tensor<5xbf16>) -> tensor<5xbf16> {
      %dx, %dw, %db = ckpt.batch_norm_grad bwd %dy, %x, %m, %r weight %w
          : (tensor<2x5x3xbf16>, tensor<2x5x3xbf16>, tensor<5xf32>, tensor<5xf32>, tensor<5xbf16>) -> (tensor<2x5x3xbf16>, tensor<5xbf16>, tensor<5xbf16>)
      return %db : tensor<5xbf16>
    })mlir");
  // 9N + 2C + N(w) + 2N(dw) + N(db)
  EXPECT_EQ(cost.flops, 9 * 30 + 2 * 5 + 30 + 2 * 30 + 30);
  EXPECT_EQ(cost.bytesRead, (30 + 30) * 2 + (5 + 5) * 4 + 5 * 2);
  EXPECT_EQ(cost.bytesWritten, (30 + 5 + 5) * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

//===----------------------------------------------------------------------===//
// Dropout, embedding, loss
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, Dropout) {
  // N = 24.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x6xbf16>) -> tensor<4x6xi1> {
      %y, %mask = ckpt.dropout fwd %x p 1.000000e-01 seed 7 offset 0
          : tensor<4x6xbf16> -> (tensor<4x6xbf16>, tensor<4x6xi1>)
      return %mask : tensor<4x6xi1>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 24); // 2*N
  EXPECT_EQ(cost.bytesRead, 24 * 2);
  EXPECT_EQ(cost.bytesWritten, 24 * 2 + 24 * 1); // result + 1-byte mask
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, DropoutGrad) {
  // N = 15.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<3x5xf32>, %mask: tensor<3x5xi1>) -> tensor<3x5xf32> {
      %dx = ckpt.dropout_grad bwd %dy, %mask p 1.000000e-01 : tensor<3x5xf32>, tensor<3x5xi1>
      return %dx : tensor<3x5xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 15);              // 2*N
  EXPECT_EQ(cost.bytesRead, 15 * 4 + 15 * 1); // dy + 1-byte mask
  EXPECT_EQ(cost.bytesWritten, 15 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Embedding) {
  // 2*3 = 6 gathered rows of D = 8 from a 100-row table.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%t: tensor<100x8xf32>, %ids: tensor<2x3xi64>) -> tensor<2x3x8xf32> {
      %e = ckpt.embedding fwd %t, %ids : (tensor<100x8xf32>, tensor<2x3xi64>) -> tensor<2x3x8xf32>
      return %e : tensor<2x3x8xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 6 * 8 + 6 * 8 * 4); // indices + gathered rows only
  EXPECT_EQ(cost.bytesWritten, 6 * 8 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, EmbeddingI32Bf16) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%t: tensor<50x4xbf16>, %ids: tensor<5xi32>) -> tensor<5x4xbf16> {
      %e = ckpt.embedding fwd %t, %ids : (tensor<50x4xbf16>, tensor<5xi32>) -> tensor<5x4xbf16>
      return %e : tensor<5x4xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 5 * 4 + 5 * 4 * 2); // i32 indices + 5 bf16 rows
  EXPECT_EQ(cost.bytesWritten, 5 * 4 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, EmbeddingGrad) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<2x3x8xf32>, %ids: tensor<2x3xi64>) -> tensor<100x8xf32> {
      %dt = ckpt.embedding_grad bwd %dy, %ids : (tensor<2x3x8xf32>, tensor<2x3xi64>) -> tensor<100x8xf32>
      return %dt : tensor<100x8xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 3 * 8);                 // 1 per grad element
  EXPECT_EQ(cost.bytesRead, 2 * 3 * 8 * 4 + 6 * 8); // grad + indices
  EXPECT_EQ(cost.bytesWritten, 100 * 8 * 4);        // whole table gradient
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, EmbeddingGradPaddingIndex) {
  // padding_idx does not change the cost: which rows it drops is data.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<2x3x8xf32>, %ids: tensor<2x3xi32>) -> tensor<100x8xf32> {
      %dt = ckpt.embedding_grad bwd %dy, %ids {padding_idx = 0 : i64} : (tensor<2x3x8xf32>, tensor<2x3xi32>) -> tensor<100x8xf32>
      return %dt : tensor<100x8xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 3 * 8);
  EXPECT_EQ(cost.bytesRead, 2 * 3 * 8 * 4 + 6 * 4); // grad + i32 indices
  EXPECT_EQ(cost.bytesWritten, 100 * 8 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, CrossEntropyMean) {
  // N = 40 logits in R = 4 rows.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%l: tensor<4x10xf32>, %t: tensor<4xi64>) -> tensor<f32> {
      %loss, %lse = ckpt.cross_entropy fwd mean %l, %t
          : (tensor<4x10xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<4xf32>)
      return %loss : tensor<f32>
    })mlir");
  EXPECT_EQ(cost.flops, 4 * 40 + 3 * 4 + (4 + 1)); // 4N + 3R + (R+1)
  EXPECT_EQ(cost.bytesRead, 40 * 4 + 4 * 8);
  EXPECT_EQ(cost.bytesWritten, 1 * 4 + 4 * 4); // scalar loss + lse
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, CrossEntropySum) {
  // N = 30 logits in R = 6 rows.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%l: tensor<2x3x5xbf16>, %t: tensor<2x3xi32>) -> tensor<bf16> {
      %loss, %lse = ckpt.cross_entropy fwd sum %l, %t
          : (tensor<2x3x5xbf16>, tensor<2x3xi32>) -> (tensor<bf16>, tensor<2x3xf32>)
      return %loss : tensor<bf16>
    })mlir");
  EXPECT_EQ(cost.flops, 4 * 30 + 3 * 6 + 6); // 4N + 3R + R
  EXPECT_EQ(cost.bytesRead, 30 * 2 + 6 * 4);
  EXPECT_EQ(cost.bytesWritten, 1 * 2 + 6 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, CrossEntropyNone) {
  // N = 21 logits in R = 3 rows.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%l: tensor<3x7xf32>, %t: tensor<3xi64>) -> tensor<3xf32> {
      %loss, %lse = ckpt.cross_entropy fwd none %l, %t
          : (tensor<3x7xf32>, tensor<3xi64>) -> (tensor<3xf32>, tensor<3xf32>)
      return %loss : tensor<3xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 4 * 21 + 3 * 3); // 4N + 3R
  EXPECT_EQ(cost.bytesRead, 21 * 4 + 3 * 8);
  EXPECT_EQ(cost.bytesWritten, 3 * 4 + 3 * 4); // per-row losses + lse
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, CrossEntropyGradMean) {
  // N = 40, R = 4.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%g: tensor<f32>, %l: tensor<4x10xf32>, %t: tensor<4xi64>, %lse: tensor<4xf32>) -> tensor<4x10xf32> {
      %dl = ckpt.cross_entropy_grad bwd mean %g, %l, %t, %lse
          : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x10xf32>
      return %dl : tensor<4x10xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 3 * 40 + 4); // 3N + R
  EXPECT_EQ(cost.bytesRead, 1 * 4 + 40 * 4 + 4 * 8 + 4 * 4);
  EXPECT_EQ(cost.bytesWritten, 40 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, CrossEntropyGradNone) {
  // N = 21, R = 3.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%g: tensor<3xbf16>, %l: tensor<3x7xbf16>, %t: tensor<3xi32>, %lse: tensor<3xf32>) -> tensor<3x7xbf16> {
      %dl = ckpt.cross_entropy_grad bwd none %g, %l, %t, %lse
          : (tensor<3xbf16>, tensor<3x7xbf16>, tensor<3xi32>, tensor<3xf32>) -> tensor<3x7xbf16>
      return %dl : tensor<3x7xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 3 * 21 + 3); // 3N + R
  EXPECT_EQ(cost.bytesRead, 3 * 2 + 21 * 2 + 3 * 4 + 3 * 4);
  EXPECT_EQ(cost.bytesWritten, 21 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, MseLoss) {
  // N = 4*10 = 40 f32 elements: subtract, square, add each (3N), plus one
  // division for mean; reads input and target, writes the 4-byte scalar.
  for (auto [reduction, flops] : {std::pair<const char *, int64_t>{"mean", 121},
                                  {"sum", 120}}) {
    auto [cost, view] = costOf(std::string(R"mlir(
      func.func @f(%x: tensor<4x10xf32>, %t: tensor<4x10xf32>) -> tensor<f32> {
        %l = ckpt.mse_loss fwd )mlir") + reduction + R"mlir( %x, %t
            : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<f32>
        return %l : tensor<f32>
      })mlir");
    EXPECT_EQ(cost.flops, flops) << reduction;
    EXPECT_EQ(cost.bytesRead, 2 * 40 * 4);
    EXPECT_EQ(cost.bytesWritten, 4);
    EXPECT_EQ(cost.workspaceBytes, 0);
    EXPECT_FALSE(view);
  }
}

TEST_F(OpCostTest, MseLossGrad) {
  // N = 40 bf16 elements: subtract and two products each (3N); reads the
  // scalar gradient, input and target, writes the input gradient.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%g: tensor<bf16>, %x: tensor<4x10xbf16>, %t: tensor<4x10xbf16>) -> tensor<4x10xbf16> {
      %dx = ckpt.mse_loss_grad bwd mean %g, %x, %t
          : (tensor<bf16>, tensor<4x10xbf16>, tensor<4x10xbf16>) -> tensor<4x10xbf16>
      return %dx : tensor<4x10xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 3 * 40);
  EXPECT_EQ(cost.bytesRead, 2 + 2 * 40 * 2);
  EXPECT_EQ(cost.bytesWritten, 40 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, ReduceSum) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x6x5xf32>) -> tensor<4x5xf32> {
      %s = ckpt.reduce_sum fwd %x axes [1] : tensor<4x6x5xf32> -> tensor<4x5xf32>
      return %s : tensor<4x5xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 4 * 6 * 5); // 1 per input element
  EXPECT_EQ(cost.bytesRead, 4 * 6 * 5 * 4);
  EXPECT_EQ(cost.bytesWritten, 4 * 5 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, ReduceMeanKeepDims) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x6x5xbf16>) -> tensor<1x6x1xbf16> {
      %s = ckpt.reduce_mean fwd %x axes [0, 2] keep_dims : tensor<4x6x5xbf16> -> tensor<1x6x1xbf16>
      return %s : tensor<1x6x1xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 4 * 6 * 5 + 6); // 1 per input + 1 per result element
  EXPECT_EQ(cost.bytesRead, 4 * 6 * 5 * 2);
  EXPECT_EQ(cost.bytesWritten, 6 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, ReduceMax) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<3x8xf16>) -> tensor<3xf16> {
      %s = ckpt.reduce_max fwd %x axes [1] : tensor<3x8xf16> -> tensor<3xf16>
      return %s : tensor<3xf16>
    })mlir");
  EXPECT_EQ(cost.flops, 3 * 8); // 1 per input element
  EXPECT_EQ(cost.bytesRead, 3 * 8 * 2);
  EXPECT_EQ(cost.bytesWritten, 3 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, ReshapeIsView) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x8xf32>) -> tensor<32xf32> {
      %y = ckpt.reshape fwd %x : tensor<4x8xf32> -> tensor<32xf32>
      return %y : tensor<32xf32>
    })mlir");
  EXPECT_EQ(cost, OpCost()); // views cost nothing
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 0);
  EXPECT_EQ(cost.bytesWritten, 0);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_TRUE(view);
}

TEST_F(OpCostTest, TransposeOfUnitDimIsView) {
  // [1,4,8] -> [4,1,8]: the non-unit dims 4, 8 keep their order.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<1x4x8xf32>) -> tensor<4x1x8xf32> {
      %y = ckpt.transpose fwd %x perm [1, 0, 2] : tensor<1x4x8xf32> -> tensor<4x1x8xf32>
      return %y : tensor<4x1x8xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 0);
  EXPECT_EQ(cost.bytesWritten, 0);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_TRUE(view);
}

TEST_F(OpCostTest, TransposeIdentityIsView) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<3x5xbf16>) -> tensor<3x5xbf16> {
      %y = ckpt.transpose fwd %x perm [0, 1] : tensor<3x5xbf16> -> tensor<3x5xbf16>
      return %y : tensor<3x5xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 0);
  EXPECT_EQ(cost.bytesWritten, 0);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_TRUE(view);
}

TEST_F(OpCostTest, TransposeCopy) {
  // Swapping the non-unit dims 4 and 16 changes the layout.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<2x4x16x8xf32>) -> tensor<2x16x4x8xf32> {
      %y = ckpt.transpose fwd %x perm [0, 2, 1, 3] : tensor<2x4x16x8xf32> -> tensor<2x16x4x8xf32>
      return %y : tensor<2x16x4x8xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 2 * 4 * 16 * 8 * 4); // every element once
  EXPECT_EQ(cost.bytesWritten, 2 * 4 * 16 * 8 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, TransposeCopyWithUnitDim) {
  // [1,4,3] -> [3,4,1]: the non-unit dims 4, 3 come out as 3, 4.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<1x4x3xf16>) -> tensor<3x4x1xf16> {
      %y = ckpt.transpose fwd %x perm [2, 1, 0] : tensor<1x4x3xf16> -> tensor<3x4x1xf16>
      return %y : tensor<3x4x1xf16>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 12 * 2);
  EXPECT_EQ(cost.bytesWritten, 12 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Broadcast) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<3x1xbf16>) -> tensor<2x3x5xbf16> {
      %y = ckpt.broadcast fwd %x : tensor<3x1xbf16> -> tensor<2x3x5xbf16>
      return %y : tensor<2x3x5xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 3 * 1 * 2);
  EXPECT_EQ(cost.bytesWritten, 2 * 3 * 5 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Slice) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x24xf32>) -> tensor<4x8xf32> {
      %y = ckpt.slice fwd %x starts [0, 8] steps [1, 1] : tensor<4x24xf32> -> tensor<4x8xf32>
      return %y : tensor<4x8xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 4 * 8 * 4); // only the selected elements
  EXPECT_EQ(cost.bytesWritten, 4 * 8 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, SliceStrided) {
  // Rows 1, 3, 5 and columns 0, 3, 6, 9.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<6x10xbf16>) -> tensor<3x4xbf16> {
      %y = ckpt.slice fwd %x starts [1, 0] steps [2, 3] : tensor<6x10xbf16> -> tensor<3x4xbf16>
      return %y : tensor<3x4xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 3 * 4 * 2);
  EXPECT_EQ(cost.bytesWritten, 3 * 4 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Concat) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x16xf32>) -> tensor<4x24xf32> {
      %y = ckpt.concat fwd %a, %b axis 1 : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x24xf32>
      return %y : tensor<4x24xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, (4 * 8 + 4 * 16) * 4);
  EXPECT_EQ(cost.bytesWritten, 4 * 24 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, ConcatThreeInputs) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%a: tensor<1x5xbf16>, %b: tensor<2x5xbf16>, %c: tensor<3x5xbf16>) -> tensor<6x5xbf16> {
      %y = ckpt.concat fwd %a, %b, %c axis 0 : (tensor<1x5xbf16>, tensor<2x5xbf16>, tensor<3x5xbf16>) -> tensor<6x5xbf16>
      return %y : tensor<6x5xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, (5 + 10 + 15) * 2);
  EXPECT_EQ(cost.bytesWritten, 6 * 5 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

//===----------------------------------------------------------------------===//
// Masks and position ids
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, IotaReadsNothing) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f() -> tensor<128xi64> {
      %y = ckpt.iota fwd start(0) step(1) : tensor<128xi64>
      return %y : tensor<128xi64>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 128); // a multiply and an add per element
  EXPECT_EQ(cost.bytesRead, 0);
  EXPECT_EQ(cost.bytesWritten, 128 * 8);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, CompareBroadcast) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%a: tensor<1x8xf16>, %b: tensor<6x1xf16>) -> tensor<6x8xi1> {
      %y = ckpt.compare fwd lt %a, %b : tensor<1x8xf16>, tensor<6x1xf16> -> tensor<6x8xi1>
      return %y : tensor<6x8xi1>
    })mlir");
  EXPECT_EQ(cost.flops, 6 * 8);              // one comparison per result
  EXPECT_EQ(cost.bytesRead, (8 + 6) * 2);    // each operand once
  EXPECT_EQ(cost.bytesWritten, 6 * 8 * 1);   // one byte per mask element
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, SelectWithScalar) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%m: tensor<1x4x4xi1>, %c: tensor<f32>, %x: tensor<3x4x4xf32>) -> tensor<3x4x4xf32> {
      %y = ckpt.select fwd %m, %c, %x : tensor<1x4x4xi1>, tensor<f32>, tensor<3x4x4xf32> -> tensor<3x4x4xf32>
      return %y : tensor<3x4x4xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 3 * 4 * 4);                    // one choice per result
  EXPECT_EQ(cost.bytesRead, 16 * 1 + 4 + 3 * 16 * 4);  // mask, scalar, x
  EXPECT_EQ(cost.bytesWritten, 3 * 16 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, LogicalOps) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%a: tensor<5x7xi1>, %b: tensor<7xi1>) -> tensor<5x7xi1> {
      %y = ckpt.logical_and fwd %a, %b : tensor<5x7xi1>, tensor<7xi1> -> tensor<5x7xi1>
      return %y : tensor<5x7xi1>
    })mlir");
  EXPECT_EQ(cost.flops, 5 * 7);
  EXPECT_EQ(cost.bytesRead, 5 * 7 + 7);
  EXPECT_EQ(cost.bytesWritten, 5 * 7);
  auto [notCost, notView] = costOf(R"mlir(
    func.func @f(%a: tensor<5x7xi1>) -> tensor<5x7xi1> {
      %y = ckpt.logical_not fwd %a : tensor<5x7xi1>
      return %y : tensor<5x7xi1>
    })mlir");
  EXPECT_EQ(notCost.flops, 5 * 7);
  EXPECT_EQ(notCost.bytesRead, 5 * 7);
  EXPECT_EQ(notCost.bytesWritten, 5 * 7);
  EXPECT_FALSE(view || notView);
}

TEST_F(OpCostTest, TriangleMovesData) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<2x8x8xbf16>) -> tensor<2x8x8xbf16> {
      %y = ckpt.triu fwd %x diagonal -1 : tensor<2x8x8xbf16>
      return %y : tensor<2x8x8xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 0); // data movement
  EXPECT_EQ(cost.bytesRead, 2 * 64 * 2);
  EXPECT_EQ(cost.bytesWritten, 2 * 64 * 2);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Pad) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x8xf32>) -> tensor<5x11xf32> {
      %y = ckpt.pad fwd %x low [1, 1] high [0, 2] value 0.0 : tensor<4x8xf32> -> tensor<5x11xf32>
      return %y : tensor<5x11xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 4 * 8 * 4);
  EXPECT_EQ(cost.bytesWritten, 5 * 11 * 4); // the pads are written too
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, GatherReadsOneElementPerResult) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x100xf16>, %i: tensor<4x3xi64>) -> tensor<4x3xf16> {
      %y = ckpt.gather fwd %x, %i dim 1 : tensor<4x100xf16>, tensor<4x3xi64> -> tensor<4x3xf16>
      return %y : tensor<4x3xf16>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  // The whole index (12 x 8 bytes) and 12 input elements, not the input.
  EXPECT_EQ(cost.bytesRead, 12 * 8 + 12 * 2);
  EXPECT_EQ(cost.bytesWritten, 12 * 2);
  EXPECT_FALSE(view);
}

//===----------------------------------------------------------------------===//
// Fused attention
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, AttentionNonCausal) {
  // B=2, H=3, S=5, Skv=7, D=8, Dv=4; P = S*Skv = 35.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%q: tensor<2x3x5x8xf32>, %k: tensor<2x3x7x8xf32>, %v: tensor<2x3x7x4xf32>) -> tensor<2x3x5x4xf32> {
      %o, %lse = ckpt.attention fwd %q, %k, %v {scale = 0.125 : f64}
          : (tensor<2x3x5x8xf32>, tensor<2x3x7x8xf32>, tensor<2x3x7x4xf32>) -> (tensor<2x3x5x4xf32>, tensor<2x3x5xf32>)
      return %o : tensor<2x3x5x4xf32>
    })mlir");
  // B*H*(2*P*D + 2*P*Dv + 5*P + S*Dv)
  EXPECT_EQ(cost.flops, 2 * 3 * (2 * 35 * 8 + 2 * 35 * 4 + 5 * 35 + 5 * 4));
  EXPECT_EQ(cost.bytesRead,
            (2 * 3 * 5 * 8 + 2 * 3 * 7 * 8 + 2 * 3 * 7 * 4) * 4);
  EXPECT_EQ(cost.bytesWritten, 2 * 3 * 5 * 4 * 4 + 2 * 3 * 5 * 4); // out + lse
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, AttentionCausalSquare) {
  // B=1, H=2, S=Skv=6, D=Dv=4; P = 1+2+...+6 = 21.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%q: tensor<1x2x6x4xbf16>, %k: tensor<1x2x6x4xbf16>, %v: tensor<1x2x6x4xbf16>) -> tensor<1x2x6x4xbf16> {
      %o, %lse = ckpt.attention fwd %q, %k, %v {causal, scale = 0.5 : f64}
          : (tensor<1x2x6x4xbf16>, tensor<1x2x6x4xbf16>, tensor<1x2x6x4xbf16>) -> (tensor<1x2x6x4xbf16>, tensor<1x2x6xf32>)
      return %o : tensor<1x2x6x4xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 1 * 2 * (2 * 21 * 4 + 2 * 21 * 4 + 5 * 21 + 6 * 4));
  EXPECT_EQ(cost.bytesRead, 3 * (1 * 2 * 6 * 4) * 2);
  EXPECT_EQ(cost.bytesWritten, 1 * 2 * 6 * 4 * 2 + 1 * 2 * 6 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, AttentionCausalMoreQueriesThanKeys) {
  // S=6, Skv=4: P = min(1,4)+min(2,4)+...+min(6,4) = 1+2+3+4+4+4 = 18.
  // B=1, H=1, D=2, Dv=3.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%q: tensor<1x1x6x2xf32>, %k: tensor<1x1x4x2xf32>, %v: tensor<1x1x4x3xf32>) -> tensor<1x1x6x3xf32> {
      %o, %lse = ckpt.attention fwd %q, %k, %v {causal, scale = 1.0 : f64}
          : (tensor<1x1x6x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x3xf32>) -> (tensor<1x1x6x3xf32>, tensor<1x1x6xf32>)
      return %o : tensor<1x1x6x3xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 1 * 1 * (2 * 18 * 2 + 2 * 18 * 3 + 5 * 18 + 6 * 3));
  EXPECT_EQ(cost.bytesRead, (6 * 2 + 4 * 2 + 4 * 3) * 4);
  EXPECT_EQ(cost.bytesWritten, 6 * 3 * 4 + 6 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, AttentionCausalFewerQueriesThanKeys) {
  // S=3, Skv=5, top-left aligned: P = 1+2+3 = 6. B=2, H=1, D=Dv=4.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%q: tensor<2x1x3x4xf32>, %k: tensor<2x1x5x4xf32>, %v: tensor<2x1x5x4xf32>) -> tensor<2x1x3x4xf32> {
      %o, %lse = ckpt.attention fwd %q, %k, %v {causal, scale = 0.5 : f64}
          : (tensor<2x1x3x4xf32>, tensor<2x1x5x4xf32>, tensor<2x1x5x4xf32>) -> (tensor<2x1x3x4xf32>, tensor<2x1x3xf32>)
      return %o : tensor<2x1x3x4xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 1 * (2 * 6 * 4 + 2 * 6 * 4 + 5 * 6 + 3 * 4));
  EXPECT_EQ(cost.bytesRead, (2 * 3 * 4 + 2 * 5 * 4 + 2 * 5 * 4) * 4);
  EXPECT_EQ(cost.bytesWritten, 2 * 3 * 4 * 4 + 2 * 3 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, AttentionGroupedQuery) {
  // B=2, H=4 query heads, Hkv=2, S=3, Skv=5, D=Dv=8; P = 15.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%q: tensor<2x4x3x8xf16>, %k: tensor<2x2x5x8xf16>, %v: tensor<2x2x5x8xf16>) -> tensor<2x4x3x8xf16> {
      %o, %lse = ckpt.attention fwd %q, %k, %v {scale = 0.25 : f64}
          : (tensor<2x4x3x8xf16>, tensor<2x2x5x8xf16>, tensor<2x2x5x8xf16>) -> (tensor<2x4x3x8xf16>, tensor<2x4x3xf32>)
      return %o : tensor<2x4x3x8xf16>
    })mlir");
  // H counts query heads.
  EXPECT_EQ(cost.flops, 2 * 4 * (2 * 15 * 8 + 2 * 15 * 8 + 5 * 15 + 3 * 8));
  EXPECT_EQ(cost.bytesRead,
            (2 * 4 * 3 * 8 + 2 * 2 * 5 * 8 + 2 * 2 * 5 * 8) * 2);
  EXPECT_EQ(cost.bytesWritten, 2 * 4 * 3 * 8 * 2 + 2 * 4 * 3 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, AttentionDropout) {
  // B=1, H=2, S=Skv=4, D=Dv=2, non-causal: P = 16.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%q: tensor<1x2x4x2xf32>, %k: tensor<1x2x4x2xf32>, %v: tensor<1x2x4x2xf32>) -> tensor<1x2x4x2xf32> {
      %o, %lse = ckpt.attention fwd %q, %k, %v {dropout_p = 0.1 : f64, scale = 0.5 : f64, seed = 3 : i64}
          : (tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>) -> (tensor<1x2x4x2xf32>, tensor<1x2x4xf32>)
      return %o : tensor<1x2x4x2xf32>
    })mlir");
  // B*H*(2PD + 2PDv + 5P + S*Dv) + 2*B*H*P
  EXPECT_EQ(cost.flops, 1 * 2 * (2 * 16 * 2 + 2 * 16 * 2 + 5 * 16 + 4 * 2) +
                            2 * 1 * 2 * 16);
  EXPECT_EQ(cost.bytesRead, 3 * (1 * 2 * 4 * 2) * 4);
  EXPECT_EQ(cost.bytesWritten, 1 * 2 * 4 * 2 * 4 + 1 * 2 * 4 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, AttentionCausalBiasMask) {
  // B=1, H=2, S=Skv=4, D=Dv=2, causal: P = 1+2+3+4 = 10. A [4, 4] f32 bias:
  // one add per scored pair (the causal P, whatever the bias holds) and its
  // 64 bytes read.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%q: tensor<1x2x4x2xf32>, %k: tensor<1x2x4x2xf32>, %v: tensor<1x2x4x2xf32>, %m: tensor<4x4xf32>) -> tensor<1x2x4x2xf32> {
      %o, %lse = ckpt.attention fwd %q, %k, %v, %m {causal, scale = 0.5 : f64}
          : (tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>, tensor<1x2x4x2xf32>, tensor<4x4xf32>) -> (tensor<1x2x4x2xf32>, tensor<1x2x4xf32>)
      return %o : tensor<1x2x4x2xf32>
    })mlir");
  // B*H*(2PD + 2PDv + 5P + S*Dv) + B*H*P
  EXPECT_EQ(cost.flops,
            1 * 2 * (2 * 10 * 2 + 2 * 10 * 2 + 5 * 10 + 4 * 2) + 1 * 2 * 10);
  EXPECT_EQ(cost.bytesRead, 3 * (1 * 2 * 4 * 2) * 4 + 4 * 4 * 4);
  EXPECT_EQ(cost.bytesWritten, 1 * 2 * 4 * 2 * 4 + 1 * 2 * 4 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, AttentionGradKeepMask) {
  // B=2, H=1, S=3, Skv=5, D=4, Dv=2, non-causal: P = 15. An i1 keep-mask
  // [2, 1, 1, 5] (10 bytes): one select per scored pair.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%do: tensor<2x1x3x2xf32>, %q: tensor<2x1x3x4xf32>, %k: tensor<2x1x5x4xf32>, %v: tensor<2x1x5x2xf32>, %o: tensor<2x1x3x2xf32>, %lse: tensor<2x1x3xf32>, %m: tensor<2x1x1x5xi1>) -> tensor<2x1x3x4xf32> {
      %dq, %dk, %dv = ckpt.attention_grad bwd %do, %q, %k, %v, %o, %lse, %m {scale = 0.5 : f64}
          : (tensor<2x1x3x2xf32>, tensor<2x1x3x4xf32>, tensor<2x1x5x4xf32>, tensor<2x1x5x2xf32>, tensor<2x1x3x2xf32>, tensor<2x1x3xf32>, tensor<2x1x1x5xi1>)
            -> (tensor<2x1x3x4xf32>, tensor<2x1x5x4xf32>, tensor<2x1x5x2xf32>)
      return %dq : tensor<2x1x3x4xf32>
    })mlir");
  // B*H*(6*P*D + 4*P*Dv + 6*P + 2*S*Dv) + B*H*P
  EXPECT_EQ(cost.flops, 2 * 1 * (6 * 15 * 4 + 4 * 15 * 2 + 6 * 15 + 2 * 3 * 2) +
                            2 * 1 * 15);
  // dout, q, k, v, out (f32), lse, mask
  EXPECT_EQ(cost.bytesRead, (6 + 12 + 20 + 10 + 6) * 2 * 4 + 2 * 3 * 4 + 2 * 5);
  EXPECT_EQ(cost.bytesWritten, (12 + 20 + 10) * 2 * 4); // dq, dk, dv
  EXPECT_EQ(cost.workspaceBytes, 4 * 2 * 1 * 3);        // 4*B*H*S
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, AttentionGradCausalGroupedQuery) {
  // B=2, H=2, Hkv=1, S=Skv=4, D=3, Dv=2, causal: P = 1+2+3+4 = 10.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%do: tensor<2x2x4x2xf32>, %q: tensor<2x2x4x3xf32>, %k: tensor<2x1x4x3xf32>, %v: tensor<2x1x4x2xf32>, %o: tensor<2x2x4x2xf32>, %lse: tensor<2x2x4xf32>) -> tensor<2x2x4x3xf32> {
      %dq, %dk, %dv = ckpt.attention_grad bwd %do, %q, %k, %v, %o, %lse {causal, scale = 0.5 : f64}
          : (tensor<2x2x4x2xf32>, tensor<2x2x4x3xf32>, tensor<2x1x4x3xf32>, tensor<2x1x4x2xf32>, tensor<2x2x4x2xf32>, tensor<2x2x4xf32>)
            -> (tensor<2x2x4x3xf32>, tensor<2x1x4x3xf32>, tensor<2x1x4x2xf32>)
      return %dq : tensor<2x2x4x3xf32>
    })mlir");
  // B*H*(6*P*D + 4*P*Dv + 6*P + 2*S*Dv)
  EXPECT_EQ(cost.flops, 2 * 2 * (6 * 10 * 3 + 4 * 10 * 2 + 6 * 10 + 2 * 4 * 2));
  // dout, q, k, v, out, lse
  EXPECT_EQ(cost.bytesRead, (16 + 24 + 12 + 8 + 16) * 2 * 4 + 2 * 2 * 4 * 4);
  EXPECT_EQ(cost.bytesWritten, (24 + 12 + 8) * 2 * 4); // dq, dk, dv
  EXPECT_EQ(cost.workspaceBytes, 4 * 2 * 2 * 4);       // 4*B*H*S
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, AttentionGradDropout) {
  // B=1, H=1, S=3, Skv=5, D=4, Dv=2, non-causal with dropout: P = 15.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%do: tensor<1x1x3x2xbf16>, %q: tensor<1x1x3x4xbf16>, %k: tensor<1x1x5x4xbf16>, %v: tensor<1x1x5x2xbf16>, %o: tensor<1x1x3x2xbf16>, %lse: tensor<1x1x3xf32>) -> tensor<1x1x3x4xbf16> {
      %dq, %dk, %dv = ckpt.attention_grad bwd %do, %q, %k, %v, %o, %lse {dropout_p = 0.2 : f64, scale = 0.5 : f64}
          : (tensor<1x1x3x2xbf16>, tensor<1x1x3x4xbf16>, tensor<1x1x5x4xbf16>, tensor<1x1x5x2xbf16>, tensor<1x1x3x2xbf16>, tensor<1x1x3xf32>)
            -> (tensor<1x1x3x4xbf16>, tensor<1x1x5x4xbf16>, tensor<1x1x5x2xbf16>)
      return %dq : tensor<1x1x3x4xbf16>
    })mlir");
  // B*H*(6PD + 4PDv + 6P + 2*S*Dv) + 2*B*H*P
  EXPECT_EQ(cost.flops,
            1 * 1 * (6 * 15 * 4 + 4 * 15 * 2 + 6 * 15 + 2 * 3 * 2) + 2 * 15);
  EXPECT_EQ(cost.bytesRead, (6 + 12 + 20 + 10 + 6) * 2 + 3 * 4);
  EXPECT_EQ(cost.bytesWritten, (12 + 20 + 10) * 2);
  EXPECT_EQ(cost.workspaceBytes, 4 * 1 * 1 * 3); // 4*B*H*S
  EXPECT_FALSE(view);
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, Conv2d3x3WithBias) {
  // N=2, C=3, O=4, 8x8 -> 8x8 (pad 1), 3x3 kernel.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<2x4x8x8xf32> {
      %y = ckpt.conv2d fwd %x, %w, %b {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>}
          : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
      return %y : tensor<2x4x8x8xf32>
    })mlir");
  // 2*N*O*Ho*Wo*(C/g)*kh*kw + N*O*Ho*Wo
  EXPECT_EQ(cost.flops, 2 * 2 * 4 * 8 * 8 * 3 * 3 * 3 + 2 * 4 * 8 * 8);
  EXPECT_EQ(cost.bytesRead, (2 * 3 * 8 * 8 + 4 * 3 * 3 * 3 + 4) * 4);
  EXPECT_EQ(cost.bytesWritten, 2 * 4 * 8 * 8 * 4);
  EXPECT_EQ(cost.workspaceBytes, 3 * 3 * 3 * 8 * 8 * 4); // C*kh*kw*Ho*Wo f32
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Conv2dStridedDilatedWithBias) {
  // x [2,3,9,8], w [4,3,3,2], stride (2,1), pad (1,0), dilation (1,2):
  // Ho = (9 + 2 - 1*2 - 1)/2 + 1 = 5, Wo = (8 + 0 - 2*1 - 1)/1 + 1 = 6.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<2x3x9x8xbf16>, %w: tensor<4x3x3x2xbf16>, %b: tensor<4xbf16>) -> tensor<2x4x5x6xbf16> {
      %y = ckpt.conv2d fwd %x, %w, %b {dilation = array<i64: 1, 2>, padding = array<i64: 1, 0>, strides = array<i64: 2, 1>}
          : (tensor<2x3x9x8xbf16>, tensor<4x3x3x2xbf16>, tensor<4xbf16>) -> tensor<2x4x5x6xbf16>
      return %y : tensor<2x4x5x6xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 2 * 4 * 5 * 6 * 3 * 3 * 2 + 2 * 4 * 5 * 6);
  EXPECT_EQ(cost.bytesRead, (2 * 3 * 9 * 8 + 4 * 3 * 3 * 2 + 4) * 2);
  EXPECT_EQ(cost.bytesWritten, 2 * 4 * 5 * 6 * 2);
  EXPECT_EQ(cost.workspaceBytes, 3 * 3 * 2 * 5 * 6 * 2); // C*kh*kw*Ho*Wo bf16
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Conv2dPointwiseNoWorkspace) {
  // 1x1 kernel, stride 1, no padding: no im2col buffer.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<2x6x5x4xf32>, %w: tensor<8x6x1x1xf32>) -> tensor<2x8x5x4xf32> {
      %y = ckpt.conv2d fwd %x, %w {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>}
          : (tensor<2x6x5x4xf32>, tensor<8x6x1x1xf32>) -> tensor<2x8x5x4xf32>
      return %y : tensor<2x8x5x4xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 2 * 8 * 5 * 4 * 6 * 1 * 1);
  EXPECT_EQ(cost.bytesRead, (2 * 6 * 5 * 4 + 8 * 6) * 4);
  EXPECT_EQ(cost.bytesWritten, 2 * 8 * 5 * 4 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Conv2dPointwiseStridedHasWorkspace) {
  // 1x1 kernel with stride 2: Ho = Wo = (6 - 1)/2 + 1 = 3; needs im2col.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<1x4x6x6xf32>, %w: tensor<2x4x1x1xf32>) -> tensor<1x2x3x3xf32> {
      %y = ckpt.conv2d fwd %x, %w {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>}
          : (tensor<1x4x6x6xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x3x3xf32>
      return %y : tensor<1x2x3x3xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 1 * 2 * 3 * 3 * 4 * 1 * 1);
  EXPECT_EQ(cost.bytesRead, (1 * 4 * 6 * 6 + 2 * 4) * 4);
  EXPECT_EQ(cost.bytesWritten, 1 * 2 * 3 * 3 * 4);
  EXPECT_EQ(cost.workspaceBytes, 4 * 1 * 1 * 3 * 3 * 4); // C*kh*kw*Ho*Wo f32
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Conv2dGroups) {
  // C=4, O=6, groups=2 (C/g = 2), 3x3, 5x5 -> 3x3.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<1x4x5x5xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32> {
      %y = ckpt.conv2d fwd %x, %w {dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>}
          : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>
      return %y : tensor<1x6x3x3xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 1 * 6 * 3 * 3 * (4 / 2) * 3 * 3);
  EXPECT_EQ(cost.bytesRead, (1 * 4 * 5 * 5 + 6 * 2 * 3 * 3) * 4);
  EXPECT_EQ(cost.bytesWritten, 1 * 6 * 3 * 3 * 4);
  EXPECT_EQ(cost.workspaceBytes, 4 * 3 * 3 * 3 * 3 * 4); // C*kh*kw*Ho*Wo f32
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Conv2dGradInput) {
  // Mirrors Conv2dStridedDilatedWithBias: input [2,3,9,8], output [2,4,5,6].
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<2x4x5x6xbf16>, %w: tensor<4x3x3x2xbf16>) -> tensor<2x3x9x8xbf16> {
      %dx = ckpt.conv2d_grad_input bwd %dy, %w {dilation = array<i64: 1, 2>, padding = array<i64: 1, 0>, strides = array<i64: 2, 1>}
          : (tensor<2x4x5x6xbf16>, tensor<4x3x3x2xbf16>) -> tensor<2x3x9x8xbf16>
      return %dx : tensor<2x3x9x8xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 2 * 4 * 5 * 6 * 3 * 3 * 2); // forward, no bias
  EXPECT_EQ(cost.bytesRead, (2 * 4 * 5 * 6 + 4 * 3 * 3 * 2) * 2);
  EXPECT_EQ(cost.bytesWritten, 2 * 3 * 9 * 8 * 2);
  EXPECT_EQ(cost.workspaceBytes, 3 * 3 * 2 * 5 * 6 * 2);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Conv2dGradWeight) {
  // Mirrors Conv2d3x3WithBias: input [2,3,8,8], weight [4,3,3,3].
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<2x4x8x8xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
      %dw = ckpt.conv2d_grad_weight bwd %dy, %x {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>}
          : (tensor<2x4x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32>
      return %dw : tensor<4x3x3x3xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 2 * 4 * 8 * 8 * 3 * 3 * 3); // forward, no bias
  EXPECT_EQ(cost.bytesRead, (2 * 4 * 8 * 8 + 2 * 3 * 8 * 8) * 4);
  EXPECT_EQ(cost.bytesWritten, 4 * 3 * 3 * 3 * 4);
  EXPECT_EQ(cost.workspaceBytes, 3 * 3 * 3 * 8 * 8 * 4);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, Conv2dGradWeightGroups) {
  // Mirrors Conv2dGroups in f16.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<1x6x3x3xf16>, %x: tensor<1x4x5x5xf16>) -> tensor<6x2x3x3xf16> {
      %dw = ckpt.conv2d_grad_weight bwd %dy, %x {dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>}
          : (tensor<1x6x3x3xf16>, tensor<1x4x5x5xf16>) -> tensor<6x2x3x3xf16>
      return %dw : tensor<6x2x3x3xf16>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 1 * 6 * 3 * 3 * (4 / 2) * 3 * 3);
  EXPECT_EQ(cost.bytesRead, (1 * 6 * 3 * 3 + 1 * 4 * 5 * 5) * 2);
  EXPECT_EQ(cost.bytesWritten, 6 * 2 * 3 * 3 * 2);
  EXPECT_EQ(cost.workspaceBytes, 4 * 3 * 3 * 3 * 3 * 2);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, MaxPool2d) {
  // [2,3,8,6], kernel 2x3, stride 2x3: Ho = 4, Wo = 2 -> 48 outputs.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<2x3x8x6xf32>) -> tensor<2x3x4x2xi64> {
      %y, %idx = ckpt.max_pool2d fwd %x {kernel = array<i64: 2, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 3>}
          : (tensor<2x3x8x6xf32>) -> (tensor<2x3x4x2xf32>, tensor<2x3x4x2xi64>)
      return %idx : tensor<2x3x4x2xi64>
    })mlir");
  EXPECT_EQ(cost.flops, 48 * 2 * 3); // kh*kw per output element
  EXPECT_EQ(cost.bytesRead, 2 * 3 * 8 * 6 * 4);
  EXPECT_EQ(cost.bytesWritten, 48 * 4 + 48 * 8); // values + i64 indices
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, MaxPool2dPadded) {
  // [1,2,5,5], kernel 3x3, stride 2, pad 1: Ho = Wo = (5+2-3)/2+1 = 3.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<1x2x5x5xbf16>) -> tensor<1x2x3x3xbf16> {
      %y, %idx = ckpt.max_pool2d fwd %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>}
          : (tensor<1x2x5x5xbf16>) -> (tensor<1x2x3x3xbf16>, tensor<1x2x3x3xi64>)
      return %y : tensor<1x2x3x3xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 18 * 3 * 3);
  EXPECT_EQ(cost.bytesRead, 1 * 2 * 5 * 5 * 2);
  EXPECT_EQ(cost.bytesWritten, 18 * 2 + 18 * 8);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, MaxPool2dGrad) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<2x3x4x2xf32>, %idx: tensor<2x3x4x2xi64>) -> tensor<2x3x8x6xf32> {
      %dx = ckpt.max_pool2d_grad bwd %dy, %idx {kernel = array<i64: 2, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 3>}
          : (tensor<2x3x4x2xf32>, tensor<2x3x4x2xi64>) -> tensor<2x3x8x6xf32>
      return %dx : tensor<2x3x8x6xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 48); // 1 per output (gradient) element
  EXPECT_EQ(cost.bytesRead, 48 * 4 + 48 * 8);
  EXPECT_EQ(cost.bytesWritten, 2 * 3 * 8 * 6 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, AvgPool2d) {
  // 48 outputs of a 2x3 window.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<2x3x8x6xbf16>) -> tensor<2x3x4x2xbf16> {
      %y = ckpt.avg_pool2d fwd %x {count_include_pad, kernel = array<i64: 2, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 3>}
          : (tensor<2x3x8x6xbf16>) -> tensor<2x3x4x2xbf16>
      return %y : tensor<2x3x4x2xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 48 * (2 * 3 + 1)); // kh*kw + 1 per output element
  EXPECT_EQ(cost.bytesRead, 2 * 3 * 8 * 6 * 2);
  EXPECT_EQ(cost.bytesWritten, 48 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, AvgPool2dGrad) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<2x3x4x2xf32>) -> tensor<2x3x8x6xf32> {
      %dx = ckpt.avg_pool2d_grad bwd %dy {kernel = array<i64: 2, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 3>}
          : (tensor<2x3x4x2xf32>) -> tensor<2x3x8x6xf32>
      return %dx : tensor<2x3x8x6xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 48 * (2 * 3 + 1)); // kh*kw + 1 per output element
  EXPECT_EQ(cost.bytesRead, 48 * 4);
  EXPECT_EQ(cost.bytesWritten, 2 * 3 * 8 * 6 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

//===----------------------------------------------------------------------===//
// Optimizer updates and opaque ops
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, SgdUpdate) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%p: tensor<5x3xbf16>, %g: tensor<5x3xbf16>) -> tensor<5x3xbf16> {
      %p2 = ckpt.sgd_update opt %p, %g lr 1.000000e-02 : tensor<5x3xbf16>
      return %p2 : tensor<5x3xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 2 * 15);            // 2*N
  EXPECT_EQ(cost.bytesRead, (15 + 15) * 2); // param + grad
  EXPECT_EQ(cost.bytesWritten, 15 * 2);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, AdamwUpdate) {
  // N = 12; bf16 param/grad, f32 moments.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%p: tensor<3x4xbf16>, %g: tensor<3x4xbf16>, %m: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> tensor<3x4xbf16> {
      %p2, %m2, %v2 = ckpt.adamw_update opt %p, %g, %m, %v {beta1 = 0.9 : f64, beta2 = 0.999 : f64,
          eps = 1.0e-08 : f64, lr = 1.0e-03 : f64, step = 1 : i64, weight_decay = 0.01 : f64}
          : (tensor<3x4xbf16>, tensor<3x4xbf16>, tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<3x4xbf16>, tensor<3x4xf32>, tensor<3x4xf32>)
      return %p2 : tensor<3x4xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 16 * 12); // 16*N
  EXPECT_EQ(cost.bytesRead, 12 * 2 + 12 * 2 + 12 * 4 + 12 * 4);
  EXPECT_EQ(cost.bytesWritten, 12 * 2 + 12 * 4 + 12 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, OpaqueDefaults) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x8xf32>, %y: tensor<8xi32>) -> tensor<4x8xbf16> {
      %a, %b = ckpt.opaque fwd "my_fused_kernel"(%x, %y) {flops = 1024 : i64}
          : (tensor<4x8xf32>, tensor<8xi32>) -> (tensor<4x8xbf16>, tensor<3xi64>)
      return %a : tensor<4x8xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, 1024);
  EXPECT_EQ(cost.bytesRead, 4 * 8 * 4 + 8 * 4);    // operand sizes
  EXPECT_EQ(cost.bytesWritten, 4 * 8 * 2 + 3 * 8); // result sizes
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, OpaqueExplicitBytes) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %y = ckpt.opaque bwd "k"(%x) {bytes_read = 7 : i64, bytes_written = 11 : i64, flops = 5 : i64, workspace = 13 : i64}
          : (tensor<4x8xf32>) -> tensor<4x8xf32>
      return %y : tensor<4x8xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 5);
  EXPECT_EQ(cost.bytesRead, 7);
  EXPECT_EQ(cost.bytesWritten, 11);
  EXPECT_EQ(cost.workspaceBytes, 13);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, OpaquePartialExplicitBytes) {
  // Only bytes_written given; bytes_read keeps its default.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %y = ckpt.opaque opt "k"(%x) {bytes_written = 0 : i64, flops = 0 : i64}
          : (tensor<4x8xf32>) -> tensor<4x8xf32>
      return %y : tensor<4x8xf32>
    })mlir");
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytesRead, 4 * 8 * 4);
  EXPECT_EQ(cost.bytesWritten, 0);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

//===----------------------------------------------------------------------===//
// Saturation: the verifier bounds every tensor to 2^50 bytes, but FLOPs can
// still exceed INT64_MAX; they must saturate, never wrap.
//===----------------------------------------------------------------------===//

TEST_F(OpCostTest, HugeMatmulSaturatesFlops) {
  // 2^24 x 2^24 bf16 = 2^49 bytes per tensor; 2*M*N*K = 2^73 > INT64_MAX.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%a: tensor<16777216x16777216xbf16>, %b: tensor<16777216x16777216xbf16>) -> tensor<16777216x16777216xbf16> {
      %c = ckpt.matmul fwd %a, %b : tensor<16777216x16777216xbf16>, tensor<16777216x16777216xbf16> -> tensor<16777216x16777216xbf16>
      return %c : tensor<16777216x16777216xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, kMax);
  EXPECT_EQ(cost.bytesRead, int64_t(1) << 50); // 2 * 2^49, still exact
  EXPECT_EQ(cost.bytesWritten, int64_t(1) << 49);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, HugeLinearBiasSaturates) {
  // rows = 2^30, in = out = 2^18: 2*R*in*out = 2^67 saturates; adding the
  // bias term R*out must stay saturated.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<1073741824x262144xbf16>, %w: tensor<262144x262144xbf16>, %b: tensor<262144xbf16>) -> tensor<1073741824x262144xbf16> {
      %y = ckpt.linear fwd %x, %w, %b : (tensor<1073741824x262144xbf16>, tensor<262144x262144xbf16>, tensor<262144xbf16>) -> tensor<1073741824x262144xbf16>
      return %y : tensor<1073741824x262144xbf16>
    })mlir");
  EXPECT_EQ(cost.flops, kMax);
  // x: 2^48 elements (2^49 B), w: 2^36 elements (2^37 B), b: 2^18 (2^19 B).
  EXPECT_EQ(cost.bytesRead,
            (int64_t(1) << 49) + (int64_t(1) << 37) + (int64_t(1) << 19));
  EXPECT_EQ(cost.bytesWritten, int64_t(1) << 49);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, HugeCausalAttentionSaturates) {
  // S = Skv = 2^33, D = 1: P = S*(S+1)/2 ~ 2^65 and 5*P overflows.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%q: tensor<1x1x8589934592x1xf32>) -> tensor<1x1x8589934592x1xf32> {
      %o, %lse = ckpt.attention fwd %q, %q, %q {causal, scale = 1.0 : f64}
          : (tensor<1x1x8589934592x1xf32>, tensor<1x1x8589934592x1xf32>, tensor<1x1x8589934592x1xf32>) -> (tensor<1x1x8589934592x1xf32>, tensor<1x1x8589934592xf32>)
      return %o : tensor<1x1x8589934592x1xf32>
    })mlir");
  EXPECT_EQ(cost.flops, kMax);
  EXPECT_EQ(cost.bytesRead, 3 * (int64_t(1) << 35));
  EXPECT_EQ(cost.bytesWritten, 2 * (int64_t(1) << 35));
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, HugePoolingWindowSaturates) {
  // A 2^40 x 2^40 window with padding 2^39 over a 1x1 image is valid
  // (padding <= half the window): Ho = Wo = (1 + 2^40 - 2^40)/1 + 1 = 2.
  // kh*kw = 2^80 alone overflows.
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32> {
      %y = ckpt.avg_pool2d fwd %x {kernel = array<i64: 1099511627776, 1099511627776>, padding = array<i64: 549755813888, 549755813888>, strides = array<i64: 1, 1>}
          : (tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32>
      return %y : tensor<1x1x2x2xf32>
    })mlir");
  EXPECT_EQ(cost.flops, kMax); // 4 * (2^80 + 1)
  EXPECT_EQ(cost.bytesRead, 1 * 4);
  EXPECT_EQ(cost.bytesWritten, 4 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, HugePoolingWindowGradSaturates) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%dy: tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32> {
      %dx = ckpt.avg_pool2d_grad bwd %dy {kernel = array<i64: 1099511627776, 1099511627776>, padding = array<i64: 549755813888, 549755813888>, strides = array<i64: 1, 1>}
          : (tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32>
      return %dx : tensor<1x1x1x1xf32>
    })mlir");
  EXPECT_EQ(cost.flops, kMax);
  EXPECT_EQ(cost.bytesRead, 4 * 4);
  EXPECT_EQ(cost.bytesWritten, 1 * 4);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

TEST_F(OpCostTest, HugeMaxPoolWindowSaturates) {
  auto [cost, view] = costOf(R"mlir(
    func.func @f(%x: tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32> {
      %y, %idx = ckpt.max_pool2d fwd %x {kernel = array<i64: 1099511627776, 1099511627776>, padding = array<i64: 549755813888, 549755813888>, strides = array<i64: 1, 1>}
          : (tensor<1x1x1x1xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
      return %y : tensor<1x1x2x2xf32>
    })mlir");
  EXPECT_EQ(cost.flops, kMax);
  EXPECT_EQ(cost.bytesRead, 1 * 4);
  EXPECT_EQ(cost.bytesWritten, 4 * 4 + 4 * 8);
  EXPECT_EQ(cost.workspaceBytes, 0);
  EXPECT_FALSE(view);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

TEST(CostHelpersTest, MulSat) {
  EXPECT_EQ(mulSat(0, kMax), 0);
  EXPECT_EQ(mulSat(6, 7), 42);
  EXPECT_EQ(mulSat(int64_t(1) << 31, int64_t(1) << 31), int64_t(1) << 62);
  EXPECT_EQ(mulSat(int64_t(1) << 32, int64_t(1) << 31), kMax); // 2^63
  EXPECT_EQ(mulSat(kMax, 1), kMax);
  EXPECT_EQ(mulSat(kMax, 2), kMax);
  EXPECT_EQ(mulSat(kMax, kMax), kMax);
}

TEST(CostHelpersTest, AddSat) {
  EXPECT_EQ(addSat(0, 0), 0);
  EXPECT_EQ(addSat(40, 2), 42);
  EXPECT_EQ(addSat(kMax - 1, 1), kMax);
  EXPECT_EQ(addSat(kMax, 1), kMax);
  EXPECT_EQ(addSat(kMax, kMax), kMax);
  EXPECT_EQ(addSat(int64_t(1) << 62, int64_t(1) << 62), kMax); // 2^63
}

TEST(CostHelpersTest, GetElementBytes) {
  MLIRContext context;
  Builder b(&context);
  EXPECT_EQ(getElementBytes(b.getI1Type()), 1); // a boolean mask byte
  EXPECT_EQ(getElementBytes(b.getIntegerType(4)), 1);
  EXPECT_EQ(getElementBytes(b.getI8Type()), 1);
  EXPECT_EQ(getElementBytes(b.getBF16Type()), 2);
  EXPECT_EQ(getElementBytes(b.getF16Type()), 2);
  EXPECT_EQ(getElementBytes(b.getF32Type()), 4);
  EXPECT_EQ(getElementBytes(b.getI32Type()), 4);
  EXPECT_EQ(getElementBytes(b.getI64Type()), 8);
  EXPECT_EQ(getElementBytes(b.getF64Type()), 8);
}

TEST(CostHelpersTest, GetElementBytesNonScalar) {
  // Shape ops accept any element type; these have well-defined sizes.
  MLIRContext context;
  Builder b(&context);
  EXPECT_EQ(getElementBytes(b.getIndexType()), 8);
  EXPECT_EQ(getElementBytes(ComplexType::get(b.getF32Type())), 2 * 4);
  EXPECT_EQ(getElementBytes(ComplexType::get(b.getBF16Type())), 2 * 2);
  EXPECT_EQ(getElementBytes(VectorType::get({4}, b.getF32Type())), 4 * 4);
  EXPECT_EQ(getElementBytes(VectorType::get({2, 3}, b.getF16Type())),
            2 * 3 * 2);
}

TEST(CostHelpersTest, TensorSizes) {
  MLIRContext context;
  Builder b(&context);
  auto t = RankedTensorType::get({3, 5}, b.getBF16Type());
  EXPECT_EQ(getNumElements(t), 15);
  EXPECT_EQ(getTensorBytes(t), 15 * 2);
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  EXPECT_EQ(getNumElements(scalar), 1);
  EXPECT_EQ(getTensorBytes(scalar), 4);
  auto mask = RankedTensorType::get({7, 3}, b.getI1Type());
  EXPECT_EQ(getTensorBytes(mask), 21);
  auto empty = RankedTensorType::get({4, 0}, b.getF32Type());
  EXPECT_EQ(getTensorBytes(empty), 0);
  // 2^40 * 2^40 elements overflow: saturate.
  auto huge = RankedTensorType::get({int64_t(1) << 40, int64_t(1) << 40},
                                    b.getF32Type());
  EXPECT_EQ(getNumElements(huge), kMax);
  EXPECT_EQ(getTensorBytes(huge), kMax);
}

TEST(CostHelpersTest, BroadcastShapes) {
  using Shape = SmallVector<int64_t>;
  EXPECT_EQ(broadcastShapes({4, 8}, {8}), Shape({4, 8}));
  EXPECT_EQ(broadcastShapes({3, 1, 8}, {5, 1}), Shape({3, 5, 8}));
  EXPECT_EQ(broadcastShapes({1}, {2, 3}), Shape({2, 3}));
  EXPECT_EQ(broadcastShapes({2, 0}, {1}), Shape({2, 0}));
  EXPECT_EQ(broadcastShapes({}, {}), Shape());           // rank 0 with rank 0
  EXPECT_EQ(broadcastShapes({}, {4, 2}), Shape({4, 2})); // rank 0 broadcasts
  EXPECT_EQ(broadcastShapes({4, 2}, {}), Shape({4, 2}));
  EXPECT_EQ(broadcastShapes({4, 8}, {4}), std::nullopt);
  EXPECT_EQ(broadcastShapes({2, 3}, {3, 3}), std::nullopt);
  EXPECT_EQ(broadcastShapes({0}, {2}), std::nullopt);
}

TEST(CostHelpersTest, IsBroadcastableTo) {
  EXPECT_TRUE(isBroadcastableTo({8}, {4, 8}));
  EXPECT_TRUE(isBroadcastableTo({3, 1}, {2, 3, 5}));
  EXPECT_TRUE(isBroadcastableTo({}, {2, 3}));
  EXPECT_TRUE(isBroadcastableTo({2, 3}, {2, 3}));
  EXPECT_FALSE(isBroadcastableTo({4, 8}, {8}));    // would drop a dimension
  EXPECT_FALSE(isBroadcastableTo({2, 3}, {1, 3})); // 2 does not repeat to 1
  EXPECT_FALSE(isBroadcastableTo({4}, {4, 8}));
}

TEST(CostHelpersTest, WindowOutputSize) {
  // (size + 2*pad - dilation*(kernel-1) - 1) / stride + 1
  EXPECT_EQ(getWindowOutputSize(8, 3, 1, 1, 1), (8 + 2 - 2 - 1) / 1 + 1); // 8
  EXPECT_EQ(getWindowOutputSize(8, 3, 1, 0, 1), (8 - 2 - 1) / 1 + 1);     // 6
  EXPECT_EQ(getWindowOutputSize(9, 3, 2, 1, 1), (9 + 2 - 2 - 1) / 2 + 1); // 5
  EXPECT_EQ(getWindowOutputSize(8, 2, 1, 0, 2), (8 - 2 - 1) / 1 + 1);     // 6
  EXPECT_EQ(getWindowOutputSize(10, 3, 3, 2, 2),
            (10 + 4 - 2 * 2 - 1) / 3 + 1);          // 4
  EXPECT_EQ(getWindowOutputSize(5, 5, 1, 0, 1), 1); // window fits exactly
  // Too small: the (dilated) window does not fit in the padded input.
  EXPECT_LE(getWindowOutputSize(2, 3, 1, 0, 1), 0);
  EXPECT_LE(getWindowOutputSize(4, 3, 1, 0, 2), 0); // span 5 > 4
  EXPECT_EQ(getWindowOutputSize(4, 3, 1, 1, 2), (4 + 2 - 4 - 1) / 1 + 1);
  EXPECT_LE(getWindowOutputSize(0, 1, 1, 0, 1), 0);
}

} // namespace
