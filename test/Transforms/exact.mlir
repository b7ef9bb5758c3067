// The exact engine (Checkmate's MILP with CBC) on a chain x -> a1 -> a2 -> a3
// -> loss whose backward pass reads a3, a2, a1 in reverse. Sizes: x (param)
// 1024 B + seed 4 B fixed; a1..a3, g3..g0 1024 B each; loss 4 B. Costs in
// FLOPs: exp, mul and sum 256 each, broadcast 0: base cost 1792.
//
// No recompute: the peak is while g2 is computed:
// 1028 + a1 + a2 + a3 + loss + g3 + g2 = 1028 + 3072 + 4 + 2048 = 6152.
// RUN: ckpt-opt %s "--ckpt-place-checkpoints=strategy=none explain=true objective=flops" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: strategy=none peak=6152 (no-recompute 6152)
//
// Budget 5128: drop a1 and recompute it once (256 FLOPs: 256/1792 = 0.1429);
// greedy finds the same.
// RUN: ckpt-opt %s "--ckpt-place-checkpoints=strategy=exact budget=5128B explain=true objective=flops" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT-5128
// EXACT-5128: strategy=exact peak=5128 (no-recompute 6152) budget=5128 recomputed-ops=1 overhead=0.1429 (flops) engine=optimal
// RUN: ckpt-opt %s "--ckpt-place-checkpoints=strategy=greedy budget=5128B explain=true objective=flops" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GREEDY-5128
// GREEDY-5128: strategy=greedy peak=5128 (no-recompute 6152) budget=5128 recomputed-ops=1 overhead=0.1429
//
// Budget 4104: only a3 may be kept next to g3 and
// g2 (1028 + a3 + loss + g3 + g2 = 4104), so a1 and a2 are recomputed before
// g1 and a1 once more before g0: 3 recomputations, 768/1792 = 0.4286. The
// greedy search, which recomputes each dropped value once and keeps it, has
// no plan at this budget; the exact engine recomputes a1 twice.
// RUN: ckpt-opt %s "--ckpt-place-checkpoints=strategy=exact budget=4104B explain=true objective=flops" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT-4104
// EXACT-4104: strategy=exact peak=4104 (no-recompute 6152) budget=4104 recomputed-ops=3 overhead=0.4286 (flops) engine=optimal
// RUN: not ckpt-opt %s "--ckpt-place-checkpoints=strategy=greedy budget=4104B objective=flops" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GREEDY-4104
// GREEDY-4104: error: ckpt-place-checkpoints: strategy 'greedy' found no plan within the budget
//
// The rewritten function: a1 computed three times, a2 twice, in that order.
// RUN: ckpt-opt %s "--ckpt-place-checkpoints=strategy=exact budget=4104B objective=flops" | FileCheck %s
// CHECK-LABEL: func.func @chain
// CHECK: %[[A1:.*]] = ckpt.exp fwd %arg0 : tensor<256xf32>
// CHECK: %[[A2:.*]] = ckpt.exp fwd %[[A1]] : tensor<256xf32>
// CHECK: %[[A3:.*]] = ckpt.exp fwd %[[A2]] : tensor<256xf32>
// CHECK: %[[G2:.*]] = ckpt.mul bwd %{{.*}}, %[[A3]]
// CHECK: %[[R1:.*]] = ckpt.exp fwd %arg0 {ckpt.recompute}
// CHECK: %[[R2:.*]] = ckpt.exp fwd %[[R1]] {ckpt.recompute}
// CHECK: %[[G1:.*]] = ckpt.mul bwd %[[G2]], %[[R2]]
// CHECK: %[[R1B:.*]] = ckpt.exp fwd %arg0 {ckpt.recompute}
// CHECK: ckpt.mul bwd %[[G1]], %[[R1B]]
//
// Below 4104 nothing fits; the error gives the floor every plan needs:
// 1028 + g3 + a3 + g2 = 4100 while g2 is computed (the 4-byte loss does not
// count: a recomputable output could in principle be recomputed at the end).
// RUN: not ckpt-opt %s "--ckpt-place-checkpoints=strategy=exact budget=4000B objective=flops" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INFEASIBLE
// INFEASIBLE: error: ckpt-place-checkpoints: strategy 'exact' found no plan within the budget of 3.91 KiB (4000 bytes)
// INFEASIBLE: note: no plan can use less than 4.00 KiB (4100 bytes)
//
// A budget below a proven floor is reported at once, without the MILP: on the
// 250-node random layered graph at 0.5x CBC would use its whole limit (here
// 600 s; `timeout` ends the test with no output if the MILP runs).
// RUN: not timeout 120 ckpt-opt %ckpt_shared/benchmarks/remat-graphs/random_layered_n250_w0.43_nlv0.75_ed0.2_scd0.14.json "--ckpt-place-checkpoints=strategy=exact budget=0.5x time-limit=600" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BELOW-FLOOR
// BELOW-FLOOR: error: ckpt-place-checkpoints: strategy 'exact' found no plan within the budget of {{.*}} (73420 bytes)
// BELOW-FLOOR: note: no plan can use less than {{.*}} (87600 bytes)
//
// Without a budget, or on a graph too large for the MILP, exact refuses:
// Transforms/strategy-errors.test.
//
// CBC overruns a short limit on the 250-node random layered graph (its root
// LP alone takes about 20 s): it runs in a child process, stopped 5 s past
// the limit (the least grace), and the error says so.
// RUN: not ckpt-opt %ckpt_shared/benchmarks/remat-graphs/random_layered_n250_w0.43_nlv0.75_ed0.2_scd0.14.json "--ckpt-place-checkpoints=strategy=exact budget=0.9x time-limit=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STOPPED
// STOPPED: error: ckpt-place-checkpoints: the exact engine found no plan: 250 stages, {{.*}}; CBC overran its time limit and was stopped after {{6|7|8|9}}.{{[0-9]}} s
//
// A 2-layer GPT (109 stages) is within the size limit, but 10 ms is far too
// little for CBC to find any plan.
// RUN: env PYTHONPATH=%ckpt_src_root/python %python -m ckpt_graphs.gpt --layers 2 --hidden 32 --heads 2 --seq 64 --batch 4 --attention unfused -o %t.gpt.json
// RUN: not ckpt-opt %t.gpt.json "--ckpt-place-checkpoints=strategy=exact budget=0.6x time-limit=0.01" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-PLAN
// NO-PLAN: error: ckpt-place-checkpoints: the exact engine found no plan: {{.*}}stages
func.func @chain(%x: tensor<256xf32> {ckpt.role = #ckpt.role<param>}, %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>}) -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<256xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 0 : i64}) attributes {ckpt.step} {
  %a1 = ckpt.exp fwd %x : tensor<256xf32>
  %a2 = ckpt.exp fwd %a1 : tensor<256xf32>
  %a3 = ckpt.exp fwd %a2 : tensor<256xf32>
  %loss = ckpt.reduce_sum fwd %a3 axes [0] : tensor<256xf32> -> tensor<f32>
  %g3 = ckpt.broadcast bwd %seed : tensor<f32> -> tensor<256xf32>
  %g2 = ckpt.mul bwd %g3, %a3 : tensor<256xf32>, tensor<256xf32> -> tensor<256xf32>
  %g1 = ckpt.mul bwd %g2, %a2 : tensor<256xf32>, tensor<256xf32> -> tensor<256xf32>
  %g0 = ckpt.mul bwd %g1, %a1 : tensor<256xf32>, tensor<256xf32> -> tensor<256xf32>
  return %loss, %g0 : tensor<f32>, tensor<256xf32>
}
