// Valid training steps: roles on every argument and result, gradients linked
// to their parameters, data flowing forward -> backward -> optimizer.
// RUN: ckpt-opt %s -split-input-file | FileCheck %s
// RUN: ckpt-opt %s -split-input-file | ckpt-opt -split-input-file | FileCheck %s
// RUN: ckpt-opt %s -split-input-file -mlir-print-op-generic | ckpt-opt -split-input-file | FileCheck %s

// A two-layer MLP step: inputs, parameters and a seed; loss and one gradient
// per parameter, each naming its parameter by argument index.
// CHECK-LABEL: func.func @mlp_step(
//  CHECK-SAME:   %[[X:[^:]+]]: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>}, %[[T:[^:]+]]: tensor<4xi64> {ckpt.role = #ckpt.role<input>},
//  CHECK-SAME:   %[[W1:[^:]+]]: tensor<16x8xf32> {ckpt.role = #ckpt.role<param>}, %[[B1:[^:]+]]: tensor<16xf32> {ckpt.role = #ckpt.role<param>},
//  CHECK-SAME:   %[[W2:[^:]+]]: tensor<10x16xf32> {ckpt.role = #ckpt.role<param>}, %[[B2:[^:]+]]: tensor<10xf32> {ckpt.role = #ckpt.role<param>},
//  CHECK-SAME:   %[[SEED:[^:]+]]: tensor<f32> {ckpt.role = #ckpt.role<seed>})
//  CHECK-SAME:   -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<16x8xf32> {ckpt.grad_of = 2 : i64, ckpt.role = #ckpt.role<grad>},
//  CHECK-SAME:   tensor<16xf32> {ckpt.grad_of = 3 : i64, ckpt.role = #ckpt.role<grad>}, tensor<10x16xf32> {ckpt.grad_of = 4 : i64, ckpt.role = #ckpt.role<grad>},
//  CHECK-SAME:   tensor<10xf32> {ckpt.grad_of = 5 : i64, ckpt.role = #ckpt.role<grad>}) attributes {ckpt.step} {
//       CHECK:   %[[H:.*]] = ckpt.linear fwd %[[X]], %[[W1]], %[[B1]] : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
//  CHECK-NEXT:   %[[A:.*]] = ckpt.relu fwd %[[H]] : tensor<4x16xf32>
//  CHECK-NEXT:   %[[Z:.*]] = ckpt.linear fwd %[[A]], %[[W2]], %[[B2]] : (tensor<4x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<4x10xf32>
//  CHECK-NEXT:   %[[LOSS:.*]], %[[LSE:.*]] = ckpt.cross_entropy fwd mean %[[Z]], %[[T]] : (tensor<4x10xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<4xf32>)
//  CHECK-NEXT:   %[[DZ:.*]] = ckpt.cross_entropy_grad bwd mean %[[SEED]], %[[Z]], %[[T]], %[[LSE]] : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x10xf32>
//  CHECK-NEXT:   %[[DW2:.*]] = ckpt.matmul bwd %[[DZ]], %[[A]] {transpose_lhs} : tensor<4x10xf32>, tensor<4x16xf32> -> tensor<10x16xf32>
//  CHECK-NEXT:   %[[DB2:.*]] = ckpt.reduce_sum bwd %[[DZ]] axes [0] : tensor<4x10xf32> -> tensor<10xf32>
//  CHECK-NEXT:   %[[DA:.*]] = ckpt.matmul bwd %[[DZ]], %[[W2]] : tensor<4x10xf32>, tensor<10x16xf32> -> tensor<4x16xf32>
//  CHECK-NEXT:   %[[DH:.*]] = ckpt.relu_grad bwd %[[DA]], %[[A]] : tensor<4x16xf32>
//  CHECK-NEXT:   %[[DW1:.*]] = ckpt.matmul bwd %[[DH]], %[[X]] {transpose_lhs} : tensor<4x16xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
//  CHECK-NEXT:   %[[DB1:.*]] = ckpt.reduce_sum bwd %[[DH]] axes [0] : tensor<4x16xf32> -> tensor<16xf32>
//  CHECK-NEXT:   return %[[LOSS]], %[[DW1]], %[[DB1]], %[[DW2]], %[[DB2]] : tensor<f32>, tensor<16x8xf32>, tensor<16xf32>, tensor<10x16xf32>, tensor<10xf32>
func.func @mlp_step(%x: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>}, %t: tensor<4xi64> {ckpt.role = #ckpt.role<input>},
                    %w1: tensor<16x8xf32> {ckpt.role = #ckpt.role<param>}, %b1: tensor<16xf32> {ckpt.role = #ckpt.role<param>},
                    %w2: tensor<10x16xf32> {ckpt.role = #ckpt.role<param>}, %b2: tensor<10xf32> {ckpt.role = #ckpt.role<param>},
                    %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>},
        tensor<16x8xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 2},
        tensor<16xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 3},
        tensor<10x16xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 4},
        tensor<10xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 5})
    attributes {ckpt.step} {
  %h = ckpt.linear fwd %x, %w1, %b1 : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %a = ckpt.relu fwd %h : tensor<4x16xf32>
  %z = ckpt.linear fwd %a, %w2, %b2 : (tensor<4x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %loss, %lse = ckpt.cross_entropy fwd mean %z, %t : (tensor<4x10xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<4xf32>)
  %dz = ckpt.cross_entropy_grad bwd mean %seed, %z, %t, %lse : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x10xf32>
  %dw2 = ckpt.matmul bwd %dz, %a {transpose_lhs} : tensor<4x10xf32>, tensor<4x16xf32> -> tensor<10x16xf32>
  %db2 = ckpt.reduce_sum bwd %dz axes [0] : tensor<4x10xf32> -> tensor<10xf32>
  %da = ckpt.matmul bwd %dz, %w2 : tensor<4x10xf32>, tensor<10x16xf32> -> tensor<4x16xf32>
  %dh = ckpt.relu_grad bwd %da, %a : tensor<4x16xf32>
  %dw1 = ckpt.matmul bwd %dh, %x {transpose_lhs} : tensor<4x16xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
  %db1 = ckpt.reduce_sum bwd %dh axes [0] : tensor<4x16xf32> -> tensor<16xf32>
  return %loss, %dw1, %db1, %dw2, %db2 : tensor<f32>, tensor<16x8xf32>, tensor<16xf32>, tensor<10x16xf32>, tensor<10xf32>
}

// -----

// A step with an optimizer phase: optimizer ops read parameters, gradients,
// state arguments and forward values; updated parameters and moments are
// state results, an extra value is an output, a bf16 loss is a float loss.
// CHECK-LABEL: func.func @adamw_step(
//  CHECK-SAME:   %[[X:[^:]+]]: tensor<4x8xbf16> {ckpt.role = #ckpt.role<input>}, %[[W:[^:]+]]: tensor<8xbf16> {ckpt.role = #ckpt.role<param>},
//  CHECK-SAME:   %[[M:[^:]+]]: tensor<8xf32> {ckpt.role = #ckpt.role<state>}, %[[V:[^:]+]]: tensor<8xf32> {ckpt.role = #ckpt.role<state>},
//  CHECK-SAME:   %[[SEED:[^:]+]]: tensor<4xbf16> {ckpt.role = #ckpt.role<seed>})
//  CHECK-SAME:   -> (tensor<bf16> {ckpt.role = #ckpt.role<loss>}, tensor<8xbf16> {ckpt.role = #ckpt.role<state>}, tensor<8xf32> {ckpt.role = #ckpt.role<state>},
//  CHECK-SAME:   tensor<8xf32> {ckpt.role = #ckpt.role<state>}, tensor<4x8xbf16> {ckpt.role = #ckpt.role<output>}) attributes {ckpt.step} {
//       CHECK:   %[[Y:.*]] = ckpt.mul fwd %[[X]], %[[W]] : tensor<4x8xbf16>, tensor<8xbf16> -> tensor<4x8xbf16>
//  CHECK-NEXT:   %[[S:.*]] = ckpt.reduce_sum fwd %[[Y]] axes [1] : tensor<4x8xbf16> -> tensor<4xbf16>
//  CHECK-NEXT:   %[[L:.*]] = ckpt.reduce_mean fwd %[[S]] axes [0] : tensor<4xbf16> -> tensor<bf16>
//  CHECK-NEXT:   %[[DS:.*]] = ckpt.broadcast bwd %[[SEED]] : tensor<4xbf16> -> tensor<8x4xbf16>
//  CHECK-NEXT:   %[[DW:.*]] = ckpt.matmul bwd %[[DS]], %[[X]] : tensor<8x4xbf16>, tensor<4x8xbf16> -> tensor<8x8xbf16>
//  CHECK-NEXT:   %[[G:.*]] = ckpt.reduce_sum bwd %[[DW]] axes [0] : tensor<8x8xbf16> -> tensor<8xbf16>
//  CHECK-NEXT:   %[[P:.*]], %[[M2:.*]], %[[V2:.*]] = ckpt.adamw_update opt %[[W]], %[[G]], %[[M]], %[[V]] {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 3 : i64, weight_decay = 1.000000e-02 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>)
//  CHECK-NEXT:   return %[[L]], %[[P]], %[[M2]], %[[V2]], %[[Y]] : tensor<bf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<4x8xbf16>
func.func @adamw_step(%x: tensor<4x8xbf16> {ckpt.role = #ckpt.role<input>}, %w: tensor<8xbf16> {ckpt.role = #ckpt.role<param>},
                      %m: tensor<8xf32> {ckpt.role = #ckpt.role<state>}, %v: tensor<8xf32> {ckpt.role = #ckpt.role<state>},
                      %seed: tensor<4xbf16> {ckpt.role = #ckpt.role<seed>})
    -> (tensor<bf16> {ckpt.role = #ckpt.role<loss>}, tensor<8xbf16> {ckpt.role = #ckpt.role<state>},
        tensor<8xf32> {ckpt.role = #ckpt.role<state>}, tensor<8xf32> {ckpt.role = #ckpt.role<state>},
        tensor<4x8xbf16> {ckpt.role = #ckpt.role<output>})
    attributes {ckpt.step} {
  %y = ckpt.mul fwd %x, %w : tensor<4x8xbf16>, tensor<8xbf16> -> tensor<4x8xbf16>
  %s = ckpt.reduce_sum fwd %y axes [1] : tensor<4x8xbf16> -> tensor<4xbf16>
  %l = ckpt.reduce_mean fwd %s axes [0] : tensor<4xbf16> -> tensor<bf16>
  %ds = ckpt.broadcast bwd %seed : tensor<4xbf16> -> tensor<8x4xbf16>
  %dw = ckpt.matmul bwd %ds, %x : tensor<8x4xbf16>, tensor<4x8xbf16> -> tensor<8x8xbf16>
  %g = ckpt.reduce_sum bwd %dw axes [0] : tensor<8x8xbf16> -> tensor<8xbf16>
  %p, %m2, %v2 = ckpt.adamw_update opt %w, %g, %m, %v {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 3 : i64, weight_decay = 1.000000e-02 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>)
  return %l, %p, %m2, %v2, %y : tensor<bf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<4x8xbf16>
}

// -----

// The smallest step: no arguments, one loss from an opaque forward op; an
// opaque kernel is a ckpt op with a phase.
// CHECK-LABEL: func.func @opaque_step() -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
//  CHECK-NEXT:   %[[L:.*]] = ckpt.opaque fwd "loss_kernel"() {flops = 1 : i64} : () -> tensor<f32>
//  CHECK-NEXT:   return %[[L]] : tensor<f32>
func.func @opaque_step() -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  %l = ckpt.opaque fwd "loss_kernel"() {flops = 1 : i64} : () -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// grad_of may be an index; a backward op may read the seed, and an optimizer
// op may read backward values and parameters (later phases use earlier ones).
// CHECK-LABEL: func.func @grad_of_index(
//  CHECK-SAME:   %[[W:[^:]+]]: tensor<4xf32> {ckpt.role = #ckpt.role<param>}, %[[SEED:[^:]+]]: tensor<f32> {ckpt.role = #ckpt.role<seed>})
//  CHECK-SAME:   -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.grad_of = 0 : index, ckpt.role = #ckpt.role<grad>}) attributes {ckpt.step} {
//       CHECK:   %[[L:.*]] = ckpt.reduce_sum fwd %[[W]] axes [0] : tensor<4xf32> -> tensor<f32>
//  CHECK-NEXT:   %[[G:.*]] = ckpt.broadcast bwd %[[SEED]] : tensor<f32> -> tensor<4xf32>
//  CHECK-NEXT:   %[[G2:.*]] = ckpt.mul opt %[[G]], %[[W]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
//  CHECK-NEXT:   return %[[L]], %[[G2]] : tensor<f32>, tensor<4xf32>
func.func @grad_of_index(%w: tensor<4xf32> {ckpt.role = #ckpt.role<param>}, %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 0 : index})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %w axes [0] : tensor<4xf32> -> tensor<f32>
  %g = ckpt.broadcast bwd %seed : tensor<f32> -> tensor<4xf32>
  %g2 = ckpt.mul opt %g, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %l, %g2 : tensor<f32>, tensor<4xf32>
}

// -----

// Outside a ckpt.step function the step rules do not apply: no roles, no
// loss, a forward op may use a backward value, and other dialects' ops and
// calls are allowed.
// CHECK-LABEL: func.func @not_a_step(
//  CHECK-SAME:   %[[X:[^:]+]]: tensor<4xf32>) -> tensor<4xf32> {
//       CHECK:   %[[A:.*]] = ckpt.relu bwd %[[X]] : tensor<4xf32>
//  CHECK-NEXT:   %[[B:.*]] = ckpt.relu fwd %[[A]] : tensor<4xf32>
//  CHECK-NEXT:   %[[C:.*]] = call @not_a_step(%[[B]]) : (tensor<4xf32>) -> tensor<4xf32>
//  CHECK-NEXT:   return %[[C]] : tensor<4xf32>
func.func @not_a_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ckpt.relu bwd %x : tensor<4xf32>
  %b = ckpt.relu fwd %a : tensor<4xf32>
  %c = func.call @not_a_step(%b) : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}
