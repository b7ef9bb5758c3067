//===- SolveClock.h - Timing and admission of a solve -------------*- C++
//-*-===//
//
// Internal to CkptRemat: the start of every engine's solve. It times the
// solve and rejects malformed problems, so that each engine accepts,
// refuses and stamps its seconds the same way.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_REMAT_SOLVECLOCK_H
#define CKPT_LIB_REMAT_SOLVECLOCK_H

#include "ckpt/Remat/SolveResult.h"

#include <chrono>
#include <optional>
#include <string>

namespace mlir::ckpt::remat::detail {

/// The start of every exact solve: times it and rejects malformed problems.
class SolveClock {
public:
  SolveClock() : start(std::chrono::steady_clock::now()) {}

  /// Returns false, with the reason in `result.message`, if `problem` is
  /// malformed.
  bool accept(const Problem &problem, SolveResult &result) const {
    std::optional<std::string> error = problem.validate();
    if (error)
      result.message = "malformed problem: " + *error;
    return !error;
  }

  /// Seconds since the clock started.
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

  /// Stamps the elapsed wall time into `result` and returns it.
  SolveResult finish(SolveResult &result) const {
    result.seconds = elapsed();
    return result;
  }

private:
  std::chrono::steady_clock::time_point start;
};

} // namespace mlir::ckpt::remat::detail

#endif // CKPT_LIB_REMAT_SOLVECLOCK_H
