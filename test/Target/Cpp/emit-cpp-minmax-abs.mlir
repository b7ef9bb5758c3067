// T5's relative-position buckets in a planned, generated step: neg and abs
// on i64, minimum against a rank-0 i64 and maximum of f32 with broadcasting
// each call the host kernel of their name with the phase as the only
// attribute; the planner knows them as elementwise, so abs runs in place over
// neg's result and minimum over abs's (in-place=2: both die at their reader,
// same size); and the code compiles against the runtime's declarations.

// RUN: rm -rf %t && %ckpt_opt %s --ckpt-plan-memory="verify=true explain=true" --emit=cpp -o %t 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: FileCheck %s --input-file=%t/buckets.cpp
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I%ckpt_runtime_include -I%t %t/buckets.cpp

// PLAN: remark: memory plan: {{.*}} in-place=2

// CHECK: // [0] %0 = ckpt.neg fwd %arg0 {ckpt.offset = array<i64: [[D:[0-9]+]]>}
// CHECK: ctx.call(op, &kernels::neg, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: // [1] %1 = ckpt.abs fwd %0 {ckpt.offset = array<i64: [[D]]>}
// CHECK: ctx.call(op, &kernels::abs, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: // [2] %2 = ckpt.minimum fwd %1, %arg1 {ckpt.offset = array<i64: [[D]]>}
// CHECK: ctx.call(op, &kernels::minimum, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: // [3] %3 = ckpt.maximum fwd %arg2, %arg3
// CHECK: ctx.call(op, &kernels::maximum, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
func.func @buckets(%rel: tensor<4x8xi64> {ckpt.role = #ckpt.role<input>} loc("rel"(unknown)),
                   %cap: tensor<i64> {ckpt.role = #ckpt.role<input>} loc("cap"(unknown)),
                   %x: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>} loc("x"(unknown)),
                   %z: tensor<8xf32> {ckpt.role = #ckpt.role<input>} loc("z"(unknown)))
    -> (tensor<4x8xi64>, tensor<4x8xf32>) {
  %0 = ckpt.neg fwd %rel : tensor<4x8xi64>
  %1 = ckpt.abs fwd %0 : tensor<4x8xi64>
  %2 = ckpt.minimum fwd %1, %cap : tensor<4x8xi64>, tensor<i64> -> tensor<4x8xi64>
  %3 = ckpt.maximum fwd %x, %z : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %2, %3 : tensor<4x8xi64>, tensor<4x8xf32>
}
