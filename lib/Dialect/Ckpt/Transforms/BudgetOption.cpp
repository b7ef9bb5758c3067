//===- BudgetOption.cpp - The budget= option, parsed once -----------------===//

#include "ckpt/Dialect/Ckpt/Transforms/BudgetOption.h"

using namespace mlir::ckpt;

BudgetOption::BudgetOption(std::string text)
    : TextOptionValue(std::move(text)) {
  if (!empty())
    budget = remat::parseBudget(getText(), error);
}
