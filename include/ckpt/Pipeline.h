//===- Pipeline.h - The ckpt-opt pass pipeline for embedders ------*- C++ -*-===//
//
// One function builds the pipeline the tool, the tests and embedders run, from
// one options struct; it is also registered as `ckpt-pipeline`.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PIPELINE_H
#define CKPT_PIPELINE_H

#include "ckpt/Analysis/BudgetScope.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::ckpt {

/// Options of the whole pipeline. Fields can be set directly from C++
/// (`options.budget = "0.5x";`) or parsed from a pipeline string
/// (`ckpt-pipeline{budget=0.5x strategy=greedy}`).
struct CkptPipelineOptions : public PassPipelineOptions<CkptPipelineOptions> {
  Option<std::string> budget{
      *this, "budget",
      llvm::cl::desc("Memory budget: bytes with a unit (24GiB, 512MiB, "
                     "4096B) or a fraction of the no-recompute peak (0.5x); "
                     "a bare number is an error; empty: none"),
      llvm::cl::init("")};
  Option<BudgetScope> budgetScope{
      *this, "budget-scope",
      llvm::cl::desc("What the budget and the peak cover: step (everything) "
                     "or activations (saved activations and backward "
                     "temporaries: no parameters, inputs or parameter "
                     "gradients)"),
      llvm::cl::init(BudgetScope::Step)};
  Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("none, full, sqrt, selective, greedy, chain, optimal or exact "
                     "(greedy, optimal and exact need a budget)"),
      llvm::cl::init("optimal")};
  Option<std::string> objective{
      *this, "objective", llvm::cl::desc("time or flops"),
      llvm::cl::init("time")};
  Option<std::string> profile{
      *this, "profile",
      llvm::cl::desc("Hardware profile: h100-sxm, h200, a100-80gb or a .json "
                     "file"),
      llvm::cl::init("h100-sxm")};
  Option<double> timeLimit{
      *this, "time-limit",
      llvm::cl::desc("Time limit of the exact engine, in seconds"),
      llvm::cl::init(60.0)};
  Option<bool> planMemory{
      *this, "plan-memory",
      llvm::cl::desc("Plan every buffer into one arena after placement "
                     "(ckpt-plan-memory) and check the budget on the arena"),
      llvm::cl::init(false)};
  Option<int64_t> alignment{
      *this, "alignment",
      llvm::cl::desc("Alignment of the memory plan, in bytes"),
      llvm::cl::init(256)};
  Option<bool> inPlace{
      *this, "in-place",
      llvm::cl::desc("Let elementwise ops overwrite an operand dying there"),
      llvm::cl::init(true)};
  Option<bool> verifyPlan{
      *this, "verify-plan",
      llvm::cl::desc("Check the memory plan with the independent checker"),
      llvm::cl::init(false)};
  Option<std::string> deviceWorkspace{
      *this, "device-workspace",
      llvm::cl::desc("Device scratch the target runtime holds for the whole "
                     "step, counted in the peak, the budget and the plan: "
                     "cuda (the CUDA runtime's cuBLASLt workspace) or bytes "
                     "with a unit; empty: none"),
      llvm::cl::init("")};
  Option<unsigned> maxResolves{
      *this, "max-resolves",
      llvm::cl::desc("How many times placement is re-run with a tightened "
                     "target when the planned arena exceeds the budget"),
      llvm::cl::init(8)};
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
