//===- Pipeline.cpp - The ckpt-opt pass pipeline for embedders ------------===//

#include "ckpt/Pipeline.h"

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::ckpt;

void mlir::ckpt::buildCkptPipeline(OpPassManager &pm,
                                   const CkptPipelineOptions &options) {
  PlaceCheckpointsPassOptions place;
  place.budget = options.budget;
  place.budgetScope = options.budgetScope;
  place.strategy = options.strategy;
  place.objective = options.objective;
  place.profile = options.profile;
  place.timeLimit = options.timeLimit;
  pm.addNestedPass<func::FuncOp>(createPlaceCheckpointsPass(place));
}

void mlir::ckpt::registerCkptPipeline() {
  PassPipelineRegistration<CkptPipelineOptions>(
      "ckpt-pipeline",
      "The ckpt-opt pipeline: checkpoint placement under a memory budget "
      "(later: memory planning, code generation)",
      buildCkptPipeline);
}
