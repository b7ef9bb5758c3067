// ckpt.fill: round trip of every result kind (rank 0, ranked, float and index
// element types, every phase), and its cost (0 FLOPs, reads nothing, writes
// the result once).
// RUN: ckpt-opt %s -split-input-file | FileCheck %s
// RUN: ckpt-opt %s -split-input-file | ckpt-opt -split-input-file | FileCheck %s
// RUN: ckpt-opt %s -split-input-file -mlir-print-op-generic | ckpt-opt -split-input-file | FileCheck %s
// RUN: ckpt-opt %s -split-input-file --ckpt-print-costs -verify-diagnostics -o /dev/null

// A rank-0 scalar in each phase and float element type; infinities and
// negative zero are valid float values.
// CHECK-LABEL: func.func @fill_scalars()
//   CHECK:      %[[A:[^ ,:]+]] = ckpt.fill fwd 1.250000e-01 : tensor<f32>
//   CHECK-NEXT: %[[B:[^ ,:]+]] = ckpt.fill bwd -2.500000e+00 : tensor<bf16>
//   CHECK-NEXT: %[[C:[^ ,:]+]] = ckpt.fill opt 0xFFF0000000000000 : tensor<f16>
//   CHECK-NEXT: %[[D:[^ ,:]+]] = ckpt.fill fwd -0.000000e+00 : tensor<f32>
//   CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @fill_scalars() -> (tensor<f32>, tensor<bf16>, tensor<f16>, tensor<f32>) {
  // expected-remark @below {{cost: flops=0 read=0 written=4 workspace=0}}
  %a = ckpt.fill fwd 1.250000e-01 : tensor<f32>
  // expected-remark @below {{cost: flops=0 read=0 written=2 workspace=0}}
  %b = ckpt.fill bwd -2.500000e+00 : tensor<bf16>
  // expected-remark @below {{cost: flops=0 read=0 written=2 workspace=0}}
  %c = ckpt.fill opt 0xFFF0000000000000 : tensor<f16>
  // expected-remark @below {{cost: flops=0 read=0 written=4 workspace=0}}
  %d = ckpt.fill fwd -0.000000e+00 : tensor<f32>
  return %a, %b, %c, %d : tensor<f32>, tensor<bf16>, tensor<f16>, tensor<f32>
}

// -----

// Shaped results, zero-sized ones included, and index element types with
// integral values at the ends of their ranges.
// CHECK-LABEL: func.func @fill_shaped()
//   CHECK:      ckpt.fill bwd 0.000000e+00 : tensor<2x16x64xf32>
//   CHECK-NEXT: ckpt.fill fwd 1.000000e+00 : tensor<0x3xf16>
//   CHECK-NEXT: ckpt.fill fwd 0xC1E0000000000000 : tensor<5xi32>
//   CHECK-NEXT: ckpt.fill fwd 0x41DFFFFFFFC00000 : tensor<i32>
//   CHECK-NEXT: ckpt.fill fwd -9.2233720368547758E+18 : tensor<2x2xi64>
func.func @fill_shaped() -> (tensor<2x16x64xf32>, tensor<0x3xf16>, tensor<5xi32>, tensor<i32>, tensor<2x2xi64>) {
  // expected-remark @below {{cost: flops=0 read=0 written=8192 workspace=0}}
  %a = ckpt.fill bwd 0.000000e+00 : tensor<2x16x64xf32>
  // expected-remark @below {{cost: flops=0 read=0 written=0 workspace=0}}
  %b = ckpt.fill fwd 1.000000e+00 : tensor<0x3xf16>
  // expected-remark @below {{cost: flops=0 read=0 written=20 workspace=0}}
  %c = ckpt.fill fwd -2147483648.0 : tensor<5xi32>
  // expected-remark @below {{cost: flops=0 read=0 written=4 workspace=0}}
  %d = ckpt.fill fwd 2147483647.0 : tensor<i32>
  // expected-remark @below {{cost: flops=0 read=0 written=32 workspace=0}}
  %e = ckpt.fill fwd -9223372036854775808.0 : tensor<2x2xi64>
  return %a, %b, %c, %d, %e : tensor<2x16x64xf32>, tensor<0x3xf16>, tensor<5xi32>, tensor<i32>, tensor<2x2xi64>
}

// -----

// Scalar arithmetic: a rank-0 fill broadcasts through a binary op.
// CHECK-LABEL: func.func @fill_scale(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x4x16x16xf32>)
//   CHECK:      %[[S:[^ ,:]+]] = ckpt.fill fwd 1.250000e-01 : tensor<f32>
//   CHECK-NEXT: %[[Y:[^ ,:]+]] = ckpt.mul fwd %[[X]], %[[S]] : tensor<2x4x16x16xf32>, tensor<f32> -> tensor<2x4x16x16xf32>
//   CHECK-NEXT: return %[[Y]]
func.func @fill_scale(%x: tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32> {
  // expected-remark @below {{cost: flops=0 read=0 written=4 workspace=0}}
  %s = ckpt.fill fwd 1.250000e-01 : tensor<f32>
  // expected-remark @below {{cost: flops=2048 read=8196 written=8192 workspace=0}}
  %y = ckpt.mul fwd %x, %s : tensor<2x4x16x16xf32>, tensor<f32> -> tensor<2x4x16x16xf32>
  return %y : tensor<2x4x16x16xf32>
}

// A boolean fill holds false (0) or true (1): the start of a causal mask
// (`torch.ones(s, s, dtype=torch.bool).tril()`).
// CHECK-LABEL: func.func @fill_bool
// CHECK: ckpt.fill fwd 1.000000e+00 : tensor<16x16xi1>
func.func @fill_bool() -> tensor<16x16xi1> {
  %0 = ckpt.fill fwd 1.000000e+00 : tensor<16x16xi1>
  return %0 : tensor<16x16xi1>
}
