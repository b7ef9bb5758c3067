//===- Gemm.h - cuBLASLt GEMMs of the device kernels ------------*- C++ -*-===//
//
// One entry point for every matrix product of the CUDA backend (matmul,
// batch_matmul, linear, the convolutions): row-major operands, f32
// accumulation, an algorithm chosen once per problem and cached for the
// session. Private to runtime/cuda/lib.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_CUDA_LIB_GEMM_H
#define CKPT_RUNTIME_CUDA_LIB_GEMM_H

#include "ckpt/Runtime/Cuda/CudaSession.h"

#include <cstdint>

namespace ckpt::rt::cuda::detail {

/// `C[b] = alpha * op(A[b]) x op(B[b]) + beta * C[b]` for `b < batch`, all
/// matrices dense row-major: op(A) is MxK (A stored KxM when `transA`), op(B)
/// is KxN (B stored NxK when `transB`), C is MxN. Batch strides are in
/// elements; 0 repeats one matrix (broadcast). A, B and C share the element
/// type `type` (f32, f16 or bf16); products accumulate in f32 (TF32 for f32
/// when the session allows it).
struct GemmProblem {
  DType type = DType::F32;
  bool transA = false, transB = false;
  int64_t M = 0, N = 0, K = 0;
  int64_t batch = 1;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  float alpha = 1.0f, beta = 0.0f;
};

/// Enqueues the product on `ctx.stream()`. Throws CudaError when cuBLASLt
/// fails or finds no algorithm.
void gemm(CudaExecContext &ctx, const GemmProblem &problem, const void *A,
          const void *B, void *C);

/// The alignment (bytes, at most 16) that every matrix pointer of `problem`
/// at bases `A`, `B`, `C` satisfies: what the algorithm may assume. Given
/// arena offsets that are multiples of 16, it depends on the shapes only.
unsigned gemmAlignment(const GemmProblem &problem, const void *A, const void *B,
                       const void *C);

} // namespace ckpt::rt::cuda::detail

#endif // CKPT_RUNTIME_CUDA_LIB_GEMM_H
