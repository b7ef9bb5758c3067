// Verifier errors of normalization, dropout, embedding, loss, reduction, shape and attention ops.
// Every case is one invalid op; the message is the verifier's exact text.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

// layer_norm: the axis is below the rank.
func.func @layer_norm_axis(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.layer_norm' op axis 2 is out of range for rank 2}}
  %y, %m, %r = ckpt.layer_norm fwd %a0 axis 2 eps 1.000000e-05 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

// layer_norm: epsilon is finite.
func.func @layer_norm_epsilon(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.layer_norm' op expects a finite epsilon}}
  %y, %m, %r = ckpt.layer_norm fwd %a0 axis 1 eps 0x7FF8000000000000 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// layer_norm: the result has the input type.
func.func @layer_norm_result_type(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.layer_norm' op expects type 'tensor<4x8xf32>' (the input's), got 'tensor<4x8xf16>'}}
  %y, %m, %r = ckpt.layer_norm fwd %a0 axis 1 eps 1.000000e-05 : (tensor<4x8xf32>) -> (tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// layer_norm: weight/bias have the normalized shape.
func.func @layer_norm_weight_shape(%a0: tensor<4x8xf32>, %a1: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.layer_norm' op expects a weight/bias (the normalized dimensions) of shape 8, got 4}}
  %y, %m, %r = ckpt.layer_norm fwd %a0 weight %a1 axis 1 eps 1.000000e-05 : (tensor<4x8xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// layer_norm: the bias has the input element type.
func.func @layer_norm_bias_type(%a0: tensor<4x8xf32>, %a1: tensor<8xbf16>) {
  // expected-error @+1 {{'ckpt.layer_norm' op requires matching element types, but got 'f32' and 'bf16'}}
  %y, %m, %r = ckpt.layer_norm fwd %a0 bias %a1 axis 1 eps 1.000000e-05 : (tensor<4x8xf32>, tensor<8xbf16>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// layer_norm: statistics have the leading dimensions.
func.func @layer_norm_stats_shape(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.layer_norm' op expects statistics (the leading dimensions) of shape 4, got 8}}
  %y, %m, %r = ckpt.layer_norm fwd %a0 axis 1 eps 1.000000e-05 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// layer_norm: statistics are f32.
func.func @layer_norm_stats_type(%a0: tensor<4x8xbf16>) {
  // expected-error @+1 {{'ckpt.layer_norm' op result #1 must be statically shaped tensor of 32-bit float values, but got 'tensor<4xbf16>'}}
  %y, %m, %r = ckpt.layer_norm fwd %a0 axis 1 eps 1.000000e-05 : (tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4xbf16>, tensor<4xbf16>)
  return
}

// -----

// layer_norm_grad: at most two parameter gradients.
func.func @layer_norm_grad_too_many(%a0: tensor<4x8xf32>, %a1: tensor<4x8xf32>, %a2: tensor<4xf32>, %a3: tensor<4xf32>, %a4: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.layer_norm_grad' op returns at most 2 parameter gradients, got 3}}
  %dx, %g:3 = ckpt.layer_norm_grad bwd %a0, %a1, %a2, %a3 weight %a4 axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// layer_norm_grad: parameter gradients require the weight.
func.func @layer_norm_grad_no_weight(%a0: tensor<4x8xf32>, %a1: tensor<4x8xf32>, %a2: tensor<4xf32>, %a3: tensor<4xf32>, %a4: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.layer_norm_grad' op returns parameter gradients but has no weight operand}}
  %dx, %dw = ckpt.layer_norm_grad bwd %a0, %a1, %a2, %a3 axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
  return
}

// -----

// layer_norm_grad: parameter gradients have the normalized shape.
func.func @layer_norm_grad_param_grad_shape(%a0: tensor<4x8xf32>, %a1: tensor<4x8xf32>, %a2: tensor<4xf32>, %a3: tensor<4xf32>, %a4: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.layer_norm_grad' op expects parameter gradients of shape 8, got 4}}
  %dx, %dw = ckpt.layer_norm_grad bwd %a0, %a1, %a2, %a3 weight %a4 axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return
}

// -----

// layer_norm_grad: the incoming gradient has the input type.
func.func @layer_norm_grad_grad_type(%a0: tensor<4x8xbf16>, %a1: tensor<4x8xf32>, %a2: tensor<4xf32>, %a3: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.layer_norm_grad' op expects type 'tensor<4x8xf32>' (the input's), got 'tensor<4x8xbf16>'}}
  %dx = ckpt.layer_norm_grad bwd %a0, %a1, %a2, %a3 axis 1 : (tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

// rms_norm: rstd has the leading dimensions.
func.func @rms_norm_stats(%a0: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'ckpt.rms_norm' op expects statistics (the leading dimensions) of shape 2, got 2x4}}
  %y, %r = ckpt.rms_norm fwd %a0 axis 1 eps 1.000000e-05 : (tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4xf32>)
  return
}

// -----

// rms_norm: epsilon is finite.
func.func @rms_norm_epsilon(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.rms_norm' op expects a finite epsilon}}
  %y, %r = ckpt.rms_norm fwd %a0 axis 1 eps 0xFFF0000000000000 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return
}

// -----

// rms_norm_grad: at most one parameter gradient.
func.func @rms_norm_grad_too_many(%a0: tensor<4x8xf32>, %a1: tensor<4x8xf32>, %a2: tensor<4xf32>, %a3: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.rms_norm_grad' op returns at most 1 parameter gradients, got 2}}
  %dx, %g:2 = ckpt.rms_norm_grad bwd %a0, %a1, %a2 weight %a3 axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// batch_norm: the input has a channel dimension.
func.func @batch_norm_rank(%a0: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.batch_norm' op expects input of rank >= 2, got rank 1}}
  %y, %m, %r = ckpt.batch_norm fwd %a0 eps 1.000000e-05 : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// batch_norm: parameters are per channel.
func.func @batch_norm_weight(%a0: tensor<2x3x4x4xf32>, %a1: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.batch_norm' op expects per-channel parameters of shape 3, got 4}}
  %y, %m, %r = ckpt.batch_norm fwd %a0 weight %a1 eps 1.000000e-05 : (tensor<2x3x4x4xf32>, tensor<4xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm: statistics are per channel.
func.func @batch_norm_stats(%a0: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{'ckpt.batch_norm' op expects per-channel statistics of shape 3, got 2}}
  %y, %m, %r = ckpt.batch_norm fwd %a0 eps 1.000000e-05 : (tensor<2x3x4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

// batch_norm: the result has the input type.
func.func @batch_norm_result(%a0: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{'ckpt.batch_norm' op expects type 'tensor<2x3x4x4xf32>' (the input's), got 'tensor<2x3x4x2xf32>'}}
  %y, %m, %r = ckpt.batch_norm fwd %a0 eps 1.000000e-05 : (tensor<2x3x4x4xf32>) -> (tensor<2x3x4x2xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm: epsilon is finite.
func.func @batch_norm_epsilon(%a0: tensor<2x3xf32>) {
  // expected-error @+1 {{'ckpt.batch_norm' op expects a finite epsilon}}
  %y, %m, %r = ckpt.batch_norm fwd %a0 eps 0x7FF0000000000000 : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm_grad: at most two parameter gradients.
func.func @batch_norm_grad_too_many(%a0: tensor<2x3xf32>, %a1: tensor<2x3xf32>, %a2: tensor<3xf32>, %a3: tensor<3xf32>, %a4: tensor<3xf32>) {
  // expected-error @+1 {{'ckpt.batch_norm_grad' op returns at most 2 parameter gradients, got 3}}
  %dx, %g:3 = ckpt.batch_norm_grad bwd %a0, %a1, %a2, %a3 weight %a4 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm_grad: parameter gradients require the weight.
func.func @batch_norm_grad_no_weight(%a0: tensor<2x3xf32>, %a1: tensor<2x3xf32>, %a2: tensor<3xf32>, %a3: tensor<3xf32>, %a4: tensor<3xf32>) {
  // expected-error @+1 {{'ckpt.batch_norm_grad' op returns parameter gradients but has no weight operand}}
  %dx, %dw = ckpt.batch_norm_grad bwd %a0, %a1, %a2, %a3 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
  return
}

// -----

// batch_norm_grad: parameter gradients have the input element type.
func.func @batch_norm_grad_param_type(%a0: tensor<2x3xf32>, %a1: tensor<2x3xf32>, %a2: tensor<3xf32>, %a3: tensor<3xf32>, %a4: tensor<3xf32>) {
  // expected-error @+1 {{'ckpt.batch_norm_grad' op requires matching element types, but got 'f32' and 'bf16'}}
  %dx, %dw = ckpt.batch_norm_grad bwd %a0, %a1, %a2, %a3 weight %a4 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xbf16>)
  return
}

// -----

// batch_norm_grad: parameter gradients are per channel.
func.func @batch_norm_grad_param_shape(%a0: tensor<2x3xf32>, %a1: tensor<2x3xf32>, %a2: tensor<3xf32>, %a3: tensor<3xf32>, %a4: tensor<3xf32>) {
  // expected-error @+1 {{'ckpt.batch_norm_grad' op expects parameter gradients of shape 3, got 2}}
  %dx, %dw = ckpt.batch_norm_grad bwd %a0, %a1, %a2, %a3 weight %a4 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)
  return
}

// -----

// dropout: p is in [0, 1); p = 1 would divide by zero.
func.func @dropout_p_one(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.dropout' op expects p in [0.000000e+00, 1.000000e+00), got 1.000000e+00}}
  %y, %m = ckpt.dropout fwd %a0 p 1.000000e+00 seed 0 offset 0 : tensor<4x8xf32> -> (tensor<4x8xf32>, tensor<4x8xi1>)
  return
}

// -----

// dropout: the result has the input type.
func.func @dropout_result(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.dropout' op expects the result type 'tensor<4x8xf32>' (the input's), got 'tensor<4x8xbf16>'}}
  %y, %m = ckpt.dropout fwd %a0 p 1.000000e-01 seed 0 offset 0 : tensor<4x8xf32> -> (tensor<4x8xbf16>, tensor<4x8xi1>)
  return
}

// -----

// dropout: the mask has the input shape.
func.func @dropout_mask(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.dropout' op expects a mask of shape 4x8, got 8x4}}
  %y, %m = ckpt.dropout fwd %a0 p 1.000000e-01 seed 0 offset 0 : tensor<4x8xf32> -> (tensor<4x8xf32>, tensor<8x4xi1>)
  return
}

// -----

// dropout: the stream id is non-negative.
func.func @dropout_seed(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.dropout' op attribute 'seed' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %y, %m = ckpt.dropout fwd %a0 p 1.000000e-01 seed -1 offset 0 : tensor<4x8xf32> -> (tensor<4x8xf32>, tensor<4x8xi1>)
  return
}

// -----

// dropout_grad: p is in [0, 1).
func.func @dropout_grad_p(%a0: tensor<4x8xf32>, %a1: tensor<4x8xi1>) {
  // expected-error @+1 {{'ckpt.dropout_grad' op expects p in [0.000000e+00, 1.000000e+00), got -1.000000e-01}}
  %0 = ckpt.dropout_grad bwd %a0, %a1 p -1.000000e-01 : tensor<4x8xf32>, tensor<4x8xi1>
  return
}

// -----

// dropout_grad: the mask has the gradient shape.
func.func @dropout_grad_mask(%a0: tensor<4x8xf32>, %a1: tensor<4xi1>) {
  // expected-error @+1 {{'ckpt.dropout_grad' op expects a mask of shape 4x8, got 4}}
  %0 = ckpt.dropout_grad bwd %a0, %a1 p 1.000000e-01 : tensor<4x8xf32>, tensor<4xi1>
  return
}

// -----

// dropout_grad: the mask is i1.
func.func @dropout_grad_mask_type(%a0: tensor<4x8xf32>, %a1: tensor<4x8xi8>) {
  // expected-error @+1 {{'ckpt.dropout_grad' op operand #1 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4x8xi8>'}}
  %0 = ckpt.dropout_grad bwd %a0, %a1 p 1.000000e-01 : tensor<4x8xf32>, tensor<4x8xi8>
  return
}

// -----

// embedding: the table is 2-D.
func.func @embedding_table_rank(%a0: tensor<100xf32>, %a1: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.embedding' op expects table of rank 2, got rank 1}}
  %0 = ckpt.embedding fwd %a0, %a1 : (tensor<100xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

// embedding: the result is indices shape + embedding dim.
func.func @embedding_result(%a0: tensor<100x8xf32>, %a1: tensor<2x4xi64>) {
  // expected-error @+1 {{'ckpt.embedding' op expects a result (indices shape + embedding dim) of shape 2x4x8, got 8x8}}
  %0 = ckpt.embedding fwd %a0, %a1 : (tensor<100x8xf32>, tensor<2x4xi64>) -> tensor<8x8xf32>
  return
}

// -----

// embedding: the result has the table element type.
func.func @embedding_result_type(%a0: tensor<100x8xf32>, %a1: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.embedding' op requires matching element types, but got 'f32' and 'bf16'}}
  %0 = ckpt.embedding fwd %a0, %a1 : (tensor<100x8xf32>, tensor<4xi64>) -> tensor<4x8xbf16>
  return
}

// -----

// embedding: indices are i32 or i64.
func.func @embedding_float_indices(%a0: tensor<100x8xf32>, %a1: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.embedding' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = ckpt.embedding fwd %a0, %a1 : (tensor<100x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

// embedding_grad: the result is a 2-D table.
func.func @embedding_grad_rank(%a0: tensor<4x8xf32>, %a1: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.embedding_grad' op expects a result (the table) of rank 2, got rank 1}}
  %0 = ckpt.embedding_grad bwd %a0, %a1 : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<800xf32>
  return
}

// -----

// embedding_grad: the gradient is indices shape + embedding dim.
func.func @embedding_grad_shape(%a0: tensor<4x8xf32>, %a1: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.embedding_grad' op expects a gradient (indices shape + embedding dim) of shape 4x16, got 4x8}}
  %0 = ckpt.embedding_grad bwd %a0, %a1 : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<100x16xf32>
  return
}

// -----

// embedding_grad: padding_idx names a row of the table (here 0..99).
func.func @embedding_grad_padding_past_table(%a0: tensor<4x8xf32>, %a1: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.embedding_grad' op expects padding_idx < 100 (a row of the table), got 100}}
  %0 = ckpt.embedding_grad bwd %a0, %a1 {padding_idx = 100 : i64} : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<100x8xf32>
  return
}

// -----

// embedding_grad: padding_idx is not negative (-1 meaning none is spelled by
// leaving the attribute out).
func.func @embedding_grad_padding_negative(%a0: tensor<4x8xf32>, %a1: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.embedding_grad' op attribute 'padding_idx' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = ckpt.embedding_grad bwd %a0, %a1 {padding_idx = -1 : i64} : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<100x8xf32>
  return
}

// -----

// mse_loss: the target has the input's type.
func.func @mse_loss_target_type(%x: tensor<4x10xf32>, %t: tensor<4x9xf32>) {
  // expected-error @+1 {{'ckpt.mse_loss' op expects the target type 'tensor<4x10xf32>' (the input's), got 'tensor<4x9xf32>'}}
  %0 = ckpt.mse_loss fwd mean %x, %t : (tensor<4x10xf32>, tensor<4x9xf32>) -> tensor<f32>
  return
}

// -----

// mse_loss: 'none' (a per-element loss) has no ckpt form.
func.func @mse_loss_none(%x: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.mse_loss' op expects reduction 'mean' or 'sum' (a scalar loss), got 'none'}}
  %0 = ckpt.mse_loss fwd none %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

// mse_loss: the loss is rank 0 of the input's element type.
func.func @mse_loss_loss_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.mse_loss' op expects the loss type 'tensor<f32>', got 'tensor<1xf32>'}}
  %0 = ckpt.mse_loss fwd sum %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<1xf32>
  return
}

// -----

// mse_loss_grad: the loss gradient is rank 0.
func.func @mse_loss_grad_grad_type(%g: tensor<4xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.mse_loss_grad' op expects the grad type 'tensor<f32>', got 'tensor<4xf32>'}}
  %0 = ckpt.mse_loss_grad bwd mean %g, %x, %x : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// mse_loss_grad: the result has the input's type.
func.func @mse_loss_grad_result_type(%g: tensor<bf16>, %x: tensor<4xbf16>) {
  // expected-error @+1 {{'ckpt.mse_loss_grad' op expects the result type 'tensor<4xbf16>' (the input's), got 'tensor<4xf32>'}}
  %0 = ckpt.mse_loss_grad bwd sum %g, %x, %x : (tensor<bf16>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

// cross_entropy: logits have a class dimension.
func.func @cross_entropy_logits_rank(%a0: tensor<f32>, %a1: tensor<i64>) {
  // expected-error @+1 {{'ckpt.cross_entropy' op expects logits of rank >= 1, got rank 0}}
  %l, %s = ckpt.cross_entropy fwd mean %a0, %a1 : (tensor<f32>, tensor<i64>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

// cross_entropy: targets have the logits' row shape.
func.func @cross_entropy_targets(%a0: tensor<4x10xf32>, %a1: tensor<10xi64>) {
  // expected-error @+1 {{'ckpt.cross_entropy' op expects targets (the logits' rows) of shape 4, got 10}}
  %l, %s = ckpt.cross_entropy fwd mean %a0, %a1 : (tensor<4x10xf32>, tensor<10xi64>) -> (tensor<f32>, tensor<4xf32>)
  return
}

// -----

// cross_entropy: lse has the logits' row shape.
func.func @cross_entropy_lse(%a0: tensor<4x10xf32>, %a1: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.cross_entropy' op expects lse (the logits' rows) of shape 4, got 4x10}}
  %l, %s = ckpt.cross_entropy fwd mean %a0, %a1 : (tensor<4x10xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<4x10xf32>)
  return
}

// -----

// cross_entropy: mean gives a rank-0 loss.
func.func @cross_entropy_mean_loss(%a0: tensor<4x10xf32>, %a1: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.cross_entropy' op expects a loss (or its gradient) of shape scalar, got 4}}
  %l, %s = ckpt.cross_entropy fwd mean %a0, %a1 : (tensor<4x10xf32>, tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// cross_entropy: none gives per-row losses.
func.func @cross_entropy_none_loss(%a0: tensor<4x10xf32>, %a1: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.cross_entropy' op expects a loss (or its gradient) of shape 4, got scalar}}
  %l, %s = ckpt.cross_entropy fwd none %a0, %a1 : (tensor<4x10xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<4xf32>)
  return
}

// -----

// cross_entropy: the loss has the logits element type.
func.func @cross_entropy_loss_type(%a0: tensor<4x10xbf16>, %a1: tensor<4xi64>) {
  // expected-error @+1 {{'ckpt.cross_entropy' op requires matching element types, but got 'bf16' and 'f32'}}
  %l, %s = ckpt.cross_entropy fwd sum %a0, %a1 : (tensor<4x10xbf16>, tensor<4xi64>) -> (tensor<f32>, tensor<4xf32>)
  return
}

// -----

// cross_entropy_grad: the incoming gradient has the loss shape.
func.func @cross_entropy_grad_grad_shape(%a0: tensor<4xf32>, %a1: tensor<4x10xf32>, %a2: tensor<4xi64>, %a3: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.cross_entropy_grad' op expects a loss (or its gradient) of shape scalar, got 4}}
  %0 = ckpt.cross_entropy_grad bwd mean %a0, %a1, %a2, %a3 : (tensor<4xf32>, tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x10xf32>
  return
}

// -----

// cross_entropy_grad: the result has the logits type.
func.func @cross_entropy_grad_result(%a0: tensor<f32>, %a1: tensor<4x10xf32>, %a2: tensor<4xi64>, %a3: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.cross_entropy_grad' op expects the result type 'tensor<4x10xf32>' (the logits'), got 'tensor<4x10xbf16>'}}
  %0 = ckpt.cross_entropy_grad bwd mean %a0, %a1, %a2, %a3 : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x10xbf16>
  return
}

// -----

// reduce_sum: at least one axis.
func.func @reduce_sum_no_axes(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.reduce_sum' op requires at least one reduction axis}}
  %0 = ckpt.reduce_sum fwd %a0 axes [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// reduce_mean: at least one axis.
func.func @reduce_mean_no_axes(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.reduce_mean' op requires at least one reduction axis}}
  %0 = ckpt.reduce_mean fwd %a0 axes [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// reduce_max: at least one axis.
func.func @reduce_max_no_axes(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.reduce_max' op requires at least one reduction axis}}
  %0 = ckpt.reduce_max fwd %a0 axes [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// reduce_sum: axes are below the rank.
func.func @reduce_sum_axis_range(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.reduce_sum' op axis 2 is out of range for rank 2}}
  %0 = ckpt.reduce_sum fwd %a0 axes [2] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// reduce_sum: axes are non-negative.
func.func @reduce_sum_negative_axis(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.reduce_sum' op axis -1 is out of range for rank 2}}
  %0 = ckpt.reduce_sum fwd %a0 axes [-1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

// reduce_mean: axes are strictly increasing.
func.func @reduce_mean_unsorted(%a0: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'ckpt.reduce_mean' op requires strictly increasing axes, got 2 before 0}}
  %0 = ckpt.reduce_mean fwd %a0 axes [2, 0] : tensor<2x4x8xf32> -> tensor<4xf32>
  return
}

// -----

// reduce_mean: axes are distinct.
func.func @reduce_mean_duplicate(%a0: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'ckpt.reduce_mean' op requires strictly increasing axes, got 1 before 1}}
  %0 = ckpt.reduce_mean fwd %a0 axes [1, 1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
  return
}

// -----

// reduce_max: without keep_dims the reduced dimensions disappear.
func.func @reduce_max_shape(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.reduce_max' op expects a result of shape 4, got 4x1}}
  %0 = ckpt.reduce_max fwd %a0 axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  return
}

// -----

// reduce_max: with keep_dims they stay as size 1.
func.func @reduce_max_keep_dims(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.reduce_max' op expects a result of shape 4x1, got 4}}
  %0 = ckpt.reduce_max fwd %a0 axes [1] keep_dims : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

// reduce_sum: the result has the input element type.
func.func @reduce_sum_type(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.reduce_sum' op requires matching element types, but got 'f32' and 'f16'}}
  %0 = ckpt.reduce_sum fwd %a0 axes [1] : tensor<4x8xf32> -> tensor<4xf16>
  return
}

// -----

// reshape: the number of elements is kept.
func.func @reshape_elements(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.reshape' op cannot reshape 32 elements into 30}}
  %0 = ckpt.reshape fwd %a0 : tensor<4x8xf32> -> tensor<30xf32>
  return
}

// -----

// reshape: the element type is kept.
func.func @reshape_type(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.reshape' op requires matching element types, but got 'f32' and 'i32'}}
  %0 = ckpt.reshape fwd %a0 : tensor<4x8xf32> -> tensor<32xi32>
  return
}

// -----

// transpose: one permutation entry per dimension.
func.func @transpose_length(%a0: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'ckpt.transpose' op permutation has 2 entries for an input of rank 3}}
  %0 = ckpt.transpose fwd %a0 perm [1, 0] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  return
}

// -----

// transpose: perm is a permutation (no repeats).
func.func @transpose_duplicate(%a0: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'ckpt.transpose' op 'perm' is not a permutation of 0..2}}
  %0 = ckpt.transpose fwd %a0 perm [0, 0, 1] : tensor<2x3x4xf32> -> tensor<2x2x3xf32>
  return
}

// -----

// transpose: perm entries are in range.
func.func @transpose_out_of_range(%a0: tensor<2x3xf32>) {
  // expected-error @+1 {{'ckpt.transpose' op 'perm' is not a permutation of 0..1}}
  %0 = ckpt.transpose fwd %a0 perm [0, 2] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

// transpose: result dimension i is input dimension perm[i].
func.func @transpose_shape(%a0: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'ckpt.transpose' op expects a result of shape 4x2x3, got 4x3x2}}
  %0 = ckpt.transpose fwd %a0 perm [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  return
}

// -----

// transpose: the element type is kept.
func.func @transpose_type(%a0: tensor<2x3xf32>) {
  // expected-error @+1 {{'ckpt.transpose' op requires matching element types, but got 'f32' and 'bf16'}}
  %0 = ckpt.transpose fwd %a0 perm [1, 0] : tensor<2x3xf32> -> tensor<3x2xbf16>
  return
}

// -----

// broadcast: only size-1 dimensions and missing leading dimensions broadcast.
func.func @broadcast_shape(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.broadcast' op cannot broadcast shape 4x8 to 2x8x8}}
  %0 = ckpt.broadcast fwd %a0 : tensor<4x8xf32> -> tensor<2x8x8xf32>
  return
}

// -----

// broadcast: the result rank is not lower.
func.func @broadcast_rank(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.broadcast' op cannot broadcast shape 4x8 to 8}}
  %0 = ckpt.broadcast fwd %a0 : tensor<4x8xf32> -> tensor<8xf32>
  return
}

// -----

// broadcast: the element type is kept.
func.func @broadcast_type(%a0: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.broadcast' op requires matching element types, but got 'f32' and 'f16'}}
  %0 = ckpt.broadcast fwd %a0 : tensor<8xf32> -> tensor<4x8xf16>
  return
}

// -----

// slice: the result has the input rank.
func.func @slice_rank(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.slice' op expects a result (the input's rank) of rank 2, got rank 1}}
  %0 = ckpt.slice fwd %a0 starts [0, 0] steps [1, 1] : tensor<4x8xf32> -> tensor<8xf32>
  return
}

// -----

// slice: one start and step per dimension.
func.func @slice_count(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.slice' op expects 2 starts and steps, got 1 and 2}}
  %0 = ckpt.slice fwd %a0 starts [0] steps [1, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// slice: starts are non-negative.
func.func @slice_negative_start(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.slice' op dimension 1: start must be >= 0 and step >= 1, got start -1 and step 1}}
  %0 = ckpt.slice fwd %a0 starts [0, -1] steps [1, 1] : tensor<4x8xf32> -> tensor<4x2xf32>
  return
}

// -----

// slice: steps are positive.
func.func @slice_zero_step(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.slice' op dimension 0: start must be >= 0 and step >= 1, got start 0 and step 0}}
  %0 = ckpt.slice fwd %a0 starts [0, 0] steps [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// slice: the last index read is inside the input.
func.func @slice_bounds(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.slice' op dimension 1: 5 elements from 1 in steps of 2 exceed the input size 8}}
  %0 = ckpt.slice fwd %a0 starts [0, 1] steps [1, 2] : tensor<4x8xf32> -> tensor<4x5xf32>
  return
}

// -----

// slice: a non-empty extent cannot start past the end.
func.func @slice_start_past_end(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.slice' op dimension 0: 1 elements from 4 in steps of 1 exceed the input size 4}}
  %0 = ckpt.slice fwd %a0 starts [4, 0] steps [1, 1] : tensor<4x8xf32> -> tensor<1x8xf32>
  return
}

// -----

// slice: the element type is kept.
func.func @slice_type(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.slice' op requires matching element types, but got 'f32' and 'i32'}}
  %0 = ckpt.slice fwd %a0 starts [0, 0] steps [1, 1] : tensor<4x8xf32> -> tensor<4x8xi32>
  return
}

// -----

// concat: at least one input.
func.func @concat_empty() {
  // expected-error @+1 {{'ckpt.concat' op requires at least one input}}
  %0 = ckpt.concat fwd axis 0 : () -> tensor<4xf32>
  return
}

// -----

// concat: the axis is below the rank.
func.func @concat_axis(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.concat' op axis 2 is out of range for rank 2}}
  %0 = ckpt.concat fwd %a0, %a0 axis 2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// concat: inputs have the result rank.
func.func @concat_rank(%a0: tensor<4x8xf32>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.concat' op input #1 has rank 1, the result has rank 2}}
  %0 = ckpt.concat fwd %a0, %a1 axis 0 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<5x8xf32>
  return
}

// -----

// concat: inputs agree on every other dimension.
func.func @concat_other_dim(%a0: tensor<4x8xf32>, %a1: tensor<4x6xf32>) {
  // expected-error @+1 {{'ckpt.concat' op input #1 has size 6 in dimension 1, the result has 8}}
  %0 = ckpt.concat fwd %a0, %a1 axis 0 : (tensor<4x8xf32>, tensor<4x6xf32>) -> tensor<8x8xf32>
  return
}

// -----

// concat: sizes along the axis add up to the result's.
func.func @concat_total(%a0: tensor<4x8xf32>, %a1: tensor<4x6xf32>) {
  // expected-error @+1 {{'ckpt.concat' op inputs add up to 14 along axis 1, the result has 15}}
  %0 = ckpt.concat fwd %a0, %a1 axis 1 : (tensor<4x8xf32>, tensor<4x6xf32>) -> tensor<4x15xf32>
  return
}

// -----

// concat: inputs have the result element type.
func.func @concat_type(%a0: tensor<4x8xf32>, %a1: tensor<4x8xf16>) {
  // expected-error @+1 {{'ckpt.concat' op requires matching element types, but got 'f32' and 'f16'}}
  %0 = ckpt.concat fwd %a0, %a1 axis 0 : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<8x8xf32>
  return
}

// -----

// attention: query is 4-D.
func.func @attention_rank(%a0: tensor<4x16x8xf32>, %a1: tensor<2x4x16x8xf32>) {
  // expected-error @+1 {{'ckpt.attention' op expects query of rank 4, got rank 3}}
  %o, %l = ckpt.attention fwd %a0, %a1, %a1 {scale = 1.000000e+00 : f64} : (tensor<4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16xf32>)
  return
}

// -----

// attention: value is 4-D.
func.func @attention_value_rank(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'ckpt.attention' op expects value of rank 4, got rank 3}}
  %o, %l = ckpt.attention fwd %a0, %a0, %a1 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: key is 4-D.
func.func @attention_key_rank(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'ckpt.attention' op expects key of rank 4, got rank 3}}
  %o, %l = ckpt.attention fwd %a0, %a1, %a0 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: q, k and v share an element type.
func.func @attention_element_type(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x4x16x8xbf16>) {
  // expected-error @+1 {{'ckpt.attention' op requires matching element types, but got 'f32' and 'bf16'}}
  %o, %l = ckpt.attention fwd %a0, %a1, %a1 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: the scale is positive.
func.func @attention_scale(%a0: tensor<2x4x16x8xf32>) {
  // expected-error @+1 {{'ckpt.attention' op expects a positive finite scale, got 0.000000e+00}}
  %o, %l = ckpt.attention fwd %a0, %a0, %a0 {scale = 0.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: dropout_p is in [0, 1).
func.func @attention_dropout(%a0: tensor<2x4x16x8xf32>) {
  // expected-error @+1 {{'ckpt.attention' op expects dropout_p in [0.000000e+00, 1.000000e+00), got 1.000000e+00}}
  %o, %l = ckpt.attention fwd %a0, %a0, %a0 {dropout_p = 1.000000e+00 : f64, scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: the scale is required.
func.func @attention_missing_scale(%a0: tensor<2x4x16x8xf32>) {
  // expected-error @+1 {{'ckpt.attention' op requires attribute 'scale'}}
  %o, %l = ckpt.attention fwd %a0, %a0, %a0 : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: batch sizes agree.
func.func @attention_batch(%a0: tensor<2x4x16x8xf32>, %a1: tensor<1x4x16x8xf32>) {
  // expected-error @+1 {{'ckpt.attention' op query, key and value batch sizes differ (2, 1, 1)}}
  %o, %l = ckpt.attention fwd %a0, %a1, %a1 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: query heads are a multiple of key/value heads.
func.func @attention_heads(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x3x16x8xf32>) {
  // expected-error @+1 {{'ckpt.attention' op query heads (4) must be a multiple of key/value heads, which must agree (3, 3)}}
  %o, %l = ckpt.attention fwd %a0, %a1, %a1 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x3x16x8xf32>, tensor<2x3x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: key and value heads agree.
func.func @attention_kv_heads(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x2x16x8xf32>) {
  // expected-error @+1 {{'ckpt.attention' op query heads (4) must be a multiple of key/value heads, which must agree (2, 4)}}
  %o, %l = ckpt.attention fwd %a0, %a1, %a0 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: zero key/value heads are rejected, not divided by.
func.func @attention_zero_heads(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x0x16x8xf32>) {
  // expected-error @+1 {{'ckpt.attention' op query heads (4) must be a multiple of key/value heads, which must agree (0, 0)}}
  %o, %l = ckpt.attention fwd %a0, %a1, %a1 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x0x16x8xf32>, tensor<2x0x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: key and value sequence lengths agree.
func.func @attention_kv_length(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{'ckpt.attention' op key and value sequence lengths differ (16, 8)}}
  %o, %l = ckpt.attention fwd %a0, %a0, %a1 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x8x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: query and key head dimensions agree.
func.func @attention_head_dim(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x4x16x4xf32>) {
  // expected-error @+1 {{'ckpt.attention' op query and key head dimensions differ (8, 4)}}
  %o, %l = ckpt.attention fwd %a0, %a1, %a0 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x4xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: the output is [B, H, S, Dv].
func.func @attention_result(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x4x16x4xf32>) {
  // expected-error @+1 {{'ckpt.attention' op expects a result of shape 2x4x16x4, got 2x4x16x8}}
  %o, %l = ckpt.attention fwd %a0, %a0, %a1 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x4xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: the output has the query element type.
func.func @attention_result_type(%a0: tensor<2x4x16x8xf32>) {
  // expected-error @+1 {{'ckpt.attention' op requires matching element types, but got 'f32' and 'f16'}}
  %o, %l = ckpt.attention fwd %a0, %a0, %a0 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf16>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: lse is [B, H, S].
func.func @attention_lse(%a0: tensor<2x4x16x8xf32>) {
  // expected-error @+1 {{'ckpt.attention' op expects lse of shape 2x4x16, got 2x16}}
  %o, %l = ckpt.attention fwd %a0, %a0, %a0 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x16xf32>)
  return
}

// -----

// attention_grad: the saved output has the output shape.
func.func @attention_grad_output(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x4x16x4xf32>, %a2: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'ckpt.attention_grad' op expects an output of shape 2x4x16x8, got 2x4x16x4}}
  %dq, %dk, %dv = ckpt.attention_grad bwd %a0, %a0, %a0, %a0, %a1, %a2 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x4xf32>, tensor<2x4x16xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

// attention_grad: the output gradient has the output shape.
func.func @attention_grad_grad(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x4x8x8xf32>, %a2: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'ckpt.attention_grad' op expects an output gradient of shape 2x4x16x8, got 2x4x8x8}}
  %dq, %dk, %dv = ckpt.attention_grad bwd %a1, %a0, %a0, %a0, %a0, %a2 {scale = 1.000000e+00 : f64} : (tensor<2x4x8x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

// attention_grad: output and its gradient have the query element type.
func.func @attention_grad_output_type(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x4x16x8xf16>, %a2: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'ckpt.attention_grad' op requires matching element types, but got 'f32' and 'f16'}}
  %dq, %dk, %dv = ckpt.attention_grad bwd %a1, %a0, %a0, %a0, %a0, %a2 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf16>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

// attention_grad: lse is [B, H, S].
func.func @attention_grad_lse(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x4xf32>) {
  // expected-error @+1 {{'ckpt.attention_grad' op expects lse of shape 2x4x16, got 2x4}}
  %dq, %dk, %dv = ckpt.attention_grad bwd %a0, %a0, %a0, %a0, %a0, %a1 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

// attention_grad: gradients have the query, key and value types.
func.func @attention_grad_results(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'ckpt.attention_grad' op expects gradients of the query, key and value types}}
  %dq, %dk, %dv = ckpt.attention_grad bwd %a0, %a0, %a0, %a0, %a0, %a1 {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xbf16>)
  return
}

// -----

// attention_grad: the scale is positive and finite.
func.func @attention_grad_scale(%a0: tensor<2x4x16x8xf32>, %a1: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'ckpt.attention_grad' op expects a positive finite scale, got INF}}
  %dq, %dk, %dv = ckpt.attention_grad bwd %a0, %a0, %a0, %a0, %a0, %a1 {scale = 0x7FF0000000000000 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>)
  return
}

// -----

// attention: the mask does not broadcast to the scores [B, H, S, Skv].
func.func @attention_mask_shape(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x32x8xf32>, %m: tensor<16x16xf32>) {
  // expected-error @+1 {{'ckpt.attention' op mask shape 16x16 does not broadcast to the scores' shape 2x4x16x32}}
  %o, %l = ckpt.attention fwd %q, %k, %k, %m {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x32x8xf32>, tensor<2x4x32x8xf32>, tensor<16x16xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: a mask of rank above 4 does not broadcast.
func.func @attention_mask_rank(%q: tensor<2x4x16x8xf32>, %m: tensor<1x2x4x16x16xi1>) {
  // expected-error @+1 {{'ckpt.attention' op mask shape 1x2x4x16x16 does not broadcast to the scores' shape 2x4x16x16}}
  %o, %l = ckpt.attention fwd %q, %q, %q, %m {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<1x2x4x16x16xi1>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: a float mask has the query's element type.
func.func @attention_mask_dtype(%q: tensor<2x4x16x8xbf16>, %m: tensor<16x16xf32>) {
  // expected-error @+1 {{'ckpt.attention' op expects a mask of i1 or the query's element type ('bf16'), got 'f32'}}
  %o, %l = ckpt.attention fwd %q, %q, %q, %m {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<16x16xf32>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>)
  return
}

// -----

// attention: an integer mask is neither a bias nor a keep-mask.
func.func @attention_mask_int(%q: tensor<2x4x16x8xf32>, %m: tensor<16x16xi32>) {
  // expected-error @+1 {{'ckpt.attention' op operand #3 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 1-bit signless integer values, but got 'tensor<16x16xi32>'}}
  %o, %l = ckpt.attention fwd %q, %q, %q, %m {scale = 1.000000e+00 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<16x16xi32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

// attention_grad: the same mask checks (shape).
func.func @attention_grad_mask_shape(%do: tensor<1x2x8x4xf32>, %q: tensor<1x2x8x4xf32>, %lse: tensor<1x2x8xf32>, %m: tensor<2x1x8x8xi1>) {
  // expected-error @+1 {{'ckpt.attention_grad' op mask shape 2x1x8x8 does not broadcast to the scores' shape 1x2x8x8}}
  %dq, %dk, %dv = ckpt.attention_grad bwd %do, %q, %q, %q, %do, %lse, %m {scale = 1.000000e+00 : f64} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8xf32>, tensor<2x1x8x8xi1>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>)
  return
}

// -----

// attention_grad: a float mask has the query's element type.
func.func @attention_grad_mask_dtype(%do: tensor<1x2x8x4xf32>, %q: tensor<1x2x8x4xf32>, %lse: tensor<1x2x8xf32>, %m: tensor<8x8xf16>) {
  // expected-error @+1 {{'ckpt.attention_grad' op expects a mask of i1 or the query's element type ('f32'), got 'f16'}}
  %dq, %dk, %dv = ckpt.attention_grad bwd %do, %q, %q, %q, %do, %lse, %m {scale = 1.000000e+00 : f64} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8xf32>, tensor<8x8xf16>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>)
  return
}
