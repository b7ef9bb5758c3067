//===- CkptInterfaces.td - Cost interface of ckpt ops ------*- tablegen -*-===//
//
// The op interface through which every analysis and solver reads an
// operation's exact cost.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTINTERFACES_TD
#define CKPT_DIALECT_CKPT_IR_CKPTINTERFACES_TD

include "mlir/IR/OpBase.td"

def Ckpt_CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::mlir::ckpt";
  let description = [{
    Exact cost of executing an operation once: floating-point operations
    (a multiply-add counts as 2), bytes read from its operands, bytes written
    to its results, and extra workspace bytes the op needs while it runs.
    `docs/dialect.md` documents the formula of every op. A view operation
    (`isView`) moves no data: its result aliases the storage of operand 0, so
    memory accounting counts that storage once.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"Returns the exact cost of executing this operation once.",
      /*retTy=*/"::mlir::ckpt::OpCost", /*methodName=*/"getCost">,
    InterfaceMethod<
      /*desc=*/[{Returns true if result 0 aliases the storage of operand 0
                 instead of owning a buffer of its own.}],
      /*retTy=*/"bool", /*methodName=*/"isView", /*args=*/(ins),
      /*methodBody=*/[{}], /*defaultImplementation=*/[{ return false; }]>,
    InterfaceMethod<
      /*desc=*/[{Returns the cost of executing this operation once as given
                 by the input graph (in the graph's own unit, for example a
                 profiled time), or std::nullopt if the op has none. When a
                 function's ops carry explicit costs, checkpoint placement
                 uses them instead of FLOPs or the roofline estimate.}],
      /*retTy=*/"std::optional<int64_t>", /*methodName=*/"getExplicitCost",
      /*args=*/(ins), /*methodBody=*/[{}],
      /*defaultImplementation=*/[{ return std::nullopt; }]>,
  ];
}

#endif // CKPT_DIALECT_CKPT_IR_CKPTINTERFACES_TD
