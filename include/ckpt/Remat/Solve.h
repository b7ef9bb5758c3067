//===- Solve.h - The strategies and one entry point to the engines -*- C++ -*-//
//
// The strategies `ckpt-place-checkpoints` offers, as an enum parsed once from
// the option, and `solve`, the one entry point to the engine strategies
// (chain, generic, optimal, exact). The baseline strategies (none, full,
// sqrt, selective, greedy) read the IR (module scopes, attention cores), so
// the Transforms layer dispatches them (StrategyDispatch.h).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_SOLVE_H
#define CKPT_REMAT_SOLVE_H

#include "ckpt/Remat/ExactSolvers.h"
#include "ckpt/Remat/OptimalSolver.h"
#include "ckpt/Remat/SolveResult.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::ckpt::remat {

/// A strategy of `ckpt-place-checkpoints`, in the order the tools list them.
enum class Strategy {
  /// Keep every value.
  None,
  /// Recompute every block's interior (one checkpoint per block).
  Full,
  /// Group the blocks into about sqrt(n) segments and recompute inside.
  Sqrt,
  /// Recompute the attention cores only.
  Selective,
  /// Greedy drop-set search from the baselines.
  Greedy,
  /// The segment-chain engine alone.
  Chain,
  /// The generic engine alone.
  Generic,
  /// Every engine (`solveOptimal`).
  Optimal,
  /// The MILP alone.
  Exact,
};

/// Returns the strategy named `name` ("none", "full", "sqrt", "selective",
/// "greedy", "chain", "generic", "optimal", "exact"), or nullopt.
std::optional<Strategy> parseStrategy(std::string_view name);

/// Returns the name of `strategy`, as `parseStrategy` reads it.
const char *strategyName(Strategy strategy);

/// Every strategy name, for an error message: "none, full, ..., optimal or
/// exact".
std::string strategyNameList();

/// Whether `strategy` runs an engine (`solve`): chain, generic, optimal,
/// exact.
bool isEngineStrategy(Strategy strategy);

/// Whether `strategy` needs a budget: greedy and the engine strategies.
bool needsBudget(Strategy strategy);

/// Options of `solve`.
struct SolveOptions {
  /// The MILP's wall-clock limit in seconds (exact, optimal).
  double timeLimitSeconds = 10;
  /// Which exact engines `optimal` runs beside the scalable ones.
  ExactEngines exactEngines = ExactEngines::Enumeration;
  /// Progress of the MILP (`MilpOptions::progress`; exact, optimal).
  MilpOptions::Progress milpProgress;
  /// Drop sets of plans `optimal` must not be worse than (the baselines).
  std::vector<std::vector<bool>> seeds;
};

/// Runs the engine strategy `strategy` on `problem` under `budgetBytes`
/// (fixed bytes included): `chain` runs `solveSegmentChain`; `generic` keeps
/// everything where that fits, else runs `solveGeneric`; `optimal` runs
/// `solveOptimal` with the options; `exact` reports a budget below the proven
/// floor as Infeasible without a MILP, else runs `solveMilp`; either way its
/// result carries that floor (`SolveResult::floor`). The result's `engine`
/// names the engine whose schedule it holds. A baseline strategy or
/// a negative budget gives Unknown.
SolveResult solve(Strategy strategy, const Problem &problem,
                  int64_t budgetBytes, const SolveOptions &options);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_SOLVE_H
