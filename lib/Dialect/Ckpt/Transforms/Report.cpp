//===- Report.cpp - Print what each training step costs -------------------===//
//
// Implements `ckpt-report`: a thin driver over MemoryTimeline, the roofline
// CostModel and StepReport.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/StepReport.h"
#include "ckpt/Dialect/Ckpt/Transforms/OutputFile.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::ckpt {
#define GEN_PASS_DEF_REPORTPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;

namespace {

struct ReportPass : public mlir::ckpt::impl::ReportPassBase<ReportPass> {
  using ReportPassBase::ReportPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    FailureOr<HardwareProfile> hardware = loadHardwareProfile(profile, error);
    if (failed(hardware)) {
      emitError(module.getLoc()) << "ckpt-report: " << error;
      return signalPassFailure();
    }
    RooflineCostModel model(*hardware);

    std::vector<StepReport> reports;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<MemoryTimeline> timeline = computeMemoryTimeline(func);
      if (failed(timeline))
        return signalPassFailure();
      reports.push_back(buildStepReport(func, *timeline, model, budgetScope));
    }

    // Written to a temporary file that atomically replaces `output` once
    // complete, so a failure never leaves a partial report.
    llvm::Error written = writeOutputFile(output, [&](llvm::raw_ostream &os) {
      if (json) {
        os << "{\"version\": 1, \"functions\": [\n";
        for (auto [i, report] : llvm::enumerate(reports)) {
          if (i)
            os << ",\n";
          printStepReportJson(report, os);
        }
        os << "]}\n";
      } else {
        for (auto [i, report] : llvm::enumerate(reports)) {
          if (i)
            os << "\n";
          printStepReportText(report, os);
        }
      }
      return llvm::Error::success();
    });
    if (written) {
      emitError(module.getLoc()) << "ckpt-report: cannot write '" << output
                                 << "': " << llvm::toString(std::move(written));
      return signalPassFailure();
    }
  }
};

} // namespace
