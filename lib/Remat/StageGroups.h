//===- StageGroups.h - The stages of the exact engines ------------*- C++
//-*-===//
//
// Internal to CkptRemat: the grouping of nodes into stages (a node with its
// projections) that the exact engines (ExactSolvers.h) and the generic
// engine share.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_REMAT_STAGEGROUPS_H
#define CKPT_LIB_REMAT_STAGEGROUPS_H

#include "ckpt/Remat/RematProblem.h"

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

} // namespace mlir::ckpt::remat::detail

#endif // CKPT_LIB_REMAT_STAGEGROUPS_H
