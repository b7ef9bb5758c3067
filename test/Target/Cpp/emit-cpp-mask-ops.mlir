// The mask and position-id ops in a planned, generated step (a causal and
// padding mask applied with select, then tril, pad and gather): each calls
// the host kernel of its name; iota's integer numbers reach it as int
// attributes and its fractional ones as float attributes, compare's predicate
// as its keyword, the diagonal (default 0 included) as an int, pad's pads as
// int arrays and its value as a float; the code compiles against the
// runtime's kernel declarations.

// RUN: rm -rf %t && %ckpt_opt %s --ckpt-plan-memory="verify=true" --emit=cpp -o %t
// RUN: FileCheck %s --input-file=%t/mask_ops.cpp
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I%ckpt_runtime_include -I%t %t/mask_ops.cpp

// CHECK-LABEL: ckpt.iota fwd start(0 : i64) step(1 : i64)
// CHECK: intAttr("start", 0),
// CHECK-NEXT: intAttr("step", 1)};
// CHECK: ctx.call(op, &kernels::iota, TensorList{}, TensorList{results, 1}, Attrs{attrs, 3}, Tensor());
// CHECK-LABEL: ckpt.iota fwd start(5.000000e-01 : f64) step(-2.500000e-01 : f64)
// CHECK: floatAttr("start", 0.5),
// CHECK-NEXT: floatAttr("step", -0.25)};
// CHECK: const Tensor results[] = {Tensor(arena + {{[0-9]+}}, DType::F32, {8})};
// CHECK: ctx.call(op, &kernels::iota,
// CHECK-LABEL: ckpt.compare fwd le
// CHECK: stringAttr("predicate", "le")};
// CHECK: DType::I64, {8}),
// CHECK-NEXT: DType::I64, {8, 1})};
// CHECK: const Tensor results[] = {Tensor(arena + {{[0-9]+}}, DType::I1, {8, 8})};
// CHECK: ctx.call(op, &kernels::compare, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 2}, Tensor());
// CHECK-LABEL: ckpt.logical_and
// CHECK: ctx.call(op, &kernels::logical_and, TensorList{operands, 2},
// CHECK-LABEL: ckpt.logical_not
// CHECK: ctx.call(op, &kernels::logical_not, TensorList{operands, 1},
// CHECK-LABEL: ckpt.triu fwd
// CHECK: static const Attr attrs[] = {intAttr("diagonal", 1),
// CHECK: ctx.call(op, &kernels::triu, TensorList{operands, 1},
// CHECK-LABEL: ckpt.logical_or
// CHECK: ctx.call(op, &kernels::logical_or, TensorList{operands, 2},
// CHECK-LABEL: ckpt.select
// CHECK: DType::I1, {2, 8, 8}),
// CHECK-NEXT: DType::F32, {}),
// CHECK-NEXT: DType::F32, {2, 8, 8})};
// CHECK: ctx.call(op, &kernels::select, TensorList{operands, 3}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK-LABEL: ckpt.tril fwd
// CHECK: static const Attr attrs[] = {intAttr("diagonal", 0),
// CHECK: ctx.call(op, &kernels::tril,
// CHECK-LABEL: ckpt.pad fwd
// CHECK: static const int64_t ints0[] = {0, 0, 2};
// CHECK-NEXT: static const int64_t ints1[] = {0, 0, 1};
// CHECK-NEXT: static const Attr attrs[] = {intsAttr("high", ints0, 3),
// CHECK-NEXT: intsAttr("low", ints1, 3),
// CHECK: floatAttr("value", 0.0)};
// CHECK: ctx.call(op, &kernels::pad,
// CHECK-LABEL: ckpt.gather fwd
// CHECK: static const Attr attrs[] = {intAttr("dim", 2),
// CHECK: DType::I64, {2, 8, 3})};
// CHECK: ctx.call(op, &kernels::gather, TensorList{operands, 2},
func.func @mask_ops(%x: tensor<2x8x8xf32> {ckpt.role = #ckpt.role<input>} loc("x"(unknown)),
                    %keep: tensor<2x8xi1> {ckpt.role = #ckpt.role<input>} loc("keep"(unknown)),
                    %idx: tensor<2x8x3xi64> {ckpt.role = #ckpt.role<input>} loc("idx"(unknown)))
    -> (tensor<2x8x3xf32>, tensor<8xf32>) {
  %pos = ckpt.iota fwd start(0) step(1) : tensor<8xi64>
  %t = ckpt.iota fwd start(0.5) step(-0.25) : tensor<8xf32>
  %row = ckpt.reshape fwd %pos : tensor<8xi64> -> tensor<8x1xi64>
  %causal = ckpt.compare fwd le %pos, %row : tensor<8xi64>, tensor<8x1xi64> -> tensor<8x8xi1>
  %k3 = ckpt.reshape fwd %keep : tensor<2x8xi1> -> tensor<2x1x8xi1>
  %both = ckpt.logical_and fwd %causal, %k3 : tensor<8x8xi1>, tensor<2x1x8xi1> -> tensor<2x8x8xi1>
  %masked = ckpt.logical_not fwd %both : tensor<2x8x8xi1>
  %up = ckpt.triu fwd %causal diagonal 1 : tensor<8x8xi1>
  %drop = ckpt.logical_or fwd %masked, %up : tensor<2x8x8xi1>, tensor<8x8xi1> -> tensor<2x8x8xi1>
  %neg = ckpt.fill fwd -1.0e9 : tensor<f32>
  %s = ckpt.select fwd %drop, %neg, %x : tensor<2x8x8xi1>, tensor<f32>, tensor<2x8x8xf32> -> tensor<2x8x8xf32>
  %low = ckpt.tril fwd %s : tensor<2x8x8xf32>
  %p = ckpt.pad fwd %low low [0, 0, 1] high [0, 0, 2] value 0.0 : tensor<2x8x8xf32> -> tensor<2x8x11xf32>
  %g = ckpt.gather fwd %p, %idx dim 2 : tensor<2x8x11xf32>, tensor<2x8x3xi64> -> tensor<2x8x3xf32>
  return %g, %t : tensor<2x8x3xf32>, tensor<8xf32>
}
