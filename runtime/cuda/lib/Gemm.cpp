//===- Gemm.cpp - cuBLASLt GEMMs ------------------------------------------===//
//
// Row-major C = op(A) op(B) is computed as the column-major product
// C^T = op(B)^T op(A)^T: cuBLASLt's "A" is our B and its "B" our A, with the
// transposes carried over unchanged (a row-major MxK buffer is a
// column-major KxM one). The heuristic's first algorithm for a problem key
// (types, shape, transposes, batch strides, alignment) is cached in the
// session, so a recomputed product reruns the same algorithm and gives the
// same bits. Split-K algorithms that accumulate in place are excluded.
//
//===----------------------------------------------------------------------===//
#include "Gemm.h"

#include "CudaSessionImpl.h"
#include "CudaSupport.h"

#include <cublasLt.h>

#include <string>

namespace ckpt::rt::cuda::detail {

namespace {

cudaDataType_t cudaType(DType t) {
  switch (t) {
  case DType::F32:
    return CUDA_R_32F;
  case DType::F16:
    return CUDA_R_16F;
  case DType::BF16:
    return CUDA_R_16BF;
  default:
    fail("gemm: operands must be f32, f16 or bf16");
  }
}

unsigned lowBit(uint64_t v) {
  unsigned a = 16;
  while (a > 1 && v % a != 0)
    a /= 2;
  return a;
}

/// RAII owners of cuBLASLt descriptors.
struct MatmulDesc {
  cublasLtMatmulDesc_t d = nullptr;
  ~MatmulDesc() {
    if (d)
      cublasLtMatmulDescDestroy(d);
  }
};
struct Layout {
  cublasLtMatrixLayout_t d = nullptr;
  ~Layout() {
    if (d)
      cublasLtMatrixLayoutDestroy(d);
  }
};
struct Preference {
  cublasLtMatmulPreference_t d = nullptr;
  ~Preference() {
    if (d)
      cublasLtMatmulPreferenceDestroy(d);
  }
};

#define CHECK_LT(call) CKPT_CUBLAS_CHECK(ctx, call)

void makeLayout(CudaExecContext &ctx, Layout &layout, cudaDataType_t type,
                uint64_t rows, uint64_t cols, int64_t ld, int64_t batch,
                int64_t stride) {
  CHECK_LT(cublasLtMatrixLayoutCreate(&layout.d, type, rows, cols, ld));
  if (batch > 1) {
    int32_t count = static_cast<int32_t>(batch);
    CHECK_LT(cublasLtMatrixLayoutSetAttribute(
        layout.d, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
    CHECK_LT(cublasLtMatrixLayoutSetAttribute(
        layout.d, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
        sizeof stride));
  }
}

} // namespace

unsigned gemmAlignment(const GemmProblem &p, const void *A, const void *B,
                       const void *C) {
  uint64_t bytes = elementBytes(p.type);
  unsigned a = 16;
  for (const void *ptr : {A, B, C})
    a = std::min(a, lowBit(reinterpret_cast<uintptr_t>(ptr)));
  if (p.batch > 1)
    for (int64_t s : {p.strideA, p.strideB, p.strideC})
      if (s != 0)
        a = std::min(a, lowBit(static_cast<uint64_t>(s) * bytes));
  return a;
}

void gemm(CudaExecContext &ctx, const GemmProblem &p, const void *A,
          const void *B, void *C) {
  if (p.M == 0 || p.N == 0 || p.batch == 0)
    return;
  if (p.K == 0) {
    // An empty sum: C = beta * C, with beta 0 or 1 in every caller.
    if (p.beta != 0.0f)
      return;
    size_t bytes = elementBytes(p.type);
    for (int64_t b = 0; b < p.batch; ++b)
      CKPT_CUDA_CHECK(
          ctx, cudaMemsetAsync(static_cast<char *>(C) + b * p.strideC * bytes,
                               0, p.M * p.N * bytes, streamOf(ctx)));
    return;
  }
  if (p.M > INT32_MAX || p.N > INT32_MAX || p.K > INT32_MAX ||
      p.batch > INT32_MAX)
    fail("gemm: a dimension does not fit cuBLASLt's 32-bit sizes");
  auto handle = static_cast<cublasLtHandle_t>(ctx.blasLtHandle());
  cudaDataType_t type = cudaType(p.type);
  cublasComputeType_t compute = p.type == DType::F32 && ctx.allowTf32()
                                    ? CUBLAS_COMPUTE_32F_FAST_TF32
                                    : CUBLAS_COMPUTE_32F;
  // cuBLASLt's problem: m = N, n = M, k = K; its A is our B, its B our A.
  cublasOperation_t opA = p.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = p.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  uint64_t aRows = p.transB ? p.K : p.N, aCols = p.transB ? p.N : p.K;
  uint64_t bRows = p.transA ? p.M : p.K, bCols = p.transA ? p.K : p.M;

  MatmulDesc desc;
  CHECK_LT(cublasLtMatmulDescCreate(&desc.d, compute, CUDA_R_32F));
  CHECK_LT(cublasLtMatmulDescSetAttribute(desc.d, CUBLASLT_MATMUL_DESC_TRANSA,
                                          &opA, sizeof opA));
  CHECK_LT(cublasLtMatmulDescSetAttribute(desc.d, CUBLASLT_MATMUL_DESC_TRANSB,
                                          &opB, sizeof opB));
  Layout la, lb, lc;
  makeLayout(ctx, la, type, aRows, aCols, static_cast<int64_t>(aRows), p.batch,
             p.strideB);
  makeLayout(ctx, lb, type, bRows, bCols, static_cast<int64_t>(bRows), p.batch,
             p.strideA);
  makeLayout(ctx, lc, type, p.N, p.M, p.N, p.batch, p.strideC);

  unsigned align = gemmAlignment(p, A, B, C);
  std::string key = std::to_string(static_cast<int>(p.type)) + ":" +
                    std::to_string(compute) + ":" + std::to_string(p.transA) +
                    std::to_string(p.transB) + ":" + std::to_string(p.M) + "x" +
                    std::to_string(p.N) + "x" + std::to_string(p.K) + ":" +
                    std::to_string(p.batch) + ":" + std::to_string(p.strideA) +
                    "," + std::to_string(p.strideB) + "," +
                    std::to_string(p.strideC) + ":" + std::to_string(align) +
                    ":" + std::to_string(p.beta != 0.0f);
  auto &cache = ctx.impl().gemmAlgos;
  auto it = cache.find(key);
  if (it == cache.end()) {
    Preference pref;
    CHECK_LT(cublasLtMatmulPreferenceCreate(&pref.d));
    uint64_t maxWorkspace = kCublasLtWorkspaceBytes;
    CHECK_LT(cublasLtMatmulPreferenceSetAttribute(
        pref.d, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace,
        sizeof maxWorkspace));
    uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE |
                       CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
    CHECK_LT(cublasLtMatmulPreferenceSetAttribute(
        pref.d, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes,
        sizeof schemes));
    uint32_t align32 = align;
    for (auto attr : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
      CHECK_LT(cublasLtMatmulPreferenceSetAttribute(pref.d, attr, &align32,
                                                    sizeof align32));
    cublasLtMatmulHeuristicResult_t result = {};
    int returned = 0;
    CHECK_LT(cublasLtMatmulAlgoGetHeuristic(
        handle, desc.d, la.d, lb.d, lc.d, lc.d, pref.d, 1, &result, &returned));
    if (returned < 1)
      throw CudaError("cuBLASLt has no algorithm for the GEMM " + key);
    it = cache.emplace(key, GemmAlgo{result.algo, result.workspaceSize}).first;
  }
  CHECK_LT(cublasLtMatmul(handle, desc.d, &p.alpha, B, la.d, A, lb.d, &p.beta,
                          C, lc.d, C, lc.d, &it->second.algo,
                          ctx.gemmWorkspace(), it->second.workspaceBytes,
                          streamOf(ctx)));
}

} // namespace ckpt::rt::cuda::detail
