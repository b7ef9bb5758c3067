//===- CkptEnums.td - Enums and attributes of the ckpt dialect -*- tablegen -*-===//
//
// Phases of a training step, roles of step arguments and results, and the
// small enumerations used by individual operations.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTENUMS_TD
#define CKPT_DIALECT_CKPT_IR_CKPTENUMS_TD

include "ckpt/Dialect/Ckpt/IR/CkptDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Ckpt_Phase : I32EnumAttr<"Phase", "phase of a training step", [
    I32EnumAttrCase<"Forward", 0, "fwd">,
    I32EnumAttrCase<"Backward", 1, "bwd">,
    I32EnumAttrCase<"Optimizer", 2, "opt">
  ]> {
  let cppNamespace = "::mlir::ckpt";
}

def Ckpt_ValueRole : I32EnumAttr<"ValueRole",
    "role of a training-step argument or result", [
    I32EnumAttrCase<"Param", 0, "param">,
    I32EnumAttrCase<"Input", 1, "input">,
    I32EnumAttrCase<"Seed", 2, "seed">,
    I32EnumAttrCase<"State", 3, "state">,
    I32EnumAttrCase<"Loss", 4, "loss">,
    I32EnumAttrCase<"Grad", 5, "grad">,
    I32EnumAttrCase<"Output", 6, "output">
  ]> {
  let cppNamespace = "::mlir::ckpt";
  let genSpecializedAttr = 0;
}

def Ckpt_ValueRoleAttr : EnumAttr<Ckpt_Dialect, Ckpt_ValueRole, "role"> {
  let summary = "Role of a training-step argument or result";
  let description = [{
    Arguments of a `ckpt.step` function are `param` (trainable parameter),
    `input` (data batch), `seed` (gradient seed of the loss, usually 1.0) or
    `state` (optimizer or normalization state). Results are `loss`, `grad` (a
    parameter gradient; the result also carries `ckpt.grad_of = <arg index>`),
    `state` (updated state or parameter) or `output` (anything else).
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Ckpt_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "form of the GELU activation", [
    I32EnumAttrCase<"Erf", 0, "erf">,
    I32EnumAttrCase<"Tanh", 1, "tanh">
  ]> {
  let cppNamespace = "::mlir::ckpt";
}

def Ckpt_LossReduction : I32EnumAttr<"LossReduction",
    "reduction of a per-sample loss", [
    I32EnumAttrCase<"Mean", 0, "mean">,
    I32EnumAttrCase<"Sum", 1, "sum">,
    I32EnumAttrCase<"None", 2, "none">
  ]> {
  let cppNamespace = "::mlir::ckpt";
}

def Ckpt_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "predicate of an elementwise comparison", [
    I32EnumAttrCase<"Eq", 0, "eq">,
    I32EnumAttrCase<"Ne", 1, "ne">,
    I32EnumAttrCase<"Lt", 2, "lt">,
    I32EnumAttrCase<"Le", 3, "le">,
    I32EnumAttrCase<"Gt", 4, "gt">,
    I32EnumAttrCase<"Ge", 5, "ge">
  ]> {
  let cppNamespace = "::mlir::ckpt";
}

#endif // CKPT_DIALECT_CKPT_IR_CKPTENUMS_TD
