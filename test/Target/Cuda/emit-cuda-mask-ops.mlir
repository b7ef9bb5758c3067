// CI without a GPU: a CUDA step with every mask and position-id op calls the
// device kernels of those names with the same attributes as the host step,
// and compiles and links with nvcc against the device runtime (which
// therefore has all ten kernels); the linked runner describes the program
// without a device.
// REQUIRES: nvcc
// UNSUPPORTED: sanitizer

// RUN: rm -rf %t && mkdir -p %t
// RUN: %ckpt_opt %s --ckpt-plan-memory --emit=cuda -o %t/step
// RUN: FileCheck %s --input-file=%t/step/mask_ops.cu
// RUN: %nvcc %nvcc_step_flags -I%t/step -c %t/step/mask_ops.cu -o %t/step.o
// RUN: %nvcc %nvcc_flags %t/step.o %cuda_runner_src %nvcc_link_libs -o %t/run
// RUN: %t/run --describe | FileCheck %s --check-prefix=DESCRIBE

// CHECK: intAttr("start", 0),
// CHECK-NEXT: intAttr("step", 1)};
// CHECK: ctx.call(op, &cuda::kernels::iota,
// CHECK: floatAttr("start", 0.5),
// CHECK-NEXT: floatAttr("step", -0.25)};
// CHECK: ctx.call(op, &cuda::kernels::iota,
// CHECK: stringAttr("predicate", "le")};
// CHECK: ctx.call(op, &cuda::kernels::compare, TensorList{operands, 2},
// CHECK: ctx.call(op, &cuda::kernels::logical_and, TensorList{operands, 2},
// CHECK: ctx.call(op, &cuda::kernels::logical_not, TensorList{operands, 1},
// CHECK: intAttr("diagonal", 1),
// CHECK: ctx.call(op, &cuda::kernels::triu,
// CHECK: ctx.call(op, &cuda::kernels::logical_or,
// CHECK: ctx.call(op, &cuda::kernels::select, TensorList{operands, 3},
// CHECK: ctx.call(op, &cuda::kernels::tril,
// CHECK: intsAttr("low", ints1, 3),
// CHECK: floatAttr("value", 0.0)};
// CHECK: ctx.call(op, &cuda::kernels::pad,
// CHECK: intAttr("dim", 2),
// CHECK: ctx.call(op, &cuda::kernels::gather, TensorList{operands, 2},

// DESCRIBE: step @mask_ops: 14 ops, 0 recomputed in 0 segments
// DESCRIBE: argument 2: input idx, 48 elements
// DESCRIBE: result 0: output output:0, 48 elements
func.func @mask_ops(%x: tensor<2x8x8xf32> {ckpt.role = #ckpt.role<input>} loc("x"(unknown)),
                    %keep: tensor<2x8xi1> {ckpt.role = #ckpt.role<input>} loc("keep"(unknown)),
                    %idx: tensor<2x8x3xi64> {ckpt.role = #ckpt.role<input>} loc("idx"(unknown)))
    -> (tensor<2x8x3xf32>, tensor<8xf32>) {
  %pos = ckpt.iota fwd start(0) step(1) : tensor<8xi64>
  %t = ckpt.iota fwd start(0.5) step(-0.25) : tensor<8xf32>
  %row = ckpt.reshape fwd %pos : tensor<8xi64> -> tensor<8x1xi64>
  %causal = ckpt.compare fwd le %pos, %row : tensor<8xi64>, tensor<8x1xi64> -> tensor<8x8xi1>
  %k3 = ckpt.reshape fwd %keep : tensor<2x8xi1> -> tensor<2x1x8xi1>
  %both = ckpt.logical_and fwd %causal, %k3 : tensor<8x8xi1>, tensor<2x1x8xi1> -> tensor<2x8x8xi1>
  %masked = ckpt.logical_not fwd %both : tensor<2x8x8xi1>
  %up = ckpt.triu fwd %causal diagonal 1 : tensor<8x8xi1>
  %drop = ckpt.logical_or fwd %masked, %up : tensor<2x8x8xi1>, tensor<8x8xi1> -> tensor<2x8x8xi1>
  %neg = ckpt.fill fwd -1.0e9 : tensor<f32>
  %s = ckpt.select fwd %drop, %neg, %x : tensor<2x8x8xi1>, tensor<f32>, tensor<2x8x8xf32> -> tensor<2x8x8xf32>
  %low = ckpt.tril fwd %s : tensor<2x8x8xf32>
  %p = ckpt.pad fwd %low low [0, 0, 1] high [0, 0, 2] value 0.0 : tensor<2x8x8xf32> -> tensor<2x8x11xf32>
  %g = ckpt.gather fwd %p, %idx dim 2 : tensor<2x8x11xf32>, tensor<2x8x3xi64> -> tensor<2x8x3xf32>
  return %g, %t : tensor<2x8x3xf32>, tensor<8xf32>
}
