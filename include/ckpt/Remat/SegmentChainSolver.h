//===- SegmentChainSolver.h - The scalable checkpointing engine -*- C++ -*-===//
//
// The engine that scales: it cuts the forward part of a training step into a
// chain of segments, computes for every segment a small Pareto set of ways
// to keep its values for the backward pass, and combines them with a dynamic
// program over the chain in the manner of Rotor (Beaumont et al., "Optimal
// checkpointing for heterogeneous chains", 2019): a segment range is either
// run while keeping a segment's values, or run from a stored checkpoint,
// storing a later one, and solved recursively -- so values may be recomputed
// several times, as revolve-like schedules do at low budgets. The schedule
// the DP describes is emitted and re-checked with `evaluateSchedule`; where
// the DP's memory model (sizes rounded to memory quanta) is not exact,
// smaller DP budgets are tried until the re-checked peak fits.
//
// The engine applies to steps in "training form": a prefix of recomputable
// (forward) nodes followed by non-recomputable (backward, optimizer) nodes.
// docs/checkpointing.md describes the model and its limits.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_SEGMENTCHAINSOLVER_H
#define CKPT_REMAT_SEGMENTCHAINSOLVER_H

#include "ckpt/Remat/ExactSolvers.h"

#include <cstdint>

namespace mlir::ckpt::remat {

/// Options of `solveSegmentChain`.
struct SegmentChainOptions {
  /// Most segments the chain is cut into (the DP is cubic in this).
  int32_t maxSegments = 96;
  /// Approximate number of DP steps (segments^3 * memory slots) to spend;
  /// the memory quantum is chosen from it (64 to 4,096 slots).
  double workLimit = 6e7;
  /// Most keep options per segment (the Pareto set is thinned to this).
  int32_t maxOptionsPerSegment = 8;
  /// Most DP budgets tried when a re-checked schedule does not fit.
  int32_t maxRepairRounds = 24;
};

/// Solves `problem` under `budgetBytes` (fixed bytes included). The result is
/// `Feasible` with a re-checked schedule, or `Unknown` (not in training form,
/// or no schedule of the engine's space fits; `message` says which). The
/// engine proves no bound: `lowerBound` is left 0.
SolveResult solveSegmentChain(const Problem &problem, int64_t budgetBytes,
                              const SegmentChainOptions &options = {});

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_SEGMENTCHAINSOLVER_H
