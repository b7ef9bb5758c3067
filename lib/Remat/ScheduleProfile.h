//===- ScheduleProfile.h - Live bytes between a schedule's steps -*- C++ -*-===//
//
// Internal to CkptRemat: what the window searches (WindowRepair.h,
// CostRepair.h) read off a schedule in any first-computation order: its
// evaluation, the live bytes after each step, and the values live there
// (a window's boundaries).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_REMAT_SCHEDULEPROFILE_H
#define CKPT_LIB_REMAT_SCHEDULEPROFILE_H

#include "ckpt/Remat/RematProblem.h"

#include <cstdint>
#include <vector>

namespace mlir::ckpt::remat::detail {

/// A schedule in any first-computation order, its evaluation, and the live
/// bytes after each step (once the buffers it read last are freed).
struct Profile {
  Evaluation eval;
  std::vector<int64_t> after;
};

/// Evaluates `computations` (any first-computation order) into a profile;
/// `eval.error` says why when it is not a valid schedule.
Profile profileOf(const Problem &problem,
                  const std::vector<int32_t> &computations);

/// The nodes whose buffers are live after `step` (-1: before the first),
/// sorted.
std::vector<int32_t> liveAfter(const std::vector<int32_t> &computations,
                               const Profile &profile, int64_t step);

} // namespace mlir::ckpt::remat::detail

#endif // CKPT_LIB_REMAT_SCHEDULEPROFILE_H
