// A causal mask (iota, compare) used in the forward and again in the
// backward pass is recomputed like any op instead of being kept: none of the
// mask ops has a gradient, iota needs no operand (like ckpt.fill), and
// compare needs only the 512-byte positions. Total FLOPs 49280: iota 2 x 64,
// compare 4096, select 2 x 4096, exp 4096, sigmoid 4 x 4096, sigmoid_grad
// 3 x 4096, mul 4096.
// RUN: ckpt-opt %s "--ckpt-place-checkpoints=strategy=optimal budget=0.97x objective=flops explain=true" 2>&1 | FileCheck %s --check-prefix=KEEP-POS
// RUN: ckpt-opt %s "--ckpt-place-checkpoints=strategy=optimal budget=0.96x objective=flops explain=true" 2>&1 | FileCheck %s --check-prefix=NOTHING-KEPT

// Without recomputation the peak is at the backward mul: the arguments
// (32768), four f32 tensors (4 x 16384), the 4096-byte mask and the 4-byte
// fill = 102404. At 0.97x (99331) dropping the mask and keeping the
// positions is cheapest: 102404 - 4096 + 512 = 98820, overhead 4096 / 49280.
// KEEP-POS: remark: checkpoint plan: strategy=optimal peak=98820 (no-recompute 102404) budget=99331 recomputed-ops=1 overhead=0.0831 (flops)
// KEEP-POS-LABEL: func.func @mask_recomputed(
// KEEP-POS:      %[[POS:[^ ]+]] = ckpt.iota fwd start(0 : i64) step(1 : i64) : tensor<64xi64>
// KEEP-POS:      %[[ROW:[^ ]+]] = ckpt.reshape fwd %[[POS]]
// KEEP-POS:      ckpt.mul bwd
// KEEP-POS-NEXT: %[[M2:[^ ]+]] = ckpt.compare fwd le %[[POS]], %[[ROW]] {ckpt.recompute}
// KEEP-POS-NEXT: ckpt.select bwd %[[M2]],

// At 0.96x (98307) the positions and the fill go too: iota is recomputed
// from nothing, overhead (128 + 4096) / 49280.
// NOTHING-KEPT: remark: checkpoint plan: strategy=optimal peak=98304 (no-recompute 102404) budget=98307 recomputed-ops=3 overhead=0.0857 (flops)
// NOTHING-KEPT-LABEL: func.func @mask_recomputed(
// NOTHING-KEPT:      ckpt.mul bwd
// NOTHING-KEPT-NEXT: %[[P2:[^ ]+]] = ckpt.iota fwd start(0 : i64) step(1 : i64) {ckpt.recompute} : tensor<64xi64>
// NOTHING-KEPT-NEXT: %[[R2:[^ ]+]] = ckpt.reshape fwd %[[P2]]
// NOTHING-KEPT-NEXT: %[[M2:[^ ]+]] = ckpt.compare fwd le %[[P2]], %[[R2]] {ckpt.recompute}
// NOTHING-KEPT-NEXT: %[[C2:[^ ]+]] = ckpt.fill fwd 0.000000e+00 {ckpt.recompute}
// NOTHING-KEPT-NEXT: ckpt.select bwd %[[M2]], %{{[^,]+}}, %[[C2]]
func.func @mask_recomputed(%x: tensor<64x64xf32>, %g: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %pos = ckpt.iota fwd start(0) step(1) : tensor<64xi64>
  %row = ckpt.reshape fwd %pos : tensor<64xi64> -> tensor<64x1xi64>
  %m = ckpt.compare fwd le %pos, %row : tensor<64xi64>, tensor<64x1xi64> -> tensor<64x64xi1>
  %c = ckpt.fill fwd 0.0 : tensor<f32>
  %y = ckpt.select fwd %m, %x, %c : tensor<64x64xi1>, tensor<64x64xf32>, tensor<f32> -> tensor<64x64xf32>
  %e = ckpt.exp fwd %y : tensor<64x64xf32>
  %s = ckpt.sigmoid fwd %e : tensor<64x64xf32>
  %d1 = ckpt.sigmoid_grad bwd %g, %s : tensor<64x64xf32>
  %d2 = ckpt.mul bwd %d1, %e : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %dx = ckpt.select bwd %m, %d2, %c : tensor<64x64xi1>, tensor<64x64xf32>, tensor<f32> -> tensor<64x64xf32>
  return %s, %dx : tensor<64x64xf32>, tensor<64x64xf32>
}
