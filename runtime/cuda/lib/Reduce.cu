//===- Reduce.cu - Sum, mean and max over arbitrary axes ------------------===//
//
// Output element o reduces input elements kept(o) + reduced(r) for r in
// increasing order (ReduceMap, Indexing.h). Small reductions run one thread
// per output (a sequential loop); sums over leading dimensions (bias
// gradients) are chunked column sums (ColumnSum.cuh); other large ones one
// block per output with a fixed-shape block reduction. The choice depends on
// the shapes only, so a recomputed reduction repeats the same order.
//
//===----------------------------------------------------------------------===//
#include "ColumnSum.cuh"

namespace ckpt::rt::cuda {
using namespace detail;

namespace {

enum ReduceKind : int { kSum, kMean, kMax };
constexpr int kReduceBlock = 256;

template <int Kind> __device__ __forceinline__ float reduceInit() {
  return Kind == kMax ? -INFINITY : 0.0f;
}
template <int Kind>
__device__ __forceinline__ float reduceStep(float acc, float v) {
  return Kind == kMax ? maxNan(acc, v) : acc + v;
}
template <int Kind>
__device__ __forceinline__ float reduceFinish(float acc, int64_t count) {
  return Kind == kMean ? acc / static_cast<float>(count) : acc;
}

template <typename T, int Kind>
__global__ void reduceThreadKernel(const T *x, T *y, ReduceMap map) {
  CKPT_GRID_LOOP(o, map.keptCount) {
    int64_t base = map.kept.offset(o);
    float acc = reduceInit<Kind>();
    for (int64_t r = 0; r < map.reducedCount; ++r)
      acc = reduceStep<Kind>(acc, toF32(x[base + map.reduced.offset(r)]));
    y[o] = fromF32<T>(reduceFinish<Kind>(acc, map.reducedCount));
  }
}

template <typename T, int Kind>
__global__ void reduceBlockKernel(const T *x, T *y, ReduceMap map) {
  __shared__ float scratch[32];
  for (int64_t o = blockIdx.x; o < map.keptCount; o += gridDim.x) {
    int64_t base = map.kept.offset(o);
    float acc = reduceInit<Kind>();
    for (int64_t r = threadIdx.x; r < map.reducedCount; r += blockDim.x)
      acc = reduceStep<Kind>(acc, toF32(x[base + map.reduced.offset(r)]));
    acc = Kind == kMax ? blockMax(acc, scratch) : blockSum(acc, scratch);
    if (threadIdx.x == 0)
      y[o] = fromF32<T>(reduceFinish<Kind>(acc, map.reducedCount));
  }
}

/// Element (r, c) of a `[rows, cols]` view of the input.
template <typename T> struct RowMajorLoad {
  const T *x;
  int64_t cols;
  __device__ float2 operator()(int64_t r, int64_t c) const {
    return make_float2(toF32(x[r * cols + c]), 0.0f);
  }
};

/// y[c] = sum, or sum / count for a mean.
template <typename T> struct ReduceStore {
  T *y;
  float divisor; // 0: no division.
  __device__ void operator()(int64_t c, float2 sum) const {
    y[c] = fromF32<T>(divisor != 0.0f ? sum.x / divisor : sum.x);
  }
};

/// True when `axes` are the leading dimensions 0..n-1 of a rank > n input:
/// the reduction is a column sum of a `[reduced, kept]` matrix.
bool leadingAxes(const int64_t *axes, size_t n, int rank) {
  if (n == 0 || static_cast<int>(n) >= rank)
    return false;
  for (size_t i = 0; i < n; ++i)
    if (axes[i] != static_cast<int64_t>(i))
      return false;
  return true;
}

template <int Kind>
void launchReduce(CudaExecContext &ctx, TensorList operands, TensorList results,
                  const Attrs &attrs, const char *name) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  requireFloat(x, name);
  requireSameType(x, y, name);
  size_t n = 0;
  const int64_t *axes = attrs.getInts("axes", n);
  ReduceMap map;
  if (!makeReduceMap(x.shape, x.rank, axes, static_cast<int>(n), map))
    fail(std::string(name) +
         ": axes must be sorted, distinct and in range for " + shapeString(x));
  requireNumel(y, map.keptCount, name);
  if (map.keptCount == 0)
    return;
  if (map.reducedCount == 0 && Kind != kSum)
    fail(std::string(name) + ": reduction over an empty extent");
  bool perThread = map.keptCount >= 4096 || map.reducedCount < 256;
  bool columns = !perThread && Kind != kMax && leadingAxes(axes, n, x.rank);
  dispatchFloat(x.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    if (columns)
      columnSum(ctx, map.reducedCount, map.keptCount,
                RowMajorLoad<T>{x.as<const T>(), map.keptCount},
                ReduceStore<T>{y.as<T>(), Kind == kMean ? static_cast<float>(
                                                              map.reducedCount)
                                                        : 0.0f},
                name);
    else if (perThread)
      reduceThreadKernel<T, Kind>
          <<<gridFor(map.keptCount), kBlock, 0, streamOf(ctx)>>>(
              x.as<const T>(), y.as<T>(), map);
    else
      reduceBlockKernel<T, Kind>
          <<<static_cast<unsigned>(std::min<int64_t>(map.keptCount, 65535)),
             kReduceBlock, 0, streamOf(ctx)>>>(x.as<const T>(), y.as<T>(), map);
  });
  CKPT_LAUNCH_CHECK(ctx, name);
}

} // namespace

namespace kernels {

void reduce_sum(CudaExecContext &ctx, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  launchReduce<kSum>(ctx, operands, results, attrs, "reduce_sum");
}
void reduce_mean(CudaExecContext &ctx, TensorList operands, TensorList results,
                 const Attrs &attrs, const Tensor &) {
  launchReduce<kMean>(ctx, operands, results, attrs, "reduce_mean");
}
void reduce_max(CudaExecContext &ctx, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  launchReduce<kMax>(ctx, operands, results, attrs, "reduce_max");
}

} // namespace kernels
} // namespace ckpt::rt::cuda
