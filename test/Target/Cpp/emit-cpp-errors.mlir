// Refusals of the C++ exporter, one diagnostic per offending op or function;
// nothing is written (emit-cpp-locations.test checks the printed locations).

// RUN: rm -rf %t && %ckpt_opt %s -split-input-file -verify-diagnostics --emit=cpp -o %t
// RUN: test ! -e %t

// Every unsupported op is reported, not only the first.
func.func @unsupported_ops(%x: tensor<4x8xf32> {ckpt.offset = 0 : i64}) -> tensor<4x8xf32>
    attributes {ckpt.arena_size = 768 : i64, ckpt.arena_lower_bound = 768 : i64} {
  // expected-error @+1 {{cannot generate code for 'ckpt.opaque' ("aten.hardtanh"): an opaque op has no semantics to run}}
  %0 = ckpt.opaque fwd "aten.hardtanh"(%x) {ckpt.offset = array<i64: 256>, flops = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-error @+1 {{cannot generate code for 'ckpt.convert': result #0 has type 'tensor<4x8xf16>'}}
  %1 = ckpt.convert fwd %0 {ckpt.offset = array<i64: 512>} : tensor<4x8xf32> -> tensor<4x8xf16>
  // expected-error @+1 {{cannot generate code for 'ckpt.opaque' ("aten.mul.Scalar")}}
  %2 = ckpt.opaque fwd "aten.mul.Scalar"(%0) {ckpt.offset = array<i64: 256>, flops = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A bf16 argument is refused at the function.
// expected-error @+1 {{cannot generate code for @bf16_argument: argument #0 has type 'tensor<4xbf16>'}}
func.func @bf16_argument(%x: tensor<4xbf16> {ckpt.offset = 0 : i64}) -> tensor<4xbf16>
    attributes {ckpt.arena_size = 256 : i64, ckpt.arena_lower_bound = 256 : i64} {
  return %x : tensor<4xbf16>
}

// -----

// No memory plan.
// expected-error @+1 {{cannot generate code for @unplanned: it has no memory plan ('ckpt.arena_size' and 'ckpt.arena_lower_bound'); run ckpt-plan-memory or ckpt-pipeline{plan-memory=true} first}}
func.func @unplanned(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = ckpt.relu fwd %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A stale plan: the second relu is placed over %0 (256..511) while the mul
// still reads %0, so the plan checker rejects it with every alignment.
// expected-error @+1 {{cannot generate code for @stale_plan: its memory plan does not match the IR (with alignment 256, buffer #2 (steps 1..2, bytes [256, 512)) overlaps buffer #1}}
func.func @stale_plan(%x: tensor<4x8xf32> {ckpt.offset = 0 : i64})
    -> tensor<4x8xf32>
    attributes {ckpt.arena_size = 768 : i64, ckpt.arena_lower_bound = 1024 : i64} {
  %0 = ckpt.relu fwd %x {ckpt.offset = array<i64: 256>} : tensor<4x8xf32>
  %1 = ckpt.relu fwd %0 {ckpt.offset = array<i64: 256>} : tensor<4x8xf32>
  %2 = ckpt.mul fwd %1, %0 {ckpt.offset = array<i64: 512>} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A plan whose lower bound is not the one of its buffers: x, %0 and %1 are
// live together (3 x 256 bytes), not 512.
// expected-error @+1 {{its memory plan does not match the IR (with alignment 256, its lower bound is 768, not 512)}}
func.func @wrong_lower_bound(%x: tensor<4x8xf32> {ckpt.offset = 0 : i64})
    -> tensor<4x8xf32>
    attributes {ckpt.arena_size = 768 : i64, ckpt.arena_lower_bound = 512 : i64} {
  %0 = ckpt.relu fwd %x {ckpt.offset = array<i64: 256>} : tensor<4x8xf32>
  %1 = ckpt.exp fwd %0 {ckpt.offset = array<i64: 512>} : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A view must share its operand's storage.
func.func @moved_view(%x: tensor<4x8xf32> {ckpt.offset = 0 : i64})
    -> tensor<32xf32>
    attributes {ckpt.arena_size = 768 : i64, ckpt.arena_lower_bound = 512 : i64} {
  %0 = ckpt.relu fwd %x {ckpt.offset = array<i64: 256>} : tensor<4x8xf32>
  // expected-error @+1 {{cannot generate code for 'ckpt.reshape': this view has offset 512 but the storage it aliases has offset 256}}
  %1 = ckpt.reshape fwd %0 {ckpt.offset = array<i64: 512>} : tensor<4x8xf32> -> tensor<32xf32>
  return %1 : tensor<32xf32>
}

// -----

// An op without its offset, in a planned function.
func.func @missing_offset(%x: tensor<4x8xf32> {ckpt.offset = 0 : i64})
    -> tensor<4x8xf32>
    attributes {ckpt.arena_size = 512 : i64, ckpt.arena_lower_bound = 512 : i64} {
  // expected-error @+1 {{cannot generate code for 'ckpt.relu': it has no 'ckpt.offset'}}
  %0 = ckpt.relu fwd %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
