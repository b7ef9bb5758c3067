//===- DataMovement.cu - Copies, gathers and the embedding kernels --------===//
//
// reshape / transpose / broadcast / slice / concat move elements by their
// byte size (any dtype), through StridedMap gathers. Embedding gathers rows;
// its gradient accumulates each table row's gradient in f32 shared memory,
// scanning the indices in increasing order: deterministic, no atomics.
//
//===----------------------------------------------------------------------===//
#include "DeviceCommon.cuh"

namespace ckpt::rt::cuda {
using namespace detail;

namespace {

template <typename U>
__global__ void gatherKernel(const U *x, U *y, StridedMap map, int64_t n) {
  CKPT_GRID_LOOP(i, n) { y[i] = x[map.offset(i)]; }
}

/// Copies input `[outer, chunk]` into columns `[at, at + chunk)` of the
/// result `[outer, total]`.
template <typename U>
__global__ void concatKernel(const U *x, U *y, int64_t outer, int64_t chunk,
                             int64_t total, int64_t at) {
  CKPT_GRID_LOOP(i, outer * chunk) {
    int64_t o = i / chunk, r = i % chunk;
    y[o * total + at + r] = x[i];
  }
}

template <typename T, typename I>
__global__ void embeddingKernel(const T *table, const I *idx, T *y, int64_t n,
                                int64_t V, int64_t D) {
  CKPT_GRID_LOOP(e, n * D) {
    int64_t row = static_cast<int64_t>(idx[e / D]);
    // An index outside the table cannot be reported from here: NaN marks it.
    y[e] = row >= 0 && row < V ? table[row * D + e % D] : fromF32<T>(NAN);
  }
}

constexpr int kEmbRows = 32;   // Table rows per block.
constexpr int kEmbCols = 256;  // Columns per block (one per thread).
constexpr int kEmbBatch = 256; // Indices staged in shared memory at once.

/// Gradient of rows [v0, v0 + kEmbRows) and columns [d0, d0 + kEmbCols) of
/// the table: every index is visited in increasing order and matching rows
/// of `g` are added into an f32 tile, which is then stored once. Rows no
/// index selects come out zero, and so does row `padding` (-1: none).
template <typename T, typename I>
__global__ void embeddingGradKernel(const T *g, const I *idx, T *dt, int64_t n,
                                    int64_t V, int64_t D, int64_t padding) {
  __shared__ float acc[kEmbRows][kEmbCols];
  __shared__ int64_t staged[kEmbBatch];
  int64_t v0 = static_cast<int64_t>(blockIdx.x) * kEmbRows;
  int64_t d = static_cast<int64_t>(blockIdx.y) * kEmbCols + threadIdx.x;
  for (int r = 0; r < kEmbRows; ++r)
    acc[r][threadIdx.x] = 0.0f;
  for (int64_t b0 = 0; b0 < n; b0 += kEmbBatch) {
    __syncthreads();
    if (b0 + threadIdx.x < n)
      staged[threadIdx.x] = static_cast<int64_t>(idx[b0 + threadIdx.x]);
    __syncthreads();
    int64_t count = n - b0 < kEmbBatch ? n - b0 : kEmbBatch;
    for (int64_t k = 0; k < count; ++k) {
      int64_t row = staged[k] - v0;
      if (row >= 0 && row < kEmbRows && d < D && staged[k] != padding)
        acc[row][threadIdx.x] += toF32(g[(b0 + k) * D + d]);
    }
  }
  if (d >= D)
    return;
  for (int r = 0; r < kEmbRows && v0 + r < V; ++r)
    dt[(v0 + r) * D + d] = fromF32<T>(acc[r][threadIdx.x]);
}

template <typename Body>
void dispatchIndex(const Tensor &t, const char *what, Body body) {
  if (t.dtype == DType::I32)
    body(int32_t{});
  else if (t.dtype == DType::I64)
    body(int64_t{});
  else
    fail(std::string(what) + ": indices must be i32 or i64, got " +
         shapeString(t));
}

void launchGather(CudaExecContext &ctx, const Tensor &x, const Tensor &y,
                  const StridedMap &map, const char *name) {
  int64_t n = y.numel();
  if (n == 0)
    return;
  dispatchBytes(x.dtype, [&](auto tag) {
    using U = decltype(tag);
    gatherKernel<U><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        x.as<const U>(), y.as<U>(), map, n);
  });
  CKPT_LAUNCH_CHECK(ctx, name);
}

} // namespace

namespace kernels {

void reshape(CudaExecContext &ctx, TensorList operands, TensorList results,
             const Attrs &, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  requireSameType(x, y, "reshape");
  requireNumel(y, x.numel(), "reshape");
  // A view: the result normally shares the input's storage.
  if (x.data != y.data && x.bytes() > 0)
    CKPT_CUDA_CHECK(ctx,
                    cudaMemcpyAsync(y.data, x.data, x.bytes(),
                                    cudaMemcpyDeviceToDevice, streamOf(ctx)));
}

void transpose(CudaExecContext &ctx, TensorList operands, TensorList results,
               const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  requireSameType(x, y, "transpose");
  size_t n = 0;
  const int64_t *perm = attrs.getInts("perm", n);
  StridedMap map;
  if (static_cast<int>(n) != x.rank || y.rank != x.rank ||
      !makeTransposeMap(x.shape, x.rank, perm, map))
    fail("transpose: perm is not a permutation of the input's dimensions");
  for (int i = 0; i < y.rank; ++i)
    if (y.shape[i] != map.shape[i])
      fail("transpose: result " + shapeString(y) + " does not match the perm");
  // A layout-preserving transpose is a view of its input.
  if (x.data == y.data)
    return;
  launchGather(ctx, x, y, map, "transpose");
}

void broadcast(CudaExecContext &ctx, TensorList operands, TensorList results,
               const Attrs &, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  requireSameType(x, y, "broadcast");
  StridedMap map;
  if (!makeBroadcastMap(x.shape, x.rank, y.shape, y.rank, map))
    fail("broadcast: " + shapeString(x) + " does not broadcast to " +
         shapeString(y));
  launchGather(ctx, x, y, map, "broadcast");
}

void slice(CudaExecContext &ctx, TensorList operands, TensorList results,
           const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  requireSameType(x, y, "slice");
  size_t ns = 0, nt = 0;
  const int64_t *starts = attrs.getInts("starts", ns);
  const int64_t *steps = attrs.getInts("steps", nt);
  StridedMap map;
  if (static_cast<int>(ns) != x.rank || static_cast<int>(nt) != x.rank ||
      y.rank != x.rank ||
      !makeSliceMap(x.shape, y.shape, x.rank, starts, steps, map))
    fail("slice: starts/steps select outside " + shapeString(x) + " for " +
         shapeString(y));
  launchGather(ctx, x, y, map, "slice");
}

void concat(CudaExecContext &ctx, TensorList operands, TensorList results,
            const Attrs &attrs, const Tensor &) {
  const Tensor &y = get(results, 0, "result");
  int64_t axis = attrs.getInt("axis");
  AxisView out = axisView(y, axis);
  int64_t total = out.extent * out.inner, at = 0;
  for (size_t k = 0; k < operands.size; ++k) {
    const Tensor &x = get(operands, k, "input");
    requireSameType(x, y, "concat");
    if (x.rank != y.rank)
      fail("concat: input " + shapeString(x) + " does not match " +
           shapeString(y));
    for (int i = 0; i < y.rank; ++i)
      if (i != axis && x.shape[i] != y.shape[i])
        fail("concat: input " + shapeString(x) + " does not match " +
             shapeString(y));
    int64_t chunk = x.shape[axis] * out.inner;
    if (at + chunk > total)
      fail("concat: inputs are larger than the result " + shapeString(y));
    if (out.outer * chunk > 0) {
      dispatchBytes(x.dtype, [&](auto tag) {
        using U = decltype(tag);
        concatKernel<U>
            <<<gridFor(out.outer * chunk), kBlock, 0, streamOf(ctx)>>>(
                x.as<const U>(), y.as<U>(), out.outer, chunk, total, at);
      });
      CKPT_LAUNCH_CHECK(ctx, "concat");
    }
    at += chunk;
  }
  if (at != total)
    fail("concat: inputs do not fill the result " + shapeString(y));
}

void embedding(CudaExecContext &ctx, TensorList operands, TensorList results,
               const Attrs &, const Tensor &) {
  const Tensor &table = get(operands, 0, "table"),
               &idx = get(operands, 1, "indices");
  const Tensor &y = get(results, 0, "result");
  requireFloat(table, "embedding");
  requireSameType(table, y, "embedding");
  requireRank(table, 2, "embedding table");
  int64_t V = table.shape[0], D = table.shape[1], n = idx.numel();
  requireNumel(y, n * D, "embedding result");
  if (n * D == 0)
    return;
  dispatchFloat(table.dtype, "embedding", [&](auto tag) {
    using T = decltype(tag);
    dispatchIndex(idx, "embedding", [&](auto itag) {
      using I = decltype(itag);
      embeddingKernel<T, I><<<gridFor(n * D), kBlock, 0, streamOf(ctx)>>>(
          table.as<const T>(), idx.as<const I>(), y.as<T>(), n, V, D);
    });
  });
  CKPT_LAUNCH_CHECK(ctx, "embedding");
}

void embedding_grad(CudaExecContext &ctx, TensorList operands,
                    TensorList results, const Attrs &attrs, const Tensor &) {
  const Tensor &g = get(operands, 0, "grad"),
               &idx = get(operands, 1, "indices");
  const Tensor &dt = get(results, 0, "result");
  requireFloat(g, "embedding_grad");
  requireSameType(g, dt, "embedding_grad");
  requireRank(dt, 2, "embedding_grad result");
  int64_t V = dt.shape[0], D = dt.shape[1], n = idx.numel();
  requireNumel(g, n * D, "embedding_grad grad");
  int64_t padding = embeddingPaddingIndex(attrs, V, "embedding_grad");
  if (V * D == 0)
    return;
  dim3 grid(static_cast<unsigned>((V + kEmbRows - 1) / kEmbRows),
            static_cast<unsigned>((D + kEmbCols - 1) / kEmbCols));
  if (grid.y > 65535)
    fail("embedding_grad: embedding dimension too large");
  dispatchFloat(g.dtype, "embedding_grad", [&](auto tag) {
    using T = decltype(tag);
    dispatchIndex(idx, "embedding_grad", [&](auto itag) {
      using I = decltype(itag);
      embeddingGradKernel<T, I><<<grid, kEmbCols, 0, streamOf(ctx)>>>(
          g.as<const T>(), idx.as<const I>(), dt.as<T>(), n, V, D, padding);
    });
  });
  CKPT_LAUNCH_CHECK(ctx, "embedding_grad");
}

} // namespace kernels
} // namespace ckpt::rt::cuda
