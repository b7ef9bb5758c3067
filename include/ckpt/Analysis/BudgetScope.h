//===- BudgetScope.h - What a memory budget covers --------------*- C++ -*-===//
//
// The one definition of `budget-scope`: the enum every pass and pipeline
// option holds (and the `ckpt.budget` attribute records), its spelling, and
// the command-line parser that rejects anything else while the options are
// parsed. Header-only on LLVM's support library, so that the dialect's
// verifier can read the spelling too.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_BUDGETSCOPE_H
#define CKPT_ANALYSIS_BUDGETSCOPE_H

#include "ckpt/Analysis/EnumOption.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::ckpt {

/// What a memory budget, and the peak compared with it, covers.
enum class BudgetScope {
  /// Everything the step holds: parameters, inputs, parameter gradients,
  /// activations, temporaries, op workspace and the device workspace.
  Step,
  /// What a PyTorch user calls activation memory: the forward values kept
  /// for the backward pass and the backward's temporaries (with op
  /// workspace). Parameters, inputs, the parameter gradients the step
  /// returns (for their whole lifetime) and the device workspace are out.
  Activations,
};

/// The accepted spellings, for messages: "step or activations".
inline constexpr llvm::StringLiteral kBudgetScopeChoices =
    "step or activations";

/// Returns the option spelling of `scope` (`step`, `activations`).
inline llvm::StringRef stringifyBudgetScope(BudgetScope scope) {
  switch (scope) {
  case BudgetScope::Step:
    return "step";
  case BudgetScope::Activations:
    return "activations";
  }
  llvm_unreachable("unknown budget scope");
}

/// Parses an option spelling; std::nullopt for anything else.
inline std::optional<BudgetScope> symbolizeBudgetScope(llvm::StringRef text) {
  for (BudgetScope scope : {BudgetScope::Step, BudgetScope::Activations})
    if (text == stringifyBudgetScope(scope))
      return scope;
  return std::nullopt;
}

/// Prints the option spelling (used when pass options are printed).
inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     BudgetScope scope) {
  return os << stringifyBudgetScope(scope);
}

/// The spellings of `budget-scope=`.
template <>
struct EnumOptionSpelling<BudgetScope> {
  static std::optional<BudgetScope> parse(llvm::StringRef text) {
    return symbolizeBudgetScope(text);
  }
  static llvm::StringRef name(BudgetScope scope) {
    return stringifyBudgetScope(scope);
  }
  static std::string choices() { return kBudgetScopeChoices.str(); }
  static llvm::StringRef valueName() { return "step|activations"; }
};

} // namespace mlir::ckpt

/// Parses `budget-scope=` values of pass and pipeline options; an unknown
/// value is an option error naming the option and the accepted values.
CKPT_OPTION_PARSER(mlir::ckpt::BudgetScope, EnumOptionParser);

#endif // CKPT_ANALYSIS_BUDGETSCOPE_H
