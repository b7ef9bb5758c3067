//===- WindowRepair.h - Lowering a schedule's peak window by window -*- C++ -*-===//
//
// A large-neighbourhood search for schedules within tight budgets. Start
// from any valid schedule (in the generic engine, its plan at a looser
// budget), lower a target a little below its peak, and fix, left to right,
// each step whose live bytes exceed the target, by two moves that both use
// the backward search of BackwardSearch.h:
//
// - Eviction: a value live across the step but not read by it is no longer
//   kept until its next read; the search computes it again just before
//   that read, from the values live there (largest values first, at most
//   `evictions` tried). Windows cannot do this when the value's idle
//   stretch is wider than they are: it is live at both their ends.
// - Windows: the stretch around the step is planned again, from the values
//   in memory at a step before it to those in memory at a step after it,
//   both chosen where the schedule holds the fewest bytes nearby; a window
//   that cannot be planned within the target is retried wider (twice as
//   wide, up to `widenings` times).
//
// Windows come alone until a round stops short (their plans recompute
// less), evictions first from then on. Near the smallest feasible budget
// every step nearby is often as full as the one being fixed, so no
// recomputation fits the target anywhere; with `deferExcess` (evictions
// first from the start) an eviction may defer excess: its recomputation,
// just before a later read, may exceed the target (never the round's
// starting peak), and the round, which goes left to right, fixes those
// steps when it reaches them (not by deferring again before the same read:
// such evictions would nest without end). On the random layered graph of
// 500 nodes at 0.5x that meets the budget from the depth-first start
// (3.35 * 10^10 work), where the same repair without deferring stalls at
// 0.511x; on smaller synthetic layered graphs it ends higher more often
// than lower, so `solveReordered` tries it second.
//
// When every step fits, the target is lowered again, until the budget is
// met or a step cannot be fixed (then with a smaller step, down to an
// eighth).
//
// The backward search is exact on a window, so each fix is the whole
// neighbourhood's answer; the windows are small enough that it is fast
// where the search of the whole problem is not (the random layered graphs
// of 500 and 1,000 nodes). Its schedules first compute nodes in an order of
// their own, so `solveReordered` replays them in the problem's.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_WINDOWREPAIR_H
#define CKPT_REMAT_WINDOWREPAIR_H

#include "ckpt/Remat/RematProblem.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::ckpt::remat {

/// Limits of `repairByWindows`; all deterministic (no wall clock).
struct WindowRepairOptions {
  /// Each round's target is the current peak less this fraction of the
  /// peak without recomputation (halved, up to 3 times, when a round
  /// fails).
  double stepFraction = 0.005;
  /// Half width, in steps, of the first window tried around a step over
  /// the target (the boundaries are searched within twice that).
  int32_t halfWidth = 40;
  /// Times a failed window is retried twice as wide.
  int32_t widenings = 3;
  /// Work cap of each window's backward search.
  int64_t windowWork = 1'000'000'000;
  /// Values tried for eviction at a step over the target, once a round has
  /// stopped short (before windows from then on; 0: no evictions).
  int32_t evictions = 6;
  /// Evictions first from the start, and each may defer excess: its
  /// recomputation, just before a later read, may exceed the target (never
  /// the round's starting peak), and the round, going left to right, fixes
  /// those steps when it reaches them.
  bool deferExcess = false;
  /// Work cap of each eviction's backward search.
  int64_t evictionWork = 10'000'000;
  /// Work cap of the whole repair, summed over searches.
  int64_t maxWork = 40'000'000'000;
};

/// What `repairByWindows` made of a schedule.
struct WindowRepairResult {
  /// The lowest-peak schedule reached (any first-computation order).
  std::vector<int32_t> computations;
  /// Its peak (fixed bytes and workspace included).
  int64_t peakBytes = 0;
  /// Whether that peak is within the budget.
  bool fits = false;
  /// Windows planned again, and windows that could not be.
  int32_t windowsFixed = 0;
  int32_t windowsFailed = 0;
  /// Values evicted (computed again before their next read instead).
  int32_t evictions = 0;
  /// Of those, evictions whose recomputation exceeded the target (with
  /// `deferExcess`).
  int32_t deferred = 0;
  /// Work spent.
  int64_t work = 0;
  /// What happened, for messages.
  std::string message;
};

/// Lowers the peak of `start`, a valid schedule of `problem` in any order
/// of first computations, towards `budgetBytes` as described above. Applies
/// where `searchBackwardWindow` does (every node recomputable, no
/// projections, the last node the only output); otherwise, or when `start`
/// is not a valid schedule, returns it unchanged with a message.
WindowRepairResult repairByWindows(const Problem &problem, int64_t budgetBytes,
                                   const std::vector<int32_t> &start,
                                   const WindowRepairOptions &options = {});

/// `computations` with its steps (before, after] replaced by `window`
/// (before = -1: from the start).
std::vector<int32_t> spliceWindow(const std::vector<int32_t> &computations,
                                  int64_t before, int64_t after,
                                  const std::vector<int32_t> &window);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_WINDOWREPAIR_H
