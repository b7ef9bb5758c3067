//===- CudaKernels.h - Device kernels, one per ckpt op ----------*- C++ -*-===//
//
// One function per op of the ckpt dialect, named by its mnemonic, with the
// `CudaKernelFn` signature: the device twin of ckpt/Runtime/Kernels.h.
// Semantics are those of docs/dialect.md; design, layouts and the
// determinism scheme are in docs/gpu.md. Each function validates its call on
// the host (throwing `ckpt::rt::KernelError` for a call the generated code
// should never make), then enqueues its work on `ctx.stream()`.
//
// Float tensors may be f32, f16 or bf16; every kernel computes in f32 and
// rounds to nearest even on store. GEMMs (matmul, batch_matmul, linear and
// the convolutions) run on cuBLASLt with f32 accumulation. Every reduction
// has a fixed order that depends only on the shapes, and no kernel uses
// floating-point atomics: the same inputs give bit-identical outputs
// wherever they sit in the arena, so a recomputed value equals the value it
// replaces.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_CUDA_CUDAKERNELS_H
#define CKPT_RUNTIME_CUDA_CUDAKERNELS_H

#include "ckpt/Runtime/Cuda/CudaSession.h"

/// Every device kernel, as `X(mnemonic)`.
#define CKPT_CUDA_KERNEL_LIST(X)                                               \
  /* Matrix products (Matmul.cu, Gemm.cpp) */                                  \
  X(matmul)                                                                    \
  X(matmul_acc)                                                                \
  X(batch_matmul)                                                              \
  X(linear)                                                                    \
  /* Elementwise, activations, dropout, optimizers (Elementwise.cu) */         \
  X(add)                                                                       \
  X(sub)                                                                       \
  X(mul)                                                                       \
  X(div)                                                                       \
  X(exp)                                                                       \
  X(log)                                                                       \
  X(sqrt)                                                                      \
  X(rsqrt)                                                                     \
  X(tanh)                                                                      \
  X(sin)                                                                       \
  X(cos)                                                                       \
  X(pow)                                                                       \
  X(convert)                                                                   \
  X(fill)                                                                      \
  X(relu)                                                                      \
  X(sigmoid)                                                                   \
  X(silu)                                                                      \
  X(gelu)                                                                      \
  X(relu_grad)                                                                 \
  X(sigmoid_grad)                                                              \
  X(tanh_grad)                                                                 \
  X(silu_grad)                                                                 \
  X(gelu_grad)                                                                 \
  X(clamp)                                                                     \
  X(clamp_grad)                                                                \
  X(hardswish)                                                                 \
  X(hardswish_grad)                                                            \
  X(hardsigmoid)                                                               \
  X(hardsigmoid_grad)                                                          \
  X(dropout)                                                                   \
  X(dropout_grad)                                                              \
  X(sgd_update)                                                                \
  X(adamw_update)                                                              \
  /* Softmax and loss (Softmax.cu) */                                          \
  X(softmax)                                                                   \
  X(log_softmax)                                                               \
  X(softmax_grad)                                                              \
  X(log_softmax_grad)                                                          \
  X(cross_entropy)                                                             \
  X(cross_entropy_grad)                                                        \
  X(mse_loss)                                                                  \
  X(mse_loss_grad)                                                             \
  /* Normalization (Norm.cu) */                                                \
  X(layer_norm)                                                                \
  X(layer_norm_grad)                                                           \
  X(rms_norm)                                                                  \
  X(rms_norm_grad)                                                             \
  X(batch_norm)                                                                \
  X(batch_norm_grad)                                                           \
  /* Reductions (Reduce.cu) */                                                 \
  X(reduce_sum)                                                                \
  X(reduce_mean)                                                               \
  X(reduce_max)                                                                \
  /* Data movement and embedding (DataMovement.cu) */                          \
  X(reshape)                                                                   \
  X(transpose)                                                                 \
  X(broadcast)                                                                 \
  X(slice)                                                                     \
  X(concat)                                                                    \
  X(embedding)                                                                 \
  X(embedding_grad)                                                            \
  /* Masks, position ids and relative-position buckets (Masks.cu) */          \
  X(iota)                                                                      \
  X(compare)                                                                   \
  X(select)                                                                    \
  X(logical_not)                                                               \
  X(logical_and)                                                               \
  X(logical_or)                                                                \
  X(tril)                                                                      \
  X(triu)                                                                      \
  X(pad)                                                                       \
  X(gather)                                                                    \
  X(neg)                                                                       \
  X(abs)                                                                       \
  X(minimum)                                                                   \
  X(maximum)                                                                   \
  /* Attention (Attention.cu) */                                               \
  X(attention)                                                                 \
  X(attention_grad)                                                            \
  /* Convolution and pooling (Conv.cu, Pool.cu) */                             \
  X(conv2d)                                                                    \
  X(conv2d_grad_input)                                                         \
  X(conv2d_grad_weight)                                                        \
  X(max_pool2d)                                                                \
  X(max_pool2d_grad)                                                           \
  X(avg_pool2d)                                                                \
  X(avg_pool2d_grad)

namespace ckpt::rt::cuda {

namespace kernels {
#define CKPT_CUDA_KERNEL(NAME)                                                 \
  void NAME(CudaExecContext &ctx, TensorList operands, TensorList results,     \
            const Attrs &attrs, const Tensor &workspace);
CKPT_CUDA_KERNEL_LIST(CKPT_CUDA_KERNEL)
#undef CKPT_CUDA_KERNEL
} // namespace kernels

/// One entry of the kernel table.
struct CudaKernelEntry {
  /// The op's mnemonic (`"layer_norm"`).
  const char *name;
  CudaKernelFn kernel;
};

/// Every device kernel, in CKPT_CUDA_KERNEL_LIST order; `count` receives the
/// number of entries. For tools that run ops by name (tests, benchmarks).
const CudaKernelEntry *cudaKernelTable(size_t &count);
/// The kernel of op `name`, or nullptr.
CudaKernelFn findCudaKernel(const char *name);

} // namespace ckpt::rt::cuda

#endif // CKPT_RUNTIME_CUDA_CUDAKERNELS_H
