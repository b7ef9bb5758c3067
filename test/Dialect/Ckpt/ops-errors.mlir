// Verifier errors of matrix products, elementwise ops, activations and softmax.
// Every case is one invalid op; the message is the verifier's exact text.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

// matmul_acc: the accumulator has the result's shape.
func.func @matmul_acc_shape(%s: tensor<8x16xf32>, %g: tensor<4x16xf32>, %x: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.matmul_acc' op expects an accumulator of shape 16x8, got 8x16}}
  %0 = ckpt.matmul_acc bwd %s + %g, %x {transpose_lhs} : tensor<8x16xf32>, tensor<4x16xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
  return
}

// -----

// matmul_acc: K of op(lhs) and op(rhs) must agree.
func.func @matmul_acc_contraction(%s: tensor<16x8xf32>, %g: tensor<4x16xf32>, %x: tensor<5x8xf32>) {
  // expected-error @+1 {{'ckpt.matmul_acc' op contraction dimensions differ: lhs has K = 4, rhs has K = 5}}
  %0 = ckpt.matmul_acc bwd %s + %g, %x {transpose_lhs} : tensor<16x8xf32>, tensor<4x16xf32>, tensor<5x8xf32> -> tensor<16x8xf32>
  return
}

// -----

// matmul: lhs must be 2-D.
func.func @matmul_lhs_rank(%a0: tensor<2x4x8xf32>, %a1: tensor<8x16xf32>) {
  // expected-error @+1 {{'ckpt.matmul' op expects lhs of rank 2, got rank 3}}
  %0 = ckpt.matmul fwd %a0, %a1 : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

// matmul: rhs must be 2-D.
func.func @matmul_rhs_rank(%a0: tensor<4x8xf32>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.matmul' op expects rhs of rank 2, got rank 1}}
  %0 = ckpt.matmul fwd %a0, %a1 : tensor<4x8xf32>, tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

// matmul: K of op(lhs) and op(rhs) must agree (transpose_rhs applies).
func.func @matmul_contraction(%a0: tensor<4x8xf32>, %a1: tensor<8x16xf32>) {
  // expected-error @+1 {{'ckpt.matmul' op contraction dimensions differ: lhs has K = 8, rhs has K = 16}}
  %0 = ckpt.matmul fwd %a0, %a1 {transpose_rhs} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
  return
}

// -----

// matmul: the result is MxN.
func.func @matmul_result_shape(%a0: tensor<4x8xf32>, %a1: tensor<8x16xf32>) {
  // expected-error @+1 {{'ckpt.matmul' op expects a result of shape 4x16, got 16x4}}
  %0 = ckpt.matmul fwd %a0, %a1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<16x4xf32>
  return
}

// -----

// matmul: operands and result share one element type.
func.func @matmul_element_type(%a0: tensor<4x8xf32>, %a1: tensor<8x16xbf16>) {
  // expected-error @+1 {{'ckpt.matmul' op requires matching element types, but got 'f32' and 'bf16'}}
  %0 = ckpt.matmul fwd %a0, %a1 : tensor<4x8xf32>, tensor<8x16xbf16> -> tensor<4x16xf32>
  return
}

// -----

// matmul: integer tensors are not float tensors.
func.func @matmul_integer(%a0: tensor<4x8xi32>, %a1: tensor<8x16xi32>) {
  // expected-error @+1 {{'ckpt.matmul' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = ckpt.matmul fwd %a0, %a1 : tensor<4x8xi32>, tensor<8x16xi32> -> tensor<4x16xi32>
  return
}

// -----

// matmul: dynamic shapes are rejected.
func.func @matmul_dynamic(%a0: tensor<?x8xf32>, %a1: tensor<8x16xf32>) {
  // expected-error @+1 {{'ckpt.matmul' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<?x8xf32>'}}
  %0 = ckpt.matmul fwd %a0, %a1 : tensor<?x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

// batch_matmul: operands have rank >= 3.
func.func @batch_matmul_rank(%a0: tensor<4x8xf32>, %a1: tensor<8x16xf32>) {
  // expected-error @+1 {{'ckpt.batch_matmul' op expects lhs of rank >= 3, got rank 2}}
  %0 = ckpt.batch_matmul fwd %a0, %a1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return
}

// -----

// batch_matmul: rhs has the rank of lhs.
func.func @batch_matmul_rank_mismatch(%a0: tensor<2x4x8xf32>, %a1: tensor<1x2x8x16xf32>) {
  // expected-error @+1 {{'ckpt.batch_matmul' op expects rhs (the rank of lhs) of rank 3, got rank 4}}
  %0 = ckpt.batch_matmul fwd %a0, %a1 : tensor<2x4x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x4x16xf32>
  return
}

// -----

// batch_matmul: batch dimensions must broadcast.
func.func @batch_matmul_batch(%a0: tensor<2x4x8xf32>, %a1: tensor<3x8x16xf32>) {
  // expected-error @+1 {{'ckpt.batch_matmul' op batch dimensions 2 and 3 are not broadcast-compatible}}
  %0 = ckpt.batch_matmul fwd %a0, %a1 : tensor<2x4x8xf32>, tensor<3x8x16xf32> -> tensor<2x4x16xf32>
  return
}

// -----

// batch_matmul: K must agree.
func.func @batch_matmul_contraction(%a0: tensor<2x4x8xf32>, %a1: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'ckpt.batch_matmul' op contraction dimensions differ: lhs has K = 8, rhs has K = 4}}
  %0 = ckpt.batch_matmul fwd %a0, %a1 : tensor<2x4x8xf32>, tensor<2x4x16xf32> -> tensor<2x4x16xf32>
  return
}

// -----

// batch_matmul: the result has the broadcast batch shape.
func.func @batch_matmul_result(%a0: tensor<2x1x4x8xf32>, %a1: tensor<1x3x8x16xf32>) {
  // expected-error @+1 {{'ckpt.batch_matmul' op expects a result of shape 2x3x4x16, got 2x1x4x16}}
  %0 = ckpt.batch_matmul fwd %a0, %a1 : tensor<2x1x4x8xf32>, tensor<1x3x8x16xf32> -> tensor<2x1x4x16xf32>
  return
}

// -----

// linear: a rank-0 input has no features.
func.func @linear_input_rank(%a0: tensor<f32>, %a1: tensor<16x8xf32>) {
  // expected-error @+1 {{'ckpt.linear' op expects input of rank >= 1, got rank 0}}
  %0 = ckpt.linear fwd %a0, %a1 : (tensor<f32>, tensor<16x8xf32>) -> tensor<16xf32>
  return
}

// -----

// linear: the weight is 2-D.
func.func @linear_weight_rank(%a0: tensor<4x8xf32>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.linear' op expects weight of rank 2, got rank 1}}
  %0 = ckpt.linear fwd %a0, %a1 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  return
}

// -----

// linear: input features equal the weight's second dimension.
func.func @linear_features(%a0: tensor<4x8xf32>, %a1: tensor<16x4xf32>) {
  // expected-error @+1 {{'ckpt.linear' op input features (8) differ from the weight's second dimension (4)}}
  %0 = ckpt.linear fwd %a0, %a1 : (tensor<4x8xf32>, tensor<16x4xf32>) -> tensor<4x16xf32>
  return
}

// -----

// linear: the bias has shape [out].
func.func @linear_bias(%a0: tensor<4x8xf32>, %a1: tensor<16x8xf32>, %a2: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.linear' op expects bias of shape 16, got 8}}
  %0 = ckpt.linear fwd %a0, %a1, %a2 : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x16xf32>
  return
}

// -----

// linear: the bias has the input element type.
func.func @linear_bias_type(%a0: tensor<4x8xf32>, %a1: tensor<16x8xf32>, %a2: tensor<16xbf16>) {
  // expected-error @+1 {{'ckpt.linear' op requires matching element types, but got 'f32' and 'bf16'}}
  %0 = ckpt.linear fwd %a0, %a1, %a2 : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xbf16>) -> tensor<4x16xf32>
  return
}

// -----

// linear: the result is [..., out].
func.func @linear_result(%a0: tensor<4x8xf32>, %a1: tensor<16x8xf32>) {
  // expected-error @+1 {{'ckpt.linear' op expects a result of shape 4x16, got 4x8}}
  %0 = ckpt.linear fwd %a0, %a1 : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// add: operand shapes must broadcast.
func.func @add_broadcast(%a0: tensor<4x8xf32>, %a1: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.add' op operand shapes 4x8 and 4 are not broadcast-compatible}}
  %0 = ckpt.add fwd %a0, %a1 : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return
}

// -----

// sub: operand shapes must broadcast.
func.func @sub_broadcast(%a0: tensor<4x8xf32>, %a1: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.sub' op operand shapes 4x8 and 4 are not broadcast-compatible}}
  %0 = ckpt.sub fwd %a0, %a1 : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return
}

// -----

// mul: operand shapes must broadcast.
func.func @mul_broadcast(%a0: tensor<4x8xf32>, %a1: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.mul' op operand shapes 4x8 and 4 are not broadcast-compatible}}
  %0 = ckpt.mul fwd %a0, %a1 : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return
}

// -----

// div: operand shapes must broadcast.
func.func @div_broadcast(%a0: tensor<4x8xf32>, %a1: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.div' op operand shapes 4x8 and 4 are not broadcast-compatible}}
  %0 = ckpt.div fwd %a0, %a1 : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return
}

// -----

// add: the result has the broadcast shape, not a larger one.
func.func @add_result_shape(%a0: tensor<4x8xf32>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.add' op expects a result (the broadcast shape) of shape 4x8, got 2x4x8}}
  %0 = ckpt.add fwd %a0, %a1 : tensor<4x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
  return
}

// -----

// mul: element types agree.
func.func @mul_element_type(%a0: tensor<4x8xf32>, %a1: tensor<4x8xf16>) {
  // expected-error @+1 {{'ckpt.mul' op requires matching element types, but got 'f32' and 'f16'}}
  %0 = ckpt.mul fwd %a0, %a1 : tensor<4x8xf32>, tensor<4x8xf16> -> tensor<4x8xf32>
  return
}

// -----

// neg: a float, i32 or i64 tensor is required (i1 has no negation).
func.func @neg_i1(%a0: tensor<4x8xi1>) {
  // expected-error @+1 {{'ckpt.neg' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x8xi1>'}}
  %0 = ckpt.neg fwd %a0 : tensor<4x8xi1>
  return
}

// -----

// exp: a float tensor is required.
func.func @exp_integer(%a0: tensor<4x8xi32>) {
  // expected-error @+1 {{'ckpt.exp' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = ckpt.exp fwd %a0 : tensor<4x8xi32>
  return
}

// -----

// log: a float tensor is required.
func.func @log_integer(%a0: tensor<4x8xi32>) {
  // expected-error @+1 {{'ckpt.log' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = ckpt.log fwd %a0 : tensor<4x8xi32>
  return
}

// -----

// sqrt: a float tensor is required.
func.func @sqrt_integer(%a0: tensor<4x8xi32>) {
  // expected-error @+1 {{'ckpt.sqrt' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = ckpt.sqrt fwd %a0 : tensor<4x8xi32>
  return
}

// -----

// rsqrt: a float tensor is required.
func.func @rsqrt_integer(%a0: tensor<4x8xi32>) {
  // expected-error @+1 {{'ckpt.rsqrt' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = ckpt.rsqrt fwd %a0 : tensor<4x8xi32>
  return
}

// -----

// tanh: a float tensor is required.
func.func @tanh_integer(%a0: tensor<4x8xi32>) {
  // expected-error @+1 {{'ckpt.tanh' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = ckpt.tanh fwd %a0 : tensor<4x8xi32>
  return
}

// -----

// relu: a float tensor is required.
func.func @relu_integer(%a0: tensor<4x8xi32>) {
  // expected-error @+1 {{'ckpt.relu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = ckpt.relu fwd %a0 : tensor<4x8xi32>
  return
}

// -----

// sigmoid: a float tensor is required.
func.func @sigmoid_integer(%a0: tensor<4x8xi32>) {
  // expected-error @+1 {{'ckpt.sigmoid' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = ckpt.sigmoid fwd %a0 : tensor<4x8xi32>
  return
}

// -----

// silu: a float tensor is required.
func.func @silu_integer(%a0: tensor<4x8xi32>) {
  // expected-error @+1 {{'ckpt.silu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = ckpt.silu fwd %a0 : tensor<4x8xi32>
  return
}

// -----

// exp: operand and result types are the same (generic form).
func.func @exp_result_type(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.exp' op requires the same type for all operands and results}}
  %0 = "ckpt.exp"(%a0) <{phase = 0 : i32}> : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  return
}

// -----

// relu: the phase is required (generic form).
func.func @relu_missing_phase(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.relu' op requires attribute 'phase'}}
  %0 = "ckpt.relu"(%a0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// pow: the exponent is finite.
func.func @pow_nonfinite(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.pow' op expects a finite exponent}}
  %0 = ckpt.pow fwd %a0, 0x7FF0000000000000 : tensor<4x8xf32>
  return
}

// -----

// convert: the shape does not change.
func.func @convert_shape(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.convert' op requires the same shape for all operands and results}}
  %0 = ckpt.convert fwd %a0 : tensor<4x8xf32> -> tensor<8x4xbf16>
  return
}

// -----

// convert: only the element types of the graph format (no i8).
func.func @convert_integer(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.convert' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x8xi8>'}}
  %0 = ckpt.convert fwd %a0 : tensor<4x8xf32> -> tensor<4x8xi8>
  return
}

// -----

// gelu: f64 is not a supported float type.
func.func @gelu_f64(%a0: tensor<4x8xf64>) {
  // expected-error @+1 {{'ckpt.gelu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xf64>'}}
  %0 = ckpt.gelu fwd erf %a0 : tensor<4x8xf64>
  return
}

// -----

// gelu: the approximation is erf or tanh.
func.func @gelu_bad_form(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{custom op 'ckpt.gelu' expected string or keyword containing one of the following enum values for attribute 'approximation' [erf, tanh]}}
  %0 = ckpt.gelu fwd sigmoid %a0 : tensor<4x8xf32>
  return
}

// -----

// relu_grad: gradient and saved tensor have the same type (generic form).
func.func @relu_grad_types(%a0: tensor<4x8xf32>, %a1: tensor<4x8xbf16>) {
  // expected-error @+1 {{'ckpt.relu_grad' op requires the same type for all operands and results}}
  %0 = "ckpt.relu_grad"(%a0, %a1) <{phase = 1 : i32}> : (tensor<4x8xf32>, tensor<4x8xbf16>) -> tensor<4x8xf32>
  return
}

// -----

// sigmoid_grad: gradient and saved tensor have the same type (generic form).
func.func @sigmoid_grad_types(%a0: tensor<4x8xf32>, %a1: tensor<4x8xbf16>) {
  // expected-error @+1 {{'ckpt.sigmoid_grad' op requires the same type for all operands and results}}
  %0 = "ckpt.sigmoid_grad"(%a0, %a1) <{phase = 1 : i32}> : (tensor<4x8xf32>, tensor<4x8xbf16>) -> tensor<4x8xf32>
  return
}

// -----

// tanh_grad: gradient and saved tensor have the same type (generic form).
func.func @tanh_grad_types(%a0: tensor<4x8xf32>, %a1: tensor<4x8xbf16>) {
  // expected-error @+1 {{'ckpt.tanh_grad' op requires the same type for all operands and results}}
  %0 = "ckpt.tanh_grad"(%a0, %a1) <{phase = 1 : i32}> : (tensor<4x8xf32>, tensor<4x8xbf16>) -> tensor<4x8xf32>
  return
}

// -----

// silu_grad: gradient and saved tensor have the same type (generic form).
func.func @silu_grad_types(%a0: tensor<4x8xf32>, %a1: tensor<4x8xbf16>) {
  // expected-error @+1 {{'ckpt.silu_grad' op requires the same type for all operands and results}}
  %0 = "ckpt.silu_grad"(%a0, %a1) <{phase = 1 : i32}> : (tensor<4x8xf32>, tensor<4x8xbf16>) -> tensor<4x8xf32>
  return
}

// -----

// gelu_grad: gradient and saved input have the same type (generic form).
func.func @gelu_grad_types(%a0: tensor<4x8xf32>, %a1: tensor<8x4xf32>) {
  // expected-error @+1 {{'ckpt.gelu_grad' op requires the same type for all operands and results}}
  %0 = "ckpt.gelu_grad"(%a0, %a1) <{approximation = 1 : i32, phase = 1 : i32}> : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
  return
}

// -----

// clamp: the lower bound is not above the upper one.
func.func @clamp_min_above_max(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.clamp' op expects min <= max, got min = 6.000000e+00 and max = 0.000000e+00}}
  %0 = ckpt.clamp fwd %a0 min 6.0 max 0.0 : tensor<4x8xf32>
  return
}

// -----

// clamp: the bounds are finite (graph documents hold no infinities).
func.func @clamp_infinite_max(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.clamp' op expects a finite max}}
  %0 = ckpt.clamp fwd %a0 min 0.0 max 0x7FF0000000000000 : tensor<4x8xf32>
  return
}

// -----

// clamp: a NaN bound is refused.
func.func @clamp_nan_min(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.clamp' op expects a finite min}}
  %0 = ckpt.clamp fwd %a0 min 0x7FF8000000000000 max 6.0 : tensor<4x8xf32>
  return
}

// -----

// hardswish_grad: the gradient and the saved input have one type.
func.func @hardswish_grad_shape_mismatch(%dy: tensor<4x8xf32>, %x: tensor<4x9xf32>) {
  // expected-error @+1 {{'ckpt.hardswish_grad' op requires the same type for all operands and results}}
  %0 = "ckpt.hardswish_grad"(%dy, %x) <{phase = 1 : i32}> : (tensor<4x8xf32>, tensor<4x9xf32>) -> tensor<4x8xf32>
  return
}

// -----

// hardsigmoid_grad: float tensors only.
func.func @hardsigmoid_grad_integer(%dy: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.hardsigmoid_grad' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = ckpt.hardsigmoid_grad bwd %dy, %dy : tensor<4xi64>
  return
}

// -----

// hardswish: the result has the input's element type.
func.func @hardswish_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.hardswish' op requires the same type for all operands and results}}
  %0 = "ckpt.hardswish"(%x) <{phase = 0 : i32}> : (tensor<4xf32>) -> tensor<4xbf16>
  return
}

// -----

// sin: float tensors only.
func.func @sin_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'ckpt.sin' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = ckpt.sin fwd %x : tensor<4xi32>
  return
}

// -----

// abs: f32, f16, bf16, i32 or i64; not i1.
func.func @abs_i1(%x: tensor<4xi1>) {
  // expected-error @+1 {{'ckpt.abs' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values}}
  %0 = ckpt.abs fwd %x : tensor<4xi1>
  return
}

// -----

// abs: the result has the input's type (no widening of i32 to i64).
func.func @abs_result_type(%x: tensor<4xi32>) {
  // expected-error @+1 {{'ckpt.abs' op requires the same type for all operands and results}}
  %0 = "ckpt.abs"(%x) <{phase = 0 : i32}> : (tensor<4xi32>) -> tensor<4xi64>
  return
}


// -----

// minimum: operand shapes must broadcast.
func.func @minimum_broadcast(%a0: tensor<4x8xi64>, %a1: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.minimum' op operand shapes 4x8 and 4 are not broadcast-compatible}}
  %0 = ckpt.minimum fwd %a0, %a1 : tensor<4x8xi64>, tensor<4xi64> -> tensor<4x8xi64>
  return
}

// -----

// maximum: element types agree (no i32 / i64 promotion).
func.func @maximum_element_type(%a0: tensor<4x8xi64>, %a1: tensor<4x8xi32>) {
  // expected-error @+1 {{'ckpt.maximum' op requires matching element types, but got 'i64' and 'i32'}}
  %0 = ckpt.maximum fwd %a0, %a1 : tensor<4x8xi64>, tensor<4x8xi32> -> tensor<4x8xi64>
  return
}

// -----

// maximum: the result has the broadcast shape.
func.func @maximum_result_shape(%a0: tensor<4x1xf32>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.maximum' op expects a result (the broadcast shape) of shape 4x8, got 4x1}}
  %0 = ckpt.maximum fwd %a0, %a1 : tensor<4x1xf32>, tensor<8xf32> -> tensor<4x1xf32>
  return
}

// -----

// minimum: no i1 operands (torch.minimum of bools is a logical and; use
// ckpt.logical_and).
func.func @minimum_i1(%a0: tensor<4xi1>, %a1: tensor<4xi1>) {
  // expected-error @+1 {{'ckpt.minimum' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values}}
  %0 = ckpt.minimum fwd %a0, %a1 : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  return
}

// -----

// clamp: the bounds are required (generic form).
func.func @clamp_missing_max(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.clamp' op requires attribute 'max'}}
  %0 = "ckpt.clamp"(%a0) <{min = 0.0 : f64, phase = 0 : i32}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// clamp: integer tensors are refused.
func.func @clamp_integer(%a0: tensor<4x8xi32>) {
  // expected-error @+1 {{'ckpt.clamp' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x8xi32>'}}
  %0 = ckpt.clamp fwd %a0 min 0.0 max 6.0 : tensor<4x8xi32>
  return
}

// -----

// clamp_grad: same bound rules as clamp.
func.func @clamp_grad_min_above_max(%a0: tensor<4x8xf32>, %a1: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.clamp_grad' op expects min <= max, got min = 1.000000e+00 and max = -1.000000e+00}}
  %0 = ckpt.clamp_grad bwd %a0, %a1 min 1.0 max -1.0 : tensor<4x8xf32>
  return
}

// -----

// clamp_grad: gradient and saved input have the same type (generic form).
func.func @clamp_grad_types(%a0: tensor<4x8xf32>, %a1: tensor<4x8xf16>) {
  // expected-error @+1 {{'ckpt.clamp_grad' op requires the same type for all operands and results}}
  %0 = "ckpt.clamp_grad"(%a0, %a1) <{max = 6.0 : f64, min = 0.0 : f64, phase = 1 : i32}> : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf32>
  return
}

// -----

// every op: the phase is fwd, bwd or opt.
func.func @bad_phase(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{custom op 'ckpt.relu' expected string or keyword containing one of the following enum values for attribute 'phase' [fwd, bwd, opt]}}
  %0 = ckpt.relu forward %a0 : tensor<4x8xf32>
  return
}

// -----

// softmax: the axis is below the rank.
func.func @softmax_axis(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.softmax' op axis 2 is out of range for rank 2}}
  %0 = ckpt.softmax fwd %a0 axis 2 : tensor<4x8xf32>
  return
}

// -----

// log_softmax: the axis is below the rank.
func.func @log_softmax_axis(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.log_softmax' op axis 2 is out of range for rank 2}}
  %0 = ckpt.log_softmax fwd %a0 axis 2 : tensor<4x8xf32>
  return
}

// -----

// softmax_grad: the axis is below the rank.
func.func @softmax_grad_axis(%a0: tensor<4x8xf32>, %a1: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.softmax_grad' op axis 5 is out of range for rank 2}}
  %0 = ckpt.softmax_grad bwd %a0, %a1 axis 5 : tensor<4x8xf32>
  return
}

// -----

// log_softmax_grad: the axis is below the rank.
func.func @log_softmax_grad_axis(%a0: tensor<4x8xf32>, %a1: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.log_softmax_grad' op axis 5 is out of range for rank 2}}
  %0 = ckpt.log_softmax_grad bwd %a0, %a1 axis 5 : tensor<4x8xf32>
  return
}

// -----

// softmax: the axis is non-negative (generic form).
func.func @softmax_negative_axis(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.softmax' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "ckpt.softmax"(%a0) <{axis = -1 : i64, phase = 0 : i32}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
