//===- OptionChecks.cpp - Checks of pass options shared by passes --------===//

#include "ckpt/Dialect/Ckpt/Transforms/OptionChecks.h"

#include "ckpt/Analysis/StepReport.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <cmath>

using namespace mlir;

LogicalResult mlir::ckpt::checkTimeLimitOption(MLIRContext *context,
                                               llvm::StringRef pass,
                                               double seconds) {
  if (std::isfinite(seconds) && seconds > 0)
    return success();
  return emitError(UnknownLoc::get(context))
         << pass << ": time-limit=" << formatNumber(seconds)
         << " is not a positive number of seconds";
}
