// CI without a GPU: a CUDA step with attention and attention_grad with a
// keep-mask and a bias passes the mask to the device kernels as the 4th / 7th
// operand, and compiles and links with nvcc.
// REQUIRES: nvcc
// UNSUPPORTED: sanitizer

// RUN: rm -rf %t && mkdir -p %t
// RUN: %ckpt_opt %s --ckpt-plan-memory --emit=cuda -o %t/step
// RUN: FileCheck %s --input-file=%t/step/attn.cu
// RUN: %nvcc %nvcc_flags -I%t/step %t/step/attn.cu %cuda_runner_src \
// RUN:   %nvcc_link_libs -o %t/run
// RUN: %t/run --describe | FileCheck %s --check-prefix=DESCRIBE

// CHECK: ctx.call(op, &cuda::kernels::attention, TensorList{operands, 4}, TensorList{results, 2},
// CHECK: ctx.call(op, &cuda::kernels::attention, TensorList{operands, 4}, TensorList{results, 2},
// CHECK: ctx.call(op, &cuda::kernels::attention_grad, TensorList{operands, 7}, TensorList{results, 3},

// DESCRIBE: step @attn: 3 ops, 0 recomputed in 0 segments
func.func @attn(%q: tensor<2x2x4x8xbf16> {ckpt.role = #ckpt.role<input>} loc("q"(unknown)),
                %k: tensor<2x2x6x8xbf16> {ckpt.role = #ckpt.role<input>} loc("k"(unknown)),
                %v: tensor<2x2x6x8xbf16> {ckpt.role = #ckpt.role<input>} loc("v"(unknown)),
                %keep: tensor<2x1x1x6xi1> {ckpt.role = #ckpt.role<input>} loc("keep"(unknown)),
                %bias: tensor<4x6xbf16> {ckpt.role = #ckpt.role<input>} loc("bias"(unknown)),
                %do: tensor<2x2x4x8xbf16> {ckpt.role = #ckpt.role<input>} loc("do"(unknown)))
    -> (tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>, tensor<2x2x6x8xbf16>, tensor<2x2x6x8xbf16>) {
  %o, %lse = ckpt.attention fwd %q, %k, %v, %keep {scale = 0.25 : f64} : (tensor<2x2x4x8xbf16>, tensor<2x2x6x8xbf16>, tensor<2x2x6x8xbf16>, tensor<2x1x1x6xi1>) -> (tensor<2x2x4x8xbf16>, tensor<2x2x4xf32>)
  %o1, %lse1 = ckpt.attention fwd %q, %k, %v, %bias {causal, scale = 0.25 : f64} : (tensor<2x2x4x8xbf16>, tensor<2x2x6x8xbf16>, tensor<2x2x6x8xbf16>, tensor<4x6xbf16>) -> (tensor<2x2x4x8xbf16>, tensor<2x2x4xf32>)
  %dq, %dk, %dv = ckpt.attention_grad bwd %do, %q, %k, %v, %o, %lse, %keep {scale = 0.25 : f64} : (tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>, tensor<2x2x6x8xbf16>, tensor<2x2x6x8xbf16>, tensor<2x2x4x8xbf16>, tensor<2x2x4xf32>, tensor<2x1x1x6xi1>) -> (tensor<2x2x4x8xbf16>, tensor<2x2x6x8xbf16>, tensor<2x2x6x8xbf16>)
  return %o, %o1, %dq, %dk, %dv : tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>, tensor<2x2x4x8xbf16>, tensor<2x2x6x8xbf16>, tensor<2x2x6x8xbf16>
}
