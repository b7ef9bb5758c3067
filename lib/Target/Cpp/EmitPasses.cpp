//===- EmitPasses.cpp - Code generation as passes -------------------------===//
//
// `ckpt-emit-cpp` and `ckpt-emit-cuda`: thin passes over `exportModuleToCpp`
// and `writeEmittedSteps`.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Target/Cpp/Passes.h"

#include "mlir/IR/Diagnostics.h"

namespace mlir::ckpt {
#define GEN_PASS_DEF_EMITCPPPASS
#define GEN_PASS_DEF_EMITCUDAPASS
#include "ckpt/Target/Cpp/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;

/// Generates the code of `module` for `target`; hands it to `sink` when one
/// is given, else writes it into `output`. The IR is not changed.
static LogicalResult emitSteps(ModuleOp module, StringRef pass,
                               EmitTarget target, int64_t alignment,
                               StringRef output, EmitStepsResult *sink) {
  EmitCppOptions options;
  options.target = target;
  options.alignment = alignment;
  SmallVector<EmittedStep> steps;
  if (failed(exportModuleToCpp(module, options, steps))) {
    // Nothing is written once any function was refused.
    if (sink) {
      sink->steps.clear();
      sink->refused = true;
    }
    return failure();
  }
  if (sink) {
    // Appended: a driver may run the pass once per input chunk
    // (-split-input-file) and write every chunk's steps together.
    for (EmittedStep &step : steps)
      sink->steps.push_back(std::move(step));
    return success();
  }
  Location loc = UnknownLoc::get(module.getContext());
  if (output.empty())
    return emitError(loc) << pass
                          << ": output= names no directory to write the "
                             "generated files into";
  if (llvm::Error error = writeEmittedSteps(steps, output))
    return emitError(loc) << pass << ": " << llvm::toString(std::move(error));
  return success();
}

namespace {

struct EmitCppPass : public mlir::ckpt::impl::EmitCppPassBase<EmitCppPass> {
  using EmitCppPassBase::EmitCppPassBase;
  void runOnOperation() override {
    if (failed(emitSteps(getOperation(), getArgument(), EmitTarget::Host,
                         alignment, output, sink)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
  /// Where the files go instead of `output` (createEmitStepsPass).
  EmitStepsResult *sink = nullptr;
};

struct EmitCudaPass : public mlir::ckpt::impl::EmitCudaPassBase<EmitCudaPass> {
  using EmitCudaPassBase::EmitCudaPassBase;
  void runOnOperation() override {
    if (failed(emitSteps(getOperation(), getArgument(), EmitTarget::Cuda,
                         alignment, output, sink)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
  /// Where the files go instead of `output` (createEmitStepsPass).
  EmitStepsResult *sink = nullptr;
};

} // namespace

std::unique_ptr<Pass>
mlir::ckpt::createEmitStepsPass(const EmitCppOptions &options,
                                EmitStepsResult &result) {
  if (options.target == EmitTarget::Cuda) {
    EmitCudaPassOptions cuda;
    cuda.alignment = options.alignment;
    auto pass = std::make_unique<EmitCudaPass>(cuda);
    pass->sink = &result;
    return pass;
  }
  EmitCppPassOptions host;
  host.alignment = options.alignment;
  auto pass = std::make_unique<EmitCppPass>(host);
  pass->sink = &result;
  return pass;
}
