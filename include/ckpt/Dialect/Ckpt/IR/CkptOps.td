//===- CkptOps.td - Operations of the ckpt dialect ---------*- tablegen -*-===//
//
// Forward and backward operations of transformer and CNN training steps.
// Every op carries its phase, verifies shapes, element types and attributes,
// and reports its exact cost through CostOpInterface (formulas in
// docs/dialect.md; implementations in CkptCost.cpp or below).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_IR_CKPTOPS_TD
#define CKPT_DIALECT_CKPT_IR_CKPTOPS_TD

include "ckpt/Dialect/Ckpt/IR/CkptDialect.td"
include "ckpt/Dialect/Ckpt/IR/CkptEnums.td"
include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"

//===----------------------------------------------------------------------===//
// Type and attribute constraints
//===----------------------------------------------------------------------===//

def Ckpt_FloatTensor : StaticShapeTensorOf<[F32, F16, BF16]>;
def Ckpt_StatTensor : StaticShapeTensorOf<[F32]>;
def Ckpt_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
def Ckpt_MaskTensor : StaticShapeTensorOf<[I1]>;
def Ckpt_ArgmaxTensor : StaticShapeTensorOf<[I64]>;
def Ckpt_AnyTensor : StaticShapeTensorOf<[F32, F16, BF16, I1, I32, I64]>;
def Ckpt_AttnMaskTensor : StaticShapeTensorOf<[F32, F16, BF16, I1]>;

def Ckpt_NonNegI64Attr : ConfinedAttr<I64Attr, [IntNonNegative]>;
def Ckpt_Pair : ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<2>]>;

/// Verifies that every tensor operand and result of the op has a byte size
/// that fits the cost arithmetic (see CkptTraits.h).
def Ckpt_BoundedTensors : NativeOpTrait<"BoundedTensors"> {
  let cppNamespace = "::mlir::ckpt";
}

/// A float or signed integer tensor: the operands of the elementwise ops that
/// are defined on both (`neg`, `abs`, `minimum`, `maximum`).
def Ckpt_NumericTensor : StaticShapeTensorOf<[F32, F16, BF16, I32, I64]>;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

/// Base of every ckpt op. `isViewLike` ops override `isView` in C++, and
/// `extraCostMethods` names further CostOpInterface methods the op overrides.
class Ckpt_Op<string mnemonic, list<Trait> traits = [], bit isViewLike = 0,
              list<string> extraCostMethods = []>
    : Op<Ckpt_Dialect, mnemonic, !listconcat(traits, [Pure, Ckpt_BoundedTensors,
          DeclareOpInterfaceMethods<Ckpt_CostOpInterface,
              !listconcat(!if(isViewLike, ["isView"], []), extraCostMethods)>])>;

/// `y = f(x)` elementwise, `flops` FLOPs per element. With `integers` the op
/// also takes i32 and i64 tensors, on which it wraps around (two's
/// complement, as PyTorch's integer kernels).
class Ckpt_UnaryOp<string mnemonic, int flops, string formula,
                   bit integers = 0>
    : Ckpt_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = "elementwise " # formula;
  let description = [{
    Computes `}] # formula # [{` elementwise}] #
    !if(integers, [{ on f32, f16, bf16, i32 or i64 tensors; on integers it
    wraps around (two's complement), so the minimum value maps to itself as
    in PyTorch}], "") # [{. Cost: }] # flops #
    [{ FLOP(s) per element; reads the input and writes the result once.

    ```mlir
    %y = ckpt.}] # mnemonic # [{ fwd %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase,
      !if(integers, Ckpt_NumericTensor, Ckpt_FloatTensor):$input);
  let results = (outs !if(integers, Ckpt_NumericTensor, Ckpt_FloatTensor):$result);
  let assemblyFormat = "$phase $input attr-dict `:` type($result)";
  let extraClassDefinition = [{
    ::mlir::ckpt::OpCost $cppClass::getCost() {
      return ::mlir::ckpt::getElementwiseCost(getOperation(), }] # flops # [{);
    }
  }];
}

/// `z = f(a, b)` elementwise with numpy broadcasting; `integers` admits
/// i32 / i64 operands, which wrap around.
class Ckpt_BinaryOp<string mnemonic, string formula, bit integers = 0>
    : Ckpt_Op<mnemonic> {
  let summary = "elementwise " # formula # " with numpy broadcasting";
  let description = [{
    Computes `}] # formula # [{` elementwise; the operand shapes broadcast
    numpy-style to the result shape, and all element types agree. }] #
    !if(integers, [{Float (f32, f16, bf16) and integer (i32, i64) tensors;
    integer results wrap around modulo 2^32 / 2^64, as PyTorch's do (position
    ids are computed this way). }], [{Float tensors only. }]) # [{Cost: 1 FLOP
    per result element; reads both operands once, writes the result once.

    ```mlir
    %z = ckpt.}] # mnemonic # [{ fwd %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase,
      !if(integers, AnyTypeOf<[Ckpt_FloatTensor, Ckpt_IndexTensor]>,
          Ckpt_FloatTensor):$lhs,
      !if(integers, AnyTypeOf<[Ckpt_FloatTensor, Ckpt_IndexTensor]>,
          Ckpt_FloatTensor):$rhs);
  let results = (outs !if(integers,
      AnyTypeOf<[Ckpt_FloatTensor, Ckpt_IndexTensor]>, Ckpt_FloatTensor):$result);
  let assemblyFormat = [{
    $phase $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::ckpt::verifyBroadcastBinaryOp(getOperation());
    }
    ::mlir::ckpt::OpCost $cppClass::getCost() {
      return ::mlir::ckpt::getElementwiseCost(getOperation(), 1);
    }
  }];
}

/// `dx = f'(saved) * dy`: gradient of an activation from the incoming gradient
/// and one saved tensor (the forward input or output).
class Ckpt_ActivationGradOp<string mnemonic, int flops, string saved,
                            string formula>
    : Ckpt_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = "gradient of an activation: " # formula;
  let description = [{
    Computes `}] # formula # [{` elementwise from the incoming gradient
    `grad` and the saved forward }] # saved # [{. Cost: }] # flops #
    [{ FLOPs per element.

    ```mlir
    %dx = ckpt.}] # mnemonic # [{ bwd %dy, %saved : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                       Ckpt_FloatTensor:$saved);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$phase $grad `,` $saved attr-dict `:` type($result)";
  let extraClassDefinition = [{
    ::mlir::ckpt::OpCost $cppClass::getCost() {
      return ::mlir::ckpt::getElementwiseCost(getOperation(), }] # flops # [{);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

def Ckpt_MatmulOp : Ckpt_Op<"matmul"> {
  let summary = "matrix product of two 2-D tensors, optionally transposed";
  let description = [{
    `result = op(lhs) x op(rhs)` where `op` transposes its operand when
    `transpose_lhs` / `transpose_rhs` is set. With op(lhs) of shape MxK and
    op(rhs) of shape KxN the result is MxN. Cost: `2*M*N*K` FLOPs.

    ```mlir
    %c = ckpt.matmul fwd %a, %b {transpose_rhs} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$lhs,
                       Ckpt_FloatTensor:$rhs, UnitAttr:$transpose_lhs,
                       UnitAttr:$transpose_rhs);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Ckpt_MatmulAccOp : Ckpt_Op<"matmul_acc"> {
  let summary = "matrix product added to an accumulator";
  let description = [{
    `result = acc + op(lhs) x op(rhs)`, with `op` and the shapes as in
    `ckpt.matmul`; `acc` has the result's type. One op where a running sum
    of products would otherwise take a product and an addition: while it
    runs, the accumulator and the result are live, not the accumulator, a
    product and the result (`ckpt-chunk-loss-head` sums the pieces' weight
    gradients with it). Kernels compute it as one GEMM with `beta = 1`
    over a copy of `acc`. Cost: `2*M*N*K + M*N` FLOPs; reads `lhs`, `rhs`
    and `acc`, writes the result.

    ```mlir
    %s = ckpt.matmul_acc bwd %acc + %g, %x {transpose_lhs} : tensor<16x8xf32>, tensor<4x16xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$acc,
                       Ckpt_FloatTensor:$lhs, Ckpt_FloatTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $acc `+` $lhs `,` $rhs attr-dict `:` type($acc) `,` type($lhs) `,`
    type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Ckpt_BatchMatmulOp : Ckpt_Op<"batch_matmul"> {
  let summary = "batched matrix product with broadcast batch dimensions";
  let description = [{
    Operands of rank >= 3 hold a stack of matrices in their last two
    dimensions; the leading (batch) dimensions broadcast numpy-style, and
    both operands have the same rank. Each matrix pair multiplies as in
    `ckpt.matmul`, with the same transpose flags. Cost: `2*B*M*N*K` FLOPs for
    B result matrices.

    ```mlir
    %s = ckpt.batch_matmul fwd %q, %k {transpose_rhs} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x16xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$lhs,
                       Ckpt_FloatTensor:$rhs, UnitAttr:$transpose_lhs,
                       UnitAttr:$transpose_rhs);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Ckpt_LinearOp : Ckpt_Op<"linear"> {
  let summary = "affine layer `input x weight^T + bias`";
  let description = [{
    As `torch.nn.functional.linear`: `input` is `[..., in]`, `weight` is
    `[out, in]`, the optional `bias` is `[out]`, the result is `[..., out]`.
    Cost: `2*R*in*out` FLOPs for R rows, plus `R*out` with a bias.

    ```mlir
    %y = ckpt.linear fwd %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input,
                       Ckpt_FloatTensor:$weight,
                       Optional<Ckpt_FloatTensor>:$bias);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise arithmetic
//===----------------------------------------------------------------------===//

def Ckpt_AddOp : Ckpt_BinaryOp<"add", "lhs + rhs", /*integers=*/1>;
def Ckpt_SubOp : Ckpt_BinaryOp<"sub", "lhs - rhs", /*integers=*/1>;
def Ckpt_MulOp : Ckpt_BinaryOp<"mul", "lhs * rhs", /*integers=*/1>;
def Ckpt_DivOp : Ckpt_BinaryOp<"div", "lhs / rhs">;

def Ckpt_NegOp : Ckpt_UnaryOp<"neg", 1, "-x", /*integers=*/1>;
// Absolute value (T5's relative-position buckets): clears the sign bit of a
// float (NaN included), wraps on the integer minimum.
def Ckpt_AbsOp : Ckpt_UnaryOp<"abs", 1, "|x|", /*integers=*/1>;
def Ckpt_ExpOp : Ckpt_UnaryOp<"exp", 1, "exp(x)">;
def Ckpt_LogOp : Ckpt_UnaryOp<"log", 1, "log(x)">;
def Ckpt_SqrtOp : Ckpt_UnaryOp<"sqrt", 1, "sqrt(x)">;
def Ckpt_RsqrtOp : Ckpt_UnaryOp<"rsqrt", 1, "1 / sqrt(x)">;
def Ckpt_TanhOp : Ckpt_UnaryOp<"tanh", 1, "tanh(x)">;

// Sine and cosine (rotary position embeddings). One FLOP per element, as for
// the other transcendental functions.
def Ckpt_SinOp : Ckpt_UnaryOp<"sin", 1, "sin(x)">;
def Ckpt_CosOp : Ckpt_UnaryOp<"cos", 1, "cos(x)">;

/// `z = lhs < rhs ? lhs : rhs` (or `>`) elementwise with numpy broadcasting,
/// on float and signed integer tensors; NaN propagates.
class Ckpt_ExtremumOp<string mnemonic, string formula, string cmp>
    : Ckpt_Op<mnemonic> {
  let summary = "elementwise " # formula # " with numpy broadcasting";
  let description = [{
    Computes `}] # formula # [{` elementwise, as `torch.}] # mnemonic #
    [{`: the operand shapes broadcast numpy-style to the result shape and all
    element types agree (f32, f16, bf16, i32 or i64). On floats the result is
    NaN where either operand is NaN, otherwise `lhs }] # cmp #
    [{ rhs ? lhs : rhs`, so of two zeros of opposite sign `rhs` is taken (what
    PyTorch's vectorized CPU kernel does). Cost: 1 FLOP (one comparison) per
    result element; reads both operands once, writes the result once.

    ```mlir
    %z = ckpt.}] # mnemonic # [{ fwd %a, %b : tensor<4x8xi64>, tensor<i64> -> tensor<4x8xi64>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_NumericTensor:$lhs,
                       Ckpt_NumericTensor:$rhs);
  let results = (outs Ckpt_NumericTensor:$result);
  let assemblyFormat = [{
    $phase $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::ckpt::verifyBroadcastBinaryOp(getOperation());
    }
    ::mlir::ckpt::OpCost $cppClass::getCost() {
      return ::mlir::ckpt::getElementwiseCost(getOperation(), 1);
    }
  }];
}

// Elementwise minimum and maximum (T5 clamps its relative-position buckets
// with torch.min / torch.max of two tensors).
def Ckpt_MinimumOp : Ckpt_ExtremumOp<"minimum", "min(lhs, rhs)", "<">;
def Ckpt_MaximumOp : Ckpt_ExtremumOp<"maximum", "max(lhs, rhs)", ">">;

def Ckpt_PowOp : Ckpt_Op<"pow", [SameOperandsAndResultType]> {
  let summary = "elementwise power by a scalar exponent";
  let description = [{
    `result = input ^ exponent` elementwise. Cost: 1 FLOP per element.

    ```mlir
    %y = ckpt.pow fwd %x, 2.000000e+00 : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input,
                       F64Attr:$exponent);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$phase $input `,` $exponent attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Ckpt_ConvertOp : Ckpt_Op<"convert", [SameOperandsAndResultShape]> {
  let summary = "element type conversion between any two element types";
  let description = [{
    Converts every element to the result's element type (f32, f16, bf16,
    i1, i32 or i64 each way) with PyTorch's `Tensor.to` (`_to_copy`)
    semantics:

    - float to float rounds to nearest even (f16 overflows to infinity);
    - integer or i1 to float is exact or rounds to nearest even (i1 is 0 or
      1); to f16/bf16 the integer first rounds to f32, as PyTorch converts;
    - float to i32/i64 truncates toward zero; NaN and values outside the
      integer's range give its minimum (`-2^31`, `-2^63`), as PyTorch on x86
      CPUs (whose conversion instruction returns that pattern);
    - i64 to i32 keeps the low 32 bits (two's complement), i32 to i64 sign
      extends, i1 to an integer is 0 or 1;
    - anything to i1 is `x != 0` (so NaN and -0.0 give 1 and 0).

    Cost: 0 FLOPs; reads the input, writes the result.

    ```mlir
    %y = ckpt.convert fwd %x : tensor<4x8xf32> -> tensor<4x8xbf16>
    %m = ckpt.convert fwd %ids : tensor<4x8xi64> -> tensor<4x8xi1>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_AnyTensor:$input);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = "$phase $input attr-dict `:` type($input) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Ckpt_FillOp : Ckpt_Op<"fill"> {
  let summary = "tensor whose every element is one constant";
  let description = [{
    Produces a tensor of the result type with every element equal to `value`
    converted to the element type: floats round to nearest even (a value
    beyond the format's range becomes an infinity of that sign, as PyTorch's
    `torch.full` does), integer types take the value exactly, so it must be
    integral and in the type's range. `value` is never NaN; infinities are
    allowed for float results only. The result may have any static shape,
    rank 0 included, which together with the broadcasting binary ops expresses
    arithmetic with a scalar (`x * 0.125` is `ckpt.mul` of `x` and a rank-0
    fill). The op has no operands, so recomputing it needs nothing kept.
    Cost: 0 FLOPs; reads nothing, writes the result once.

    ```mlir
    %c = ckpt.fill fwd 1.250000e-01 : tensor<f32>
    %z = ckpt.fill bwd 0.000000e+00 : tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, F64Attr:$value);
  let results = (outs AnyTypeOf<[Ckpt_FloatTensor, Ckpt_IndexTensor, Ckpt_MaskTensor]>:$result);
  let assemblyFormat = "$phase $value attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Ckpt_IotaOp : Ckpt_Op<"iota"> {
  let summary = "1-D arithmetic sequence `start + i * step` (torch.arange)";
  let description = [{
    Produces the rank-1 result `r[i] = start + i * step`, `i` in `[0, n)` with
    `n` the result's size, as `torch.arange(start, start + n * step, step)`
    computes it on the CPU. `start` and `step` are numbers: an integer literal
    is an i64 attribute (exact), any other an f64 one; `step` is non-zero.

    Integer results (i32, i64): `start` and `step` are integral and every
    element fits the element type; elements are exact.

    Float results round as PyTorch 1.13's vectorized CPU kernel does. With
    `V = 32 / (element bytes)` (8 for f32, 16 for f16 and bf16) and the
    accumulation type `A` (f64 for f32, f32 for f16 and bf16, whose `start`
    and `step` are first rounded to f32): the first `2V * floor(n / 2V)`
    elements come in blocks of `V`, each from its block's first element
    `b = V * floor(i / V)` as `rnd(A(rnd(start + b * step)) + (i - b) * step)`;
    the remaining elements are `rnd(start + i * step)`; `rnd` rounds `A` to
    nearest even in the element type. (For f32 this differs from
    `rnd(start + i * step)` in about one sequence in ten.)

    Cost: 2 FLOPs per element (a multiply and an add); reads nothing, writes
    the result once. The op has no operands: recomputing it needs nothing
    kept.

    ```mlir
    %pos = ckpt.iota fwd start(0) step(1) : tensor<128xi64>
    %t = ckpt.iota fwd start(5.000000e-01) step(2.500000e-01) : tensor<16xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, AnyAttrOf<[I64Attr, F64Attr]>:$start,
                       AnyAttrOf<[I64Attr, F64Attr]>:$step);
  let results = (outs AnyTypeOf<[Ckpt_FloatTensor, Ckpt_IndexTensor]>:$result);
  let assemblyFormat = [{
    $phase `start` `(` $start `)` `step` `(` $step `)` attr-dict `:`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Comparisons, selection and boolean masks
//===----------------------------------------------------------------------===//

def Ckpt_CompareOp : Ckpt_Op<"compare"> {
  let summary = "elementwise comparison with numpy broadcasting, giving i1";
  let description = [{
    `r = lhs <predicate> rhs` elementwise (`eq`, `ne`, `lt`, `le`, `gt`,
    `ge`), as `torch.eq` ... `torch.ge`; the operand shapes broadcast
    numpy-style to the result shape and both operands have one element type
    (any; `i1` compares `false < true`). A comparison with a scalar is one
    with a rank-0 `ckpt.fill`. Floats compare as IEEE 754: any comparison
    involving NaN is false except `ne`, which is true; `-0 == +0`. Cost:
    1 FLOP per result element; reads both operands once, writes the result
    once.

    ```mlir
    %m = ckpt.compare fwd lt %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_ComparePredicate:$predicate,
                       Ckpt_AnyTensor:$lhs, Ckpt_AnyTensor:$rhs);
  let results = (outs Ckpt_MaskTensor:$result);
  let assemblyFormat = [{
    $phase $predicate $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Ckpt_SelectOp : Ckpt_Op<"select"> {
  let summary = "elementwise choice by an i1 mask, with numpy broadcasting";
  let description = [{
    `r = cond ? on_true : on_false` elementwise (`torch.where(cond, a, b)`;
    `masked_fill(x, m, v)` is `select(m, fill(v), x)`). The three operand
    shapes broadcast numpy-style to the result shape; `on_true`, `on_false`
    and the result share one element type (any). Values are copied bit for
    bit (NaN payloads and signed zeros included). Cost: 1 FLOP per result
    element; reads each operand once, writes the result once.

    ```mlir
    %y = ckpt.select fwd %m, %x, %c : tensor<1x1x8x8xi1>, tensor<2x4x8x8xf32>, tensor<f32> -> tensor<2x4x8x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_MaskTensor:$cond,
                       Ckpt_AnyTensor:$on_true, Ckpt_AnyTensor:$on_false);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = [{
    $phase $cond `,` $on_true `,` $on_false attr-dict `:` type($cond) `,`
    type($on_true) `,` type($on_false) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Ckpt_LogicalNotOp : Ckpt_Op<"logical_not", [SameOperandsAndResultType]> {
  let summary = "elementwise boolean negation of an i1 mask";
  let description = [{
    `r = !x` elementwise (`torch.logical_not`, `~` on a bool tensor). Cost:
    1 FLOP per element; reads the input and writes the result once.

    ```mlir
    %n = ckpt.logical_not fwd %m : tensor<8x8xi1>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_MaskTensor:$input);
  let results = (outs Ckpt_MaskTensor:$result);
  let assemblyFormat = "$phase $input attr-dict `:` type($result)";
}

/// `r = lhs op rhs` on i1 masks with numpy broadcasting.
class Ckpt_LogicalBinaryOp<string mnemonic, string formula, string torchName>
    : Ckpt_Op<mnemonic> {
  let summary = "elementwise boolean " # formula # " of i1 masks with numpy broadcasting";
  let description = [{
    `r = }] # formula # [{` elementwise (`}] # torchName # [{`); the operand
    shapes broadcast numpy-style to the result shape, and all three are i1.
    Cost: 1 FLOP per result element; reads both operands once, writes the
    result once.

    ```mlir
    %r = ckpt.}] # mnemonic # [{ fwd %a, %b : tensor<1x8xi1>, tensor<8x8xi1> -> tensor<8x8xi1>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_MaskTensor:$lhs,
                       Ckpt_MaskTensor:$rhs);
  let results = (outs Ckpt_MaskTensor:$result);
  let assemblyFormat = [{
    $phase $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::ckpt::verifyBroadcastBinaryOp(getOperation());
    }
    ::mlir::ckpt::OpCost $cppClass::getCost() {
      return ::mlir::ckpt::getElementwiseCost(getOperation(), 1);
    }
  }];
}

def Ckpt_LogicalAndOp : Ckpt_LogicalBinaryOp<"logical_and", "lhs && rhs",
                                             "torch.logical_and, & on bool">;
def Ckpt_LogicalOrOp : Ckpt_LogicalBinaryOp<"logical_or", "lhs || rhs",
                                            "torch.logical_or, | on bool">;

//===----------------------------------------------------------------------===//
// Activations and their gradients
//===----------------------------------------------------------------------===//

def Ckpt_ReluOp : Ckpt_UnaryOp<"relu", 1, "max(x, 0)">;
def Ckpt_SigmoidOp : Ckpt_UnaryOp<"sigmoid", 4, "1 / (1 + exp(-x))">;
def Ckpt_SiluOp : Ckpt_UnaryOp<"silu", 5, "x * sigmoid(x)">;

def Ckpt_GeluOp : Ckpt_Op<"gelu", [SameOperandsAndResultType]> {
  let summary = "GELU activation, exact (erf) or tanh-approximated";
  let description = [{
    `erf`: `0.5 * x * (1 + erf(x / sqrt(2)))`, 5 FLOPs per element.
    `tanh`: `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))`,
    9 FLOPs per element.

    ```mlir
    %y = ckpt.gelu fwd tanh %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase,
                       Ckpt_GeluApproximation:$approximation,
                       Ckpt_FloatTensor:$input);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$phase $approximation $input attr-dict `:` type($result)";
}

def Ckpt_ReluGradOp : Ckpt_ActivationGradOp<"relu_grad", 1, "output y",
    "y > 0 ? dy : 0">;
def Ckpt_SigmoidGradOp : Ckpt_ActivationGradOp<"sigmoid_grad", 3, "output y",
    "dy * y * (1 - y)">;
def Ckpt_TanhGradOp : Ckpt_ActivationGradOp<"tanh_grad", 3, "output y",
    "dy * (1 - y^2)">;
def Ckpt_SiluGradOp : Ckpt_ActivationGradOp<"silu_grad", 9, "input x",
    "dy * s * (1 + x * (1 - s)), s = sigmoid(x)">;

def Ckpt_GeluGradOp : Ckpt_Op<"gelu_grad", [SameOperandsAndResultType]> {
  let summary = "gradient of GELU from the saved forward input";
  let description = [{
    `dx = dy * gelu'(x)` for the given form. Cost: 11 FLOPs per element for
    `erf` (`Phi(x) + x * phi(x)`), 18 for `tanh`.

    ```mlir
    %dx = ckpt.gelu_grad bwd tanh %dy, %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase,
                       Ckpt_GeluApproximation:$approximation,
                       Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$saved);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $approximation $grad `,` $saved attr-dict `:` type($result)
  }];
}

def Ckpt_ClampOp : Ckpt_Op<"clamp", [SameOperandsAndResultType]> {
  let summary = "elementwise clamp to [min, max] (hardtanh, ReLU6)";
  let description = [{
    `y = x < min ? min : (x > max ? max : x)` elementwise, with the bounds
    rounded to the element type, as `torch.clamp` and `F.hardtanh` do; a NaN
    input gives NaN. ReLU6 is `min = 0, max = 6`. The bounds are finite and
    `min <= max`. Cost: 2 FLOPs per element (two comparisons); reads the
    input and writes the result once.

    ```mlir
    %y = ckpt.clamp fwd %x min 0.000000e+00 max 6.000000e+00 : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input,
                       F64Attr:$min, F64Attr:$max);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $input `min` $min `max` $max attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Ckpt_ClampGradOp : Ckpt_Op<"clamp_grad", [SameOperandsAndResultType]> {
  let summary = "gradient of clamp from the saved forward input";
  let description = [{
    `dx = (x <= min || x >= max) ? 0 : dy` elementwise from the incoming
    gradient `grad` and the saved forward input `x`, as PyTorch's
    `hardtanh_backward`: the gradient is zero at the bounds themselves, a NaN
    input passes `dy` through, and the comparisons are in f32 with the bounds
    rounded to f32 whatever the element type. The bounds follow the rules of
    `ckpt.clamp`. Cost: 2 FLOPs per element.

    ```mlir
    %dx = ckpt.clamp_grad bwd %dy, %x min 0.000000e+00 max 6.000000e+00 : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                       Ckpt_FloatTensor:$saved, F64Attr:$min, F64Attr:$max);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $grad `,` $saved `min` $min `max` $max attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

// Hard activations (MobileNetV3) and their gradients.

def Ckpt_HardswishOp : Ckpt_Op<"hardswish", [SameOperandsAndResultType]> {
  let summary = "hard swish activation: x * clamp(x + 3, 0, 6) / 6";
  let description = [{
    `y = x * min(max(x + 3, 0), 6) / 6` elementwise, evaluated in this order
    in f32 (the product first, then the division by 6), as PyTorch's
    `hardswish`: bit-identical for f32, `hardswish(-3) = -0`, and a NaN
    input gives NaN. Cost: 5 FLOPs per element (the addition, `max`, `min`,
    the product and the division); reads the input and writes the result
    once.

    ```mlir
    %y = ckpt.hardswish fwd %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$phase $input attr-dict `:` type($result)";
}

def Ckpt_HardswishGradOp : Ckpt_Op<"hardswish_grad",
                                   [SameOperandsAndResultType]> {
  let summary = "gradient of hardswish from the saved forward input";
  let description = [{
    `dx = x <= -3 ? 0 : (x >= 3 ? dy : dy * (x / 3 + 0.5))` elementwise from
    the incoming gradient `grad` and the saved forward input `x`, in f32: the
    inequalities of PyTorch 2's `hardswish_backward` (its vectorized CPU
    kernel), so `dx(-3) = 0`, `dx(3) = dy` and a NaN input gives NaN.
    (PyTorch 1.13 gave `-dy / 2` at `x = -3`.) Cost: 5 FLOPs
    per element (two comparisons, the division, the addition, the product).

    ```mlir
    %dx = ckpt.hardswish_grad bwd %dy, %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                       Ckpt_FloatTensor:$saved);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$phase $grad `,` $saved attr-dict `:` type($result)";
}

def Ckpt_HardsigmoidOp : Ckpt_Op<"hardsigmoid", [SameOperandsAndResultType]> {
  let summary = "hard sigmoid activation: clamp(x + 3, 0, 6) / 6";
  let description = [{
    `y = min(max(x + 3, 0), 6) / 6` elementwise in f32, as PyTorch's
    `hardsigmoid` (bit-identical for f32; a NaN input gives NaN). Cost:
    4 FLOPs per element (the addition, `max`, `min`, the division); reads
    the input and writes the result once.

    ```mlir
    %y = ckpt.hardsigmoid fwd %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$phase $input attr-dict `:` type($result)";
}

def Ckpt_HardsigmoidGradOp : Ckpt_Op<"hardsigmoid_grad",
                                     [SameOperandsAndResultType]> {
  let summary = "gradient of hardsigmoid from the saved forward input";
  let description = [{
    `dx = (x > -3 && x < 3) ? dy * (1/6) : 0` elementwise from the incoming
    gradient `grad` and the saved forward input `x`, in f32 with `1/6`
    rounded to f32 (a product, not a division), as PyTorch's
    `hardsigmoid_backward`: zero at `x = -3` and `x = 3` themselves and for a
    NaN input. Cost: 3 FLOPs per element (two comparisons, the product).

    ```mlir
    %dx = ckpt.hardsigmoid_grad bwd %dy, %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                       Ckpt_FloatTensor:$saved);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$phase $grad `,` $saved attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

class Ckpt_SoftmaxLikeOp<string mnemonic, string formula, string flops>
    : Ckpt_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = formula # " along one axis";
  let description = [{
    Computes }] # formula # [{ along `axis` (numerically stable: the row
    maximum is subtracted first). Cost: }] # flops # [{, for N elements in R
    rows along `axis`.

    ```mlir
    %y = ckpt.}] # mnemonic # [{ fwd %x axis 1 : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input,
                       Ckpt_NonNegI64Attr:$axis);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$phase $input `axis` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::ckpt::verifyAxis(getOperation(), getInput().getType(), getAxis());
    }
  }];
}

class Ckpt_SoftmaxLikeGradOp<string mnemonic, string formula, string flops>
    : Ckpt_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = "gradient of " # formula;
  let description = [{
    Gradient of }] # formula # [{ along `axis` from the incoming gradient and
    the saved forward output. Cost: }] # flops # [{.

    ```mlir
    %dx = ckpt.}] # mnemonic # [{ bwd %dy, %y axis 1 : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                       Ckpt_FloatTensor:$output, Ckpt_NonNegI64Attr:$axis);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $grad `,` $output `axis` $axis attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::ckpt::verifyAxis(getOperation(), getGrad().getType(), getAxis());
    }
    ::mlir::ckpt::OpCost $cppClass::getCost() {
      return ::mlir::ckpt::getElementwiseCost(getOperation(), 4);
    }
  }];
}

def Ckpt_SoftmaxOp : Ckpt_SoftmaxLikeOp<"softmax", "softmax", "`5*N` FLOPs">;
def Ckpt_LogSoftmaxOp : Ckpt_SoftmaxLikeOp<"log_softmax", "log-softmax",
    "`5*N + R` FLOPs">;
def Ckpt_SoftmaxGradOp : Ckpt_SoftmaxLikeGradOp<"softmax_grad", "softmax",
    "`4*N` FLOPs (`y * (dy - sum(dy * y))`)">;
def Ckpt_LogSoftmaxGradOp : Ckpt_SoftmaxLikeGradOp<"log_softmax_grad",
    "log-softmax", "`4*N` FLOPs (`dy - exp(y) * sum(dy)`)">;

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def Ckpt_LayerNormOp : Ckpt_Op<"layer_norm", [AttrSizedOperandSegments]> {
  let summary = "layer normalization over the trailing dimensions";
  let description = [{
    Normalizes `input` over its dimensions `axis..rank-1`, then applies the
    optional elementwise `weight` and `bias` of shape `input.shape[axis:]`.
    Also returns the saved statistics `mean` and `rstd` (f32, shape
    `input.shape[:axis]`) that `ckpt.layer_norm_grad` consumes. Cost, for N
    elements in R rows: `5*N + 4*R` FLOPs plus N for the weight and N for the
    bias.

    ```mlir
    %y, %mean, %rstd = ckpt.layer_norm fwd %x weight %w bias %b axis 1 eps 1.000000e-05
        : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input,
                       Optional<Ckpt_FloatTensor>:$weight,
                       Optional<Ckpt_FloatTensor>:$bias,
                       Ckpt_NonNegI64Attr:$axis, F64Attr:$epsilon);
  let results = (outs Ckpt_FloatTensor:$result, Ckpt_StatTensor:$mean,
                      Ckpt_StatTensor:$rstd);
  let assemblyFormat = [{
    $phase $input (`weight` $weight^)? (`bias` $bias^)? `axis` $axis `eps` $epsilon
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_LayerNormGradOp : Ckpt_Op<"layer_norm_grad"> {
  let summary = "gradient of layer normalization";
  let description = [{
    From the incoming gradient, the forward input, the saved `mean`/`rstd` and
    the optional weight, computes the input gradient and, as trailing results,
    0, 1 (weight) or 2 (weight and bias) parameter gradients. Parameter
    gradients require the weight operand. Cost, for N elements in R rows:
    `9*N + 2*R` FLOPs, plus N with a weight, 2*N for the weight gradient and
    N for the bias gradient.

    ```mlir
    %dx, %dw, %db = ckpt.layer_norm_grad bwd %dy, %x, %mean, %rstd weight %w axis 1
        : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>)
          -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                       Ckpt_FloatTensor:$input, Ckpt_StatTensor:$mean,
                       Ckpt_StatTensor:$rstd, Optional<Ckpt_FloatTensor>:$weight,
                       Ckpt_NonNegI64Attr:$axis);
  let results = (outs Ckpt_FloatTensor:$input_grad,
                      Variadic<Ckpt_FloatTensor>:$param_grads);
  let assemblyFormat = [{
    $phase $grad `,` $input `,` $mean `,` $rstd (`weight` $weight^)? `axis` $axis
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_RmsNormOp : Ckpt_Op<"rms_norm"> {
  let summary = "RMS normalization over the trailing dimensions";
  let description = [{
    `result = input * rstd * weight` with `rstd = 1/sqrt(mean(input^2) + eps)`
    over dimensions `axis..rank-1`; the optional weight has shape
    `input.shape[axis:]`. Returns the saved `rstd` (f32, `input.shape[:axis]`).
    Cost: `3*N + 3*R` FLOPs plus N with a weight.

    ```mlir
    %y, %rstd = ckpt.rms_norm fwd %x weight %w axis 1 eps 1.000000e-06
        : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input,
                       Optional<Ckpt_FloatTensor>:$weight,
                       Ckpt_NonNegI64Attr:$axis, F64Attr:$epsilon);
  let results = (outs Ckpt_FloatTensor:$result, Ckpt_StatTensor:$rstd);
  let assemblyFormat = [{
    $phase $input (`weight` $weight^)? `axis` $axis `eps` $epsilon
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_RmsNormGradOp : Ckpt_Op<"rms_norm_grad"> {
  let summary = "gradient of RMS normalization";
  let description = [{
    Input gradient and, as an optional trailing result, the weight gradient.
    Cost: `6*N + R` FLOPs, plus N with a weight and 2*N for the weight
    gradient.

    ```mlir
    %dx, %dw = ckpt.rms_norm_grad bwd %dy, %x, %rstd weight %w axis 1
        : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                       Ckpt_FloatTensor:$input, Ckpt_StatTensor:$rstd,
                       Optional<Ckpt_FloatTensor>:$weight,
                       Ckpt_NonNegI64Attr:$axis);
  let results = (outs Ckpt_FloatTensor:$input_grad,
                      Variadic<Ckpt_FloatTensor>:$param_grads);
  let assemblyFormat = [{
    $phase $grad `,` $input `,` $rstd (`weight` $weight^)? `axis` $axis
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_BatchNormOp : Ckpt_Op<"batch_norm", [AttrSizedOperandSegments]> {
  let summary = "batch normalization in training mode over channel dimension 1";
  let description = [{
    For `input` of shape `[N, C, ...]`, normalizes each channel with the
    statistics of the batch, then applies the optional per-channel `weight`
    and `bias` (`[C]`). Returns the saved `mean` and `rstd` (f32, `[C]`).
    Running statistics are state outside this op. Cost: `5*N + 4*C` FLOPs for
    N elements, plus N for the weight and N for the bias.

    ```mlir
    %y, %mean, %rstd = ckpt.batch_norm fwd %x weight %w bias %b eps 1.000000e-05
        : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input,
                       Optional<Ckpt_FloatTensor>:$weight,
                       Optional<Ckpt_FloatTensor>:$bias, F64Attr:$epsilon);
  let results = (outs Ckpt_FloatTensor:$result, Ckpt_StatTensor:$mean,
                      Ckpt_StatTensor:$rstd);
  let assemblyFormat = [{
    $phase $input (`weight` $weight^)? (`bias` $bias^)? `eps` $epsilon
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_BatchNormGradOp : Ckpt_Op<"batch_norm_grad"> {
  let summary = "gradient of batch normalization";
  let description = [{
    Input gradient and 0, 1 (weight) or 2 (weight, bias) parameter gradients.
    Cost: `9*N + 2*C` FLOPs, plus N with a weight, 2*N for the weight
    gradient and N for the bias gradient.

    ```mlir
    %dx, %dw, %db = ckpt.batch_norm_grad bwd %dy, %x, %mean, %rstd weight %w
        : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
          -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                       Ckpt_FloatTensor:$input, Ckpt_StatTensor:$mean,
                       Ckpt_StatTensor:$rstd, Optional<Ckpt_FloatTensor>:$weight);
  let results = (outs Ckpt_FloatTensor:$input_grad,
                      Variadic<Ckpt_FloatTensor>:$param_grads);
  let assemblyFormat = [{
    $phase $grad `,` $input `,` $mean `,` $rstd (`weight` $weight^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

def Ckpt_DropoutOp : Ckpt_Op<"dropout"> {
  let summary = "dropout with an explicit Philox stream, returning its mask";
  let description = [{
    Zeroes each element with probability `p` and scales the rest by
    `1/(1-p)`. The keep-mask comes from Philox-4x32-10 keyed by the step's
    base seed and `seed` (a stream id), with counters starting at `offset`:
    replaying the op with the same attributes reproduces the same mask, which
    is what makes recomputation exact. Returns the result and the 1-byte mask
    (`i1`) that `ckpt.dropout_grad` consumes. Cost: `2*N` FLOPs.

    ```mlir
    %y, %mask = ckpt.dropout fwd %x p 1.000000e-01 seed 7 offset 0
        : tensor<4x8xf32> -> (tensor<4x8xf32>, tensor<4x8xi1>)
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input,
                       F64Attr:$p, Ckpt_NonNegI64Attr:$seed,
                       Ckpt_NonNegI64Attr:$offset);
  let results = (outs Ckpt_FloatTensor:$result, Ckpt_MaskTensor:$mask);
  let assemblyFormat = [{
    $phase $input `p` $p `seed` $seed `offset` $offset attr-dict `:`
    type($input) `->` `(` type($result) `,` type($mask) `)`
  }];
  let hasVerifier = 1;
}

def Ckpt_DropoutGradOp : Ckpt_Op<"dropout_grad",
    [AllTypesMatch<["grad", "result"]>]> {
  let summary = "gradient of dropout from its mask";
  let description = [{
    `dx = mask ? dy / (1 - p) : 0`. Cost: `2*N` FLOPs.

    ```mlir
    %dx = ckpt.dropout_grad bwd %dy, %mask p 1.000000e-01 : tensor<4x8xf32>, tensor<4x8xi1>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                       Ckpt_MaskTensor:$mask, F64Attr:$p);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $grad `,` $mask `p` $p attr-dict `:` type($grad) `,` type($mask)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::ckpt::OpCost $cppClass::getCost() {
      return ::mlir::ckpt::getElementwiseCost(getOperation(), 2);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Embedding and loss
//===----------------------------------------------------------------------===//

def Ckpt_EmbeddingOp : Ckpt_Op<"embedding"> {
  let summary = "row gather from an embedding table";
  let description = [{
    `result[i..., :] = table[indices[i...], :]` for a `[V, D]` table. Cost:
    0 FLOPs; reads the indices and the gathered rows, writes the result.

    ```mlir
    %e = ckpt.embedding fwd %table, %ids : (tensor<100x8xf32>, tensor<2x4xi64>) -> tensor<2x4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$table,
                       Ckpt_IndexTensor:$indices);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $table `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_EmbeddingGradOp : Ckpt_Op<"embedding_grad"> {
  let summary = "gradient of an embedding table (scatter-add of rows)";
  let description = [{
    Zero-fills a `[V, D]` gradient (the result type) and adds each row of
    `grad` into the row its index selects. With `padding_idx` (a row of the
    table, `0 <= padding_idx < V`), rows of `grad` whose index equals it
    contribute nothing, so that table row's gradient is zero, as PyTorch's
    `embedding_dense_backward` (absent: every row counts). Cost: one FLOP
    per element of `grad` whatever the padding (the indices are data);
    reads `grad` and the indices, writes the whole table gradient.

    ```mlir
    %dt = ckpt.embedding_grad bwd %dy, %ids : (tensor<2x4x8xf32>, tensor<2x4xi64>) -> tensor<100x8xf32>
    %dp = ckpt.embedding_grad bwd %dy, %ids {padding_idx = 0 : i64} : (tensor<2x4x8xf32>, tensor<2x4xi64>) -> tensor<100x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                       Ckpt_IndexTensor:$indices,
                       OptionalAttr<Ckpt_NonNegI64Attr>:$padding_idx);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $grad `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_CrossEntropyOp : Ckpt_Op<"cross_entropy"> {
  let summary = "softmax cross-entropy loss with class-index targets";
  let description = [{
    For `logits` of shape `[..., C]` and integer `targets` of shape `[...]`,
    the per-row loss is `lse - logits[target]` with
    `lse = log(sum(exp(logits)))`; rows whose target equals `ignore_index`
    contribute nothing. `mean` divides by the number of counted rows, `sum`
    adds them (both give a rank-0 loss), `none` returns the per-row losses.
    Also returns `lse` (f32, shape of `targets`) for the gradient. Cost, for N
    logits in R rows: `4*N + 3*R` FLOPs, plus `R + 1` for `mean` and R for
    `sum`.

    ```mlir
    %loss, %lse = ckpt.cross_entropy fwd mean %logits, %t
        : (tensor<4x10xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_LossReduction:$reduction,
                       Ckpt_FloatTensor:$logits, Ckpt_IndexTensor:$targets,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs Ckpt_FloatTensor:$loss, Ckpt_StatTensor:$lse);
  let assemblyFormat = [{
    $phase $reduction $logits `,` $targets attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_CrossEntropyGradOp : Ckpt_Op<"cross_entropy_grad"> {
  let summary = "gradient of softmax cross-entropy with respect to the logits";
  let description = [{
    `dlogits = (exp(logits - lse) - onehot(target)) * dloss` (divided by the
    number of counted rows for `mean`; zero for ignored rows). `grad` has the
    shape of the forward loss. Cost: `3*N + R` FLOPs.

    ```mlir
    %dl = ckpt.cross_entropy_grad bwd mean %dloss, %logits, %t, %lse
        : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_LossReduction:$reduction,
                       Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$logits,
                       Ckpt_IndexTensor:$targets, Ckpt_StatTensor:$lse,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $reduction $grad `,` $logits `,` $targets `,` $lse attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_MseLossOp : Ckpt_Op<"mse_loss"> {
  let summary = "mean squared error loss (mean or sum reduction)";
  let description = [{
    `loss = reduce((input - target)^2)` over all elements of two tensors of
    one type: `sum` adds the N squares, `mean` divides that sum by N (as
    PyTorch's `mse_loss`; `none` has no ckpt form). The loss is rank 0, of
    the input's element type. Each difference and its square are formed in
    f32 as PyTorch does; the host kernel adds the squares in double in
    element order and rounds once, the device kernel adds per-thread double
    sums in a fixed order, so the loss is deterministic and within rounding
    of PyTorch's (whose summation order differs). Cost: `3*N` FLOPs
    (subtract, square, add), plus 1 for `mean` (the division); reads both
    operands, writes the scalar.

    ```mlir
    %loss = ckpt.mse_loss fwd mean %x, %t
        : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_LossReduction:$reduction,
                       Ckpt_FloatTensor:$input, Ckpt_FloatTensor:$target);
  let results = (outs Ckpt_FloatTensor:$loss);
  let assemblyFormat = [{
    $phase $reduction $input `,` $target attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_MseLossGradOp : Ckpt_Op<"mse_loss_grad"> {
  let summary = "gradient of the mean squared error loss w.r.t. the input";
  let description = [{
    `dinput = (alpha * (input - target)) * grad` elementwise, where `grad`
    is the rank-0 gradient of the loss and `alpha = 2 / N` (`mean`, computed
    in double and rounded to f32) or `2` (`sum`): PyTorch's
    `mse_loss_backward`, bit-identical for f32. The result has the input's
    type. Cost: `3*N` FLOPs (subtract, two products); reads the three
    operands, writes the result.

    ```mlir
    %dx = ckpt.mse_loss_grad bwd mean %dloss, %x, %t
        : (tensor<f32>, tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_LossReduction:$reduction,
                       Ckpt_FloatTensor:$grad, Ckpt_FloatTensor:$input,
                       Ckpt_FloatTensor:$target);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $reduction $grad `,` $input `,` $target attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Ckpt_ReduceOp<string mnemonic, string what, string flops>
    : Ckpt_Op<mnemonic> {
  let summary = what # " over a set of axes";
  let description = [{
    Reduces `input` over the distinct, sorted `axes`; with `keep_dims` the
    reduced dimensions stay as size 1, otherwise they are removed. Cost: }] #
    flops # [{.

    ```mlir
    %s = ckpt.}] # mnemonic # [{ fwd %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input,
                       DenseI64ArrayAttr:$axes, UnitAttr:$keep_dims);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $input `axes` $axes (`keep_dims` $keep_dims^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::ckpt::verifyReduction(getOperation(), getAxes(), getKeepDims());
    }
  }];
}

def Ckpt_ReduceSumOp : Ckpt_ReduceOp<"reduce_sum", "sum",
    "one FLOP per input element">;
def Ckpt_ReduceMeanOp : Ckpt_ReduceOp<"reduce_mean", "mean",
    "one FLOP per input element plus one per result element">;
def Ckpt_ReduceMaxOp : Ckpt_ReduceOp<"reduce_max", "maximum",
    "one FLOP per input element">;

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def Ckpt_ReshapeOp : Ckpt_Op<"reshape", [], /*isViewLike=*/1> {
  let summary = "reshape to the same number of elements (a view)";
  let description = [{
    Reinterprets the contiguous row-major input with a new shape. The result
    is a view: it aliases the input's storage and costs nothing.

    ```mlir
    %y = ckpt.reshape fwd %x : tensor<4x8xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_AnyTensor:$input);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = "$phase $input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Ckpt_TransposeOp : Ckpt_Op<"transpose", [], /*isViewLike=*/1> {
  let summary = "permute dimensions";
  let description = [{
    `result.shape[i] = input.shape[perm[i]]`. When the permutation keeps the
    order of all dimensions larger than 1 the row-major layout is unchanged
    and the op is a view (no cost, aliases the input); otherwise it copies:
    0 FLOPs, reads and writes every element once.

    ```mlir
    %y = ckpt.transpose fwd %x perm [0, 2, 1, 3] : tensor<2x4x16x8xf32> -> tensor<2x16x4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_AnyTensor:$input,
                       DenseI64ArrayAttr:$perm);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = [{
    $phase $input `perm` $perm attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Ckpt_BroadcastOp : Ckpt_Op<"broadcast"> {
  let summary = "materialize a numpy-style broadcast to the result shape";
  let description = [{
    Copies the input to the result shape following numpy broadcasting rules
    (trailing alignment; input dimensions of size 1 repeat). Cost: 0 FLOPs;
    reads the input, writes the result.

    ```mlir
    %y = ckpt.broadcast fwd %b : tensor<8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_AnyTensor:$input);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = "$phase $input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Ckpt_SliceOp : Ckpt_Op<"slice"> {
  let summary = "strided slice; the result type gives the extent";
  let description = [{
    `result[i...] = input[starts + i * steps ...]` per dimension; every index
    read must be inside the input. Cost: 0 FLOPs; reads and writes the
    result's elements once.

    ```mlir
    %y = ckpt.slice fwd %x starts [0, 8] steps [1, 1] : tensor<4x24xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_AnyTensor:$input,
                       DenseI64ArrayAttr:$starts, DenseI64ArrayAttr:$steps);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = [{
    $phase $input `starts` $starts `steps` $steps attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Ckpt_ConcatOp : Ckpt_Op<"concat"> {
  let summary = "concatenate tensors along one axis";
  let description = [{
    All inputs have the result's rank and element type and agree on every
    dimension except `axis`, whose sizes add up to the result's. Cost: 0
    FLOPs; reads the inputs, writes the result.

    ```mlir
    %y = ckpt.concat fwd %a, %b axis 1 : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x24xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase,
                       Variadic<Ckpt_AnyTensor>:$inputs,
                       Ckpt_NonNegI64Attr:$axis);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = [{
    $phase $inputs `axis` $axis attr-dict `:` functional-type($inputs, results)
  }];
  let hasVerifier = 1;
}

/// `tril` / `triu`: keep one triangle of the last two dimensions.
class Ckpt_TriangleOp<string mnemonic, string kept, string torchName>
    : Ckpt_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = "keep the " # kept # " triangle of the last two dimensions";
  let description = [{
    `r[..., i, j] = (j - i }] # !if(!eq(mnemonic, "tril"), "<=", ">=") #
    [{ diagonal) ? x[..., i, j] : 0` (`false` for i1), as `}] # torchName #
    [{(x, diagonal)`: `diagonal = 0` is the main diagonal, a positive one lies
    above it, a negative one below. The input has rank 2 or more and any
    element type; `diagonal` is a signed i64 (default 0, then not printed).
    Cost: 0 FLOPs; reads the input once (every element), writes the result
    once.

    ```mlir
    %y = ckpt.}] # mnemonic # [{ fwd %x diagonal 1 : tensor<2x8x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_AnyTensor:$input,
                       DefaultValuedAttr<I64Attr, "0">:$diagonal);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = [{
    $phase $input (`diagonal` $diagonal^)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::ckpt::verifyTriangleOp(getOperation());
    }
    ::mlir::ckpt::OpCost $cppClass::getCost() {
      return ::mlir::ckpt::getDataMovementCost(getOperation());
    }
  }];
}

def Ckpt_TrilOp : Ckpt_TriangleOp<"tril", "lower", "torch.tril">;
def Ckpt_TriuOp : Ckpt_TriangleOp<"triu", "upper", "torch.triu">;

def Ckpt_PadOp : Ckpt_Op<"pad"> {
  let summary = "constant padding before and after each dimension";
  let description = [{
    `r` has shape `x.shape + low + high`; `r[i...] = x[i - low ...]` where
    that index is inside `x`, `value` elsewhere (`aten.constant_pad_nd` with
    non-negative pads). `low` and `high` hold one non-negative entry per
    dimension. `value` converts to the element type as `ckpt.fill` does
    (rounded to nearest even for floats; integral and in range for integers,
    0 or 1 for i1); NaN is allowed for floats. The gradient of `pad` is
    `ckpt.slice` of the result gradient with `starts = low`, unit steps and
    the input's shape. Cost: 0 FLOPs; reads the input once, writes the
    result once.

    ```mlir
    %y = ckpt.pad fwd %x low [0, 1] high [0, 2] value 0.000000e+00 : tensor<4x8xf32> -> tensor<4x11xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_AnyTensor:$input,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high,
                       F64Attr:$value);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = [{
    $phase $input `low` $low `high` $high `value` $value attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Ckpt_GatherOp : Ckpt_Op<"gather"> {
  let summary = "gather along one dimension by an i64 index tensor";
  let description = [{
    `r[i...] = x[i_0, ..., index[i...], ..., i_(n-1)]` with the index in
    position `dim`, as `torch.gather(x, dim, index)`: `index` has the rank
    of `x`, its size along every other dimension is at most `x`'s, and the
    result has the shape of `index` and the element type of `x` (any). Every
    index must lie in `[0, x.shape[dim])`; only the shapes are checked here.
    At run time the host kernel reports an index outside that range as an
    error, as PyTorch does; the device kernel never reads outside `x` and
    stores NaN (floats) or 0 (integers, i1) for such an index. Cost:
    0 FLOPs; reads the whole index and one element of `x` per result
    element, writes the result once.

    ```mlir
    %y = ckpt.gather fwd %x, %idx dim 1 : tensor<4x8xf32>, tensor<4x3xi64> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_AnyTensor:$input,
                       Ckpt_ArgmaxTensor:$index, Ckpt_NonNegI64Attr:$dim);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = [{
    $phase $input `,` $index `dim` $dim attr-dict `:` type($input) `,`
    type($index) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fused attention
//===----------------------------------------------------------------------===//

def Ckpt_AttentionOp : Ckpt_Op<"attention"> {
  let summary = "fused scaled-dot-product attention (flash-style)";
  let description = [{
    `out = softmax(scale * q k^T + mask) v` per batch and head, with `q` of
    shape `[B, H, S, D]`, `k` `[B, Hkv, Skv, D]`, `v` `[B, Hkv, Skv, Dv]`
    (H a multiple of Hkv: grouped-query attention). `causal` masks key j > query
    i (top-left aligned, as `torch.nn.functional.scaled_dot_product_attention`).
    With `dropout_p > 0` the probabilities are dropped out on the Philox
    stream `seed`/`offset`. Only the row log-sum-exp `lse` (f32, `[B, H, S]`)
    is saved; the s x s matrix never exists in memory.

    The optional trailing `mask` is `attn_mask` of
    `scaled_dot_product_attention`, broadcastable (numpy-style, right-aligned)
    to `[B, H, S, Skv]`: either an additive bias of the query's float type,
    added to the scaled scores before the softmax (`-inf` entries drop a
    key), or an `i1` keep-mask (true = attend, false = the score is `-inf`).
    It combines with `causal`. A row whose every key is masked out gets a NaN
    output and `lse = -inf` (as PyTorch's NaN softmax); `attention_grad`
    gives such a row zero gradients (PyTorch gives NaN).

    Cost, with P the number of causally unmasked (query, key) pairs per head
    (`S*Skv`, or `sum_i min(i+1, Skv)` when causal):
    `B*H*(2*P*D + 2*P*Dv + 5*P + S*Dv)` FLOPs, plus `2*B*H*P` with dropout
    and `B*H*P` with a mask (its add or select); the mask's bytes are read.

    ```mlir
    %o, %lse = ckpt.attention fwd %q, %k, %v {causal, scale = 0.125 : f64}
        : (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>)
          -> (tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>)
    %o2, %lse2 = ckpt.attention fwd %q, %k, %v, %keep {scale = 0.125 : f64}
        : (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>,
           tensor<2x1x1x16xi1>) -> (tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>)
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$query,
                       Ckpt_FloatTensor:$key, Ckpt_FloatTensor:$value,
                       Optional<Ckpt_AttnMaskTensor>:$mask,
                       F64Attr:$scale, UnitAttr:$causal,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout_p,
                       DefaultValuedAttr<Ckpt_NonNegI64Attr, "0">:$seed,
                       DefaultValuedAttr<Ckpt_NonNegI64Attr, "0">:$offset);
  let results = (outs Ckpt_FloatTensor:$result, Ckpt_StatTensor:$lse);
  let assemblyFormat = [{
    $phase $query `,` $key `,` $value (`,` $mask^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_AttentionGradOp : Ckpt_Op<"attention_grad"> {
  let summary = "gradient of fused attention from the saved log-sum-exp";
  let description = [{
    Recomputes the attention probabilities block by block from `q`, `k` and
    the saved `lse`, and returns the gradients of `q`, `k` and `v`. Attributes
    and the optional trailing `mask` (no gradient) match the forward op.
    Workspace: the f32 row sums `delta = rowsum(dout * out)`, `4*B*H*S`
    bytes. Cost: `B*H*(6*P*D + 4*P*Dv + 6*P + 2*S*Dv)` FLOPs, plus
    `2*B*H*P` with dropout and `B*H*P` with a mask.

    ```mlir
    %dq, %dk, %dv = ckpt.attention_grad bwd %do, %q, %k, %v, %o, %lse {causal, scale = 0.125 : f64}
        : (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>,
           tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>)
          -> (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>)
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                       Ckpt_FloatTensor:$query, Ckpt_FloatTensor:$key,
                       Ckpt_FloatTensor:$value, Ckpt_FloatTensor:$output,
                       Ckpt_StatTensor:$lse,
                       Optional<Ckpt_AttnMaskTensor>:$mask,
                       F64Attr:$scale, UnitAttr:$causal,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout_p,
                       DefaultValuedAttr<Ckpt_NonNegI64Attr, "0">:$seed,
                       DefaultValuedAttr<Ckpt_NonNegI64Attr, "0">:$offset);
  let results = (outs Ckpt_FloatTensor:$query_grad, Ckpt_FloatTensor:$key_grad,
                      Ckpt_FloatTensor:$value_grad);
  let assemblyFormat = [{
    $phase $grad `,` $query `,` $key `,` $value `,` $output `,` $lse
    (`,` $mask^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling (NCHW)
//===----------------------------------------------------------------------===//

def Ckpt_ConvAttrs {
  dag convAttrs = (ins Ckpt_Pair:$strides, Ckpt_Pair:$padding,
                       Ckpt_Pair:$dilation,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$groups);
}

def Ckpt_Conv2dOp : Ckpt_Op<"conv2d"> {
  let summary = "2-D convolution, NCHW input, OIHW weight";
  let description = [{
    As `torch.nn.functional.conv2d` with symmetric `padding` per spatial
    dimension: `Ho = (H + 2*pad - dil*(kh-1) - 1) / stride + 1`. Cost:
    `2*N*O*Ho*Wo*(C/groups)*kh*kw` FLOPs plus `N*O*Ho*Wo` with a bias.
    Workspace: one image's im2col buffer `C*kh*kw*Ho*Wo` elements, zero for a
    1x1 kernel with unit stride and no padding.

    ```mlir
    %y = ckpt.conv2d fwd %x, %w {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>}
        : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input,
                            Ckpt_FloatTensor:$weight,
                            Optional<Ckpt_FloatTensor>:$bias),
                       Ckpt_ConvAttrs.convAttrs);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_Conv2dGradInputOp : Ckpt_Op<"conv2d_grad_input"> {
  let summary = "gradient of conv2d with respect to its input";
  let description = [{
    From the output gradient and the weight, computes the input gradient; the
    result type gives the input shape. Cost and workspace as the forward
    convolution without bias.

    ```mlir
    %dx = ckpt.conv2d_grad_input bwd %dy, %w {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>}
        : (tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                            Ckpt_FloatTensor:$weight),
                       Ckpt_ConvAttrs.convAttrs);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $grad `,` $weight attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_Conv2dGradWeightOp : Ckpt_Op<"conv2d_grad_weight"> {
  let summary = "gradient of conv2d with respect to its weight";
  let description = [{
    From the output gradient and the forward input, computes the weight
    gradient; the result type gives the weight shape. Cost and workspace as
    the forward convolution without bias.

    ```mlir
    %dw = ckpt.conv2d_grad_weight bwd %dy, %x {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>}
        : (tensor<2x4x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                            Ckpt_FloatTensor:$input),
                       Ckpt_ConvAttrs.convAttrs);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $grad `,` $input attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_PoolAttrs {
  dag poolAttrs = (ins Ckpt_Pair:$kernel, Ckpt_Pair:$strides,
                       Ckpt_Pair:$padding);
}

def Ckpt_MaxPool2dOp : Ckpt_Op<"max_pool2d"> {
  let summary = "2-D max pooling returning the argmax indices";
  let description = [{
    NCHW max pooling with implicit -inf padding; also returns, for every
    output element, the flat index `h*W + w` of the chosen input element
    (i64), as PyTorch saves for the backward pass. Cost: `kh*kw` FLOPs per
    output element.

    ```mlir
    %y, %idx = ckpt.max_pool2d fwd %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>}
        : (tensor<2x3x8x8xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>)
    ```
  }];
  let arguments = !con((ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input),
                       Ckpt_PoolAttrs.poolAttrs);
  let results = (outs Ckpt_FloatTensor:$result, Ckpt_ArgmaxTensor:$indices);
  let assemblyFormat = [{
    $phase $input attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_MaxPool2dGradOp : Ckpt_Op<"max_pool2d_grad"> {
  let summary = "gradient of max pooling from the saved indices";
  let description = [{
    Zero-fills the input gradient (the result type) and adds each output
    gradient at its saved index. Cost: one FLOP per output element.

    ```mlir
    %dx = ckpt.max_pool2d_grad bwd %dy, %idx {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>}
        : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>) -> tensor<2x3x8x8xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad,
                            Ckpt_ArgmaxTensor:$indices),
                       Ckpt_PoolAttrs.poolAttrs);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $grad `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_AvgPool2dOp : Ckpt_Op<"avg_pool2d"> {
  let summary = "2-D average pooling";
  let description = [{
    NCHW average pooling; with `count_include_pad` the divisor is `kh*kw`,
    otherwise the number of in-bounds elements. Cost: `kh*kw + 1` FLOPs per
    output element.

    ```mlir
    %y = ckpt.avg_pool2d fwd %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>}
        : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$input),
                       Ckpt_PoolAttrs.poolAttrs,
                       (ins UnitAttr:$count_include_pad));
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $input attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Ckpt_AvgPool2dGradOp : Ckpt_Op<"avg_pool2d_grad"> {
  let summary = "gradient of average pooling";
  let description = [{
    Spreads each output gradient, divided by its divisor, over its window of
    the input gradient (the result type). Cost: `kh*kw + 1` FLOPs per output
    element.

    ```mlir
    %dx = ckpt.avg_pool2d_grad bwd %dy {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>}
        : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
    ```
  }];
  let arguments = !con((ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$grad),
                       Ckpt_PoolAttrs.poolAttrs,
                       (ins UnitAttr:$count_include_pad));
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = [{
    $phase $grad attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

def Ckpt_SgdUpdateOp : Ckpt_Op<"sgd_update", [SameOperandsAndResultType]> {
  let summary = "plain SGD parameter update";
  let description = [{
    `result = param - lr * grad`. Cost: `2*N` FLOPs.

    ```mlir
    %p2 = ckpt.sgd_update opt %p, %g lr 1.000000e-02 : tensor<16x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$param,
                       Ckpt_FloatTensor:$grad, F64Attr:$lr);
  let results = (outs Ckpt_FloatTensor:$result);
  let assemblyFormat = "$phase $param `,` $grad `lr` $lr attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::ckpt::OpCost $cppClass::getCost() {
      return ::mlir::ckpt::getElementwiseCost(getOperation(), 2);
    }
  }];
}

def Ckpt_AdamwUpdateOp : Ckpt_Op<"adamw_update"> {
  let summary = "AdamW parameter update with decoupled weight decay";
  let description = [{
    Updates the f32 moments `m = b1*m + (1-b1)*g`, `v = b2*v + (1-b2)*g^2`
    and the parameter `p -= lr * (mhat / (sqrt(vhat) + eps) + wd * p)` with
    bias-corrected `mhat`, `vhat` at step `step` (>= 1). Returns the new
    parameter, `m` and `v`. Cost: `16*N` FLOPs.

    ```mlir
    %p2, %m2, %v2 = ckpt.adamw_update opt %p, %g, %m, %v {beta1 = 0.9 : f64, beta2 = 0.999 : f64,
        eps = 1.0e-08 : f64, lr = 1.0e-03 : f64, step = 1 : i64, weight_decay = 0.01 : f64}
        : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_FloatTensor:$param,
                       Ckpt_FloatTensor:$grad, Ckpt_StatTensor:$exp_avg,
                       Ckpt_StatTensor:$exp_avg_sq, F64Attr:$lr, F64Attr:$beta1,
                       F64Attr:$beta2, F64Attr:$eps, F64Attr:$weight_decay,
                       ConfinedAttr<I64Attr, [IntPositive]>:$step);
  let results = (outs Ckpt_FloatTensor:$result, Ckpt_StatTensor:$new_exp_avg,
                      Ckpt_StatTensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $phase $param `,` $grad `,` $exp_avg `,` $exp_avg_sq attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Opaque operations
//===----------------------------------------------------------------------===//

def Ckpt_OpaqueOp : Ckpt_Op<"opaque", [], /*isViewLike=*/0,
                             /*extraCostMethods=*/["getExplicitCost"]> {
  let summary = "an operation outside the op set, with user-given costs";
  let description = [{
    Stands for a custom kernel that ckpt-opt cannot generate but can plan
    around. `flops` is required; `bytes_read` and `bytes_written` default to
    the operand and result sizes, `workspace` to 0. Code generation refuses
    opaque ops.

    `compute_cost`, optional, is the op's cost as the input graph gives it
    (a profiled time in the graph's own unit, as in the rematerialization
    benchmark graphs). CostOpInterface::getExplicitCost returns it, and
    checkpoint placement then uses it as the op's cost under every objective
    instead of FLOPs or the roofline estimate; a function must give it on
    all its ops or on none.

    ```mlir
    %y = ckpt.opaque fwd "my_fused_kernel"(%x) {flops = 1024 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %z = ckpt.opaque fwd "conv1"(%y) {compute_cost = 385 : i64, flops = 0 : i64} : (tensor<4x8xf32>) -> tensor<64xi1>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, StrAttr:$name,
                       Variadic<Ckpt_AnyTensor>:$inputs,
                       Ckpt_NonNegI64Attr:$flops,
                       OptionalAttr<Ckpt_NonNegI64Attr>:$bytes_read,
                       OptionalAttr<Ckpt_NonNegI64Attr>:$bytes_written,
                       OptionalAttr<Ckpt_NonNegI64Attr>:$workspace,
                       OptionalAttr<Ckpt_NonNegI64Attr>:$compute_cost);
  let results = (outs Variadic<Ckpt_AnyTensor>:$results);
  let assemblyFormat = [{
    $phase $name `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Host offload
//===----------------------------------------------------------------------===//

/// Base of the copies between device and host memory: not Pure (each starts
/// or waits for a copy on a stream of its own, so none may be merged or
/// dropped), no compute cost (docs/dialect.md, "Host offload").
class Ckpt_CopyOp<string mnemonic, list<Trait> traits = []>
    : Op<Ckpt_Dialect, mnemonic, !listconcat(traits, [Ckpt_BoundedTensors,
          MemoryEffects<[MemRead, MemWrite]>,
          DeclareOpInterfaceMethods<Ckpt_CostOpInterface>])>;

def Ckpt_OffloadOp : Ckpt_CopyOp<"offload", [SameOperandsAndResultType]> {
  let summary = "start copying a device tensor to a host buffer";
  let description = [{
    Starts copying `input` from device memory to a new pinned host buffer,
    the result, on the device-to-host copy stream; the compute stream goes
    on at once. The result lives in host memory: only `ckpt.prefetch` (to
    copy it back) and `ckpt.offload_wait` may read it, and it is never
    returned. Its bytes count in the host peak, not the device peak. Cost:
    nothing on the compute stream (the copy's time is the link's:
    `remat::CopyLink`).

    ```mlir
    %h = ckpt.offload fwd %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_AnyTensor:$input);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = "$phase $input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Ckpt_OffloadWaitOp : Ckpt_CopyOp<"offload_wait",
    [AllTypesMatch<["source", "host"]>]> {
  let summary = "the point after which an offloaded device buffer may go";
  let description = [{
    Orders the compute stream after the copy `host = ckpt.offload source`:
    the ops after it run once the copy is done, so `source`'s device storage
    may be reused from there on. It reads `source`, which therefore lives on
    the device at least up to here; `ckpt-place-checkpoints` puts it right
    after the last op its offload model issues before the copy ends, so it
    never waits. `host` must be the result of a `ckpt.offload` of `source`.
    Cost: nothing.

    ```mlir
    ckpt.offload_wait fwd %x, %h : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_AnyTensor:$source,
                       Ckpt_AnyTensor:$host);
  let assemblyFormat = "$phase $source `,` $host attr-dict `:` type($source)";
  let hasVerifier = 1;
}

def Ckpt_PrefetchOp : Ckpt_CopyOp<"prefetch", [SameOperandsAndResultType]> {
  let summary = "copy an offloaded tensor back into a new device buffer";
  let description = [{
    Copies the host buffer `host` (the result of a `ckpt.offload`) into a
    new device buffer, the result, on the host-to-device copy stream; the
    compute stream goes on, and the first op reading the result waits for
    the copy. The result is a device tensor like any op result. Cost:
    nothing on the compute stream.

    ```mlir
    %y = ckpt.prefetch bwd %h : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Ckpt_Phase:$phase, Ckpt_AnyTensor:$host);
  let results = (outs Ckpt_AnyTensor:$result);
  let assemblyFormat = "$phase $host attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // CKPT_DIALECT_CKPT_IR_CKPTOPS_TD
