// The generated code of a hand-written planned step: arena offsets baked in,
// acquire before the kernel that writes a value and release after its last
// use (views keep their storage alive and make no call; an in-place result
// re-acquires its operand's exact range), a recompute segment bracketed and
// named after the op it serves, and every attribute passed by its ODS name.
// The plan: ckpt-plan-memory (alignment 256) on this step; every tensor here
// is at most 512 bytes, so each takes 256 bytes, the 16x8 ones 512.

// RUN: rm -rf %t && %ckpt_opt %s --emit=cpp -o %t
// RUN: FileCheck %s --input-file=%t/segment_step.cpp
// RUN: FileCheck %s --check-prefix=HEADER --input-file=%t/segment_step.h
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t/segment_step.plan.json
// It compiles without a warning against the runtime headers alone.
// RUN: %cxx -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I%ckpt_runtime_include -I%t %t/segment_step.cpp

// CHECK-LABEL: // segment_step.cpp - training step @segment_step
// The plan's alignment is inferred: 256 is the largest that reproduces the
// lower bound 2304 and passes the plan checker.
// CHECK: // arena: 2304 bytes, planned peak: 2304 bytes, alignment: 256
// CHECK: // ops: 10 (9 kernel calls), recomputed: 2 in 1 segments, in place: 3
// CHECK: #include "segment_step.h"
// CHECK: #include "ckpt/Runtime/Kernels.h"
// CHECK: #include "ckpt/Runtime/Program.h"

// Arguments are named by their NameLoc; results by role (the loss) and by the
// parameter they are the gradient of.
// CHECK-LABEL: const Binding kArguments[] = {
// CHECK-NEXT: {"x", Role::Input, DType::F32, 2, {4, 8}, 1024, -1},
// CHECK-NEXT: {"fc.weight", Role::Param, DType::F32, 2, {16, 8}, 0, -1},
// CHECK-NEXT: {"ln.weight", Role::Param, DType::F32, 1, {16}, 1280, -1},
// CHECK-NEXT: {"seed", Role::Seed, DType::F32, 0, {}, 1536, -1},
// CHECK-LABEL: const Binding kResults[] = {
// CHECK-NEXT: {"loss", Role::Loss, DType::F32, 0, {}, 1792, -1},
// CHECK-NEXT: {"grad:fc.weight", Role::Grad, DType::F32, 2, {16, 8}, 512, 1},

// The ops are in functions of at most 128 ops, called in order by `run`
// (emit-cpp-parts.test has a step of several).
// CHECK-LABEL: // ops [0] to [9]
// CHECK-NEXT: void runPart0({{\[\[}}maybe_unused]] ExecContext &ctx, {{\[\[}}maybe_unused]] char *const arena) {
// CHECK: // [0] %0 = ckpt.linear fwd %arg0, %arg1
// CHECK-NEXT: //     at model.py:10
// CHECK-NEXT: {
// CHECK-NEXT: static const OpInfo op = {0, "linear", "model.py:10", Phase::Forward, false, -1};
// CHECK-NEXT: static const Attr attrs[] = {stringAttr("phase", "fwd")};
// The absent bias is passed as an absent tensor: 3 operands, as in ODS.
// CHECK-NEXT: const Tensor operands[] = {Tensor(arena + 1024, DType::F32, {4, 8}),
// CHECK-NEXT: Tensor(arena + 0, DType::F32, {16, 8}),
// CHECK-NEXT: Tensor()};
// CHECK-NEXT: const Tensor results[] = {Tensor(arena + 512, DType::F32, {4, 16})};
// CHECK-NEXT: ctx.acquire(512, 256);
// CHECK-NEXT: ctx.call(op, &kernels::linear, TensorList{operands, 3}, TensorList{results, 1}, Attrs{attrs, 1}, Tensor());
// CHECK-NEXT: }

// relu overwrites %0, which dies here: the same range is acquired again
// (counted once by the runtime) and %0's reference is released after the call.
// CHECK: // [1] %1 = ckpt.relu fwd %0
// CHECK: //     in place: %1 takes over the storage of %0
// CHECK: ctx.acquire(512, 256);
// CHECK-NEXT: ctx.call(op, &kernels::relu,
// CHECK-NEXT: ctx.release(512, 256);

// layer_norm has operandSegmentSizes (input, weight, no bias): its operands
// are passed as they are, the segment sizes as an attribute. The unused mean
// and rstd live during the op only; %1 dies here.
// CHECK: // [2] %result, %mean, %rstd = ckpt.layer_norm fwd %1 weight %arg2
// CHECK: static const int64_t ints2[] = {1, 1, 0};
// CHECK-NEXT: static const Attr attrs[] = {intAttr("axis", 1),
// CHECK-NEXT: floatAttr("epsilon", 1.0000000000000001e-05),
// CHECK-NEXT: intsAttr("operandSegmentSizes", ints2, 3),
// CHECK-NEXT: stringAttr("phase", "fwd")};
// CHECK: ctx.acquire(768, 256);
// CHECK-NEXT: ctx.acquire(1792, 256);
// CHECK-NEXT: ctx.acquire(2048, 256);
// CHECK-NEXT: ctx.call(op, &kernels::layer_norm, TensorList{operands, 2}, TensorList{results, 3}, Attrs{attrs, 4}, Tensor());
// CHECK-NEXT: ctx.release(512, 256);
// CHECK-NEXT: ctx.release(1792, 256);
// CHECK-NEXT: ctx.release(2048, 256);

// The reshape is a view: no call; its base (%result at 768) stays live until
// reduce_sum reads the view.
// CHECK: // [3] %2 = ckpt.reshape fwd %result
// CHECK-NEXT: //     at model.py:13
// CHECK-NEXT: //     view: aliases its operand's storage at offset 768, no kernel call
// CHECK-NOT: kernels::reshape
// CHECK: // [4] %3 = ckpt.reduce_sum fwd %2 axes [0]
// CHECK: static const int64_t ints0[] = {0};
// CHECK-NEXT: static const Attr attrs[] = {intsAttr("axes", ints0, 1),
// CHECK: const Tensor operands[] = {Tensor(arena + 768, DType::F32, {64})};
// CHECK-NEXT: const Tensor results[] = {Tensor(arena + 1792, DType::F32, {})};
// CHECK-NEXT: ctx.acquire(1792, 256);
// CHECK-NEXT: ctx.call(op, &kernels::reduce_sum,
// CHECK-NEXT: ctx.release(768, 256);

// CHECK: // [5] %4 = ckpt.broadcast bwd %arg3
// CHECK: Phase::Backward

// The two recomputed ops form segment 0, for the relu_grad that reads %6.
// CHECK: // ---- recompute segment 0: recomputes %5, %6
// CHECK-NEXT: //      for [8] %7 = ckpt.relu_grad bwd %4, %6
// CHECK-NEXT: //      at model.py:11
// CHECK-NEXT: ctx.beginSegment(0);
// CHECK: // [6] %5 = ckpt.linear fwd %arg0, %arg1 {ckpt.offset = array<i64: 512>, ckpt.recompute}
// CHECK: static const OpInfo op = {6, "linear", "model.py:10", Phase::Forward, true, 0};
// CHECK: // [7] %6 = ckpt.relu fwd %5
// CHECK: static const OpInfo op = {7, "relu", "model.py:11", Phase::Forward, true, 0};
// CHECK: ctx.endSegment(0);
// CHECK-NEXT: // ---- end of recompute segment 0
// CHECK: // [8] %7 = ckpt.relu_grad bwd %4, %6
// CHECK: static const OpInfo op = {8, "relu_grad", "model.py:11", Phase::Backward, false, -1};
// CHECK: ctx.acquire(2048, 256);
// CHECK-NEXT: ctx.call(op, &kernels::relu_grad,
// CHECK-NEXT: ctx.release(2048, 256);
// CHECK-NEXT: ctx.release(512, 256);
// Unit attributes by name; the returned gradient is never released.
// CHECK: // [9] %8 = ckpt.matmul bwd %7, %arg0
// CHECK: unitAttr("transpose_lhs")};
// CHECK: ctx.acquire(512, 512);
// CHECK-NEXT: ctx.call(op, &kernels::matmul,
// CHECK-NEXT: ctx.release(2048, 256);
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: void run(ExecContext &ctx) {
// CHECK-NEXT: {{\[\[}}maybe_unused]] char *const arena = ctx.arena();
// CHECK-NEXT: runPart0(ctx, arena);
// CHECK-NEXT: }

// CHECK-LABEL: extern "C" const ckpt::rt::StepProgram *ckpt_step_segment_step() {
// CHECK-NEXT: static const ckpt::rt::StepProgram program = {
// CHECK-NEXT: "segment_step", 2304, 2304, 256, 10, 2, 1,
// CHECK-NEXT: kArguments, 4, kResults, 2, &run,
// No copies: no host arena, no planned host peak, no offloads.
// CHECK-NEXT: 0, 0, 0};
// CHECK-LABEL: extern "C" const ckpt::rt::StepProgram *ckpt_step_program() {
// CHECK-NEXT: return ckpt_step_segment_step();

// HEADER: #ifndef CKPT_STEP_SEGMENT_STEP_H
// HEADER: #include "ckpt/Runtime/Program.h"
// HEADER: const ckpt::rt::StepProgram *ckpt_step_segment_step();
// HEADER: const ckpt::rt::StepProgram *ckpt_step_program();

// JSON: "alignment": 256,
// JSON: "arena_bytes": 2304,
// 15 buffers: 4 arguments and 11 op results (the view has none of its own).
// JSON: "counts": {
// JSON-NEXT: "arguments": 4,
// JSON-NEXT: "buffers": 15,
// JSON-NEXT: "in_place": 3,
// JSON-NEXT: "kernel_calls": 9,
// JSON-NEXT: "ops": 10,
// JSON-NEXT: "recomputed_ops": 2,
// JSON-NEXT: "results": 2,
// JSON-NEXT: "segments": 1,
// JSON-NEXT: "views": 1
// JSON: "entry_point": "ckpt_step_segment_step",
// JSON: "function": "segment_step",
// JSON: "planned_peak_bytes": 2304,
// JSON: "segments": [
// JSON-NEXT: {
// JSON-NEXT: "consumer": {
// JSON-NEXT: "location": "model.py:11",
// JSON-NEXT: "op": "ckpt.relu_grad",
// JSON-NEXT: "op_index": 8
// JSON-NEXT: },
// JSON-NEXT: "first_op": 6,
// JSON-NEXT: "id": 0,
// JSON-NEXT: "last_op": 7,
// JSON-NEXT: "ops": [
// JSON-NEXT: 6,
// JSON-NEXT: 7
// JSON-NEXT: ],
// JSON-NEXT: "recomputes": [
// JSON-NEXT: "%5",
// JSON-NEXT: "%6"
// JSON-NEXT: ]

module {
  func.func @segment_step(%arg0: tensor<4x8xf32> {ckpt.offset = 1024 : i64, ckpt.role = #ckpt.role<input>} loc("x"), %arg1: tensor<16x8xf32> {ckpt.offset = 0 : i64, ckpt.role = #ckpt.role<param>} loc("fc.weight"), %arg2: tensor<16xf32> {ckpt.offset = 1280 : i64, ckpt.role = #ckpt.role<param>} loc("ln.weight"), %arg3: tensor<f32> {ckpt.offset = 1536 : i64, ckpt.role = #ckpt.role<seed>} loc("seed")) -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<16x8xf32> {ckpt.grad_of = 1 : i64, ckpt.role = #ckpt.role<grad>}) attributes {ckpt.arena_lower_bound = 2304 : i64, ckpt.arena_size = 2304 : i64} {
    %0 = ckpt.linear fwd %arg0, %arg1 {ckpt.offset = array<i64: 512>} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> loc("model.py":10:0)
    %1 = ckpt.relu fwd %0 {ckpt.offset = array<i64: 512>} : tensor<4x16xf32> loc("model.py":11:0)
    %result, %mean, %rstd = ckpt.layer_norm fwd %1 weight %arg2 axis 1 eps 1.000000e-05 {ckpt.offset = array<i64: 768, 1792, 2048>} : (tensor<4x16xf32>, tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>, tensor<4xf32>) loc("model.py":12:0)
    %2 = ckpt.reshape fwd %result {ckpt.offset = array<i64: 768>} : tensor<4x16xf32> -> tensor<64xf32> loc("model.py":13:0)
    %3 = ckpt.reduce_sum fwd %2 axes [0] {ckpt.offset = array<i64: 1792>} : tensor<64xf32> -> tensor<f32> loc("model.py":14:0)
    %4 = ckpt.broadcast bwd %arg3 {ckpt.offset = array<i64: 2048>} : tensor<f32> -> tensor<4x16xf32> loc("model.py":14:0)
    %5 = ckpt.linear fwd %arg0, %arg1 {ckpt.offset = array<i64: 512>, ckpt.recompute} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32> loc("model.py":10:0)
    %6 = ckpt.relu fwd %5 {ckpt.offset = array<i64: 512>, ckpt.recompute} : tensor<4x16xf32> loc("model.py":11:0)
    %7 = ckpt.relu_grad bwd %4, %6 {ckpt.offset = array<i64: 2048>} : tensor<4x16xf32> loc("model.py":11:0)
    %8 = ckpt.matmul bwd %7, %arg0 {ckpt.offset = array<i64: 512>, transpose_lhs} : tensor<4x16xf32>, tensor<4x8xf32> -> tensor<16x8xf32> loc("model.py":10:0)
    return %3, %8 : tensor<f32>, tensor<16x8xf32>
  }
}

