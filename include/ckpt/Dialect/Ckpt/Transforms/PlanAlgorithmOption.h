//===- PlanAlgorithmOption.h - The algorithm= option as an enum -*- C++ -*-===//
//
// `algorithm=` of `ckpt-plan-memory` holds a `plan::PlanAlgorithm`, parsed
// while the options are parsed (the spellings are MemoryPlan.h's): an
// unknown algorithm is an option error that lists them.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_PLANALGORITHMOPTION_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_PLANALGORITHMOPTION_H

#include "ckpt/Analysis/EnumOption.h"
#include "ckpt/Plan/MemoryPlan.h"

namespace mlir::ckpt {

/// The spellings of `algorithm=`: `plan::parsePlanAlgorithm`'s.
template <>
struct EnumOptionSpelling<plan::PlanAlgorithm> {
  static std::optional<plan::PlanAlgorithm> parse(llvm::StringRef text) {
    return plan::parsePlanAlgorithm(text);
  }
  static llvm::StringRef name(plan::PlanAlgorithm algorithm) {
    return plan::planAlgorithmName(algorithm);
  }
  static std::string choices() { return "portfolio or greedy-by-size"; }
  static llvm::StringRef valueName() { return "portfolio|greedy-by-size"; }
};

} // namespace mlir::ckpt

/// Parses `algorithm=` values of `ckpt-plan-memory`.
CKPT_OPTION_PARSER(mlir::ckpt::plan::PlanAlgorithm, EnumOptionParser);

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_PLANALGORITHMOPTION_H
