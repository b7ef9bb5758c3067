//===- StrategyDispatch.cpp - The schedule of each strategy ---------------===//
//
// Engines through `remat::solve`; the baselines read the IR here. Each
// baseline's drop set is computed in one small function, so that any of
// them can be swapped for another computation in one place.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/StrategyDispatch.h"

#include "ckpt/Dialect/Ckpt/Transforms/BaselineStrategies.h"
#include "ckpt/Remat/KeptSetSchedules.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::ckpt;

using remat::Strategy;

/// The drop set of a baseline strategy; none when `greedy` finds none within
/// `limit`.
static std::optional<std::vector<bool>>
baselineDrops(func::FuncOp func, const RematProblemWithOrigins &p,
              Strategy strategy, int64_t limit) {
  switch (strategy) {
  case Strategy::Full:
    return dropFullRecomputation(p);
  case Strategy::Sqrt:
    return dropSqrtSegments(p);
  case Strategy::Selective:
    return dropAttentionCores(func, p);
  case Strategy::Greedy: {
    // Start also from the baselines, so that greedy never costs more than a
    // baseline that fits.
    remat::GreedyResult greedy = remat::searchDropsGreedily(
        p.problem, limit, getBaselineDropSets(func, p));
    if (greedy.drop.empty())
      return std::nullopt;
    return std::move(greedy.drop);
  }
  case Strategy::None:
  default:
    return std::vector<bool>(p.problem.nodes.size(), false);
  }
}

/// The engine's figures for the remark, from the result's typed fields, in
/// the format each strategy has always printed (tests and scripts read it);
/// with `timings` false, without the seconds (for files that must not change
/// between runs).
static std::string describeEngine(Strategy strategy,
                                  const remat::SolveResult &result,
                                  double baseCost, bool timings) {
  double base = std::max(baseCost, 1e-300);
  std::string solveSeconds;
  if (timings)
    solveSeconds =
        " solve-seconds=" +
        llvm::formatv(strategy == Strategy::Exact ? "{0:f2}" : "{0:f3}",
                      result.seconds)
            .str();
  std::string engine = remat::engineName(result.engine);
  switch (strategy) {
  case Strategy::Optimal:
    return " engine=" + engine + " status=" +
           remat::statusName(result.status) + " lower-bound-overhead=" +
           llvm::formatv("{0:f4}", (result.lowerBound - baseCost) / base)
               .str() +
           solveSeconds +
           (timings ? " engine-seconds=" +
                          remat::formatEngineSeconds(result.engineSeconds)
                    : "");
  case Strategy::Exact:
    // `engine=` has always carried the MILP's status here.
    return " engine=" + std::string(remat::statusName(result.status)) +
           " lower-bound=" +
           llvm::formatv("{0:e4}", result.lowerBound).str() + solveSeconds;
  default:
    return " engine=" + engine + solveSeconds + " (" + result.message + ")";
  }
}

/// The proven lower bound on the overhead an engine strategy reports.
static std::optional<double> boundOverhead(Strategy strategy,
                                           const remat::SolveResult &result,
                                           double baseCost) {
  double overhead = (result.lowerBound - baseCost) / std::max(baseCost, 1e-300);
  if (strategy == Strategy::Optimal ||
      (strategy == Strategy::Exact && std::isfinite(result.lowerBound)))
    return overhead;
  return std::nullopt;
}

/// Without a schedule: what the engines tried, where the strategy collects
/// it (`generic`, `optimal`) and nothing proved that no plan fits.
static std::string enginesTried(Strategy strategy,
                                const remat::SolveResult &result) {
  if (result.status == remat::SolveResult::Status::Infeasible ||
      (strategy != Strategy::Generic && strategy != Strategy::Optimal))
    return "";
  return result.message;
}

FailureOr<StrategyPlan> mlir::ckpt::planWithStrategy(
    func::FuncOp func, const RematProblemWithOrigins &p, Strategy strategy,
    int64_t limit, remat::SolveOptions options) {
  StrategyPlan plan;
  if (!remat::isEngineStrategy(strategy)) {
    std::optional<std::vector<bool>> drop =
        baselineDrops(func, p, strategy, limit);
    if (drop)
      plan.schedule = remat::scheduleDroppingNodes(p.problem, *drop);
    return plan;
  }
  if (strategy == Strategy::Optimal)
    options.seeds = getBaselineDropSets(func, p);
  remat::SolveResult result = remat::solve(strategy, p.problem, limit, options);
  plan.floor = result.floor;
  if (!result.hasSchedule()) {
    if (strategy == Strategy::Exact &&
        result.status != remat::SolveResult::Status::Infeasible) {
      emitError(func.getLoc()) << "ckpt-place-checkpoints: the exact engine "
                                  "found no plan: "
                               << result.message;
      return failure();
    }
    if (result.status == remat::SolveResult::Status::Infeasible)
      plan.proof = result.proof;
    plan.tried = enginesTried(strategy, result);
    return plan;
  }
  double baseCost = p.problem.baseCost();
  plan.engine = result.engine;
  plan.note = describeEngine(strategy, result, baseCost, /*timings=*/true);
  plan.noteWithoutTimings =
      describeEngine(strategy, result, baseCost, /*timings=*/false);
  plan.boundOverhead = boundOverhead(strategy, result, baseCost);
  plan.schedule = std::move(result.schedule);
  return plan;
}
