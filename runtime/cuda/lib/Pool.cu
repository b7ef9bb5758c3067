//===- Pool.cu - Max and average pooling and their gradients --------------===//
//
// NCHW. Forward: one thread per output element. Backward: one thread per
// input element that gathers the outputs whose window covers it
// (poolOutputRange, Indexing.h) in increasing order: no atomics.
//
//===----------------------------------------------------------------------===//
#include "DeviceCommon.cuh"

namespace ckpt::rt::cuda {
using namespace detail;

namespace {

struct PoolGeometry {
  int64_t planes; // N * C
  int64_t H, W, Ho, Wo, kh, kw, sh, sw, ph, pw;
  bool includePad;

  /// Divisor of output (oh, ow) for average pooling.
  __device__ float divisor(int64_t oh, int64_t ow) const {
    if (includePad)
      return static_cast<float>(kh * kw);
    int64_t h0 = oh * sh - ph, w0 = ow * sw - pw;
    int64_t h1 = min(h0 + kh, H), w1 = min(w0 + kw, W);
    h0 = max(h0, int64_t(0));
    w0 = max(w0, int64_t(0));
    return static_cast<float>((h1 - h0) * (w1 - w0));
  }
};

template <typename T>
__global__ void maxPoolKernel(const T *x, T *y, int64_t *idx, PoolGeometry g) {
  CKPT_GRID_LOOP(o, g.planes * g.Ho * g.Wo) {
    int64_t plane = o / (g.Ho * g.Wo), oh = (o / g.Wo) % g.Ho, ow = o % g.Wo;
    const T *xp = x + plane * g.H * g.W;
    float best = -INFINITY;
    int64_t at = -1, first = -1;
    for (int64_t i = 0; i < g.kh; ++i) {
      int64_t h = oh * g.sh - g.ph + i;
      if (h < 0 || h >= g.H)
        continue;
      for (int64_t j = 0; j < g.kw; ++j) {
        int64_t w = ow * g.sw - g.pw + j;
        if (w < 0 || w >= g.W)
          continue;
        float v = toF32(xp[h * g.W + w]);
        if (first < 0)
          first = h * g.W + w;
        // The first maximum; the first NaN wins and stays (as the host).
        if ((v > best || isnan(v)) && !isnan(best)) {
          best = v;
          at = h * g.W + w;
        }
      }
    }
    if (at < 0)
      at = first;
    y[o] = fromF32<T>(best);
    idx[o] = at;
  }
}

template <typename T>
__global__ void maxPoolGradKernel(const T *dy, const int64_t *idx, T *dx,
                                  PoolGeometry g) {
  CKPT_GRID_LOOP(i, g.planes * g.H * g.W) {
    int64_t plane = i / (g.H * g.W), h = (i / g.W) % g.H, w = i % g.W;
    int64_t oh0, oh1, ow0, ow1;
    poolOutputRange(h, g.kh, g.sh, g.ph, g.Ho, oh0, oh1);
    poolOutputRange(w, g.kw, g.sw, g.pw, g.Wo, ow0, ow1);
    float acc = 0.0f;
    int64_t self = h * g.W + w;
    for (int64_t oh = oh0; oh < oh1; ++oh)
      for (int64_t ow = ow0; ow < ow1; ++ow) {
        int64_t o = (plane * g.Ho + oh) * g.Wo + ow;
        if (idx[o] == self)
          acc += toF32(dy[o]);
      }
    dx[i] = fromF32<T>(acc);
  }
}

template <typename T>
__global__ void avgPoolKernel(const T *x, T *y, PoolGeometry g) {
  CKPT_GRID_LOOP(o, g.planes * g.Ho * g.Wo) {
    int64_t plane = o / (g.Ho * g.Wo), oh = (o / g.Wo) % g.Ho, ow = o % g.Wo;
    const T *xp = x + plane * g.H * g.W;
    float sum = 0.0f;
    for (int64_t i = 0; i < g.kh; ++i) {
      int64_t h = oh * g.sh - g.ph + i;
      if (h < 0 || h >= g.H)
        continue;
      for (int64_t j = 0; j < g.kw; ++j) {
        int64_t w = ow * g.sw - g.pw + j;
        if (w >= 0 && w < g.W)
          sum += toF32(xp[h * g.W + w]);
      }
    }
    y[o] = fromF32<T>(sum / g.divisor(oh, ow));
  }
}

template <typename T>
__global__ void avgPoolGradKernel(const T *dy, T *dx, PoolGeometry g) {
  CKPT_GRID_LOOP(i, g.planes * g.H * g.W) {
    int64_t plane = i / (g.H * g.W), h = (i / g.W) % g.H, w = i % g.W;
    int64_t oh0, oh1, ow0, ow1;
    poolOutputRange(h, g.kh, g.sh, g.ph, g.Ho, oh0, oh1);
    poolOutputRange(w, g.kw, g.sw, g.pw, g.Wo, ow0, ow1);
    float acc = 0.0f;
    for (int64_t oh = oh0; oh < oh1; ++oh)
      for (int64_t ow = ow0; ow < ow1; ++ow)
        acc += toF32(dy[(plane * g.Ho + oh) * g.Wo + ow]) / g.divisor(oh, ow);
    dx[i] = fromF32<T>(acc);
  }
}

/// Geometry of a pooling with input `x` and output `y` (both NCHW).
PoolGeometry poolGeometry(const Tensor &x, const Tensor &y, const Attrs &attrs,
                          const char *name) {
  requireRank(x, 4, name);
  requireRank(y, 4, name);
  PoolGeometry g;
  getPair(attrs, "kernel", g.kh, g.kw);
  getPair(attrs, "strides", g.sh, g.sw);
  getPair(attrs, "padding", g.ph, g.pw);
  g.includePad = attrs.has("count_include_pad");
  if (g.kh < 1 || g.kw < 1 || g.sh < 1 || g.sw < 1 || g.ph < 0 || g.pw < 0)
    fail(std::string(name) + ": invalid kernel, strides or padding");
  g.planes = x.shape[0] * x.shape[1];
  g.H = x.shape[2];
  g.W = x.shape[3];
  g.Ho = convOutputSize(g.H, g.kh, g.sh, g.ph, 1);
  g.Wo = convOutputSize(g.W, g.kw, g.sw, g.pw, 1);
  if (y.shape[0] != x.shape[0] || y.shape[1] != x.shape[1] ||
      y.shape[2] != g.Ho || y.shape[3] != g.Wo)
    fail(std::string(name) + ": output " + shapeString(y) +
         " does not match input " + shapeString(x));
  return g;
}

} // namespace

namespace kernels {

void max_pool2d(CudaExecContext &ctx, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  const Tensor &idx = get(results, 1, "indices");
  requireFloat(x, "max_pool2d");
  requireSameType(x, y, "max_pool2d");
  if (idx.dtype != DType::I64)
    fail("max_pool2d: indices must be i64");
  requireSameShape(y, idx, "max_pool2d indices");
  PoolGeometry g = poolGeometry(x, y, attrs, "max_pool2d");
  int64_t n = y.numel();
  if (n == 0)
    return;
  dispatchFloat(x.dtype, "max_pool2d", [&](auto tag) {
    using T = decltype(tag);
    maxPoolKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        x.as<const T>(), y.as<T>(), idx.as<int64_t>(), g);
  });
  CKPT_LAUNCH_CHECK(ctx, "max_pool2d");
}

void max_pool2d_grad(CudaExecContext &ctx, TensorList operands,
                     TensorList results, const Attrs &attrs, const Tensor &) {
  const Tensor &dy = get(operands, 0, "grad"),
               &idx = get(operands, 1, "indices");
  const Tensor &dx = get(results, 0, "result");
  requireFloat(dy, "max_pool2d_grad");
  requireSameType(dy, dx, "max_pool2d_grad");
  if (idx.dtype != DType::I64)
    fail("max_pool2d_grad: indices must be i64");
  requireSameShape(dy, idx, "max_pool2d_grad indices");
  PoolGeometry g = poolGeometry(dx, dy, attrs, "max_pool2d_grad");
  int64_t n = dx.numel();
  if (n == 0)
    return;
  dispatchFloat(dy.dtype, "max_pool2d_grad", [&](auto tag) {
    using T = decltype(tag);
    maxPoolGradKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        dy.as<const T>(), idx.as<const int64_t>(), dx.as<T>(), g);
  });
  CKPT_LAUNCH_CHECK(ctx, "max_pool2d_grad");
}

void avg_pool2d(CudaExecContext &ctx, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  requireFloat(x, "avg_pool2d");
  requireSameType(x, y, "avg_pool2d");
  PoolGeometry g = poolGeometry(x, y, attrs, "avg_pool2d");
  int64_t n = y.numel();
  if (n == 0)
    return;
  dispatchFloat(x.dtype, "avg_pool2d", [&](auto tag) {
    using T = decltype(tag);
    avgPoolKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(x.as<const T>(),
                                                               y.as<T>(), g);
  });
  CKPT_LAUNCH_CHECK(ctx, "avg_pool2d");
}

void avg_pool2d_grad(CudaExecContext &ctx, TensorList operands,
                     TensorList results, const Attrs &attrs, const Tensor &) {
  const Tensor &dy = get(operands, 0, "grad"), &dx = get(results, 0, "result");
  requireFloat(dy, "avg_pool2d_grad");
  requireSameType(dy, dx, "avg_pool2d_grad");
  PoolGeometry g = poolGeometry(dx, dy, attrs, "avg_pool2d_grad");
  int64_t n = dx.numel();
  if (n == 0)
    return;
  dispatchFloat(dy.dtype, "avg_pool2d_grad", [&](auto tag) {
    using T = decltype(tag);
    avgPoolGradKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        dy.as<const T>(), dx.as<T>(), g);
  });
  CKPT_LAUNCH_CHECK(ctx, "avg_pool2d_grad");
}

} // namespace kernels
} // namespace ckpt::rt::cuda
