// Verifier errors of convolution, pooling, optimizer updates, opaque ops and tensor size bounds.
// Every case is one invalid op; the message is the verifier's exact text.
// RUN: ckpt-opt %s -split-input-file -verify-diagnostics

// conv2d: the input is NCHW.
func.func @conv2d_input_rank(%a0: tensor<3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op expects input of rank 4, got rank 3}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: the weight is OIHW.
func.func @conv2d_weight_rank(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op expects weight of rank 4, got rank 3}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: the result is 4-D.
func.func @conv2d_result_rank(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op expects a result of rank 4, got rank 3}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x36xf32>
  return
}

// -----

// conv2d: input and weight share an element type.
func.func @conv2d_element_type(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xbf16>) {
  // expected-error @+1 {{'ckpt.conv2d' op requires matching element types, but got 'f32' and 'bf16'}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xbf16>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: strides are positive.
func.func @conv2d_stride(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op expects positive kernel sizes, strides and dilations}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 0, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: dilations are positive.
func.func @conv2d_dilation(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op expects positive kernel sizes, strides and dilations}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, -1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: the kernel is not empty.
func.func @conv2d_empty_kernel(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x0x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op expects positive kernel sizes, strides and dilations}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x0x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: padding is non-negative.
func.func @conv2d_padding(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op expects non-negative padding}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, -1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: window attributes have two entries.
func.func @conv2d_pair(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op attribute 'strides' failed to satisfy constraint: i64 dense array attribute with exactly 2 elements}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: channels are divisible by groups.
func.func @conv2d_groups_divide(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op input channels (3) and output channels (4) must be divisible by groups (2)}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: groups is positive.
func.func @conv2d_groups_zero(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, groups = 0 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: the weight has C/groups input channels.
func.func @conv2d_weight_channels(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op weight has 2 input channels per group, expected 3}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: the dilated kernel fits in the padded input.
func.func @conv2d_too_small(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op spatial dimension 0 of size 8 is smaller than the dilated kernel}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 4, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: a padding whose doubled size overflows int64 is rejected, not wrapped around.
func.func @conv2d_padding_overflow(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op spatial dimension 0: padding 9223372036854775807 or dilation 1 overflows the window arithmetic}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 9223372036854775807, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x6xf32>
  return
}

// -----

// conv2d: a dilated kernel larger than int64 is rejected, not wrapped around.
func.func @conv2d_dilation_overflow(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op spatial dimension 1: padding 0 or dilation 4611686018427387904 overflows the window arithmetic}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 4611686018427387904>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: the result is [N, O, Ho, Wo].
func.func @conv2d_result_shape(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op expects a result of shape 2x4x4x4, got 2x4x6x6}}
  %0 = ckpt.conv2d fwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: the bias is [O].
func.func @conv2d_bias_shape(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>, %a2: tensor<3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d' op expects a bias of shape 4, got 3}}
  %0 = ckpt.conv2d fwd %a0, %a1, %a2 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d: the bias has the input element type.
func.func @conv2d_bias_type(%a0: tensor<2x3x8x8xf32>, %a1: tensor<4x3x3x3xf32>, %a2: tensor<4xf16>) {
  // expected-error @+1 {{'ckpt.conv2d' op requires matching element types, but got 'f32' and 'f16'}}
  %0 = ckpt.conv2d fwd %a0, %a1, %a2 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf16>) -> tensor<2x4x6x6xf32>
  return
}

// -----

// conv2d_grad_input: the output gradient matches the convolution of the result shape.
func.func @conv2d_grad_input_shape(%a0: tensor<2x4x6x6xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d_grad_input' op expects an output gradient of shape 2x4x7x7, got 2x4x6x6}}
  %0 = ckpt.conv2d_grad_input bwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x9x9xf32>
  return
}

// -----

// conv2d_grad_input: the result is NCHW.
func.func @conv2d_grad_input_rank(%a0: tensor<2x4x6x6xf32>, %a1: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'ckpt.conv2d_grad_input' op expects input of rank 4, got rank 3}}
  %0 = ckpt.conv2d_grad_input bwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<3x8x8xf32>
  return
}

// -----

// conv2d_grad_weight: the result has C/groups input channels.
func.func @conv2d_grad_weight_channels(%a0: tensor<2x4x6x6xf32>, %a1: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.conv2d_grad_weight' op weight has 1 input channels per group, expected 3}}
  %0 = ckpt.conv2d_grad_weight bwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x6x6xf32>, tensor<2x3x8x8xf32>) -> tensor<4x1x3x3xf32>
  return
}

// -----

// conv2d_grad_weight: the output gradient is 4-D.
func.func @conv2d_grad_weight_grad_rank(%a0: tensor<2x4x36xf32>, %a1: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.conv2d_grad_weight' op expects an output gradient of rank 4, got rank 3}}
  %0 = ckpt.conv2d_grad_weight bwd %a0, %a1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x36xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  return
}

// -----

// max_pool2d: the input is NCHW.
func.func @max_pool2d_rank(%a0: tensor<3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.max_pool2d' op expects input of rank 4, got rank 3}}
  %y, %i = ckpt.max_pool2d fwd %a0 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<3x8x8xf32>) -> (tensor<3x4x4xf32>, tensor<3x4x4xi64>)
  return
}

// -----

// max_pool2d: kernel sizes are positive.
func.func @max_pool2d_kernel(%a0: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.max_pool2d' op expects positive kernel sizes, strides and dilations}}
  %y, %i = ckpt.max_pool2d fwd %a0 {kernel = array<i64: 0, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>)
  return
}

// -----

// max_pool2d: padding is at most half the kernel.
func.func @max_pool2d_padding(%a0: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.max_pool2d' op padding (2) must be at most half the kernel size (3)}}
  %y, %i = ckpt.max_pool2d fwd %a0 {kernel = array<i64: 3, 3>, padding = array<i64: 2, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x10x6xf32>, tensor<2x3x10x6xi64>)
  return
}

// -----

// max_pool2d: a padding whose double overflows int64 is still more than half the kernel.
func.func @max_pool2d_padding_huge(%a0: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.max_pool2d' op padding (4611686018427387904) must be at most half the kernel size (2)}}
  %y, %i = ckpt.max_pool2d fwd %a0 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 4611686018427387904>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>)
  return
}

// -----

// max_pool2d: padding is non-negative.
func.func @max_pool2d_negative_padding(%a0: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.max_pool2d' op expects non-negative padding}}
  %y, %i = ckpt.max_pool2d fwd %a0 {kernel = array<i64: 2, 2>, padding = array<i64: -1, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>)
  return
}

// -----

// max_pool2d: the kernel fits in the padded input.
func.func @max_pool2d_too_small(%a0: tensor<2x3x2x8xf32>) {
  // expected-error @+1 {{'ckpt.max_pool2d' op spatial dimension 0 of size 2 is smaller than the kernel}}
  %y, %i = ckpt.max_pool2d fwd %a0 {kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x2x8xf32>) -> (tensor<2x3x1x6xf32>, tensor<2x3x1x6xi64>)
  return
}

// -----

// max_pool2d: an input extent plus padding beyond int64 is rejected, not wrapped around.
func.func @max_pool2d_size_overflow(%a0: tensor<0x3x9223372036854775807x8xf32>) {
  // expected-error @+1 {{'ckpt.max_pool2d' op spatial dimension 0: padding 1 or dilation 1 overflows the window arithmetic}}
  %y, %i = ckpt.max_pool2d fwd %a0 {kernel = array<i64: 2, 2>, padding = array<i64: 1, 0>, strides = array<i64: 1, 2>} : (tensor<0x3x9223372036854775807x8xf32>) -> (tensor<0x3x4x4xf32>, tensor<0x3x4x4xi64>)
  return
}

// -----

// max_pool2d: the result has the pooled shape.
func.func @max_pool2d_result(%a0: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.max_pool2d' op expects a result of shape 2x3x4x4, got 2x3x8x8}}
  %y, %i = ckpt.max_pool2d fwd %a0 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x8x8xf32>, tensor<2x3x8x8xi64>)
  return
}

// -----

// max_pool2d: indices have the result shape.
func.func @max_pool2d_indices(%a0: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.max_pool2d' op expects indices of shape 2x3x4x4, got 2x3x16}}
  %y, %i = ckpt.max_pool2d fwd %a0 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x16xi64>)
  return
}

// -----

// max_pool2d: indices are i64.
func.func @max_pool2d_indices_type(%a0: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.max_pool2d' op result #1 must be statically shaped tensor of 64-bit signless integer values, but got 'tensor<2x3x4x4xi32>'}}
  %y, %i = ckpt.max_pool2d fwd %a0 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi32>)
  return
}

// -----

// max_pool2d_grad: the gradient has the pooled shape of the result.
func.func @max_pool2d_grad_shape(%a0: tensor<2x3x4x4xf32>, %a1: tensor<2x3x4x4xi64>) {
  // expected-error @+1 {{'ckpt.max_pool2d_grad' op expects an output gradient of shape 2x3x2x2, got 2x3x4x4}}
  %0 = ckpt.max_pool2d_grad bwd %a0, %a1 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>) -> tensor<2x3x4x4xf32>
  return
}

// -----

// max_pool2d_grad: indices have the gradient shape.
func.func @max_pool2d_grad_indices(%a0: tensor<2x3x4x4xf32>, %a1: tensor<2x3x2x2xi64>) {
  // expected-error @+1 {{'ckpt.max_pool2d_grad' op expects indices of shape 2x3x4x4, got 2x3x2x2}}
  %0 = ckpt.max_pool2d_grad bwd %a0, %a1 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>, tensor<2x3x2x2xi64>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// max_pool2d_grad: gradient and result share an element type.
func.func @max_pool2d_grad_type(%a0: tensor<2x3x4x4xf32>, %a1: tensor<2x3x4x4xi64>) {
  // expected-error @+1 {{'ckpt.max_pool2d_grad' op requires matching element types, but got 'bf16' and 'f32'}}
  %0 = ckpt.max_pool2d_grad bwd %a0, %a1 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>) -> tensor<2x3x8x8xbf16>
  return
}

// -----

// avg_pool2d: the result has the pooled shape.
func.func @avg_pool2d_result(%a0: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.avg_pool2d' op expects a result of shape 2x3x4x4, got 2x3x8x8}}
  %0 = ckpt.avg_pool2d fwd %a0 {count_include_pad, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// avg_pool2d: strides are positive.
func.func @avg_pool2d_stride(%a0: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.avg_pool2d' op expects positive kernel sizes, strides and dilations}}
  %0 = ckpt.avg_pool2d fwd %a0 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, -2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

// avg_pool2d: padding is at most half the kernel.
func.func @avg_pool2d_padding(%a0: tensor<2x3x8x8xf32>) {
  // expected-error @+1 {{'ckpt.avg_pool2d' op padding (2) must be at most half the kernel size (2)}}
  %0 = ckpt.avg_pool2d fwd %a0 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 2>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x6xf32>
  return
}

// -----

// avg_pool2d_grad: the gradient has the pooled shape of the result.
func.func @avg_pool2d_grad_shape(%a0: tensor<2x3x4x4xf32>) {
  // expected-error @+1 {{'ckpt.avg_pool2d_grad' op expects an output gradient of shape 2x3x3x3, got 2x3x4x4}}
  %0 = ckpt.avg_pool2d_grad bwd %a0 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>) -> tensor<2x3x6x6xf32>
  return
}

// -----

// avg_pool2d_grad: the gradient is 4-D.
func.func @avg_pool2d_grad_rank(%a0: tensor<2x3x16xf32>) {
  // expected-error @+1 {{'ckpt.avg_pool2d_grad' op expects an output gradient of rank 4, got rank 3}}
  %0 = ckpt.avg_pool2d_grad bwd %a0 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x16xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

// sgd_update: the learning rate is finite.
func.func @sgd_update_lr(%a0: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.sgd_update' op expects a finite learning rate}}
  %0 = ckpt.sgd_update opt %a0, %a0 lr 0x7FF8000000000000 : tensor<8xf32>
  return
}

// -----

// sgd_update: param, grad and result share a type (generic form).
func.func @sgd_update_types(%a0: tensor<8xf32>, %a1: tensor<8xbf16>) {
  // expected-error @+1 {{'ckpt.sgd_update' op requires the same type for all operands and results}}
  %0 = "ckpt.sgd_update"(%a0, %a1) <{lr = 1.000000e-02 : f64, phase = 2 : i32}> : (tensor<8xf32>, tensor<8xbf16>) -> tensor<8xf32>
  return
}

// -----

// adamw_update: the result has the parameter type.
func.func @adamw_update_result_type(%a0: tensor<8xbf16>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.adamw_update' op expects the gradient and the result to have the parameter's type 'tensor<8xbf16>'}}
  %p, %m, %v = ckpt.adamw_update opt %a0, %a0, %a1, %a1 {beta1 = 9.000000e-01 : f64, beta2 = 9.900000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// adamw_update: the gradient has the parameter type.
func.func @adamw_update_grad_type(%a0: tensor<8xbf16>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.adamw_update' op expects the gradient and the result to have the parameter's type 'tensor<8xbf16>'}}
  %p, %m, %v = ckpt.adamw_update opt %a0, %a1, %a1, %a1 {beta1 = 9.000000e-01 : f64, beta2 = 9.900000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// adamw_update: moments have the parameter shape.
func.func @adamw_update_moment_shape(%a0: tensor<8xbf16>, %a1: tensor<4xf32>) {
  // expected-error @+1 {{'ckpt.adamw_update' op expects moments (the parameter's shape) of shape 8, got 4}}
  %p, %m, %v = ckpt.adamw_update opt %a0, %a0, %a1, %a1 {beta1 = 9.000000e-01 : f64, beta2 = 9.900000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// adamw_update: updated moments have the parameter shape.
func.func @adamw_update_new_moment_shape(%a0: tensor<8xbf16>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.adamw_update' op expects moments (the parameter's shape) of shape 8, got 2x4}}
  %p, %m, %v = ckpt.adamw_update opt %a0, %a0, %a1, %a1 {beta1 = 9.000000e-01 : f64, beta2 = 9.900000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<2x4xf32>)
  return
}

// -----

// adamw_update: moments are f32.
func.func @adamw_update_moment_type(%a0: tensor<8xbf16>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.adamw_update' op result #1 must be statically shaped tensor of 32-bit float values, but got 'tensor<8xbf16>'}}
  %p, %m, %v = ckpt.adamw_update opt %a0, %a0, %a1, %a1 {beta1 = 9.000000e-01 : f64, beta2 = 9.900000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>)
  return
}

// -----

// adamw_update: beta1 is in [0, 1).
func.func @adamw_update_beta1(%a0: tensor<8xbf16>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.adamw_update' op expects beta1 in [0, 1), got 1.000000e+00}}
  %p, %m, %v = ckpt.adamw_update opt %a0, %a0, %a1, %a1 {beta1 = 1.000000e+00 : f64, beta2 = 9.900000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// adamw_update: beta2 is in [0, 1).
func.func @adamw_update_beta2(%a0: tensor<8xbf16>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.adamw_update' op expects beta2 in [0, 1), got -1.000000e-01}}
  %p, %m, %v = ckpt.adamw_update opt %a0, %a0, %a1, %a1 {beta1 = 9.000000e-01 : f64, beta2 = -1.000000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// adamw_update: eps is positive.
func.func @adamw_update_eps(%a0: tensor<8xbf16>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.adamw_update' op expects a positive finite eps}}
  %p, %m, %v = ckpt.adamw_update opt %a0, %a0, %a1, %a1 {beta1 = 9.000000e-01 : f64, beta2 = 9.900000e-01 : f64, eps = 0.000000e+00 : f64, lr = 1.000000e-03 : f64, step = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// adamw_update: eps is finite.
func.func @adamw_update_eps_inf(%a0: tensor<8xbf16>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.adamw_update' op expects a positive finite eps}}
  %p, %m, %v = ckpt.adamw_update opt %a0, %a0, %a1, %a1 {beta1 = 9.000000e-01 : f64, beta2 = 9.900000e-01 : f64, eps = 0x7FF0000000000000 : f64, lr = 1.000000e-03 : f64, step = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// adamw_update: lr is finite.
func.func @adamw_update_lr(%a0: tensor<8xbf16>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.adamw_update' op expects a finite lr and weight_decay}}
  %p, %m, %v = ckpt.adamw_update opt %a0, %a0, %a1, %a1 {beta1 = 9.000000e-01 : f64, beta2 = 9.900000e-01 : f64, eps = 1.000000e-08 : f64, lr = 0x7FF8000000000000 : f64, step = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// adamw_update: weight_decay is finite.
func.func @adamw_update_weight_decay(%a0: tensor<8xbf16>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.adamw_update' op expects a finite lr and weight_decay}}
  %p, %m, %v = ckpt.adamw_update opt %a0, %a0, %a1, %a1 {beta1 = 9.000000e-01 : f64, beta2 = 9.900000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 1 : i64, weight_decay = 0xFFF0000000000000 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// adamw_update: the step count starts at 1.
func.func @adamw_update_step(%a0: tensor<8xbf16>, %a1: tensor<8xf32>) {
  // expected-error @+1 {{'ckpt.adamw_update' op attribute 'step' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %p, %m, %v = ckpt.adamw_update opt %a0, %a0, %a1, %a1 {beta1 = 9.000000e-01 : f64, beta2 = 9.900000e-01 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 0 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// opaque: the kernel name is not empty.
func.func @opaque_name(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.opaque' op requires a non-empty kernel name}}
  %0 = ckpt.opaque fwd ""(%a0) {flops = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// opaque: flops is required.
func.func @opaque_flops(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.opaque' op requires attribute 'flops'}}
  %0 = ckpt.opaque fwd "k"(%a0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// opaque: cost attributes are non-negative.
func.func @opaque_negative(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.opaque' op attribute 'workspace' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = ckpt.opaque fwd "k"(%a0) {flops = 1 : i64, workspace = -8 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// opaque: the explicit compute_cost is a non-negative integer.
func.func @opaque_negative_compute_cost(%a0: tensor<4x8xf32>) {
  // expected-error @+1 {{'ckpt.opaque' op attribute 'compute_cost' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = ckpt.opaque fwd "k"(%a0) {flops = 1 : i64, compute_cost = -3 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// opaque: tensors have static shapes.
func.func @opaque_dynamic(%a0: tensor<?xf32>) {
  // expected-error @+1 {{'ckpt.opaque' op operand #0 must be variadic of statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<?xf32>'}}
  %0 = ckpt.opaque fwd "k"(%a0) {flops = 1 : i64} : (tensor<?xf32>) -> tensor<4x8xf32>
  return
}

// -----

// every op: an operand larger than 2^50 bytes is rejected.
func.func @bounded_operand(%a0: tensor<1125899906842625xi1>) {
  // expected-error @+1 {{'ckpt.reshape' op operand #0 of type 'tensor<1125899906842625xi1>' is larger than the supported maximum of 1125899906842624 bytes}}
  %0 = ckpt.reshape fwd %a0 : tensor<1125899906842625xi1> -> tensor<1125899906842625xi1>
  return
}

// -----

// every op: a result larger than 2^50 bytes is rejected.
func.func @bounded_result(%a0: tensor<f32>) {
  // expected-error @+1 {{'ckpt.broadcast' op result #0 of type 'tensor<1024x1024x1024x1024x1024xf32>' is larger than the supported maximum of 1125899906842624 bytes}}
  %0 = ckpt.broadcast fwd %a0 : tensor<f32> -> tensor<1024x1024x1024x1024x1024xf32>
  return
}

// -----

// every op: exactly 2^50 bytes is allowed; the next op one element over is not.
func.func @bounded_at_limit_ok_then_over(%a0: tensor<1125899906842624xi1>) {
  %0 = ckpt.reshape fwd %a0 : tensor<1125899906842624xi1> -> tensor<1024x1099511627776xi1>
  // expected-error @+1 {{'ckpt.opaque' op result #0 of type 'tensor<281474976710657xf32>' is larger than the supported maximum of 1125899906842624 bytes}}
  %1 = ckpt.opaque fwd "k"(%0) {flops = 0 : i64} : (tensor<1024x1099511627776xi1>) -> tensor<281474976710657xf32>
  return
}

// -----

// every op: element types outside f32/f16/bf16/i1/i32/i64 have no defined
// size in the cost model and are rejected, even by ops taking any tensor.
func.func @opaque_unsupported_element(%a0: tensor<4xi8>) {
  // expected-error @+1 {{'ckpt.opaque' op operand #0 must be variadic of statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = ckpt.opaque fwd "k"(%a0) {flops = 1 : i64} : (tensor<4xi8>) -> tensor<4xf32>
  return
}
