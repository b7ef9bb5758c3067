//===- ReserveDeviceWorkspace.cpp - Count the device scratch in the step --===//
//
// Implements `ckpt-reserve-device-workspace`: marks each function with the
// bytes of device scratch its runtime holds for the whole step, so that the
// memory simulation, placement and the memory plan count them.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Remat/Budget.h"
#include "ckpt/Target/DeviceScratch.h"

#include "mlir/IR/Builders.h"

#include <cctype>

namespace mlir::ckpt {
#define GEN_PASS_DEF_RESERVEDEVICEWORKSPACEPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;

FailureOr<int64_t> mlir::ckpt::parseDeviceWorkspaceSize(StringRef text,
                                                        std::string &error) {
  if (text == "cuda")
    return kCudaDeviceScratchBytes;
  // A size, never a fraction: a bare number is bytes, and 0 removes the
  // reservation.
  if (text == "0" || text == "0B")
    return 0;
  std::string sized = text.str();
  if (!sized.empty() && llvm::all_of(sized, [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    sized += "B";
  std::optional<remat::Budget> parsed = remat::parseBudget(sized, error);
  if (!parsed || !parsed->bytes) {
    error = "expected 'cuda', 0, or bytes (64MiB, 4096) up to 4 EiB, not a "
            "fraction of the peak";
    return failure();
  }
  return *parsed->bytes;
}

namespace {

struct ReserveDeviceWorkspacePass
    : public mlir::ckpt::impl::ReserveDeviceWorkspacePassBase<
          ReserveDeviceWorkspacePass> {
  using ReserveDeviceWorkspacePassBase::ReserveDeviceWorkspacePassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    std::string error;
    FailureOr<int64_t> bytes = parseDeviceWorkspaceSize(size, error);
    if (failed(bytes)) {
      func.emitError() << "ckpt-reserve-device-workspace: bad size '" << size
                       << "': " << error;
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
