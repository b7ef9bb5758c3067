//===- OffloadSolver.h - Keep, recompute or offload under a budget -*- C++ -*-//
//
// Chooses, for a training step's saved activations, which to keep, which to
// recompute and which to offload to host memory, under a device budget and
// a host budget, for the least step time (compute, recomputation and the
// copies' exposed time).
//
// The problem: a remat problem whose costs are seconds, a link and the two
// budgets. The solver: for growing sets of offload candidates in two orders
// (the earliest saved activations first: they wait longest for their
// backward reader; the costliest to recompute per byte first), the
// remat problem is rewritten so that offloading is a recomputation (node v
// gains a kept zero-byte "offload" node reading it and a "prefetch" node
// reading only that; the backward readers of v read the prefetch, whose
// recomputation is a copy back), an engine of `solve` plans it, the plan
// becomes an offload schedule, and each prefetch is issued as early as the
// budget allows so that its copy hides behind compute. The verifier:
// `evaluateOffloadSchedule`, which alone decides peak and time; the
// cheapest schedule it accepts wins, so the result is never slower than the
// same engine without offload.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_OFFLOADSOLVER_H
#define CKPT_REMAT_OFFLOADSOLVER_H

#include "ckpt/Remat/OffloadSchedule.h"
#include "ckpt/Remat/Solve.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace mlir::ckpt::remat {

/// Options of `solveWithOffload`.
struct OffloadOptions {
  /// The host link.
  CopyLink link;
  /// Host bytes the offloaded buffers may hold at once.
  int64_t hostBudgetBytes = std::numeric_limits<int64_t>::max();
  /// The engine strategy planning each rewritten problem (an engine
  /// strategy of `solve`).
  Strategy strategy = Strategy::Optimal;
  /// Its options (seeds apply to the problem without offload only).
  SolveOptions solve;
  /// Sizes of the candidate sets tried: 0, n/steps, 2n/steps, ..., n.
  unsigned candidateSteps = 8;
};

/// What `solveWithOffload` found.
struct OffloadResult {
  /// Whether `schedule` fits both budgets.
  bool found = false;
  OffloadSchedule schedule;
  /// `evaluateOffloadSchedule` of `schedule`.
  OffloadEvaluation evaluation;
  /// The nodes the schedule offloads, in problem order.
  std::vector<int32_t> offloaded;
  /// Wall-clock seconds spent.
  double seconds = 0;
};

/// The nodes that may be offloaded: recomputable, not outputs, of nonzero
/// size, read by a node that is not recomputable (a backward reader), in
/// problem order.
std::vector<int32_t> findOffloadCandidates(const Problem &problem);

/// Plans `problem` (costs in seconds) under `deviceBudgetBytes` (fixed
/// bytes included) with keep, recompute and offload. Never slower, as
/// evaluated, than the plan of `options.strategy` without offload when that
/// fits.
OffloadResult solveWithOffload(const Problem &problem,
                               int64_t deviceBudgetBytes,
                               const OffloadOptions &options);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_OFFLOADSOLVER_H
