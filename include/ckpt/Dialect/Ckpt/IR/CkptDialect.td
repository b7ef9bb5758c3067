//===- CkptDialect.td - The ckpt dialect definition --------*- tablegen -*-===//
//
// The `ckpt` dialect: forward and backward operations of a training step, each
// with an exact cost, on builtin ranked tensor types.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTDIALECT_TD
#define CKPT_DIALECT_CKPT_IR_CKPTDIALECT_TD

include "mlir/IR/OpBase.td"

def Ckpt_Dialect : Dialect {
  let name = "ckpt";
  let cppNamespace = "::mlir::ckpt";
  let summary = "Training-step operations with exact costs for checkpoint planning";
  let description = [{
    The `ckpt` dialect expresses one training step -- forward pass, backward
    pass and optionally the optimizer update -- as a data-flow graph of tensor
    operations. Every operation carries its phase (`fwd`, `bwd` or `opt`) and
    implements `CostOpInterface`, which gives its exact FLOPs, bytes read,
    bytes written and workspace bytes, and says whether its result is a view
    of its input. A training step is a `func.func` marked with the unit
    attribute `ckpt.step`; its arguments and results carry `ckpt.role`
    attributes (parameter, data input, gradient seed, state; loss, gradient).

    ```mlir
    func.func @step(%x: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>},
                    %w: tensor<16x8xf32> {ckpt.role = #ckpt.role<param>})
        -> (tensor<f32> {ckpt.role = #ckpt.role<loss>})
        attributes {ckpt.step} { ... }
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the unit attribute that marks a `func.func` as a training step.
    static constexpr ::llvm::StringLiteral getStepAttrName() { return "ckpt.step"; }
    /// Name of the argument/result attribute holding a `#ckpt.role`.
    static constexpr ::llvm::StringLiteral getRoleAttrName() { return "ckpt.role"; }
    /// Name of the result attribute naming the parameter a gradient belongs to.
    static constexpr ::llvm::StringLiteral getGradOfAttrName() { return "ckpt.grad_of"; }
    /// Name of the unit attribute marking an op as a recomputation (a clone
    /// of an earlier forward op, placed where the backward pass needs it).
    static constexpr ::llvm::StringLiteral getRecomputeAttrName() { return "ckpt.recompute"; }
    /// Memory plan (docs/memory-plan.md): on an op, `array<i64>` with the
    /// arena offset of every result; on an argument, the i64 offset.
    static constexpr ::llvm::StringLiteral getOffsetAttrName() { return "ckpt.offset"; }
    /// Memory plan: i64 arena offset of an op's workspace.
    static constexpr ::llvm::StringLiteral getWorkspaceOffsetAttrName() { return "ckpt.workspace_offset"; }
    /// Memory plan: i64 size of the function's arena in bytes.
    static constexpr ::llvm::StringLiteral getArenaSizeAttrName() { return "ckpt.arena_size"; }
    /// Memory plan: i64 lower bound on the arena (peak of live aligned bytes).
    static constexpr ::llvm::StringLiteral getArenaLowerBoundAttrName() { return "ckpt.arena_lower_bound"; }
    /// Memory plan: i64 size of the host arena that holds the results of
    /// `ckpt.offload` (whose `ckpt.offset` is in it); absent without copies.
    static constexpr ::llvm::StringLiteral getHostArenaSizeAttrName() { return "ckpt.host_arena_size"; }
    /// On a `func.func` placed with `offload=<link>`: the host link its
    /// copies were planned for (a string, `pcie-gen5`), which `ckpt-report`
    /// prices them with.
    static constexpr ::llvm::StringLiteral getOffloadLinkAttrName() { return "ckpt.offload_link"; }
    /// Memory plan: i64 size of the parameter region at the arena's start.
    static constexpr ::llvm::StringLiteral getParameterRegionAttrName() { return "ckpt.parameter_region_size"; }
    /// On a `func.func`: i64 bytes of device scratch the target runtime needs
    /// for the whole step (the CUDA runtime's cuBLASLt workspace and scalars).
    /// The memory simulation counts it as live from entry to exit, so budgets,
    /// peaks and the memory plan include it (docs/memory-plan.md).
    static constexpr ::llvm::StringLiteral getDeviceWorkspaceAttrName() { return "ckpt.device_workspace"; }
    /// Memory plan: i64 arena offset of the function's device workspace.
    static constexpr ::llvm::StringLiteral getDeviceWorkspaceOffsetAttrName() { return "ckpt.device_workspace_offset"; }

  private:
    void registerAttributes();
    void registerOps();

  public:
  }];
}

#endif // CKPT_DIALECT_CKPT_IR_CKPTDIALECT_TD
