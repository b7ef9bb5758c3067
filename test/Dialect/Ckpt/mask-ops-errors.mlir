// Verifier errors of the mask and position-id ops: iota, compare, select,
// the logical ops, tril / triu, pad and gather. Every case is one invalid op;
// the message is the verifier's (or the ODS constraint's) exact text.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

// iota: the result is 1-D.
func.func @iota_rank() {
  // expected-error @+1 {{'ckpt.iota' op expects a result of rank 1, got rank 2}}
  %0 = ckpt.iota fwd start(0) step(1) : tensor<2x4xi64>
  return
}

// -----

// iota: a zero step is refused, as torch.arange refuses it.
func.func @iota_zero_step() {
  // expected-error @+1 {{'ckpt.iota' op expects a non-zero step}}
  %0 = ckpt.iota fwd start(1.5) step(0.0) : tensor<4xf32>
  return
}

// -----

// iota: the numbers are finite.
func.func @iota_infinite_start() {
  // expected-error @+1 {{'ckpt.iota' op expects a finite start}}
  %0 = ckpt.iota fwd start(0x7FF0000000000000 : f64) step(1.0) : tensor<4xf32>
  return
}

// -----

// iota: an integer result needs integral numbers.
func.func @iota_fractional_step() {
  // expected-error @+1 {{'ckpt.iota' op expects an integral start and step for 'i64' elements}}
  %0 = ckpt.iota fwd start(0) step(0.5) : tensor<4xi64>
  return
}

// -----

// iota: the last element 2147483640 + 3 * 3 = 2147483649 does not fit i32.
func.func @iota_overflow() {
  // expected-error @+1 {{'ckpt.iota' op expects every element to fit 'i32', got start 2147483640, step 3 and 4 elements}}
  %0 = ckpt.iota fwd start(2147483640) step(3) : tensor<4xi32>
  return
}

// -----

// iota: no i1 result.
func.func @iota_mask() {
  // expected-error @+1 {{'ckpt.iota' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values or statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = ckpt.iota fwd start(0) step(1) : tensor<4xi1>
  return
}

// -----

// iota: start is an i64 or f64 attribute (generic form).
func.func @iota_string_start() {
  // expected-error @+1 {{'ckpt.iota' op attribute 'start' failed to satisfy constraint: 64-bit signless integer attribute or 64-bit float attribute}}
  %0 = "ckpt.iota"() <{phase = 0 : i32, start = "zero", step = 1 : i64}> : () -> tensor<4xi64>
  return
}

// -----

// compare: both operands have one element type.
func.func @compare_types(%a: tensor<4xf32>, %b: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.compare' op requires matching element types, but got 'f32' and 'i64'}}
  %0 = ckpt.compare fwd lt %a, %b : tensor<4xf32>, tensor<4xi64> -> tensor<4xi1>
  return
}

// -----

// compare: the operand shapes broadcast.
func.func @compare_broadcast(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.compare' op operand shapes 4x8, 4 are not broadcast-compatible}}
  %0 = ckpt.compare fwd eq %a, %b : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xi1>
  return
}

// -----

// compare: the result is the broadcast shape.
func.func @compare_result_shape(%a: tensor<1x8xi64>, %b: tensor<8x1xi64>) {
  // expected-error @+1 {{'ckpt.compare' op expects a result (the broadcast shape) of shape 8x8, got 1x8}}
  %0 = ckpt.compare fwd le %a, %b : tensor<1x8xi64>, tensor<8x1xi64> -> tensor<1x8xi1>
  return
}

// -----

// compare: the result is an i1 mask.
func.func @compare_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.compare' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = ckpt.compare fwd gt %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

// compare: an unknown predicate.
func.func @compare_predicate(%a: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'ckpt.compare' expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = ckpt.compare fwd gte %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  return
}

// -----

// select: the condition is an i1 mask.
func.func @select_cond_type(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = ckpt.select fwd %c, %a, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

// select: both choices have the result's element type.
func.func @select_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'ckpt.select' op requires matching element types, but got 'f32' and 'f16'}}
  %0 = ckpt.select fwd %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return
}

// -----

// select: the three shapes broadcast together.
func.func @select_broadcast(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.select' op operand shapes 3, 4 are not broadcast-compatible}}
  %0 = ckpt.select fwd %c, %a, %a : tensor<3xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

// select: the result has the broadcast shape of all three.
func.func @select_result_shape(%c: tensor<2x1xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.select' op expects a result (the broadcast shape) of shape 2x4, got 4}}
  %0 = ckpt.select fwd %c, %a, %a : tensor<2x1xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

// logical_and: i1 operands only.
func.func @logical_and_type(%a: tensor<4xi32>) {
  // expected-error @+1 {{'ckpt.logical_and' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = ckpt.logical_and fwd %a, %a : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

// logical_or: the operand shapes broadcast.
func.func @logical_or_broadcast(%a: tensor<4xi1>, %b: tensor<3xi1>) {
  // expected-error @+1 {{'ckpt.logical_or' op operand shapes 4 and 3 are not broadcast-compatible}}
  %0 = ckpt.logical_or fwd %a, %b : tensor<4xi1>, tensor<3xi1> -> tensor<4xi1>
  return
}

// -----

// logical_not: i1 only.
func.func @logical_not_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.logical_not' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = ckpt.logical_not fwd %a : tensor<4xf32>
  return
}

// -----

// tril: at least two dimensions, as torch.tril.
func.func @tril_rank(%a: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.tril' op expects an input of rank 2 or more, got rank 1}}
  %0 = ckpt.tril fwd %a : tensor<8xf32>
  return
}

// -----

// triu: the diagonal is an i64 (generic form).
func.func @triu_diagonal_type(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{Invalid attribute `diagonal` in property conversion: 1.000000e+00 : f64}}
  %0 = "ckpt.triu"(%a) <{phase = 0 : i32, diagonal = 1.0 : f64}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

// pad: one low and one high pad per dimension.
func.func @pad_count(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.pad' op expects one low and one high pad per dimension (2), got 1 and 2}}
  %0 = ckpt.pad fwd %a low [1] high [0, 0] value 0.0 : tensor<4x8xf32> -> tensor<5x8xf32>
  return
}

// -----

// pad: negative pads (crops) are a slice, not a pad.
func.func @pad_negative(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.pad' op expects non-negative pads, got low -1 and high 0 in dimension 1}}
  %0 = ckpt.pad fwd %a low [0, -1] high [0, 0] value 0.0 : tensor<4x8xf32> -> tensor<4x7xf32>
  return
}

// -----

// pad: the result is input + low + high: 8 + 1 + 2 = 11.
func.func @pad_result_shape(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.pad' op expects a result (input + low + high) of shape 4x11, got 4x10}}
  %0 = ckpt.pad fwd %a low [0, 1] high [0, 2] value 0.0 : tensor<4x8xf32> -> tensor<4x10xf32>
  return
}

// -----

// pad: an integer pad value is integral.
func.func @pad_integer_value(%a: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.pad' op expects an integral value in the range of 'i64', got 0.5}}
  %0 = ckpt.pad fwd %a low [1] high [0] value 0.5 : tensor<4xi64> -> tensor<5xi64>
  return
}

// -----

// pad: an i1 pad value is 0 or 1.
func.func @pad_mask_value(%a: tensor<4xi1>) {
  // expected-error @+1 {{'ckpt.pad' op expects an integral value in the range of 'i1', got 2}}
  %0 = ckpt.pad fwd %a low [1] high [0] value 2.0 : tensor<4xi1> -> tensor<5xi1>
  return
}

// -----

// pad: one element type.
func.func @pad_types(%a: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.pad' op requires matching element types, but got 'f32' and 'f16'}}
  %0 = ckpt.pad fwd %a low [1] high [0] value 0.0 : tensor<4xf32> -> tensor<5xf16>
  return
}

// -----

// gather: the index is i64, as torch.gather requires.
func.func @gather_index_type(%x: tensor<4x8xf32>, %i: tensor<4x3xi32>) {
  // expected-error @+1 {{'ckpt.gather' op operand #1 must be statically shaped tensor of 64-bit signless integer values, but got 'tensor<4x3xi32>'}}
  %0 = ckpt.gather fwd %x, %i dim 1 : tensor<4x8xf32>, tensor<4x3xi32> -> tensor<4x3xf32>
  return
}

// -----

// gather: the index has the input's rank.
func.func @gather_index_rank(%x: tensor<4x8xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'ckpt.gather' op expects an index of the input's rank 2, got rank 1}}
  %0 = ckpt.gather fwd %x, %i dim 1 : tensor<4x8xf32>, tensor<3xi64> -> tensor<3xf32>
  return
}

// -----

// gather: dim indexes a dimension.
func.func @gather_dim(%x: tensor<4x8xf32>, %i: tensor<4x3xi64>) {
  // expected-error @+1 {{'ckpt.gather' op dim 2 is out of range for rank 2}}
  %0 = ckpt.gather fwd %x, %i dim 2 : tensor<4x8xf32>, tensor<4x3xi64> -> tensor<4x3xf32>
  return
}

// -----

// gather: off `dim`, the index is no larger than the input (5 > 4 in dimension 0).
func.func @gather_index_size(%x: tensor<4x8xf32>, %i: tensor<5x3xi64>) {
  // expected-error @+1 {{'ckpt.gather' op expects index size 5 in dimension 0 to be at most the input's (4)}}
  %0 = ckpt.gather fwd %x, %i dim 1 : tensor<4x8xf32>, tensor<5x3xi64> -> tensor<5x3xf32>
  return
}

// -----

// gather: the result has the index's shape.
func.func @gather_result_shape(%x: tensor<4x8xf32>, %i: tensor<4x3xi64>) {
  // expected-error @+1 {{'ckpt.gather' op expects a result (the index's shape) of shape 4x3, got 4x8}}
  %0 = ckpt.gather fwd %x, %i dim 1 : tensor<4x8xf32>, tensor<4x3xi64> -> tensor<4x8xf32>
  return
}

// -----

// gather: a negative dim (generic form) is refused by the attribute constraint.
func.func @gather_negative_dim(%x: tensor<4x8xf32>, %i: tensor<4x3xi64>) {
  // expected-error @+1 {{'ckpt.gather' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "ckpt.gather"(%x, %i) <{phase = 0 : i32, dim = -1 : i64}> : (tensor<4x8xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  return
}
