// Generic rematerialization: a graph with no forward/backward split (every op
// forward, like the random layered benchmark graphs). `a` is read at once and
// again at the end; under 12 bytes it must be freed after `b` and recomputed
// before `e`. The generic engine, `optimal` (which runs it on graphs that are
// not training steps, and certifies tiny ones by enumeration) and the MILP
// find the same plan; the drop-set search (`greedy`) only recomputes values
// for backward readers and finds none. The pass re-checks every rewritten
// function with the liveness-based memory simulation, and --ckpt-report
// measures the result again.
// RUN: ckpt-opt %s --ckpt-place-checkpoints="strategy=generic budget=12B explain=true" 2>&1 | FileCheck %s --check-prefixes=GENERIC,IR
// RUN: ckpt-opt %s --ckpt-place-checkpoints="strategy=optimal budget=12B explain=true" 2>&1 | FileCheck %s --check-prefixes=OPTIMAL,IR
// RUN: ckpt-opt %s --ckpt-place-checkpoints="strategy=optimal exact-engines=false budget=12B explain=true" 2>&1 | FileCheck %s --check-prefixes=SCALABLE,IR
// RUN: ckpt-opt %s --ckpt-place-checkpoints="strategy=exact budget=12B explain=true" 2>&1 | FileCheck %s --check-prefixes=EXACT,IR
// RUN: not ckpt-opt %s --ckpt-place-checkpoints="strategy=greedy budget=12B" 2>&1 | FileCheck %s --check-prefix=GREEDY
// RUN: ckpt-opt %s --ckpt-place-checkpoints="strategy=generic budget=21B explain=true" 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: ckpt-opt %s --ckpt-place-checkpoints="strategy=generic budget=12B" | ckpt-opt --ckpt-report=json --emit=none | FileCheck %s --check-prefix=REPORT
// RUN: ckpt-opt %s --ckpt-place-checkpoints="strategy=generic budget=0.6x" | ckpt-opt --ckpt-report=json --emit=none | FileCheck %s --check-prefix=REPORT
// RUN: not ckpt-opt %s --ckpt-place-checkpoints="strategy=generic budget=11B" 2>&1 | FileCheck %s --check-prefix=FLOOR
// RUN: not ckpt-opt %s --ckpt-place-checkpoints="strategy=generic" 2>&1 | FileCheck %s --check-prefix=NOBUDGET

// GENERIC: remark: checkpoint plan: strategy=generic peak=12 (no-recompute 21) budget=12 recomputed-ops=1 overhead=0.0476 (time) engine=generic
// OPTIMAL: remark: checkpoint plan: strategy=optimal peak=12 (no-recompute 21) budget=12 recomputed-ops=1 overhead=0.0476 (time) engine=exhaustive status=optimal lower-bound-overhead=0.0476
// SCALABLE: remark: checkpoint plan: strategy=optimal peak=12 (no-recompute 21) budget=12 recomputed-ops=1 overhead=0.0476 (time) engine=generic status=feasible
// SCALABLE-NOT: exhaustive
// SCALABLE-NOT: milp
// EXACT: remark: checkpoint plan: strategy=exact peak=12 (no-recompute 21) budget=12 recomputed-ops=1 overhead=0.0476 (time) engine=optimal
// IR-LABEL: {{^}}module {
// IR-NEXT: func.func @layered()
// IR-NEXT: %[[A:.*]] = ckpt.opaque fwd "a"() {compute_cost = 1
// IR-NEXT: %[[B:.*]] = ckpt.opaque fwd "b"(%[[A]])
// IR-NEXT: %[[C:.*]] = ckpt.opaque fwd "c"(%[[B]])
// IR-NEXT: %[[D:.*]] = ckpt.opaque fwd "d"(%[[C]])
// IR-NEXT: %[[A2:.*]] = ckpt.opaque fwd "a"() {ckpt.recompute, compute_cost = 1
// IR-NEXT: %[[E:.*]] = ckpt.opaque fwd "e"(%[[A2]], %[[D]])
// IR-NEXT: return %[[E]]

// GREEDY: error: ckpt-place-checkpoints: strategy 'greedy' found no plan within the budget of 12 B (12 bytes)

// NONE: remark: checkpoint plan: strategy=generic peak=21 (no-recompute 21) budget=21 recomputed-ops=0 overhead=0.0000

// REPORT: "peak": {
// REPORT: "bytes": 12,

// FLOOR: error: ckpt-place-checkpoints: strategy 'generic' found no plan within the budget of 11 B (11 bytes)
// FLOOR: note: no plan can use less than 12 B (12 bytes)

// NOBUDGET: error: ckpt-place-checkpoints: strategy 'generic' needs a budget

func.func @layered() -> (tensor<1xi1> {ckpt.role = #ckpt.role<output>}) {
  %a = ckpt.opaque fwd "a"() {compute_cost = 1 : i64, flops = 0 : i64} : () -> tensor<10xi1>
  %b = ckpt.opaque fwd "b"(%a) {compute_cost = 5 : i64, flops = 0 : i64} : (tensor<10xi1>) -> tensor<1xi1>
  %c = ckpt.opaque fwd "c"(%b) {compute_cost = 5 : i64, flops = 0 : i64} : (tensor<1xi1>) -> tensor<10xi1>
  %d = ckpt.opaque fwd "d"(%c) {compute_cost = 5 : i64, flops = 0 : i64} : (tensor<10xi1>) -> tensor<1xi1>
  %e = ckpt.opaque fwd "e"(%a, %d) {compute_cost = 5 : i64, flops = 0 : i64} : (tensor<10xi1>, tensor<1xi1>) -> tensor<1xi1>
  return %e : tensor<1xi1>
}
