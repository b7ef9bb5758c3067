//===- CostModelTest.cpp - Hardware profiles and the roofline model -------===//

#include "ckpt/Analysis/CostModel.h"

#include "ParseHelper.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ckpt;

namespace {

TEST(HardwareProfile, BuiltinsMatchDatasheets) {
  std::optional<HardwareProfile> h100 = getBuiltinProfile("h100-sxm");
  ASSERT_TRUE(h100);
  // H100 SXM datasheet: BF16 tensor 1979 TFLOPS with sparsity = 989.4 dense.
  EXPECT_DOUBLE_EQ(h100->matmulFlops[size_t(RateClass::BF16)], 989.4e12);
  EXPECT_DOUBLE_EQ(h100->matmulFlops[size_t(RateClass::F32)], 67e12);
  EXPECT_DOUBLE_EQ(h100->memoryBandwidth, 3.35e12);
  std::optional<HardwareProfile> h200 = getBuiltinProfile("h200");
  ASSERT_TRUE(h200);
  EXPECT_DOUBLE_EQ(h200->memoryBandwidth, 4.8e12);
  EXPECT_EQ(h200->memoryCapacity, 141'000'000'000);
  std::optional<HardwareProfile> a100 = getBuiltinProfile("a100-80gb");
  ASSERT_TRUE(a100);
  EXPECT_DOUBLE_EQ(a100->matmulFlops[size_t(RateClass::F16)], 312e12);
  EXPECT_DOUBLE_EQ(a100->vectorFlops[size_t(RateClass::BF16)], 39e12);
  EXPECT_DOUBLE_EQ(a100->memoryBandwidth, 2.039e12);
  EXPECT_FALSE(getBuiltinProfile("h100"));
  EXPECT_EQ(getBuiltinProfileNames().size(), 3u);
}

TEST(HardwareProfile, ParsesUserProfile) {
  std::string error;
  FailureOr<HardwareProfile> p = parseHardwareProfile(R"json({
    "name": "l40s", "description": "test",
    "matmul_tflops": {"f32": 91.6, "f16": 362, "bf16": 362},
    "vector_tflops": {"f32": 91.6, "f16": 91.6, "bf16": 91.6},
    "memory_bandwidth_gbps": 864, "launch_overhead_us": 2.5, "memory_gib": 48
  })json",
                                                      error);
  ASSERT_TRUE(succeeded(p)) << error;
  EXPECT_EQ(p->name, "l40s");
  EXPECT_DOUBLE_EQ(p->matmulFlops[size_t(RateClass::F16)], 362e12);
  EXPECT_DOUBLE_EQ(p->vectorFlops[size_t(RateClass::F32)], 91.6e12);
  EXPECT_DOUBLE_EQ(p->memoryBandwidth, 864e9);
  EXPECT_DOUBLE_EQ(p->launchOverhead, 2.5e-6);
  EXPECT_EQ(p->memoryCapacity, int64_t(48) << 30);
}

TEST(HardwareProfile, RejectsBadProfiles) {
  struct Case {
    const char *json;
    const char *error;
  } cases[] = {
      {"{", "invalid JSON"},
      {"[]", "<root>: expected an object"},
      {R"({"name": "x", "speed": 1})", "speed: unknown field"},
      {R"({"vector_tflops": {}})", "name: missing or not a non-empty string"},
      {R"({"name": "x", "matmul_tflops": {"f32": 1, "f16": 1}})",
       "matmul_tflops.bf16: missing or not a number"},
      {R"({"name": "x", "matmul_tflops": {"f32": 1, "f16": 1, "bf16": 1},
           "vector_tflops": {"f32": 1, "f16": 1, "bf16": 1},
           "memory_bandwidth_gbps": -5, "memory_gib": 1})",
       "memory_bandwidth_gbps: must be positive"},
      {R"({"name": "x", "matmul_tflops": {"f32": 1, "f16": 1, "bf16": 1},
           "vector_tflops": {"f32": 1, "f16": 1, "bf16": 1},
           "memory_bandwidth_gbps": 5, "memory_gib": 1,
           "launch_overhead_us": -1})",
       "launch_overhead_us: must be a non-negative number"},
  };
  for (const Case &c : cases) {
    std::string error;
    EXPECT_TRUE(failed(parseHardwareProfile(c.json, error))) << c.json;
    EXPECT_NE(error.find(c.error), std::string::npos)
        << "got '" << error << "', want '" << c.error << "'";
  }
  std::string error;
  EXPECT_TRUE(failed(loadHardwareProfile("tpu-v9", error)));
  EXPECT_NE(error.find("unknown hardware profile 'tpu-v9'"), std::string::npos);
  EXPECT_TRUE(failed(loadHardwareProfile("/nonexistent/p.json", error)));
  EXPECT_NE(error.find("cannot read hardware profile"), std::string::npos);
}

class RooflineTest : public ::testing::Test, public test::IRFixture {};

TEST_F(RooflineTest, MatmulIsComputeBoundOnTheMatrixRate) {
  func::FuncOp func = parseFunc(R"mlir(
    func.func @f(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
      %c = ckpt.matmul fwd %a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
      return %c : tensor<4096x4096xbf16>
    })mlir");
  ASSERT_TRUE(func);
  RooflineCostModel model(*getBuiltinProfile("h100-sxm"));
  Operation *op = &func.getBody().front().front();
  // 2*4096^3 FLOPs at 989.4 TFLOP/s = 138.9 us; 3 * 32 MiB at 3.35 TB/s =
  // 30.0 us: compute-bound; plus 4 us launch.
  double flops = 2.0 * 4096 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(model.estimateSeconds(op), flops / 989.4e12 + 4e-6);
  EXPECT_TRUE(isMatrixOp(op));
  EXPECT_EQ(getRateClass(op), RateClass::BF16);
}

TEST_F(RooflineTest, ElementwiseIsMemoryBound) {
  func::FuncOp func = parseFunc(R"mlir(
    func.func @f(%a: tensor<1024x1024xf16>) -> tensor<1024x1024xf16> {
      %b = ckpt.gelu fwd tanh %a : tensor<1024x1024xf16>
      %c = ckpt.reshape fwd %b : tensor<1024x1024xf16> -> tensor<1048576xf16>
      %d = ckpt.reshape fwd %c : tensor<1048576xf16> -> tensor<1024x1024xf16>
      return %d : tensor<1024x1024xf16>
    })mlir");
  ASSERT_TRUE(func);
  RooflineCostModel model(*getBuiltinProfile("a100-80gb"));
  Block &body = func.getBody().front();
  Operation *gelu = &body.front();
  // 9 FLOPs * 2^20 at 78 TFLOP/s (A100 vector f16) = 0.12 us; 2 * 2 MiB at
  // 2039 GB/s = 2.06 us: memory-bound; plus 4 us launch.
  double bytes = 2.0 * 2 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(model.estimateSeconds(gelu), bytes / 2039e9 + 4e-6);
  EXPECT_FALSE(isMatrixOp(gelu));
  // A view moves nothing and launches nothing.
  EXPECT_EQ(model.estimateSeconds(gelu->getNextNode()), 0.0);
}

} // namespace
