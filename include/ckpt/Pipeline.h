//===- Pipeline.h - The ckpt-opt pass pipeline for embedders ------*- C++ -*-===//
//
// One function builds the pipeline the tool, the tests and embedders run, from
// one options struct; it is also registered as `ckpt-pipeline`.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PIPELINE_H
#define CKPT_PIPELINE_H

#include "ckpt/Analysis/BudgetScope.h"
#include "ckpt/Analysis/Objective.h"
#include "ckpt/Dialect/Ckpt/Transforms/BudgetOption.h"
#include "ckpt/Dialect/Ckpt/Transforms/DeviceWorkspaceOption.h"
#include "ckpt/Dialect/Ckpt/Transforms/StrategyOption.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::ckpt {

/// Options of the whole pipeline, declared from PipelineOptions.def (the
/// one list). Fields can be set directly from C++ (`options.budget = "0.5x";`)
/// or parsed from a pipeline string (`ckpt-pipeline{budget=0.5x
/// strategy=greedy}`).
struct CkptPipelineOptions : public PassPipelineOptions<CkptPipelineOptions> {
#define CKPT_PIPELINE_FIELD(TYPE, FIELD, ARG, DEFAULT, DESC)                    \
  Option<TYPE> FIELD{*this, ARG, llvm::cl::desc(DESC),                         \
                     llvm::cl::init(DEFAULT)};
#define CKPT_PLACEMENT_OPTION CKPT_PIPELINE_FIELD
#define CKPT_OFFLOAD_OPTION CKPT_PIPELINE_FIELD
#define CKPT_FIT_ARENA_OPTION CKPT_PIPELINE_FIELD
#define CKPT_PIPELINE_ONLY_OPTION CKPT_PIPELINE_FIELD
#include "ckpt/PipelineOptions.def"
#undef CKPT_PIPELINE_FIELD
};

/// Adds the ckpt pipeline to `pm` (anchored on `builtin.module`): checkpoint
/// placement under the budget on every function, with the result re-checked
/// by the memory simulation, then (with `plan-memory`) the memory plan. With
/// a budget, the planned arena must fit it: if fragmentation or alignment
/// push it over, placement is re-run from the original function under a
/// target below the budget by what packing lost (doubling with every miss);
/// once a target has no plan, the next lies halfway between it and the
/// tightest target whose arena was over; at most `max-resolves` times, after
/// which the pipeline fails saying by how much the smallest arena planned
/// misses the budget. With
/// `device-workspace`, `ckpt-reserve-device-workspace` first marks every
/// function with the device scratch its runtime holds, so the peak, the
/// budget and the plan include it. Code generation (`--emit=`) is run by the
/// tool on the planned module.
void buildCkptPipeline(OpPassManager &pm, const CkptPipelineOptions &options);

/// Registers `ckpt-pipeline` with the global pass-pipeline registry.
void registerCkptPipeline();

} // namespace mlir::ckpt

#endif // CKPT_PIPELINE_H
