// The budget is resolved once, into IR: placement records `ckpt.budget`
// (bytes in the scope, the scope, the budget as given) when it resolves a
// `budget=` option, and without one reads the function's `ckpt.budget`,
// placing under its `target` when it has one (`ckpt-fit-arena` sets it);
// the report states it.
//
// The step (place-checkpoints-scope.mlir's): in budget-scope=activations
// the no-recompute peak is 172 bytes (a1..a5 160 + loss 4 + g5 8), so 0.5x
// is floor(86) = 86 bytes; the segment-chain plan peaks at 84.
//
// RUN: ckpt-opt %s --ckpt-place-checkpoints="strategy=chain budget=0.5x budget-scope=activations" --quiet -o %t.placed.mlir
// RUN: FileCheck %s --check-prefix=RECORDED < %t.placed.mlir
// RUN: ckpt-opt %t.placed.mlir --ckpt-report --emit=none | FileCheck %s --check-prefix=REPORT
// RUN: ckpt-opt %t.placed.mlir --ckpt-report=json --emit=none | FileCheck %s --check-prefix=REPORT-JSON
// RUN: sed -e 's/attributes {ckpt.step}/attributes {ckpt.budget = {bytes = 100 : i64, requested = "100B", scope = "activations", target = 86 : i64}, ckpt.step}/' %s > %t.target.mlir
// RUN: ckpt-opt %t.target.mlir --ckpt-place-checkpoints="strategy=chain explain" -o %t.target-placed.mlir 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: ckpt-opt %t.target-placed.mlir --ckpt-report --emit=none | FileCheck %s --check-prefix=TARGET-REPORT
// RUN: sed -e 's/target = 86/target = 50/' %t.target.mlir > %t.tight.mlir
// RUN: not ckpt-opt %t.tight.mlir --ckpt-place-checkpoints="strategy=chain" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIGHT
// RUN: ckpt-opt %t.target.mlir --ckpt-place-checkpoints="strategy=chain budget=1052B explain" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTION

// 0.5 x 172 = 86 bytes in the activations scope, recorded once.
// RECORDED-LABEL: func.func @deep_chain_large_gradients
// RECORDED-SAME: ckpt.budget = {bytes = 86 : i64, requested = "0.5x", scope = "activations"}

// REPORT: planned budget       0.5x = 86 B (86 bytes) in budget-scope=activations
// REPORT-JSON:      "budget": {
// REPORT-JSON-NEXT:   "bytes": 86,
// REPORT-JSON-NEXT:   "requested": "0.5x",
// REPORT-JSON-NEXT:   "scope": "activations"
// REPORT-JSON-NEXT: },

// No budget= option: the recorded budget of 100 bytes in its own scope
// (activations, though the option's default is step), placed under the
// target of 86 bytes: the same plan as 0.5x above.
// TARGET: budget 100B = 100 B, placed under a target of 86 B (budget-scope=activations); peak 84 B
// TARGET: remark: checkpoint plan: strategy=chain peak=84 (no-recompute 172) budget=86 {{.*}} scope=activations
// TARGET-REPORT: planned budget       100B = 100 B (100 bytes) in budget-scope=activations, target 86 B (86 bytes)

// A target below the look-back floor of 72 bytes has no plan; the error
// says that it is a target below the budget.
// TIGHT: error: ckpt-place-checkpoints: strategy 'chain' found no plan within the budget of 50 B (50 bytes) (the placement target below the budget of 100 B), given as budget=100B in budget-scope=activations

// A budget= option is resolved anew (in the option's scope) and replaces the
// recorded one: 1052 bytes is the whole step's no-recompute peak.
// OPTION: budget 1052B = 1.03 KiB (budget-scope=step)
// OPTION: remark: checkpoint plan: strategy=chain peak=1052 (no-recompute 1052) budget=1052 {{.*}} scope=step

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
