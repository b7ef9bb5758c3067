//===- BackwardSearch.h - Pebbling search back from the last node -*- C++ -*-===//
//
// A search for any schedule within a budget, run backward in time, that
// either finds one or proves that none exists.
//
// Looking back from a moment when a set S of values is in memory: one of
// them, h, was computed last, and while it was computed, the rest of S and
// h's inputs were in memory. So S at that moment implies the set
// S - {h} + inputs(h) at an earlier one, with S + inputs(h) in memory in
// between. Reading such a chain forward gives a schedule -- compute h, free
// what the later set does not hold -- and every valid schedule contains one
// (take, at each step back, the member computed most recently), with no
// more live bytes at any step. So a budget is feasible exactly when the
// empty set can be reached from {last node} by steps back whose sets, with
// h's inputs, output and workspace, fit the budget: the problem becomes a
// search in the space of sets.
//
// Search. Best first: the sets whose ancestors (themselves included) are
// fewest come first -- every ancestor must still be computed, so that is
// the work left -- then the lighter ones. A set that holds a set already
// reached (one or two members more) is skipped: anything computed from the
// larger set can be computed from the smaller one with fewer live bytes, by
// a chain no longer. With that pruning, a search that runs out of sets to
// visit proves that no schedule fits the budget.
//
// A step back that computes h while h is still an ancestor of another
// member of the set is a recomputation; the search minimizes none of that
// cost (it settles feasibility), and its schedules first compute nodes in
// an order of their own: `solveReordered` replays them in the problem's.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_BACKWARDSEARCH_H
#define CKPT_REMAT_BACKWARDSEARCH_H

#include "ckpt/Remat/RematProblem.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::ckpt::remat {

/// Limits of `searchBackward`; both deterministic (no wall clock).
struct BackwardSearchOptions {
  /// Work cap: sets looked up or built, counted in members touched (about
  /// 10^8 a second; the 250-node random layered graph at its floor takes
  /// 6.3 * 10^8).
  int64_t maxWork = 1'000'000'000;
  /// Cap on the members of all sets kept (the search's memory, 4 bytes each).
  int64_t maxStoredMembers = 50'000'000;
  /// Largest problem searched (the ancestor sets take n^2 bits).
  int32_t maxNodes = 8192;
  /// Search only schedules whose first computations follow the problem's
  /// order: a step back may then compute a node for the last time (going
  /// back; its first computation, going forward) only if it is the latest
  /// member of the set. Such a schedule needs no replay, so it is far
  /// cheaper; but the pruning of supersets is not known to keep this
  /// narrower search complete, so running out of sets proves nothing
  /// (`Capped`, not `Exhausted`).
  bool problemOrder = false;
  /// Find the cheapest sequence instead of any: best first by the cost
  /// spent plus the costs of the nodes left to compute (each must be
  /// computed at least once, so that never overstates the rest: A*), and a
  /// set is skipped only when it holds a set reached at no higher cost. The
  /// first set expanded that needs nothing more ends the search, so a
  /// `Found` sequence is the cheapest one within the budget (in windows
  /// too). Used by the cost repair (CostRepair.h) on windows.
  bool minimizeCost = false;
};

/// What `searchBackward` found.
struct BackwardSearchResult {
  enum class Outcome {
    /// `computations` is a valid schedule within the budget.
    Found,
    /// Every set within the budget was visited: no schedule fits it.
    Exhausted,
    /// A limit of `BackwardSearchOptions` stopped the search.
    Capped,
    /// The problem is not of the form searched (see `searchBackward`).
    NotApplicable,
  };
  Outcome outcome = Outcome::NotApplicable;
  /// The schedule (Found): every node computed at least once, the last node
  /// last, first computations in an order of the search's own (the
  /// problem's with `problemOrder`).
  std::vector<int32_t> computations;
  /// Sets expanded.
  int64_t expanded = 0;
  /// Work spent, in the units of `BackwardSearchOptions::maxWork`.
  int64_t work = 0;
  /// Why the search is not applicable or stopped.
  std::string message;
};

/// A stretch of a schedule to plan again (`searchBackwardWindow`): the
/// values it must leave in memory at its end, and those in memory at its
/// start, free to read.
struct BackwardWindow {
  /// Values that must be live when the window ends (node ids).
  std::vector<int32_t> needed;
  /// Values live when the window starts (node ids).
  std::vector<int32_t> available;
  /// With `problemOrder`: the nodes from this one on (by index) are not
  /// computed before the window (its schedule, in the problem's order, has
  /// computed exactly the nodes before it), so the window computes them for
  /// the first time, in the problem's order.
  int32_t firstNew = 0;
  /// With `problemOrder`: the first node not computed by the window's end;
  /// the window computes every node from `firstNew` up to it for the
  /// first time, even those no later step reads (the order needs them).
  int32_t endNew = 0;
};

/// Searches, as described above, for a schedule of `problem` within
/// `budgetBytes` (fixed bytes included). Applies to well-formed problems of
/// at most `maxNodes` nodes, all recomputable, without projections, whose
/// only output is the last node and every other node an ancestor of it (the
/// random layered graphs).
BackwardSearchResult searchBackward(const Problem &problem,
                                    int64_t budgetBytes,
                                    const BackwardSearchOptions &options = {});

/// The same search over a window of a schedule: from the set `needed` back
/// to any set of `available` values (instead of from {last node} to the
/// empty set). `computations`, when found, is a sequence that, run with the
/// available values in memory, leaves the needed ones in memory without
/// exceeding `budgetBytes` (the values held across the window count: they
/// are needed). `Exhausted` says only that no such sequence exists for
/// these two sets, nothing about the problem. Set pairs (a set holding a
/// reached set plus two members) are pruned on sets of at most
/// `kMaxPairPrunedMembers` members (above, single members only: the pair
/// test is quadratic). With `problemOrder`, the window's first
/// computations of the nodes from `firstNew` on follow the problem's order
/// (as for the whole problem, running out of sets proves nothing).
BackwardSearchResult searchBackwardWindow(const Problem &problem,
                                          int64_t budgetBytes,
                                          const BackwardWindow &window,
                                          const BackwardSearchOptions &options);

/// Largest set on which `searchBackwardWindow` looks for reached sets two
/// members smaller.
constexpr size_t kMaxPairPrunedMembers = 64;

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_BACKWARDSEARCH_H
