//===- Pareto.cpp - The budget -> overhead frontier -----------------------===//
//
// Implements `ckpt-pareto`: the `optimal` strategy at evenly spaced budgets
// between the no-recompute peak and the memory floor, as a table and
// optionally as CSV or JSON.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/CostModel.h"
#include "ckpt/Analysis/StepReport.h"
#include "ckpt/Dialect/Ckpt/Transforms/BaselineStrategies.h"
#include "ckpt/Dialect/Ckpt/Transforms/OutputFile.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Dialect/Ckpt/Transforms/RematLowering.h"
#include "ckpt/Remat/LowerBound.h"
#include "ckpt/Remat/OptimalSolver.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

namespace mlir::ckpt {
#define GEN_PASS_DEF_PARETOPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;

namespace {

/// One row of a frontier.
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
  std::string engine;
  /// Proven lower bound on the overhead at this budget (+inf: infeasible).
  double boundOverhead = 0;
};

/// The frontier of one step function; bytes in the terms of the scope.
struct Frontier {
  std::string name;
  int64_t noRecomputePeak = 0;
  int64_t floor = 0;
  std::vector<ParetoPoint> points;
};

struct ParetoPass : public mlir::ckpt::impl::ParetoPassBase<ParetoPass> {
  using ParetoPassBase::ParetoPassBase;

  void runOnOperation() override;

private:
  FailureOr<Frontier> solveFrontier(func::FuncOp func,
                                    const CostModel *model);
};

} // namespace

FailureOr<Frontier> ParetoPass::solveFrontier(func::FuncOp func,
                                              const CostModel *model) {
  RematProblemOptions problemOptions;
  problemOptions.costModel = model;
  problemOptions.scope = budgetScope;
  FailureOr<RematProblemWithOrigins> problem =
      buildRematProblem(func, problemOptions);
  if (failed(problem))
    return failure();
  const remat::Problem &p = problem->problem;
  Frontier frontier;
  frontier.name = func.getSymName().str();
  frontier.noRecomputePeak =
      remat::evaluateSchedule(p, remat::Schedule::identity(p)).peakBytes;
  remat::CostLowerBound bound = remat::computeCostLowerBound(p, 0);
  frontier.floor =
      std::min(std::max({remat::computeMemoryFloor(p).bytes, bound.memoryFloor,
                         remat::computeLookBackFloor(p).bytes}),
               frontier.noRecomputePeak);
  double base = std::max(p.baseCost(), 1e-300);

  remat::OptimalOptions options;
  options.seeds = getBaselineDropSets(func, *problem);
  options.milpTimeLimitSeconds = timeLimit;
  // Every plan found, as (peak, cost, engine): a plan fits every budget at
  // or above its peak.
  struct Plan {
    int64_t peak;
    double cost;
    std::string engine;
  };
  std::vector<Plan> plans;
  int64_t span = frontier.noRecomputePeak - frontier.floor;
  // Distinct budgets only: where recomputation can lower the peak by a few
  // bytes or none, fewer rows than `points`.
  unsigned count = static_cast<unsigned>(
      std::min<int64_t>(points, std::max<int64_t>(span, 0) + 1));
  double scale = std::max<double>(1, double(frontier.noRecomputePeak));
  for (unsigned k = 0; k < count; ++k) {
    ParetoPoint point;
    point.budget = frontier.noRecomputePeak -
                   (count > 1 ? static_cast<int64_t>(double(span) * k /
                                                     (count - 1))
                              : 0);
    point.fraction = double(point.budget) / scale;
    remat::SolveResult result = remat::solveOptimal(p, point.budget, options);
    point.boundOverhead = (result.lowerBound - p.baseCost()) / base;
    if (result.hasSchedule())
      plans.push_back({result.peakBytes, result.cost, result.engine});
    frontier.points.push_back(std::move(point));
  }
  for (ParetoPoint &point : frontier.points) {
    const Plan *best = nullptr;
    for (const Plan &plan : plans)
      if (plan.peak <= point.budget && (!best || plan.cost < best->cost))
        best = &plan;
    if (!best)
      continue;
    point.found = true;
    point.peak = best->peak;
    point.overhead = (best->cost - p.baseCost()) / base;
    point.engine = best->engine;
  }
  return frontier;
}

static std::string percent(double fraction) {
  if (!(fraction < 1e300))
    return "infeasible";
  return llvm::formatv("{0:f2}%", fraction * 100).str();
}

static void printTable(const Frontier &frontier, BudgetScope scope,
                       llvm::raw_ostream &os) {
  os << "== ckpt pareto: @" << frontier.name << " (budget scope " << scope
     << ")\n";
  os << "no-recompute peak " << formatBytes(frontier.noRecomputePeak)
     << ", memory floor " << formatBytes(frontier.floor) << "\n";
  // Say so when recomputation can barely act on the peak: what sets it is
  // held whatever is recomputed (parameters, inputs, gradients in the step
  // scope; a single large backward step).
  int64_t span = frontier.noRecomputePeak - frontier.floor;
  double share = double(span) / double(std::max<int64_t>(
                                    1, frontier.noRecomputePeak));
  if (span <= 0 || share < 0.05) {
    os << (span <= 0 ? "recomputation cannot lower this peak"
                     : "recomputation can lower this peak by at most " +
                           formatBytes(span) + " (" +
                           llvm::formatv("{0:f2}", 100 * share).str() + "%)")
       << ": what sets it is held whatever is recomputed";
    if (scope == BudgetScope::Step)
      os << " (with budget-scope=activations, parameters, inputs and their "
            "gradients are left out)";
    os << "\n";
  }
  os << "\n";
  os << llvm::formatv("{0,-12} {1,-9} {2,-12} {3,-10} {4,-11} {5}\n",
                      "budget", "fraction", "plan peak", "overhead",
                      "bound", "engine");
  for (const ParetoPoint &point : frontier.points) {
    os << llvm::formatv("{0,-12} {1,-9} {2,-12} {3,-10} {4,-11} {5}\n",
                        formatBytes(point.budget),
                        llvm::formatv("{0:f3}x", point.fraction).str(),
                        point.found ? formatBytes(point.peak) : "-",
                        point.found ? percent(point.overhead) : "-",
                        percent(point.boundOverhead),
                        point.found ? point.engine : "no plan");
  }
}

static void printCsv(const std::vector<Frontier> &frontiers,
                     llvm::raw_ostream &os) {
  os << "function,budget_bytes,budget_fraction,plan_peak_bytes,overhead,"
        "lower_bound_overhead,engine\n";
  for (const Frontier &frontier : frontiers)
    for (const ParetoPoint &point : frontier.points)
      os << frontier.name << "," << point.budget << ","
         << llvm::formatv("{0:f6}", point.fraction) << ","
         << (point.found ? std::to_string(point.peak) : "") << ","
         << (point.found ? llvm::formatv("{0:e6}", point.overhead).str() : "")
         << ","
         << (point.boundOverhead < 1e300
                 ? llvm::formatv("{0:e6}", point.boundOverhead).str()
                 : "inf")
         << "," << point.engine << "\n";
}

static void printJson(const std::vector<Frontier> &frontiers, BudgetScope scope,
                      llvm::raw_ostream &os) {
  os << "{\"version\": 1, \"budget_scope\": \"" << scope
     << "\", \"functions\": [";
  for (auto [i, frontier] : llvm::enumerate(frontiers)) {
    os << (i ? ",\n" : "\n") << "  {\"name\": \"" << frontier.name
       << "\", \"no_recompute_peak_bytes\": " << frontier.noRecomputePeak
       << ", \"floor_bytes\": " << frontier.floor << ", \"points\": [";
    for (auto [k, point] : llvm::enumerate(frontier.points)) {
      os << (k ? ",\n" : "\n") << "    {\"budget_bytes\": " << point.budget
         << ", \"budget_fraction\": "
         << llvm::formatv("{0:f6}", point.fraction) << ", \"plan_peak_bytes\": "
         << (point.found ? std::to_string(point.peak) : "null")
         << ", \"overhead\": "
         << (point.found ? llvm::formatv("{0:e6}", point.overhead).str()
                         : "null")
         << ", \"lower_bound_overhead\": "
         << (point.boundOverhead < 1e300
                 ? llvm::formatv("{0:e6}", point.boundOverhead).str()
                 : "null")
         << ", \"engine\": "
         << (point.found ? "\"" + point.engine + "\"" : "null") << "}";
    }
    os << "]}";
  }
  os << "\n]}\n";
}

void ParetoPass::runOnOperation() {
  ModuleOp module = getOperation();
  // Errors in the options have no place in the input: they are reported
  // without a location, naming the option.
  Location options = UnknownLoc::get(&getContext());
  if (points < 2) {
    emitError(options) << "ckpt-pareto: points=" << points.getValue()
                       << " is too few: a frontier needs at least 2 budgets "
                          "(the no-recompute peak and the floor)";
    return signalPassFailure();
  }
  if (!(std::isfinite(timeLimit) && timeLimit > 0)) {
    emitError(options) << "ckpt-pareto: time-limit="
                       << formatNumber(timeLimit)
                       << " is not a positive number of seconds";
    return signalPassFailure();
  }
  std::optional<RooflineCostModel> model;
  if (objective == "time") {
    std::string error;
    FailureOr<HardwareProfile> hardware = loadHardwareProfile(profile, error);
    if (failed(hardware)) {
      emitError(options) << "ckpt-pareto: " << error;
      return signalPassFailure();
    }
    model.emplace(*hardware);
  } else if (objective != "flops") {
    emitError(options) << "ckpt-pareto: unknown objective '"
                               << objective << "' (expected time or flops)";
    return signalPassFailure();
  }
  std::vector<Frontier> frontiers;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    FailureOr<Frontier> frontier =
        solveFrontier(func, model ? &*model : nullptr);
    if (failed(frontier))
      return signalPassFailure();
    frontiers.push_back(std::move(*frontier));
  }
  for (auto [i, frontier] : llvm::enumerate(frontiers)) {
    if (i)
      llvm::outs() << "\n";
    printTable(frontier, budgetScope, llvm::outs());
  }
  llvm::outs().flush();
  if (output.empty())
    return;
  bool csv = StringRef(output).ends_with(".csv");
  llvm::Error written =
      writeOutputFile(output, [&](llvm::raw_ostream &os) {
        if (csv)
          printCsv(frontiers, os);
        else
          printJson(frontiers, budgetScope, os);
        return llvm::Error::success();
      });
  if (written) {
    emitError(module.getLoc()) << "ckpt-pareto: cannot write '" << output
                               << "': " << llvm::toString(std::move(written));
    return signalPassFailure();
  }
}
