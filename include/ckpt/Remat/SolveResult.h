//===- SolveResult.h - What an engine found ---------------*- C++ -*-===//
//
// The answer every engine of the rematerialization problem returns: status,
// schedule, cost and bound, and, as typed fields, which engine found the
// schedule and how long each engine ran. `message` is for people only.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_SOLVERESULT_H
#define CKPT_REMAT_SOLVERESULT_H

#include "ckpt/Remat/LowerBound.h"
#include "ckpt/Remat/RematProblem.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::ckpt::remat {

/// The engines (and the other sources of plans) the `optimal` strategy
/// combines, as reported in `engine=` and `engine-seconds=`.
enum class Engine {
  /// No engine (nothing found, or a baseline strategy).
  None,
  /// The proven lower bound (LowerBound.h); finds no plan, may prove that
  /// none fits.
  Bound,
  /// Enumeration of the stage space (`solveExhaustive`).
  Exhaustive,
  /// The scalable training-form engine (`solveSegmentChain`).
  SegmentChain,
  /// A baseline plan given as a seed.
  Baseline,
  /// The greedy drop-set search (`searchDropsGreedily`).
  Greedy,
  /// The generic engine (`solveGeneric`).
  Generic,
  /// Checkmate's MILP with CBC (`solveMilp`).
  Milp,
  /// The cost repair of the best plan, window by window
  /// (`improveByWindows`, CostRepair.h).
  CostRepair,
};

/// Returns the engine's name as the tools print it: "", "bound",
/// "exhaustive", "segment-chain", "baseline", "greedy", "generic", "milp" or
/// "cost-repair".
const char *engineName(Engine engine);

/// The wall-clock time one engine ran.
struct EngineTime {
  Engine engine = Engine::None;
  double seconds = 0;
};

/// Formats `times` as the tools print them: "bound:0.001,segment-chain:0.120"
/// (seconds with three decimals, in the order the engines ran).
std::string formatEngineSeconds(const std::vector<EngineTime> &times);

/// What an engine found.
struct SolveResult {
  /// How far the engine got.
  enum class Status {
    /// `schedule` is optimal within the stage space (bound == cost).
    Optimal,
    /// `schedule` is within the budget; optimality was not proven.
    Feasible,
    /// No schedule of the stage space fits the budget.
    Infeasible,
    /// Nothing found or nothing proven (time limit, refused, bad problem);
    /// `message` says why.
    Unknown,
  };

  /// The outcome.
  Status status = Status::Unknown;
  /// The best schedule found (Optimal, Feasible); empty otherwise.
  Schedule schedule;
  /// Total cost of `schedule` (as `evaluateSchedule` computes it).
  double cost = 0;
  /// Peak bytes of `schedule` (as `evaluateSchedule` computes it).
  int64_t peakBytes = 0;
  /// A proven lower bound on the total cost of every schedule of the stage
  /// space within the budget (+infinity when Infeasible).
  double lowerBound = 0;
  /// Wall-clock seconds spent.
  double seconds = 0;
  /// Human-readable details: model size, why nothing was found. No code
  /// reads it to learn a fact that has a field below.
  std::string message;
  /// When Infeasible was proven by the backward search (every set of live
  /// values within the budget visited): "backward search: " and its count,
  /// for the user; empty for the other proofs (a memory floor, the exact
  /// engines), which their own reports describe.
  std::string proof;
  /// The proven memory floor (`computeProvenFloor`) where the engine
  /// computed it (`solve` with the `exact` strategy), so that a caller
  /// explaining an Infeasible result need not compute it again; none
  /// elsewhere.
  std::optional<ProvenFloor> floor;
  /// The engine that produced `schedule` (set by `solveOptimal` and `solve`).
  Engine engine = Engine::None;
  /// The seconds each engine took, in the order they ran (set by
  /// `solveOptimal`).
  std::vector<EngineTime> engineSeconds;
  /// `solveMilp`: whether CBC was handed a start (`MilpOptions::start`, or in
  /// the restriction of a rounded model the relaxation's plan) that it could
  /// read as a stage matrix.
  bool startedFromGivenSchedule = false;
  /// `solveGeneric`: whether `schedule` comes from the eviction simulation
  /// (its plans may leave the stage space).
  bool fromEviction = false;

  /// Whether `schedule` holds a schedule within the budget.
  bool hasSchedule() const {
    return status == Status::Optimal || status == Status::Feasible;
  }
};

/// Returns "optimal", "feasible", "infeasible" or "unknown".
const char *statusName(SolveResult::Status status);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_SOLVERESULT_H
