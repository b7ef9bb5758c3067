// ckpt-chunk-loss-head: the projection to the vocabulary, its cross-entropy
// and their backward in row chunks. 10 rows of 2 features, 40 classes; 4
// chunks give pieces of 3, 3, 3 and 1 rows.
//
// RUN: ckpt-opt %s --pass-pipeline='builtin.module(func.func(ckpt-chunk-loss-head{chunks=4 explain=true}))' -split-input-file -verify-diagnostics | FileCheck %s
// RUN: ckpt-opt %s --pass-pipeline='builtin.module(func.func(ckpt-chunk-loss-head{chunks=1}))' -split-input-file | FileCheck %s --check-prefix=ONE
// chunks=0 (the default) picks the count that lowers the proven floor most.
// RUN: ckpt-opt %s --pass-pipeline='builtin.module(func.func(ckpt-chunk-loss-head{budget-scope=activations explain=true}))' -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO
// With a budget, chunks=0 plans every candidate under it and keeps the
// cheapest step: at 0.5x the head as it is has no plan (its floor, 3240
// bytes, is above the budget), so the chunked step is the cheapest.
// RUN: ckpt-opt %s --pass-pipeline='builtin.module(func.func(ckpt-chunk-loss-head{budget=0.5x budget-scope=activations explain=true}))' -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: remark: loss head chunked: 10 rows x 40 classes in 5 pieces of at most 2 rows; the cheapest optimal plan at budget=0.5x in budget-scope=activations: cost {{[0-9.e+-]+}} s against no plan unchunked
// More chunks than rows: one row each.
// RUN: ckpt-opt %s --pass-pipeline='builtin.module(func.func(ckpt-chunk-loss-head{chunks=64 explain=true}))' -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=MANY
// ckpt-pipeline runs it first with chunk-loss-head= other than 1, with the
// pipeline's budget, budget-scope, objective and profile; by default, with
// a budget, it runs it with when-needed (a head chunked only when its floor
// is over the budget: test/Transforms/pipeline-chunk-when-infeasible.test);
// chunk-when-infeasible=false turns that off.
// RUN: ckpt-opt %S/../../examples/graphs/mlp32.tiny.json --pass-pipeline='builtin.module(ckpt-pipeline{chunk-loss-head=0 budget-scope=activations budget=0.9x})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: ckpt-opt %S/../../examples/graphs/mlp32.tiny.json --pass-pipeline='builtin.module(ckpt-pipeline{budget=0.9x budget-scope=activations})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE-NEEDED
// RUN: ckpt-opt %S/../../examples/graphs/mlp32.tiny.json --pass-pipeline='builtin.module(ckpt-pipeline{budget=0.9x budget-scope=activations chunk-when-infeasible=false})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE-OFF
// PIPELINE: builtin.module(func.func(ckpt-chunk-loss-head{budget=0.9x budget-scope=activations chunks=0 explain=false objective=time profile=h100-sxm when-needed=false}),func.func(ckpt-place-checkpoints{
// PIPELINE-NEEDED: builtin.module(func.func(ckpt-chunk-loss-head{budget=0.9x budget-scope=activations chunks=0 explain=false objective=time profile=h100-sxm when-needed=true}),func.func(ckpt-place-checkpoints{
// PIPELINE-OFF-NOT: ckpt-chunk-loss-head
// The rewritten step is planned like any other: the floor in the
// activations scope drops (no whole logits tensor and gradient at once).
// RUN: not ckpt-opt %s --pass-pipeline='builtin.module(func.func(ckpt-place-checkpoints{strategy=optimal budget=0.01x budget-scope=activations}))' -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLOOR-PLAIN
// RUN: not ckpt-opt %s --pass-pipeline='builtin.module(func.func(ckpt-chunk-loss-head{chunks=4}, ckpt-place-checkpoints{strategy=optimal budget=0.01x budget-scope=activations}))' -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLOOR-CHUNKED

// Of 2, 4 and 8 chunks (8 chunks of 10 rows are 5 pieces of 2; more give
// the same), 8 give the lowest floor.
// AUTO: remark: loss head chunked: 10 rows x 40 classes in 5 pieces of at most 2 rows; proven floor in budget-scope=activations 3240 -> 1052 bytes
// AUTO: remark: loss head chunked
// AUTO: remark: loss head left as it is: its reduction is 'none'
// AUTO: remark: loss head left as it is: the logits are read by another op
// AUTO: remark: loss head left as it is: the logits' gradient is read by 'ckpt.relu'
// AUTO: remark: loss head chunked: 10 rows x 40 classes
// A weight larger than the logits: its gradient's running sum (three
// weight-sized buffers at each addition) would raise the floor.
// AUTO: remark: loss head left as it is: no chunk count lowers the proven floor in budget-scope=activations (1296 bytes)
// AUTO: remark: loss head left as it is: an operand of a reader is computed after the first reader
// MANY: remark: loss head chunked: 10 rows x 40 classes in 10 pieces of at most 1 rows
// ONE-LABEL: func.func @gpt_like_head
// ONE: ckpt.cross_entropy fwd mean
// ONE-NOT: ckpt.slice

// Logits 10x40 f32 = 1600 bytes, and their gradient as much: the floor
// (3240 bytes) is at the loss's backward, which holds both. Chunked, a
// piece of logits and its gradient are 3x40x4 = 480 bytes each, and the
// floor is 1368 bytes.
// FLOOR-PLAIN: every plan needs at least 3.16 KiB (3240 bytes
// FLOOR-CHUNKED: every plan needs at least 1.34 KiB (1368 bytes

// CHECK-LABEL: func.func @gpt_like_head
// Forward: each piece slices the rows and the targets, projects, and sums
// its losses; the pieces' sums add up and divide by the counted rows.
// CHECK: %[[X0:.*]] = ckpt.slice fwd %[[X:.*]] starts [0, 0] steps [1, 1] : tensor<10x2xf32> -> tensor<3x2xf32>
// CHECK: %[[T0:.*]] = ckpt.slice fwd %arg1 starts [0] steps [1] : tensor<10xi64> -> tensor<3xi64>
// CHECK: %[[L0:.*]] = ckpt.matmul fwd %[[X0]], %arg2 {transpose_rhs} : tensor<3x2xf32>, tensor<40x2xf32> -> tensor<3x40xf32>
// CHECK: %[[LOSS0:.*]], %[[LSE0:.*]] = ckpt.cross_entropy fwd sum %[[L0]], %[[T0]] : (tensor<3x40xf32>, tensor<3xi64>) -> (tensor<f32>, tensor<3xf32>)
// CHECK: ckpt.slice fwd %[[X]] starts [3, 0]
// CHECK: %[[LOSS1:.*]], %{{.*}} = ckpt.cross_entropy fwd sum
// CHECK: %[[SUM1:.*]] = ckpt.add fwd %[[LOSS0]], %[[LOSS1]]
// CHECK: ckpt.slice fwd %[[X]] starts [9, 0] steps [1, 1] : tensor<10x2xf32> -> tensor<1x2xf32>
// CHECK: ckpt.cross_entropy fwd sum {{.*}} : (tensor<1x40xf32>, tensor<1xi64>)
// CHECK: %[[SUM3:.*]] = ckpt.add fwd
// CHECK: %[[IGNORE:.*]] = ckpt.fill fwd -1.000000e+02 : tensor<i64>
// CHECK: %[[MASK:.*]] = ckpt.compare fwd ne %arg1, %[[IGNORE]] : tensor<10xi64>, tensor<i64> -> tensor<10xi1>
// CHECK: %[[MASKF:.*]] = ckpt.convert fwd %[[MASK]] : tensor<10xi1> -> tensor<10xf32>
// CHECK: %[[COUNT:.*]] = ckpt.reduce_sum fwd %[[MASKF]] axes [0] : tensor<10xf32> -> tensor<f32>
// CHECK: %[[LOSS:.*]] = ckpt.div fwd %[[SUM3]], %[[COUNT]]
// Backward: the loss gradient scaled by 1 / count once, then per piece its
// logits gradient, its rows of the input gradient, then its share of the
// weight gradient, added to the running sum by the product (matmul_acc).
// CHECK: %[[UNIT:.*]] = ckpt.fill bwd 1.000000e+00 : tensor<f32>
// CHECK: %[[RECIP:.*]] = ckpt.div bwd %[[UNIT]], %[[COUNT]]
// CHECK: %[[DL:.*]] = ckpt.mul bwd %arg3, %[[RECIP]]
// CHECK: %[[G0:.*]] = ckpt.cross_entropy_grad bwd sum %[[DL]], %[[L0]], %[[T0]], %[[LSE0]] : (tensor<f32>, tensor<3x40xf32>, tensor<3xi64>, tensor<3xf32>) -> tensor<3x40xf32>
// CHECK: %[[DX0:.*]] = ckpt.matmul bwd %[[G0]], %arg2 : tensor<3x40xf32>, tensor<40x2xf32> -> tensor<3x2xf32>
// CHECK: %[[DW0:.*]] = ckpt.matmul bwd %[[G0]], %[[X0]] {transpose_lhs} : tensor<3x40xf32>, tensor<3x2xf32> -> tensor<40x2xf32>
// CHECK: %[[G1:.*]] = ckpt.cross_entropy_grad bwd sum
// CHECK: ckpt.matmul bwd %[[G1]], %arg2
// CHECK: ckpt.matmul_acc bwd %[[DW0]] + %[[G1]], %{{.*}} {transpose_lhs} : tensor<40x2xf32>, tensor<3x40xf32>, tensor<3x2xf32> -> tensor<40x2xf32>
// CHECK: %[[DX:.*]] = ckpt.concat bwd %[[DX0]], %{{.*}}, %{{.*}}, %{{.*}} axis 0 : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<1x2xf32>) -> tensor<10x2xf32>
// CHECK-NOT: ckpt.cross_entropy fwd mean
// CHECK-NOT: tensor<10x40xf32>
// CHECK: return %[[LOSS]]
func.func @gpt_like_head(
    %h: tensor<2x5x2xf32> {ckpt.role = #ckpt.role<input>},
    %t: tensor<10xi64> {ckpt.role = #ckpt.role<input>},
    %w: tensor<40x2xf32> {ckpt.role = #ckpt.role<param>},
    %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>},
        tensor<40x2xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 2 : i64},
        tensor<2x5x2xf32> {ckpt.role = #ckpt.role<output>})
    attributes {ckpt.step} {
  %x = ckpt.reshape fwd %h : tensor<2x5x2xf32> -> tensor<10x2xf32>
  %m = ckpt.matmul fwd %x, %w {transpose_rhs} : tensor<10x2xf32>, tensor<40x2xf32> -> tensor<10x40xf32>
  %m3 = ckpt.reshape fwd %m : tensor<10x40xf32> -> tensor<2x5x40xf32>
  %l = ckpt.reshape fwd %m3 : tensor<2x5x40xf32> -> tensor<10x40xf32>
  // expected-remark @+1 {{loss head chunked: 10 rows x 40 classes in 4 pieces of at most 3 rows}}
  %loss, %lse = ckpt.cross_entropy fwd mean %l, %t : (tensor<10x40xf32>, tensor<10xi64>) -> (tensor<f32>, tensor<10xf32>)
  %g = ckpt.cross_entropy_grad bwd mean %seed, %l, %t, %lse : (tensor<f32>, tensor<10x40xf32>, tensor<10xi64>, tensor<10xf32>) -> tensor<10x40xf32>
  %g3 = ckpt.reshape bwd %g : tensor<10x40xf32> -> tensor<2x5x40xf32>
  %g2 = ckpt.reshape bwd %g3 : tensor<2x5x40xf32> -> tensor<10x40xf32>
  %dw = ckpt.matmul bwd %g2, %x {transpose_lhs} : tensor<10x40xf32>, tensor<10x2xf32> -> tensor<40x2xf32>
  %dx = ckpt.matmul bwd %g2, %w : tensor<10x40xf32>, tensor<40x2xf32> -> tensor<10x2xf32>
  %dh = ckpt.reshape bwd %dx : tensor<10x2xf32> -> tensor<2x5x2xf32>
  return %loss, %dw, %dh : tensor<f32>, tensor<40x2xf32>, tensor<2x5x2xf32>
}

// -----

// A linear head with a bias, its weight gradient as Y^T x G (the other
// operand order), a `sum` loss: no count, the loss gradient used as is.
// CHECK-LABEL: func.func @linear_head_sum
// CHECK-NOT: ckpt.compare
// CHECK: %[[L0:.*]] = ckpt.linear fwd %{{.*}}, %arg2, %arg3 : (tensor<3x2xf32>, tensor<40x2xf32>, tensor<40xf32>) -> tensor<3x40xf32>
// CHECK: %[[G0:.*]] = ckpt.cross_entropy_grad bwd sum %arg4, %[[L0]]
// CHECK: ckpt.reduce_sum bwd %[[G0]] axes [0] keep_dims : tensor<3x40xf32> -> tensor<1x40xf32>
// CHECK: ckpt.matmul bwd %{{.*}}, %[[G0]] {transpose_lhs} : tensor<3x2xf32>, tensor<3x40xf32> -> tensor<2x40xf32>
// CHECK: %[[G1:.*]] = ckpt.cross_entropy_grad bwd sum
// CHECK: ckpt.add bwd
// CHECK: ckpt.matmul_acc bwd %{{.*}} + %{{.*}}, %[[G1]] {transpose_lhs} : tensor<2x40xf32>, tensor<3x2xf32>, tensor<3x40xf32> -> tensor<2x40xf32>
// CHECK-NOT: tensor<10x40xf32>
func.func @linear_head_sum(
    %x: tensor<10x2xf32> {ckpt.role = #ckpt.role<input>},
    %t: tensor<10xi64> {ckpt.role = #ckpt.role<input>},
    %w: tensor<40x2xf32> {ckpt.role = #ckpt.role<param>},
    %b: tensor<40xf32> {ckpt.role = #ckpt.role<param>},
    %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>},
        tensor<2x40xf32> {ckpt.role = #ckpt.role<output>},
        tensor<1x40xf32> {ckpt.role = #ckpt.role<output>},
        tensor<10x2xf32> {ckpt.role = #ckpt.role<output>})
    attributes {ckpt.step} {
  %l = ckpt.linear fwd %x, %w, %b : (tensor<10x2xf32>, tensor<40x2xf32>, tensor<40xf32>) -> tensor<10x40xf32>
  // expected-remark @+1 {{loss head chunked}}
  %loss, %lse = ckpt.cross_entropy fwd sum %l, %t : (tensor<10x40xf32>, tensor<10xi64>) -> (tensor<f32>, tensor<10xf32>)
  %g = ckpt.cross_entropy_grad bwd sum %seed, %l, %t, %lse : (tensor<f32>, tensor<10x40xf32>, tensor<10xi64>, tensor<10xf32>) -> tensor<10x40xf32>
  %dwt = ckpt.matmul bwd %x, %g {transpose_lhs} : tensor<10x2xf32>, tensor<10x40xf32> -> tensor<2x40xf32>
  %db = ckpt.reduce_sum bwd %g axes [0] keep_dims : tensor<10x40xf32> -> tensor<1x40xf32>
  %dx = ckpt.matmul bwd %g, %w : tensor<10x40xf32>, tensor<40x2xf32> -> tensor<10x2xf32>
  return %loss, %dwt, %db, %dx : tensor<f32>, tensor<2x40xf32>, tensor<1x40xf32>, tensor<10x2xf32>
}

// -----

// Heads of another form are left as they are, and explain says why.
// CHECK-LABEL: func.func @not_a_head
// CHECK: ckpt.cross_entropy fwd none
// CHECK: ckpt.cross_entropy fwd mean
// CHECK-NOT: ckpt.slice
func.func @not_a_head(
    %x: tensor<10x2xf32> {ckpt.role = #ckpt.role<input>},
    %t: tensor<10xi64> {ckpt.role = #ckpt.role<input>},
    %w: tensor<40x2xf32> {ckpt.role = #ckpt.role<param>},
    %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>})
    -> (tensor<10xf32> {ckpt.role = #ckpt.role<output>},
        tensor<f32> {ckpt.role = #ckpt.role<loss>},
        tensor<10x40xf32> {ckpt.role = #ckpt.role<output>},
        tensor<10x2xf32> {ckpt.role = #ckpt.role<output>})
    attributes {ckpt.step} {
  %l = ckpt.matmul fwd %x, %w {transpose_rhs} : tensor<10x2xf32>, tensor<40x2xf32> -> tensor<10x40xf32>
  // expected-remark @+1 {{loss head left as it is: its reduction is 'none' (the per-row losses are a result)}}
  %rows, %lse0 = ckpt.cross_entropy fwd none %l, %t : (tensor<10x40xf32>, tensor<10xi64>) -> (tensor<10xf32>, tensor<10xf32>)
  // expected-remark @+1 {{loss head left as it is: the logits are read by another op}}
  %loss, %lse = ckpt.cross_entropy fwd mean %l, %t : (tensor<10x40xf32>, tensor<10xi64>) -> (tensor<f32>, tensor<10xf32>)
  %g = ckpt.cross_entropy_grad bwd mean %seed, %l, %t, %lse : (tensor<f32>, tensor<10x40xf32>, tensor<10xi64>, tensor<10xf32>) -> tensor<10x40xf32>
  %dx = ckpt.matmul bwd %g, %w : tensor<10x40xf32>, tensor<40x2xf32> -> tensor<10x2xf32>
  return %rows, %loss, %l, %dx : tensor<10xf32>, tensor<f32>, tensor<10x40xf32>, tensor<10x2xf32>
}

// -----

// The gradient read by something other than the three products.
func.func @gradient_read_elsewhere(
    %x: tensor<10x2xf32> {ckpt.role = #ckpt.role<input>},
    %t: tensor<10xi64> {ckpt.role = #ckpt.role<input>},
    %w: tensor<40x2xf32> {ckpt.role = #ckpt.role<param>},
    %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>},
        tensor<10x40xf32> {ckpt.role = #ckpt.role<output>})
    attributes {ckpt.step} {
  %l = ckpt.matmul fwd %x, %w {transpose_rhs} : tensor<10x2xf32>, tensor<40x2xf32> -> tensor<10x40xf32>
  // expected-remark @+1 {{loss head left as it is: the logits' gradient is read by 'ckpt.relu'}}
  %loss, %lse = ckpt.cross_entropy fwd mean %l, %t : (tensor<10x40xf32>, tensor<10xi64>) -> (tensor<f32>, tensor<10xf32>)
  %g = ckpt.cross_entropy_grad bwd mean %seed, %l, %t, %lse : (tensor<f32>, tensor<10x40xf32>, tensor<10xi64>, tensor<10xf32>) -> tensor<10x40xf32>
  %r = ckpt.relu bwd %g : tensor<10x40xf32>
  return %loss, %r : tensor<f32>, tensor<10x40xf32>
}

// -----

// As Llama's head is exported: the weight gradient's other operand is a
// backward view of the forward rows, defined after the loss gradient.
// CHECK-LABEL: func.func @rows_viewed_in_backward
// CHECK: %[[G0:.*]] = ckpt.cross_entropy_grad bwd sum
// CHECK: %[[Y0:.*]] = ckpt.slice bwd %[[Y:.*]] starts [0, 0] steps [1, 1] : tensor<10x2xf32> -> tensor<3x2xf32>
// CHECK: ckpt.matmul bwd %[[G0]], %[[Y0]] {transpose_lhs}
func.func @rows_viewed_in_backward(
    %h: tensor<1x10x2xf32> {ckpt.role = #ckpt.role<input>},
    %t: tensor<10xi64> {ckpt.role = #ckpt.role<input>},
    %w: tensor<40x2xf32> {ckpt.role = #ckpt.role<param>},
    %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>},
        tensor<40x2xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 2 : i64},
        tensor<10x2xf32> {ckpt.role = #ckpt.role<output>})
    attributes {ckpt.step} {
  %x = ckpt.reshape fwd %h : tensor<1x10x2xf32> -> tensor<10x2xf32>
  %l = ckpt.matmul fwd %x, %w {transpose_rhs} : tensor<10x2xf32>, tensor<40x2xf32> -> tensor<10x40xf32>
  // expected-remark @+1 {{loss head chunked}}
  %loss, %lse = ckpt.cross_entropy fwd mean %l, %t : (tensor<10x40xf32>, tensor<10xi64>) -> (tensor<f32>, tensor<10xf32>)
  %g = ckpt.cross_entropy_grad bwd mean %seed, %l, %t, %lse : (tensor<f32>, tensor<10x40xf32>, tensor<10xi64>, tensor<10xf32>) -> tensor<10x40xf32>
  %y = ckpt.reshape bwd %h : tensor<1x10x2xf32> -> tensor<10x2xf32>
  %dw = ckpt.matmul bwd %g, %y {transpose_lhs} : tensor<10x40xf32>, tensor<10x2xf32> -> tensor<40x2xf32>
  %dx = ckpt.matmul bwd %g, %w : tensor<10x40xf32>, tensor<40x2xf32> -> tensor<10x2xf32>
  return %loss, %dw, %dx : tensor<f32>, tensor<40x2xf32>, tensor<10x2xf32>
}

// -----

// A weight larger than the logits (4 rows, 40 classes, 64 features).
func.func @weight_larger_than_logits(
    %x: tensor<4x64xf32> {ckpt.role = #ckpt.role<input>},
    %t: tensor<4xi64> {ckpt.role = #ckpt.role<input>},
    %w: tensor<40x64xf32> {ckpt.role = #ckpt.role<param>},
    %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>},
        tensor<40x64xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 2 : i64})
    attributes {ckpt.step} {
  %l = ckpt.matmul fwd %x, %w {transpose_rhs} : tensor<4x64xf32>, tensor<40x64xf32> -> tensor<4x40xf32>
  // expected-remark @+1 {{loss head chunked}}
  %loss, %lse = ckpt.cross_entropy fwd mean %l, %t : (tensor<4x40xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<4xf32>)
  %g = ckpt.cross_entropy_grad bwd mean %seed, %l, %t, %lse : (tensor<f32>, tensor<4x40xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x40xf32>
  %dw = ckpt.matmul bwd %g, %x {transpose_lhs} : tensor<4x40xf32>, tensor<4x64xf32> -> tensor<40x64xf32>
  return %loss, %dw : tensor<f32>, tensor<40x64xf32>
}

// -----

// The weight gradient's rows are computed after the first reader of the
// gradient (where the pieces would go): left as it is.
func.func @rows_after_first_reader(
    %h: tensor<1x10x2xf32> {ckpt.role = #ckpt.role<input>},
    %t: tensor<10xi64> {ckpt.role = #ckpt.role<input>},
    %w: tensor<40x2xf32> {ckpt.role = #ckpt.role<param>},
    %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>},
        tensor<40x2xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 2 : i64},
        tensor<10x2xf32> {ckpt.role = #ckpt.role<output>})
    attributes {ckpt.step} {
  %x = ckpt.reshape fwd %h : tensor<1x10x2xf32> -> tensor<10x2xf32>
  %l = ckpt.matmul fwd %x, %w {transpose_rhs} : tensor<10x2xf32>, tensor<40x2xf32> -> tensor<10x40xf32>
  // expected-remark @+1 {{loss head left as it is: an operand of a reader is computed after the first reader}}
  %loss, %lse = ckpt.cross_entropy fwd mean %l, %t : (tensor<10x40xf32>, tensor<10xi64>) -> (tensor<f32>, tensor<10xf32>)
  %g = ckpt.cross_entropy_grad bwd mean %seed, %l, %t, %lse : (tensor<f32>, tensor<10x40xf32>, tensor<10xi64>, tensor<10xf32>) -> tensor<10x40xf32>
  %dx = ckpt.matmul bwd %g, %w : tensor<10x40xf32>, tensor<40x2xf32> -> tensor<10x2xf32>
  %y = ckpt.relu bwd %dx : tensor<10x2xf32>
  %dw = ckpt.matmul bwd %g, %y {transpose_lhs} : tensor<10x40xf32>, tensor<10x2xf32> -> tensor<40x2xf32>
  return %loss, %dw, %dx : tensor<f32>, tensor<40x2xf32>, tensor<10x2xf32>
}
