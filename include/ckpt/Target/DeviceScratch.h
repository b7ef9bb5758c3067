//===- DeviceScratch.h - Device scratch of the generated CUDA steps -*- C++ -*-===//
//
// One constant shared by the planner (`ckpt-reserve-device-workspace
// size=cuda`) and the CUDA code generator, with no dependencies, so that the
// transforms need not link the code generator to know it.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_TARGET_DEVICESCRATCH_H
#define CKPT_TARGET_DEVICESCRATCH_H

#include <cstdint>

namespace mlir::ckpt {

/// Bytes of the CUDA runtime's device scratch block (cuBLASLt workspace and
/// scalars, `ckpt::rt::cuda::kDeviceScratchBytes`). With a planned
/// `ckpt.device_workspace` of at least this size, a generated CUDA step keeps
/// the block there, inside the budget; without one it places the block right
/// after the planned arena (256-byte aligned), outside what the planner
/// counted. Every generated `.cu` static_asserts that the runtime it is
/// compiled against agrees.
constexpr int64_t kCudaDeviceScratchBytes = (int64_t(32) << 20) + 256;

} // namespace mlir::ckpt

#endif // CKPT_TARGET_DEVICESCRATCH_H
