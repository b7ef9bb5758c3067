//===- DeadInputBound.h - Knapsack bound with the inputs of recomputations -===//
//
// The knapsack bound of `computeCostLowerBound` charges a value left out at
// point x (the first computation of node x) its own op's cost. But its
// recomputation after x reads its inputs; an input u whose last read in the
// problem's order is before x ("dead" at x) is then either still in memory
// at x (its buffer kept past its last read: bytes at x) or computed again
// after x (cost). Several values left out may share u, so u's bytes and
// cost are split evenly between the values crossing x that read it: one
// kept or recomputed u serves them all, and the split charges never add up
// to more than one u. At each point, for a multiplier lambda >= 0 on the
// memory constraint, every value's best choice is independent, so
//   L_x(lambda) = lambda (need_x - budget)
//     + sum_v min(0, cost(v) - lambda bytes(v)
//                    + sum_{u dead at x, read by v} min(cost(u),
//                                                   lambda bytes(u)) / k_u)
// is a valid bound for every lambda (a non-recomputable u is always kept:
// lambda bytes(u) / k_u). It is concave in lambda; a golden-section search
// finds its maximum at the points with the largest need.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_DEADINPUTBOUND_H
#define CKPT_REMAT_DEADINPUTBOUND_H

#include "ckpt/Remat/RematProblem.h"

#include <cstdint>

namespace mlir::ckpt::remat {

/// The dead-input bound and the point that gives it.
struct DeadInputBound {
  /// Lower bound on the recomputation cost (base cost excluded) of every
  /// valid schedule within the budget; 0 for a malformed problem or one
  /// with no point over the budget.
  double recomputeCost = 0;
  /// The node whose first computation gives it (-1: none).
  int32_t node = -1;
};

/// Computes the dead-input bound of `problem` under `budgetBytes` (fixed
/// bytes included) at the `maxPoints` points with the largest need, fewer
/// when the work (crossing values and their inputs, times the search's
/// steps) would pass `maxWork`. Valid whatever the caps.
DeadInputBound computeDeadInputBound(const Problem &problem,
                                     int64_t budgetBytes,
                                     int32_t maxPoints = 16,
                                     int64_t maxWork = 20'000'000);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_DEADINPUTBOUND_H
