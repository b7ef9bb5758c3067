//===- TrainingStep.cpp - Structure of a training-step function -----------===//
//
// Implements the accessors and the structural verifier of training steps.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/TrainingStep.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::ckpt;

bool mlir::ckpt::isTrainingStep(func::FuncOp func) {
  return func->hasAttr(CkptDialect::getStepAttrName());
}

std::optional<Phase> mlir::ckpt::getOpPhase(Operation *op) {
  if (!isa_and_nonnull<CkptDialect>(op->getDialect()))
    return std::nullopt;
  std::optional<Attribute> attr = op->getInherentAttr("phase");
  if (!attr)
    return std::nullopt;
  auto intAttr = dyn_cast_or_null<IntegerAttr>(*attr);
  if (!intAttr)
    return std::nullopt;
  return symbolizePhase(intAttr.getInt());
}

static std::optional<ValueRole> getRole(DictionaryAttr attrs) {
  if (!attrs)
    return std::nullopt;
  if (auto role = attrs.getAs<ValueRoleAttr>(CkptDialect::getRoleAttrName()))
    return role.getValue();
  return std::nullopt;
}

std::optional<ValueRole> mlir::ckpt::getArgumentRole(func::FuncOp func,
                                                     unsigned index) {
  return getRole(func.getArgAttrDict(index));
}

std::optional<ValueRole> mlir::ckpt::getResultRole(func::FuncOp func,
                                                   unsigned index) {
  return getRole(func.getResultAttrDict(index));
}

std::optional<int64_t> mlir::ckpt::getGradientOf(func::FuncOp func,
                                                 unsigned resultIndex) {
  DictionaryAttr attrs = func.getResultAttrDict(resultIndex);
  if (!attrs)
    return std::nullopt;
  if (auto index = attrs.getAs<IntegerAttr>(CkptDialect::getGradOfAttrName()))
    return index.getInt();
  return std::nullopt;
}

/// Returns true if the argument/result attribute arrays and the entry block
/// of `func` agree with its function type. func.func verifies this itself, but
/// only after the discardable `ckpt.step` attribute has been verified.
static bool hasConsistentSignature(func::FuncOp func) {
  ArrayAttr argAttrs = func.getArgAttrsAttr();
  ArrayAttr resAttrs = func.getResAttrsAttr();
  if ((argAttrs && argAttrs.size() != func.getNumArguments()) ||
      (resAttrs && resAttrs.size() != func.getNumResults()))
    return false;
  if (argAttrs && !llvm::all_of(argAttrs, llvm::IsaPred<DictionaryAttr>))
    return false;
  if (resAttrs && !llvm::all_of(resAttrs, llvm::IsaPred<DictionaryAttr>))
    return false;
  return func.getBody().front().getArgumentTypes() ==
         ArrayRef<Type>(func.getArgumentTypes());
}

/// Returns the entries of `attrs`, which may be null.
static ArrayRef<NamedAttribute> getAttrs(DictionaryAttr attrs) {
  return attrs ? attrs.getValue() : ArrayRef<NamedAttribute>();
}

/// Runs the ckpt dialect's argument and result attribute verifiers on the
/// signature of `func`. MLIR verifies these attributes only after the
/// discardable `ckpt.step` attribute, and the step checks below must not
/// report a malformed role or gradient link as a missing or wrong one.
static LogicalResult verifySignatureAttributes(func::FuncOp func) {
  auto *dialect = func->getContext()->getLoadedDialect<CkptDialect>();
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    for (NamedAttribute attr : getAttrs(func.getArgAttrDict(i)))
      if (attr.getNameDialect() == dialect &&
          failed(dialect->verifyRegionArgAttribute(func, 0, i, attr)))
        return failure();
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    for (NamedAttribute attr : getAttrs(func.getResultAttrDict(i)))
      if (attr.getNameDialect() == dialect &&
          failed(dialect->verifyRegionResultAttribute(func, 0, i, attr)))
        return failure();
  return success();
}

/// Verifies roles of arguments and results, and the gradient links.
static LogicalResult verifyStepSignature(func::FuncOp func) {
  if (failed(verifySignatureAttributes(func)))
    return failure();
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (!getArgumentRole(func, i))
      return func.emitError() << "argument #" << i
                              << " of a ckpt.step function has no 'ckpt.role'";

  unsigned numLosses = 0;
  llvm::DenseMap<int64_t, unsigned> gradOfParam;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    std::optional<ValueRole> role = getResultRole(func, i);
    if (!role)
      return func.emitError() << "result #" << i
                              << " of a ckpt.step function has no 'ckpt.role'";
    std::optional<int64_t> gradOf = getGradientOf(func, i);
    Type type = func.getResultTypes()[i];
    if (*role == ValueRole::Loss) {
      ++numLosses;
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || tensor.getRank() != 0 ||
          !isa<FloatType>(tensor.getElementType()))
        return func.emitError()
               << "loss result #" << i << " must be a rank-0 float tensor, got "
               << type;
    }
    if (*role != ValueRole::Grad) {
      if (gradOf)
        return func.emitError() << "result #" << i
                                << " has 'ckpt.grad_of' but its role is not "
                                   "grad";
      continue;
    }
    if (!gradOf)
      return func.emitError() << "gradient result #" << i
                              << " has no 'ckpt.grad_of' naming its parameter";
    if (*gradOf < 0 || *gradOf >= int64_t(func.getNumArguments()))
      return func.emitError() << "gradient result #" << i << " names argument #"
                              << *gradOf << ", but the function has "
                              << func.getNumArguments() << " arguments";
    if (getArgumentRole(func, *gradOf) != ValueRole::Param)
      return func.emitError() << "gradient result #" << i << " names argument #"
                              << *gradOf << ", which is not a parameter";
    if (func.getArgumentTypes()[*gradOf] != type)
      return func.emitError()
             << "gradient result #" << i << " has type " << type
             << " but its parameter (argument #" << *gradOf << ") has type "
             << func.getArgumentTypes()[*gradOf];
    auto [it, inserted] = gradOfParam.try_emplace(*gradOf, i);
    if (!inserted)
      return func.emitError() << "results #" << it->second << " and #" << i
                              << " are both gradients of argument #" << *gradOf;
  }
  if (numLosses != 1)
    return func.emitError() << "a ckpt.step function must have exactly one "
                               "loss result, found "
                            << numLosses;
  return success();
}

/// Verifies that data flows from forward to backward to optimizer ops only.
static LogicalResult verifyPhaseOrder(func::FuncOp func) {
  Block &body = func.getBody().front();
  for (Operation &op : body) {
    if (isa<func::ReturnOp>(op))
      continue;
    std::optional<Phase> phase = getOpPhase(&op);
    // A registered ckpt op always has a phase; if it is missing or invalid,
    // the op's own verifier, which runs after this one, reports it.
    if (!phase && op.isRegistered() && isa<CkptDialect>(op.getDialect()))
      continue;
    if (!phase)
      return op.emitOpError()
             << "is not a ckpt operation and has no cost model; a ckpt.step "
                "function may only contain ckpt ops (use ckpt.opaque for "
                "custom kernels)";
    for (OpOperand &operand : op.getOpOperands()) {
      Value value = operand.get();
      if (auto arg = dyn_cast<BlockArgument>(value)) {
        if (*phase == Phase::Forward &&
            getArgumentRole(func, arg.getArgNumber()) == ValueRole::Seed)
          return op.emitOpError()
                 << "is a forward op but operand #"
                 << operand.getOperandNumber()
                 << " is a gradient seed (argument #" << arg.getArgNumber()
                 << "), which only backward ops may use";
        continue;
      }
      Operation *def = value.getDefiningOp();
      std::optional<Phase> defPhase = getOpPhase(def);
      if (!defPhase ||
          static_cast<uint32_t>(*defPhase) <= static_cast<uint32_t>(*phase))
        continue;
      InFlightDiagnostic diag =
          op.emitOpError() << "is in phase '" << stringifyPhase(*phase)
                           << "' but operand #" << operand.getOperandNumber()
                           << " comes from a later phase ('"
                           << stringifyPhase(*defPhase) << "')";
      diag.attachNote(def->getLoc()) << "operand defined here";
      return diag;
    }
  }
  return success();
}

LogicalResult mlir::ckpt::verifyTrainingStep(func::FuncOp func) {
  if (func.isExternal())
    return func.emitError() << "a ckpt.step function must have a body";
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "a ckpt.step function must have a single block";
  // func.func's own verifier reports an inconsistent signature next.
  if (!hasConsistentSignature(func))
    return success();
  if (failed(verifyStepSignature(func)))
    return failure();
  return verifyPhaseOrder(func);
}
