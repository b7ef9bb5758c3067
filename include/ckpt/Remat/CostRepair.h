//===- CostRepair.h - Lowering a plan's cost window by window ----*- C++ -*-===//
//
// A large-neighbourhood search that lowers the cost of a plan at a fixed
// budget: the improvement stage of the `optimal` strategy, run on the best
// plan the scalable engines found.
//
// A window is a stretch of steps of the schedule: the values live before it
// are free to read, those live after it must be in memory at its end, and
// every value held across it counts against the budget throughout. The
// backward search of BackwardSearch.h with `minimizeCost` plans such a
// window again exactly: the cheapest sequence of computations that leaves
// the needed values in memory within the budget. Where that is cheaper than
// the window's own steps, and the schedule with the new window still first
// computes the nodes in the problem's order (so it needs no replay), the
// window is replaced. The windows slide over the schedule, half overlapping,
// pass after pass until a pass improves nothing, then twice as wide.
//
// Every accepted window lowers the total cost and keeps the peak within the
// budget, so the result is never worse than the start. All limits are work
// counts of the backward search (no wall clock), so the result is
// deterministic. The search applies only where the backward search does
// (every node recomputable, no projections, the last node the only output:
// the random layered graphs, Checkmate's training graphs), and the stage
// runs only on problems of at most `maxNodes` nodes, so large graphs keep
// their speed.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_COSTREPAIR_H
#define CKPT_REMAT_COSTREPAIR_H

#include "ckpt/Remat/RematProblem.h"

#include <cstdint>
#include <string>

namespace mlir::ckpt::remat {

/// Limits of `improveByWindows`; all deterministic (no wall clock).
struct CostRepairOptions {
  /// Largest problem improved (larger ones are returned unchanged).
  int32_t maxNodes = 1000;
  /// Width, in steps, of the windows of the first passes.
  int32_t width = 16;
  /// Times the width is doubled once a pass improves nothing.
  int32_t widenings = 2;
  /// Work cap of each window's backward search (its units: about 10^8 a
  /// second).
  int64_t windowWork = 20'000'000;
  /// Work cap of the whole stage, summed over windows.
  int64_t maxWork = 50'000'000;
  /// `solveOptimal` skips the stage when the best plan's cost is within
  /// this fraction of the proven lower bound (nothing worth the time to
  /// gain).
  double skipWithinBound = 0.001;
};

/// What `improveByWindows` made of a plan.
struct CostRepairResult {
  /// The cheapest schedule reached (the start when nothing improved), in
  /// the problem's order.
  Schedule schedule;
  /// Its total cost.
  double cost = 0;
  /// Windows searched, and windows replaced by a cheaper plan.
  int32_t windowsSearched = 0;
  int32_t windowsImproved = 0;
  /// Cheaper windows rejected because the schedule would first compute
  /// nodes out of the problem's order.
  int32_t windowsOutOfOrder = 0;
  /// Windows whose search stopped at its work cap.
  int32_t windowsCapped = 0;
  /// Work spent.
  int64_t work = 0;
  /// What happened, for messages.
  std::string message;
};

/// Lowers the total cost of `start`, a valid schedule of `problem` within
/// `budgetBytes`, as described above. Returns `start` unchanged, with a
/// message, when it is not valid or not within the budget, or the problem
/// is not of the form searched or larger than `options.maxNodes`.
CostRepairResult improveByWindows(const Problem &problem, int64_t budgetBytes,
                                  const Schedule &start,
                                  const CostRepairOptions &options = {});

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_COSTREPAIR_H
