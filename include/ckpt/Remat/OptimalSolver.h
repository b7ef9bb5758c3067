//===- OptimalSolver.h - The `optimal` strategy: engines and bound -*- C++ -*-//
//
// One interface over every engine: the exact ones where the problem is small
// enough (exhaustive enumeration, then Checkmate's MILP with CBC started from
// the best heuristic plan), the scalable segment-chain DP, the greedy search
// and the baseline plans given as seeds, and the cost repair of the best of
// their plans, window by window. The cheapest schedule that fits
// wins, so `optimal` never costs more than a seed that fits, and its gap is
// reported against a proven lower bound.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_OPTIMALSOLVER_H
#define CKPT_REMAT_OPTIMALSOLVER_H

#include "ckpt/Remat/CostRepair.h"
#include "ckpt/Remat/ExactSolvers.h"
#include "ckpt/Remat/GenericSolver.h"
#include "ckpt/Remat/SegmentChainSolver.h"

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace mlir::ckpt::remat {

/// Which exact engines `optimal` runs beside the scalable ones.
enum class ExactEngines {
  /// None: the scalable engines, the baselines and the cost repair alone.
  None,
  /// The enumeration of the stage space, on problems small enough for it
  /// (`kMaxExhaustiveBits`; milliseconds). The default: the cost repair
  /// reaches the known optima of the standard graphs without the MILP, so
  /// the MILP's seconds are spent only on request.
  Enumeration,
  /// The enumeration, and the MILP on problems of at most
  /// `OptimalOptions::maxMilpNodes` nodes within its time limit: it proves
  /// a plan optimal in the stage space, or improves it.
  All,
};

/// The spelling of `value` as `exact-engines=` takes it: "none",
/// "enumeration" or "all".
const char *exactEnginesName(ExactEngines value);

/// The value spelled `name`: one of `exactEnginesName`'s spellings, or
/// "false" (none) or "true" (all), the option's spellings when it was a
/// flag. None for anything else.
std::optional<ExactEngines> parseExactEngines(std::string_view name);

/// Options of `solveOptimal`.
struct OptimalOptions {
  /// Drop sets (as for `scheduleDroppingNodes`) of plans the result must not
  /// be worse than, e.g. the baseline strategies.
  std::vector<std::vector<bool>> seeds;
  /// The MILP runs on problems of at most this many nodes (0: never).
  size_t maxMilpNodes = 100;
  /// Its wall-clock limit, in seconds.
  double milpTimeLimitSeconds = 10;
  /// Its progress (MilpOptions::progress).
  MilpOptions::Progress milpProgress;
  /// The greedy search runs on problems of at most this many nodes (it is
  /// quadratic).
  size_t maxGreedyNodes = 10000;
  /// Options of the scalable engine.
  SegmentChainOptions chain;
  /// Which exact engines run beside the scalable ones.
  ExactEngines exactEngines = ExactEngines::Enumeration;
  /// When the generic engine (GenericSolver.h) runs.
  enum class Generic {
    /// On problems not in training form (`isTrainingForm`), where the
    /// segment chain and the drop-set searches find nothing to recompute;
    /// on training-form problems of at most `maxGenericTrainingNodes` nodes
    /// (its recomputations of forward values for later forward reads can be
    /// cheaper than the other engines' plans); on larger ones when no other
    /// engine found a plan.
    Auto,
    /// On every problem.
    Always,
    /// Never.
    Never,
  };
  Generic generic = Generic::Auto;
  /// With `Generic::Auto`, the largest training-form problem the generic
  /// engine runs on alongside the others.
  size_t maxGenericTrainingNodes = 100;
  /// Options of the generic engine.
  GenericOptions genericOptions;
  /// Options of the cost repair of the best plan before the MILP
  /// (CostRepair.h; it runs on problems of at most `costRepair.maxNodes`
  /// nodes, 0: never).
  CostRepairOptions costRepair;
};

/// Returns the cheapest schedule within `budgetBytes` the engines find, with
/// `engine` naming the one that found it and `lowerBound` a proven lower
/// bound on the total cost: over every valid schedule (`LowerBound.h`), or,
/// where the MILP ran, over its stage space if that is higher. `Optimal`
/// means the MILP or the enumeration proved the schedule optimal within the
/// stage space; `Infeasible` that no valid schedule fits (proven by the
/// bound) or none of the stage space does (proven by an exact engine).
/// `engineSeconds` lists the seconds each engine took, in the order they ran
/// (the engines and their order are a list in OptimalSolver.cpp).
SolveResult solveOptimal(const Problem &problem, int64_t budgetBytes,
                         const OptimalOptions &options = {});

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_OPTIMALSOLVER_H
