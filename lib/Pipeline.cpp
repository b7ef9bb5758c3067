//===- Pipeline.cpp - The ckpt-opt pass pipeline for embedders ------------===//
//
// Optionally the chunked loss head, then placement, then the memory plan. With a budget, the arena (not the
// simulated peak) is what must fit: `ckpt-fit-arena` re-runs placement with
// a target tightened by what packing lost when the planned arena is over,
// and reports the smallest arena when none fits.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Pipeline.h"

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::ckpt;

void mlir::ckpt::buildCkptPipeline(OpPassManager &pm,
                                   const CkptPipelineOptions &options) {
  if (!options.deviceWorkspace.getValue().empty()) {
    ReserveDeviceWorkspacePassOptions reserve;
    reserve.size = options.deviceWorkspace;
    pm.addNestedPass<func::FuncOp>(createReserveDeviceWorkspacePass(reserve));
  }
  // A loss head is chunked as asked, or by default only when the budget is
  // below its proven floor.
  bool whenNeeded = options.chunkLossHead == 1 && options.chunkWhenInfeasible &&
                    options.budget.getValue().getBudget().has_value();
  if (options.chunkLossHead != 1 || whenNeeded) {
    ChunkLossHeadPassOptions chunk;
    chunk.chunks = whenNeeded ? 0 : options.chunkLossHead;
    chunk.whenNeeded = whenNeeded;
    chunk.budgetScope = options.budgetScope;
    chunk.budget = options.budget;
    chunk.objective = options.objective;
    chunk.profile = options.profile;
    pm.addNestedPass<func::FuncOp>(createChunkLossHeadPass(chunk));
  }
  if (!options.planMemory) {
    PlaceCheckpointsPassOptions place;
#define CKPT_PLACEMENT_OPTION(TYPE, FIELD, ARG, DEFAULT, DESC)                  \
  place.FIELD = options.FIELD;
#define CKPT_OFFLOAD_OPTION CKPT_PLACEMENT_OPTION
#include "ckpt/PipelineOptions.def"
    pm.addNestedPass<func::FuncOp>(createPlaceCheckpointsPass(place));
    return;
  }
  FitArenaPassOptions fit;
#define CKPT_PLACEMENT_OPTION(TYPE, FIELD, ARG, DEFAULT, DESC)                  \
  fit.FIELD = options.FIELD;
#define CKPT_FIT_ARENA_OPTION CKPT_PLACEMENT_OPTION
#define CKPT_OFFLOAD_OPTION CKPT_PLACEMENT_OPTION
#include "ckpt/PipelineOptions.def"
  pm.addPass(createFitArenaPass(fit));
}

void mlir::ckpt::registerCkptPipeline() {
  PassPipelineRegistration<CkptPipelineOptions>(
      "ckpt-pipeline",
      "The ckpt-opt pipeline: checkpoint placement under a memory budget, "
      "then the memory plan, with the budget checked on the arena",
      buildCkptPipeline);
}
