//===- ColumnSum.cuh - Fixed-order column sums of a matrix ------*- C++ -*-===//
//
// Sums over the rows of a row-major `[rows, cols]` matrix (norm parameter
// gradients, reductions over leading dimensions) in two stages: blocks of 32
// columns x 16 row lanes sum one chunk of rows each into f32 partials kept in
// the device scratch (the cuBLASLt workspace, free between GEMMs on the one
// stream), then one thread per column adds the chunks in order. The chunking
// depends on the shape only, so the order of every sum is fixed. Private to
// runtime/cuda/lib; nvcc only.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_CUDA_LIB_COLUMNSUM_CUH
#define CKPT_RUNTIME_CUDA_LIB_COLUMNSUM_CUH

#include "DeviceCommon.cuh"

namespace ckpt::rt::cuda::detail {

constexpr int kColTile = 32, kRowLanes = 16;

/// Stage 1: `load(r, c)` (two values per element) summed over the rows of
/// chunk `blockIdx.y`; lane `ty` takes rows ty, ty + 16, ... and the lanes
/// are added in order. With `Direct` (one chunk) the sum goes to
/// `store(c, sum)`, else to `partial[chunk * cols + c]`.
template <bool Direct, typename Load, typename Store>
__global__ void columnSumKernel(Load load, Store store, float2 *partial,
                                ColumnPlan p) {
  __shared__ float2 lanes[kRowLanes][kColTile];
  int64_t c = static_cast<int64_t>(blockIdx.x) * kColTile + threadIdx.x;
  int64_t r0 = static_cast<int64_t>(blockIdx.y) * p.rowsPerChunk;
  int64_t r1 = min(r0 + p.rowsPerChunk, p.rows);
  float2 acc = make_float2(0.0f, 0.0f);
  if (c < p.cols)
    for (int64_t r = r0 + threadIdx.y; r < r1; r += kRowLanes) {
      float2 v = load(r, c);
      acc.x += v.x;
      acc.y += v.y;
    }
  lanes[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y != 0 || c >= p.cols)
    return;
  float2 sum = make_float2(0.0f, 0.0f);
  for (int k = 0; k < kRowLanes; ++k) {
    sum.x += lanes[k][threadIdx.x].x;
    sum.y += lanes[k][threadIdx.x].y;
  }
  if (Direct)
    store(c, sum);
  else
    partial[blockIdx.y * p.cols + c] = sum;
}

/// Stage 2: the chunks of column `c` in order.
template <typename Store>
__global__ void columnFinishKernel(const float2 *partial, Store store,
                                   ColumnPlan p) {
  CKPT_GRID_LOOP(c, p.cols) {
    float2 sum = make_float2(0.0f, 0.0f);
    for (int64_t k = 0; k < p.chunks; ++k) {
      float2 v = partial[k * p.cols + c];
      sum.x += v.x;
      sum.y += v.y;
    }
    store(c, sum);
  }
}

/// Enqueues both stages (or the direct one) on the stream of `ctx`.
template <typename Load, typename Store>
void columnSum(CudaExecContext &ctx, int64_t rows, int64_t cols, Load load,
               Store store, const char *name) {
  if (cols == 0)
    return;
  ColumnPlan p = planColumns(rows, cols, kCublasLtWorkspaceBytes);
  dim3 block(kColTile, kRowLanes);
  dim3 grid(static_cast<unsigned>((cols + kColTile - 1) / kColTile),
            static_cast<unsigned>(p.chunks));
  cudaStream_t s = streamOf(ctx);
  if (p.chunks == 1) {
    columnSumKernel<true><<<grid, block, 0, s>>>(load, store, nullptr, p);
    CKPT_LAUNCH_CHECK(ctx, name);
    return;
  }
  auto *partial = static_cast<float2 *>(ctx.gemmWorkspace());
  columnSumKernel<false><<<grid, block, 0, s>>>(load, store, partial, p);
  CKPT_LAUNCH_CHECK(ctx, name);
  columnFinishKernel<<<gridFor(cols), kBlock, 0, s>>>(partial, store, p);
  CKPT_LAUNCH_CHECK(ctx, name);
}

} // namespace ckpt::rt::cuda::detail

#endif // CKPT_RUNTIME_CUDA_LIB_COLUMNSUM_CUH
