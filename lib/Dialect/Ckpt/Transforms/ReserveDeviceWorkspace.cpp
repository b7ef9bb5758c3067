//===- ReserveDeviceWorkspace.cpp - Count the device scratch in the step --===//
//
// Implements `ckpt-reserve-device-workspace`: marks each function with the
// bytes of device scratch its runtime holds for the whole step, so that the
// memory simulation, placement and the memory plan count them.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::ckpt {
#define GEN_PASS_DEF_RESERVEDEVICEWORKSPACEPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;

namespace {

struct ReserveDeviceWorkspacePass
    : public mlir::ckpt::impl::ReserveDeviceWorkspacePassBase<
          ReserveDeviceWorkspacePass> {
  using ReserveDeviceWorkspacePassBase::ReserveDeviceWorkspacePassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // Parsed with the options; a size set from C++ may still be invalid or
    // empty. Errors in the options have no place in the input: they are
    // reported without a location.
    std::optional<int64_t> bytes = size.getValue().getBytes();
    if (!bytes) {
      InFlightDiagnostic diag = emitError(UnknownLoc::get(&getContext()))
                                << "ckpt-reserve-device-workspace: ";
      if (size.getValue().empty())
        diag << "no size given: expected 'cuda', 0, or bytes (64MiB, 4096)";
      else
        diag << size.getValue().getError();
      return signalPassFailure();
    }
    if (*bytes == 0) {
      func->removeAttr(CkptDialect::getDeviceWorkspaceAttrName());
      return;
    }
    func->setAttr(CkptDialect::getDeviceWorkspaceAttrName(),
                  Builder(func.getContext()).getI64IntegerAttr(*bytes));
  }
};

} // namespace
