//===- CostModel.h - Estimated execution time of ckpt ops --------*- C++
//-*-===//
//
// Turns the exact costs of CostOpInterface into estimated seconds on a
// hardware profile. `CostModel` is the one interface every consumer (report,
// checkpoint solver) uses; the roofline model implements it today and a
// calibrated model from real measurements can plug in later.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_COSTMODEL_H
#define CKPT_ANALYSIS_COSTMODEL_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <string>
#include <vector>

namespace mlir::ckpt {

/// Element type classes with distinct peak rates.
enum class RateClass { F32, F16, BF16 };
constexpr size_t kNumRateClasses = 3;

/// Peak rates and overheads of one accelerator.
struct HardwareProfile {
  /// Identifier (`h100-sxm`) or the user profile's name.
  std::string name;
  /// Human-readable description, with the source of the figures.
  std::string description;
  /// Dense matrix-multiply FLOP/s per element type (tensor cores where the
  /// framework uses them by default).
  std::array<double, kNumRateClasses> matmulFlops{};
  /// Non-matrix (vector) FLOP/s per element type.
  std::array<double, kNumRateClasses> vectorFlops{};
  /// Device memory bandwidth in bytes/s.
  double memoryBandwidth = 0;
  /// Fixed cost added to every kernel, in seconds.
  double launchOverhead = 0;
  /// Device memory capacity in bytes.
  int64_t memoryCapacity = 0;
};

/// Names of the built-in profiles, in a fixed order.
std::vector<llvm::StringRef> getBuiltinProfileNames();

/// Returns the built-in profile `name` (`h100-sxm`, `h200`, `a100-80gb`).
std::optional<HardwareProfile> getBuiltinProfile(llvm::StringRef name);

/// Parses a user profile (JSON, see docs/cost-model.md). On failure returns
/// failure and sets `error` to a message naming the JSON path.
FailureOr<HardwareProfile> parseHardwareProfile(llvm::StringRef json,
                                                std::string &error);

/// Resolves `spec`: a built-in profile name, or the path of a JSON profile
/// file. On failure sets `error`.
FailureOr<HardwareProfile> loadHardwareProfile(llvm::StringRef spec,
                                               std::string &error);

/// Estimated execution time of single ops.
class CostModel {
public:
  virtual ~CostModel();
  /// Returns the estimated seconds to execute `op` once. `op` implements
  /// CostOpInterface.
  virtual double estimateSeconds(Operation *op) const = 0;
  /// Returns a short description of the model, for reports.
  virtual std::string describe() const = 0;
};

/// Roofline model: `max(flops / peak(kind, dtype), bytes / bandwidth) +
/// launch overhead`, where GEMM-like ops (matmul, linear, attention,
/// convolution) use the matrix rate and every other op the vector rate. Views
/// move no data and launch nothing: they cost 0.
class RooflineCostModel : public CostModel {
public:
  explicit RooflineCostModel(HardwareProfile profile)
      : profile(std::move(profile)) {}
  double estimateSeconds(Operation *op) const override;
  std::string describe() const override;
  const HardwareProfile &getProfile() const { return profile; }

private:
  HardwareProfile profile;
};

/// Returns true if `op` runs on the matrix units (GEMM-like).
bool isMatrixOp(Operation *op);

/// Returns the rate class of `op`: the element type of its first float
/// operand or result (f32 if it has none).
RateClass getRateClass(Operation *op);

} // namespace mlir::ckpt

#endif // CKPT_ANALYSIS_COSTMODEL_H
