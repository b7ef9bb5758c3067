//===- LowerBound.h - Proven lower bounds on recomputation cost -*- C++ -*-===//
//
// A bound that holds for every valid schedule (not only the stage space of
// the exact engines), cheap enough for graphs of any size. At the first
// computation of node x, every schedule holds in memory: the fixed bytes,
// x's output, workspace and inputs, and every non-recomputable value still
// to be read. Each recomputable value computed before x and read after it
// (or an output) is either in memory too, or computed again after x, which
// costs at least its op's cost. So the cost of the recomputations after x
// is at least the cheapest way to leave out enough such values to fit the
// budget: a knapsack, whose fractional relaxation (greedy by cost per byte)
// is a lower bound. The bound is the largest over all x.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_LOWERBOUND_H
#define CKPT_REMAT_LOWERBOUND_H

#include "ckpt/Remat/RematProblem.h"

#include <cstdint>

namespace mlir::ckpt::remat {

/// A proven lower bound on the recomputation cost.
struct CostLowerBound {
  /// Lower bound on the total cost (base cost included) of every valid
  /// schedule within the budget; +infinity if no schedule fits.
  double totalCost = 0;
  /// The node whose first computation gives the bound (-1: the base cost).
  int32_t node = -1;
  /// A lower bound on the peak of every valid schedule: the largest, over
  /// the nodes, of what must be in memory while it is first computed (fixed
  /// bytes, its output, workspace and inputs, non-recomputable values still
  /// to be read); and the node that sets it.
  int64_t memoryFloor = 0;
  int32_t floorNode = -1;
};

/// Computes the bound for `problem` under `budgetBytes` (fixed bytes
/// included). Linear in the problem size times the number of values alive
/// at a time; `maxWork` caps the knapsack steps (the bound stays valid, only
/// less tight, when the cap is reached).
CostLowerBound computeCostLowerBound(const Problem &problem,
                                     int64_t budgetBytes,
                                     int64_t maxWork = 50'000'000);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_LOWERBOUND_H
