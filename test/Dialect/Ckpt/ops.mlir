// Round-trip tests of every ckpt op: the custom form parses and prints back
// unchanged, also after a second parse and through the generic form.
// RUN: ckpt-opt %s -split-input-file | FileCheck %s
// RUN: ckpt-opt %s -split-input-file | ckpt-opt -split-input-file | FileCheck %s
// RUN: ckpt-opt %s -split-input-file -mlir-print-op-generic | ckpt-opt -split-input-file | FileCheck %s

// matmul: MxK times KxN gives MxN.
// CHECK-LABEL: func.func @matmul(
//  CHECK-SAME:     %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8x16xf32>)
//   CHECK:      %[[C:[^ ,:]+]] = ckpt.matmul fwd %[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
//   CHECK-NEXT: return %[[C]] : tensor<4x16xf32>
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %c = ckpt.matmul fwd %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

// matmul_acc: acc + op(lhs) x op(rhs), acc of the result's type.
// CHECK-LABEL: func.func @matmul_acc(
//  CHECK-SAME:     %[[S:[^:]+]]: tensor<16x8xf32>, %[[G:[^:]+]]: tensor<4x16xf32>, %[[X:[^:]+]]: tensor<4x8xf32>)
//   CHECK:      %[[R:[^ ,:]+]] = ckpt.matmul_acc bwd %[[S]] + %[[G]], %[[X]] {transpose_lhs} : tensor<16x8xf32>, tensor<4x16xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
//   CHECK-NEXT: return %[[R]] : tensor<16x8xf32>
func.func @matmul_acc(%s: tensor<16x8xf32>, %g: tensor<4x16xf32>, %x: tensor<4x8xf32>) -> tensor<16x8xf32> {
  %r = ckpt.matmul_acc bwd %s + %g, %x {transpose_lhs} : tensor<16x8xf32>, tensor<4x16xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// matmul: transpose_lhs / transpose_rhs swap the operand dimensions, alone and together, in every phase.
// CHECK-LABEL: func.func @matmul_transpose(
//  CHECK-SAME:     %[[A:[^:]+]]: tensor<8x4xf32>, %[[B:[^:]+]]: tensor<16x8xf32>, %[[C:[^:]+]]: tensor<4x8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.matmul bwd %[[A]], %[[A]] {transpose_lhs} : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.matmul fwd %[[C]], %[[B]] {transpose_rhs} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.matmul opt %[[A]], %[[B]] {transpose_lhs, transpose_rhs} : tensor<8x4xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]] : tensor<4x4xf32>, tensor<4x16xf32>, tensor<4x16xf32>
func.func @matmul_transpose(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>, %c: tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = ckpt.matmul bwd %a, %a {transpose_lhs} : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %1 = ckpt.matmul fwd %c, %b {transpose_rhs} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %2 = ckpt.matmul opt %a, %b {transpose_lhs, transpose_rhs} : tensor<8x4xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  return %0, %1, %2 : tensor<4x4xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// matmul: bf16 and f16 operands give a result of the same element type.
// CHECK-LABEL: func.func @matmul_low_precision(
//  CHECK-SAME:     %[[A:[^:]+]]: tensor<4x8xbf16>, %[[B:[^:]+]]: tensor<8x2xbf16>, %[[C:[^:]+]]: tensor<4x8xf16>, %[[D:[^:]+]]: tensor<8x2xf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.matmul fwd %[[A]], %[[B]] : tensor<4x8xbf16>, tensor<8x2xbf16> -> tensor<4x2xbf16>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.matmul fwd %[[C]], %[[D]] : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x2xbf16>, tensor<4x2xf16>
func.func @matmul_low_precision(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>, %c: tensor<4x8xf16>, %d: tensor<8x2xf16>) -> (tensor<4x2xbf16>, tensor<4x2xf16>) {
  %0 = ckpt.matmul fwd %a, %b : tensor<4x8xbf16>, tensor<8x2xbf16> -> tensor<4x2xbf16>
  %1 = ckpt.matmul fwd %c, %d : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
  return %0, %1 : tensor<4x2xbf16>, tensor<4x2xf16>
}

// -----

// batch_matmul: equal rank-4 batches with transpose_rhs (q k^T).
// CHECK-LABEL: func.func @batch_matmul(
//  CHECK-SAME:     %[[Q:[^:]+]]: tensor<2x4x16x8xf32>, %[[K:[^:]+]]: tensor<2x4x16x8xf32>)
//   CHECK:      %[[S:[^ ,:]+]] = ckpt.batch_matmul fwd %[[Q]], %[[K]] {transpose_rhs} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x16xf32>
//   CHECK-NEXT: return %[[S]] : tensor<2x4x16x16xf32>
func.func @batch_matmul(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32> {
  %s = ckpt.batch_matmul fwd %q, %k {transpose_rhs} : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x16xf32>
  return %s : tensor<2x4x16x16xf32>
}

// -----

// batch_matmul: size-1 batch dimensions broadcast; rank 3 with transpose_lhs.
// CHECK-LABEL: func.func @batch_matmul_broadcast(
//  CHECK-SAME:     %[[A:[^:]+]]: tensor<2x1x16x8xbf16>, %[[B:[^:]+]]: tensor<1x4x8x32xbf16>, %[[C:[^:]+]]: tensor<3x8x4xf32>, %[[D:[^:]+]]: tensor<3x8x5xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.batch_matmul fwd %[[A]], %[[B]] : tensor<2x1x16x8xbf16>, tensor<1x4x8x32xbf16> -> tensor<2x4x16x32xbf16>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.batch_matmul bwd %[[C]], %[[D]] {transpose_lhs} : tensor<3x8x4xf32>, tensor<3x8x5xf32> -> tensor<3x4x5xf32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<2x4x16x32xbf16>, tensor<3x4x5xf32>
func.func @batch_matmul_broadcast(%a: tensor<2x1x16x8xbf16>, %b: tensor<1x4x8x32xbf16>, %c: tensor<3x8x4xf32>, %d: tensor<3x8x5xf32>) -> (tensor<2x4x16x32xbf16>, tensor<3x4x5xf32>) {
  %0 = ckpt.batch_matmul fwd %a, %b : tensor<2x1x16x8xbf16>, tensor<1x4x8x32xbf16> -> tensor<2x4x16x32xbf16>
  %1 = ckpt.batch_matmul bwd %c, %d {transpose_lhs} : tensor<3x8x4xf32>, tensor<3x8x5xf32> -> tensor<3x4x5xf32>
  return %0, %1 : tensor<2x4x16x32xbf16>, tensor<3x4x5xf32>
}

// -----

// linear: with and without a bias; leading input dimensions are kept.
// CHECK-LABEL: func.func @linear(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x4x8xf32>, %[[W:[^:]+]]: tensor<16x8xf32>, %[[B:[^:]+]]: tensor<16xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.linear fwd %[[X]], %[[W]], %[[B]] : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.linear fwd %[[X]], %[[W]] : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<2x4x16xf32>, tensor<2x4x16xf32>
func.func @linear(%x: tensor<2x4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16xf32>) {
  %0 = ckpt.linear fwd %x, %w, %b : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %1 = ckpt.linear fwd %x, %w : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
  return %0, %1 : tensor<2x4x16xf32>, tensor<2x4x16xf32>
}

// -----

// linear: a rank-1 bf16 input gives a rank-1 result.
// CHECK-LABEL: func.func @linear_rank1_bf16(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<8xbf16>, %[[W:[^:]+]]: tensor<3x8xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.linear fwd %[[X]], %[[W]] : (tensor<8xbf16>, tensor<3x8xbf16>) -> tensor<3xbf16>
//   CHECK-NEXT: return %[[V0]] : tensor<3xbf16>
func.func @linear_rank1_bf16(%x: tensor<8xbf16>, %w: tensor<3x8xbf16>) -> tensor<3xbf16> {
  %0 = ckpt.linear fwd %x, %w : (tensor<8xbf16>, tensor<3x8xbf16>) -> tensor<3xbf16>
  return %0 : tensor<3xbf16>
}

// -----

// add: same shapes, a trailing-aligned broadcast, a two-sided broadcast and a rank-0 operand.
// CHECK-LABEL: func.func @add(
//  CHECK-SAME:     %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8xf32>, %[[C:[^:]+]]: tensor<4x1xf16>, %[[D:[^:]+]]: tensor<1x8xf16>, %[[S:[^:]+]]: tensor<bf16>, %[[T:[^:]+]]: tensor<2x3xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.add fwd %[[A]], %[[A]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.add bwd %[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.add opt %[[C]], %[[D]] : tensor<4x1xf16>, tensor<1x8xf16> -> tensor<4x8xf16>
//   CHECK-NEXT: %[[V3:[^ ,:]+]] = ckpt.add fwd %[[S]], %[[T]] : tensor<bf16>, tensor<2x3xbf16> -> tensor<2x3xbf16>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xbf16>
func.func @add(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf16>, %d: tensor<1x8xf16>, %s: tensor<bf16>, %t: tensor<2x3xbf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xbf16>) {
  %0 = ckpt.add fwd %a, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = ckpt.add bwd %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %2 = ckpt.add opt %c, %d : tensor<4x1xf16>, tensor<1x8xf16> -> tensor<4x8xf16>
  %3 = ckpt.add fwd %s, %t : tensor<bf16>, tensor<2x3xbf16> -> tensor<2x3xbf16>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xbf16>
}

// -----

// sub: same shapes, a trailing-aligned broadcast, a two-sided broadcast and a rank-0 operand.
// CHECK-LABEL: func.func @sub(
//  CHECK-SAME:     %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8xf32>, %[[C:[^:]+]]: tensor<4x1xf16>, %[[D:[^:]+]]: tensor<1x8xf16>, %[[S:[^:]+]]: tensor<bf16>, %[[T:[^:]+]]: tensor<2x3xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.sub fwd %[[A]], %[[A]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.sub bwd %[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.sub opt %[[C]], %[[D]] : tensor<4x1xf16>, tensor<1x8xf16> -> tensor<4x8xf16>
//   CHECK-NEXT: %[[V3:[^ ,:]+]] = ckpt.sub fwd %[[S]], %[[T]] : tensor<bf16>, tensor<2x3xbf16> -> tensor<2x3xbf16>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xbf16>
func.func @sub(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf16>, %d: tensor<1x8xf16>, %s: tensor<bf16>, %t: tensor<2x3xbf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xbf16>) {
  %0 = ckpt.sub fwd %a, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = ckpt.sub bwd %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %2 = ckpt.sub opt %c, %d : tensor<4x1xf16>, tensor<1x8xf16> -> tensor<4x8xf16>
  %3 = ckpt.sub fwd %s, %t : tensor<bf16>, tensor<2x3xbf16> -> tensor<2x3xbf16>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xbf16>
}

// -----

// mul: same shapes, a trailing-aligned broadcast, a two-sided broadcast and a rank-0 operand.
// CHECK-LABEL: func.func @mul(
//  CHECK-SAME:     %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8xf32>, %[[C:[^:]+]]: tensor<4x1xf16>, %[[D:[^:]+]]: tensor<1x8xf16>, %[[S:[^:]+]]: tensor<bf16>, %[[T:[^:]+]]: tensor<2x3xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.mul fwd %[[A]], %[[A]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.mul bwd %[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.mul opt %[[C]], %[[D]] : tensor<4x1xf16>, tensor<1x8xf16> -> tensor<4x8xf16>
//   CHECK-NEXT: %[[V3:[^ ,:]+]] = ckpt.mul fwd %[[S]], %[[T]] : tensor<bf16>, tensor<2x3xbf16> -> tensor<2x3xbf16>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xbf16>
func.func @mul(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf16>, %d: tensor<1x8xf16>, %s: tensor<bf16>, %t: tensor<2x3xbf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xbf16>) {
  %0 = ckpt.mul fwd %a, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = ckpt.mul bwd %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %2 = ckpt.mul opt %c, %d : tensor<4x1xf16>, tensor<1x8xf16> -> tensor<4x8xf16>
  %3 = ckpt.mul fwd %s, %t : tensor<bf16>, tensor<2x3xbf16> -> tensor<2x3xbf16>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xbf16>
}

// -----

// div: same shapes, a trailing-aligned broadcast, a two-sided broadcast and a rank-0 operand.
// CHECK-LABEL: func.func @div(
//  CHECK-SAME:     %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8xf32>, %[[C:[^:]+]]: tensor<4x1xf16>, %[[D:[^:]+]]: tensor<1x8xf16>, %[[S:[^:]+]]: tensor<bf16>, %[[T:[^:]+]]: tensor<2x3xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.div fwd %[[A]], %[[A]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.div bwd %[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.div opt %[[C]], %[[D]] : tensor<4x1xf16>, tensor<1x8xf16> -> tensor<4x8xf16>
//   CHECK-NEXT: %[[V3:[^ ,:]+]] = ckpt.div fwd %[[S]], %[[T]] : tensor<bf16>, tensor<2x3xbf16> -> tensor<2x3xbf16>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xbf16>
func.func @div(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf16>, %d: tensor<1x8xf16>, %s: tensor<bf16>, %t: tensor<2x3xbf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xbf16>) {
  %0 = ckpt.div fwd %a, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = ckpt.div bwd %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %2 = ckpt.div opt %c, %d : tensor<4x1xf16>, tensor<1x8xf16> -> tensor<4x8xf16>
  %3 = ckpt.div fwd %s, %t : tensor<bf16>, tensor<2x3xbf16> -> tensor<2x3xbf16>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xbf16>
}

// -----

// neg: elementwise, operand and result of one type (f32, and rank 0).
// CHECK-LABEL: func.func @neg(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[S:[^:]+]]: tensor<f32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.neg fwd %[[X]] : tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.neg bwd %[[S]] : tensor<f32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xf32>, tensor<f32>
func.func @neg(%x: tensor<4x8xf32>, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<f32>) {
  %0 = ckpt.neg fwd %x : tensor<4x8xf32>
  %1 = ckpt.neg bwd %s : tensor<f32>
  return %0, %1 : tensor<4x8xf32>, tensor<f32>
}

// -----

// exp: elementwise, operand and result of one type (bf16, and rank 0).
// CHECK-LABEL: func.func @exp(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xbf16>, %[[S:[^:]+]]: tensor<f32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.exp fwd %[[X]] : tensor<4x8xbf16>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.exp bwd %[[S]] : tensor<f32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xbf16>, tensor<f32>
func.func @exp(%x: tensor<4x8xbf16>, %s: tensor<f32>) -> (tensor<4x8xbf16>, tensor<f32>) {
  %0 = ckpt.exp fwd %x : tensor<4x8xbf16>
  %1 = ckpt.exp bwd %s : tensor<f32>
  return %0, %1 : tensor<4x8xbf16>, tensor<f32>
}

// -----

// log: elementwise, operand and result of one type (f16, and rank 0).
// CHECK-LABEL: func.func @log(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf16>, %[[S:[^:]+]]: tensor<f32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.log fwd %[[X]] : tensor<4x8xf16>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.log bwd %[[S]] : tensor<f32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xf16>, tensor<f32>
func.func @log(%x: tensor<4x8xf16>, %s: tensor<f32>) -> (tensor<4x8xf16>, tensor<f32>) {
  %0 = ckpt.log fwd %x : tensor<4x8xf16>
  %1 = ckpt.log bwd %s : tensor<f32>
  return %0, %1 : tensor<4x8xf16>, tensor<f32>
}

// -----

// sqrt: elementwise, operand and result of one type (f32, and rank 0).
// CHECK-LABEL: func.func @sqrt(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[S:[^:]+]]: tensor<f32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.sqrt fwd %[[X]] : tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.sqrt bwd %[[S]] : tensor<f32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xf32>, tensor<f32>
func.func @sqrt(%x: tensor<4x8xf32>, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<f32>) {
  %0 = ckpt.sqrt fwd %x : tensor<4x8xf32>
  %1 = ckpt.sqrt bwd %s : tensor<f32>
  return %0, %1 : tensor<4x8xf32>, tensor<f32>
}

// -----

// rsqrt: elementwise, operand and result of one type (bf16, and rank 0).
// CHECK-LABEL: func.func @rsqrt(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xbf16>, %[[S:[^:]+]]: tensor<f32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.rsqrt fwd %[[X]] : tensor<4x8xbf16>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.rsqrt bwd %[[S]] : tensor<f32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xbf16>, tensor<f32>
func.func @rsqrt(%x: tensor<4x8xbf16>, %s: tensor<f32>) -> (tensor<4x8xbf16>, tensor<f32>) {
  %0 = ckpt.rsqrt fwd %x : tensor<4x8xbf16>
  %1 = ckpt.rsqrt bwd %s : tensor<f32>
  return %0, %1 : tensor<4x8xbf16>, tensor<f32>
}

// -----

// tanh: elementwise, operand and result of one type (f32, and rank 0).
// CHECK-LABEL: func.func @tanh(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[S:[^:]+]]: tensor<f32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.tanh fwd %[[X]] : tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.tanh bwd %[[S]] : tensor<f32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xf32>, tensor<f32>
func.func @tanh(%x: tensor<4x8xf32>, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<f32>) {
  %0 = ckpt.tanh fwd %x : tensor<4x8xf32>
  %1 = ckpt.tanh bwd %s : tensor<f32>
  return %0, %1 : tensor<4x8xf32>, tensor<f32>
}

// -----

// relu: elementwise, operand and result of one type (f32, and rank 0).
// CHECK-LABEL: func.func @relu(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[S:[^:]+]]: tensor<f32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.relu fwd %[[X]] : tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.relu bwd %[[S]] : tensor<f32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xf32>, tensor<f32>
func.func @relu(%x: tensor<4x8xf32>, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<f32>) {
  %0 = ckpt.relu fwd %x : tensor<4x8xf32>
  %1 = ckpt.relu bwd %s : tensor<f32>
  return %0, %1 : tensor<4x8xf32>, tensor<f32>
}

// -----

// sigmoid: elementwise, operand and result of one type (f16, and rank 0).
// CHECK-LABEL: func.func @sigmoid(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf16>, %[[S:[^:]+]]: tensor<f32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.sigmoid fwd %[[X]] : tensor<4x8xf16>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.sigmoid bwd %[[S]] : tensor<f32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xf16>, tensor<f32>
func.func @sigmoid(%x: tensor<4x8xf16>, %s: tensor<f32>) -> (tensor<4x8xf16>, tensor<f32>) {
  %0 = ckpt.sigmoid fwd %x : tensor<4x8xf16>
  %1 = ckpt.sigmoid bwd %s : tensor<f32>
  return %0, %1 : tensor<4x8xf16>, tensor<f32>
}

// -----

// silu: elementwise, operand and result of one type (bf16, and rank 0).
// CHECK-LABEL: func.func @silu(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xbf16>, %[[S:[^:]+]]: tensor<f32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.silu fwd %[[X]] : tensor<4x8xbf16>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.silu bwd %[[S]] : tensor<f32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xbf16>, tensor<f32>
func.func @silu(%x: tensor<4x8xbf16>, %s: tensor<f32>) -> (tensor<4x8xbf16>, tensor<f32>) {
  %0 = ckpt.silu fwd %x : tensor<4x8xbf16>
  %1 = ckpt.silu bwd %s : tensor<f32>
  return %0, %1 : tensor<4x8xbf16>, tensor<f32>
}

// -----

// pow: the exponent is an f64 attribute; any finite value, negative included.
// CHECK-LABEL: func.func @pow(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<3xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.pow fwd %[[X]], 2.000000e+00 : tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.pow bwd %[[Y]], -5.000000e-01 : tensor<3xbf16>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xf32>, tensor<3xbf16>
func.func @pow(%x: tensor<4x8xf32>, %y: tensor<3xbf16>) -> (tensor<4x8xf32>, tensor<3xbf16>) {
  %0 = ckpt.pow fwd %x, 2.000000e+00 : tensor<4x8xf32>
  %1 = ckpt.pow bwd %y, -5.000000e-01 : tensor<3xbf16>
  return %0, %1 : tensor<4x8xf32>, tensor<3xbf16>
}

// -----

// convert: changes only the element type, between any two of f32, bf16,
// f16, i1, i32 and i64.
// CHECK-LABEL: func.func @convert(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xbf16>, %[[Z:[^:]+]]: tensor<2xf16>, %[[I:[^:]+]]: tensor<3xi64>, %[[M:[^:]+]]: tensor<3xi1>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.convert fwd %[[X]] : tensor<4x8xf32> -> tensor<4x8xbf16>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.convert bwd %[[Y]] : tensor<4x8xbf16> -> tensor<4x8xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.convert opt %[[Z]] : tensor<2xf16> -> tensor<2xbf16>
//   CHECK-NEXT: %[[V3:[^ ,:]+]] = ckpt.convert fwd %[[I]] : tensor<3xi64> -> tensor<3xi1>
//   CHECK-NEXT: %[[V4:[^ ,:]+]] = ckpt.convert fwd %[[M]] : tensor<3xi1> -> tensor<3xf32>
//   CHECK-NEXT: %[[V5:[^ ,:]+]] = ckpt.convert fwd %[[X]] : tensor<4x8xf32> -> tensor<4x8xi32>
//   CHECK-NEXT: %[[V6:[^ ,:]+]] = ckpt.convert fwd %[[I]] : tensor<3xi64> -> tensor<3xi32>
//   CHECK-NEXT: return
func.func @convert(%x: tensor<4x8xf32>, %y: tensor<4x8xbf16>, %z: tensor<2xf16>, %i: tensor<3xi64>, %m: tensor<3xi1>) -> (tensor<4x8xbf16>, tensor<4x8xf32>, tensor<2xbf16>, tensor<3xi1>, tensor<3xf32>, tensor<4x8xi32>, tensor<3xi32>) {
  %0 = ckpt.convert fwd %x : tensor<4x8xf32> -> tensor<4x8xbf16>
  %1 = ckpt.convert bwd %y : tensor<4x8xbf16> -> tensor<4x8xf32>
  %2 = ckpt.convert opt %z : tensor<2xf16> -> tensor<2xbf16>
  %3 = ckpt.convert fwd %i : tensor<3xi64> -> tensor<3xi1>
  %4 = ckpt.convert fwd %m : tensor<3xi1> -> tensor<3xf32>
  %5 = ckpt.convert fwd %x : tensor<4x8xf32> -> tensor<4x8xi32>
  %6 = ckpt.convert fwd %i : tensor<3xi64> -> tensor<3xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4x8xbf16>, tensor<4x8xf32>, tensor<2xbf16>, tensor<3xi1>, tensor<3xf32>, tensor<4x8xi32>, tensor<3xi32>
}

// -----

// gelu: exact (erf) and tanh-approximated forms.
// CHECK-LABEL: func.func @gelu(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.gelu fwd erf %[[X]] : tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.gelu fwd tanh %[[Y]] : tensor<4x8xbf16>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xf32>, tensor<4x8xbf16>
func.func @gelu(%x: tensor<4x8xf32>, %y: tensor<4x8xbf16>) -> (tensor<4x8xf32>, tensor<4x8xbf16>) {
  %0 = ckpt.gelu fwd erf %x : tensor<4x8xf32>
  %1 = ckpt.gelu fwd tanh %y : tensor<4x8xbf16>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xbf16>
}

// -----

// relu_grad: incoming gradient, saved tensor and result share one type.
// CHECK-LABEL: func.func @relu_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.relu_grad bwd %[[DY]], %[[Y]] : tensor<4x8xf32>
//   CHECK-NEXT: return %[[V0]] : tensor<4x8xf32>
func.func @relu_grad(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = ckpt.relu_grad bwd %dy, %y : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// sigmoid_grad: incoming gradient, saved tensor and result share one type.
// CHECK-LABEL: func.func @sigmoid_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<4x8xbf16>, %[[Y:[^:]+]]: tensor<4x8xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.sigmoid_grad bwd %[[DY]], %[[Y]] : tensor<4x8xbf16>
//   CHECK-NEXT: return %[[V0]] : tensor<4x8xbf16>
func.func @sigmoid_grad(%dy: tensor<4x8xbf16>, %y: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = ckpt.sigmoid_grad bwd %dy, %y : tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// tanh_grad: incoming gradient, saved tensor and result share one type.
// CHECK-LABEL: func.func @tanh_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<4x8xf16>, %[[Y:[^:]+]]: tensor<4x8xf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.tanh_grad bwd %[[DY]], %[[Y]] : tensor<4x8xf16>
//   CHECK-NEXT: return %[[V0]] : tensor<4x8xf16>
func.func @tanh_grad(%dy: tensor<4x8xf16>, %y: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = ckpt.tanh_grad bwd %dy, %y : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// silu_grad: incoming gradient, saved tensor and result share one type.
// CHECK-LABEL: func.func @silu_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.silu_grad bwd %[[DY]], %[[Y]] : tensor<4x8xf32>
//   CHECK-NEXT: return %[[V0]] : tensor<4x8xf32>
func.func @silu_grad(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = ckpt.silu_grad bwd %dy, %y : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// gelu_grad: both forms, from the saved forward input.
// CHECK-LABEL: func.func @gelu_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<4x8xf32>, %[[X:[^:]+]]: tensor<4x8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.gelu_grad bwd erf %[[DY]], %[[X]] : tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.gelu_grad bwd tanh %[[DY]], %[[X]] : tensor<4x8xf32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xf32>, tensor<4x8xf32>
func.func @gelu_grad(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = ckpt.gelu_grad bwd erf %dy, %x : tensor<4x8xf32>
  %1 = ckpt.gelu_grad bwd tanh %dy, %x : tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// clamp / clamp_grad: ReLU6 bounds on f32, equal and negative bounds on bf16,
// in every phase; the gradient reads the saved forward input.
// CHECK-LABEL: func.func @clamp(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[DY:[^:]+]]: tensor<4x8xf32>, %[[H:[^:]+]]: tensor<8xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.clamp fwd %[[X]] min 0.000000e+00 max 6.000000e+00 : tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.clamp_grad bwd %[[DY]], %[[X]] min 0.000000e+00 max 6.000000e+00 : tensor<4x8xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.clamp opt %[[H]] min -2.500000e-01 max -2.500000e-01 : tensor<8xbf16>
//   CHECK-NEXT: %[[V3:[^ ,:]+]] = ckpt.clamp_grad bwd %[[H]], %[[H]] min -1.000000e+00 max 1.000000e-01 : tensor<8xbf16>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xbf16>, tensor<8xbf16>
func.func @clamp(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>, %h: tensor<8xbf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xbf16>, tensor<8xbf16>) {
  %0 = ckpt.clamp fwd %x min 0.0 max 6.0 : tensor<4x8xf32>
  %1 = ckpt.clamp_grad bwd %dy, %x min 0.0 max 6.0 : tensor<4x8xf32>
  %2 = ckpt.clamp opt %h min -0.25 max -0.25 : tensor<8xbf16>
  %3 = ckpt.clamp_grad bwd %h, %h min -1.0 max 0.1 : tensor<8xbf16>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xbf16>, tensor<8xbf16>
}

// -----

// hardswish / hardsigmoid and their gradients: f32 and bf16, the gradients
// read the saved forward input; sin / cos on a rank-0 tensor and on f16.
// CHECK-LABEL: func.func @hard_activations(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[DY:[^:]+]]: tensor<4x8xf32>, %[[H:[^:]+]]: tensor<8xbf16>, %[[S:[^:]+]]: tensor<f32>, %[[F:[^:]+]]: tensor<3xf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.hardswish fwd %[[X]] : tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.hardswish_grad bwd %[[DY]], %[[X]] : tensor<4x8xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.hardsigmoid fwd %[[H]] : tensor<8xbf16>
//   CHECK-NEXT: %[[V3:[^ ,:]+]] = ckpt.hardsigmoid_grad bwd %[[H]], %[[H]] : tensor<8xbf16>
//   CHECK-NEXT: %[[V4:[^ ,:]+]] = ckpt.sin fwd %[[S]] : tensor<f32>
//   CHECK-NEXT: %[[V5:[^ ,:]+]] = ckpt.cos bwd %[[F]] : tensor<3xf16>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]] :
func.func @hard_activations(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>, %h: tensor<8xbf16>, %s: tensor<f32>, %f: tensor<3xf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xbf16>, tensor<8xbf16>, tensor<f32>, tensor<3xf16>) {
  %0 = ckpt.hardswish fwd %x : tensor<4x8xf32>
  %1 = ckpt.hardswish_grad bwd %dy, %x : tensor<4x8xf32>
  %2 = ckpt.hardsigmoid fwd %h : tensor<8xbf16>
  %3 = ckpt.hardsigmoid_grad bwd %h, %h : tensor<8xbf16>
  %4 = ckpt.sin fwd %s : tensor<f32>
  %5 = ckpt.cos bwd %f : tensor<3xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xbf16>, tensor<8xbf16>, tensor<f32>, tensor<3xf16>
}

// -----

// abs on floats and integers, neg on integers (T5's relative-position
// buckets): operand and result of one type.
// CHECK-LABEL: func.func @abs_neg_integers(
//  CHECK-SAME:     %[[I:[^:]+]]: tensor<4x8xi64>, %[[J:[^:]+]]: tensor<3xi32>, %[[F:[^:]+]]: tensor<2xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.abs fwd %[[I]] : tensor<4x8xi64>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.abs bwd %[[J]] : tensor<3xi32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.abs fwd %[[F]] : tensor<2xbf16>
//   CHECK-NEXT: %[[V3:[^ ,:]+]] = ckpt.neg fwd %[[I]] : tensor<4x8xi64>
//   CHECK-NEXT: %[[V4:[^ ,:]+]] = ckpt.neg opt %[[J]] : tensor<3xi32>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]] :
func.func @abs_neg_integers(%i: tensor<4x8xi64>, %j: tensor<3xi32>, %f: tensor<2xbf16>) -> (tensor<4x8xi64>, tensor<3xi32>, tensor<2xbf16>, tensor<4x8xi64>, tensor<3xi32>) {
  %0 = ckpt.abs fwd %i : tensor<4x8xi64>
  %1 = ckpt.abs bwd %j : tensor<3xi32>
  %2 = ckpt.abs fwd %f : tensor<2xbf16>
  %3 = ckpt.neg fwd %i : tensor<4x8xi64>
  %4 = ckpt.neg opt %j : tensor<3xi32>
  return %0, %1, %2, %3, %4 : tensor<4x8xi64>, tensor<3xi32>, tensor<2xbf16>, tensor<4x8xi64>, tensor<3xi32>
}

// -----

// minimum / maximum: numpy broadcasting (a rank-0 operand, 4x1 against 1x8)
// on i64, i32 and f16.
// CHECK-LABEL: func.func @minimum_maximum(
//  CHECK-SAME:     %[[A:[^:]+]]: tensor<4x8xi64>, %[[S:[^:]+]]: tensor<i64>, %[[C:[^:]+]]: tensor<4x1xi32>, %[[D:[^:]+]]: tensor<1x8xi32>, %[[H:[^:]+]]: tensor<8xf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.minimum fwd %[[A]], %[[S]] : tensor<4x8xi64>, tensor<i64> -> tensor<4x8xi64>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.maximum bwd %[[C]], %[[D]] : tensor<4x1xi32>, tensor<1x8xi32> -> tensor<4x8xi32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.maximum fwd %[[H]], %[[H]] : tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]] :
func.func @minimum_maximum(%a: tensor<4x8xi64>, %s: tensor<i64>, %c: tensor<4x1xi32>, %d: tensor<1x8xi32>, %h: tensor<8xf16>) -> (tensor<4x8xi64>, tensor<4x8xi32>, tensor<8xf16>) {
  %0 = ckpt.minimum fwd %a, %s : tensor<4x8xi64>, tensor<i64> -> tensor<4x8xi64>
  %1 = ckpt.maximum bwd %c, %d : tensor<4x1xi32>, tensor<1x8xi32> -> tensor<4x8xi32>
  %2 = ckpt.maximum fwd %h, %h : tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>
  return %0, %1, %2 : tensor<4x8xi64>, tensor<4x8xi32>, tensor<8xf16>
}

// -----

// softmax / log_softmax: any axis below the rank.
// CHECK-LABEL: func.func @softmax(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x4x8xf32>, %[[Y:[^:]+]]: tensor<8xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.softmax fwd %[[X]] axis 2 : tensor<2x4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.softmax fwd %[[X]] axis 0 : tensor<2x4x8xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.log_softmax fwd %[[Y]] axis 0 : tensor<8xbf16>
//   CHECK-NEXT: %[[V3:[^ ,:]+]] = ckpt.log_softmax fwd %[[X]] axis 1 : tensor<2x4x8xf32>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<8xbf16>, tensor<2x4x8xf32>
func.func @softmax(%x: tensor<2x4x8xf32>, %y: tensor<8xbf16>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<8xbf16>, tensor<2x4x8xf32>) {
  %0 = ckpt.softmax fwd %x axis 2 : tensor<2x4x8xf32>
  %1 = ckpt.softmax fwd %x axis 0 : tensor<2x4x8xf32>
  %2 = ckpt.log_softmax fwd %y axis 0 : tensor<8xbf16>
  %3 = ckpt.log_softmax fwd %x axis 1 : tensor<2x4x8xf32>
  return %0, %1, %2, %3 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<8xbf16>, tensor<2x4x8xf32>
}

// -----

// softmax_grad / log_softmax_grad: from the incoming gradient and the saved output.
// CHECK-LABEL: func.func @softmax_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.softmax_grad bwd %[[DY]], %[[Y]] axis 1 : tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.log_softmax_grad bwd %[[DY]], %[[Y]] axis 0 : tensor<4x8xf32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x8xf32>, tensor<4x8xf32>
func.func @softmax_grad(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = ckpt.softmax_grad bwd %dy, %y axis 1 : tensor<4x8xf32>
  %1 = ckpt.log_softmax_grad bwd %dy, %y axis 0 : tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// layer_norm: weight and bias, weight only, bias only, neither; f32 statistics of the leading dimensions.
// CHECK-LABEL: func.func @layer_norm(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x4x8xbf16>, %[[W:[^:]+]]: tensor<8xbf16>, %[[B:[^:]+]]: tensor<8xbf16>, %[[W2:[^:]+]]: tensor<4x8xbf16>)
//   CHECK:      %[[Y:[^ ,:]+]], %[[MEAN:[^ ,:]+]], %[[RSTD:[^ ,:]+]] = ckpt.layer_norm fwd %[[X]] weight %[[W]] bias %[[B]] axis 2 eps 1.000000e-05 : (tensor<2x4x8xbf16>, tensor<8xbf16>, tensor<8xbf16>) -> (tensor<2x4x8xbf16>, tensor<2x4xf32>, tensor<2x4xf32>)
//   CHECK-NEXT: %[[Y1:[^ ,:]+]], %[[MEAN1:[^ ,:]+]], %[[RSTD1:[^ ,:]+]] = ckpt.layer_norm fwd %[[X]] weight %[[W2]] axis 1 eps 9.9999999999999995E-7 : (tensor<2x4x8xbf16>, tensor<4x8xbf16>) -> (tensor<2x4x8xbf16>, tensor<2xf32>, tensor<2xf32>)
//   CHECK-NEXT: %[[Y2:[^ ,:]+]], %[[MEAN2:[^ ,:]+]], %[[RSTD2:[^ ,:]+]] = ckpt.layer_norm fwd %[[X]] bias %[[B]] axis 2 eps 1.000000e-05 : (tensor<2x4x8xbf16>, tensor<8xbf16>) -> (tensor<2x4x8xbf16>, tensor<2x4xf32>, tensor<2x4xf32>)
//   CHECK-NEXT: %[[Y3:[^ ,:]+]], %[[MEAN3:[^ ,:]+]], %[[RSTD3:[^ ,:]+]] = ckpt.layer_norm fwd %[[X]] axis 0 eps 0.000000e+00 : (tensor<2x4x8xbf16>) -> (tensor<2x4x8xbf16>, tensor<f32>, tensor<f32>)
//   CHECK-NEXT: return %[[Y]], %[[RSTD1]], %[[Y2]], %[[MEAN3]] : tensor<2x4x8xbf16>, tensor<2xf32>, tensor<2x4x8xbf16>, tensor<f32>
func.func @layer_norm(%x: tensor<2x4x8xbf16>, %w: tensor<8xbf16>, %b: tensor<8xbf16>, %w2: tensor<4x8xbf16>) -> (tensor<2x4x8xbf16>, tensor<2xf32>, tensor<2x4x8xbf16>, tensor<f32>) {
  %y, %mean, %rstd = ckpt.layer_norm fwd %x weight %w bias %b axis 2 eps 1.000000e-05 : (tensor<2x4x8xbf16>, tensor<8xbf16>, tensor<8xbf16>) -> (tensor<2x4x8xbf16>, tensor<2x4xf32>, tensor<2x4xf32>)
  %y1, %mean1, %rstd1 = ckpt.layer_norm fwd %x weight %w2 axis 1 eps 9.9999999999999995E-7 : (tensor<2x4x8xbf16>, tensor<4x8xbf16>) -> (tensor<2x4x8xbf16>, tensor<2xf32>, tensor<2xf32>)
  %y2, %mean2, %rstd2 = ckpt.layer_norm fwd %x bias %b axis 2 eps 1.000000e-05 : (tensor<2x4x8xbf16>, tensor<8xbf16>) -> (tensor<2x4x8xbf16>, tensor<2x4xf32>, tensor<2x4xf32>)
  %y3, %mean3, %rstd3 = ckpt.layer_norm fwd %x axis 0 eps 0.000000e+00 : (tensor<2x4x8xbf16>) -> (tensor<2x4x8xbf16>, tensor<f32>, tensor<f32>)
  return %y, %rstd1, %y2, %mean3 : tensor<2x4x8xbf16>, tensor<2xf32>, tensor<2x4x8xbf16>, tensor<f32>
}

// -----

// layer_norm_grad: 0, 1 or 2 parameter gradients; a weight without parameter gradients.
// CHECK-LABEL: func.func @layer_norm_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<4x8xf32>, %[[X:[^:]+]]: tensor<4x8xf32>, %[[MEAN:[^:]+]]: tensor<4xf32>, %[[RSTD:[^:]+]]: tensor<4xf32>, %[[W:[^:]+]]: tensor<8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.layer_norm_grad bwd %[[DY]], %[[X]], %[[MEAN]], %[[RSTD]] axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.layer_norm_grad bwd %[[DY]], %[[X]], %[[MEAN]], %[[RSTD]] weight %[[W]] axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<4x8xf32>
//   CHECK-NEXT: %[[DX:[^ ,:]+]], %[[DW:[^ ,:]+]] = ckpt.layer_norm_grad bwd %[[DY]], %[[X]], %[[MEAN]], %[[RSTD]] weight %[[W]] axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
//   CHECK-NEXT: %[[DX2:[^ ,:]+]], %[[PG:[^ ,:]+]]:2 = ckpt.layer_norm_grad bwd %[[DY]], %[[X]], %[[MEAN]], %[[RSTD]] weight %[[W]] axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
//   CHECK-NEXT: return %[[V0]], %[[DW]], %[[PG]]#1 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
func.func @layer_norm_grad(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %mean: tensor<4xf32>, %rstd: tensor<4xf32>, %w: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = ckpt.layer_norm_grad bwd %dy, %x, %mean, %rstd axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  %1 = ckpt.layer_norm_grad bwd %dy, %x, %mean, %rstd weight %w axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %dx, %dw = ckpt.layer_norm_grad bwd %dy, %x, %mean, %rstd weight %w axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
  %dx2, %pg:2 = ckpt.layer_norm_grad bwd %dy, %x, %mean, %rstd weight %w axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0, %dw, %pg#1 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// rms_norm: with and without a weight; f32 rstd of the leading dimensions.
// CHECK-LABEL: func.func @rms_norm(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x4x8xf16>, %[[W:[^:]+]]: tensor<8xf16>)
//   CHECK:      %[[Y:[^ ,:]+]], %[[RSTD:[^ ,:]+]] = ckpt.rms_norm fwd %[[X]] weight %[[W]] axis 2 eps 9.9999999999999995E-7 : (tensor<2x4x8xf16>, tensor<8xf16>) -> (tensor<2x4x8xf16>, tensor<2x4xf32>)
//   CHECK-NEXT: %[[Y1:[^ ,:]+]], %[[RSTD1:[^ ,:]+]] = ckpt.rms_norm fwd %[[X]] axis 1 eps 9.9999999999999995E-7 : (tensor<2x4x8xf16>) -> (tensor<2x4x8xf16>, tensor<2xf32>)
//   CHECK-NEXT: return %[[Y]], %[[RSTD1]] : tensor<2x4x8xf16>, tensor<2xf32>
func.func @rms_norm(%x: tensor<2x4x8xf16>, %w: tensor<8xf16>) -> (tensor<2x4x8xf16>, tensor<2xf32>) {
  %y, %rstd = ckpt.rms_norm fwd %x weight %w axis 2 eps 9.9999999999999995E-7 : (tensor<2x4x8xf16>, tensor<8xf16>) -> (tensor<2x4x8xf16>, tensor<2x4xf32>)
  %y1, %rstd1 = ckpt.rms_norm fwd %x axis 1 eps 9.9999999999999995E-7 : (tensor<2x4x8xf16>) -> (tensor<2x4x8xf16>, tensor<2xf32>)
  return %y, %rstd1 : tensor<2x4x8xf16>, tensor<2xf32>
}

// -----

// rms_norm_grad: without and with the weight gradient.
// CHECK-LABEL: func.func @rms_norm_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<4x8xf32>, %[[X:[^:]+]]: tensor<4x8xf32>, %[[RSTD:[^:]+]]: tensor<4xf32>, %[[W:[^:]+]]: tensor<8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.rms_norm_grad bwd %[[DY]], %[[X]], %[[RSTD]] axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
//   CHECK-NEXT: %[[DX:[^ ,:]+]], %[[DW:[^ ,:]+]] = ckpt.rms_norm_grad bwd %[[DY]], %[[X]], %[[RSTD]] weight %[[W]] axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
//   CHECK-NEXT: return %[[V0]], %[[DW]] : tensor<4x8xf32>, tensor<8xf32>
func.func @rms_norm_grad(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %rstd: tensor<4xf32>, %w: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  %0 = ckpt.rms_norm_grad bwd %dy, %x, %rstd axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  %dx, %dw = ckpt.rms_norm_grad bwd %dy, %x, %rstd weight %w axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>)
  return %0, %dw : tensor<4x8xf32>, tensor<8xf32>
}

// -----

// batch_norm: per-channel weight and bias present or absent; rank 2 and rank 4 inputs.
// CHECK-LABEL: func.func @batch_norm(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x3x4x4xf32>, %[[W:[^:]+]]: tensor<3xf32>, %[[B:[^:]+]]: tensor<3xf32>, %[[Z:[^:]+]]: tensor<5x3xf32>)
//   CHECK:      %[[Y:[^ ,:]+]], %[[MEAN:[^ ,:]+]], %[[RSTD:[^ ,:]+]] = ckpt.batch_norm fwd %[[X]] weight %[[W]] bias %[[B]] eps 1.000000e-05 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
//   CHECK-NEXT: %[[Y1:[^ ,:]+]], %[[MEAN1:[^ ,:]+]], %[[RSTD1:[^ ,:]+]] = ckpt.batch_norm fwd %[[Z]] eps 1.000000e-03 : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>, tensor<3xf32>)
//   CHECK-NEXT: %[[Y2:[^ ,:]+]], %[[MEAN2:[^ ,:]+]], %[[RSTD2:[^ ,:]+]] = ckpt.batch_norm fwd %[[Z]] bias %[[B]] eps 1.000000e-03 : (tensor<5x3xf32>, tensor<3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>, tensor<3xf32>)
//   CHECK-NEXT: return %[[Y]], %[[Y1]], %[[RSTD2]] : tensor<2x3x4x4xf32>, tensor<5x3xf32>, tensor<3xf32>
func.func @batch_norm(%x: tensor<2x3x4x4xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>, %z: tensor<5x3xf32>) -> (tensor<2x3x4x4xf32>, tensor<5x3xf32>, tensor<3xf32>) {
  %y, %mean, %rstd = ckpt.batch_norm fwd %x weight %w bias %b eps 1.000000e-05 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  %y1, %mean1, %rstd1 = ckpt.batch_norm fwd %z eps 1.000000e-03 : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>, tensor<3xf32>)
  %y2, %mean2, %rstd2 = ckpt.batch_norm fwd %z bias %b eps 1.000000e-03 : (tensor<5x3xf32>, tensor<3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %y1, %rstd2 : tensor<2x3x4x4xf32>, tensor<5x3xf32>, tensor<3xf32>
}

// -----

// batch_norm_grad: 0, 1 or 2 parameter gradients.
// CHECK-LABEL: func.func @batch_norm_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<2x3x4x4xbf16>, %[[X:[^:]+]]: tensor<2x3x4x4xbf16>, %[[MEAN:[^:]+]]: tensor<3xf32>, %[[RSTD:[^:]+]]: tensor<3xf32>, %[[W:[^:]+]]: tensor<3xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.batch_norm_grad bwd %[[DY]], %[[X]], %[[MEAN]], %[[RSTD]] : (tensor<2x3x4x4xbf16>, tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xbf16>
//   CHECK-NEXT: %[[DX:[^ ,:]+]], %[[DW:[^ ,:]+]] = ckpt.batch_norm_grad bwd %[[DY]], %[[X]], %[[MEAN]], %[[RSTD]] weight %[[W]] : (tensor<2x3x4x4xbf16>, tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xbf16>) -> (tensor<2x3x4x4xbf16>, tensor<3xbf16>)
//   CHECK-NEXT: %[[DX2:[^ ,:]+]], %[[PG:[^ ,:]+]]:2 = ckpt.batch_norm_grad bwd %[[DY]], %[[X]], %[[MEAN]], %[[RSTD]] weight %[[W]] : (tensor<2x3x4x4xbf16>, tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xbf16>) -> (tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>)
//   CHECK-NEXT: return %[[V0]], %[[DW]], %[[PG]]#0 : tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>
func.func @batch_norm_grad(%dy: tensor<2x3x4x4xbf16>, %x: tensor<2x3x4x4xbf16>, %mean: tensor<3xf32>, %rstd: tensor<3xf32>, %w: tensor<3xbf16>) -> (tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>) {
  %0 = ckpt.batch_norm_grad bwd %dy, %x, %mean, %rstd : (tensor<2x3x4x4xbf16>, tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xbf16>
  %dx, %dw = ckpt.batch_norm_grad bwd %dy, %x, %mean, %rstd weight %w : (tensor<2x3x4x4xbf16>, tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xbf16>) -> (tensor<2x3x4x4xbf16>, tensor<3xbf16>)
  %dx2, %pg:2 = ckpt.batch_norm_grad bwd %dy, %x, %mean, %rstd weight %w : (tensor<2x3x4x4xbf16>, tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xbf16>) -> (tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>)
  return %0, %dw, %pg#0 : tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>
}

// -----

// dropout: probability, Philox stream and offset; p = 0 is allowed.
// CHECK-LABEL: func.func @dropout(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xbf16>)
//   CHECK:      %[[Y:[^ ,:]+]], %[[MASK:[^ ,:]+]] = ckpt.dropout fwd %[[X]] p 1.000000e-01 seed 7 offset 1024 : tensor<4x8xbf16> -> (tensor<4x8xbf16>, tensor<4x8xi1>)
//   CHECK-NEXT: %[[Y1:[^ ,:]+]], %[[MASK1:[^ ,:]+]] = ckpt.dropout fwd %[[X]] p 0.000000e+00 seed 0 offset 0 : tensor<4x8xbf16> -> (tensor<4x8xbf16>, tensor<4x8xi1>)
//   CHECK-NEXT: return %[[Y]], %[[MASK1]] : tensor<4x8xbf16>, tensor<4x8xi1>
func.func @dropout(%x: tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xi1>) {
  %y, %mask = ckpt.dropout fwd %x p 1.000000e-01 seed 7 offset 1024 : tensor<4x8xbf16> -> (tensor<4x8xbf16>, tensor<4x8xi1>)
  %y1, %mask1 = ckpt.dropout fwd %x p 0.000000e+00 seed 0 offset 0 : tensor<4x8xbf16> -> (tensor<4x8xbf16>, tensor<4x8xi1>)
  return %y, %mask1 : tensor<4x8xbf16>, tensor<4x8xi1>
}

// -----

// dropout_grad: from the saved mask.
// CHECK-LABEL: func.func @dropout_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<4x8xf32>, %[[MASK:[^:]+]]: tensor<4x8xi1>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.dropout_grad bwd %[[DY]], %[[MASK]] p 5.000000e-01 : tensor<4x8xf32>, tensor<4x8xi1>
//   CHECK-NEXT: return %[[V0]] : tensor<4x8xf32>
func.func @dropout_grad(%dy: tensor<4x8xf32>, %mask: tensor<4x8xi1>) -> tensor<4x8xf32> {
  %0 = ckpt.dropout_grad bwd %dy, %mask p 5.000000e-01 : tensor<4x8xf32>, tensor<4x8xi1>
  return %0 : tensor<4x8xf32>
}

// -----

// embedding: i64 and i32 indices of any rank, rank-0 included.
// CHECK-LABEL: func.func @embedding(
//  CHECK-SAME:     %[[TABLE:[^:]+]]: tensor<100x8xf32>, %[[IDS:[^:]+]]: tensor<2x4xi64>, %[[ID:[^:]+]]: tensor<i32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.embedding fwd %[[TABLE]], %[[IDS]] : (tensor<100x8xf32>, tensor<2x4xi64>) -> tensor<2x4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.embedding fwd %[[TABLE]], %[[ID]] : (tensor<100x8xf32>, tensor<i32>) -> tensor<8xf32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<2x4x8xf32>, tensor<8xf32>
func.func @embedding(%table: tensor<100x8xf32>, %ids: tensor<2x4xi64>, %id: tensor<i32>) -> (tensor<2x4x8xf32>, tensor<8xf32>) {
  %0 = ckpt.embedding fwd %table, %ids : (tensor<100x8xf32>, tensor<2x4xi64>) -> tensor<2x4x8xf32>
  %1 = ckpt.embedding fwd %table, %id : (tensor<100x8xf32>, tensor<i32>) -> tensor<8xf32>
  return %0, %1 : tensor<2x4x8xf32>, tensor<8xf32>
}

// -----

// embedding_grad: the result type gives the table shape; padding_idx, when
// present, is printed in the attribute dictionary (rows 0 and 99, the first
// and last of the table).
// CHECK-LABEL: func.func @embedding_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<2x4x8xbf16>, %[[IDS:[^:]+]]: tensor<2x4xi32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.embedding_grad bwd %[[DY]], %[[IDS]] : (tensor<2x4x8xbf16>, tensor<2x4xi32>) -> tensor<100x8xbf16>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.embedding_grad bwd %[[DY]], %[[IDS]] {padding_idx = 0 : i64} : (tensor<2x4x8xbf16>, tensor<2x4xi32>) -> tensor<100x8xbf16>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.embedding_grad bwd %[[DY]], %[[IDS]] {padding_idx = 99 : i64} : (tensor<2x4x8xbf16>, tensor<2x4xi32>) -> tensor<100x8xbf16>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]] : tensor<100x8xbf16>, tensor<100x8xbf16>, tensor<100x8xbf16>
func.func @embedding_grad(%dy: tensor<2x4x8xbf16>, %ids: tensor<2x4xi32>) -> (tensor<100x8xbf16>, tensor<100x8xbf16>, tensor<100x8xbf16>) {
  %0 = ckpt.embedding_grad bwd %dy, %ids : (tensor<2x4x8xbf16>, tensor<2x4xi32>) -> tensor<100x8xbf16>
  %1 = ckpt.embedding_grad bwd %dy, %ids {padding_idx = 0 : i64} : (tensor<2x4x8xbf16>, tensor<2x4xi32>) -> tensor<100x8xbf16>
  %2 = ckpt.embedding_grad bwd %dy, %ids {padding_idx = 99 : i64} : (tensor<2x4x8xbf16>, tensor<2x4xi32>) -> tensor<100x8xbf16>
  return %0, %1, %2 : tensor<100x8xbf16>, tensor<100x8xbf16>, tensor<100x8xbf16>
}

// -----

// cross_entropy: mean and sum give a rank-0 loss, none per-row losses; ignore_index is printed only when not -100.
// CHECK-LABEL: func.func @cross_entropy(
//  CHECK-SAME:     %[[LOGITS:[^:]+]]: tensor<2x4x10xf32>, %[[T:[^:]+]]: tensor<2x4xi64>, %[[L2:[^:]+]]: tensor<4x10xbf16>, %[[T2:[^:]+]]: tensor<4xi32>)
//   CHECK:      %[[LOSS:[^ ,:]+]], %[[LSE:[^ ,:]+]] = ckpt.cross_entropy fwd mean %[[LOGITS]], %[[T]] : (tensor<2x4x10xf32>, tensor<2x4xi64>) -> (tensor<f32>, tensor<2x4xf32>)
//   CHECK-NEXT: %[[LOSS1:[^ ,:]+]], %[[LSE1:[^ ,:]+]] = ckpt.cross_entropy fwd sum %[[L2]], %[[T2]] {ignore_index = 0 : i64} : (tensor<4x10xbf16>, tensor<4xi32>) -> (tensor<bf16>, tensor<4xf32>)
//   CHECK-NEXT: %[[LOSS2:[^ ,:]+]], %[[LSE2:[^ ,:]+]] = ckpt.cross_entropy fwd none %[[LOGITS]], %[[T]] : (tensor<2x4x10xf32>, tensor<2x4xi64>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
//   CHECK-NEXT: return %[[LOSS]], %[[LOSS1]], %[[LOSS2]] : tensor<f32>, tensor<bf16>, tensor<2x4xf32>
func.func @cross_entropy(%logits: tensor<2x4x10xf32>, %t: tensor<2x4xi64>, %l2: tensor<4x10xbf16>, %t2: tensor<4xi32>) -> (tensor<f32>, tensor<bf16>, tensor<2x4xf32>) {
  %loss, %lse = ckpt.cross_entropy fwd mean %logits, %t : (tensor<2x4x10xf32>, tensor<2x4xi64>) -> (tensor<f32>, tensor<2x4xf32>)
  %loss1, %lse1 = ckpt.cross_entropy fwd sum %l2, %t2 {ignore_index = 0 : i64} : (tensor<4x10xbf16>, tensor<4xi32>) -> (tensor<bf16>, tensor<4xf32>)
  %loss2, %lse2 = ckpt.cross_entropy fwd none %logits, %t : (tensor<2x4x10xf32>, tensor<2x4xi64>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return %loss, %loss1, %loss2 : tensor<f32>, tensor<bf16>, tensor<2x4xf32>
}

// -----

// cross_entropy_grad: the incoming gradient has the forward loss shape.
// CHECK-LABEL: func.func @cross_entropy_grad(
//  CHECK-SAME:     %[[DL:[^:]+]]: tensor<f32>, %[[DLS:[^:]+]]: tensor<4xf32>, %[[LOGITS:[^:]+]]: tensor<4x10xf32>, %[[T:[^:]+]]: tensor<4xi64>, %[[LSE:[^:]+]]: tensor<4xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.cross_entropy_grad bwd mean %[[DL]], %[[LOGITS]], %[[T]], %[[LSE]] : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x10xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.cross_entropy_grad bwd none %[[DLS]], %[[LOGITS]], %[[T]], %[[LSE]] {ignore_index = -1 : i64} : (tensor<4xf32>, tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x10xf32>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<4x10xf32>, tensor<4x10xf32>
func.func @cross_entropy_grad(%dl: tensor<f32>, %dls: tensor<4xf32>, %logits: tensor<4x10xf32>, %t: tensor<4xi64>, %lse: tensor<4xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>) {
  %0 = ckpt.cross_entropy_grad bwd mean %dl, %logits, %t, %lse : (tensor<f32>, tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x10xf32>
  %1 = ckpt.cross_entropy_grad bwd none %dls, %logits, %t, %lse {ignore_index = -1 : i64} : (tensor<4xf32>, tensor<4x10xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<4x10xf32>
  return %0, %1 : tensor<4x10xf32>, tensor<4x10xf32>
}

// -----

// mse_loss / mse_loss_grad: mean and sum to a rank-0 loss of the input's
// element type; the gradient takes the rank-0 loss gradient, input, target.
// CHECK-LABEL: func.func @mse_loss(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x10xf32>, %[[T:[^:]+]]: tensor<4x10xf32>, %[[H:[^:]+]]: tensor<3xbf16>, %[[DL:[^:]+]]: tensor<f32>)
//   CHECK:      %[[L0:[^ ,:]+]] = ckpt.mse_loss fwd mean %[[X]], %[[T]] : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<f32>
//   CHECK-NEXT: %[[L1:[^ ,:]+]] = ckpt.mse_loss fwd sum %[[H]], %[[H]] : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<bf16>
//   CHECK-NEXT: %[[DX:[^ ,:]+]] = ckpt.mse_loss_grad bwd mean %[[DL]], %[[X]], %[[T]] : (tensor<f32>, tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
//   CHECK-NEXT: return %[[L0]], %[[L1]], %[[DX]] : tensor<f32>, tensor<bf16>, tensor<4x10xf32>
func.func @mse_loss(%x: tensor<4x10xf32>, %t: tensor<4x10xf32>, %h: tensor<3xbf16>, %dl: tensor<f32>) -> (tensor<f32>, tensor<bf16>, tensor<4x10xf32>) {
  %0 = ckpt.mse_loss fwd mean %x, %t : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<f32>
  %1 = ckpt.mse_loss fwd sum %h, %h : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<bf16>
  %2 = ckpt.mse_loss_grad bwd mean %dl, %x, %t : (tensor<f32>, tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  return %0, %1, %2 : tensor<f32>, tensor<bf16>, tensor<4x10xf32>
}

// -----

// reduce_sum: one or several sorted axes, with and without keep_dims; all axes give rank 0.
// CHECK-LABEL: func.func @reduce_sum(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x4x8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.reduce_sum fwd %[[X]] axes [1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.reduce_sum bwd %[[X]] axes [0, 2] keep_dims : tensor<2x4x8xf32> -> tensor<1x4x1xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.reduce_sum fwd %[[X]] axes [0, 1, 2] : tensor<2x4x8xf32> -> tensor<f32>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]] : tensor<2x8xf32>, tensor<1x4x1xf32>, tensor<f32>
func.func @reduce_sum(%x: tensor<2x4x8xf32>) -> (tensor<2x8xf32>, tensor<1x4x1xf32>, tensor<f32>) {
  %0 = ckpt.reduce_sum fwd %x axes [1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
  %1 = ckpt.reduce_sum bwd %x axes [0, 2] keep_dims : tensor<2x4x8xf32> -> tensor<1x4x1xf32>
  %2 = ckpt.reduce_sum fwd %x axes [0, 1, 2] : tensor<2x4x8xf32> -> tensor<f32>
  return %0, %1, %2 : tensor<2x8xf32>, tensor<1x4x1xf32>, tensor<f32>
}

// -----

// reduce_mean: one or several sorted axes, with and without keep_dims; all axes give rank 0.
// CHECK-LABEL: func.func @reduce_mean(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x4x8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.reduce_mean fwd %[[X]] axes [1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.reduce_mean bwd %[[X]] axes [0, 2] keep_dims : tensor<2x4x8xf32> -> tensor<1x4x1xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.reduce_mean fwd %[[X]] axes [0, 1, 2] : tensor<2x4x8xf32> -> tensor<f32>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]] : tensor<2x8xf32>, tensor<1x4x1xf32>, tensor<f32>
func.func @reduce_mean(%x: tensor<2x4x8xf32>) -> (tensor<2x8xf32>, tensor<1x4x1xf32>, tensor<f32>) {
  %0 = ckpt.reduce_mean fwd %x axes [1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
  %1 = ckpt.reduce_mean bwd %x axes [0, 2] keep_dims : tensor<2x4x8xf32> -> tensor<1x4x1xf32>
  %2 = ckpt.reduce_mean fwd %x axes [0, 1, 2] : tensor<2x4x8xf32> -> tensor<f32>
  return %0, %1, %2 : tensor<2x8xf32>, tensor<1x4x1xf32>, tensor<f32>
}

// -----

// reduce_max: one or several sorted axes, with and without keep_dims; all axes give rank 0.
// CHECK-LABEL: func.func @reduce_max(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x4x8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.reduce_max fwd %[[X]] axes [1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.reduce_max bwd %[[X]] axes [0, 2] keep_dims : tensor<2x4x8xf32> -> tensor<1x4x1xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.reduce_max fwd %[[X]] axes [0, 1, 2] : tensor<2x4x8xf32> -> tensor<f32>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]] : tensor<2x8xf32>, tensor<1x4x1xf32>, tensor<f32>
func.func @reduce_max(%x: tensor<2x4x8xf32>) -> (tensor<2x8xf32>, tensor<1x4x1xf32>, tensor<f32>) {
  %0 = ckpt.reduce_max fwd %x axes [1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
  %1 = ckpt.reduce_max bwd %x axes [0, 2] keep_dims : tensor<2x4x8xf32> -> tensor<1x4x1xf32>
  %2 = ckpt.reduce_max fwd %x axes [0, 1, 2] : tensor<2x4x8xf32> -> tensor<f32>
  return %0, %1, %2 : tensor<2x8xf32>, tensor<1x4x1xf32>, tensor<f32>
}

// -----

// reshape: same number of elements, any element type (i64 too), rank 0 included.
// CHECK-LABEL: func.func @reshape(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[I:[^:]+]]: tensor<2x3xi64>, %[[S:[^:]+]]: tensor<1x1xf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.reshape fwd %[[X]] : tensor<4x8xf32> -> tensor<32xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.reshape bwd %[[I]] : tensor<2x3xi64> -> tensor<3x2xi64>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.reshape fwd %[[S]] : tensor<1x1xf16> -> tensor<f16>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]] : tensor<32xf32>, tensor<3x2xi64>, tensor<f16>
func.func @reshape(%x: tensor<4x8xf32>, %i: tensor<2x3xi64>, %s: tensor<1x1xf16>) -> (tensor<32xf32>, tensor<3x2xi64>, tensor<f16>) {
  %0 = ckpt.reshape fwd %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = ckpt.reshape bwd %i : tensor<2x3xi64> -> tensor<3x2xi64>
  %2 = ckpt.reshape fwd %s : tensor<1x1xf16> -> tensor<f16>
  return %0, %1, %2 : tensor<32xf32>, tensor<3x2xi64>, tensor<f16>
}

// -----

// transpose: result dimension i is input dimension perm[i].
// CHECK-LABEL: func.func @transpose(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x4x16x8xf32>, %[[M:[^:]+]]: tensor<3x5xi1>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.transpose fwd %[[X]] perm [0, 2, 1, 3] : tensor<2x4x16x8xf32> -> tensor<2x16x4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.transpose bwd %[[M]] perm [1, 0] : tensor<3x5xi1> -> tensor<5x3xi1>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<2x16x4x8xf32>, tensor<5x3xi1>
func.func @transpose(%x: tensor<2x4x16x8xf32>, %m: tensor<3x5xi1>) -> (tensor<2x16x4x8xf32>, tensor<5x3xi1>) {
  %0 = ckpt.transpose fwd %x perm [0, 2, 1, 3] : tensor<2x4x16x8xf32> -> tensor<2x16x4x8xf32>
  %1 = ckpt.transpose bwd %m perm [1, 0] : tensor<3x5xi1> -> tensor<5x3xi1>
  return %0, %1 : tensor<2x16x4x8xf32>, tensor<5x3xi1>
}

// -----

// broadcast: trailing alignment, size-1 dimensions repeat, rank 0 to any shape.
// CHECK-LABEL: func.func @broadcast(
//  CHECK-SAME:     %[[B:[^:]+]]: tensor<8xf32>, %[[C:[^:]+]]: tensor<4x1xbf16>, %[[S:[^:]+]]: tensor<f32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.broadcast fwd %[[B]] : tensor<8xf32> -> tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.broadcast fwd %[[C]] : tensor<4x1xbf16> -> tensor<2x4x6xbf16>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.broadcast bwd %[[S]] : tensor<f32> -> tensor<3x3xf32>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]] : tensor<4x8xf32>, tensor<2x4x6xbf16>, tensor<3x3xf32>
func.func @broadcast(%b: tensor<8xf32>, %c: tensor<4x1xbf16>, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<2x4x6xbf16>, tensor<3x3xf32>) {
  %0 = ckpt.broadcast fwd %b : tensor<8xf32> -> tensor<4x8xf32>
  %1 = ckpt.broadcast fwd %c : tensor<4x1xbf16> -> tensor<2x4x6xbf16>
  %2 = ckpt.broadcast bwd %s : tensor<f32> -> tensor<3x3xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<2x4x6xbf16>, tensor<3x3xf32>
}

// -----

// slice: unit and larger steps; the last index read may be the last element; empty extents.
// CHECK-LABEL: func.func @slice(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x24xf32>, %[[Y:[^:]+]]: tensor<10xi64>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.slice fwd %[[X]] starts [0, 8] steps [1, 1] : tensor<4x24xf32> -> tensor<4x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.slice fwd %[[X]] starts [1, 1] steps [2, 11] : tensor<4x24xf32> -> tensor<2x3xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.slice bwd %[[Y]] starts [9] steps [1] : tensor<10xi64> -> tensor<1xi64>
//   CHECK-NEXT: %[[V3:[^ ,:]+]] = ckpt.slice fwd %[[Y]] starts [10] steps [3] : tensor<10xi64> -> tensor<0xi64>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4x8xf32>, tensor<2x3xf32>, tensor<1xi64>, tensor<0xi64>
func.func @slice(%x: tensor<4x24xf32>, %y: tensor<10xi64>) -> (tensor<4x8xf32>, tensor<2x3xf32>, tensor<1xi64>, tensor<0xi64>) {
  %0 = ckpt.slice fwd %x starts [0, 8] steps [1, 1] : tensor<4x24xf32> -> tensor<4x8xf32>
  %1 = ckpt.slice fwd %x starts [1, 1] steps [2, 11] : tensor<4x24xf32> -> tensor<2x3xf32>
  %2 = ckpt.slice bwd %y starts [9] steps [1] : tensor<10xi64> -> tensor<1xi64>
  %3 = ckpt.slice fwd %y starts [10] steps [3] : tensor<10xi64> -> tensor<0xi64>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<2x3xf32>, tensor<1xi64>, tensor<0xi64>
}

// -----

// concat: sizes along the axis add up; one, two or three inputs; integer tensors too.
// CHECK-LABEL: func.func @concat(
//  CHECK-SAME:     %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<4x16xf32>, %[[I:[^:]+]]: tensor<2xi32>, %[[J:[^:]+]]: tensor<3xi32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.concat fwd %[[A]], %[[B]] axis 1 : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x24xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.concat bwd %[[A]], %[[A]], %[[A]] axis 0 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<12x8xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.concat fwd %[[I]], %[[J]] axis 0 : (tensor<2xi32>, tensor<3xi32>) -> tensor<5xi32>
//   CHECK-NEXT: %[[V3:[^ ,:]+]] = ckpt.concat fwd %[[B]] axis 0 : (tensor<4x16xf32>) -> tensor<4x16xf32>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4x24xf32>, tensor<12x8xf32>, tensor<5xi32>, tensor<4x16xf32>
func.func @concat(%a: tensor<4x8xf32>, %b: tensor<4x16xf32>, %i: tensor<2xi32>, %j: tensor<3xi32>) -> (tensor<4x24xf32>, tensor<12x8xf32>, tensor<5xi32>, tensor<4x16xf32>) {
  %0 = ckpt.concat fwd %a, %b axis 1 : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x24xf32>
  %1 = ckpt.concat bwd %a, %a, %a axis 0 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<12x8xf32>
  %2 = ckpt.concat fwd %i, %j axis 0 : (tensor<2xi32>, tensor<3xi32>) -> tensor<5xi32>
  %3 = ckpt.concat fwd %b axis 0 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0, %1, %2, %3 : tensor<4x24xf32>, tensor<12x8xf32>, tensor<5xi32>, tensor<4x16xf32>
}

// -----

// iota: integer literals are i64 attributes, others f64 (printed with their types); integer and float results.
// CHECK-LABEL: func.func @iota(
//   CHECK:      %[[P:[^ ,:]+]] = ckpt.iota fwd start(0 : i64) step(1 : i64) : tensor<128xi64>
//   CHECK-NEXT: %[[Q:[^ ,:]+]] = ckpt.iota fwd start(-3 : i64) step(2 : i64) : tensor<4xi32>
//   CHECK-NEXT: %[[T:[^ ,:]+]] = ckpt.iota bwd start(5.000000e-01 : f64) step(-2.500000e-01 : f64) : tensor<16xf32>
//   CHECK-NEXT: %[[H:[^ ,:]+]] = ckpt.iota fwd start(1 : i64) step(5.000000e-01 : f64) : tensor<8xbf16>
//   CHECK-NEXT: return %[[P]], %[[Q]], %[[T]], %[[H]] : tensor<128xi64>, tensor<4xi32>, tensor<16xf32>, tensor<8xbf16>
func.func @iota() -> (tensor<128xi64>, tensor<4xi32>, tensor<16xf32>, tensor<8xbf16>) {
  %0 = ckpt.iota fwd start(0) step(1) : tensor<128xi64>
  %1 = ckpt.iota fwd start(-3) step(2) : tensor<4xi32>
  %2 = ckpt.iota bwd start(0.5) step(-0.25) : tensor<16xf32>
  %3 = ckpt.iota fwd start(1) step(0.5) : tensor<8xbf16>
  return %0, %1, %2, %3 : tensor<128xi64>, tensor<4xi32>, tensor<16xf32>, tensor<8xbf16>
}

// -----

// compare: every predicate; operands broadcast; any one element type, i1 included.
// CHECK-LABEL: func.func @compare(
//  CHECK-SAME:     %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8xf32>, %[[C:[^:]+]]: tensor<f32>, %[[I:[^:]+]]: tensor<1x8xi64>, %[[J:[^:]+]]: tensor<8x1xi64>, %[[M:[^:]+]]: tensor<8xi1>)
//   CHECK:      ckpt.compare fwd eq %[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
//   CHECK-NEXT: ckpt.compare fwd ne %[[A]], %[[C]] : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi1>
//   CHECK-NEXT: ckpt.compare fwd lt %[[C]], %[[A]] : tensor<f32>, tensor<4x8xf32> -> tensor<4x8xi1>
//   CHECK-NEXT: ckpt.compare bwd le %[[I]], %[[J]] : tensor<1x8xi64>, tensor<8x1xi64> -> tensor<8x8xi1>
//   CHECK-NEXT: ckpt.compare fwd gt %[[J]], %[[I]] : tensor<8x1xi64>, tensor<1x8xi64> -> tensor<8x8xi1>
//   CHECK-NEXT: ckpt.compare fwd ge %[[M]], %[[M]] : tensor<8xi1>, tensor<8xi1> -> tensor<8xi1>
func.func @compare(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<f32>, %i: tensor<1x8xi64>, %j: tensor<8x1xi64>, %m: tensor<8xi1>) {
  %0 = ckpt.compare fwd eq %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  %1 = ckpt.compare fwd ne %a, %c : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi1>
  %2 = ckpt.compare fwd lt %c, %a : tensor<f32>, tensor<4x8xf32> -> tensor<4x8xi1>
  %3 = ckpt.compare bwd le %i, %j : tensor<1x8xi64>, tensor<8x1xi64> -> tensor<8x8xi1>
  %4 = ckpt.compare fwd gt %j, %i : tensor<8x1xi64>, tensor<1x8xi64> -> tensor<8x8xi1>
  %5 = ckpt.compare fwd ge %m, %m : tensor<8xi1>, tensor<8xi1> -> tensor<8xi1>
  return
}

// -----

// select: all three operands broadcast (masked_fill is a select with a rank-0 fill); integer values too.
// CHECK-LABEL: func.func @select(
//  CHECK-SAME:     %[[M:[^:]+]]: tensor<1x1x8x8xi1>, %[[X:[^:]+]]: tensor<2x4x8x8xf32>, %[[C:[^:]+]]: tensor<f32>, %[[N:[^:]+]]: tensor<8xi1>, %[[I:[^:]+]]: tensor<8xi64>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.select fwd %[[M]], %[[C]], %[[X]] : tensor<1x1x8x8xi1>, tensor<f32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.select bwd %[[N]], %[[I]], %[[I]] : tensor<8xi1>, tensor<8xi64>, tensor<8xi64> -> tensor<8xi64>
//   CHECK-NEXT: return %[[V0]], %[[V1]]
func.func @select(%m: tensor<1x1x8x8xi1>, %x: tensor<2x4x8x8xf32>, %c: tensor<f32>, %n: tensor<8xi1>, %i: tensor<8xi64>) -> (tensor<2x4x8x8xf32>, tensor<8xi64>) {
  %0 = ckpt.select fwd %m, %c, %x : tensor<1x1x8x8xi1>, tensor<f32>, tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32>
  %1 = ckpt.select bwd %n, %i, %i : tensor<8xi1>, tensor<8xi64>, tensor<8xi64> -> tensor<8xi64>
  return %0, %1 : tensor<2x4x8x8xf32>, tensor<8xi64>
}

// -----

// logical_not / logical_and / logical_or: i1 masks; the binary ones broadcast.
// CHECK-LABEL: func.func @logical(
//  CHECK-SAME:     %[[A:[^:]+]]: tensor<8x8xi1>, %[[B:[^:]+]]: tensor<1x8xi1>)
//   CHECK:      %[[N:[^ ,:]+]] = ckpt.logical_not fwd %[[A]] : tensor<8x8xi1>
//   CHECK-NEXT: %[[D:[^ ,:]+]] = ckpt.logical_and fwd %[[N]], %[[B]] : tensor<8x8xi1>, tensor<1x8xi1> -> tensor<8x8xi1>
//   CHECK-NEXT: %[[O:[^ ,:]+]] = ckpt.logical_or fwd %[[B]], %[[D]] : tensor<1x8xi1>, tensor<8x8xi1> -> tensor<8x8xi1>
//   CHECK-NEXT: return %[[O]]
func.func @logical(%a: tensor<8x8xi1>, %b: tensor<1x8xi1>) -> tensor<8x8xi1> {
  %0 = ckpt.logical_not fwd %a : tensor<8x8xi1>
  %1 = ckpt.logical_and fwd %0, %b : tensor<8x8xi1>, tensor<1x8xi1> -> tensor<8x8xi1>
  %2 = ckpt.logical_or fwd %b, %1 : tensor<1x8xi1>, tensor<8x8xi1> -> tensor<8x8xi1>
  return %2 : tensor<8x8xi1>
}

// -----

// tril / triu: the diagonal is signed; the default 0 is not printed; any element type.
// CHECK-LABEL: func.func @triangles(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x8x8xf32>, %[[M:[^:]+]]: tensor<8x8xi1>)
//   CHECK:      ckpt.tril fwd %[[X]] : tensor<2x8x8xf32>
//   CHECK-NEXT: ckpt.tril fwd %[[X]] diagonal -2 : tensor<2x8x8xf32>
//   CHECK-NEXT: ckpt.triu fwd %[[M]] diagonal 1 : tensor<8x8xi1>
//   CHECK-NEXT: ckpt.triu fwd %[[M]] : tensor<8x8xi1>
func.func @triangles(%x: tensor<2x8x8xf32>, %m: tensor<8x8xi1>) {
  %0 = ckpt.tril fwd %x : tensor<2x8x8xf32>
  %1 = ckpt.tril fwd %x diagonal -2 : tensor<2x8x8xf32>
  %2 = ckpt.triu fwd %m diagonal 1 : tensor<8x8xi1>
  %3 = ckpt.triu fwd %m diagonal 0 : tensor<8x8xi1>
  return
}

// -----

// pad: low and high per dimension; the value for floats and integers; its gradient is a slice at `low`.
// CHECK-LABEL: func.func @pad(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[I:[^:]+]]: tensor<3xi64>, %[[G:[^:]+]]: tensor<4x11xf32>)
//   CHECK:      ckpt.pad fwd %[[X]] low [0, 1] high [0, 2] value 0.000000e+00 : tensor<4x8xf32> -> tensor<4x11xf32>
//   CHECK-NEXT: ckpt.pad fwd %[[I]] low [2] high [0] value -1.000000e+00 : tensor<3xi64> -> tensor<5xi64>
//   CHECK-NEXT: ckpt.slice bwd %[[G]] starts [0, 1] steps [1, 1] : tensor<4x11xf32> -> tensor<4x8xf32>
func.func @pad(%x: tensor<4x8xf32>, %i: tensor<3xi64>, %g: tensor<4x11xf32>) {
  %0 = ckpt.pad fwd %x low [0, 1] high [0, 2] value 0.0 : tensor<4x8xf32> -> tensor<4x11xf32>
  %1 = ckpt.pad fwd %i low [2] high [0] value -1.0 : tensor<3xi64> -> tensor<5xi64>
  %2 = ckpt.slice bwd %g starts [0, 1] steps [1, 1] : tensor<4x11xf32> -> tensor<4x8xf32>
  return
}

// -----

// gather: along any dim; index sizes at most the input's off `dim`, any size along it.
// CHECK-LABEL: func.func @gather(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[I:[^:]+]]: tensor<4x3xi64>, %[[J:[^:]+]]: tensor<6x2xi64>, %[[M:[^:]+]]: tensor<4x8xi1>)
//   CHECK:      ckpt.gather fwd %[[X]], %[[I]] dim 1 : tensor<4x8xf32>, tensor<4x3xi64> -> tensor<4x3xf32>
//   CHECK-NEXT: ckpt.gather fwd %[[X]], %[[J]] dim 0 : tensor<4x8xf32>, tensor<6x2xi64> -> tensor<6x2xf32>
//   CHECK-NEXT: ckpt.gather bwd %[[M]], %[[I]] dim 1 : tensor<4x8xi1>, tensor<4x3xi64> -> tensor<4x3xi1>
func.func @gather(%x: tensor<4x8xf32>, %i: tensor<4x3xi64>, %j: tensor<6x2xi64>, %m: tensor<4x8xi1>) {
  %0 = ckpt.gather fwd %x, %i dim 1 : tensor<4x8xf32>, tensor<4x3xi64> -> tensor<4x3xf32>
  %1 = ckpt.gather fwd %x, %j dim 0 : tensor<4x8xf32>, tensor<6x2xi64> -> tensor<6x2xf32>
  %2 = ckpt.gather bwd %m, %i dim 1 : tensor<4x8xi1>, tensor<4x3xi64> -> tensor<4x3xi1>
  return
}

// -----

// add / sub / mul: i64 and i32 operands (position ids: offset + iota), broadcasting.
// CHECK-LABEL: func.func @integer_arithmetic(
//  CHECK-SAME:     %[[P:[^:]+]]: tensor<1x8xi64>, %[[O:[^:]+]]: tensor<2x1xi64>, %[[I:[^:]+]]: tensor<4xi32>)
//   CHECK:      ckpt.add fwd %[[P]], %[[O]] : tensor<1x8xi64>, tensor<2x1xi64> -> tensor<2x8xi64>
//   CHECK-NEXT: ckpt.sub fwd %[[O]], %[[P]] : tensor<2x1xi64>, tensor<1x8xi64> -> tensor<2x8xi64>
//   CHECK-NEXT: ckpt.mul bwd %[[I]], %[[I]] : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
func.func @integer_arithmetic(%p: tensor<1x8xi64>, %o: tensor<2x1xi64>, %i: tensor<4xi32>) {
  %0 = ckpt.add fwd %p, %o : tensor<1x8xi64>, tensor<2x1xi64> -> tensor<2x8xi64>
  %1 = ckpt.sub fwd %o, %p : tensor<2x1xi64>, tensor<1x8xi64> -> tensor<2x8xi64>
  %2 = ckpt.mul bwd %i, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

// attention: plain, causal, and with dropout on a Philox stream; default attributes are not printed.
// CHECK-LABEL: func.func @attention(
//  CHECK-SAME:     %[[Q:[^:]+]]: tensor<2x4x16x64xbf16>, %[[K:[^:]+]]: tensor<2x4x16x64xbf16>, %[[V:[^:]+]]: tensor<2x4x16x64xbf16>)
//   CHECK:      %[[O:[^ ,:]+]], %[[LSE:[^ ,:]+]] = ckpt.attention fwd %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-01 : f64} : (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>) -> (tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>)
//   CHECK-NEXT: %[[O1:[^ ,:]+]], %[[LSE1:[^ ,:]+]] = ckpt.attention fwd %[[Q]], %[[K]], %[[V]] {causal, scale = 1.250000e-01 : f64} : (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>) -> (tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>)
//   CHECK-NEXT: %[[O2:[^ ,:]+]], %[[LSE2:[^ ,:]+]] = ckpt.attention fwd %[[Q]], %[[K]], %[[V]] {dropout_p = 1.000000e-01 : f64, offset = 4096 : i64, scale = 1.000000e+00 : f64, seed = 3 : i64} : (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>) -> (tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>)
//   CHECK-NEXT: return %[[O]], %[[LSE1]], %[[O2]] : tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>, tensor<2x4x16x64xbf16>
func.func @attention(%q: tensor<2x4x16x64xbf16>, %k: tensor<2x4x16x64xbf16>, %v: tensor<2x4x16x64xbf16>) -> (tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>, tensor<2x4x16x64xbf16>) {
  %o, %lse = ckpt.attention fwd %q, %k, %v {scale = 1.250000e-01 : f64} : (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>) -> (tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>)
  %o1, %lse1 = ckpt.attention fwd %q, %k, %v {causal, scale = 1.250000e-01 : f64} : (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>) -> (tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>)
  %o2, %lse2 = ckpt.attention fwd %q, %k, %v {dropout_p = 1.000000e-01 : f64, offset = 4096 : i64, scale = 1.000000e+00 : f64, seed = 3 : i64} : (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>) -> (tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>)
  return %o, %lse1, %o2 : tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>, tensor<2x4x16x64xbf16>
}

// -----

// attention: grouped-query (8 query heads over 2 key/value heads), Skv != S and Dv != D.
// CHECK-LABEL: func.func @attention_gqa(
//  CHECK-SAME:     %[[Q:[^:]+]]: tensor<1x8x16x64xf32>, %[[K:[^:]+]]: tensor<1x2x32x64xf32>, %[[V:[^:]+]]: tensor<1x2x32x32xf32>)
//   CHECK:      %[[O:[^ ,:]+]], %[[LSE:[^ ,:]+]] = ckpt.attention fwd %[[Q]], %[[K]], %[[V]] {causal, scale = 1.250000e-01 : f64} : (tensor<1x8x16x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x32x32xf32>) -> (tensor<1x8x16x32xf32>, tensor<1x8x16xf32>)
//   CHECK-NEXT: return %[[O]], %[[LSE]] : tensor<1x8x16x32xf32>, tensor<1x8x16xf32>
func.func @attention_gqa(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x32x64xf32>, %v: tensor<1x2x32x32xf32>) -> (tensor<1x8x16x32xf32>, tensor<1x8x16xf32>) {
  %o, %lse = ckpt.attention fwd %q, %k, %v {causal, scale = 1.250000e-01 : f64} : (tensor<1x8x16x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x32x32xf32>) -> (tensor<1x8x16x32xf32>, tensor<1x8x16xf32>)
  return %o, %lse : tensor<1x8x16x32xf32>, tensor<1x8x16xf32>
}

// -----

// attention_grad: gradients have the query, key and value types; causal GQA with dropout.
// CHECK-LABEL: func.func @attention_grad(
//  CHECK-SAME:     %[[DO:[^:]+]]: tensor<1x8x16x32xf16>, %[[Q:[^:]+]]: tensor<1x8x16x64xf16>, %[[K:[^:]+]]: tensor<1x2x32x64xf16>, %[[V:[^:]+]]: tensor<1x2x32x32xf16>, %[[O:[^:]+]]: tensor<1x8x16x32xf16>, %[[LSE:[^:]+]]: tensor<1x8x16xf32>)
//   CHECK:      %[[DQ:[^ ,:]+]], %[[DK:[^ ,:]+]], %[[DV:[^ ,:]+]] = ckpt.attention_grad bwd %[[DO]], %[[Q]], %[[K]], %[[V]], %[[O]], %[[LSE]] {scale = 1.250000e-01 : f64} : (tensor<1x8x16x32xf16>, tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x32xf16>, tensor<1x8x16x32xf16>, tensor<1x8x16xf32>) -> (tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x32xf16>)
//   CHECK-NEXT: %[[DQ1:[^ ,:]+]], %[[DK1:[^ ,:]+]], %[[DV1:[^ ,:]+]] = ckpt.attention_grad bwd %[[DO]], %[[Q]], %[[K]], %[[V]], %[[O]], %[[LSE]] {causal, dropout_p = 2.000000e-01 : f64, scale = 1.250000e-01 : f64, seed = 5 : i64} : (tensor<1x8x16x32xf16>, tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x32xf16>, tensor<1x8x16x32xf16>, tensor<1x8x16xf32>) -> (tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x32xf16>)
//   CHECK-NEXT: return %[[DQ]], %[[DK1]], %[[DV1]] : tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x32xf16>
func.func @attention_grad(%do: tensor<1x8x16x32xf16>, %q: tensor<1x8x16x64xf16>, %k: tensor<1x2x32x64xf16>, %v: tensor<1x2x32x32xf16>, %o: tensor<1x8x16x32xf16>, %lse: tensor<1x8x16xf32>) -> (tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x32xf16>) {
  %dq, %dk, %dv = ckpt.attention_grad bwd %do, %q, %k, %v, %o, %lse {scale = 1.250000e-01 : f64} : (tensor<1x8x16x32xf16>, tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x32xf16>, tensor<1x8x16x32xf16>, tensor<1x8x16xf32>) -> (tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x32xf16>)
  %dq1, %dk1, %dv1 = ckpt.attention_grad bwd %do, %q, %k, %v, %o, %lse {causal, dropout_p = 2.000000e-01 : f64, scale = 1.250000e-01 : f64, seed = 5 : i64} : (tensor<1x8x16x32xf16>, tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x32xf16>, tensor<1x8x16x32xf16>, tensor<1x8x16xf32>) -> (tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x32xf16>)
  return %dq, %dk1, %dv1 : tensor<1x8x16x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x32xf16>
}

// -----

// conv2d: padded 3x3 with a bias; strided, dilated; grouped; 1x1.
// CHECK-LABEL: func.func @conv2d(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x4x8x8xf32>, %[[W:[^:]+]]: tensor<6x4x3x3xf32>, %[[B:[^:]+]]: tensor<6xf32>, %[[WG:[^:]+]]: tensor<6x2x3x3xf32>, %[[W1:[^:]+]]: tensor<5x4x1x1xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.conv2d fwd %[[X]], %[[W]], %[[B]] {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<2x6x8x8xf32>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.conv2d fwd %[[X]], %[[W]] {dilation = array<i64: 2, 1>, padding = array<i64: 0, 1>, strides = array<i64: 2, 3>} : (tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x2x3xf32>
//   CHECK-NEXT: %[[V2:[^ ,:]+]] = ckpt.conv2d fwd %[[X]], %[[WG]] {dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x6x6xf32>
//   CHECK-NEXT: %[[V3:[^ ,:]+]] = ckpt.conv2d fwd %[[X]], %[[W1]] {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<5x4x1x1xf32>) -> tensor<2x5x8x8xf32>
//   CHECK-NEXT: return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<2x6x8x8xf32>, tensor<2x6x2x3xf32>, tensor<2x6x6x6xf32>, tensor<2x5x8x8xf32>
func.func @conv2d(%x: tensor<2x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>, %wg: tensor<6x2x3x3xf32>, %w1: tensor<5x4x1x1xf32>) -> (tensor<2x6x8x8xf32>, tensor<2x6x2x3xf32>, tensor<2x6x6x6xf32>, tensor<2x5x8x8xf32>) {
  %0 = ckpt.conv2d fwd %x, %w, %b {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<2x6x8x8xf32>
  %1 = ckpt.conv2d fwd %x, %w {dilation = array<i64: 2, 1>, padding = array<i64: 0, 1>, strides = array<i64: 2, 3>} : (tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x2x3xf32>
  %2 = ckpt.conv2d fwd %x, %wg {dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x6x6xf32>
  %3 = ckpt.conv2d fwd %x, %w1 {dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<5x4x1x1xf32>) -> tensor<2x5x8x8xf32>
  return %0, %1, %2, %3 : tensor<2x6x8x8xf32>, tensor<2x6x2x3xf32>, tensor<2x6x6x6xf32>, tensor<2x5x8x8xf32>
}

// -----

// conv2d_grad_input: the result type gives the input shape; grouped and strided.
// CHECK-LABEL: func.func @conv2d_grad_input(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<2x6x4x4xbf16>, %[[W:[^:]+]]: tensor<6x2x3x3xbf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.conv2d_grad_input bwd %[[DY]], %[[W]] {dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x4x4xbf16>, tensor<6x2x3x3xbf16>) -> tensor<2x4x8x8xbf16>
//   CHECK-NEXT: return %[[V0]] : tensor<2x4x8x8xbf16>
func.func @conv2d_grad_input(%dy: tensor<2x6x4x4xbf16>, %w: tensor<6x2x3x3xbf16>) -> tensor<2x4x8x8xbf16> {
  %0 = ckpt.conv2d_grad_input bwd %dy, %w {dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x4x4xbf16>, tensor<6x2x3x3xbf16>) -> tensor<2x4x8x8xbf16>
  return %0 : tensor<2x4x8x8xbf16>
}

// -----

// conv2d_grad_weight: the result type gives the weight shape.
// CHECK-LABEL: func.func @conv2d_grad_weight(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<2x4x8x8xf32>, %[[X:[^:]+]]: tensor<2x3x8x8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.conv2d_grad_weight bwd %[[DY]], %[[X]] {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32>
//   CHECK-NEXT: return %[[V0]] : tensor<4x3x3x3xf32>
func.func @conv2d_grad_weight(%dy: tensor<2x4x8x8xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %0 = ckpt.conv2d_grad_weight bwd %dy, %x {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

// max_pool2d: returns i64 argmax indices of the result shape; padding up to half the kernel.
// CHECK-LABEL: func.func @max_pool2d(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x3x8x8xf32>)
//   CHECK:      %[[Y:[^ ,:]+]], %[[IDX:[^ ,:]+]] = ckpt.max_pool2d fwd %[[X]] {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>)
//   CHECK-NEXT: %[[Y1:[^ ,:]+]], %[[IDX1:[^ ,:]+]] = ckpt.max_pool2d fwd %[[X]] {kernel = array<i64: 3, 2>, padding = array<i64: 1, 1>, strides = array<i64: 1, 2>} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x8x5xf32>, tensor<2x3x8x5xi64>)
//   CHECK-NEXT: return %[[Y]], %[[IDX1]] : tensor<2x3x4x4xf32>, tensor<2x3x8x5xi64>
func.func @max_pool2d(%x: tensor<2x3x8x8xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x8x5xi64>) {
  %y, %idx = ckpt.max_pool2d fwd %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>)
  %y1, %idx1 = ckpt.max_pool2d fwd %x {kernel = array<i64: 3, 2>, padding = array<i64: 1, 1>, strides = array<i64: 1, 2>} : (tensor<2x3x8x8xf32>) -> (tensor<2x3x8x5xf32>, tensor<2x3x8x5xi64>)
  return %y, %idx1 : tensor<2x3x4x4xf32>, tensor<2x3x8x5xi64>
}

// -----

// max_pool2d_grad: the result type gives the input shape.
// CHECK-LABEL: func.func @max_pool2d_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<2x3x4x4xf32>, %[[IDX:[^:]+]]: tensor<2x3x4x4xi64>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.max_pool2d_grad bwd %[[DY]], %[[IDX]] {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>) -> tensor<2x3x8x8xf32>
//   CHECK-NEXT: return %[[V0]] : tensor<2x3x8x8xf32>
func.func @max_pool2d_grad(%dy: tensor<2x3x4x4xf32>, %idx: tensor<2x3x4x4xi64>) -> tensor<2x3x8x8xf32> {
  %0 = ckpt.max_pool2d_grad bwd %dy, %idx {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>) -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

// avg_pool2d: with and without count_include_pad.
// CHECK-LABEL: func.func @avg_pool2d(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<2x3x8x8xf16>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.avg_pool2d fwd %[[X]] {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf16>) -> tensor<2x3x4x4xf16>
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.avg_pool2d fwd %[[X]] {count_include_pad, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf16>) -> tensor<2x3x8x8xf16>
//   CHECK-NEXT: return %[[V0]], %[[V1]] : tensor<2x3x4x4xf16>, tensor<2x3x8x8xf16>
func.func @avg_pool2d(%x: tensor<2x3x8x8xf16>) -> (tensor<2x3x4x4xf16>, tensor<2x3x8x8xf16>) {
  %0 = ckpt.avg_pool2d fwd %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf16>) -> tensor<2x3x4x4xf16>
  %1 = ckpt.avg_pool2d fwd %x {count_include_pad, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf16>) -> tensor<2x3x8x8xf16>
  return %0, %1 : tensor<2x3x4x4xf16>, tensor<2x3x8x8xf16>
}

// -----

// avg_pool2d_grad: the result type gives the input shape.
// CHECK-LABEL: func.func @avg_pool2d_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<2x3x8x8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.avg_pool2d_grad bwd %[[DY]] {count_include_pad, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
//   CHECK-NEXT: return %[[V0]] : tensor<2x3x8x8xf32>
func.func @avg_pool2d_grad(%dy: tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32> {
  %0 = ckpt.avg_pool2d_grad bwd %dy {count_include_pad, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

// sgd_update: param, grad and result of one type; a learning rate.
// CHECK-LABEL: func.func @sgd_update(
//  CHECK-SAME:     %[[P:[^:]+]]: tensor<16x8xf32>, %[[G:[^:]+]]: tensor<16x8xf32>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.sgd_update opt %[[P]], %[[G]] lr 1.000000e-02 : tensor<16x8xf32>
//   CHECK-NEXT: return %[[V0]] : tensor<16x8xf32>
func.func @sgd_update(%p: tensor<16x8xf32>, %g: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = ckpt.sgd_update opt %p, %g lr 1.000000e-02 : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// adamw_update: f32 moments of the parameter shape, bf16 parameter.
// CHECK-LABEL: func.func @adamw_update(
//  CHECK-SAME:     %[[P:[^:]+]]: tensor<8x4xbf16>, %[[G:[^:]+]]: tensor<8x4xbf16>, %[[M:[^:]+]]: tensor<8x4xf32>, %[[V:[^:]+]]: tensor<8x4xf32>)
//   CHECK:      %[[RESULT:[^ ,:]+]], %[[M2:[^ ,:]+]], %[[V2:[^ ,:]+]] = ckpt.adamw_update opt %[[P]], %[[G]], %[[M]], %[[V]] {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8x4xbf16>, tensor<8x4xbf16>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<8x4xbf16>, tensor<8x4xf32>, tensor<8x4xf32>)
//   CHECK-NEXT: return %[[RESULT]], %[[M2]], %[[V2]] : tensor<8x4xbf16>, tensor<8x4xf32>, tensor<8x4xf32>
func.func @adamw_update(%p: tensor<8x4xbf16>, %g: tensor<8x4xbf16>, %m: tensor<8x4xf32>, %v: tensor<8x4xf32>) -> (tensor<8x4xbf16>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %result, %m2, %v2 = ckpt.adamw_update opt %p, %g, %m, %v {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, step = 1 : i64, weight_decay = 0.000000e+00 : f64} : (tensor<8x4xbf16>, tensor<8x4xbf16>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<8x4xbf16>, tensor<8x4xf32>, tensor<8x4xf32>)
  return %result, %m2, %v2 : tensor<8x4xbf16>, tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// opaque: any operand and result count and element types; optional cost attributes.
// CHECK-LABEL: func.func @opaque(
//  CHECK-SAME:     %[[X:[^:]+]]: tensor<4x8xf32>, %[[I:[^:]+]]: tensor<4xi64>)
//   CHECK:      %[[V0:[^ ,:]+]] = ckpt.opaque fwd "my_fused_kernel"(%[[X]]) {flops = 1024 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
//   CHECK-NEXT: %[[R:[^ ,:]+]]:2 = ckpt.opaque bwd "k2"(%[[X]], %[[I]]) {bytes_read = 160 : i64, bytes_written = 0 : i64, flops = 0 : i64, workspace = 64 : i64} : (tensor<4x8xf32>, tensor<4xi64>) -> (tensor<4x8xf32>, tensor<4xi64>)
//   CHECK-NEXT: %[[V1:[^ ,:]+]] = ckpt.opaque opt "source"() {flops = 7 : i64} : () -> tensor<2xbf16>
//   CHECK-NEXT: ckpt.opaque fwd "sink"(%[[I]]) {flops = 1 : i64} : (tensor<4xi64>) -> ()
//   CHECK-NEXT: return %[[V0]], %[[R]]#1, %[[V1]] : tensor<4x8xf32>, tensor<4xi64>, tensor<2xbf16>
func.func @opaque(%x: tensor<4x8xf32>, %i: tensor<4xi64>) -> (tensor<4x8xf32>, tensor<4xi64>, tensor<2xbf16>) {
  %0 = ckpt.opaque fwd "my_fused_kernel"(%x) {flops = 1024 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r:2 = ckpt.opaque bwd "k2"(%x, %i) {bytes_read = 160 : i64, bytes_written = 0 : i64, flops = 0 : i64, workspace = 64 : i64} : (tensor<4x8xf32>, tensor<4xi64>) -> (tensor<4x8xf32>, tensor<4xi64>)
  %1 = ckpt.opaque opt "source"() {flops = 7 : i64} : () -> tensor<2xbf16>
  ckpt.opaque fwd "sink"(%i) {flops = 1 : i64} : (tensor<4xi64>) -> ()
  return %0, %r#1, %1 : tensor<4x8xf32>, tensor<4xi64>, tensor<2xbf16>
}

// -----

// opaque: an explicit compute_cost (in the input graph's unit) round-trips.
// CHECK-LABEL: func.func @opaque_compute_cost(
//   CHECK:      ckpt.opaque bwd "block1_conv1_backward"(%{{.*}}) {compute_cost = 390 : i64, flops = 0 : i64} : (tensor<1024xi1>) -> tensor<3288334336xi1>
func.func @opaque_compute_cost(%x: tensor<1024xi1>) -> tensor<3288334336xi1> {
  %0 = ckpt.opaque bwd "block1_conv1_backward"(%x) {compute_cost = 390 : i64, flops = 0 : i64} : (tensor<1024xi1>) -> tensor<3288334336xi1>
  return %0 : tensor<3288334336xi1>
}

// -----

// attention, attention_grad: the optional trailing mask, an additive bias of the query's type or an i1 keep-mask, broadcast to [B, H, S, Skv].
// CHECK-LABEL: func.func @attention_mask(
//  CHECK-SAME:     %[[Q:[^:]+]]: tensor<2x4x16x8xf32>, %[[K:[^:]+]]: tensor<2x2x32x8xf32>, %[[V:[^:]+]]: tensor<2x2x32x4xf32>, %[[B:[^:]+]]: tensor<16x32xf32>, %[[M:[^:]+]]: tensor<2x1x1x32xi1>, %[[DO:[^:]+]]: tensor<2x4x16x4xf32>)
//   CHECK:      %[[O:[^ ,:]+]], %[[LSE:[^ ,:]+]] = ckpt.attention fwd %[[Q]], %[[K]], %[[V]], %[[B]] {causal, scale = 1.250000e-01 : f64} : (tensor<2x4x16x8xf32>, tensor<2x2x32x8xf32>, tensor<2x2x32x4xf32>, tensor<16x32xf32>) -> (tensor<2x4x16x4xf32>, tensor<2x4x16xf32>)
//   CHECK-NEXT: %[[O1:[^ ,:]+]], %[[LSE1:[^ ,:]+]] = ckpt.attention fwd %[[Q]], %[[K]], %[[V]], %[[M]] {scale = 1.250000e-01 : f64} : (tensor<2x4x16x8xf32>, tensor<2x2x32x8xf32>, tensor<2x2x32x4xf32>, tensor<2x1x1x32xi1>) -> (tensor<2x4x16x4xf32>, tensor<2x4x16xf32>)
//   CHECK-NEXT: %[[DQ:[^ ,:]+]], %[[DK:[^ ,:]+]], %[[DV:[^ ,:]+]] = ckpt.attention_grad bwd %[[DO]], %[[Q]], %[[K]], %[[V]], %[[O1]], %[[LSE1]], %[[M]] {scale = 1.250000e-01 : f64} : (tensor<2x4x16x4xf32>, tensor<2x4x16x8xf32>, tensor<2x2x32x8xf32>, tensor<2x2x32x4xf32>, tensor<2x4x16x4xf32>, tensor<2x4x16xf32>, tensor<2x1x1x32xi1>) -> (tensor<2x4x16x8xf32>, tensor<2x2x32x8xf32>, tensor<2x2x32x4xf32>)
//   CHECK-NEXT: return %[[LSE]], %[[DQ]] : tensor<2x4x16xf32>, tensor<2x4x16x8xf32>
func.func @attention_mask(%q: tensor<2x4x16x8xf32>, %k: tensor<2x2x32x8xf32>, %v: tensor<2x2x32x4xf32>, %bias: tensor<16x32xf32>, %keep: tensor<2x1x1x32xi1>, %do: tensor<2x4x16x4xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16x8xf32>) {
  %o, %lse = ckpt.attention fwd %q, %k, %v, %bias {causal, scale = 1.250000e-01 : f64} : (tensor<2x4x16x8xf32>, tensor<2x2x32x8xf32>, tensor<2x2x32x4xf32>, tensor<16x32xf32>) -> (tensor<2x4x16x4xf32>, tensor<2x4x16xf32>)
  %o1, %lse1 = ckpt.attention fwd %q, %k, %v, %keep {scale = 1.250000e-01 : f64} : (tensor<2x4x16x8xf32>, tensor<2x2x32x8xf32>, tensor<2x2x32x4xf32>, tensor<2x1x1x32xi1>) -> (tensor<2x4x16x4xf32>, tensor<2x4x16xf32>)
  %dq, %dk, %dv = ckpt.attention_grad bwd %do, %q, %k, %v, %o1, %lse1, %keep {scale = 1.250000e-01 : f64} : (tensor<2x4x16x4xf32>, tensor<2x4x16x8xf32>, tensor<2x2x32x8xf32>, tensor<2x2x32x4xf32>, tensor<2x4x16x4xf32>, tensor<2x4x16xf32>, tensor<2x1x1x32xi1>) -> (tensor<2x4x16x8xf32>, tensor<2x2x32x8xf32>, tensor<2x2x32x4xf32>)
  return %lse, %dq : tensor<2x4x16xf32>, tensor<2x4x16x8xf32>
}
