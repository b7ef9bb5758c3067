// Verifier errors of the host copies: a host buffer is read only by
// ckpt.prefetch and the host operand of ckpt.offload_wait (never by a compute
// op, never returned), a wait names the offload of its own source, a
// prefetch copies a host buffer (so nothing offloads a host buffer either:
// the first offload's users are checked).
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

func.func @host_read_by_compute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ckpt.offload' op result is a host buffer: only 'ckpt.prefetch' and the host operand of 'ckpt.offload_wait' may read it, but 'ckpt.relu' reads it as operand #0}}
  %h = ckpt.offload fwd %x : tensor<4xf32>
  // expected-note @+1 {{read here}}
  %y = ckpt.relu fwd %h : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @host_returned(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ckpt.offload' op result is a host buffer: only 'ckpt.prefetch' and the host operand of 'ckpt.offload_wait' may read it, but 'func.return' reads it as operand #0}}
  %h = ckpt.offload fwd %x : tensor<4xf32>
  // expected-note @+1 {{read here}}
  return %h : tensor<4xf32>
}

// -----

func.func @host_as_wait_source(%x: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.offload' op result is a host buffer: only 'ckpt.prefetch' and the host operand of 'ckpt.offload_wait' may read it, but 'ckpt.offload_wait' reads it as operand #0}}
  %h = ckpt.offload fwd %x : tensor<4xf32>
  // expected-note @+1 {{read here}}
  ckpt.offload_wait fwd %h, %h : tensor<4xf32>
  return
}

// -----

func.func @wait_without_offload(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.offload_wait' op expects its host operand to be the result of a 'ckpt.offload'}}
  ckpt.offload_wait fwd %x, %y : tensor<4xf32>
  return
}

// -----

func.func @wait_for_another(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  %h = ckpt.offload fwd %x : tensor<4xf32>
  // expected-error @+1 {{'ckpt.offload_wait' op waits for the offload of another value: its source must be the 'ckpt.offload''s input}}
  ckpt.offload_wait fwd %y, %h : tensor<4xf32>
  return
}

// -----

func.func @prefetch_of_device(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ckpt.prefetch' op expects its operand to be a host buffer (the result of a 'ckpt.offload')}}
  %y = ckpt.prefetch bwd %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @prefetch_type(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  %h = ckpt.offload fwd %x : tensor<4xf32>
  // expected-error @+1 {{'ckpt.prefetch' op requires the same type for all operands and results}}
  %y = "ckpt.prefetch"(%h) <{phase = 1 : i32}> : (tensor<4xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// ckpt.offload_link names the host link of a step's copies: a string.
// expected-error @+1 {{'ckpt.offload_link' must be a non-empty string on a func.func}}
func.func @link_not_a_string() attributes {ckpt.offload_link = 3 : i64} {
  return
}
