//===- Pipeline.cpp - The ckpt-opt pass pipeline for embedders ------------===//
//
// Placement, then the memory plan. With a budget, the arena (not the
// simulated peak) is what must fit: a small driver pass re-runs placement
// with a tightened target when the planned arena is over.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Pipeline.h"

#include "ckpt/Analysis/MemoryTimeline.h"
#include "ckpt/Analysis/StepReport.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Dialect/Ckpt/Transforms/PlanSummary.h"
#include "ckpt/Remat/Budget.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::ckpt;

namespace {

/// The pipeline options the driver needs, as plain copyable values.
struct FitSettings {
  PlaceCheckpointsPassOptions place;
  PlanMemoryPassOptions plan;
  unsigned maxResolves = 3;
};

/// Places checkpoints and plans memory for every function; with a budget,
/// re-places with a tightened target while the planned arena is over it.
/// Each attempt runs on a copy of the original function inside a scratch
/// module nested in this one, so a rejected attempt leaves nothing behind.
struct FitArenaPass
    : public PassWrapper<FitArenaPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FitArenaPass)

  explicit FitArenaPass(FitSettings settings) : settings(std::move(settings)) {}

  StringRef getArgument() const final { return "ckpt-fit-arena"; }
  StringRef getDescription() const final {
    return "Place checkpoints and plan memory so that the arena fits the "
           "budget (the driver of ckpt-pipeline)";
  }

  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
    for (func::FuncOp func : funcs)
      if (failed(fitFunction(func)))
        return signalPassFailure();
  }

private:
  /// Runs placement (with `place`) and planning on a copy of `func`; returns
  /// the scratch module holding the planned copy, or null on failure.
  /// Placement's summary remark is kept in `summary`, not shown: only the
  /// attempt whose arena fits is reported.
  ModuleOp attempt(func::FuncOp func, const PlaceCheckpointsPassOptions &place,
                   std::string &summary);

  LogicalResult fitFunction(func::FuncOp func);

  FitSettings settings;
};

} // namespace

ModuleOp FitArenaPass::attempt(func::FuncOp func,
                               const PlaceCheckpointsPassOptions &place,
                               std::string &summary) {
  summary.clear();
  PlanSummaryCapture keepSummary(&getContext(), summary);
  OpBuilder builder(getOperation().getBodyRegion());
  builder.setInsertionPointToEnd(getOperation().getBody());
  auto scratch = builder.create<ModuleOp>(func.getLoc());
  scratch.getBody()->push_back(func.clone());
  OpPassManager pm(ModuleOp::getOperationName());
  pm.addNestedPass<func::FuncOp>(createPlaceCheckpointsPass(place));
  pm.addPass(createPlanMemoryPass(settings.plan));
  if (failed(runPipeline(pm, scratch))) {
    scratch.erase();
    return nullptr;
  }
  return scratch;
}

/// Bytes the arena holds outside `scope` at most: nothing in `step`; in
/// `activations`, the arguments, the device workspace and every buffer
/// returned as a parameter gradient.
static int64_t outOfScopeBytes(const MemoryTimeline &t, BudgetScope scope) {
  if (scope == BudgetScope::Step)
    return 0;
  int64_t bytes = t.deviceWorkspace;
  for (const Buffer &buffer : t.buffers)
    if (!countsInScope(buffer.kind, scope))
      bytes = addSat(bytes, buffer.bytes);
  return bytes;
}

LogicalResult FitArenaPass::fitFunction(func::FuncOp func) {
  // The budget in the scope's terms, resolved as placement resolves it (a
  // fraction of the no-recompute peak in the scope), and the arena's limit
  // in whole-step terms: the arena holds everything, so in `activations`
  // what the scope leaves out (arguments, device workspace, every parameter
  // gradient) is added to the budget.
  int64_t target = -1, limit = -1;
  if (!settings.place.budget.empty()) {
    std::string error;
    std::optional<remat::Budget> budget =
        remat::parseBudget(settings.place.budget, error);
    FailureOr<MemoryTimeline> timeline = computeMemoryTimeline(func);
    if (budget && succeeded(timeline)) {
      BudgetScope scope = settings.place.budgetScope;
      target = budget->resolve(computeScopedPeak(*timeline, scope).bytes);
      limit = addSat(target, outOfScopeBytes(*timeline, scope));
    }
    // Otherwise placement reports the bad budget itself.
  }

  PlaceCheckpointsPassOptions place = settings.place;
  const int64_t initialTarget = target;
  int64_t lastArena = -1;
  unsigned resolves = 0;
  std::string summary;
  for (;; ++resolves) {
    ModuleOp scratch;
    if (resolves == 0) {
      scratch = attempt(func, place, summary);
      if (!scratch)
        return failure();
    } else {
      // A tightened target may be infeasible: then the previous miss is the
      // answer, so placement's own diagnostics are not shown.
      ScopedDiagnosticHandler quiet(&getContext(),
                                    [](Diagnostic &) { return success(); });
      scratch = attempt(func, place, summary);
      if (!scratch)
        break;
    }
    auto planned = cast<func::FuncOp>(scratch.getBody()->front());
    auto arena = planned->getAttrOfType<IntegerAttr>(
        CkptDialect::getArenaSizeAttrName());
    lastArena = arena ? arena.getInt() : 0;
    if (limit < 0 || lastArena <= limit) {
      if (resolves > 0)
        emitRemark(func.getLoc())
            << "ckpt-pipeline: the arena fits the budget of " << limit
            << " bytes after " << resolves
            << " re-solves (placement target " << target << " bytes, arena "
            << lastArena << " bytes)";
      if (!summary.empty()) {
        InFlightDiagnostic said = emitRemark(UnknownLoc::get(&getContext()));
        said << summary;
        if (resolves > 0)
          said << "\n  (ckpt-pipeline placed under a target below budget="
               << settings.place.budget << " so that the arena fits it)";
      }
      // Keep the planned copy in place of the original.
      planned->moveBefore(func);
      func.erase();
      scratch.erase();
      return success();
    }
    scratch.erase();
    if (resolves == settings.maxResolves)
      break;
    // Lower the target by the excess and place again, in the scope's terms:
    // by at least one alignment unit (a smaller cut changes nothing the
    // arena can show), doubling with every miss.
    int64_t cut = std::max<int64_t>(lastArena - limit, settings.plan.alignment);
    target -= cut << resolves;
    if (target <= 0)
      break;
    place.budget = std::to_string(target) + "B";
  }
  int64_t excess = lastArena - limit;
  InFlightDiagnostic diag = emitError(func.getLoc());
  diag << "ckpt-pipeline: the planned arena of " << formatBytes(lastArena)
       << " (" << lastArena << " bytes) exceeds the budget of "
       << formatBytes(limit) << " (" << limit << " bytes) by " << excess
       << " bytes ("
       << llvm::formatv("{0:f2}",
                        100.0 * static_cast<double>(excess) /
                            static_cast<double>(std::max<int64_t>(limit, 1)))
              .str()
       << "%) after " << resolves << " re-solves with tightened targets";
  if (settings.place.budgetScope != BudgetScope::Step)
    diag.attachNote(func.getLoc())
        << "the arena holds the whole step: its budget is the budget-scope="
        << stringifyBudgetScope(settings.place.budgetScope) << " budget plus "
        << formatBytes(limit - initialTarget) << " (" << limit - initialTarget
        << " bytes) of parameters, inputs, gradients and device workspace";
  return failure();
}

void mlir::ckpt::buildCkptPipeline(OpPassManager &pm,
                                   const CkptPipelineOptions &options) {
  PlaceCheckpointsPassOptions place;
  place.budget = options.budget;
  place.budgetScope = options.budgetScope;
  place.strategy = options.strategy;
  place.objective = options.objective;
  place.profile = options.profile;
  place.timeLimit = options.timeLimit;
  if (!options.deviceWorkspace.empty()) {
    ReserveDeviceWorkspacePassOptions reserve;
    reserve.size = options.deviceWorkspace;
    pm.addNestedPass<func::FuncOp>(createReserveDeviceWorkspacePass(reserve));
  }
  if (!options.planMemory) {
    pm.addNestedPass<func::FuncOp>(createPlaceCheckpointsPass(place));
    return;
  }
  FitSettings settings;
  settings.place = place;
  settings.plan.alignment = options.alignment;
  settings.plan.inPlace = options.inPlace;
  settings.plan.verify = options.verifyPlan;
  settings.maxResolves = options.maxResolves;
  pm.addPass(std::make_unique<FitArenaPass>(std::move(settings)));
}

void mlir::ckpt::registerCkptPipeline() {
  PassPipelineRegistration<CkptPipelineOptions>(
      "ckpt-pipeline",
      "The ckpt-opt pipeline: checkpoint placement under a memory budget, "
      "then the memory plan, with the budget checked on the arena",
      buildCkptPipeline);
}
