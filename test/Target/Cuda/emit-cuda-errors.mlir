// Refusals of --emit=cuda: as for --emit=cpp (opaque ops, missing plans),
// one diagnostic per problem, nothing written; f16 and bf16 tensors, which
// the host refuses, are accepted (the device kernels have them).

// RUN: rm -rf %t && %ckpt_opt %s -split-input-file -verify-diagnostics --emit=cuda -o %t
// RUN: test ! -e %t

// Opaque ops are refused, every one of them; the f16 convert is not.
func.func @opaque_ops(%x: tensor<4x8xf32> {ckpt.offset = 0 : i64}) -> tensor<4x8xf32>
    attributes {ckpt.arena_size = 768 : i64, ckpt.arena_lower_bound = 768 : i64} {
  // expected-error @+1 {{cannot generate code for 'ckpt.opaque' ("aten.hardtanh"): an opaque op has no semantics to run}}
  %0 = ckpt.opaque fwd "aten.hardtanh"(%x) {ckpt.offset = array<i64: 256>, flops = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = ckpt.convert fwd %0 {ckpt.offset = array<i64: 512>} : tensor<4x8xf32> -> tensor<4x8xf16>
  // expected-error @+1 {{cannot generate code for 'ckpt.opaque' ("aten.mul.Scalar")}}
  %2 = ckpt.opaque fwd "aten.mul.Scalar"(%0) {ckpt.offset = array<i64: 256>, flops = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// An f64 argument is refused, naming what the CUDA runtime has.
// expected-error @+1 {{cannot generate code for @f64_argument: argument #0 has type 'tensor<4xf64>' (the CUDA runtime has f32, f16, bf16, i1, i32 and i64 tensors of static shape)}}
func.func @f64_argument(%x: tensor<4xf64> {ckpt.offset = 0 : i64}) -> tensor<4xf64>
    attributes {ckpt.arena_size = 256 : i64, ckpt.arena_lower_bound = 256 : i64} {
  return %x : tensor<4xf64>
}

// -----

// No memory plan.
// expected-error @+1 {{cannot generate code for @unplanned: it has no memory plan}}
func.func @unplanned(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// A device workspace smaller than the CUDA runtime's scratch block.
// expected-error @+1 {{cannot generate CUDA code for @small_workspace: its device workspace ('ckpt.device_workspace') of 1024 bytes is smaller than the CUDA runtime's scratch block (33554688 bytes); plan it with device-workspace=cuda}}
func.func @small_workspace(%x: tensor<4xf32> {ckpt.offset = 1024 : i64}) -> tensor<4xf32>
    attributes {ckpt.arena_size = 1280 : i64, ckpt.arena_lower_bound = 1280 : i64,
                ckpt.device_workspace = 1024 : i64, ckpt.device_workspace_offset = 0 : i64} {
  return %x : tensor<4xf32>
}

// -----

// A device workspace the plan gave no offset.
// expected-error @+1 {{cannot generate code for @unplaced_workspace: its device workspace has no 'ckpt.device_workspace_offset' (the memory plan is incomplete; re-run ckpt-plan-memory)}}
func.func @unplaced_workspace(%x: tensor<4xf32> {ckpt.offset = 0 : i64}) -> tensor<4xf32>
    attributes {ckpt.arena_size = 33554944 : i64, ckpt.arena_lower_bound = 33554944 : i64,
                ckpt.device_workspace = 33554688 : i64} {
  return %x : tensor<4xf32>
}

// -----

// The runtime's scratch must be 256-byte aligned.
// expected-error @+1 {{cannot generate CUDA code for @misaligned_workspace: its device workspace is at arena offset 64, which is not 256-byte aligned (plan with alignment=256)}}
func.func @misaligned_workspace(%x: tensor<4xf32> {ckpt.offset = 0 : i64}) -> tensor<4xf32>
    attributes {ckpt.arena_size = 33554752 : i64, ckpt.arena_lower_bound = 33554704 : i64,
                ckpt.device_workspace = 33554688 : i64, ckpt.device_workspace_offset = 64 : i64} {
  return %x : tensor<4xf32>
}
