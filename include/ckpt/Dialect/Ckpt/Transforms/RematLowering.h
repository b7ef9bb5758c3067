//===- RematLowering.h - Between the IR and the remat problem ----*- C++
//-*-===//
//
// Builds the plain rematerialization problem of a step function, and rewrites
// the function so that a solution's recomputations become explicit ops.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_REMATLOWERING_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_REMATLOWERING_H

#include "ckpt/Analysis/BudgetScope.h"
#include "ckpt/Analysis/CostModel.h"
#include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.h"
#include "ckpt/Remat/OffloadSchedule.h"
#include "ckpt/Remat/RematProblem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <vector>

namespace mlir::ckpt {

/// What a problem node stands for in the IR.
struct NodeOrigin {
  /// The op computing the node.
  Operation *op = nullptr;
  /// The result of `op` the node's buffer holds.
  unsigned resultIndex = 0;
};

/// How costs and recomputability are derived from the IR.
struct RematProblemOptions {
  /// Cost of a node: the cost model's seconds, or the op's FLOPs when null.
  /// An op's explicit cost (CostOpInterface::getExplicitCost), when the
  /// function's ops have one, takes precedence over both.
  const CostModel *costModel = nullptr;
  /// Only forward ops may be recomputed (training steps); otherwise any op.
  bool forwardOnly = true;
  /// What the problem's memory counts (BudgetScope): in `step`, the
  /// arguments and the device workspace are fixed bytes and every node
  /// weighs its size; in `activations`, nothing is fixed and the values
  /// returned as parameter gradients weigh 0 (a gradient projection adds
  /// nothing to its primary's workspace), so the problem's peaks, floors and
  /// budgets are in the scope's terms. Sizes in the IR, and so the memory
  /// plan, are unchanged.
  BudgetScope scope = BudgetScope::Step;
  /// Every buffer (argument, op result, op workspace, device workspace) is
  /// counted at its size rounded up to this many bytes, as a memory plan
  /// with this alignment holds it (1: exact sizes). The pipeline sets the
  /// plan's alignment so that a placement that fits leaves packing only the
  /// fragmentation to lose.
  int64_t alignment = 1;
};

/// A problem with the IR op behind every node.
struct RematProblemWithOrigins {
  remat::Problem problem;
  std::vector<NodeOrigin> origins;
};

/// The cost of computing `op` once, as a problem node costs it: its
/// explicit cost when it has one, else the cost model's seconds, or its
/// FLOPs when `costModel` is null.
double computeNodeCost(CostOpInterface op, const CostModel *costModel);

/// Builds the problem of `func` (one block of ckpt ops): one node per op
/// result, in op order; results after the first are projections of the
/// first; views are not nodes (reading a view reads its root); memory is
/// counted in `options.scope`. A primary's workspace includes the bytes of
/// its projections, so that the node sequence never underestimates the
/// memory of the op that produces all results at once. Fails with a
/// diagnostic on ops without a cost model, and when some but not all ops
/// have an explicit cost.
FailureOr<RematProblemWithOrigins>
buildRematProblem(func::FuncOp func, const RematProblemOptions &options);

/// Rewrites `func` to execute `schedule` (valid for `problem`): ops are
/// reordered into schedule order, every computation after a node's first
/// becomes a clone marked `ckpt.recompute`, every read uses the latest
/// computation, and views are re-created on the copy they alias. Returns the
/// number of recomputed ops.
int64_t materializeSchedule(func::FuncOp func,
                            const RematProblemWithOrigins &problem,
                            const remat::Schedule &schedule);

/// What `materializeOffloadSchedule` wrote.
struct MaterializedOffload {
  int64_t recomputedOps = 0;
  int64_t offloads = 0;
  int64_t prefetches = 0;
};

/// Rewrites `func` to execute `schedule` (valid for `problem`, evaluated as
/// `evaluation`) as `materializeSchedule` does, and its copies: an Offload
/// step becomes `ckpt.offload` of the node's latest value, followed right
/// after step `evaluation.copyHeldThrough` by `ckpt.offload_wait`; a
/// Prefetch step becomes `ckpt.prefetch` of that host buffer, and later
/// reads of the node use it. A copy has the phase of the node's op, as a
/// recomputation does.
MaterializedOffload
materializeOffloadSchedule(func::FuncOp func,
                           const RematProblemWithOrigins &problem,
                           const remat::OffloadSchedule &schedule,
                           const remat::OffloadEvaluation &evaluation);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_REMATLOWERING_H
