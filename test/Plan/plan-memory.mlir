// RUN: ckpt-opt %s -split-input-file --ckpt-plan-memory="verify=true" | FileCheck %s
// RUN: ckpt-opt %s -split-input-file --ckpt-plan-memory="verify=true explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: ckpt-opt %s -split-input-file --ckpt-plan-memory="verify=true explain=true in-place=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=COPY
// RUN: ckpt-opt %s -split-input-file --ckpt-plan-memory="verify=true algorithm=greedy-by-size" | ckpt-opt -split-input-file | FileCheck %s --check-prefix=ROUNDTRIP

// An elementwise chain writes each result over its dying operand: x (256 B,
// live throughout) and one block for a, b, c: 256 + 256 = 512 = the lower
// bound. Without in-place, step 1 holds x, a and b: 768.
// REMARK: remark: memory plan: arena=512 lower-bound=512 ratio=1.0000 buffers=4 in-place=2
// CHECK-LABEL: func.func @in_place_chain
// CHECK-SAME: ckpt.offset = [[X:[0-9]+]] : i64
// CHECK-SAME: ckpt.arena_lower_bound = 512 : i64, ckpt.arena_size = 512 : i64
// CHECK: ckpt.neg fwd %{{.*}} {ckpt.offset = array<i64: [[A:[0-9]+]]>}
// CHECK: ckpt.exp fwd %{{.*}} {ckpt.offset = array<i64: [[A]]>}
// CHECK: ckpt.tanh fwd %{{.*}} {ckpt.offset = array<i64: [[A]]>}
// COPY: remark: memory plan: arena=768 lower-bound=768 ratio=1.0000 buffers=4 in-place=0
// ROUNDTRIP-LABEL: func.func @in_place_chain
// ROUNDTRIP-SAME: ckpt.arena_size = 512 : i64
func.func @in_place_chain(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = ckpt.neg fwd %x : tensor<64xf32>
  %b = ckpt.exp fwd %a : tensor<64xf32>
  %c = ckpt.tanh fwd %b : tensor<64xf32>
  return %c : tensor<64xf32>
}

// -----

// Sizes round up to the 256-byte alignment (tensor<f32>: 4 B -> 256). Live
// aligned bytes per op: x+a 512, x+a+s 768, x+s+b 768, x+s+b+t 1024, x+u+t
// 768 (u over s, in place): the lower bound is 1024 and the arena meets it.
// A view (the reshape) has its base's offset.
// REMARK: remark: memory plan: arena=1024 lower-bound=1024 ratio=1.0000 buffers=6 in-place=1
// CHECK-LABEL: func.func @reuse_and_views
// CHECK: ckpt.neg fwd %{{.*}} {ckpt.offset = array<i64: [[NEG:[0-9]+]]>}
// CHECK: ckpt.reshape fwd %{{.*}} {ckpt.offset = array<i64: [[NEG]]>}
// CHECK: ckpt.reduce_sum fwd %{{.*}} {ckpt.offset = array<i64: [[S:[0-9]+]]>}
// CHECK: ckpt.add fwd %{{.*}} {ckpt.offset = array<i64: [[S]]>}
// Without in-place the peak is the same (step 3: x, s, b, t = 1024).
// COPY: remark: memory plan: arena=1024 lower-bound=1024 ratio=1.0000 buffers=6 in-place=0
func.func @reuse_and_views(%x: tensor<64xf32>) -> tensor<f32> {
  %a = ckpt.neg fwd %x : tensor<64xf32>
  %r = ckpt.reshape fwd %a : tensor<64xf32> -> tensor<8x8xf32>
  %s = ckpt.reduce_sum fwd %r axes [0, 1] : tensor<8x8xf32> -> tensor<f32>
  %b = ckpt.exp fwd %x : tensor<64xf32>
  %t = ckpt.reduce_sum fwd %b axes [0] : tensor<64xf32> -> tensor<f32>
  %u = ckpt.add fwd %s, %t : tensor<f32>, tensor<f32> -> tensor<f32>
  return %u : tensor<f32>
}
