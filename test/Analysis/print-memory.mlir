// RUN: ckpt-opt %s -split-input-file --ckpt-print-memory -verify-diagnostics -o /dev/null

// Arguments live for the whole step; a buffer lives from its defining op
// through its last use; a returned value lives to the end.
// Arguments: x 4x8xf32 = 128 B, w 8x8xf32 = 256 B -> entry 384 B.
// expected-remark @below {{memory: entry=384 peak=640 at op #1 saved=0 in 0 buffers}}
func.func @chain(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // 384 + a (128) = 512 live during; a stays live (used next).
  // expected-remark @below {{live: during=512 after=512}}
  %a = ckpt.matmul fwd %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  // 512 + b (128) = 640; a dies here: 512 after.
  // expected-remark @below {{live: during=640 after=512}}
  %b = ckpt.relu fwd %a : tensor<4x8xf32>
  // 512 + c (128) = 640; b dies: 512 after.
  // expected-remark @below {{live: during=640 after=512}}
  %c = ckpt.exp fwd %b : tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// A view shares its root's storage: the root lives until the view's last use
// and is counted once. x: 4x8xf32 = 128 B.
// expected-remark @below {{memory: entry=128 peak=384 at op #2 saved=0 in 0 buffers}}
func.func @views(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  // 128 + a (128) = 256.
  // expected-remark @below {{live: during=256 after=256}}
  %a = ckpt.relu fwd %x : tensor<4x8xf32>
  // A view allocates nothing: still 256.
  // expected-remark @below {{live: during=256 after=256}}
  %v = ckpt.reshape fwd %a : tensor<4x8xf32> -> tensor<32xf32>
  // 256 + r (128) = 384; reading the view is the last use of a: 256 after.
  // expected-remark @below {{live: during=384 after=256}}
  %r = ckpt.exp fwd %v : tensor<32xf32>
  return %r : tensor<32xf32>
}

// -----

// Workspace counts only while its op runs; an unused result lives only
// during its defining op.
// x: 1x3x8x8xf32 = 768 B, w: 4x3x3x3xf32 = 432 B -> entry 1200 B.
// expected-remark @below {{memory: entry=1200 peak=9136 at op #0 saved=0 in 0 buffers}}
func.func @workspace(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // y: 1x4x8x8xf32 = 1024 B; workspace: one image's im2col buffer,
  // C*kh*kw*Ho*Wo = 3*3*3*8*8 = 1728 floats = 6912 B.
  // 1200 + 1024 + 6912 = 9136 during (the peak), 1200 + 1024 = 2224 after.
  // expected-remark @below {{live: during=9136 after=2224 workspace=6912}}
  %y = ckpt.conv2d fwd %x, %w {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  // The unused result u (1024 B) lives only here: 2224 + 1024 = 3248.
  // expected-remark @below {{live: during=3248 after=2224}}
  %u = ckpt.relu fwd %y : tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// Saved activations: forward buffers defined before the first backward op and
// used at or after it. x: 4x8xf32 = 128 B, seed: f32 = 4 B -> entry 132 B.
// Saved: a (128 B, read by relu_grad) and the returned loss (4 B) = 132 B.
// expected-remark @below {{memory: entry=132 peak=520 at op #4 saved=132 in 2 buffers}}
func.func @saved(%x: tensor<4x8xf32> {ckpt.role = #ckpt.role<input>}, %seed: tensor<f32> {ckpt.role = #ckpt.role<seed>}) -> (tensor<f32> {ckpt.role = #ckpt.role<loss>}) attributes {ckpt.step} {
  // 132 + a (128) = 260; a stays for the backward pass.
  // expected-remark @below {{live: during=260 after=260}}
  %a = ckpt.relu fwd %x : tensor<4x8xf32>
  // 260 + b (128) = 388; b is read by the next op only.
  // expected-remark @below {{live: during=388 after=388}}
  %b = ckpt.exp fwd %a : tensor<4x8xf32>
  // 388 + loss (4) = 392; b dies: 392 - 128 = 264.
  // expected-remark @below {{live: during=392 after=264}}
  %loss = ckpt.reduce_sum fwd %b axes [0, 1] : tensor<4x8xf32> -> tensor<f32>
  // The backward phase starts here. 264 + g (128) = 392.
  // expected-remark @below {{live: during=392 after=392}}
  %g = ckpt.broadcast bwd %seed : tensor<f32> -> tensor<4x8xf32>
  // 392 + da (128, unused) = 520; g, a and da die: x + seed + loss = 136.
  // expected-remark @below {{live: during=520 after=136}}
  %da = ckpt.relu_grad bwd %g, %a : tensor<4x8xf32>
  return %loss : tensor<f32>
}
