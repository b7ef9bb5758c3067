//===- FitArena.cpp - Placement and planning until the arena fits ---------===//
//
// Implements `ckpt-fit-arena`, the driver of `ckpt-pipeline` with
// `plan-memory`: the budget is resolved once into `ckpt.budget`; when the
// planned arena is over it, placement is re-run under a tighter `target` in
// that attribute (a typed byte count, not option text), and the smallest
// arena is reported when none fits.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/MemoryTimeline.h"
#include "ckpt/Analysis/StepReport.h"
#include "ckpt/Dialect/Ckpt/IR/BudgetAttr.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Dialect/Ckpt/Transforms/PlanSummary.h"
#include "ckpt/Plan/MemoryPlan.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::ckpt {
#define GEN_PASS_DEF_FITARENAPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;

namespace {

/// Places checkpoints and plans memory for every function; with a budget,
/// re-places with a tightened target while the planned arena is over it.
/// Each attempt runs on a copy of the original function inside a scratch
/// module nested in this one, so a rejected attempt leaves nothing behind.
struct FitArenaPass
    : public mlir::ckpt::impl::FitArenaPassBase<FitArenaPass> {
  using FitArenaPassBase::FitArenaPassBase;

  void runOnOperation() override;

private:
  /// Runs placement and planning on a copy of `func` carrying `resolved`
  /// (if any) as its `ckpt.budget`; returns the scratch module holding the
  /// planned copy, or null on failure. Placement's summary remark is kept in
  /// `summary`, not shown: only the attempt whose arena fits is reported.
  ModuleOp attempt(func::FuncOp func,
                   const std::optional<ResolvedBudget> &resolved,
                   std::string &summary);

  LogicalResult fitFunction(func::FuncOp func);
};

} // namespace

ModuleOp FitArenaPass::attempt(func::FuncOp func,
                               const std::optional<ResolvedBudget> &resolved,
                               std::string &summary) {
  summary.clear();
  PlanSummaryCapture keepSummary(&getContext(), summary);
  OpBuilder builder(getOperation().getBodyRegion());
  builder.setInsertionPointToEnd(getOperation().getBody());
  auto scratch = builder.create<ModuleOp>(func.getLoc());
  Operation *copy = func.clone();
  if (resolved)
    setBudget(copy, *resolved);
  scratch.getBody()->push_back(copy);
  // Placement's options are this pass's (the list they share); it reads
  // the budget from `ckpt.budget`, not as text, and counts buffers as the
  // plan will hold them.
  PlaceCheckpointsPassOptions place;
#define CKPT_PLACEMENT_OPTION(TYPE, FIELD, ARG, DEFAULT, DESC)                  \
  place.FIELD = FIELD;
#define CKPT_OFFLOAD_OPTION CKPT_PLACEMENT_OPTION
#include "ckpt/PipelineOptions.def"
  place.budget = BudgetOption();
  place.alignment = alignment;
  PlanMemoryPassOptions plan;
  plan.alignment = alignment;
  plan.inPlace = inPlace;
  plan.verify = verifyPlan;
  OpPassManager pm(ModuleOp::getOperationName());
  pm.addNestedPass<func::FuncOp>(createPlaceCheckpointsPass(place));
  pm.addPass(createPlanMemoryPass(plan));
  if (failed(runPipeline(pm, scratch))) {
    scratch.erase();
    return nullptr;
  }
  return scratch;
}

void FitArenaPass::runOnOperation() {
  // Parsed with the options; a budget set from C++ may still be invalid.
  if (!budget.getValue().getError().empty()) {
    // As placement words it: the budget is placement's option.
    emitError(UnknownLoc::get(&getContext()))
        << "ckpt-place-checkpoints: " << budget.getValue().getError();
    return signalPassFailure();
  }
  SmallVector<func::FuncOp> funcs;
  for (auto func : getOperation().getOps<func::FuncOp>())
    if (!func.isExternal())
      funcs.push_back(func);
  for (func::FuncOp func : funcs)
    if (failed(rejectHostCopies(
            func, "ckpt-fit-arena",
            "it places checkpoints (with offload= too) on a step without "
            "copies, and this one is placed already")) ||
        failed(fitFunction(func)))
      return signalPassFailure();
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
  // The budget in the scope's terms, resolved once (a fraction of the
  // no-recompute peak in the scope, as placement resolves it) into
  // `ckpt.budget`, and the arena's limit in whole-step terms: the arena
  // holds everything, so in `activations` what the scope leaves out
  // (arguments, device workspace, every parameter gradient) is added.
  std::optional<ResolvedBudget> resolved;
  int64_t limit = -1;
  if (!budget.empty()) {
    FailureOr<MemoryTimeline> timeline = computeMemoryTimeline(func);
    if (failed(timeline))
      return failure();
    int64_t bytes = budget.getValue().getBudget()->resolve(
        computeScopedPeak(*timeline, budgetScope).bytes);
    resolved = ResolvedBudget{bytes, budgetScope, budget.getValue().getText(),
                              std::nullopt};
    limit = addSat(bytes, outOfScopeBytes(*timeline, budgetScope, alignment));
  }

  const int64_t initialTarget = resolved ? resolved->bytes : -1;
  int64_t target = initialTarget;
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
      scratch = attempt(func, resolved, summary);
      if (!scratch)
        return failure();
    } else {
      // A tightened target may be infeasible: then a looser one is tried
      // next, so placement's own diagnostics are not shown.
      ScopedDiagnosticHandler quiet(&getContext(),
                                    [](Diagnostic &) { return success(); });
      scratch = attempt(func, resolved, summary);
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
                 << budget.getValue().getText() << " so that the arena fits it)";
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
    if (resolves == maxResolves)
      break;
    // The next target, in the scope's terms. Until placement fails, below
    // the budget by what the packer lost (doubling with every miss), so that
    // a plan that packs as this one did fits, and at least one alignment
    // unit below the last; then halfway between the tightest target over
    // the limit and the loosest without a plan.
    if (noPlanTarget < 0) {
      int64_t lost = std::max<int64_t>(packingLoss, alignment);
      target = std::min<int64_t>(overTarget - alignment,
                                 initialTarget - (lost << resolves));
    } else {
      if (overTarget - noPlanTarget <= alignment)
        break;
      target = noPlanTarget + (overTarget - noPlanTarget) / 2;
    }
    if (target <= 0)
      break;
    resolved->target = target;
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
  if (budgetScope != BudgetScope::Step)
    diag.attachNote(func.getLoc())
        << "the arena holds the whole step: its budget is the budget-scope="
        << stringifyBudgetScope(budgetScope) << " budget plus "
        << formatBytes(limit - initialTarget) << " (" << limit - initialTarget
        << " bytes) of parameters, inputs, gradients and device workspace";
  return failure();
}
