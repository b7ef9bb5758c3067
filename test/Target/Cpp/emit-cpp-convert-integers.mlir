// convert between integers, masks and f32 in a planned, generated step: the
// host runtime has all three integer dtypes, so each conversion calls the
// host convert kernel with the operand's and result's dtypes; the code
// compiles against the runtime's kernel declarations.

// RUN: rm -rf %t && %ckpt_opt %s --ckpt-plan-memory --emit=cpp -o %t
// RUN: FileCheck %s --input-file=%t/conv.cpp
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I%ckpt_runtime_include -I%t %t/conv.cpp

// CHECK: // [0] %0 = ckpt.convert fwd %arg0 {{.*}}: tensor<4x8xi64> -> tensor<4x8xi1>
// CHECK: DType::I1
// CHECK: ctx.call(op, &kernels::convert, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: // [1] %1 = ckpt.convert fwd %0 {{.*}}: tensor<4x8xi1> -> tensor<4x8xf32>
// CHECK: ctx.call(op, &kernels::convert,
// CHECK: // [2] %2 = ckpt.convert fwd %1 {{.*}}: tensor<4x8xf32> -> tensor<4x8xi32>
// CHECK: DType::I32
// CHECK: ctx.call(op, &kernels::convert,
func.func @conv(%ids: tensor<4x8xi64> {ckpt.role = #ckpt.role<input>} loc("ids"(unknown)))
    -> tensor<4x8xi32> {
  %0 = ckpt.convert fwd %ids : tensor<4x8xi64> -> tensor<4x8xi1>
  %1 = ckpt.convert fwd %0 : tensor<4x8xi1> -> tensor<4x8xf32>
  %2 = ckpt.convert fwd %1 : tensor<4x8xf32> -> tensor<4x8xi32>
  return %2 : tensor<4x8xi32>
}
