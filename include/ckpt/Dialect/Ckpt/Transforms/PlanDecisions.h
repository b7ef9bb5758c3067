//===- PlanDecisions.h - A checkpoint plan as data for other tools -*- C++
//-*-===//
//
// What a placement decided, per value of the step as it was given (before
// materialization): whether the forward computation of a value is kept for
// the backward pass ("saved"), and how often the plan computes it. Frameworks
// that execute the step with their own kernels (the `torch.compile` backend
// in python/ckpt_torch) read this to partition their own graph by the plan.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_PLANDECISIONS_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_PLANDECISIONS_H

#include "ckpt/Dialect/Ckpt/Transforms/RematLowering.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::ckpt {

/// The figures of a plan that accompany its decisions.
struct PlanFigures {
  std::string strategy;
  std::string objective;
  BudgetScope scope = BudgetScope::Step;
  /// The budget in bytes in `scope` (-1: none) and as the user typed it.
  int64_t budgetBytes = -1;
  std::string budgetText;
  /// The tighter target placement aimed at (`ckpt.budget`'s `target`, set
  /// by `ckpt-fit-arena` re-solves); -1: the budget itself.
  int64_t targetBytes = -1;
  /// Peaks in `scope`: without recomputation and of the plan (the latter as
  /// re-checked on the rewritten IR).
  int64_t noRecomputePeakBytes = 0;
  int64_t peakBytes = 0;
  /// Recomputation cost over the step's base cost, in `objective` terms.
  double overhead = 0;
  /// Number of recomputed ops in the rewritten IR.
  int64_t recomputedOps = 0;
  /// The engine's explanation (engine, status, proven bound), if any,
  /// without its timings.
  std::string engineNote;
  /// The engine that found the plan (the strategy's name for baselines).
  std::string engine;
  /// A proven lower bound on the overhead of every plan within the budget,
  /// when the engine gives one.
  std::optional<double> lowerBoundOverhead;
};

/// The per-value decisions of `schedule` on `problem` (built from `func`
/// before it is rewritten): one entry per problem node with its bytes, its
/// number of computations and whether its first computation is read after
/// the first backward step (a value the forward pass saves); and, for every
/// result of every op in body order (views included, through their storage
/// root), the node holding its storage. Op indices count the body's ops in
/// order, which for imported graphs is the order of the JSON `nodes`.
struct PlanDecisions {
  struct NodeDecision {
    int64_t bytes = 0;
    bool forward = false;
    bool saved = false;
    int32_t computations = 0;
  };
  struct ValueDecision {
    int32_t op = 0;
    int32_t result = 0;
    /// The problem node of the value's storage root; -1 for an argument.
    int32_t node = -1;
  };
  std::vector<NodeDecision> nodes;
  std::vector<ValueDecision> values;
  /// Sum of `bytes` over saved nodes.
  int64_t savedBytes = 0;
};

/// Computes the decisions (see PlanDecisions). `func` must not have been
/// rewritten yet: `problem`'s origins point into it.
PlanDecisions computePlanDecisions(func::FuncOp func,
                                   const RematProblemWithOrigins &problem,
                                   const remat::Schedule &schedule);

/// Writes `decisions` and `figures` of function `name` as one JSON document
/// (format "ckpt-plan-decisions", version 1; docs/checkpointing.md).
void printPlanDecisionsJson(llvm::StringRef name, const PlanFigures &figures,
                            const PlanDecisions &decisions,
                            llvm::raw_ostream &os);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_PLANDECISIONS_H
