//===- OptionChecks.cpp - Checks of pass options shared by passes --------===//

#include "ckpt/Dialect/Ckpt/Transforms/OptionChecks.h"

#include "ckpt/Analysis/LinkProfile.h"
#include "ckpt/Analysis/StepReport.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <limits>

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

FailureOr<std::optional<ckpt::OffloadTarget>> mlir::ckpt::readOffloadOptions(
    MLIRContext *context, llvm::StringRef pass, llvm::StringRef offload,
    const BudgetOption &hostBudget, bool timeObjective) {
  Location loc = UnknownLoc::get(context);
  if (!hostBudget.getError().empty()) {
    emitError(loc) << pass << ": host-budget: " << hostBudget.getError();
    return failure();
  }
  const std::optional<remat::Budget> &host = hostBudget.getBudget();
  if (offload.empty()) {
    if (!host)
      return std::optional<OffloadTarget>();
    emitError(loc) << pass << ": host-budget needs offload=<link>";
    return failure();
  }
  std::optional<LinkProfile> known = getBuiltinLink(offload);
  if (!known) {
    emitError(loc) << pass << ": offload='" << offload
                   << "' is not a host link (built-in: "
                   << llvm::join(getBuiltinLinkNames(), ", ") << ")";
    return failure();
  }
  if (!timeObjective) {
    emitError(loc) << pass
                   << ": offload needs objective=time: copies and "
                      "computations share one clock";
    return failure();
  }
  OffloadTarget target{known->link, std::numeric_limits<int64_t>::max()};
  if (host) {
    if (!host->bytes) {
      emitError(loc) << pass << ": host-budget='" << hostBudget.getText()
                     << "' must be bytes with a unit (64GiB): a fraction of "
                        "the device peak means nothing on the host";
      return failure();
    }
    target.hostBudgetBytes = *host->bytes;
  }
  return std::optional<OffloadTarget>(target);
}
