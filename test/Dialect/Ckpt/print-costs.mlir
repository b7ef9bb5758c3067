// RUN: ckpt-opt %s --ckpt-print-costs="summary=true" -verify-diagnostics -o /dev/null
// RUN: ckpt-opt %s --ckpt-print-costs="per-op=false summary=true" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SUMMARY --implicit-check-not="cost: flops"

// Exact costs follow the formulas documented in CkptOps.td. Non-view remarks
// are anchored with {{$}} so that a stray " view" suffix would be caught.

// fwd: linear 1024 FLOPs + reshape 0 + conv2d 144 = 1168; max workspace 288.
// bwd: relu_grad 64 + conv2d_grad_input 144 = 208; max workspace 144.
// opt: sgd_update 2*128 = 256.
// expected-remark-re @below {{cost summary: fwd ops=3 flops=1168 read=840 written=272 max-workspace=288; bwd ops=2 flops=208 read=616 written=320 max-workspace=144; opt ops=1 flops=256 read=1024 written=512 max-workspace=0;{{$}}}}
func.func @step(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %g: tensor<4x16xf32>,
                %img: tensor<1x2x4x4xf32>, %k: tensor<1x2x3x3xf32>,
                %dimg: tensor<1x2x3x3xf32>, %k2: tensor<2x1x2x2xf32>,
                %p: tensor<16x8xf32>, %dp: tensor<16x8xf32>)
    -> (tensor<64xf32>, tensor<1x1x2x2xf32>, tensor<4x16xf32>,
        tensor<1x1x4x4xf32>, tensor<16x8xf32>) {
  // 2*R*in*out = 2*4*8*16; reads (4*8 + 16*8)*4; writes 4*16*4.
  // expected-remark-re @below {{cost: flops=1024 read=640 written=256 workspace=0{{$}}}}
  %y = ckpt.linear fwd %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  // expected-remark @below {{cost: flops=0 read=0 written=0 workspace=0 view}}
  %r = ckpt.reshape fwd %y : tensor<4x16xf32> -> tensor<64xf32>
  // 2*N*O*Ho*Wo*C*kh*kw = 2*1*1*2*2*2*3*3; reads (32 + 18)*4; writes 4*4;
  // workspace C*kh*kw*Ho*Wo*4 = 2*3*3*2*2*4.
  // expected-remark-re @below {{cost: flops=144 read=200 written=16 workspace=288{{$}}}}
  %c = ckpt.conv2d fwd %img, %k {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<1x2x3x3xf32>) -> tensor<1x1x2x2xf32>
  // 1 FLOP per element; reads dy and y (2*64*4); writes 64*4.
  // expected-remark-re @below {{cost: flops=64 read=512 written=256 workspace=0{{$}}}}
  %dy = ckpt.relu_grad bwd %g, %y : tensor<4x16xf32>
  // 2*N*O*Ho*Wo*C*kh*kw = 2*1*2*3*3*1*2*2; reads (18 + 8)*4; writes 16*4;
  // workspace C*kh*kw*Ho*Wo*4 = 1*2*2*3*3*4.
  // expected-remark-re @below {{cost: flops=144 read=104 written=64 workspace=144{{$}}}}
  %dimg2 = ckpt.conv2d_grad_input bwd %dimg, %k2 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x2x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  // 2*N = 2*128; reads 2*128*4; writes 128*4.
  // expected-remark-re @below {{cost: flops=256 read=1024 written=512 workspace=0{{$}}}}
  %p2 = ckpt.sgd_update opt %p, %dp lr 1.000000e-02 : tensor<16x8xf32>
  return %r, %c, %dy, %dimg2, %p2 : tensor<64xf32>, tensor<1x1x2x2xf32>, tensor<4x16xf32>, tensor<1x1x4x4xf32>, tensor<16x8xf32>
}

// Totals are per function; phases without ops report zeros.
// expected-remark-re @below {{cost summary: fwd ops=1 flops=5 read=8 written=8 max-workspace=0; bwd ops=0 flops=0 read=0 written=0 max-workspace=0; opt ops=0 flops=0 read=0 written=0 max-workspace=0;{{$}}}}
func.func @other(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-remark-re @below {{cost: flops=5 read=8 written=8 workspace=0{{$}}}}
  %y = ckpt.opaque fwd "my_kernel"(%x) {flops = 5 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// matmul_acc: 2*M*N*K + M*N = 2*16*8*4 + 16*8; reads (16*8 + 4*16 + 4*8)*4;
// writes 16*8*4.
// expected-remark-re @below {{cost summary: fwd ops=0 flops=0 read=0 written=0 max-workspace=0; bwd ops=1 flops=1152 read=896 written=512 max-workspace=0; opt ops=0 flops=0 read=0 written=0 max-workspace=0;{{$}}}}
func.func @accumulate(%s: tensor<16x8xf32>, %g: tensor<4x16xf32>, %x: tensor<4x8xf32>) -> tensor<16x8xf32> {
  // expected-remark-re @below {{cost: flops=1152 read=896 written=512 workspace=0{{$}}}}
  %r = ckpt.matmul_acc bwd %s + %g, %x {transpose_lhs} : tensor<16x8xf32>, tensor<4x16xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// SUMMARY: remark: cost summary: fwd ops=3 flops=1168 read=840 written=272 max-workspace=288; bwd ops=2 flops=208 read=616 written=320 max-workspace=144; opt ops=1 flops=256 read=1024 written=512 max-workspace=0;{{$}}
// SUMMARY: remark: cost summary: fwd ops=1 flops=5 read=8 written=8 max-workspace=0; bwd ops=0 flops=0 read=0 written=0 max-workspace=0; opt ops=0 flops=0 read=0 written=0 max-workspace=0;{{$}}
// SUMMARY: remark: cost summary: fwd ops=0 flops=0 read=0 written=0 max-workspace=0; bwd ops=1 flops=1152 read=896 written=512 max-workspace=0; opt ops=0 flops=0 read=0 written=0 max-workspace=0;{{$}}
