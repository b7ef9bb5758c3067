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

#include "ckpt/Remat/Budget.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::ckpt {

/// The value of a `budget=` option: none (empty text), or a budget as given
/// and as parsed.
class BudgetOption {
public:
  /// No budget.
  BudgetOption() = default;
  /// Parses `text` (`remat::parseBudget`); an invalid text keeps the reason
  /// in `getError()` (set from C++, where no option parser runs).
  BudgetOption(std::string text);
  BudgetOption(const char *text) : BudgetOption(std::string(text)) {}

  /// Whether no budget was given.
  bool empty() const { return text.empty(); }
  /// The budget as given (`0.5x`, `24GiB`), for messages.
  const std::string &getText() const { return text; }
  /// The budget; none when empty or invalid.
  const std::optional<remat::Budget> &getBudget() const { return budget; }
  /// Why the text is not a budget; "" when it is one or empty.
  const std::string &getError() const { return error; }

  bool operator==(const BudgetOption &other) const {
    return text == other.text;
  }
  bool operator!=(const BudgetOption &other) const {
    return !(*this == other);
  }

private:
  std::string text;
  std::optional<remat::Budget> budget;
  std::string error;
};

/// Prints the budget as given (used when pass options are printed).
inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const BudgetOption &budget) {
  return os << budget.getText();
}

} // namespace mlir::ckpt

namespace llvm::cl {

/// Parses `budget=` values: a budget that does not parse is an option error
/// ("for the --budget option: budget '0.5' has no unit: ...").
template <>
class parser<mlir::ckpt::BudgetOption>
    : public basic_parser<mlir::ckpt::BudgetOption> {
public:
  parser(Option &option) : basic_parser(option) {}

  /// Returns true (after reporting through `option.error`) on a bad value.
  bool parse(Option &option, StringRef, StringRef arg,
             mlir::ckpt::BudgetOption &value) {
    value = mlir::ckpt::BudgetOption(arg.str());
    if (value.getError().empty())
      return false;
    return option.error(value.getError());
  }

  /// The value name --help shows after the option.
  StringRef getValueName() const override { return "budget"; }

  /// Prints `value` and the default (for option dumps).
  void printOptionDiff(const Option &option, const mlir::ckpt::BudgetOption &value,
                       const OptionValue<mlir::ckpt::BudgetOption> &defaultValue,
                       size_t globalWidth) const {
    printOptionName(option, globalWidth);
    outs() << "= " << value << " (default: ";
    if (defaultValue.hasValue())
      outs() << defaultValue.getValue();
    else
      outs() << "*no default*";
    outs() << ")\n";
  }

  /// Prints `value` as given.
  static void print(raw_ostream &os, const mlir::ckpt::BudgetOption &value) {
    os << value;
  }
};

} // namespace llvm::cl

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_BUDGETOPTION_H
