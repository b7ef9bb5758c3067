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
// is a lower bound. The bound is the largest over all x, or the segment
// bound (SegmentBound.h), which links the knapsacks of all points, or the
// dead-input bound (DeadInputBound.h), which charges recomputations' inputs,
// where one of those is larger.
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
  /// The node whose first computation gives the knapsack bound (-1: the
  /// base cost).
  int32_t node = -1;
  /// The knapsack bound alone (base cost included); `totalCost` is the
  /// largest of it, the segment bound (SegmentBound.h) and the dead-input
  /// bound (DeadInputBound.h), each plus the base cost.
  double knapsackCost = 0;
  /// Which bound is the largest.
  enum class Source { Knapsack, Segments, DeadInputs };
  Source from = Source::Knapsack;
  /// A lower bound on the peak of every valid schedule: the largest, over
  /// the nodes, of what must be in memory while it is first computed (fixed
  /// bytes, its output, workspace and inputs, non-recomputable values still
  /// to be read); and the node that sets it.
  int64_t memoryFloor = 0;
  int32_t floorNode = -1;
};

/// Computes the bound for `problem` under `budgetBytes` (fixed bytes
/// included): the largest of the knapsack, segment and dead-input bounds.
/// The knapsack is linear in the problem size times the number of values
/// alive at a time; `maxWork` caps the knapsack steps and, separately, the
/// segment bound's subgradient work (the bound stays valid, only less
/// tight, when a cap is reached).
CostLowerBound computeCostLowerBound(const Problem &problem,
                                     int64_t budgetBytes,
                                     int64_t maxWork = 50'000'000);

/// A lower bound on the peak of every valid schedule that looks back from
/// each computation. While node x is computed, its inputs S are in memory,
/// all computed at earlier steps. One of them, h, was computed last; while
/// h was computed, the rest of S was already in memory (each buffer lives
/// from its computation to its last read), and so were h's own inputs. The
/// schedule chooses h, so the bound takes the smallest such h -- and then
/// looks back again from h's computation with the set S - {h} + inputs(h),
/// up to `depth` steps back. With `depth` 0 it is the plain floor of one
/// node's inputs, output and workspace; the other floors count values
/// this one does not (finished outputs, backward values still to be read),
/// so callers take the largest.
struct LookBackFloor {
  /// Fixed bytes included.
  int64_t bytes = 0;
  /// The node whose computation sets the bound (-1: only the fixed bytes).
  int32_t node = -1;
  /// Whether the work cap stopped the search before every node was looked
  /// back from (the bound is valid, only perhaps lower).
  bool capped = false;
};

/// How many computations back `computeLookBackFloor` looks by default.
inline constexpr int32_t kLookBackDepth = 3;

/// Computes the look-back floor of a well-formed `problem` (returns the
/// fixed bytes for a malformed one). `maxWork` caps the sets examined; the
/// cap is checked between nodes, so the bound is always valid.
LookBackFloor computeLookBackFloor(const Problem &problem,
                                   int32_t depth = kLookBackDepth,
                                   int64_t maxWork = 20'000'000);

/// The largest of the proven floors on every plan's peak: a node's inputs,
/// output and workspace with the finished outputs (`computeMemoryFloor`),
/// the same with every non-recomputable value still to be read
/// (`CostLowerBound::memoryFloor`), and the look-back floor.
struct ProvenFloor {
  /// Fixed bytes included.
  int64_t bytes = 0;
  /// The node that sets it (-1: only the fixed bytes).
  int32_t node = -1;
  /// Whether the look-back floor is the largest.
  bool lookedBack = false;
};

/// Computes the largest proven floor of a well-formed `problem`.
ProvenFloor computeProvenFloor(const Problem &problem);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_LOWERBOUND_H
