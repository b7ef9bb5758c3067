//===- GenericSolver.h - Rematerialization without a training form -*- C++ -*-//
//
// The scalable engine for the general problem: a DAG run in its given order
// with no forward/backward split, where any recomputable value may be freed
// after one of its reads and computed again before a later one (the random
// layered graphs of Gagrani et al. 2022, inference graphs, or a training
// step whose forward values are also worth recomputing for later forward
// reads).
//
// Solution space. Between two consecutive reads of a value by first
// computations of its readers (or between its first computation and its first
// read) lies a "gap". Each gap of a recomputable value is either kept (the
// buffer stays live through it) or dropped with a recomputation stage r in
// the gap: the buffer is freed after the last read before the gap, computed
// again in stage r (just before the first computation of node r) and kept
// from there to the read that ends the gap. A recomputation needs the
// value's inputs: those live at that stage are read, the others are
// recomputed in the same stage as transient values, recursively. Within a
// stage, recomputations run before the stage's node, in problem order
// (Checkmate's stage space, ExactSolvers.h) or, in the second round of
// fallback descents, depth first: each recomputation right after the ones
// it reads, the inputs that need the most memory first, so transient values
// die sooner and the stage's peak is lower.
//
// Search. Greedy descent from the no-recompute schedule: at the step where
// the live bytes peak, every kept gap (or late-enough recomputation) holding
// a buffer there is a candidate move; the cheapest by estimated recompute
// cost per byte are evaluated exactly, and the one that removes the most
// excess (live bytes over the budget, summed over steps) per unit of added
// cost is applied, until the peak fits. Where that descent gets stuck (tight
// budgets), it starts over up to `fallbackDescents` times, evaluating more
// candidates per step, some also at the highest steps of other stages over
// the budget, taking the move that removes the most excess whatever it
// costs (feasibility first), and also trying to keep, or recompute earlier,
// a value whose recomputation in the peak stage sets the peak; if none
// fits, the first descent and the same fallbacks run again with depth-first
// stages. The first plan that fits goes on. Then local improvement: undo drops,
// move recomputation stages, and an iterated "release one drop, descend
// again" search, all under a deterministic work cap.
//
// Eviction. Also run: the given order simulated under the budget, evicting
// the resident buffer with the least recomputation cost per byte and per
// stage until its next read when a computation does not fit, and recomputing
// evicted buffers where they are read (dynamic tensor rematerialization,
// Kirisame et al. 2021, with the known future). Its plans may leave the
// stage space (e.g. recompute an output at the very end), so it meets some
// budgets the stage space cannot; the cheaper result wins.
//
// Other orders. If all that finds no plan, a search backward from the last
// node (BackwardSearch.h) looks for any schedule within the budget, or
// proves there is none, and the search runs again (smaller) on the problem
// renumbered in orders that need less memory; a plan found either way is
// replayed in the problem's order (ReorderedSchedules.h), the cheapest wins.
//
// Every schedule is judged by the same rules as `evaluateSchedule`, and the
// result is re-checked with it.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_GENERICSOLVER_H
#define CKPT_REMAT_GENERICSOLVER_H

#include "ckpt/Remat/BackwardSearch.h"
#include "ckpt/Remat/WindowRepair.h"
#include "ckpt/Remat/ExactSolvers.h"

#include <cstdint>

namespace mlir::ckpt::remat {

/// Options of `solveGeneric`.
struct GenericOptions {
  /// Candidate moves evaluated exactly per descent step.
  int32_t candidatesPerStep = 6;
  /// Work cap, in evaluated schedule steps plus reads: the search stops
  /// improving when it is spent. Deterministic (no wall clock).
  int64_t maxWork = 600'000'000;
  /// Rounds of the iterated search after the first descent.
  int32_t maxKicks = 400;
  /// Moves per descent that remove no excess (each on a different gap).
  int32_t maxSidewaysMoves = 400;
  /// Descents tried, in a fixed order, when the first one finds no plan
  /// within the budget (at most 8; 0: none, and no depth-first round
  /// either). Each round (problem-order stages, then depth-first stages)
  /// may spend twice `maxWork`; the local search still has its own after
  /// them.
  int32_t fallbackDescents = 8;
  /// When no plan is found in the problem's order: search in other orders
  /// and replay the plan in the problem's (`solveReordered`,
  /// ReorderedSchedules.h), where it applies.
  bool tryOtherOrders = true;
  /// With `tryOtherOrders`: first search backward from the last node
  /// (BackwardSearch.h) and replay its plan too; a search that visits every
  /// set within the budget proves the budget infeasible.
  bool backwardSearch = true;
  /// Limits of that search.
  BackwardSearchOptions backward;
  /// With `tryOtherOrders`, when neither the problem's order nor the
  /// backward search gives a plan: lower the peak of a plan found at a
  /// looser budget by planning its windows again (WindowRepair.h), and
  /// replay the result in the problem's order.
  bool windowRepair = true;
  /// Limits of that repair.
  WindowRepairOptions repair;
};

/// Solves `problem` under `budgetBytes` (fixed bytes included) as described
/// above (and, if that finds no plan, with `solveReordered`). Returns
/// `Feasible` with a re-checked schedule; `Infeasible` (lower bound
/// +infinity) when the backward search of `solveReordered` proves that no
/// schedule at all fits; or `Unknown` when no schedule within the budget is
/// found (`message` says why). Proves no other bound: `lowerBound` is left 0.
SolveResult solveGeneric(const Problem &problem, int64_t budgetBytes,
                         const GenericOptions &options = {});

/// Whether `problem` is a training step in the form the segment-chain engine
/// and the drop-set strategies assume: a non-empty prefix of recomputable
/// (forward) nodes followed by a non-empty suffix of non-recomputable
/// (backward) ones.
bool isTrainingForm(const Problem &problem);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_GENERICSOLVER_H
