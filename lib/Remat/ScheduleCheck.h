//===- ScheduleCheck.h - The last steps of every engine ------------*- C++
//-*-===//
//
// Internal to CkptRemat: what every engine does to a schedule before it
// returns it: drop recomputations it does not need, then re-check it with
// `evaluateSchedule` against the budget.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_REMAT_SCHEDULECHECK_H
#define CKPT_LIB_REMAT_SCHEDULECHECK_H

#include "ckpt/Remat/SolveResult.h"

#include <cstdint>
#include <string>

namespace mlir::ckpt::remat::detail {

/// Removes, latest first, every recomputation of a group whose removal
/// keeps `schedule` within `budgetBytes` without raising its cost (reads then
/// bind to an earlier computation). Returns the number removed.
int64_t dropNeedlessRecomputations(const Problem &problem, int64_t budgetBytes,
                                   Schedule &schedule);

/// Evaluates `result.schedule` and fills `cost` and `peakBytes`. Returns an
/// empty string if the schedule is valid and within `budgetBytes`, and the
/// reason otherwise.
std::string checkSchedule(const Problem &problem, int64_t budgetBytes,
                          SolveResult &result);

} // namespace mlir::ckpt::remat::detail

#endif // CKPT_LIB_REMAT_SCHEDULECHECK_H
