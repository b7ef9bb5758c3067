//===- Report.cpp - Print what each training step costs -------------------===//
//
// Implements `ckpt-report`: a thin driver over MemoryTimeline, the roofline
// CostModel and StepReport; with `html`, over placement (on a copy), the
// frontier and HtmlReport.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/StepReport.h"
#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/HtmlReport.h"
#include "ckpt/Dialect/Ckpt/Transforms/OptionChecks.h"
#include "ckpt/Dialect/Ckpt/Transforms/OutputFile.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Dialect/Ckpt/Transforms/PlanSummary.h"
#include "ckpt/Dialect/Ckpt/Transforms/Progress.h"
#include "ckpt/Dialect/Ckpt/Transforms/RematLowering.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

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

    if (html) {
      for (auto func : module.getOps<func::FuncOp>())
        if (failed(rejectHostCopies(
                func, "ckpt-report html",
                "the page places checkpoints itself, on a step without "
                "copies; ckpt-report without html describes the copies")))
          return signalPassFailure();
      return runHtml(model);
    }

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

private:
  void runHtml(const RooflineCostModel &roofline);
  LogicalResult planOnCopy(func::FuncOp func, HtmlStep &step,
                           const CostModel *costModel);
};

} // namespace

/// Whether `func` already carries a plan (recomputed ops).
static bool hasRecomputation(func::FuncOp func) {
  bool found = false;
  func.walk([&](Operation *op) {
    found |= op->hasAttr(CkptDialect::getRecomputeAttrName());
  });
  return found;
}

/// Places checkpoints on a copy of `func` (in a scratch module inside the
/// pass's module, erased before returning) and fills the plan's half of
/// `step`: the timeline after it, the summary, the overhead and the
/// recomputed ops by scope.
LogicalResult ReportPass::planOnCopy(func::FuncOp func, HtmlStep &step,
                                     const CostModel *costModel) {
  // Placement's options under the same names (the pipeline's list).
  PlaceCheckpointsPassOptions place;
#define CKPT_PLACEMENT_OPTION(TYPE, FIELD, ARG, DEFAULT, DESC)                  \
  place.FIELD = FIELD;
#include "ckpt/PipelineOptions.def"
  // Placement's summary goes on the page.
  PlanSummaryCapture keepSummary(&getContext(), step.summary);
  ModuleOp module = getOperation();
  OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  auto scratch = builder.create<ModuleOp>(func.getLoc());
  scratch.getBody()->push_back(func.clone());
  OpPassManager pm(ModuleOp::getOperationName());
  pm.addNestedPass<func::FuncOp>(createPlaceCheckpointsPass(place));
  LogicalResult placed = runPipeline(pm, scratch);
  if (succeeded(placed)) {
    auto planned = *scratch.getOps<func::FuncOp>().begin();
    FailureOr<MemoryTimeline> after = computeMemoryTimeline(planned);
    if (failed(after)) {
      placed = failure();
    } else {
      step.after = buildMemoryChart(*after, budgetScope);
      // The budget in bytes as placement resolved it (`ckpt.budget`).
      if (std::optional<ResolvedBudget> resolved = getBudget(planned))
        step.budgetBytes = resolved->bytes;
      step.recomputed = groupRecomputedOps(planned);
      // The overhead as placement counts it: every recomputation costs what
      // its op costs once, over the cost of the step without any.
      double base = 0, extra = 0;
      for (Operation &op : func.getBody().front().without_terminator())
        if (auto costOp = dyn_cast<CostOpInterface>(&op); costOp &&
                                                         !costOp.isView())
          base += computeNodeCost(costOp, costModel);
      planned.walk([&](CostOpInterface op) {
        if (op->hasAttr(CkptDialect::getRecomputeAttrName()))
          extra += computeNodeCost(op, costModel);
      });
      step.overhead = base > 0 ? extra / base : 0;
    }
  }
  scratch.erase();
  return placed;
}

void ReportPass::runHtml(const RooflineCostModel &roofline) {
  ModuleOp module = getOperation();
  Location options = UnknownLoc::get(&getContext());
  const CostModel *costModel = nullptr;
  if (objective == Objective::Time)
    costModel = &roofline;
  if (json) {
    emitError(options) << "ckpt-report: html and json are two formats of one "
                          "report; ask for one of them";
    return signalPassFailure();
  }
  if (frontierPoints == 1) {
    emitError(options) << "ckpt-report: frontier-points=1 is too few: a "
                          "frontier needs at least 2 budgets (or 0 for none)";
    return signalPassFailure();
  }
  if (failed(checkTimeLimitOption(&getContext(), "ckpt-report", timeLimit)))
    return signalPassFailure();
  // Parsed with the options (a budget set from C++ may still be invalid),
  // resolved by placement on the copy (`ckpt.budget`).
  if (!budget.getValue().getError().empty()) {
    emitError(options) << "ckpt-report: " << budget.getValue().getError();
    return signalPassFailure();
  }

  std::vector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      funcs.push_back(func);
  std::vector<HtmlStep> steps;
  for (func::FuncOp func : funcs) {
    HtmlStep step;
    step.name = func.getSymName().str();
    step.scope = budgetScope;
    step.objective = stringifyObjective(objective).str();
    FailureOr<MemoryTimeline> timeline = computeMemoryTimeline(func);
    if (failed(timeline))
      return signalPassFailure();
    bool planned = hasRecomputation(func);
    if (planned) {
      // A plan already made: shown as it is, with what it recomputes.
      if (!budget.empty()) {
        emitError(func.getLoc())
            << "ckpt-report: @" << step.name
            << " already recomputes ops (it was planned): budget= plans a "
               "step again, so give the step as it was before placement, or "
               "leave budget= out to show this plan";
        return signalPassFailure();
      }
      step.after = buildMemoryChart(*timeline, budgetScope);
      step.recomputed = groupRecomputedOps(func);
      step.objective.clear();
      // The budget it was planned under, when placement recorded it.
      if (std::optional<ResolvedBudget> resolved = getBudget(func)) {
        step.budgetText = resolved->requested;
        step.budgetBytes = resolved->bytes;
      }
    } else {
      step.before = buildMemoryChart(*timeline, budgetScope);
      if (!budget.empty()) {
        step.budgetText = budget.getValue().getText();
        if (failed(planOnCopy(func, step, costModel)))
          return signalPassFailure();
      }
      if (frontierPoints > 0) {
        FrontierOptions frontierOptions;
        frontierOptions.costModel = costModel;
        frontierOptions.scope = budgetScope;
        frontierOptions.points = frontierPoints;
        frontierOptions.timeLimitSeconds = timeLimit;
        if (progressWanted())
          frontierOptions.onPointSolved = [&](unsigned solved,
                                              unsigned count) {
            writeProgress("ckpt-report: @" + step.name +
                          ": frontier budget " + Twine(solved + 1) + " of " +
                          Twine(count) + " solved");
          };
        FailureOr<Frontier> frontier = solveFrontier(func, frontierOptions);
        if (failed(frontier))
          return signalPassFailure();
        step.frontier = std::move(*frontier);
      }
    }
    steps.push_back(std::move(step));
  }

  llvm::Error written = writeOutputFile(output, [&](llvm::raw_ostream &os) {
    writeHtmlReport(steps, os);
    return llvm::Error::success();
  });
  if (written) {
    emitError(module.getLoc()) << "ckpt-report: cannot write '" << output
                               << "': " << llvm::toString(std::move(written));
    return signalPassFailure();
  }
}
