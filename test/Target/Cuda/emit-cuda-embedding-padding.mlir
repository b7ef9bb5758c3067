// CI without a GPU: a CUDA step with embedding_grad and padding_idx passes
// the attribute to the device kernel, and compiles and links with nvcc.
// REQUIRES: nvcc
// UNSUPPORTED: sanitizer

// RUN: rm -rf %t && mkdir -p %t
// RUN: %ckpt_opt %s --ckpt-plan-memory --emit=cuda -o %t/step
// RUN: FileCheck %s --input-file=%t/step/emb.cu
// RUN: %nvcc %nvcc_step_flags -I%t/step -c %t/step/emb.cu -o %t/step.o
// RUN: %nvcc %nvcc_flags %t/step.o %cuda_runner_src %nvcc_link_libs -o %t/run
// RUN: %t/run --describe | FileCheck %s --check-prefix=DESCRIBE

// CHECK: static const Attr attrs[] = {intAttr("padding_idx", 3),
// CHECK: ctx.call(op, &cuda::kernels::embedding_grad, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 2}, Tensor());

// DESCRIBE: step @emb: 1 ops, 0 recomputed in 0 segments
func.func @emb(%dy: tensor<2x4x8xf32> {ckpt.role = #ckpt.role<input>} loc("dy"(unknown)),
               %ids: tensor<2x4xi64> {ckpt.role = #ckpt.role<input>} loc("ids"(unknown)))
    -> tensor<10x8xf32> {
  %0 = ckpt.embedding_grad bwd %dy, %ids {padding_idx = 3 : i64} : (tensor<2x4x8xf32>, tensor<2x4xi64>) -> tensor<10x8xf32>
  return %0 : tensor<10x8xf32>
}
