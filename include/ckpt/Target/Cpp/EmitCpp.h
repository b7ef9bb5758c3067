//===- EmitCpp.h - Planned training steps as C++ for the host runtime -*- C++ -*-===//
//
// The code generator of ckpt-opt (docs/codegen.md): a planned training step
// (a func.func carrying the memory plan of ckpt-plan-memory) becomes one C++
// translation unit for the host runtime (runtime/include/ckpt/Runtime): a
// `StepProgram` with the arena offsets baked in, one kernel call per op,
// recompute segments bracketed, and `acquire`/`release` calls that let the
// runtime measure the bytes in use independently of the planner. A header
// and a machine-readable plan (JSON) come with it. The exporter reads the IR
// only; it never changes it. With `EmitTarget::Cuda` the same program is
// written as a `.cu` for the CUDA device runtime (runtime/cuda, docs/gpu.md).
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_TARGET_CPP_EMITCPP_H
#define CKPT_TARGET_CPP_EMITCPP_H

#include "ckpt/Target/DeviceScratch.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mlir::ckpt {

/// Which runtime the generated code calls.
enum class EmitTarget {
  /// The host runtime (runtime/include/ckpt/Runtime): `<step>.cpp`.
  Host,
  /// The CUDA device runtime (runtime/cuda, docs/gpu.md): `<step>.cu`, the
  /// same straight-line program calling `ckpt::rt::cuda::kernels` through a
  /// `CudaExecContext`, with f16 and bf16 tensors allowed.
  Cuda,
};


/// Options of the C++ exporter.
struct EmitCppOptions {
  /// The runtime the generated code is for (`--emit=cpp` / `--emit=cuda`).
  EmitTarget target = EmitTarget::Host;
  /// Alignment the memory plan was made with (`ckpt-plan-memory
  /// alignment=`); the plan does not record it. 0: the largest power of two
  /// (up to 64 KiB) with which the plan checks and its lower bound
  /// (`ckpt.arena_lower_bound`) is reproduced exactly.
  int64_t alignment = 0;
};

/// The files generated for one step function.
struct EmittedStep {
  /// The function's symbol name.
  std::string name;
  /// Base name of the files (`<fileStem>.cpp`, `.h`, `.plan.json`): the
  /// symbol name with every character outside [A-Za-z0-9_] replaced by `_`.
  std::string fileStem;
  /// `<fileStem><sourceSuffix>`: the StepProgram (host) or CudaStepProgram
  /// (CUDA) and its `run` function.
  std::string source;
  /// `.cpp` for the host runtime, `.cu` for the CUDA runtime.
  std::string sourceSuffix = ".cpp";
  /// `<fileStem>.h`: declarations of the entry points.
  std::string header;
  /// `<fileStem>.plan.json`: the plan, the buffers, segments and bindings.
  std::string planJson;
};

/// Generates the C++ of `func`, a planned step function of ckpt ops. Fails
/// with one diagnostic per problem (every op that has no host kernel or an
/// unsupported element type, a missing or stale plan, ...), located at the op
/// or the function; `out` is then unspecified. Never modifies the IR.
LogicalResult exportStepToCpp(func::FuncOp func, const EmitCppOptions &options,
                              EmittedStep &out);

/// Generates every function with a body in `module` (each must be planned),
/// in module order. Fails if any fails, or if the module has none.
LogicalResult exportModuleToCpp(ModuleOp module, const EmitCppOptions &options,
                                llvm::SmallVectorImpl<EmittedStep> &out);

/// Writes the files of `steps` into directory `dir` (created if missing, with
/// its parents). All files are first written into a fresh temporary directory
/// next to `dir` and then renamed into place, so a failure never leaves a
/// partly written file in `dir`.
llvm::Error writeEmittedSteps(llvm::ArrayRef<EmittedStep> steps,
                              llvm::StringRef dir);

} // namespace mlir::ckpt

#endif // CKPT_TARGET_CPP_EMITCPP_H
