//===- BudgetScope.cpp - What a memory budget covers ----------------------===//

#include "ckpt/Analysis/BudgetScope.h"

using namespace mlir::ckpt;

llvm::StringRef mlir::ckpt::stringifyBudgetScope(BudgetScope scope) {
  switch (scope) {
  case BudgetScope::Step:
    return "step";
  case BudgetScope::Activations:
    return "activations";
  }
  llvm_unreachable("unknown budget scope");
}

std::optional<BudgetScope>
mlir::ckpt::symbolizeBudgetScope(llvm::StringRef text) {
  for (BudgetScope scope : {BudgetScope::Step, BudgetScope::Activations})
    if (text == stringifyBudgetScope(scope))
      return scope;
  return std::nullopt;
}

llvm::raw_ostream &mlir::ckpt::operator<<(llvm::raw_ostream &os,
                                          BudgetScope scope) {
  return os << stringifyBudgetScope(scope);
}

namespace llvm::cl {

bool parser<BudgetScope>::parse(Option &option, StringRef argName,
                                StringRef arg, BudgetScope &value) {
  if (std::optional<BudgetScope> scope = symbolizeBudgetScope(arg)) {
    value = *scope;
    return false;
  }
  // LLVM prefixes "for the --budget-scope option: ".
  return option.error("unknown value '" + arg + "' (expected " +
                      kBudgetScopeChoices + ")");
}

void parser<BudgetScope>::printOptionDiff(
    const Option &option, BudgetScope value,
    const OptionValue<BudgetScope> &defaultValue, size_t globalWidth) const {
  printOptionName(option, globalWidth);
  outs() << "= " << stringifyBudgetScope(value) << " (default: ";
  if (defaultValue.hasValue())
    outs() << stringifyBudgetScope(defaultValue.getValue());
  else
    outs() << "*no default*";
  outs() << ")\n";
}

void parser<BudgetScope>::anchor() {}

} // namespace llvm::cl
