// ckpt-pareto in each budget scope on a step whose parameters (512 bytes),
// input (16) and parameter gradients (512) dwarf its activations (i1
// tensors: one byte per element; the graph of place-checkpoints-scope.mlir).
// In `activations`, budgets, peaks and the floor count only activations,
// temporaries and workspace: the no-recompute peak is a1..a5 160 + loss 4 +
// g5 8 = 172 bytes and the look-back floor 72 bytes, so the frontier spans
// 172 -> 72 with the middle budget 172 - (172 - 72) / 2 = 122 (0.709x). In
// `step`, the same frontier is squeezed between 1052 and the floor 1048:
// only the no-recompute plan fits.
// RUN: ckpt-opt %s --ckpt-pareto="points=3 budget-scope=activations objective=flops output=%t.json" -o /dev/null | FileCheck %s --check-prefix=ACT
// RUN: FileCheck %s --check-prefix=ACT-JSON < %t.json
// RUN: ckpt-opt %s --ckpt-pareto="points=3 objective=flops output=%t.csv" -o /dev/null | FileCheck %s --check-prefix=STEP
// RUN: FileCheck %s --check-prefix=STEP-CSV < %t.csv

// ACT-LABEL: == ckpt pareto: @deep_chain_large_gradients (budget scope activations)
// ACT-NEXT: no-recompute peak 172 B, memory floor 72 B
// ACT: 172 B        1.000x    172 B        0.00%
// ACT-NEXT: 122 B        0.709x    {{1[01][0-9]}} B
// ACT-NEXT: 72 B         0.419x    72 B
// ACT-JSON: "budget_scope": "activations"
// ACT-JSON: "no_recompute_peak_bytes": 172, "floor_bytes": 72
// ACT-JSON-NEXT: "budget_bytes": 172, "budget_fraction": 1.000000, "plan_peak_bytes": 172

// STEP-LABEL: == ckpt pareto: @deep_chain_large_gradients (budget scope step)
// 1052 bytes; the floor 1048 bytes = 1.02 KiB.
// STEP-NEXT: no-recompute peak 1.03 KiB, memory floor 1.02 KiB
// STEP: 1.03 KiB     1.000x    1.03 KiB     0.00%
// STEP-NEXT: {{.*}} no plan
// STEP-NEXT: 1.02 KiB     0.996x    -            -          infeasible  no plan
// The same as CSV: a row per budget; where no plan fits, no peak, overhead
// or engine, and "inf" for the bound (none can).
// STEP-CSV: function,budget_bytes,budget_fraction,plan_peak_bytes,overhead,lower_bound_overhead,engine
// STEP-CSV-NEXT: deep_chain_large_gradients,1052,1.000000,1052,0.000000e+00,0.000000e+00,{{[a-z-]+$}}
// STEP-CSV-NEXT: deep_chain_large_gradients,1050,0.998099,,,inf,{{$}}
// STEP-CSV-NEXT: deep_chain_large_gradients,1048,0.996198,,,inf,{{$}}
// STEP-CSV-NOT: {{.}}

func.func @deep_chain_large_gradients(
    %w1: tensor<256xi1> {ckpt.role = #ckpt.role<param>},
    %w2: tensor<256xi1> {ckpt.role = #ckpt.role<param>},
    %x: tensor<16xi1> {ckpt.role = #ckpt.role<input>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>},
        tensor<256xi1> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 0 : i64},
        tensor<256xi1> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 1 : i64})
    attributes {ckpt.step} {
  %a1 = ckpt.opaque fwd "a1"(%x, %w1) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<16xi1>, tensor<256xi1>) -> tensor<32xi1>
  %a2 = ckpt.opaque fwd "a2"(%a1) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<32xi1>) -> tensor<32xi1>
  %a3 = ckpt.opaque fwd "a3"(%a2) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<32xi1>) -> tensor<32xi1>
  %a4 = ckpt.opaque fwd "a4"(%a3) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<32xi1>) -> tensor<32xi1>
  %a5 = ckpt.opaque fwd "a5"(%a4, %w2) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<32xi1>, tensor<256xi1>) -> tensor<32xi1>
  %loss = ckpt.opaque fwd "loss"(%a5) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<32xi1>) -> tensor<f32>
  %g5 = ckpt.opaque bwd "g5"(%a5) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<32xi1>) -> tensor<8xi1>
  %gw2 = ckpt.opaque bwd "gw2"(%g5, %a4) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<8xi1>, tensor<32xi1>) -> tensor<256xi1>
  %g4 = ckpt.opaque bwd "g4"(%g5, %w2) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<8xi1>, tensor<256xi1>) -> tensor<8xi1>
  %g3 = ckpt.opaque bwd "g3"(%g4, %a3) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<8xi1>, tensor<32xi1>) -> tensor<8xi1>
  %g2 = ckpt.opaque bwd "g2"(%g3, %a2) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<8xi1>, tensor<32xi1>) -> tensor<8xi1>
  %g1 = ckpt.opaque bwd "g1"(%g2, %a1) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<8xi1>, tensor<32xi1>) -> tensor<8xi1>
  %gw1 = ckpt.opaque bwd "gw1"(%g1, %x) {compute_cost = 1 : i64, flops = 0 : i64} : (tensor<8xi1>, tensor<16xi1>) -> tensor<256xi1>
  return %loss, %gw1, %gw2 : tensor<f32>, tensor<256xi1>, tensor<256xi1>
}
