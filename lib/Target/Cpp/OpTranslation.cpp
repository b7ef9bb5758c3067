//===- OpTranslation.cpp - One op as its kernel call receives it ----------===//
//
// The per-op pieces of the C++ exporter: element types, locations and
// names as the runtime shows them, the operand list a kernel receives and
// the conversion of inherent attributes (docs/codegen.md).
//
//===----------------------------------------------------------------------===//

#include "StepModel.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ckpt;

/// Runtime dtype enumerator of `type`'s element type, or "" if the target's
/// runtime has no kernel for it (the host refuses f16 and bf16; the device
/// kernels compute in f32 and store f16/bf16 rounded to nearest even).
std::string cpp::runtimeDType(Type type, EmitTarget target) {
  Type element = cast<ShapedType>(type).getElementType();
  if (element.isF32())
    return "F32";
  if (target == EmitTarget::Cuda && element.isF16())
    return "F16";
  if (target == EmitTarget::Cuda && element.isBF16())
    return "BF16";
  if (element.isInteger(1))
    return "I1";
  if (element.isInteger(32))
    return "I32";
  if (element.isInteger(64))
    return "I64";
  return "";
}

/// `file:line[:col] (name)` of `loc`: its first file position and first name.
std::string cpp::formatLocation(Location loc) {
  std::string name, position;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      if (name.empty())
        name = named.getName().str();
    } else if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      if (position.empty()) {
        position = (file.getFilename().getValue() + ":" +
                    Twine(file.getLine()))
                       .str();
        if (file.getColumn() != 0)
          position += ":" + std::to_string(file.getColumn());
      }
    }
    return WalkResult::advance();
  });
  if (name.empty())
    return position;
  return position.empty() ? name : position + " (" + name + ")";
}

/// The name of a block argument: the name of its NameLoc, if any.
std::string cpp::argumentName(BlockArgument arg) {
  std::string name;
  arg.getLoc()->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

std::string cpp::printValue(Value value, AsmState &state) {
  std::string text;
  llvm::raw_string_ostream os(text);
  value.printAsOperand(os, state);
  return text;
}

std::string cpp::printOp(Operation *op, AsmState &state) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, state);
  for (char &c : text)
    if (c == '\n')
      c = ' ';
  return text;
}

/// The operands of `op` as its kernel receives them: ops with a trailing
/// optional operand and no `operandSegmentSizes` get a null value for it when
/// absent, so their kernels always see the ODS operand count. Ops with
/// `operandSegmentSizes` pass their operands as they are, with that
/// attribute. The accessors are ODS-generated: renaming an operand breaks
/// this at compile time rather than silently.
SmallVector<Value> cpp::kernelOperands(Operation *op) {
  return llvm::TypeSwitch<Operation *, SmallVector<Value>>(op)
      .Case<LinearOp, Conv2dOp>([](auto o) {
        return SmallVector<Value>{o.getInput(), o.getWeight(), o.getBias()};
      })
      .Case<AttentionOp>([](AttentionOp o) {
        return SmallVector<Value>{o.getQuery(), o.getKey(), o.getValue(),
                                  o.getMask()};
      })
      .Case<AttentionGradOp>([](AttentionGradOp o) {
        return SmallVector<Value>{o.getGrad(),  o.getQuery(),  o.getKey(),
                                  o.getValue(), o.getOutput(), o.getLse(),
                                  o.getMask()};
      })
      .Case<RmsNormOp>([](RmsNormOp o) {
        return SmallVector<Value>{o.getInput(), o.getWeight()};
      })
      .Case<LayerNormGradOp, BatchNormGradOp>([](auto o) {
        return SmallVector<Value>{o.getGrad(), o.getInput(), o.getMean(),
                                  o.getRstd(), o.getWeight()};
      })
      .Case<RmsNormGradOp>([](RmsNormGradOp o) {
        return SmallVector<Value>{o.getGrad(), o.getInput(), o.getRstd(),
                                  o.getWeight()};
      })
      .Default(
          [](Operation *o) { return SmallVector<Value>(o->getOperands()); });
}

/// Converts one inherent attribute (docs/codegen.md, "Attributes").
LogicalResult cpp::convertAttribute(Operation *op, NamedAttribute named,
                                      AttrValue &out) {
  out.name = named.getName().str();
  Attribute attr = named.getValue();
  auto asString = [&](StringRef keyword) {
    out.kind = AttrValue::Kind::String;
    out.stringValue = keyword.str();
    return success();
  };
  // The dialect's enums are i32 attributes that only their name tells
  // apart (a PhaseAttr and a LossReductionAttr both accept 0).
  if (auto integer = dyn_cast<IntegerAttr>(attr);
      integer && integer.getType().isInteger(32)) {
    int64_t value = integer.getInt();
    std::optional<StringRef> keyword;
    if (out.name == "phase") {
      if (auto e = symbolizePhase(value))
        keyword = stringifyEnum(*e);
    } else if (out.name == "reduction") {
      if (auto e = symbolizeLossReduction(value))
        keyword = stringifyEnum(*e);
    } else if (out.name == "approximation") {
      if (auto e = symbolizeGeluApproximation(value))
        keyword = stringifyEnum(*e);
    } else if (out.name == "predicate") {
      if (auto e = symbolizeComparePredicate(value))
        keyword = stringifyEnum(*e);
    }
    if (keyword)
      return asString(*keyword);
  }
  if (isa<UnitAttr>(attr)) {
    out.kind = AttrValue::Kind::Unit;
    return success();
  }
  if (auto boolean = dyn_cast<BoolAttr>(attr)) {
    out.kind = AttrValue::Kind::Int;
    out.intValue = boolean.getValue();
    return success();
  }
  // Every integer attribute of the dialect is an i64; i32 ones are enums.
  if (auto integer = dyn_cast<IntegerAttr>(attr);
      integer && integer.getType().isInteger(64)) {
    out.kind = AttrValue::Kind::Int;
    out.intValue = integer.getValue().getSExtValue();
    return success();
  }
  if (auto real = dyn_cast<FloatAttr>(attr)) {
    out.kind = AttrValue::Kind::Float;
    out.floatValue = real.getValueAsDouble();
    return success();
  }
  if (auto array = dyn_cast<DenseI64ArrayAttr>(attr)) {
    out.kind = AttrValue::Kind::Ints;
    out.ints.assign(array.asArrayRef().begin(), array.asArrayRef().end());
    return success();
  }
  if (auto array = dyn_cast<DenseI32ArrayAttr>(attr)) {
    out.kind = AttrValue::Kind::Ints;
    out.ints.assign(array.asArrayRef().begin(), array.asArrayRef().end());
    return success();
  }
  return op->emitError() << "unimplemented: cannot generate code for '"
                         << op->getName() << "': attribute '" << out.name
                         << "' (" << attr
                         << ") has no host runtime representation";
}
