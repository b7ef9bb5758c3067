// attention and attention_grad with the optional mask in a generated step:
// the mask reaches the host kernel as the 4th (forward) / 7th (backward)
// operand, an i1 keep-mask or a bias of the query's type; without it the
// slot is an absent tensor, so the kernels always see 4 / 7 operands. The
// code compiles against the runtime.

// RUN: rm -rf %t && %ckpt_opt %s --ckpt-plan-memory --emit=cpp -o %t
// RUN: FileCheck %s --input-file=%t/attn.cpp
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I%ckpt_runtime_include -I%t %t/attn.cpp

// CHECK-LABEL: ckpt.attention fwd %arg0, %arg1, %arg2, %arg3
// CHECK: DType::I1, {2, 1, 1, 6})};
// CHECK: ctx.call(op, &kernels::attention, TensorList{operands, 4}, TensorList{results, 2},
// CHECK-LABEL: ckpt.attention fwd %arg0, %arg1, %arg2, %arg4
// CHECK: DType::F32, {4, 6})};
// CHECK: ctx.call(op, &kernels::attention, TensorList{operands, 4}, TensorList{results, 2},
// CHECK-LABEL: ckpt.attention fwd %arg0, %arg1, %arg2 {
// CHECK: Tensor()};
// CHECK: ctx.call(op, &kernels::attention, TensorList{operands, 4}, TensorList{results, 2},
// CHECK-LABEL: ckpt.attention_grad bwd
// CHECK: DType::I1, {2, 1, 1, 6})};
// CHECK: ctx.call(op, &kernels::attention_grad, TensorList{operands, 7}, TensorList{results, 3},
func.func @attn(%q: tensor<2x2x4x8xf32> {ckpt.role = #ckpt.role<input>} loc("q"(unknown)),
                %k: tensor<2x2x6x8xf32> {ckpt.role = #ckpt.role<input>} loc("k"(unknown)),
                %v: tensor<2x2x6x8xf32> {ckpt.role = #ckpt.role<input>} loc("v"(unknown)),
                %keep: tensor<2x1x1x6xi1> {ckpt.role = #ckpt.role<input>} loc("keep"(unknown)),
                %bias: tensor<4x6xf32> {ckpt.role = #ckpt.role<input>} loc("bias"(unknown)),
                %do: tensor<2x2x4x8xf32> {ckpt.role = #ckpt.role<input>} loc("do"(unknown)))
    -> (tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>) {
  %o, %lse = ckpt.attention fwd %q, %k, %v, %keep {scale = 0.25 : f64} : (tensor<2x2x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>, tensor<2x1x1x6xi1>) -> (tensor<2x2x4x8xf32>, tensor<2x2x4xf32>)
  %o1, %lse1 = ckpt.attention fwd %q, %k, %v, %bias {causal, scale = 0.25 : f64} : (tensor<2x2x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>, tensor<4x6xf32>) -> (tensor<2x2x4x8xf32>, tensor<2x2x4xf32>)
  %o2, %lse2 = ckpt.attention fwd %q, %k, %v {scale = 0.25 : f64} : (tensor<2x2x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>) -> (tensor<2x2x4x8xf32>, tensor<2x2x4xf32>)
  %dq, %dk, %dv = ckpt.attention_grad bwd %do, %q, %k, %v, %o, %lse, %keep {scale = 0.25 : f64} : (tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4xf32>, tensor<2x1x1x6xi1>) -> (tensor<2x2x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>)
  return %o, %o1, %o2, %dq, %dk, %dv : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>
}
