// CI without a GPU: a CUDA step with T5's relative-position bucket ops (neg
// and abs on i64, minimum against a rank-0 i64, maximum of bf16 with
// broadcasting) calls the device kernels of those names, and compiles and
// links with nvcc against the device runtime (which therefore has all four
// kernels); the linked runner describes the program without a device.
// REQUIRES: nvcc
// UNSUPPORTED: sanitizer

// RUN: rm -rf %t && mkdir -p %t
// RUN: %ckpt_opt %s --ckpt-plan-memory --emit=cuda -o %t/step
// RUN: FileCheck %s --input-file=%t/step/buckets.cu
// RUN: %nvcc %nvcc_step_flags -I%t/step -c %t/step/buckets.cu -o %t/step.o
// RUN: %nvcc %nvcc_flags %t/step.o %cuda_runner_src %nvcc_link_libs -o %t/run
// RUN: %t/run --describe | FileCheck %s --check-prefix=DESCRIBE

// CHECK: ctx.call(op, &cuda::kernels::neg, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: ctx.call(op, &cuda::kernels::abs, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: ctx.call(op, &cuda::kernels::minimum, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK: ctx.call(op, &cuda::kernels::maximum, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());

// DESCRIBE: step @buckets: 4 ops, 0 recomputed in 0 segments
// DESCRIBE: argument 0: input rel, 32 elements
func.func @buckets(%rel: tensor<4x8xi64> {ckpt.role = #ckpt.role<input>} loc("rel"(unknown)),
                   %cap: tensor<i64> {ckpt.role = #ckpt.role<input>} loc("cap"(unknown)),
                   %x: tensor<4x8xbf16> {ckpt.role = #ckpt.role<input>} loc("x"(unknown)),
                   %z: tensor<8xbf16> {ckpt.role = #ckpt.role<input>} loc("z"(unknown)))
    -> (tensor<4x8xi64>, tensor<4x8xbf16>) {
  %0 = ckpt.neg fwd %rel : tensor<4x8xi64>
  %1 = ckpt.abs fwd %0 : tensor<4x8xi64>
  %2 = ckpt.minimum fwd %1, %cap : tensor<4x8xi64>, tensor<i64> -> tensor<4x8xi64>
  %3 = ckpt.maximum fwd %x, %z : tensor<4x8xbf16>, tensor<8xbf16> -> tensor<4x8xbf16>
  return %2, %3 : tensor<4x8xi64>, tensor<4x8xbf16>
}
