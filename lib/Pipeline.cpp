//===- Pipeline.cpp - The ckpt-opt pass pipeline for embedders ------------===//
//
// Placement, then the memory plan. With a budget, the arena (not the
// simulated peak) is what must fit: a small driver pass re-runs placement
// with a target tightened by what packing lost when the planned arena is
// over, and reports the smallest arena when none fits.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Pipeline.h"

#include "ckpt/Analysis/MemoryTimeline.h"
#include "ckpt/Analysis/StepReport.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Dialect/Ckpt/Transforms/PlanSummary.h"
#include "ckpt/Plan/MemoryPlan.h"
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
  unsigned maxResolves = 8;
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
/// returned as a parameter gradient, each as the arena holds it (rounded up
/// to `alignment`: that padding is theirs, not the activations').
static int64_t outOfScopeBytes(const MemoryTimeline &t, BudgetScope scope,
                               int64_t alignment) {
  if (scope == BudgetScope::Step)
    return 0;
  int64_t bytes = plan::alignUp(t.deviceWorkspace, alignment);
  for (const Buffer &buffer : t.buffers)
    if (!countsInScope(buffer.kind, scope))
      bytes = addSat(bytes, plan::alignUp(buffer.bytes, alignment));
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
      limit = addSat(target, outOfScopeBytes(*timeline, scope,
                                                   settings.plan.alignment));
    }
    // Otherwise placement reports the bad budget itself.
  }

  PlaceCheckpointsPassOptions place = settings.place;
  const int64_t initialTarget = target;
  // The smallest arena planned so far: what the error reports when none
  // fits (a tightened target can pack worse than a looser one).
  int64_t lastArena = -1, bestArena = -1;
  // The tightest target whose plan was over the limit, and the loosest one
  // below it where placement found no plan (-1: none yet): a fitting arena,
  // if any, lies between them.
  int64_t overTarget = target, noPlanTarget = -1;
  unsigned resolves = 0;
  std::string summary;
  for (;; ++resolves) {
    ModuleOp scratch;
    if (resolves == 0) {
      scratch = attempt(func, place, summary);
      if (!scratch)
        return failure();
    } else {
      // A tightened target may be infeasible: then a looser one is tried
      // next, so placement's own diagnostics are not shown.
      ScopedDiagnosticHandler quiet(&getContext(),
                                    [](Diagnostic &) { return success(); });
      scratch = attempt(func, place, summary);
    }
    int64_t packingLoss = 0;
    if (scratch) {
      auto planned = cast<func::FuncOp>(scratch.getBody()->front());
      auto arena = planned->getAttrOfType<IntegerAttr>(
          CkptDialect::getArenaSizeAttrName());
      lastArena = arena ? arena.getInt() : 0;
      if (bestArena < 0 || lastArena < bestArena)
        bestArena = lastArena;
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
      // What packing added to the plan's peak (alignment, fragmentation):
      // the planned copy's whole-step peak against its arena.
      if (FailureOr<MemoryTimeline> t = computeMemoryTimeline(planned);
          succeeded(t))
        packingLoss = std::max<int64_t>(
            0, lastArena - computeScopedPeak(*t, BudgetScope::Step).bytes);
      scratch.erase();
      overTarget = target;
    } else {
      noPlanTarget = target;
    }
    if (resolves == settings.maxResolves)
      break;
    // The next target, in the scope's terms. Until placement fails, below
    // the budget by what the packer lost (doubling with every miss), so that
    // a plan that packs as this one did fits, and at least one alignment
    // unit below the last; then halfway between the tightest target over
    // the limit and the loosest without a plan.
    const int64_t alignment = settings.plan.alignment;
    if (noPlanTarget < 0) {
      int64_t lost = std::max<int64_t>(packingLoss, alignment);
      target = std::min(overTarget - alignment,
                        initialTarget - (lost << resolves));
    } else {
      if (overTarget - noPlanTarget <= alignment)
        break;
      target = noPlanTarget + (overTarget - noPlanTarget) / 2;
    }
    if (target <= 0)
      break;
    place.budget = std::to_string(target) + "B";
  }
  int64_t excess = bestArena - limit;
  InFlightDiagnostic diag = emitError(func.getLoc());
  diag << "ckpt-pipeline: the planned arena of " << formatBytes(bestArena)
       << " (" << bestArena << " bytes) exceeds the budget of "
       << formatBytes(limit) << " (" << limit << " bytes) by " << excess
       << " bytes ("
       << llvm::formatv("{0:f2}",
                        100.0 * static_cast<double>(excess) /
                            static_cast<double>(std::max<int64_t>(limit, 1)))
              .str()
       << "%) after " << resolves
       << " re-solves with tightened targets (the smallest of the arenas "
          "planned)";
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
  // Placement counts buffers as the plan will hold them.
  settings.place.alignment = options.alignment;
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
