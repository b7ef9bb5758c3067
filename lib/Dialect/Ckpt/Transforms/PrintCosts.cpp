//===- PrintCosts.cpp - Report exact op costs as remarks ------------------===//
//
// Implements `ckpt-print-costs`: one remark per ckpt op with its cost, and
// optionally per-phase totals per function.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TrainingStep.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include <array>

namespace mlir::ckpt {
#define GEN_PASS_DEF_PRINTCOSTSPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;

namespace {

/// Running totals of one phase.
struct PhaseTotals {
  int64_t ops = 0;
  OpCost cost;
};

struct PrintCostsPass
    : public mlir::ckpt::impl::PrintCostsPassBase<PrintCostsPass> {
  using PrintCostsPassBase::PrintCostsPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    std::array<PhaseTotals, 3> totals;
    func.walk([&](CostOpInterface op) {
      OpCost cost = op.getCost();
      ++numOps;
      if (perOp) {
        InFlightDiagnostic remark = op->emitRemark();
        remark << "cost: flops=" << cost.flops << " read=" << cost.bytesRead
               << " written=" << cost.bytesWritten
               << " workspace=" << cost.workspaceBytes;
        if (op.isView())
          remark << " view";
      }
      if (std::optional<Phase> phase = getOpPhase(op)) {
        PhaseTotals &t = totals[static_cast<size_t>(*phase)];
        ++t.ops;
        t.cost.flops = addSat(t.cost.flops, cost.flops);
        t.cost.bytesRead = addSat(t.cost.bytesRead, cost.bytesRead);
        t.cost.bytesWritten = addSat(t.cost.bytesWritten, cost.bytesWritten);
        t.cost.workspaceBytes =
            std::max(t.cost.workspaceBytes, cost.workspaceBytes);
      }
    });
    if (!summary)
      return;
    InFlightDiagnostic remark = func.emitRemark();
    remark << "cost summary:";
    for (auto [index, t] : llvm::enumerate(totals)) {
      auto phase = static_cast<Phase>(index);
      remark << " " << stringifyPhase(phase) << " ops=" << t.ops
             << " flops=" << t.cost.flops << " read=" << t.cost.bytesRead
             << " written=" << t.cost.bytesWritten
             << " max-workspace=" << t.cost.workspaceBytes << ";";
    }
  }
};

} // namespace
