//===- ExactSolvers.h - Exact rematerialization engines ---------*- C++ -*-===//
//
// Two exact engines for the plain rematerialization problem of
// RematProblem.h, both over the same "stage" solution space of Checkmate
// (Jain et al., MLSys 2020):
//
//  * Stage s computes the group s (a node together with its projections) last
//    and, before it, any subset of earlier recomputable groups, each once and
//    in problem order. A solution is the matrix R[s][g] (group g computed in
//    stage s); its schedule is: for s in order, for g <= s with R[s][g] = 1
//    in increasing g, every member of g.
//  * `solveMilp` solves Checkmate's mixed-integer program with CBC.
//  * `solveExhaustive` enumerates every R matrix of a tiny problem.
//
// Both engines judge memory exactly as `evaluateSchedule` does; for every R,
// the MILP can reproduce the evaluator's live bytes step by step, so both
// have the same optimum (see MilpSolver.cpp). Every schedule either returns
// has been re-checked with `evaluateSchedule`.
//
// The stage space is not every valid schedule: a node is recomputed at most
// once per stage, and recomputations precede the stage's new group in problem
// order. "Optimal" below means optimal within this space.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_EXACTSOLVERS_H
#define CKPT_REMAT_EXACTSOLVERS_H

#include "ckpt/Remat/RematProblem.h"
#include "ckpt/Remat/SolveResult.h"

#include <cstdint>
#include <functional>
#include <string>

namespace mlir::ckpt::remat {

/// Options of `solveMilp`.
struct MilpOptions {
  /// Wall-clock limit handed to CBC, in seconds.
  double timeLimitSeconds = 10;
  /// CBC checks its limit only between steps of its search: its root
  /// heuristics (the feasibility pump) have run minutes past a 60 s limit on
  /// a 250-node graph. When set, CBC runs in a child process that is killed
  /// once the limit is overrun by the grace below; the answer is then
  /// Unknown (no plan, the base cost as bound; a given `start` is kept), and
  /// the message says so. A crash inside CBC then ends only the child. Off:
  /// CBC runs in this process and may overrun. (Where fork is unavailable
  /// CBC always runs in this process.)
  bool enforceTimeLimit = true;
  /// Grace past `timeLimitSeconds` before an enforced run is stopped: the
  /// larger of this fraction of the limit and `minGraceSeconds` (CBC
  /// finishes its current step after the limit; within the grace its
  /// incumbent and bound are kept).
  double graceFraction = 0.25;
  double minGraceSeconds = 5;
  /// The largest model built, in constraint-matrix entries: CBC holds
  /// several copies of the model (at 250 random nodes, 1.7 million entries
  /// after preprocessing took 2.7 GB). Beyond it nothing is solved and the
  /// answer is Unknown; the message gives the size reached.
  int64_t maxModelEntries = 8000000;
  /// Whether CBC prints its log to stdout.
  bool verbose = false;
  /// Sizes are measured in a quantum (the gcd of all sizes) so that the
  /// model's memory rows stay small integers. Above this many quanta in
  /// total a coarser quantum is used, the budget rounded down, and two
  /// models share the time limit: the relaxation (sizes rounded down), whose
  /// bound and proofs of infeasibility hold for the problem and whose plan
  /// is kept when it fits with exact sizes, then the restriction (sizes
  /// rounded up), whose plans all fit. A plan is claimed optimal when it
  /// meets the relaxation's bound.
  int64_t maxExactUnits = 2000000;
  /// Progress of an enforced run (CBC in a child process): called about
  /// every `progressSeconds` with the seconds since CBC started, the time
  /// limit, and the deadline at which CBC is stopped (the limit and its
  /// grace), e.g. to tell a user at a terminal that the solve goes on.
  using Progress = std::function<void(double elapsedSeconds,
                                      double limitSeconds,
                                      double deadlineSeconds)>;
  Progress progress;
  double progressSeconds = 5;
  /// A schedule to start CBC from (a MIP start), e.g. the best heuristic
  /// plan; handed to CBC if it is valid, fits, and its recomputations can be
  /// read as a stage matrix R (each group at most once per stage). If it fits
  /// and CBC returns nothing cheaper (e.g. out of time), it is the result.
  /// Not owned.
  const Schedule *start = nullptr;
};

/// Solves the Checkmate MILP for `problem` under `budgetBytes` (fixed bytes
/// included) with CBC, single-threaded and deterministic. Recomputations the
/// solution does not need (free ones, which the objective does not see) are
/// dropped before the schedule is re-checked and returned.
SolveResult solveMilp(const Problem &problem, int64_t budgetBytes,
                      const MilpOptions &options);

/// Same, with default options and the given time limit.
SolveResult solveMilp(const Problem &problem, int64_t budgetBytes,
                      double timeLimitSeconds);

/// log2 of the number of R matrices of `problem`'s stage space: the sum over
/// stages of the number of earlier recomputable groups.
int64_t stageSpaceBits(const Problem &problem);

/// Default limit on `stageSpaceBits` for `solveExhaustive`.
constexpr int64_t kMaxExhaustiveBits = 22;

/// Enumerates the stage space of `problem` and returns its cheapest schedule
/// within `budgetBytes` (ties: the shortest order, then the lexicographically
/// smallest, so the answer is deterministic and zero-cost nodes are not
/// recomputed needlessly). Refuses
/// (Unknown) when `stageSpaceBits(problem) > maxBits`.
SolveResult solveExhaustive(const Problem &problem, int64_t budgetBytes,
                            int64_t maxBits = kMaxExhaustiveBits);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_EXACTSOLVERS_H
