//===- StrategyOption.h - The strategy= option as an enum --------*- C++ -*-===//
//
// `strategy=` of the planning passes and the pipeline holds a
// `remat::Strategy`, parsed while the options are parsed (the spellings are
// Solve.h's): an unknown strategy is an option error that lists them all.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_STRATEGYOPTION_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_STRATEGYOPTION_H

#include "ckpt/Analysis/EnumOption.h"
#include "ckpt/Remat/Solve.h"

namespace mlir::ckpt {

/// The spellings of `strategy=`: `remat::parseStrategy`'s.
template <>
struct EnumOptionSpelling<remat::Strategy> {
  static std::optional<remat::Strategy> parse(llvm::StringRef text) {
    return remat::parseStrategy(std::string_view(text.data(), text.size()));
  }
  static llvm::StringRef name(remat::Strategy strategy) {
    return remat::strategyName(strategy);
  }
  static std::string choices() { return remat::strategyNameList(); }
  static llvm::StringRef valueName() { return "strategy"; }
};

} // namespace mlir::ckpt

/// Parses `strategy=` values of pass and pipeline options.
CKPT_OPTION_PARSER(mlir::ckpt::remat::Strategy, EnumOptionParser);

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_STRATEGYOPTION_H
