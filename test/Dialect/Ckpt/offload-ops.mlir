// ckpt.offload, ckpt.offload_wait and ckpt.prefetch: round trip (custom and
// generic form), their cost (nothing on the compute stream), and what the
// memory simulation makes of them: the offloaded result is a host buffer,
// out of every device figure, live from its offload through its last
// prefetch; the wait holds the source on the device up to it; a prefetch is
// a new device buffer.
// RUN: ckpt-opt %s | FileCheck %s
// RUN: ckpt-opt %s | ckpt-opt | FileCheck %s
// RUN: ckpt-opt %s -mlir-print-op-generic | ckpt-opt | FileCheck %s
// RUN: ckpt-opt %s --ckpt-print-costs -verify-diagnostics -o /dev/null
// RUN: ckpt-opt %s --ckpt-print-memory -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEM

// CHECK-LABEL: func.func @copies
//       CHECK: %[[X:[^ ]+]] = ckpt.relu fwd %arg0 : tensor<4x8xf32>
//  CHECK-NEXT: %[[H:[^ ]+]] = ckpt.offload fwd %[[X]] : tensor<4x8xf32>
//  CHECK-NEXT: %[[Y:[^ ]+]] = ckpt.relu fwd %arg0 : tensor<4x8xf32>
//  CHECK-NEXT: ckpt.offload_wait fwd %[[X]], %[[H]] : tensor<4x8xf32>
//  CHECK-NEXT: %[[Z:[^ ]+]] = ckpt.relu fwd %[[Y]] : tensor<4x8xf32>
//  CHECK-NEXT: %[[P:[^ ]+]] = ckpt.prefetch fwd %[[H]] : tensor<4x8xf32>
//  CHECK-NEXT: ckpt.relu_grad bwd %[[Z]], %[[P]] : tensor<4x8xf32>
func.func @copies(%x0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // 128 bytes each. Op #0: x (device).
  // expected-remark @below {{cost: flops=32 read=128 written=128 workspace=0}}
  %x = ckpt.relu fwd %x0 : tensor<4x8xf32>
  // Op #1: the copy of x starts; h (host) is born.
  // expected-remark @below {{cost: flops=0 read=0 written=0 workspace=0}}
  %h = ckpt.offload fwd %x : tensor<4x8xf32>
  // Op #2
  // expected-remark @below {{cost: flops=32 read=128 written=128 workspace=0}}
  %y = ckpt.relu fwd %x0 : tensor<4x8xf32>
  // Op #3: x is held through here, then freed.
  // expected-remark @below {{cost: flops=0 read=0 written=0 workspace=0}}
  ckpt.offload_wait fwd %x, %h : tensor<4x8xf32>
  // Op #4
  // expected-remark @below {{cost: flops=32 read=128 written=128 workspace=0}}
  %z = ckpt.relu fwd %y : tensor<4x8xf32>
  // Op #5: a new device buffer; h dies here.
  // expected-remark @below {{cost: flops=0 read=0 written=0 workspace=0}}
  %p = ckpt.prefetch fwd %h : tensor<4x8xf32>
  // Op #6
  // expected-remark @below {{cost: flops=32 read=256 written=128 workspace=0}}
  %g = ckpt.relu_grad bwd %z, %p : tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}
// The argument (128) is live throughout; no op's device figure counts h.
// x is freed after the wait, y after z reads it; z and p, forward buffers
// read by the backward op, are the saved activations.
// MEM: remark: live: during=256 after=256 host=0
// MEM: remark: live: during=256 after=256 host=128
// MEM: remark: live: during=384 after=384 host=128
// MEM: remark: live: during=384 after=256 host=128
// MEM: remark: live: during=384 after=256 host=128
// MEM: remark: live: during=384 after=384 host=128
// MEM: remark: live: during=512 after=256 host=0
// MEM: remark: memory: entry=128 peak=512 at op #6 saved=256 in 2 buffers host-peak=128 at op #1 in 1 host buffers
