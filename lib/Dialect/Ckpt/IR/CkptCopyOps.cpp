//===- CkptCopyOps.cpp - Copies between device and host memory ------------===//
//
// Verifiers and costs of `ckpt.offload`, `ckpt.offload_wait` and
// `ckpt.prefetch`, and the refusal of the stages that do not take them.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

using namespace mlir;
using namespace mlir::ckpt;

LogicalResult mlir::ckpt::rejectHostCopies(Operation *func,
                                           llvm::StringRef stage,
                                           llvm::StringRef reason) {
  Operation *copy = nullptr;
  func->walk([&](Operation *op) {
    if (!isa<OffloadOp, OffloadWaitOp, PrefetchOp>(op))
      return WalkResult::advance();
    copy = op;
    return WalkResult::interrupt();
  });
  if (!copy)
    return success();
  return copy->emitError() << stage << " does not take host offload yet ('"
                           << copy->getName() << "'): " << reason;
}

LogicalResult OffloadOp::verify() {
  // Only device tensors are offloaded: a host buffer's users are checked
  // here, so an offload of one fails at the offload that made it.
  for (OpOperand &use : getResult().getUses()) {
    Operation *user = use.getOwner();
    bool allowed = isa<PrefetchOp>(user) ||
                   (isa<OffloadWaitOp>(user) && use.getOperandNumber() == 1);
    if (allowed)
      continue;
    InFlightDiagnostic diag =
        emitOpError() << "result is a host buffer: only 'ckpt.prefetch' and "
                         "the host operand of 'ckpt.offload_wait' may read "
                         "it, but '"
                      << user->getName() << "' reads it as operand #"
                      << use.getOperandNumber();
    diag.attachNote(user->getLoc()) << "read here";
    return diag;
  }
  return success();
}

LogicalResult OffloadWaitOp::verify() {
  auto offload = getHost().getDefiningOp<OffloadOp>();
  if (!offload)
    return emitOpError() << "expects its host operand to be the result of a "
                            "'ckpt.offload'";
  if (offload.getInput() != getSource())
    return emitOpError() << "waits for the offload of another value: its "
                            "source must be the 'ckpt.offload''s input";
  return success();
}

LogicalResult PrefetchOp::verify() {
  if (!getHost().getDefiningOp<OffloadOp>())
    return emitOpError() << "expects its operand to be a host buffer (the "
                            "result of a 'ckpt.offload')";
  return success();
}

// The copies run on their own streams: the compute stream pays nothing
// (their time is the link's, remat::CopyLink), and they need no workspace.
OpCost OffloadOp::getCost() { return OpCost(); }
OpCost OffloadWaitOp::getCost() { return OpCost(); }
OpCost PrefetchOp::getCost() { return OpCost(); }
