//===- BudgetOption.cpp - The budget= option, parsed once -----------------===//

#include "ckpt/Dialect/Ckpt/Transforms/BudgetOption.h"

using namespace mlir::ckpt;

BudgetOption::BudgetOption(std::string text) : text(std::move(text)) {
  if (!this->text.empty())
    budget = remat::parseBudget(this->text, error);
}
