//===- ReorderedSchedules.h - Plans found in another order -------*- C++ -*-===//
//
// Whether a budget can be met does not depend on the order in which the
// nodes are first computed. Any valid schedule S, whatever its order, can be
// run in the problem's order: stage t computes node t by replaying, from
// nothing live, the computations of S's prefix up to node t's first
// computation that node t needs (transitively). Those computations are of
// node t's ancestors, which the problem's order (topological) has already
// computed once, so the stage's first computation is node t's; and a subset
// of a prefix of S never has more live bytes than S. So the smallest budget
// any schedule meets in the problem's order is the smallest budget any
// schedule meets in any order (with outputs only at the end, as in the
// random layered graphs; `evaluateSchedule` re-checks every result).
//
// This engine uses that: it renumbers the problem in a few orders that need
// less memory without recomputation (Sethi-Ullman depth-first from the last
// node; the best of several randomized greedy list schedules that free the
// most bytes first), runs the generic engine there, and replays its plan in
// the problem's order. Replaying from nothing is costly, so each stage first
// keeps, instead of recomputing, the values it needs that are still live in
// the previous stage, as long as the budget holds: as many bytes of them as
// fit, else a quarter as many, and so on; if none fits, it replays from
// nothing.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_REORDEREDSCHEDULES_H
#define CKPT_REMAT_REORDEREDSCHEDULES_H

#include "ckpt/Remat/GenericSolver.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace mlir::ckpt::remat {

/// Topological orders of `problem`'s nodes (each a permutation of node
/// indices) that need less memory than others without recomputation:
/// depth-first from the last node, inputs needing the most memory first, and
/// the best (by no-recompute peak) of `randomTries` randomized greedy list
/// schedules. Requires a problem without projections.
std::vector<std::vector<int32_t>> lowMemoryOrders(const Problem &problem,
                                                  int32_t randomTries = 200);

/// `problem` with its nodes renumbered in `order`, a topological permutation
/// of its node indices (node k of the result is node order[k]).
Problem renumberProblem(const Problem &problem,
                        const std::vector<int32_t> &order);

/// Runs `anyOrder` -- a sequence of computations of `problem`'s nodes that
/// reads only live values and computes every node, in any first-computation
/// order -- in the problem's order as described above, keeping values
/// across stages where `budgetBytes` allows. The result is valid if
/// `anyOrder` is; its peak is checked by the caller.
Schedule replayInProblemOrder(const Problem &problem, int64_t budgetBytes,
                              const std::vector<int32_t> &anyOrder);

/// Gives, for a problem, a valid schedule of it to start the window repair
/// from (such as a plan of the generic engine at a looser budget).
using RepairStartFn = std::function<std::vector<int32_t>(const Problem &)>;

/// Solves a problem in its own order under a budget with the given options:
/// the inner engine `solveReordered` runs on each renumbered problem (the
/// generic engine, `solveGeneric`, which in turn calls `solveReordered` when
/// its own order has no plan; passing it in keeps the two files apart).
using InOrderSolveFn = std::function<SolveResult(
    const Problem &, int64_t budgetBytes, const GenericOptions &)>;

/// At most this many starting schedules the engine repairs (lowest peak
/// first) before it gives up on the window repair.
inline constexpr int32_t kMaxRepairStarts = 2;

/// The engine: with `options.backwardSearch`, `searchBackward`
/// (BackwardSearch.h) narrowed to the problem's order (a plan there needs
/// no replay); if that finds none, the backward search in full, whose plan
/// is replayed and whose exhausted search returns `Infeasible`; if still
/// none, with `options.windowRepair` and `repairStart`, `repairByWindows`
/// (WindowRepair.h): `repairStart` gives a starting schedule for the
/// problem and for the problem renumbered in each of `lowMemoryOrders`
/// (called only then), and the repair runs from the ones with the lowest
/// peaks (at most `kMaxRepairStarts`), from each as configured and then
/// deferring excess, until one fits (each run capped at
/// `options.repair.maxWork`, all sharing twice that); its plan is replayed
/// too. Then `lowMemoryOrders`, `solveInOrder` (with `options`, narrowed to
/// a smaller search in the given order) on the problem renumbered in each,
/// and `replayInProblemOrder`; the cheapest plan within `budgetBytes` wins.
/// Applies only to problems whose nodes are all recomputable, without
/// projections, whose only output is the last node; `Unknown` otherwise, or
/// when nothing gives a plan.
SolveResult solveReordered(const Problem &problem, int64_t budgetBytes,
                           const GenericOptions &options,
                           const InOrderSolveFn &solveInOrder,
                           const RepairStartFn &repairStart = {});

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_REORDEREDSCHEDULES_H
