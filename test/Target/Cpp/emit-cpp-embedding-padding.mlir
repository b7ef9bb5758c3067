// embedding_grad with padding_idx in a generated step: the attribute reaches
// the host kernel as an integer attribute next to the phase; without it the
// kernel gets the phase only. The code compiles against the runtime.

// RUN: rm -rf %t && %ckpt_opt %s --ckpt-plan-memory --emit=cpp -o %t
// RUN: FileCheck %s --input-file=%t/emb.cpp
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I%ckpt_runtime_include -I%t %t/emb.cpp

// CHECK: // [0] %0 = ckpt.embedding_grad bwd %arg0, %arg1 {{{.*}}padding_idx = 3 : i64}
// CHECK: static const Attr attrs[] = {intAttr("padding_idx", 3),
// CHECK: ctx.call(op, &kernels::embedding_grad, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 2}, Tensor());
// CHECK: // [1] %1 = ckpt.embedding_grad bwd %arg0, %arg1
// CHECK-NOT: padding_idx
// CHECK: ctx.call(op, &kernels::embedding_grad, TensorList{operands, 2}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
func.func @emb(%dy: tensor<2x4x8xf32> {ckpt.role = #ckpt.role<input>} loc("dy"(unknown)),
               %ids: tensor<2x4xi64> {ckpt.role = #ckpt.role<input>} loc("ids"(unknown)))
    -> (tensor<10x8xf32>, tensor<10x8xf32>) {
  %0 = ckpt.embedding_grad bwd %dy, %ids {padding_idx = 3 : i64} : (tensor<2x4x8xf32>, tensor<2x4xi64>) -> tensor<10x8xf32>
  %1 = ckpt.embedding_grad bwd %dy, %ids : (tensor<2x4x8xf32>, tensor<2x4xi64>) -> tensor<10x8xf32>
  return %0, %1 : tensor<10x8xf32>, tensor<10x8xf32>
}
