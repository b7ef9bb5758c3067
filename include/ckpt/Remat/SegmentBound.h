//===- SegmentBound.h - Lagrangian bound over read segments -----*- C++ -*-===//
//
// A lower bound on the recomputation cost that links the per-node knapsacks
// of `computeCostLowerBound`. Point x is the first computation of node x.
// A recomputable value v is "crossing" at x when v < x < last read of v and
// x does not read v. Between two consecutive reads of v (or the last read
// and the end, for an output) lies a *segment* of points: if v is absent
// from memory at any point of the segment, v is computed again before the
// segment's closing read, and computations for distinct segments are
// distinct. So every schedule pays at least cost(v) per segment in which v
// is absent somewhere, and at every point x the values present fit the
// budget. Relaxing the memory constraints with multipliers lambda_x >= 0
// gives, for any lambda, the valid bound
//   L(lambda) = sum_x lambda_x (need_x - budget)
//             + sum_{segments s of v} min(0, cost(v) - bytes(v) sum_{x in s}
//                                                         lambda_x),
// where need_x is what must be in memory at x if every crossing value were
// kept. Subgradient ascent on lambda, with a deterministic iteration cap,
// keeps the best L; any iterate is a valid bound. See docs/checkpointing.md.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_SEGMENTBOUND_H
#define CKPT_REMAT_SEGMENTBOUND_H

#include "ckpt/Remat/RematProblem.h"

#include <cstdint>

namespace mlir::ckpt::remat {

/// The segment bound and how it was reached.
struct SegmentBound {
  /// Lower bound on the recomputation cost (base cost excluded) of every
  /// valid schedule within the budget; 0 when the problem is malformed or
  /// some node's own floor is over the budget (the knapsack bound proves
  /// that case infeasible).
  double recomputeCost = 0;
  /// Subgradient iterations run, and whether the work cap stopped them.
  int32_t iterations = 0;
  bool capped = false;
};

/// Computes the segment bound of `problem` under `budgetBytes` (fixed bytes
/// included). One iteration is linear in nodes plus segments; at most
/// `maxIterations` run, fewer when `maxWork` (iterations times that size)
/// would be exceeded. The result is valid whatever the cap.
SegmentBound computeSegmentBound(const Problem &problem, int64_t budgetBytes,
                                 int32_t maxIterations = 300,
                                 int64_t maxWork = 30'000'000);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_SEGMENTBOUND_H
