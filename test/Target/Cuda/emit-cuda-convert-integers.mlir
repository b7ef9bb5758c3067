// CI without a GPU: a CUDA step converting between i64, i1, bf16 and i32
// calls the device convert kernel for each, and compiles and links with nvcc
// against the device runtime (whose convert takes every element type).
// REQUIRES: nvcc
// UNSUPPORTED: sanitizer

// RUN: rm -rf %t && mkdir -p %t
// RUN: %ckpt_opt %s --ckpt-plan-memory --emit=cuda -o %t/step
// RUN: FileCheck %s --input-file=%t/step/conv.cu
// RUN: %nvcc %nvcc_step_flags -I%t/step -c %t/step/conv.cu -o %t/step.o
// RUN: %nvcc %nvcc_flags %t/step.o %cuda_runner_src %nvcc_link_libs -o %t/run
// RUN: %t/run --describe | FileCheck %s --check-prefix=DESCRIBE

// CHECK-COUNT-3: ctx.call(op, &cuda::kernels::convert, TensorList{operands, 1}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());

// DESCRIBE: step @conv: 3 ops, 0 recomputed in 0 segments
func.func @conv(%ids: tensor<4x8xi64> {ckpt.role = #ckpt.role<input>} loc("ids"(unknown)))
    -> tensor<4x8xi32> {
  %0 = ckpt.convert fwd %ids : tensor<4x8xi64> -> tensor<4x8xi1>
  %1 = ckpt.convert fwd %0 : tensor<4x8xi1> -> tensor<4x8xbf16>
  %2 = ckpt.convert fwd %1 : tensor<4x8xbf16> -> tensor<4x8xi32>
  return %2 : tensor<4x8xi32>
}
