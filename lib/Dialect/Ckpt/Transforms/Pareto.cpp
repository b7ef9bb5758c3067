//===- Pareto.cpp - The budget -> overhead frontier -----------------------===//
//
// Implements `ckpt-pareto`: the `optimal` strategy at evenly spaced budgets
// between the no-recompute peak and the memory floor, as a table and
// optionally as CSV or JSON.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/CostModel.h"
#include "ckpt/Analysis/StepReport.h"
#include "ckpt/Dialect/Ckpt/Transforms/OptionChecks.h"
#include "ckpt/Dialect/Ckpt/Transforms/OutputFile.h"
#include "ckpt/Dialect/Ckpt/Transforms/ParetoFrontier.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Dialect/Ckpt/Transforms/Progress.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace mlir::ckpt {
#define GEN_PASS_DEF_PARETOPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;

namespace {

struct ParetoPass : public mlir::ckpt::impl::ParetoPassBase<ParetoPass> {
  using ParetoPassBase::ParetoPassBase;

  void runOnOperation() override;
};

} // namespace

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
  std::string header =
      llvm::formatv("{0,-12} {1,-9} {2,-12} {3,-10} {4,-11} {5,-14}", "budget",
                    "fraction", "plan peak", "overhead", "bound", "engine");
  if (frontier.withOffload)
    header += llvm::formatv(" {0,-12} {1,-12} {2,-12} {3}", "offload peak",
                            "offload ovh", "to host", "exposed");
  os << StringRef(header).rtrim() << "\n";
  for (const ParetoPoint &point : frontier.points) {
    std::string row = llvm::formatv(
        "{0,-12} {1,-9} {2,-12} {3,-10} {4,-11} {5,-14}",
        formatBytes(point.budget),
        llvm::formatv("{0:f3}x", point.fraction).str(),
        point.found ? formatBytes(point.peak) : "-",
        point.found ? percent(point.overhead) : "-",
        percent(point.boundOverhead),
        point.found ? remat::engineName(point.engine) : "no plan");
    if (frontier.withOffload) {
      if (point.offloadFound)
        row += llvm::formatv(
            " {0,-12} {1,-12} {2,-12} {3}", formatBytes(point.offloadPeak),
            percent(point.offloadOverhead), formatBytes(point.bytesToHost),
            llvm::formatv("{0:e2} s", point.exposedCopySeconds).str());
      else
        row += " no plan";
    }
    os << StringRef(row).rtrim() << "\n";
  }
}

static void printCsv(const std::vector<Frontier> &frontiers,
                     llvm::raw_ostream &os) {
  bool withOffload = llvm::any_of(
      frontiers, [](const Frontier &frontier) { return frontier.withOffload; });
  os << "function,budget_bytes,budget_fraction,plan_peak_bytes,overhead,"
        "lower_bound_overhead,engine";
  if (withOffload)
    os << ",offload_peak_bytes,offload_overhead,offloaded_values,"
          "bytes_to_host,host_peak_bytes,exposed_copy_seconds";
  os << "\n";
  for (const Frontier &frontier : frontiers)
    for (const ParetoPoint &point : frontier.points) {
      os << frontier.name << "," << point.budget << ","
         << llvm::formatv("{0:f6}", point.fraction) << ","
         << (point.found ? std::to_string(point.peak) : "") << ","
         << (point.found ? llvm::formatv("{0:e6}", point.overhead).str() : "")
         << ","
         << (point.boundOverhead < 1e300
                 ? llvm::formatv("{0:e6}", point.boundOverhead).str()
                 : "inf")
         << "," << remat::engineName(point.engine);
      if (withOffload && point.offloadFound)
        os << "," << point.offloadPeak << ","
           << llvm::formatv("{0:e6}", point.offloadOverhead) << ","
           << point.offloadedValues << "," << point.bytesToHost << ","
           << point.hostPeak << ","
           << llvm::formatv("{0:e6}", point.exposedCopySeconds);
      else if (withOffload)
        os << ",,,,,,";
      os << "\n";
    }
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
         << ", \"budget_fraction\": " << llvm::formatv("{0:f6}", point.fraction)
         << ", \"plan_peak_bytes\": "
         << (point.found ? std::to_string(point.peak) : "null")
         << ", \"overhead\": "
         << (point.found ? llvm::formatv("{0:e6}", point.overhead).str()
                         : "null")
         << ", \"lower_bound_overhead\": "
         << (point.boundOverhead < 1e300
                 ? llvm::formatv("{0:e6}", point.boundOverhead).str()
                 : "null")
         << ", \"engine\": "
         << (point.found
                 ? "\"" + std::string(remat::engineName(point.engine)) + "\""
                 : "null");
      if (frontier.withOffload && point.offloadFound)
        os << ", \"offload\": {\"peak_bytes\": " << point.offloadPeak
           << ", \"overhead\": "
           << llvm::formatv("{0:e6}", point.offloadOverhead)
           << ", \"offloaded_values\": " << point.offloadedValues
           << ", \"bytes_to_host\": " << point.bytesToHost
           << ", \"host_peak_bytes\": " << point.hostPeak
           << ", \"exposed_copy_seconds\": "
           << llvm::formatv("{0:e6}", point.exposedCopySeconds) << "}";
      else if (frontier.withOffload)
        os << ", \"offload\": null";
      os << "}";
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
  if (failed(checkTimeLimitOption(&getContext(), "ckpt-pareto", timeLimit)))
    return signalPassFailure();
  std::optional<RooflineCostModel> model;
  if (objective == Objective::Time) {
    std::string error;
    FailureOr<HardwareProfile> hardware = loadHardwareProfile(profile, error);
    if (failed(hardware)) {
      emitError(options) << "ckpt-pareto: " << error;
      return signalPassFailure();
    }
    model.emplace(*hardware);
  }
  FailureOr<std::optional<OffloadTarget>> target =
      readOffloadOptions(&getContext(), "ckpt-pareto", offload,
                         hostBudget.getValue(), model.has_value());
  if (failed(target))
    return signalPassFailure();
  std::optional<remat::CopyLink> link;
  int64_t hostBudgetBytes = std::numeric_limits<int64_t>::max();
  if (*target) {
    link = (*target)->link;
    hostBudgetBytes = (*target)->hostBudgetBytes;
  }
  std::vector<Frontier> frontiers;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    FrontierOptions frontierOptions;
    frontierOptions.costModel = model ? &*model : nullptr;
    frontierOptions.scope = budgetScope;
    frontierOptions.points = points;
    frontierOptions.timeLimitSeconds = timeLimit;
    frontierOptions.offload = link;
    frontierOptions.hostBudgetBytes = hostBudgetBytes;
    // Progress: a line per budget on a terminal (ckpt-opt drops them with
    // --quiet), and one final line either way.
    auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                           start)
          .count();
    };
    if (progressWanted())
      frontierOptions.onPointSolved = [&](unsigned solved, unsigned count) {
        writeProgress("ckpt-pareto: @" + func.getSymName() + ": budget " +
                         Twine(solved + 1) + " of " + Twine(count) +
                         " solved, " +
                      llvm::formatv("{0:f1}", elapsed()).str() + " s");
      };
    FailureOr<Frontier> frontier = solveFrontier(func, frontierOptions);
    if (failed(frontier))
      return signalPassFailure();
    emitRemark(options) << "ckpt-pareto: @" << func.getSymName() << ": "
                        << frontier->points.size() << " budgets solved in "
                        << llvm::formatv("{0:f1}", elapsed()) << " s";
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
