// CI without a GPU: a CUDA step with clamp and clamp_grad calls the device
// kernels of those names with the bounds as float attributes, and compiles
// and links with nvcc against the device runtime (which therefore has both
// kernels); the linked runner describes the program without a device.
// REQUIRES: nvcc
// UNSUPPORTED: sanitizer

// RUN: rm -rf %t && mkdir -p %t
// RUN: %ckpt_opt %s --ckpt-plan-memory --emit=cuda -o %t/step
// RUN: FileCheck %s --input-file=%t/step/clamp.cu
// RUN: %nvcc %nvcc_step_flags -I%t/step -c %t/step/clamp.cu -o %t/step.o
// RUN: %nvcc %nvcc_flags %t/step.o %cuda_runner_src %nvcc_link_libs -o %t/run
// RUN: %t/run --describe | FileCheck %s --check-prefix=DESCRIBE

// CHECK: static const Attr attrs[] = {floatAttr("max", 6.0),
// CHECK-NEXT: floatAttr("min", 0.0),
// CHECK: ctx.call(op, &cuda::kernels::clamp, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 3}, Tensor());
// CHECK: static const Attr attrs[] = {floatAttr("max", 0.10000000000000001),
// CHECK-NEXT: floatAttr("min", -1.5),
// CHECK: ctx.call(op, &cuda::kernels::clamp_grad, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 3}, Tensor());

// DESCRIBE: step @clamp: 4 ops, 0 recomputed in 0 segments
// DESCRIBE: argument 0: input x, 32 elements
// DESCRIBE: result 1: output output:1, 32 elements
func.func @clamp(%x: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>} loc("x"(unknown)),
                 %dy: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>} loc("dy"(unknown)))
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = ckpt.exp fwd %x : tensor<4x8xf32>
  %1 = ckpt.clamp fwd %0 min 0.0 max 6.0 : tensor<4x8xf32>
  %2 = ckpt.exp bwd %dy : tensor<4x8xf32>
  %3 = ckpt.clamp_grad bwd %2, %x min -1.5 max 0.1 : tensor<4x8xf32>
  return %1, %3 : tensor<4x8xf32>, tensor<4x8xf32>
}
