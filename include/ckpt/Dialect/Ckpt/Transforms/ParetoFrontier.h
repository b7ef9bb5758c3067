//===- ParetoFrontier.h - The budget -> overhead frontier of a step -*- C++ -*-===//
//
// Solves checkpoint placement with the `optimal` strategy at evenly spaced
// budgets between a step's no-recompute peak and its memory floor. Used by
// `ckpt-pareto` (a table, CSV or JSON) and by the HTML report (a chart).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_PARETOFRONTIER_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_PARETOFRONTIER_H

#include "ckpt/Analysis/BudgetScope.h"
#include "ckpt/Analysis/CostModel.h"
#include "ckpt/Remat/OffloadSchedule.h"
#include "ckpt/Remat/SolveResult.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace mlir::ckpt {

/// One budget of a frontier.
struct ParetoPoint {
  /// The budget in bytes, and as a fraction of the no-recompute peak, both
  /// in the terms of the budget scope.
  int64_t budget = 0;
  double fraction = 0;
  /// The cheapest plan found that fits: its peak (in the scope), overhead
  /// and the engine; `found` is false if none fits.
  bool found = false;
  int64_t peak = 0;
  double overhead = 0;
  remat::Engine engine = remat::Engine::None;
  /// Proven lower bound on the overhead at this budget (+inf: infeasible).
  double boundOverhead = 0;
  /// With offload: the fastest plan found that fits (keep, recompute or
  /// offload; a plan without copies counts too), as
  /// `remat::evaluateOffloadSchedule` measures it. `offloadFound` is false
  /// if none fits.
  bool offloadFound = false;
  int64_t offloadPeak = 0;
  /// Step time over the plain step's, minus 1 (exposed copies included).
  double offloadOverhead = 0;
  /// Values offloaded, bytes copied to the host, host peak, and the copy
  /// seconds the compute stream waits for.
  int64_t offloadedValues = 0;
  int64_t bytesToHost = 0;
  int64_t hostPeak = 0;
  double exposedCopySeconds = 0;
};

/// The frontier of one step function; bytes in the terms of the scope.
struct Frontier {
  std::string name;
  int64_t noRecomputePeak = 0;
  int64_t floor = 0;
  std::vector<ParetoPoint> points;
  /// Whether the points hold offload plans.
  bool withOffload = false;
};

/// How a frontier is solved.
struct FrontierOptions {
  /// Node costs: the cost model's seconds, or FLOPs when null.
  const CostModel *costModel = nullptr;
  BudgetScope scope = BudgetScope::Step;
  /// Budgets wanted (at least 2); fewer when the peak can move by fewer
  /// bytes.
  unsigned points = 10;
  /// Time limit of the exact engine per budget, in seconds.
  double timeLimitSeconds = 10;
  /// Called after each budget is solved with its index (from 0) and the
  /// number of budgets: progress for long sweeps.
  std::function<void(unsigned solved, unsigned count)> onPointSolved;
  /// With a link (and `costModel`: copies need seconds), each budget is
  /// also planned with offload over it, holding at most `hostBudgetBytes`
  /// on the host.
  std::optional<remat::CopyLink> offload;
  int64_t hostBudgetBytes = std::numeric_limits<int64_t>::max();
};

/// Solves the frontier of `func` (a step of ckpt ops without
/// recomputation). A plan found for a smaller budget also fits a larger
/// one, so each point holds the cheapest plan found whose peak fits. Fails
/// with a diagnostic when the remat problem cannot be built.
FailureOr<Frontier> solveFrontier(func::FuncOp func,
                                  const FrontierOptions &options);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_PARETOFRONTIER_H
