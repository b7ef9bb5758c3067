//===- PrintMemory.cpp - Report simulated live memory as remarks ----------===//
//
// Implements `ckpt-print-memory` on top of the MemoryTimeline analysis.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/MemoryTimeline.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

namespace mlir::ckpt {
#define GEN_PASS_DEF_PRINTMEMORYPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;

namespace {

struct PrintMemoryPass
    : public mlir::ckpt::impl::PrintMemoryPassBase<PrintMemoryPass> {
  using PrintMemoryPassBase::PrintMemoryPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    FailureOr<MemoryTimeline> timeline = computeMemoryTimeline(func);
    if (failed(timeline))
      return signalPassFailure();
    const MemoryTimeline &t = *timeline;
    if (perOp) {
      for (auto [i, op] : llvm::enumerate(t.ops)) {
        InFlightDiagnostic remark = op->emitRemark();
        remark << "live: during=" << t.liveDuring[i]
               << " after=" << t.liveAfter[i];
        if (t.workspace[i])
          remark << " workspace=" << t.workspace[i];
        if (!t.hostBuffers.empty())
          remark << " host=" << t.hostLiveDuring[i];
      }
    }
    InFlightDiagnostic remark = func.emitRemark();
    remark << "memory: entry=" << t.liveAtEntry << " peak=" << t.peakBytes;
    if (t.peakOp >= 0)
      remark << " at op #" << t.peakOp;
    else
      remark << " at entry";
    remark << " saved=" << t.savedBytes << " in " << t.savedActivations.size()
           << " buffers";
    if (!t.hostBuffers.empty())
      remark << " host-peak=" << t.hostPeakBytes << " at op #" << t.hostPeakOp
             << " in " << t.hostBuffers.size() << " host buffers";
  }
};

} // namespace
