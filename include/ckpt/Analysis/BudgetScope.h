//===- BudgetScope.h - What a memory budget covers --------------*- C++ -*-===//
//
// The one definition of `budget-scope`: the enum every pass and pipeline
// option holds, its spelling, and the command-line parser that rejects
// anything else while the options are parsed.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_BUDGETSCOPE_H
#define CKPT_ANALYSIS_BUDGETSCOPE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

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
llvm::StringRef stringifyBudgetScope(BudgetScope scope);

/// Parses an option spelling; std::nullopt for anything else.
std::optional<BudgetScope> symbolizeBudgetScope(llvm::StringRef text);

/// Prints the option spelling (used when pass options are printed).
llvm::raw_ostream &operator<<(llvm::raw_ostream &os, BudgetScope scope);

} // namespace mlir::ckpt

namespace llvm::cl {

/// Parses `budget-scope=` values of pass and pipeline options; an unknown
/// value is an option error naming the option and the accepted values.
template <>
class parser<mlir::ckpt::BudgetScope>
    : public basic_parser<mlir::ckpt::BudgetScope> {
public:
  parser(Option &option) : basic_parser(option) {}

  /// Returns true (after reporting through `option.error`) on a bad value.
  bool parse(Option &option, StringRef argName, StringRef arg,
             mlir::ckpt::BudgetScope &value);

  /// The value placeholder shown by --help.
  StringRef getValueName() const override { return "step|activations"; }

  /// Prints `value` and, when it differs, the default (for --help-hidden
  /// style option dumps).
  void printOptionDiff(const Option &option, mlir::ckpt::BudgetScope value,
                       const OptionValue<mlir::ckpt::BudgetScope> &defaultValue,
                       size_t globalWidth) const;

  /// Prints `value` as its option spelling.
  static void print(raw_ostream &os, mlir::ckpt::BudgetScope value) {
    os << mlir::ckpt::stringifyBudgetScope(value);
  }

  void anchor() override;
};

} // namespace llvm::cl

#endif // CKPT_ANALYSIS_BUDGETSCOPE_H
