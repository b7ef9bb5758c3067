// CI without a GPU: a CUDA step with mse_loss and mse_loss_grad calls the
// device kernels of those names with the reduction, and compiles and links
// with nvcc against the device runtime (which therefore has both kernels).
// REQUIRES: nvcc
// UNSUPPORTED: sanitizer

// RUN: rm -rf %t && mkdir -p %t
// RUN: %ckpt_opt %s --ckpt-plan-memory --emit=cuda -o %t/step
// RUN: FileCheck %s --input-file=%t/step/mse.cu
// RUN: %nvcc %nvcc_step_flags -I%t/step -c %t/step/mse.cu -o %t/step.o
// RUN: %nvcc %nvcc_flags %t/step.o %cuda_runner_src %nvcc_link_libs -o %t/run
// RUN: %t/run --describe | FileCheck %s --check-prefix=DESCRIBE

// CHECK: stringAttr("reduction", "mean")
// CHECK: ctx.call(op, &cuda::kernels::mse_loss, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 2}, Tensor());
// CHECK: stringAttr("reduction", "sum")
// CHECK: ctx.call(op, &cuda::kernels::mse_loss_grad, TensorList{operands, 3}, TensorList{results, 1}, Attrs{attrs, 2}, Tensor());

// DESCRIBE: step @mse: 2 ops, 0 recomputed in 0 segments
func.func @mse(%x: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>} loc("x"(unknown)),
               %t: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>} loc("t"(unknown)),
               %dl: tensor<f32> {ckpt.role = #ckpt.role<input>} loc("dl"(unknown)))
    -> (tensor<f32>, tensor<4x8xf32>) {
  %0 = ckpt.mse_loss fwd mean %x, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  %1 = ckpt.mse_loss_grad bwd sum %dl, %x, %t : (tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<f32>, tensor<4x8xf32>
}
