//===- BudgetAttr.cpp - The resolved budget of a function, in IR ----------===//

#include "ckpt/Dialect/Ckpt/IR/BudgetAttr.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::ckpt;

static constexpr llvm::StringLiteral kBudgetBytesField = "bytes", kBudgetScopeField = "scope",
                                     kBudgetRequestedField = "requested",
                                     kBudgetTargetField = "target";

void mlir::ckpt::setBudget(Operation *op, const ResolvedBudget &budget) {
  Builder b(op->getContext());
  SmallVector<NamedAttribute, 4> fields = {
      b.getNamedAttr(kBudgetBytesField, b.getI64IntegerAttr(budget.bytes)),
      b.getNamedAttr(kBudgetRequestedField, b.getStringAttr(budget.requested)),
      b.getNamedAttr(kBudgetScopeField,
                     b.getStringAttr(stringifyBudgetScope(budget.scope)))};
  if (budget.target)
    fields.push_back(
        b.getNamedAttr(kBudgetTargetField, b.getI64IntegerAttr(*budget.target)));
  op->setAttr(kBudgetAttrName, b.getDictionaryAttr(fields));
}

std::optional<ResolvedBudget> mlir::ckpt::getBudget(Operation *op) {
  auto dict = op->getAttrOfType<DictionaryAttr>(kBudgetAttrName);
  if (!dict)
    return std::nullopt;
  ResolvedBudget budget;
  budget.bytes = dict.getAs<IntegerAttr>(kBudgetBytesField).getInt();
  budget.scope = *symbolizeBudgetScope(dict.getAs<StringAttr>(kBudgetScopeField));
  budget.requested = dict.getAs<StringAttr>(kBudgetRequestedField).str();
  if (auto target = dict.getAs<IntegerAttr>(kBudgetTargetField))
    budget.target = target.getInt();
  return budget;
}

llvm::json::Object mlir::ckpt::budgetToJson(const ResolvedBudget &budget) {
  llvm::json::Object object{
      {"bytes", budget.bytes},
      {"requested", budget.requested},
      {"scope", stringifyBudgetScope(budget.scope)}};
  if (budget.target)
    object["target"] = *budget.target;
  return object;
}

/// Whether `value` is an i64 integer attribute.
static IntegerAttr getBudgetI64(Attribute value) {
  auto integer = dyn_cast_or_null<IntegerAttr>(value);
  return integer && integer.getType().isSignlessInteger(64) ? integer
                                                            : IntegerAttr();
}

LogicalResult mlir::ckpt::verifyBudgetAttribute(Operation *op,
                                                Attribute value) {
  if (!isa<func::FuncOp>(op))
    return op->emitError() << "'ckpt.budget' may only be set on a func.func";
  auto dict = dyn_cast<DictionaryAttr>(value);
  if (!dict)
    return op->emitError() << "'ckpt.budget' must be a dictionary";
  IntegerAttr bytes = getBudgetI64(dict.get(kBudgetBytesField));
  if (!bytes || bytes.getInt() < 1)
    return op->emitError()
           << "'ckpt.budget' needs 'bytes', an i64 of at least 1";
  auto scope = dyn_cast_or_null<StringAttr>(dict.get(kBudgetScopeField));
  if (!scope || !symbolizeBudgetScope(scope))
    return op->emitError() << "'ckpt.budget' needs 'scope', one of "
                           << kBudgetScopeChoices << " as a string";
  if (!isa_and_nonnull<StringAttr>(dict.get(kBudgetRequestedField)))
    return op->emitError()
           << "'ckpt.budget' needs 'requested', the budget as given (a string)";
  if (Attribute target = dict.get(kBudgetTargetField)) {
    IntegerAttr bound = getBudgetI64(target);
    if (!bound || bound.getInt() < 1 || bound.getInt() > bytes.getInt())
      return op->emitError() << "'ckpt.budget' 'target' must be an i64 from 1 "
                                "to 'bytes'";
  }
  for (NamedAttribute field : dict)
    if (!llvm::is_contained({kBudgetBytesField, kBudgetScopeField, kBudgetRequestedField, kBudgetTargetField},
                            field.getName().getValue()))
      return op->emitError() << "'ckpt.budget' has an unknown field '"
                             << field.getName().getValue() << "'";
  return success();
}
