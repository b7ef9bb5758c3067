//===- StrategyDispatch.h - The schedule of each strategy -*- C++ -*-===//
//
// One function that gives the schedule of any strategy for a function: the
// engine strategies through `remat::solve`, the baselines (which read the
// IR) here; and what `ckpt-place-checkpoints` reports about it, built from
// the result's typed fields.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_STRATEGYDISPATCH_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_STRATEGYDISPATCH_H

#include "ckpt/Dialect/Ckpt/Transforms/RematLowering.h"
#include "ckpt/Remat/Solve.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LogicalResult.h"

#include <optional>
#include <string>

namespace mlir::ckpt {

/// The schedule a strategy chose for a function, and what is reported.
struct StrategyPlan {
  /// The schedule; none when the strategy found none within the budget. A
  /// baseline's schedule may exceed the budget (the caller checks).
  std::optional<remat::Schedule> schedule;
  /// The engine that found it (None for the baselines).
  remat::Engine engine = remat::Engine::None;
  /// The engine's figures for the remark (" engine=... solve-seconds=...");
  /// "" for the baselines.
  std::string note;
  /// The same without the seconds (" engine=... status=..."): the same input
  /// and options give the same text.
  std::string noteWithoutTimings;
  /// A proven lower bound on the overhead (recompute cost over base cost),
  /// where the engine proved one.
  std::optional<double> boundOverhead;
  /// Without a schedule: what proved that none fits, for the user ("" when
  /// nothing did or a floor did, which the report states itself).
  std::string proof;
  /// Without a schedule and without a proof: what the engines tried, for
  /// the user ("" where the strategy does not say).
  std::string tried;
  /// The proven memory floor where the engine computed it
  /// (`remat::SolveResult::floor`), for the report of a plan that does not
  /// fit; none where it did not.
  std::optional<remat::ProvenFloor> floor;
};

/// Runs `strategy` on `problem` (built from `func`) under `limit` bytes (-1:
/// no budget; the caller has checked `remat::needsBudget`). The `optimal`
/// strategy gets the baselines as seeds. Fails, with an error emitted, only
/// when the exact engine gives up without an answer; a strategy that finds
/// no plan gives a `StrategyPlan` without a schedule.
FailureOr<StrategyPlan> planWithStrategy(func::FuncOp func,
                                         const RematProblemWithOrigins &problem,
                                         remat::Strategy strategy,
                                         int64_t limit,
                                         remat::SolveOptions options);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_STRATEGYDISPATCH_H
