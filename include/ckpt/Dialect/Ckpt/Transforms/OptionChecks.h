//===- OptionChecks.h - Checks of pass options shared by passes -*- C++ -*-===//
//
// Option values several passes take, checked once with one message each:
// errors without a location (an option has no place in the input), naming
// the pass and the option as typed.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_OPTIONCHECKS_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_OPTIONCHECKS_H

#include "ckpt/Dialect/Ckpt/Transforms/BudgetOption.h"
#include "ckpt/Remat/OffloadSchedule.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir::ckpt {

/// Checks `time-limit=` of `pass`: a finite number of seconds above 0 (not
/// 0, negative or nan); otherwise emits `{pass}: time-limit={value} is not a
/// positive number of seconds` and fails.
LogicalResult checkTimeLimitOption(MLIRContext *context, llvm::StringRef pass,
                                   double seconds);

/// What `offload=` and `host-budget=` ask for: the host link and the host
/// bytes the offloaded values may hold (INT64_MAX: no limit).
struct OffloadTarget {
  remat::CopyLink link;
  int64_t hostBudgetBytes = 0;
};

/// Reads `offload=` (a built-in link name; empty: no offload) and
/// `host-budget=` of `pass`: none without `offload`. Fails with an error
/// naming the option on an unknown link, on offload without
/// `objective=time` (`timeObjective` false), on a host budget that is a
/// fraction, and on a host budget without `offload`.
FailureOr<std::optional<OffloadTarget>>
readOffloadOptions(MLIRContext *context, llvm::StringRef pass,
                   llvm::StringRef offload, const BudgetOption &hostBudget,
                   bool timeObjective);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_OPTIONCHECKS_H
