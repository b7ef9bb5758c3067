// CI without a GPU: a CUDA step with hardswish, hardsigmoid, their gradients,
// sin and cos calls the device kernels of those names, and compiles and links
// with nvcc against the device runtime (which therefore has all six kernels);
// the linked runner describes the program without a device.
// REQUIRES: nvcc
// UNSUPPORTED: sanitizer

// RUN: rm -rf %t && mkdir -p %t
// RUN: %ckpt_opt %s --ckpt-plan-memory --emit=cuda -o %t/step
// RUN: FileCheck %s --input-file=%t/step/hard.cu
// RUN: %nvcc %nvcc_step_flags -I%t/step -c %t/step/hard.cu -o %t/step.o
// RUN: %nvcc %nvcc_flags %t/step.o %cuda_runner_src %nvcc_link_libs -o %t/run
// RUN: %t/run --describe | FileCheck %s --check-prefix=DESCRIBE

// CHECK: ctx.call(op, &cuda::kernels::hardswish, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: ctx.call(op, &cuda::kernels::hardsigmoid, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: ctx.call(op, &cuda::kernels::sin, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: ctx.call(op, &cuda::kernels::cos, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: ctx.call(op, &cuda::kernels::hardsigmoid_grad, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: ctx.call(op, &cuda::kernels::hardswish_grad, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());

// DESCRIBE: step @hard: 8 ops, 0 recomputed in 0 segments
// DESCRIBE: argument 0: input x, 32 elements
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
