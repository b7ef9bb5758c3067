//===- OptionChecks.h - Checks of pass options shared by passes -*- C++ -*-===//
//
// Option values several passes take, checked once with one message each:
// errors without a location (an option has no place in the input), naming
// the pass and the option as typed.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_OPTIONCHECKS_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_OPTIONCHECKS_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::ckpt {

/// Checks `time-limit=` of `pass`: a finite number of seconds above 0 (not
/// 0, negative or nan); otherwise emits `{pass}: time-limit={value} is not a
/// positive number of seconds` and fails.
LogicalResult checkTimeLimitOption(MLIRContext *context, llvm::StringRef pass,
                                   double seconds);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_OPTIONCHECKS_H
