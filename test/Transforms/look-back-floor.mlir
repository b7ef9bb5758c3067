// The look-back floor: `x` reads `a` and `b`, both computed from the 10-byte
// `big`. While `x` runs, 3 bytes are live, and no single op needs more than
// 11 (`big` with `a` or `b`), but whichever of `a` and `b` a plan computes
// last, the other one and `big` are live while it runs: 12 bytes. The error
// names `x` (whose inputs the bound looks back from), and 12 bytes is a plan.
// RUN: not ckpt-opt %s --ckpt-place-checkpoints="strategy=generic budget=11B" 2>&1 | FileCheck %s --check-prefix=FLOOR
// RUN: not ckpt-opt %s --ckpt-place-checkpoints="strategy=optimal budget=11B" 2>&1 | FileCheck %s --check-prefix=FLOOR
// RUN: ckpt-opt %s --ckpt-place-checkpoints="strategy=optimal budget=12B explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FITS

// FLOOR: error: ckpt-place-checkpoints: strategy '{{generic|optimal}}' found no plan within the budget of 11 B (11 bytes)
// FLOOR: look-back-floor.mlir:[[@LINE+8]]:{{[0-9]+}}: note: no plan can use less than 12 B (12 bytes): this op's inputs are all in memory while it runs, and while whichever of them a plan computes last ran, so were the others and that one's own inputs (looking back up to 3 such steps)

// FITS: remark: checkpoint plan: strategy=optimal peak=12 (no-recompute 12) budget=12 recomputed-ops=0

func.func @look_back() -> (tensor<1xi1> {ckpt.role = #ckpt.role<output>}) {
  %big = ckpt.opaque fwd "big"() {compute_cost = 1 : i64, flops = 0 : i64} : () -> tensor<10xi1>
  %a = ckpt.opaque fwd "a"(%big) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<10xi1>) -> tensor<1xi1>
  %b = ckpt.opaque fwd "b"(%big) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<10xi1>) -> tensor<1xi1>
  %x = ckpt.opaque fwd "x"(%a, %b) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<1xi1>, tensor<1xi1>) -> tensor<1xi1>
  return %x : tensor<1xi1>
}
