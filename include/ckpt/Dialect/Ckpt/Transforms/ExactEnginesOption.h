//===- ExactEnginesOption.h - The exact-engines= option as an enum -*- C++ -*-//
//
// `exact-engines=` of ckpt-place-checkpoints holds a `remat::ExactEngines`,
// parsed while the options are parsed: none, enumeration (the default) or
// all; `false` and `true`, its spellings when it was a flag, still mean none
// and all. Anything else is an option error that lists the spellings.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_EXACTENGINESOPTION_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_EXACTENGINESOPTION_H

#include "ckpt/Analysis/EnumOption.h"
#include "ckpt/Remat/OptimalSolver.h"

namespace mlir::ckpt {

/// The spellings of `exact-engines=`: `remat::parseExactEngines`'s.
template <>
struct EnumOptionSpelling<remat::ExactEngines> {
  static std::optional<remat::ExactEngines> parse(llvm::StringRef text) {
    return remat::parseExactEngines(std::string_view(text.data(), text.size()));
  }
  static llvm::StringRef name(remat::ExactEngines value) {
    return remat::exactEnginesName(value);
  }
  static std::string choices() {
    return "none, enumeration or all; false means none, true all";
  }
  static llvm::StringRef valueName() { return "none|enumeration|all"; }
};

} // namespace mlir::ckpt

/// Parses `exact-engines=` values of pass options.
CKPT_OPTION_PARSER(mlir::ckpt::remat::ExactEngines, EnumOptionParser);

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_EXACTENGINESOPTION_H
