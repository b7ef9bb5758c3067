//===- CkptDialect.cpp - The ckpt dialect and step verification -----------===//
//
// Registers the ckpt dialect and verifies the training-step structure that
// its discardable attributes (`ckpt.step`, `ckpt.role`, `ckpt.grad_of`)
// describe.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"
#include "ckpt/Dialect/Ckpt/IR/BudgetAttr.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TrainingStep.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ckpt;

#include "ckpt/Dialect/Ckpt/IR/CkptDialect.cpp.inc"
#include "ckpt/Dialect/Ckpt/IR/CkptEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ckpt/Dialect/Ckpt/IR/CkptAttrs.cpp.inc"

void CkptDialect::initialize() {
  registerAttributes();
  registerOps();
  getContext()->getOrLoadDialect<func::FuncDialect>();
}

void CkptDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ckpt/Dialect/Ckpt/IR/CkptAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Argument and result attributes
//===----------------------------------------------------------------------===//

static bool isArgumentRole(ValueRole role) {
  return role == ValueRole::Param || role == ValueRole::Input ||
         role == ValueRole::Seed || role == ValueRole::State;
}

static bool isResultRole(ValueRole role) {
  return role == ValueRole::Loss || role == ValueRole::Grad ||
         role == ValueRole::State || role == ValueRole::Output;
}

LogicalResult CkptDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() == getOffsetAttrName()) {
    auto offset = dyn_cast<IntegerAttr>(attr.getValue());
    if (!offset || offset.getValue().isNegative())
      return op->emitError() << "argument #" << argIndex
                             << ": 'ckpt.offset' must be a non-negative "
                                "integer";
    return success();
  }
  if (attr.getName() != getRoleAttrName())
    return op->emitError() << "unknown ckpt argument attribute '"
                           << attr.getName().getValue() << "' on argument #"
                           << argIndex;
  auto role = dyn_cast<ValueRoleAttr>(attr.getValue());
  if (!role)
    return op->emitError() << "argument #" << argIndex
                           << ": 'ckpt.role' must be a #ckpt.role attribute";
  if (!isArgumentRole(role.getValue()))
    return op->emitError() << "argument #" << argIndex << " has role '"
                           << stringifyValueRole(role.getValue())
                           << "', which only results may have (arguments are "
                              "param, input, seed or state)";
  return success();
}

LogicalResult CkptDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  if (attr.getName() == getGradOfAttrName()) {
    // A signless or index integer that fits in int64_t, as getGradientOf
    // reads it.
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    if (!index ||
        !(index.getType().isSignlessInteger() || index.getType().isIndex()) ||
        !index.getValue().isSignedIntN(64))
      return op->emitError() << "result #" << resultIndex
                             << ": 'ckpt.grad_of' must be an integer argument "
                                "index";
    return success();
  }
  if (attr.getName() != getRoleAttrName())
    return op->emitError() << "unknown ckpt result attribute '"
                           << attr.getName().getValue() << "' on result #"
                           << resultIndex;
  auto role = dyn_cast<ValueRoleAttr>(attr.getValue());
  if (!role)
    return op->emitError() << "result #" << resultIndex
                           << ": 'ckpt.role' must be a #ckpt.role attribute";
  if (!isResultRole(role.getValue()))
    return op->emitError() << "result #" << resultIndex << " has role '"
                           << stringifyValueRole(role.getValue())
                           << "', which only arguments may have (results are "
                              "loss, grad, state or output)";
  return success();
}

/// Verifies the memory-plan attributes (docs/memory-plan.md); `handled` is
/// set when `attr` is one of them.
static LogicalResult verifyMemoryPlanAttribute(Operation *op,
                                               NamedAttribute attr,
                                               bool &handled) {
  handled = true;
  StringRef name = attr.getName().getValue();
  if (name == CkptDialect::getOffsetAttrName()) {
    auto offsets = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!offsets ||
        offsets.size() != static_cast<int64_t>(op->getNumResults()) ||
        llvm::any_of(offsets.asArrayRef(), [](int64_t o) { return o < 0; }))
      return op->emitError() << "'ckpt.offset' must be an array<i64> of one "
                                "non-negative offset per result";
    return success();
  }
  if (name == CkptDialect::getWorkspaceOffsetAttrName() ||
      name == CkptDialect::getArenaSizeAttrName() ||
      name == CkptDialect::getArenaLowerBoundAttrName() ||
      name == CkptDialect::getHostArenaSizeAttrName() ||
      name == CkptDialect::getParameterRegionAttrName() ||
      name == CkptDialect::getDeviceWorkspaceAttrName() ||
      name == CkptDialect::getDeviceWorkspaceOffsetAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getValue().isNegative())
      return op->emitError() << "'" << name
                             << "' must be a non-negative integer";
    if (name != CkptDialect::getWorkspaceOffsetAttrName() &&
        !isa<func::FuncOp>(op))
      return op->emitError() << "'" << name << "' may only mark a func.func";
    return success();
  }
  handled = false;
  return success();
}

LogicalResult CkptDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  bool handled = false;
  if (attr.getName() == getRecomputeAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'ckpt.recompute' must be a unit attribute";
    if (getOpPhase(op) != Phase::Forward)
      return op->emitError() << "'ckpt.recompute' may only mark a forward "
                                "ckpt op (a recomputed forward value)";
    return success();
  }
  if (attr.getName() == kBudgetAttrName)
    return verifyBudgetAttribute(op, attr.getValue());
  if (attr.getName() == getOffloadLinkAttrName()) {
    auto link = dyn_cast<StringAttr>(attr.getValue());
    if (!link || link.getValue().empty() || !isa<func::FuncOp>(op))
      return op->emitError() << "'ckpt.offload_link' must be a non-empty "
                                "string on a func.func";
    return success();
  }
  LogicalResult planned = verifyMemoryPlanAttribute(op, attr, handled);
  if (handled)
    return planned;
  if (attr.getName() != getStepAttrName())
    return op->emitError() << "unknown ckpt attribute '"
                           << attr.getName().getValue() << "'";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'ckpt.step' must be a unit attribute";
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return op->emitError() << "'ckpt.step' may only mark a func.func";
  return verifyTrainingStep(func);
}
