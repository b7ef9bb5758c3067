// mse_loss and mse_loss_grad in a planned, generated step: the host kernels
// of those names receive the reduction as a string attribute, and the code
// compiles against the runtime's kernel declarations.

// RUN: rm -rf %t && %ckpt_opt %s --ckpt-plan-memory --emit=cpp -o %t
// RUN: FileCheck %s --input-file=%t/mse.cpp
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I%ckpt_runtime_include -I%t %t/mse.cpp

// CHECK: // [0] %0 = ckpt.mse_loss fwd mean %arg0, %arg1
// CHECK: stringAttr("reduction", "mean")
// CHECK: ctx.call(op, &kernels::mse_loss, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 2}, Tensor());
// CHECK: // [1] %1 = ckpt.mse_loss_grad bwd sum %arg2, %arg0, %arg1
// CHECK: stringAttr("reduction", "sum")
// CHECK: ctx.call(op, &kernels::mse_loss_grad, TensorList{operands, 3}, TensorList{results, 1}, Attrs{attrs, 2}, Tensor());
func.func @mse(%x: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>} loc("x"(unknown)),
               %t: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>} loc("t"(unknown)),
               %dl: tensor<f32> {ckpt.role = #ckpt.role<input>} loc("dl"(unknown)))
    -> (tensor<f32>, tensor<4x8xf32>) {
  %0 = ckpt.mse_loss fwd mean %x, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  %1 = ckpt.mse_loss_grad bwd sum %dl, %x, %t : (tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<f32>, tensor<4x8xf32>
}
