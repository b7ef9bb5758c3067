//===- CostModel.cpp - Estimated execution time of ckpt ops ---------------===//

#include "ckpt/Analysis/CostModel.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::ckpt;

CostModel::~CostModel() = default;

//===----------------------------------------------------------------------===//
// Built-in profiles (figures and sources in docs/cost-model.md)
//===----------------------------------------------------------------------===//

static constexpr double kTera = 1e12;
static constexpr double kGiga = 1e9;
static constexpr int64_t kGB = 1000 * 1000 * 1000;

/// Kernel launch overhead assumed for every built-in profile.
static constexpr double kLaunchOverhead = 4e-6;

static HardwareProfile makeH100Sxm() {
  HardwareProfile p;
  p.name = "h100-sxm";
  p.description = "NVIDIA H100 SXM5 80GB (H100 datasheet, dense rates)";
  // FP32 matmuls run on the FP32 units: PyTorch does not use TF32 by default.
  p.matmulFlops = {67 * kTera, 989.4 * kTera, 989.4 * kTera};
  p.vectorFlops = {67 * kTera, 133.8 * kTera, 133.8 * kTera};
  p.memoryBandwidth = 3350 * kGiga;
  p.launchOverhead = kLaunchOverhead;
  p.memoryCapacity = 80 * kGB;
  return p;
}

static HardwareProfile makeH200() {
  HardwareProfile p = makeH100Sxm();
  p.name = "h200";
  p.description = "NVIDIA H200 SXM 141GB (H200 datasheet, dense rates)";
  p.memoryBandwidth = 4800 * kGiga;
  p.memoryCapacity = 141 * kGB;
  return p;
}

static HardwareProfile makeA100() {
  HardwareProfile p;
  p.name = "a100-80gb";
  p.description = "NVIDIA A100 SXM4 80GB (A100 datasheet, dense rates)";
  p.matmulFlops = {19.5 * kTera, 312 * kTera, 312 * kTera};
  p.vectorFlops = {19.5 * kTera, 78 * kTera, 39 * kTera};
  p.memoryBandwidth = 2039 * kGiga;
  p.launchOverhead = kLaunchOverhead;
  p.memoryCapacity = 80 * kGB;
  return p;
}

std::vector<StringRef> mlir::ckpt::getBuiltinProfileNames() {
  return {"h100-sxm", "h200", "a100-80gb"};
}

std::optional<HardwareProfile> mlir::ckpt::getBuiltinProfile(StringRef name) {
  if (name == "h100-sxm")
    return makeH100Sxm();
  if (name == "h200")
    return makeH200();
  if (name == "a100-80gb")
    return makeA100();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// User profiles
//===----------------------------------------------------------------------===//

/// Reads a positive number at `object[key]` into `out`.
static LogicalResult readPositive(const llvm::json::Object &object,
                                  StringRef key, StringRef path, double &out,
                                  std::string &error) {
  std::optional<double> value = object.getNumber(key);
  if (!value) {
    error = (path + key + ": missing or not a number").str();
    return failure();
  }
  if (!(*value > 0)) {
    error = (path + key + ": must be positive").str();
    return failure();
  }
  out = *value;
  return success();
}

/// Reads `{"f32": x, "f16": y, "bf16": z}` (TFLOP/s) at `object[key]`.
static LogicalResult readRates(const llvm::json::Object &object, StringRef key,
                               std::array<double, kNumRateClasses> &out,
                               std::string &error) {
  const llvm::json::Object *rates = object.getObject(key);
  if (!rates) {
    error = (key + ": missing or not an object").str();
    return failure();
  }
  const char *names[] = {"f32", "f16", "bf16"};
  for (size_t i = 0; i < kNumRateClasses; ++i) {
    if (failed(
            readPositive(*rates, names[i], (key + ".").str(), out[i], error)))
      return failure();
    out[i] *= kTera;
  }
  return success();
}

FailureOr<HardwareProfile>
mlir::ckpt::parseHardwareProfile(StringRef json, std::string &error) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed) {
    error = "invalid JSON: " + llvm::toString(parsed.takeError());
    return failure();
  }
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object) {
    error = "<root>: expected an object";
    return failure();
  }
  for (const auto &entry : *object) {
    StringRef key = entry.first;
    if (key != "name" && key != "description" && key != "matmul_tflops" &&
        key != "vector_tflops" && key != "memory_bandwidth_gbps" &&
        key != "launch_overhead_us" && key != "memory_gib") {
      error = (key + ": unknown field").str();
      return failure();
    }
  }
  HardwareProfile profile;
  std::optional<StringRef> name = object->getString("name");
  if (!name || name->empty()) {
    error = "name: missing or not a non-empty string";
    return failure();
  }
  profile.name = name->str();
  profile.description =
      object->getString("description").value_or("user profile").str();
  double bandwidth = 0, overhead = 0, memory = 0;
  if (failed(readRates(*object, "matmul_tflops", profile.matmulFlops, error)) ||
      failed(readRates(*object, "vector_tflops", profile.vectorFlops, error)) ||
      failed(readPositive(*object, "memory_bandwidth_gbps", "", bandwidth,
                          error)) ||
      failed(readPositive(*object, "memory_gib", "", memory, error)))
    return failure();
  if (object->get("launch_overhead_us")) {
    std::optional<double> us = object->getNumber("launch_overhead_us");
    if (!us || *us < 0) {
      error = "launch_overhead_us: must be a non-negative number";
      return failure();
    }
    overhead = *us;
  }
  profile.memoryBandwidth = bandwidth * kGiga;
  profile.launchOverhead = overhead * 1e-6;
  profile.memoryCapacity = static_cast<int64_t>(memory * (1ll << 30));
  return profile;
}

FailureOr<HardwareProfile> mlir::ckpt::loadHardwareProfile(StringRef spec,
                                                           std::string &error) {
  if (std::optional<HardwareProfile> builtin = getBuiltinProfile(spec))
    return *builtin;
  if (!spec.ends_with(".json")) {
    error = ("unknown hardware profile '" + spec +
             "' (built-in: " + llvm::join(getBuiltinProfileNames(), ", ") +
             "; or the path of a .json profile)")
                .str();
    return failure();
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(spec);
  if (!file) {
    error = ("cannot read hardware profile '" + spec +
             "': " + file.getError().message())
                .str();
    return failure();
  }
  FailureOr<HardwareProfile> profile =
      parseHardwareProfile((*file)->getBuffer(), error);
  if (failed(profile))
    error = (spec + ": " + error).str();
  return profile;
}

//===----------------------------------------------------------------------===//
// Roofline
//===----------------------------------------------------------------------===//

bool mlir::ckpt::isMatrixOp(Operation *op) {
  return isa<MatmulOp, MatmulAccOp, BatchMatmulOp, LinearOp, AttentionOp, AttentionGradOp,
             Conv2dOp, Conv2dGradInputOp, Conv2dGradWeightOp>(op);
}

RateClass mlir::ckpt::getRateClass(Operation *op) {
  auto classify = [](Type type) -> std::optional<RateClass> {
    Type element = getElementTypeOrSelf(type);
    if (element.isF32())
      return RateClass::F32;
    if (element.isF16())
      return RateClass::F16;
    if (element.isBF16())
      return RateClass::BF16;
    return std::nullopt;
  };
  for (Type type : op->getOperandTypes())
    if (std::optional<RateClass> rate = classify(type))
      return *rate;
  for (Type type : op->getResultTypes())
    if (std::optional<RateClass> rate = classify(type))
      return *rate;
  return RateClass::F32;
}

double RooflineCostModel::estimateSeconds(Operation *op) const {
  auto costOp = cast<CostOpInterface>(op);
  // A view makes no kernel call; a copy runs on a copy stream.
  if (costOp.isView() || isa<OffloadOp, OffloadWaitOp, PrefetchOp>(op))
    return 0.0;
  OpCost cost = costOp.getCost();
  size_t rate = static_cast<size_t>(getRateClass(op));
  double flopRate =
      isMatrixOp(op) ? profile.matmulFlops[rate] : profile.vectorFlops[rate];
  double compute = static_cast<double>(cost.flops) / flopRate;
  double memory = (static_cast<double>(cost.bytesRead) +
                   static_cast<double>(cost.bytesWritten)) /
                  profile.memoryBandwidth;
  return std::max(compute, memory) + profile.launchOverhead;
}

std::string RooflineCostModel::describe() const {
  return "roofline on " + profile.name + " (" + profile.description + ")";
}
