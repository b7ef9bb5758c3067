//===- KeptSetSchedules.h - Schedules from keep/drop decisions ---*- C++
//-*-===//
//
// The baseline strategies users know (PyTorch's checkpoint on every block,
// Chen et al.'s sqrt(N) segments, Megatron-LM's selective recomputation) all
// decide which forward values to keep for the backward pass; the others are
// recomputed where the backward pass first needs them. These functions turn
// such decisions into schedules.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_KEPTSETSCHEDULES_H
#define CKPT_REMAT_KEPTSETSCHEDULES_H

#include "ckpt/Remat/RematProblem.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mlir::ckpt::remat {

/// Returns the schedule that keeps every node except those with `drop` set:
/// nodes are computed in order; before a non-recomputable (backward) node,
/// every dropped node it reads is recomputed -- together with the dropped
/// nodes that recomputation reads, recursively -- unless an earlier
/// recomputation of it exists, which is reused. Outputs and
/// non-recomputable nodes are never dropped; a projection is recomputed by
/// recomputing its primary with all of its projections.
Schedule scheduleDroppingNodes(const Problem &problem,
                               const std::vector<bool> &drop);

/// Evaluates many drop sets of one problem: the total cost of
/// `scheduleDroppingNodes(problem, drop)` if its peak is within a budget,
/// as `evaluateSchedule` computes them (the same sums in the same order).
/// For a problem that `Problem::validate` accepts it walks the schedule
/// without building it, in buffers reused between calls, and stops at the
/// first step over the budget; for others it falls back to the reference.
class DropSetEvaluator {
public:
  explicit DropSetEvaluator(const Problem &problem);
  ~DropSetEvaluator();
  DropSetEvaluator(const DropSetEvaluator &) = delete;
  DropSetEvaluator &operator=(const DropSetEvaluator &) = delete;

  /// Returns the total cost of the schedule dropping `drop` if it is valid
  /// and peaks within `budgetBytes`, else -1.
  double costIfWithin(const std::vector<bool> &drop, int64_t budgetBytes);

private:
  struct Fast;
  const Problem &problem;
  std::unique_ptr<Fast> fast;
};

/// Drop decisions for checkpointing whole blocks (`torch.utils.checkpoint`
/// around each block): a recomputable node in block b >= 0 is dropped unless
/// a recomputable node outside block b reads it (the block's outputs, which
/// are the next block's checkpointed inputs, are kept). `blockOf[i] < 0`
/// marks nodes outside every block, which are kept.
std::vector<bool> dropInsideBlocks(const Problem &problem,
                                   const std::vector<int32_t> &blockOf);

/// Groups consecutive blocks into segments of ceil(sqrt(#blocks)) blocks
/// (Chen et al. 2016): returns the segment of every node (-1 stays -1).
std::vector<int32_t>
groupBlocksIntoSqrtSegments(const std::vector<int32_t> &blockOf);

/// Result of the greedy search.
struct GreedyResult {
  /// The drop decisions found; empty if no drop set within the search space
  /// fits the budget.
  std::vector<bool> drop;
  /// Number of schedule evaluations performed.
  int64_t evaluations = 0;
};

/// Searches drop sets for a schedule within `budgetBytes` at a low
/// recomputation cost, from several starting points: (1) the candidates --
/// recomputable, non-output nodes the backward pass reads -- dropped in
/// order of bytes freed per unit of recomputation cost until the peak fits,
/// and (2) each of `seeds` (e.g. the drop sets of the baseline strategies)
/// that fits. From each, every drop is undone, most expensive first,
/// wherever the peak still fits; the cheapest result wins (ties: the
/// earliest). So the result never costs more than a seed that fits. A
/// heuristic: it gives no optimality guarantee.
GreedyResult searchDropsGreedily(const Problem &problem, int64_t budgetBytes,
                                 const std::vector<std::vector<bool>> &seeds);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_KEPTSETSCHEDULES_H
