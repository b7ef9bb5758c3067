//===- Passes.h - Code generation passes ------------------------*- C++ -*-===//
//
// `ckpt-emit-cpp` and `ckpt-emit-cuda` (Passes.td), registered with the other
// ckpt passes, and a factory for drivers that write the files themselves.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_TARGET_CPP_PASSES_H
#define CKPT_TARGET_CPP_PASSES_H

#include "ckpt/Target/Cpp/EmitCpp.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::ckpt {

#define GEN_PASS_DECL
#include "ckpt/Target/Cpp/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ckpt/Target/Cpp/Passes.h.inc"

/// What an emit pass created by `createEmitStepsPass` hands to its driver.
struct EmitStepsResult {
  /// The generated files of every step, in module order, appended to by
  /// every run of the pass; emptied by a refusal.
  llvm::SmallVector<EmittedStep> steps;
  /// Whether the generator refused the module (its errors were emitted).
  bool refused = false;
};

/// Creates `ckpt-emit-cpp` (or, with `EmitTarget::Cuda`, `ckpt-emit-cuda`)
/// with `options`, keeping the files in `result` instead of writing them:
/// for a driver that writes them once its whole run has succeeded (as
/// `ckpt-opt --emit=` does). `result` must outlive the pass.
std::unique_ptr<Pass> createEmitStepsPass(const EmitCppOptions &options,
                                          EmitStepsResult &result);

} // namespace mlir::ckpt

#endif // CKPT_TARGET_CPP_PASSES_H
