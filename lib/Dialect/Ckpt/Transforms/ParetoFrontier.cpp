//===- ParetoFrontier.cpp - The budget -> overhead frontier of a step ----===//

#include "ckpt/Dialect/Ckpt/Transforms/ParetoFrontier.h"
#include "ckpt/Dialect/Ckpt/Transforms/BaselineStrategies.h"
#include "ckpt/Dialect/Ckpt/Transforms/RematLowering.h"
#include "ckpt/Remat/LowerBound.h"
#include "ckpt/Remat/OffloadSolver.h"
#include "ckpt/Remat/Solve.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ckpt;

FailureOr<Frontier> mlir::ckpt::solveFrontier(func::FuncOp func,
                                              const FrontierOptions &options) {
  RematProblemOptions problemOptions;
  problemOptions.costModel = options.costModel;
  problemOptions.scope = options.scope;
  FailureOr<RematProblemWithOrigins> problem =
      buildRematProblem(func, problemOptions);
  if (failed(problem))
    return failure();
  const remat::Problem &p = problem->problem;
  Frontier frontier;
  frontier.name = func.getSymName().str();
  frontier.noRecomputePeak =
      remat::evaluateSchedule(p, remat::Schedule::identity(p)).peakBytes;
  frontier.floor =
      std::min(remat::computeProvenFloor(p).bytes, frontier.noRecomputePeak);
  double base = std::max(p.baseCost(), 1e-300);

  remat::SolveOptions engineOptions;
  engineOptions.seeds = getBaselineDropSets(func, *problem);
  engineOptions.timeLimitSeconds = options.timeLimitSeconds;
  // The frontier's points are proven where the MILP can (its time-limit).
  engineOptions.exactEngines = remat::ExactEngines::All;
  // Every plan found, as (peak, cost, engine): a plan fits every budget at
  // or above its peak.
  struct Plan {
    int64_t peak;
    double cost;
    remat::Engine engine;
  };
  std::vector<Plan> plans;
  // With offload, every plan as its verifier measured it.
  std::vector<remat::OffloadEvaluation> offloadPlans;
  frontier.withOffload = options.offload.has_value();
  remat::OffloadOptions offloadOptions;
  if (options.offload) {
    offloadOptions.link = *options.offload;
    offloadOptions.hostBudgetBytes = options.hostBudgetBytes;
    offloadOptions.solve.seeds = engineOptions.seeds;
    offloadOptions.solve.timeLimitSeconds = options.timeLimitSeconds;
  }
  int64_t span = frontier.noRecomputePeak - frontier.floor;
  // Distinct budgets only: where recomputation can lower the peak by a few
  // bytes or none, fewer rows than `points`.
  unsigned count = static_cast<unsigned>(
      std::min<int64_t>(options.points, std::max<int64_t>(span, 0) + 1));
  double scale = std::max<double>(1, double(frontier.noRecomputePeak));
  for (unsigned k = 0; k < count; ++k) {
    ParetoPoint point;
    point.budget = frontier.noRecomputePeak -
                   (count > 1 ? static_cast<int64_t>(double(span) * k /
                                                     (count - 1))
                              : 0);
    point.fraction = double(point.budget) / scale;
    remat::SolveResult result =
        remat::solve(remat::Strategy::Optimal, p, point.budget, engineOptions);
    point.boundOverhead = (result.lowerBound - p.baseCost()) / base;
    if (result.hasSchedule())
      plans.push_back({result.peakBytes, result.cost, result.engine});
    if (options.offload) {
      if (result.hasSchedule())
        offloadPlans.push_back(remat::evaluateOffloadSchedule(
            p, remat::OffloadSchedule::fromSchedule(result.schedule),
            *options.offload));
      remat::OffloadResult offloaded =
          remat::solveWithOffload(p, point.budget, offloadOptions);
      if (offloaded.found)
        offloadPlans.push_back(std::move(offloaded.evaluation));
    }
    frontier.points.push_back(std::move(point));
    if (options.onPointSolved)
      options.onPointSolved(k, count);
  }
  for (ParetoPoint &point : frontier.points) {
    const Plan *best = nullptr;
    for (const Plan &plan : plans)
      if (plan.peak <= point.budget && (!best || plan.cost < best->cost))
        best = &plan;
    const remat::OffloadEvaluation *fastest = nullptr;
    for (const remat::OffloadEvaluation &plan : offloadPlans)
      if (plan.devicePeakBytes <= point.budget &&
          plan.hostPeakBytes <= options.hostBudgetBytes &&
          (!fastest || plan.totalSeconds < fastest->totalSeconds))
        fastest = &plan;
    if (fastest) {
      point.offloadFound = true;
      point.offloadPeak = fastest->devicePeakBytes;
      point.offloadOverhead = (fastest->totalSeconds - p.baseCost()) / base;
      point.offloadedValues = fastest->offloads;
      point.bytesToHost = fastest->bytesToHost;
      point.hostPeak = fastest->hostPeakBytes;
      point.exposedCopySeconds = fastest->exposedCopySeconds;
    }
    if (!best)
      continue;
    point.found = true;
    point.peak = best->peak;
    point.overhead = (best->cost - p.baseCost()) / base;
    point.engine = best->engine;
  }
  return frontier;
}

