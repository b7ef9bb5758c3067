//===- Objective.h - What recomputation costs --------------------*- C++ -*-===//
//
// The `objective=` of the planning passes as an enum: the estimated time
// (roofline on a hardware profile) or the FLOPs of what is recomputed; its
// spelling and the command-line parser of the option.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_OBJECTIVE_H
#define CKPT_ANALYSIS_OBJECTIVE_H

#include "ckpt/Analysis/EnumOption.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"

#include <optional>
#include <string>

namespace mlir::ckpt {

/// The cost of recomputation a plan minimizes.
enum class Objective {
  /// Estimated time: the roofline of the hardware profile.
  Time,
  /// Floating-point operations.
  Flops,
};

/// Returns the option spelling of `objective` (`time`, `flops`).
inline llvm::StringRef stringifyObjective(Objective objective) {
  switch (objective) {
  case Objective::Time:
    return "time";
  case Objective::Flops:
    return "flops";
  }
  llvm_unreachable("unknown objective");
}

/// The spellings of `objective=`.
template <>
struct EnumOptionSpelling<Objective> {
  static std::optional<Objective> parse(llvm::StringRef text) {
    for (Objective objective : {Objective::Time, Objective::Flops})
      if (text == stringifyObjective(objective))
        return objective;
    return std::nullopt;
  }
  static llvm::StringRef name(Objective objective) {
    return stringifyObjective(objective);
  }
  static std::string choices() { return "time or flops"; }
  static llvm::StringRef valueName() { return "time|flops"; }
};

} // namespace mlir::ckpt

/// Parses `objective=` values of pass and pipeline options.
CKPT_OPTION_PARSER(mlir::ckpt::Objective, EnumOptionParser);

#endif // CKPT_ANALYSIS_OBJECTIVE_H
