//===- Solve.cpp - The strategies and one entry point to the engines -----===//

#include "ckpt/Remat/Solve.h"

#include "ckpt/Remat/GenericSolver.h"
#include "ckpt/Remat/LowerBound.h"
#include "ckpt/Remat/OptimalSolver.h"
#include "ckpt/Remat/SegmentChainSolver.h"

#include <iterator>
#include <limits>

using namespace mlir::ckpt::remat;

namespace {

/// Every strategy with its name, in the order of the enum.
struct StrategyEntry {
  Strategy strategy;
  const char *name;
};
constexpr StrategyEntry kStrategies[] = {
    {Strategy::None, "none"},       {Strategy::Full, "full"},
    {Strategy::Sqrt, "sqrt"},       {Strategy::Selective, "selective"},
    {Strategy::Greedy, "greedy"},   {Strategy::Chain, "chain"},
    {Strategy::Generic, "generic"}, {Strategy::Optimal, "optimal"},
    {Strategy::Exact, "exact"},
};

/// `generic`: the plan without recomputation where it fits (nothing to
/// recompute), else the generic engine's.
SolveResult solveGenericStrategy(const Problem &problem, int64_t budgetBytes) {
  Schedule identity = Schedule::identity(problem);
  Evaluation eval = evaluateSchedule(problem, identity);
  if (!eval.valid() || eval.peakBytes > budgetBytes)
    return solveGeneric(problem, budgetBytes);
  SolveResult result;
  result.status = SolveResult::Status::Feasible;
  result.schedule = std::move(identity);
  result.cost = eval.totalCost;
  result.peakBytes = eval.peakBytes;
  return result;
}

/// `exact`: a budget below a proven floor needs no MILP (CBC would spend its
/// whole time limit on a large model before it proved that).
SolveResult solveExactStrategy(const Problem &problem, int64_t budgetBytes,
                               const SolveOptions &options) {
  ProvenFloor floor = computeProvenFloor(problem);
  SolveResult result;
  if (floor.bytes > budgetBytes) {
    result.status = SolveResult::Status::Infeasible;
    result.lowerBound = std::numeric_limits<double>::infinity();
    result.message = "no schedule fits: the budget is below the proven "
                     "memory floor of " +
                     std::to_string(floor.bytes) + " bytes";
  } else {
    MilpOptions milpOptions;
    milpOptions.timeLimitSeconds = options.timeLimitSeconds;
    milpOptions.progress = options.milpProgress;
    result = solveMilp(problem, budgetBytes, milpOptions);
  }
  result.floor = floor;
  return result;
}

} // namespace

std::optional<Strategy>
mlir::ckpt::remat::parseStrategy(std::string_view name) {
  for (const StrategyEntry &entry : kStrategies)
    if (name == entry.name)
      return entry.strategy;
  return std::nullopt;
}

const char *mlir::ckpt::remat::strategyName(Strategy strategy) {
  for (const StrategyEntry &entry : kStrategies)
    if (entry.strategy == strategy)
      return entry.name;
  return "";
}

std::string mlir::ckpt::remat::strategyNameList() {
  std::string list;
  const size_t count = std::size(kStrategies);
  for (size_t i = 0; i < count; ++i)
    list += std::string(i == 0           ? ""
                        : i + 1 == count ? " or "
                                         : ", ") +
            kStrategies[i].name;
  return list;
}

bool mlir::ckpt::remat::isEngineStrategy(Strategy strategy) {
  return strategy == Strategy::Chain || strategy == Strategy::Generic ||
         strategy == Strategy::Optimal || strategy == Strategy::Exact;
}

bool mlir::ckpt::remat::needsBudget(Strategy strategy) {
  return strategy == Strategy::Greedy || isEngineStrategy(strategy);
}

SolveResult mlir::ckpt::remat::solve(Strategy strategy, const Problem &problem,
                                     int64_t budgetBytes,
                                     const SolveOptions &options) {
  SolveResult result;
  if (budgetBytes < 0) {
    result.message =
        std::string("strategy '") + strategyName(strategy) + "' needs a budget";
    return result;
  }
  switch (strategy) {
  case Strategy::Chain:
    result = solveSegmentChain(problem, budgetBytes);
    result.engine = Engine::SegmentChain;
    return result;
  case Strategy::Generic:
    result = solveGenericStrategy(problem, budgetBytes);
    result.engine = Engine::Generic;
    return result;
  case Strategy::Optimal: {
    OptimalOptions optimal;
    optimal.seeds = options.seeds;
    optimal.milpTimeLimitSeconds = options.timeLimitSeconds;
    optimal.milpProgress = options.milpProgress;
    optimal.exactEngines = options.exactEngines;
    return solveOptimal(problem, budgetBytes, optimal);
  }
  case Strategy::Exact:
    result = solveExactStrategy(problem, budgetBytes, options);
    result.engine = Engine::Milp;
    return result;
  case Strategy::None:
  case Strategy::Full:
  case Strategy::Sqrt:
  case Strategy::Selective:
  case Strategy::Greedy:
    break;
  }
  result.message = std::string("strategy '") + strategyName(strategy) +
                   "' is not an engine strategy: it reads the IR";
  return result;
}
