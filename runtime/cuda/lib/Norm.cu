//===- Norm.cu - Layer, RMS and batch normalization kernels ---------------===//
//
// Layer / RMS norm: one block per row for the statistics and the input
// gradient; the parameter gradients are fixed-order column sums over the
// rows (ColumnSum.cuh). Batch norm: one block per
// channel does statistics and output (or both gradient sums and the input
// gradient) in one kernel. No atomics.
//
//===----------------------------------------------------------------------===//
#include "ColumnSum.cuh"

namespace ckpt::rt::cuda {
using namespace detail;

namespace {

constexpr int kNormBlock = 256;

/// Forward of layer norm (`Centered`) or RMS norm over rows of length L.
template <typename T, bool Centered>
__global__ void normRowKernel(const T *x, const T *w, const T *b, T *y,
                              float *meanOut, float *rstdOut, int64_t rows,
                              int64_t L, float eps) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *xr = x + r * L;
    float mean = 0.0f;
    if (Centered) {
      float s = 0.0f;
      for (int64_t j = threadIdx.x; j < L; j += blockDim.x)
        s += toF32(xr[j]);
      mean = blockSum(s, scratch) / static_cast<float>(L);
    }
    float s2 = 0.0f;
    for (int64_t j = threadIdx.x; j < L; j += blockDim.x) {
      float d = toF32(xr[j]) - mean;
      s2 += d * d;
    }
    float var = blockSum(s2, scratch) / static_cast<float>(L);
    float rstd = 1.0f / sqrtf(var + eps);
    for (int64_t j = threadIdx.x; j < L; j += blockDim.x) {
      float v = (toF32(xr[j]) - mean) * rstd;
      if (w)
        v *= toF32(w[j]);
      if (b)
        v += toF32(b[j]);
      y[r * L + j] = fromF32<T>(v);
    }
    if (threadIdx.x == 0) {
      if (meanOut)
        meanOut[r] = mean;
      rstdOut[r] = rstd;
    }
  }
}

/// Input gradient of layer norm / RMS norm:
/// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * w
/// (RMS norm: without the `mean(g)` term, xhat = x * rstd).
template <typename T, bool Centered>
__global__ void normGradRowKernel(const T *dy, const T *x, const float *mean,
                                  const float *rstd, const T *w, T *dx,
                                  int64_t rows, int64_t L) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *g = dy + r * L, *xr = x + r * L;
    float mu = Centered ? mean[r] : 0.0f, rs = rstd[r];
    float sg = 0.0f, sgx = 0.0f;
    for (int64_t j = threadIdx.x; j < L; j += blockDim.x) {
      float gj = toF32(g[j]) * (w ? toF32(w[j]) : 1.0f);
      float xh = (toF32(xr[j]) - mu) * rs;
      sg += gj;
      sgx += gj * xh;
    }
    float meanG =
        Centered ? blockSum(sg, scratch) / static_cast<float>(L) : 0.0f;
    float meanGX = blockSum(sgx, scratch) / static_cast<float>(L);
    for (int64_t j = threadIdx.x; j < L; j += blockDim.x) {
      float gj = toF32(g[j]) * (w ? toF32(w[j]) : 1.0f);
      float xh = (toF32(xr[j]) - mu) * rs;
      dx[r * L + j] = fromF32<T>(rs * (gj - meanG - xh * meanGX));
    }
  }
}

/// Parameter-gradient terms of element (r, c): (dy * xhat, dy).
template <typename T, bool Centered> struct NormParamLoad {
  const T *dy, *x;
  const float *mean, *rstd;
  int64_t L;
  __device__ float2 operator()(int64_t r, int64_t c) const {
    float g = toF32(dy[r * L + c]);
    float xh = (toF32(x[r * L + c]) - (Centered ? mean[r] : 0.0f)) * rstd[r];
    return make_float2(g * xh, g);
  }
};

/// Stores dw[c] = sum(dy * xhat), db[c] = sum(dy) (either may be absent).
template <typename T> struct NormParamStore {
  T *dw, *db;
  __device__ void operator()(int64_t c, float2 sum) const {
    if (dw)
      dw[c] = fromF32<T>(sum.x);
    if (db)
      db[c] = fromF32<T>(sum.y);
  }
};

/// Batch norm forward, one block per channel over N x S elements.
template <typename T>
__global__ void batchNormKernel(const T *x, const T *w, const T *b, T *y,
                                float *meanOut, float *rstdOut, int64_t N,
                                int64_t C, int64_t S, float eps) {
  __shared__ float scratch[32];
  int64_t count = N * S;
  for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
    float s = 0.0f;
    for (int64_t e = threadIdx.x; e < count; e += blockDim.x)
      s += toF32(x[((e / S) * C + c) * S + e % S]);
    float mean = blockSum(s, scratch) / static_cast<float>(count);
    float s2 = 0.0f;
    for (int64_t e = threadIdx.x; e < count; e += blockDim.x) {
      float d = toF32(x[((e / S) * C + c) * S + e % S]) - mean;
      s2 += d * d;
    }
    float rstd =
        1.0f / sqrtf(blockSum(s2, scratch) / static_cast<float>(count) + eps);
    float wc = w ? toF32(w[c]) : 1.0f, bc = b ? toF32(b[c]) : 0.0f;
    for (int64_t e = threadIdx.x; e < count; e += blockDim.x) {
      int64_t i = ((e / S) * C + c) * S + e % S;
      y[i] = fromF32<T>((toF32(x[i]) - mean) * rstd * wc + bc);
    }
    if (threadIdx.x == 0) {
      meanOut[c] = mean;
      rstdOut[c] = rstd;
    }
  }
}

/// Batch norm backward, one block per channel: sums of dy and dy * xhat, the
/// input gradient, and the channel's weight / bias gradients.
template <typename T>
__global__ void batchNormGradKernel(const T *dy, const T *x, const float *mean,
                                    const float *rstd, const T *w, T *dx, T *dw,
                                    T *db, int64_t N, int64_t C, int64_t S) {
  __shared__ float scratch[32];
  int64_t count = N * S;
  for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
    float mu = mean[c], rs = rstd[c];
    float sg = 0.0f, sgx = 0.0f;
    for (int64_t e = threadIdx.x; e < count; e += blockDim.x) {
      int64_t i = ((e / S) * C + c) * S + e % S;
      float g = toF32(dy[i]);
      sg += g;
      sgx += g * (toF32(x[i]) - mu) * rs;
    }
    sg = blockSum(sg, scratch);
    sgx = blockSum(sgx, scratch);
    float wc = w ? toF32(w[c]) : 1.0f;
    float meanG = wc * sg / static_cast<float>(count);
    float meanGX = wc * sgx / static_cast<float>(count);
    for (int64_t e = threadIdx.x; e < count; e += blockDim.x) {
      int64_t i = ((e / S) * C + c) * S + e % S;
      float xh = (toF32(x[i]) - mu) * rs;
      dx[i] = fromF32<T>(rs * (toF32(dy[i]) * wc - meanG - xh * meanGX));
    }
    if (threadIdx.x == 0) {
      if (dw)
        dw[c] = fromF32<T>(sgx);
      if (db)
        db[c] = fromF32<T>(sg);
    }
  }
}

unsigned rowGrid(int64_t rows) {
  return static_cast<unsigned>(
      std::min<int64_t>(std::max<int64_t>(rows, 1), 65535));
}

/// Rows and row length of a normalization over dimensions `axis..`.
void normExtent(const Tensor &x, int64_t axis, int64_t &rows, int64_t &cols) {
  if (axis < 0 || axis > x.rank)
    fail("normalization axis " + std::to_string(axis) + " out of range for " +
         shapeString(x));
  rows = cols = 1;
  for (int i = 0; i < x.rank; ++i)
    (i < axis ? rows : cols) *= x.shape[i];
}

/// Checks an optional per-column (or per-channel) parameter.
void checkParam(const Tensor *p, const Tensor &x, int64_t n, const char *what) {
  if (!p)
    return;
  requireSameType(*p, x, what);
  requireNumel(*p, n, what);
}

/// The trailing parameter-gradient results (weight, then bias), which need
/// the weight operand.
void paramGrads(TensorList results, const Tensor *w, const Tensor &x, int64_t n,
                const Tensor *&dw, const Tensor *&db, size_t maxGrads,
                const char *what) {
  dw = db = nullptr;
  size_t grads = results.size - 1;
  if (grads > maxGrads)
    fail(std::string(what) + ": too many results");
  if (grads > 0 && !w)
    fail(std::string(what) + ": parameter gradients need the weight operand");
  if (grads >= 1)
    dw = &get(results, 1, "weight gradient");
  if (grads >= 2)
    db = &get(results, 2, "bias gradient");
  checkParam(dw, x, n, what);
  checkParam(db, x, n, what);
}

template <typename T> const T *dataOr(const Tensor *t) {
  return t ? t->as<const T>() : nullptr;
}
template <typename T> T *mutableOr(const Tensor *t) {
  return t ? t->as<T>() : nullptr;
}

template <bool Centered>
void launchNorm(CudaExecContext &ctx, TensorList operands, TensorList results,
                const Attrs &attrs, const char *name) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor *w = optionalOperand(operands, attrs, Centered ? 3 : 2, 1);
  const Tensor *b = Centered ? optionalOperand(operands, attrs, 3, 2) : nullptr;
  const Tensor &y = get(results, 0, "result");
  const Tensor *mean = Centered ? &get(results, 1, "mean") : nullptr;
  const Tensor &rstd = get(results, Centered ? 2 : 1, "rstd");
  requireFloat(x, name);
  requireSameType(x, y, name);
  requireSameShape(x, y, name);
  int64_t rows, cols;
  normExtent(x, attrs.getInt("axis"), rows, cols);
  if (mean) {
    requireF32(*mean, name);
    requireNumel(*mean, rows, name);
  }
  requireF32(rstd, name);
  requireNumel(rstd, rows, name);
  checkParam(w, x, cols, name);
  checkParam(b, x, cols, name);
  float eps = static_cast<float>(attrs.getFloat("epsilon"));
  if (rows == 0 || cols == 0)
    return;
  dispatchFloat(x.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    normRowKernel<T, Centered><<<rowGrid(rows), kNormBlock, 0, streamOf(ctx)>>>(
        x.as<const T>(), dataOr<T>(w), dataOr<T>(b), y.as<T>(),
        mean ? mean->as<float>() : nullptr, rstd.as<float>(), rows, cols, eps);
  });
  CKPT_LAUNCH_CHECK(ctx, name);
}

template <bool Centered>
void launchNormGrad(CudaExecContext &ctx, TensorList operands,
                    TensorList results, const Attrs &attrs, const char *name) {
  const Tensor &dy = get(operands, 0, "grad"), &x = get(operands, 1, "input");
  const Tensor *mean = Centered ? &get(operands, 2, "mean") : nullptr;
  const Tensor &rstd = get(operands, Centered ? 3 : 2, "rstd");
  const Tensor *w =
      optionalOperand(operands, attrs, Centered ? 5 : 4, Centered ? 4 : 3);
  const Tensor &dx = get(results, 0, "input gradient");
  requireFloat(x, name);
  requireSameType(x, dy, name);
  requireSameType(x, dx, name);
  requireSameShape(x, dy, name);
  requireSameShape(x, dx, name);
  int64_t rows, cols;
  normExtent(x, attrs.getInt("axis"), rows, cols);
  if (mean) {
    requireF32(*mean, name);
    requireNumel(*mean, rows, name);
  }
  requireF32(rstd, name);
  requireNumel(rstd, rows, name);
  checkParam(w, x, cols, name);
  const Tensor *dw, *db;
  paramGrads(results, w, x, cols, dw, db, Centered ? 2 : 1, name);
  if (rows == 0 || cols == 0)
    return;
  cudaStream_t s = streamOf(ctx);
  const float *pm = mean ? mean->as<const float>() : nullptr;
  dispatchFloat(x.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    normGradRowKernel<T, Centered><<<rowGrid(rows), kNormBlock, 0, s>>>(
        dy.as<const T>(), x.as<const T>(), pm, rstd.as<const float>(),
        dataOr<T>(w), dx.as<T>(), rows, cols);
    CKPT_LAUNCH_CHECK(ctx, name);
    if (dw || db)
      columnSum(ctx, rows, cols,
                NormParamLoad<T, Centered>{dy.as<const T>(), x.as<const T>(),
                                           pm, rstd.as<const float>(), cols},
                NormParamStore<T>{mutableOr<T>(dw), mutableOr<T>(db)}, name);
  });
}

/// N, C and the spatial volume S of a batch-norm input `[N, C, ...]`.
void batchExtent(const Tensor &x, int64_t &N, int64_t &C, int64_t &S,
                 const char *name) {
  if (x.rank < 2)
    fail(std::string(name) + ": input needs rank >= 2, got " + shapeString(x));
  N = x.shape[0];
  C = x.shape[1];
  S = 1;
  for (int i = 2; i < x.rank; ++i)
    S *= x.shape[i];
}

} // namespace

namespace kernels {

void layer_norm(CudaExecContext &ctx, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  launchNorm<true>(ctx, operands, results, attrs, "layer_norm");
}
void rms_norm(CudaExecContext &ctx, TensorList operands, TensorList results,
              const Attrs &attrs, const Tensor &) {
  launchNorm<false>(ctx, operands, results, attrs, "rms_norm");
}
void layer_norm_grad(CudaExecContext &ctx, TensorList operands,
                     TensorList results, const Attrs &attrs, const Tensor &) {
  launchNormGrad<true>(ctx, operands, results, attrs, "layer_norm_grad");
}
void rms_norm_grad(CudaExecContext &ctx, TensorList operands,
                   TensorList results, const Attrs &attrs, const Tensor &) {
  launchNormGrad<false>(ctx, operands, results, attrs, "rms_norm_grad");
}

void batch_norm(CudaExecContext &ctx, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor *w = optionalOperand(operands, attrs, 3, 1);
  const Tensor *b = optionalOperand(operands, attrs, 3, 2);
  const Tensor &y = get(results, 0, "result");
  const Tensor &mean = get(results, 1, "mean"), &rstd = get(results, 2, "rstd");
  requireFloat(x, "batch_norm");
  requireSameType(x, y, "batch_norm");
  requireSameShape(x, y, "batch_norm");
  int64_t N, C, S;
  batchExtent(x, N, C, S, "batch_norm");
  requireF32(mean, "batch_norm mean");
  requireF32(rstd, "batch_norm rstd");
  requireNumel(mean, C, "batch_norm mean");
  requireNumel(rstd, C, "batch_norm rstd");
  checkParam(w, x, C, "batch_norm weight");
  checkParam(b, x, C, "batch_norm bias");
  float eps = static_cast<float>(attrs.getFloat("epsilon"));
  if (C == 0)
    return;
  dispatchFloat(x.dtype, "batch_norm", [&](auto tag) {
    using T = decltype(tag);
    batchNormKernel<T><<<rowGrid(C), kNormBlock, 0, streamOf(ctx)>>>(
        x.as<const T>(), dataOr<T>(w), dataOr<T>(b), y.as<T>(),
        mean.as<float>(), rstd.as<float>(), N, C, S, eps);
  });
  CKPT_LAUNCH_CHECK(ctx, "batch_norm");
}

void batch_norm_grad(CudaExecContext &ctx, TensorList operands,
                     TensorList results, const Attrs &attrs, const Tensor &) {
  const Tensor &dy = get(operands, 0, "grad"), &x = get(operands, 1, "input");
  const Tensor &mean = get(operands, 2, "mean"),
               &rstd = get(operands, 3, "rstd");
  const Tensor *w = optionalOperand(operands, attrs, 5, 4);
  const Tensor &dx = get(results, 0, "input gradient");
  requireFloat(x, "batch_norm_grad");
  requireSameType(x, dy, "batch_norm_grad");
  requireSameType(x, dx, "batch_norm_grad");
  requireSameShape(x, dy, "batch_norm_grad");
  requireSameShape(x, dx, "batch_norm_grad");
  int64_t N, C, S;
  batchExtent(x, N, C, S, "batch_norm_grad");
  requireF32(mean, "batch_norm_grad mean");
  requireF32(rstd, "batch_norm_grad rstd");
  requireNumel(mean, C, "batch_norm_grad mean");
  requireNumel(rstd, C, "batch_norm_grad rstd");
  checkParam(w, x, C, "batch_norm_grad weight");
  const Tensor *dw, *db;
  paramGrads(results, w, x, C, dw, db, 2, "batch_norm_grad");
  if (C == 0)
    return;
  dispatchFloat(x.dtype, "batch_norm_grad", [&](auto tag) {
    using T = decltype(tag);
    batchNormGradKernel<T><<<rowGrid(C), kNormBlock, 0, streamOf(ctx)>>>(
        dy.as<const T>(), x.as<const T>(), mean.as<const float>(),
        rstd.as<const float>(), dataOr<T>(w), dx.as<T>(), mutableOr<T>(dw),
        mutableOr<T>(db), N, C, S);
  });
  CKPT_LAUNCH_CHECK(ctx, "batch_norm_grad");
}

} // namespace kernels
} // namespace ckpt::rt::cuda
