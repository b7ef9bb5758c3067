// Errors of the training-step structure (TrainingStep.cpp) and of the ckpt
// argument, result and operation attributes (CkptDialect.cpp).
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

// Every argument of a step needs a role.
// expected-error @+1 {{argument #1 of a ckpt.step function has no 'ckpt.role'}}
func.func @missing_arg_role(%x: tensor<4xf32> {ckpt.role = #ckpt.role<param>}, %y: tensor<4xf32>)
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %x axes [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Every result of a step needs a role.
// expected-error @+1 {{result #1 of a ckpt.step function has no 'ckpt.role'}}
func.func @missing_result_role(%x: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32>) attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %x axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %x : tensor<f32>, tensor<4xf32>
}

// -----

// An argument cannot have a result-only role, even outside a step.
// expected-error @+1 {{argument #0 has role 'loss', which only results may have (arguments are param, input, seed or state)}}
func.func @arg_with_result_role(%x: tensor<f32> {ckpt.role = #ckpt.role<loss>}) {
  return
}

// -----

// The argument role is reported before the step checks that depend on it: a
// grad_of naming an argument with the wrong kind of role reports the role.
// expected-error @+1 {{argument #0 has role 'grad', which only results may have (arguments are param, input, seed or state)}}
func.func @arg_with_result_role_in_step(%x: tensor<4xf32> {ckpt.role = #ckpt.role<grad>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 0})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %x axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %x : tensor<f32>, tensor<4xf32>
}

// -----

// A result cannot have an argument-only role.
// expected-error @+1 {{result #1 has role 'param', which only arguments may have (results are loss, grad, state or output)}}
func.func @result_with_arg_role(%x: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %x axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %x : tensor<f32>, tensor<4xf32>
}

// -----

// A result cannot be a seed either, outside a step too.
// expected-error @+1 {{result #0 has role 'seed', which only arguments may have (results are loss, grad, state or output)}}
func.func @result_seed() -> (tensor<f32> {ckpt.role = #ckpt.role<seed>}) {
  %l = ckpt.opaque fwd "k"() {flops = 0 : i64} : () -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A role that is not a #ckpt.role is reported as such, not as a missing role.
// expected-error @+1 {{argument #0: 'ckpt.role' must be a #ckpt.role attribute}}
func.func @arg_role_not_a_role(%x: tensor<4xf32> {ckpt.role = 0 : i32})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %x axes [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The same for results.
// expected-error @+1 {{result #0: 'ckpt.role' must be a #ckpt.role attribute}}
func.func @result_role_not_a_role(%x: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = "loss"}) attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %x axes [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Unknown ckpt argument attributes are rejected.
// expected-error @+1 {{unknown ckpt argument attribute 'ckpt.grad_of' on argument #0}}
func.func @unknown_arg_attr(%x: tensor<4xf32> {ckpt.role = #ckpt.role<param>, ckpt.grad_of = 0})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %x axes [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Unknown ckpt result attributes are rejected.
// expected-error @+1 {{unknown ckpt result attribute 'ckpt.name' on result #0}}
func.func @unknown_result_attr() -> (tensor<f32> {ckpt.role = #ckpt.role<loss>, ckpt.name = "l"}) {
  %l = ckpt.opaque fwd "k"() {flops = 0 : i64} : () -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Unknown ckpt operation attributes are rejected, on functions ...
// expected-error @+1 {{unknown ckpt attribute 'ckpt.training'}}
func.func @unknown_func_attr() attributes {ckpt.training} {
  return
}

// -----

// ... and on ckpt ops.
func.func @unknown_op_attr(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown ckpt attribute 'ckpt.role'}}
  %0 = ckpt.relu fwd %x {ckpt.role = #ckpt.role<param>} : tensor<4xf32>
  return
}

// -----

// ckpt.step is a unit attribute.
// expected-error @+1 {{'ckpt.step' must be a unit attribute}}
func.func @step_not_unit() -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step = true} {
  %l = ckpt.opaque fwd "k"() {flops = 0 : i64} : () -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// ckpt.step only marks a func.func.
// expected-error @+1 {{'ckpt.step' may only mark a func.func}}
module attributes {ckpt.step} {
}

// -----

// A step has a body.
// expected-error @+1 {{a ckpt.step function must have a body}}
func.func private @external_step(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step}

// -----

// A step is a single block.
// expected-error @+1 {{a ckpt.step function must have a single block}}
func.func @multi_block_step() -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  %l = ckpt.opaque fwd "k"() {flops = 0 : i64} : () -> tensor<f32>
  return %l : tensor<f32>
^bb1:
  %m = ckpt.opaque fwd "k"() {flops = 0 : i64} : () -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// A gradient result names its parameter.
// expected-error @+1 {{gradient result #1 has no 'ckpt.grad_of' naming its parameter}}
func.func @grad_of_missing(%w: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<grad>})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %w axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// grad_of names an existing argument.
// expected-error @+1 {{gradient result #1 names argument #1, but the function has 1 arguments}}
func.func @grad_of_out_of_range(%w: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 1})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %w axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// grad_of is non-negative.
// expected-error @+1 {{gradient result #1 names argument #-1, but the function has 1 arguments}}
func.func @grad_of_negative(%w: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = -1})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %w axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// grad_of is an integer.
// expected-error @+1 {{result #1: 'ckpt.grad_of' must be an integer argument index}}
func.func @grad_of_not_integer(%w: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = "w"})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %w axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// grad_of fits in 64 bits: a wider value is not truncated into some index.
// expected-error @+1 {{result #1: 'ckpt.grad_of' must be an integer argument index}}
func.func @grad_of_too_wide(%w: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 18446744073709551616 : i128})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %w axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// grad_of is signless (or an index).
// expected-error @+1 {{result #1: 'ckpt.grad_of' must be an integer argument index}}
func.func @grad_of_unsigned(%w: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 0 : ui64})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %w axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// grad_of names a parameter, not an input.
// expected-error @+1 {{gradient result #1 names argument #0, which is not a parameter}}
func.func @grad_of_non_param(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 0})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %x axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %x : tensor<f32>, tensor<4xf32>
}

// -----

// A gradient has its parameter's type.
// expected-error @+1 {{gradient result #1 has type 'tensor<4xbf16>' but its parameter (argument #0) has type 'tensor<4xf32>'}}
func.func @grad_of_type_mismatch(%w: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xbf16> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 0})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %w axes [0] : tensor<4xf32> -> tensor<f32>
  %g = ckpt.convert bwd %w : tensor<4xf32> -> tensor<4xbf16>
  return %l, %g : tensor<f32>, tensor<4xbf16>
}

// -----

// A parameter has at most one gradient.
// expected-error @+1 {{results #1 and #2 are both gradients of argument #0}}
func.func @grad_of_duplicate(%w: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 0},
        tensor<4xf32> {ckpt.role = #ckpt.role<grad>, ckpt.grad_of = 0})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %w axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %w, %w : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Only gradient results carry grad_of.
// expected-error @+1 {{result #1 has 'ckpt.grad_of' but its role is not grad}}
func.func @grad_of_on_state(%w: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<state>, ckpt.grad_of = 0})
    attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %w axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// A step has a loss.
// expected-error @+1 {{a ckpt.step function must have exactly one loss result, found 0}}
func.func @no_loss(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>})
    -> (tensor<4xf32> {ckpt.role = #ckpt.role<output>}) attributes {ckpt.step} {
  return %x : tensor<4xf32>
}

// -----

// A step has only one loss.
// expected-error @+1 {{a ckpt.step function must have exactly one loss result, found 2}}
func.func @two_losses(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %x axes [0] : tensor<4xf32> -> tensor<f32>
  return %l, %l : tensor<f32>, tensor<f32>
}

// -----

// The loss is a scalar.
// expected-error @+1 {{loss result #0 must be a rank-0 float tensor, got 'tensor<4xf32>'}}
func.func @non_scalar_loss(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>})
    -> (tensor<4xf32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  return %x : tensor<4xf32>
}

// -----

// The loss is a float tensor.
// expected-error @+1 {{loss result #0 must be a rank-0 float tensor, got 'tensor<i64>'}}
func.func @integer_loss(%x: tensor<i64> {ckpt.role = #ckpt.role<input>})
    -> (tensor<i64> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  return %x : tensor<i64>
}

// -----

// The loss is a tensor, not a bare float.
// expected-error @+1 {{loss result #0 must be a rank-0 float tensor, got 'f32'}}
func.func @bare_float_loss(%x: f32 {ckpt.role = #ckpt.role<input>})
    -> (f32 {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  return %x : f32
}

// -----

// A step contains only ckpt ops (and the return).
func.func @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @non_ckpt_op(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  // expected-error @+1 {{'func.call' op is not a ckpt operation and has no cost model; a ckpt.step function may only contain ckpt ops (use ckpt.opaque for custom kernels)}}
  %y = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %l = ckpt.reduce_sum fwd %y axes [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A ckpt op without a phase is reported by its own verifier, not as a
// non-ckpt op.
func.func @missing_phase_in_step(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  // expected-error @+1 {{'ckpt.relu' op requires attribute 'phase'}}
  %y = "ckpt.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %l = ckpt.reduce_sum fwd %y axes [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A forward op cannot use a backward value; the note points at its definition.
func.func @fwd_uses_bwd(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  // expected-note @+1 {{operand defined here}}
  %b = ckpt.relu bwd %x : tensor<4xf32>
  // expected-error @+1 {{'ckpt.reduce_sum' op is in phase 'fwd' but operand #0 comes from a later phase ('bwd')}}
  %l = ckpt.reduce_sum fwd %b axes [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A forward op cannot use an optimizer value.
func.func @fwd_uses_opt(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>}, %w: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  // expected-note @+1 {{operand defined here}}
  %p = ckpt.sgd_update opt %w, %x lr 1.000000e-01 : tensor<4xf32>
  // expected-error @+1 {{'ckpt.mul' op is in phase 'fwd' but operand #1 comes from a later phase ('opt')}}
  %y = ckpt.mul fwd %x, %p : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %l = ckpt.reduce_sum fwd %y axes [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A backward op cannot use an optimizer value.
func.func @bwd_uses_opt(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>}, %w: tensor<4xf32> {ckpt.role = #ckpt.role<param>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}, tensor<4xf32> {ckpt.role = #ckpt.role<output>}) attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %x axes [0] : tensor<4xf32> -> tensor<f32>
  // expected-note @+1 {{operand defined here}}
  %p = ckpt.sgd_update opt %w, %x lr 1.000000e-01 : tensor<4xf32>
  // expected-error @+1 {{'ckpt.relu_grad' op is in phase 'bwd' but operand #1 comes from a later phase ('opt')}}
  %g = ckpt.relu_grad bwd %x, %p : tensor<4xf32>
  return %l, %g : tensor<f32>, tensor<4xf32>
}

// -----

// A forward op cannot use the gradient seed.
func.func @fwd_uses_seed(%x: tensor<4xf32> {ckpt.role = #ckpt.role<input>}, %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>})
    -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  %l = ckpt.reduce_sum fwd %x axes [0] : tensor<4xf32> -> tensor<f32>
  // expected-error @+1 {{'ckpt.add' op is a forward op but operand #1 is a gradient seed (argument #1), which only backward ops may use}}
  %l2 = ckpt.add fwd %l, %seed : tensor<f32>, tensor<f32> -> tensor<f32>
  return %l2 : tensor<f32>
}

// -----

// An argument attribute array that does not match the arguments is reported
// by func.func (the step verifier must not read past it).
// expected-error @+1 {{'func.func' op expects argument attribute array to have the same number of elements as the number of function arguments, got 0, but expected 1}}
"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "bad_arg_attrs", arg_attrs = [], res_attrs = [{ckpt.role = #ckpt.role<loss>}]}> ({
^bb0(%s: tensor<f32>):
  %0 = ckpt.relu fwd %s : tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) {ckpt.step} : () -> ()

// -----

// The same for an entry block that does not match the function type.
// expected-error @+1 {{'func.func' op entry block must have 0 arguments to match function signature}}
"func.func"() <{function_type = () -> tensor<f32>, sym_name = "bad_block_args", arg_attrs = [], res_attrs = [{ckpt.role = #ckpt.role<loss>}]}> ({
^bb0(%s: tensor<f32>):
  %0 = ckpt.relu fwd %s : tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) {ckpt.step} : () -> ()
