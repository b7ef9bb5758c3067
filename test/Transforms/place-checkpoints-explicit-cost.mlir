// Explicit costs (ckpt.opaque compute_cost) are the node costs of checkpoint
// placement under every objective; mixing ops with and without one is an
// error, since the units would not compare.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics --ckpt-place-checkpoints="strategy=none explain=true summary=false"
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics --ckpt-place-checkpoints="strategy=none explain=true objective=flops summary=false"

// A chain of explicit-cost ops: strategy=none keeps every value (peak 1+2+4).
// expected-remark @+1 {{checkpoint plan: strategy=none peak=7 (no-recompute 7) budget=none recomputed-ops=0 overhead=0.0000}}
func.func @explicit(%x: tensor<1xi1>) -> tensor<4xi1> {
  %0 = ckpt.opaque fwd "a"(%x) {compute_cost = 5 : i64, flops = 0 : i64} : (tensor<1xi1>) -> tensor<2xi1>
  %1 = ckpt.opaque fwd "b"(%0) {compute_cost = 0 : i64, flops = 0 : i64} : (tensor<2xi1>) -> tensor<4xi1>
  return %1 : tensor<4xi1>
}

// -----

func.func @mixed(%x: tensor<1xi1>) -> tensor<4xi1> {
  // expected-note @+1 {{this op has an explicit compute_cost}}
  %0 = ckpt.opaque fwd "a"(%x) {compute_cost = 5 : i64, flops = 0 : i64} : (tensor<1xi1>) -> tensor<2xi1>
  // expected-error @+1 {{'ckpt.opaque' op has no explicit compute_cost, but other ops of the function have one; checkpoint placement needs one cost unit for all ops}}
  %1 = ckpt.opaque fwd "b"(%0) {flops = 3 : i64} : (tensor<2xi1>) -> tensor<4xi1>
  return %1 : tensor<4xi1>
}
