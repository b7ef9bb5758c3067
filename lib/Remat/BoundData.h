//===- BoundData.h - What the cost bounds read of a problem -----*- C++ -*-===//
//
// The per-node data the segment and dead-input bounds share: last reads,
// groups and their costs, and at each point (a node's first computation)
// what must be in memory if every value alive across it were kept.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_REMAT_BOUNDDATA_H
#define CKPT_LIB_REMAT_BOUNDDATA_H

#include "ckpt/Remat/RematProblem.h"

#include <cstdint>
#include <vector>

namespace mlir::ckpt::remat::detail {

/// What the cost bounds read of a well-formed problem.
struct BoundData {
  /// Each node's inputs, once each, ascending.
  std::vector<std::vector<int32_t>> deps;
  /// Each node's readers, ascending.
  std::vector<std::vector<int32_t>> readers;
  /// Last reader of each node (n for an output, -1 if unread).
  std::vector<int32_t> last;
  /// Each value's share of its group's cost (op and projections, split in
  /// proportion to bytes; 0 in a group of no bytes).
  std::vector<double> share;
  /// need_x - budget: fixed bytes, x's output, workspace and inputs, and
  /// every value computed before x and read after it.
  std::vector<double> excess;
  /// Whether some point's mandatory part (need_x less the recomputable
  /// values alive across x that x does not read) is over the budget.
  bool overFloor = false;
};

/// Builds the data of a well-formed `problem` under `budget`.
BoundData buildBoundData(const Problem &problem, int64_t budget);

} // namespace mlir::ckpt::remat::detail

#endif // CKPT_LIB_REMAT_BOUNDDATA_H
