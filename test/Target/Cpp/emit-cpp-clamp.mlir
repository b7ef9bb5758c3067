// clamp and clamp_grad in a planned, generated step: each runs in place over
// the exp result that dies at it (in-place=2, same offsets), the bounds reach
// the host kernels as float attributes (f64 literals that read back exactly),
// and the code compiles against the runtime's kernel declarations.

// RUN: rm -rf %t && %ckpt_opt %s --ckpt-plan-memory="verify=true explain=true" --emit=cpp -o %t 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: FileCheck %s --input-file=%t/clamp.cpp
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I%ckpt_runtime_include -I%t %t/clamp.cpp

// PLAN: remark: memory plan: arena=1024 lower-bound=1024 ratio=1.0000 buffers=6 in-place=2

// CHECK: // [0] %0 = ckpt.exp fwd %arg0 {ckpt.offset = array<i64: [[E:[0-9]+]]>}
// CHECK: // [1] %1 = ckpt.clamp fwd %0 min 0.000000e+00 max 6.000000e+00 {ckpt.offset = array<i64: [[E]]>}
// CHECK: static const Attr attrs[] = {floatAttr("max", 6.0),
// CHECK-NEXT: floatAttr("min", 0.0),
// CHECK: ctx.call(op, &kernels::clamp, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 3}, Tensor());
// CHECK: // [2] %2 = ckpt.exp bwd %arg1 {ckpt.offset = array<i64: [[D:[0-9]+]]>}
// CHECK: // [3] %3 = ckpt.clamp_grad bwd %2, %arg0 min -1.500000e+00 max 1.000000e-01 {ckpt.offset = array<i64: [[D]]>}
// CHECK: static const Attr attrs[] = {floatAttr("max", 0.10000000000000001),
// CHECK-NEXT: floatAttr("min", -1.5),
// CHECK: ctx.call(op, &kernels::clamp_grad, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 3}, Tensor());
func.func @clamp(%x: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>} loc("x"(unknown)),
                 %dy: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>} loc("dy"(unknown)))
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = ckpt.exp fwd %x : tensor<4x8xf32>
  %1 = ckpt.clamp fwd %0 min 0.0 max 6.0 : tensor<4x8xf32>
  %2 = ckpt.exp bwd %dy : tensor<4x8xf32>
  %3 = ckpt.clamp_grad bwd %2, %x min -1.5 max 0.1 : tensor<4x8xf32>
  return %1, %3 : tensor<4x8xf32>, tensor<4x8xf32>
}
