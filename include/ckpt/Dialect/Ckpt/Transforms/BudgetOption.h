//===- BudgetOption.h - The budget= option, parsed once ----------*- C++ -*-===//
//
// `budget=` of the planning passes and the pipeline holds a `BudgetOption`:
// the text as given and the budget it denotes, parsed when the option is set
// (a bad value is an option error naming the option), so no pass parses the
// text again. Resolving it into bytes needs the step's no-recompute peak and
// happens once, into `ckpt.budget` (BudgetAttr.h).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_BUDGETOPTION_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_BUDGETOPTION_H

#include "ckpt/Analysis/TypedOption.h"
#include "ckpt/Remat/Budget.h"

#include <optional>
#include <string>

namespace mlir::ckpt {

/// The value of a `budget=` option: none (empty text), or a budget as given
/// (`0.5x`, `24GiB`) and as parsed.
class BudgetOption : public TextOptionValue<BudgetOption> {
public:
  /// No budget.
  BudgetOption() = default;
  /// Parses `text` (`remat::parseBudget`); an invalid text keeps the reason
  /// in `getError()`.
  BudgetOption(std::string text);
  BudgetOption(const char *text) : BudgetOption(std::string(text)) {}

  /// The budget; none when empty or invalid.
  const std::optional<remat::Budget> &getBudget() const { return budget; }

  /// The value name --help shows after the option.
  static llvm::StringRef valueName() { return "budget"; }

private:
  std::optional<remat::Budget> budget;
};

} // namespace mlir::ckpt

/// Parses `budget=` values: a budget that does not parse is an option error
/// ("for the --budget option: budget '0.5' has no unit: ...").
CKPT_OPTION_PARSER(mlir::ckpt::BudgetOption, TextOptionParser);

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_BUDGETOPTION_H
