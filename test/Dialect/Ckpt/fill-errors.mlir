// Verifier errors of ckpt.fill. Every case is one invalid op; the message is
// the verifier's exact text.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

// A fill value is never NaN.
func.func @fill_nan() {
  // expected-error @+1 {{'ckpt.fill' op expects a non-NaN value}}
  %0 = ckpt.fill fwd 0x7FF8000000000000 : tensor<4xf32>
  return
}

// -----

// An index fill value is integral.
func.func @fill_index_fraction() {
  // expected-error @+1 {{'ckpt.fill' op expects an integral value in the range of 'i64', got 1.5}}
  %0 = ckpt.fill fwd 1.500000e+00 : tensor<4xi64>
  return
}

// -----

// An index fill value fits the element type (2^31 does not fit i32).
func.func @fill_index_range() {
  // expected-error @+1 {{'ckpt.fill' op expects an integral value in the range of 'i32', got 2147483648}}
  %0 = ckpt.fill fwd 2147483648.0 : tensor<i32>
  return
}

// -----

// Below the range: -2^31 - 1 does not fit i32.
func.func @fill_index_range_low() {
  // expected-error @+1 {{'ckpt.fill' op expects an integral value in the range of 'i32', got -2147483649}}
  %0 = ckpt.fill fwd -2147483649.0 : tensor<i32>
  return
}

// -----

// 2^63 does not fit i64.
func.func @fill_index_range_i64() {
  // expected-error @+1 {{'ckpt.fill' op expects an integral value in the range of 'i64'}}
  %0 = ckpt.fill fwd 9223372036854775808.0 : tensor<i64>
  return
}

// -----

// Infinities are float-only.
func.func @fill_index_inf() {
  // expected-error @+1 {{'ckpt.fill' op expects an integral value in the range of 'i64', got inf}}
  %0 = ckpt.fill fwd 0x7FF0000000000000 : tensor<i64>
  return
}

// -----

// Masks are not fill results.
func.func @fill_mask() {
  // expected-error @+1 {{'ckpt.fill' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values or statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = ckpt.fill fwd 1.000000e+00 : tensor<4xi1>
  return
}

// -----

// Dynamic shapes are rejected.
func.func @fill_dynamic() {
  // expected-error @+1 {{'ckpt.fill' op result #0 must be statically shaped tensor}}
  %0 = ckpt.fill fwd 1.000000e+00 : tensor<?xf32>
  return
}

// -----

// The value is an f64 attribute.
func.func @fill_value_type() {
  // expected-error @+1 {{'ckpt.fill' op attribute 'value' failed to satisfy constraint: 64-bit float attribute}}
  %0 = "ckpt.fill"() <{phase = 0 : i32, value = 1.0 : f32}> : () -> tensor<f32>
  return
}

// -----

// The op has no operands.
func.func @fill_operand(%x: tensor<f32>) {
  // expected-error @+1 {{'ckpt.fill' op requires zero operands}}
  %0 = "ckpt.fill"(%x) <{phase = 0 : i32, value = 1.0 : f64}> : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// A boolean fill is 0 or 1.
func.func @fill_bool_two() {
  // expected-error @+1 {{'ckpt.fill' op expects an integral value in the range of 'i1', got 2}}
  %0 = ckpt.fill fwd 2.000000e+00 : tensor<4xi1>
  return
}
