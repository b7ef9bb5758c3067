//===- StageSpace.h - Shared pieces of the exact engines --------*- C++ -*-===//
//
// Internal to CkptRemat: the grouping of nodes into stages (a node with its
// projections) and the final check of a schedule that both exact engines
// share.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_REMAT_STAGESPACE_H
#define CKPT_LIB_REMAT_STAGESPACE_H

#include "ckpt/Remat/ExactSolvers.h"

#include <chrono>
#include <cstdint>
#include <vector>

namespace mlir::ckpt::remat::detail {

/// The stages of a problem: group g holds the nodes [begin[g], begin[g+1]),
/// a primary followed by its projections (or a single plain node).
struct StageGroups {
  /// First node of every group, plus the node count at the end.
  std::vector<int32_t> begin;
  /// The group of every node.
  std::vector<int32_t> groupOf;
  /// Whether each group may be recomputed.
  std::vector<bool> recomputable;
  /// Total cost of one computation of each group.
  std::vector<double> cost;

  /// Number of groups (= stages).
  int32_t size() const { return static_cast<int32_t>(cost.size()); }
};

/// Groups the nodes of a well-formed `problem`.
StageGroups buildStageGroups(const Problem &problem);

/// Appends the members of group `g` to `order`.
void appendGroup(const StageGroups &groups, int32_t g,
                 std::vector<int32_t> &order);

/// The inputs of every node of `problem`, each list sorted and without
/// repeats.
std::vector<std::vector<int32_t>> uniqueDeps(const Problem &problem);

/// Whether every node of `problem` may be recomputed, none is a
/// projection, and the last node is the only output: the form whose
/// schedules may first compute the nodes in any order (ReorderedSchedules.h,
/// BackwardSearch.h).
bool isFreelyReorderable(const Problem &problem);

/// Removes, latest first, every recomputation of a group whose removal
/// keeps `schedule` within `budgetBytes` without raising its cost (reads then
/// bind to an earlier computation). Returns the number removed.
int64_t dropNeedlessRecomputations(const Problem &problem, int64_t budgetBytes,
                                   Schedule &schedule);

/// Evaluates `result.schedule` and fills `cost` and `peakBytes`. Returns an
/// empty string if the schedule is valid and within `budgetBytes`, and the
/// reason otherwise.
std::string checkSchedule(const Problem &problem, int64_t budgetBytes,
                          SolveResult &result);

/// The start of every exact solve: times it and rejects malformed problems.
class SolveClock {
public:
  SolveClock() : start(std::chrono::steady_clock::now()) {}

  /// Returns false, with the reason in `result.message`, if `problem` is
  /// malformed.
  bool accept(const Problem &problem, SolveResult &result) const {
    std::optional<std::string> error = problem.validate();
    if (error)
      result.message = "malformed problem: " + *error;
    return !error;
  }

  /// Stamps the elapsed wall time into `result` and returns it.
  SolveResult finish(SolveResult &result) const {
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    return result;
  }

private:
  std::chrono::steady_clock::time_point start;
};

} // namespace mlir::ckpt::remat::detail

#endif // CKPT_LIB_REMAT_STAGESPACE_H
