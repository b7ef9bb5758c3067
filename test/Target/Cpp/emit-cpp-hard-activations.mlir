// hardswish, hardsigmoid, their gradients, sin and cos in a planned,
// generated step: each calls the host kernel of its name with the phase as
// its only attribute; the planner knows them as elementwise, so the two
// gradients run in place (in-place=2: hardsigmoid_grad over the exp result
// that dies at it, hardswish_grad over hardsigmoid_grad's; the forward
// results stay live until the backward ops read them); and the code
// compiles against the runtime's kernel declarations.

// RUN: rm -rf %t && %ckpt_opt %s --ckpt-plan-memory="verify=true explain=true" --emit=cpp -o %t 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: FileCheck %s --input-file=%t/hard.cpp
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I%ckpt_runtime_include -I%t %t/hard.cpp

// PLAN: remark: memory plan: {{.*}} buffers=10 in-place=2

// CHECK: // [1] %1 = ckpt.hardswish fwd %0
// CHECK: ctx.call(op, &kernels::hardswish, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: // [2] %2 = ckpt.hardsigmoid fwd %1
// CHECK: ctx.call(op, &kernels::hardsigmoid, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: // [3] %3 = ckpt.sin fwd %arg0
// CHECK: ctx.call(op, &kernels::sin, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: // [4] %4 = ckpt.cos fwd %arg0
// CHECK: ctx.call(op, &kernels::cos, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: // [5] %5 = ckpt.exp bwd %arg1 {ckpt.offset = array<i64: [[D:[0-9]+]]>}
// CHECK: // [6] %6 = ckpt.hardsigmoid_grad bwd %5, %1 {ckpt.offset = array<i64: [[D]]>}
// CHECK: ctx.call(op, &kernels::hardsigmoid_grad, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: // [7] %7 = ckpt.hardswish_grad bwd %6, %0 {ckpt.offset = array<i64: [[D]]>}
// CHECK: ctx.call(op, &kernels::hardswish_grad, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
func.func @hard(%x: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>} loc("x"(unknown)),
                %dy: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>} loc("dy"(unknown)))
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = ckpt.exp fwd %x : tensor<4x8xf32>
  %1 = ckpt.hardswish fwd %0 : tensor<4x8xf32>
  %2 = ckpt.hardsigmoid fwd %1 : tensor<4x8xf32>
  %3 = ckpt.sin fwd %x : tensor<4x8xf32>
  %4 = ckpt.cos fwd %x : tensor<4x8xf32>
  %5 = ckpt.exp bwd %dy : tensor<4x8xf32>
  %6 = ckpt.hardsigmoid_grad bwd %5, %1 : tensor<4x8xf32>
  %7 = ckpt.hardswish_grad bwd %6, %0 : tensor<4x8xf32>
  return %2, %3, %4, %7 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
