//===- Softmax.cu - Softmax, log-softmax and cross-entropy kernels --------===//
//
// Rows along the softmax axis: one block per row when the axis is innermost
// (block reductions of fixed shape), one thread per row otherwise (a
// sequential loop). Cross-entropy: one block per row for the log-sum-exp,
// then one block that sums the row losses in a fixed order.
//
//===----------------------------------------------------------------------===//
#include "DeviceCommon.cuh"

#include <cstring>

namespace ckpt::rt::cuda {
using namespace detail;

namespace {

constexpr int kRowBlock = 256;
/// Threads of the single block that sums the loss rows.
constexpr int kLossBlock = 1024;

/// Softmax (`Log = false`) or log-softmax along contiguous rows of length L.
template <typename T, bool Log>
__global__ void softmaxRowKernel(const T *x, T *y, int64_t rows, int64_t L) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *xr = x + r * L;
    T *yr = y + r * L;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < L; j += blockDim.x)
      m = fmaxf(m, toF32(xr[j]));
    m = blockMax(m, scratch);
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < L; j += blockDim.x)
      s += expf(toF32(xr[j]) - m);
    s = blockSum(s, scratch);
    float logS = logf(s);
    for (int64_t j = threadIdx.x; j < L; j += blockDim.x) {
      float z = toF32(xr[j]) - m;
      yr[j] = fromF32<T>(Log ? z - logS : expf(z) / s);
    }
  }
}

/// The same along a strided axis: one thread per (outer, inner) line.
template <typename T, bool Log>
__global__ void softmaxColKernel(const T *x, T *y, int64_t outer, int64_t L,
                                 int64_t inner) {
  CKPT_GRID_LOOP(line, outer * inner) {
    int64_t o = line / inner, in = line % inner;
    const T *xr = x + o * L * inner + in;
    T *yr = y + o * L * inner + in;
    float m = -INFINITY;
    for (int64_t j = 0; j < L; ++j)
      m = fmaxf(m, toF32(xr[j * inner]));
    float s = 0.0f;
    for (int64_t j = 0; j < L; ++j)
      s += expf(toF32(xr[j * inner]) - m);
    float logS = logf(s);
    for (int64_t j = 0; j < L; ++j) {
      float z = toF32(xr[j * inner]) - m;
      yr[j * inner] = fromF32<T>(Log ? z - logS : expf(z) / s);
    }
  }
}

/// softmax_grad: dx = y * (dy - sum(dy * y)); log_softmax_grad:
/// dx = dy - exp(y) * sum(dy).
template <typename T, bool Log>
__global__ void softmaxGradRowKernel(const T *dy, const T *y, T *dx,
                                     int64_t rows, int64_t L) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *g = dy + r * L, *yr = y + r * L;
    T *out = dx + r * L;
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < L; j += blockDim.x)
      s += Log ? toF32(g[j]) : toF32(g[j]) * toF32(yr[j]);
    s = blockSum(s, scratch);
    for (int64_t j = threadIdx.x; j < L; j += blockDim.x) {
      float gj = toF32(g[j]), yj = toF32(yr[j]);
      out[j] = fromF32<T>(Log ? gj - expf(yj) * s : yj * (gj - s));
    }
  }
}

template <typename T, bool Log>
__global__ void softmaxGradColKernel(const T *dy, const T *y, T *dx,
                                     int64_t outer, int64_t L, int64_t inner) {
  CKPT_GRID_LOOP(line, outer * inner) {
    int64_t base = (line / inner) * L * inner + line % inner;
    float s = 0.0f;
    for (int64_t j = 0; j < L; ++j) {
      int64_t e = base + j * inner;
      s += Log ? toF32(dy[e]) : toF32(dy[e]) * toF32(y[e]);
    }
    for (int64_t j = 0; j < L; ++j) {
      int64_t e = base + j * inner;
      float gj = toF32(dy[e]), yj = toF32(y[e]);
      dx[e] = fromF32<T>(Log ? gj - expf(yj) * s : yj * (gj - s));
    }
  }
}

/// Row `r` of the cross-entropy: its target, or -1 for an ignored row, or -2
/// for a target outside `[0, C)`.
template <typename I>
__device__ __forceinline__ int64_t ceTarget(const I *targets, int64_t r,
                                            int64_t C, int64_t ignore) {
  int64_t t = static_cast<int64_t>(targets[r]);
  if (t == ignore)
    return -1;
  return t >= 0 && t < C ? t : -2;
}

/// lse per row and, for reduction `none`, the row loss (0 for ignored rows,
/// NaN for a target out of range).
template <typename T, typename I>
__global__ void crossEntropyRowKernel(const T *x, const I *targets, float *lse,
                                      T *rowLoss, int64_t rows, int64_t C,
                                      int64_t ignore) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *xr = x + r * C;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < C; j += blockDim.x)
      m = fmaxf(m, toF32(xr[j]));
    m = blockMax(m, scratch);
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < C; j += blockDim.x)
      s += expf(toF32(xr[j]) - m);
    s = blockSum(s, scratch);
    if (threadIdx.x == 0) {
      float l = m + logf(s);
      lse[r] = l;
      if (rowLoss) {
        int64_t t = ceTarget(targets, r, C, ignore);
        rowLoss[r] = fromF32<T>(t == -1   ? 0.0f
                                : t == -2 ? NAN
                                          : l - toF32(xr[t]));
      }
    }
  }
}

/// One block: the sum of the row losses (`lse - x[target]`) over counted
/// rows, divided by their number for `mean`; also stores the count in
/// `countOut` when given.
template <typename T, typename I>
__global__ void crossEntropyReduceKernel(const T *x, const I *targets,
                                         const float *lse, T *loss,
                                         float *countOut, int64_t rows,
                                         int64_t C, int64_t ignore, bool mean) {
  __shared__ float scratch[32];
  float sum = 0.0f, count = 0.0f;
  for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) {
    int64_t t = ceTarget(targets, r, C, ignore);
    if (t == -1)
      continue;
    sum += t == -2 ? NAN : lse[r] - toF32(x[r * C + t]);
    count += 1.0f;
  }
  sum = blockSum(sum, scratch);
  count = blockSum(count, scratch);
  if (threadIdx.x == 0) {
    if (loss)
      loss[0] = fromF32<T>(mean ? sum / count : sum);
    if (countOut)
      countOut[0] = count;
  }
}

/// dlogits = (exp(x - lse) - onehot(target)) * g (/ count for mean), zero for
/// ignored rows.
template <typename T, typename I>
__global__ void crossEntropyGradKernel(const T *g, const T *x, const I *targets,
                                       const float *lse, const float *count,
                                       T *dx, int64_t rows, int64_t C,
                                       int64_t ignore, int mode) {
  CKPT_GRID_LOOP(e, rows * C) {
    int64_t r = e / C, c = e % C;
    int64_t t = ceTarget(targets, r, C, ignore);
    float out;
    if (t == -1) {
      out = 0.0f;
    } else {
      float scale = mode == 2 ? toF32(g[r]) : toF32(g[0]);
      if (mode == 0)
        scale /= count[0];
      float p = expf(toF32(x[e]) - lse[r]);
      out = (t == -2 ? NAN : p - (c == t ? 1.0f : 0.0f)) * scale;
    }
    dx[e] = fromF32<T>(out);
  }
}

/// One block: the sum of `(x - t)^2` (each difference and square in f32,
/// as PyTorch forms them), each thread adding its strided elements in double
/// and the block adding the partial sums in a fixed order; divided by `n`
/// for `mean`.
template <typename T>
__global__ void mseLossKernel(const T *x, const T *t, T *loss, int64_t n,
                              bool mean) {
  __shared__ float scratch[32];
  double partial = 0.0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    float d = toF32(x[i]) - toF32(t[i]);
    partial += static_cast<double>(d * d);
  }
  float sum = blockSum(static_cast<float>(partial), scratch);
  if (threadIdx.x == 0)
    loss[0] = fromF32<T>(mean ? static_cast<float>(static_cast<double>(sum) /
                                                   static_cast<double>(n))
                              : sum);
}

/// aten.mse_loss_backward: `(alpha * (x - t)) * g` with `alpha` 2/N or 2.
template <typename T>
__global__ void mseLossGradKernel(const T *g, const T *x, const T *t, T *dx,
                                  int64_t n, float alpha) {
  CKPT_GRID_LOOP(i, n) {
    dx[i] = fromF32<T>(alpha * (toF32(x[i]) - toF32(t[i])) * toF32(g[0]));
  }
}

/// 0 mean, 1 sum, 2 none.
int lossReduction(const Attrs &attrs) {
  const char *r = attrs.getString("reduction");
  if (std::strcmp(r, "mean") == 0)
    return 0;
  if (std::strcmp(r, "sum") == 0)
    return 1;
  if (std::strcmp(r, "none") == 0)
    return 2;
  fail(std::string("unknown loss reduction '") + r + "'");
}

/// The reduction of an `mse_loss` call: 0 mean, 1 sum (`none` refused).
int mseReduction(const Attrs &attrs, const char *op) {
  int mode = lossReduction(attrs);
  if (mode == 2)
    fail(std::string(op) + ": reduction 'none' is not supported");
  return mode;
}

unsigned rowGrid(int64_t rows) {
  return static_cast<unsigned>(
      std::min<int64_t>(std::max<int64_t>(rows, 1), 65535));
}

template <bool Log>
void launchSoftmax(CudaExecContext &ctx, TensorList operands,
                   TensorList results, const Attrs &attrs, const char *name) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  requireFloat(x, name);
  requireSameType(x, y, name);
  requireSameShape(x, y, name);
  AxisView v = axisView(x, attrs.getInt("axis"));
  if (x.numel() == 0)
    return;
  dispatchFloat(x.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    if (v.inner == 1)
      softmaxRowKernel<T, Log>
          <<<rowGrid(v.outer), kRowBlock, 0, streamOf(ctx)>>>(
              x.as<const T>(), y.as<T>(), v.outer, v.extent);
    else
      softmaxColKernel<T, Log>
          <<<gridFor(v.outer * v.inner), kBlock, 0, streamOf(ctx)>>>(
              x.as<const T>(), y.as<T>(), v.outer, v.extent, v.inner);
  });
  CKPT_LAUNCH_CHECK(ctx, name);
}

template <bool Log>
void launchSoftmaxGrad(CudaExecContext &ctx, TensorList operands,
                       TensorList results, const Attrs &attrs,
                       const char *name) {
  const Tensor &dy = get(operands, 0, "grad"), &y = get(operands, 1, "output");
  const Tensor &dx = get(results, 0, "result");
  requireFloat(dy, name);
  requireSameType(dy, y, name);
  requireSameType(dy, dx, name);
  requireSameShape(dy, y, name);
  requireSameShape(dy, dx, name);
  AxisView v = axisView(dy, attrs.getInt("axis"));
  if (dy.numel() == 0)
    return;
  dispatchFloat(dy.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    if (v.inner == 1)
      softmaxGradRowKernel<T, Log>
          <<<rowGrid(v.outer), kRowBlock, 0, streamOf(ctx)>>>(
              dy.as<const T>(), y.as<const T>(), dx.as<T>(), v.outer, v.extent);
    else
      softmaxGradColKernel<T, Log>
          <<<gridFor(v.outer * v.inner), kBlock, 0, streamOf(ctx)>>>(
              dy.as<const T>(), y.as<const T>(), dx.as<T>(), v.outer, v.extent,
              v.inner);
  });
  CKPT_LAUNCH_CHECK(ctx, name);
}

/// Calls `body(I{})` with the C++ type of index tensor `t`.
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

/// Rows and classes of a cross-entropy call, checked.
void crossEntropyShape(const Tensor &x, const Tensor &t, int64_t &rows,
                       int64_t &C, const char *name) {
  if (x.rank < 1)
    fail(std::string(name) + ": logits need rank >= 1");
  C = x.shape[x.rank - 1];
  rows = C == 0 ? 0 : x.numel() / C;
  if (t.numel() != rows || t.rank != x.rank - 1)
    fail(std::string(name) + ": targets " + shapeString(t) +
         " do not match logits " + shapeString(x));
}

} // namespace

namespace kernels {

void softmax(CudaExecContext &ctx, TensorList operands, TensorList results,
             const Attrs &attrs, const Tensor &) {
  launchSoftmax<false>(ctx, operands, results, attrs, "softmax");
}
void log_softmax(CudaExecContext &ctx, TensorList operands, TensorList results,
                 const Attrs &attrs, const Tensor &) {
  launchSoftmax<true>(ctx, operands, results, attrs, "log_softmax");
}
void softmax_grad(CudaExecContext &ctx, TensorList operands, TensorList results,
                  const Attrs &attrs, const Tensor &) {
  launchSoftmaxGrad<false>(ctx, operands, results, attrs, "softmax_grad");
}
void log_softmax_grad(CudaExecContext &ctx, TensorList operands,
                      TensorList results, const Attrs &attrs, const Tensor &) {
  launchSoftmaxGrad<true>(ctx, operands, results, attrs, "log_softmax_grad");
}

void cross_entropy(CudaExecContext &ctx, TensorList operands,
                   TensorList results, const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "logits"),
               &t = get(operands, 1, "targets");
  const Tensor &loss = get(results, 0, "loss"), &lse = get(results, 1, "lse");
  requireFloat(x, "cross_entropy");
  requireSameType(x, loss, "cross_entropy loss");
  requireF32(lse, "cross_entropy lse");
  int mode = lossReduction(attrs);
  int64_t ignore = attrs.getInt("ignore_index", -100);
  int64_t rows, C;
  crossEntropyShape(x, t, rows, C, "cross_entropy");
  requireNumel(lse, rows, "cross_entropy lse");
  if (mode == 2)
    requireNumel(loss, rows, "cross_entropy loss");
  else if (loss.numel() != 1)
    fail("cross_entropy: loss " + shapeString(loss) +
         " does not fit the reduction");
  cudaStream_t s = streamOf(ctx);
  dispatchFloat(x.dtype, "cross_entropy", [&](auto tag) {
    using T = decltype(tag);
    dispatchIndex(t, "cross_entropy", [&](auto itag) {
      using I = decltype(itag);
      if (rows > 0 && C > 0)
        crossEntropyRowKernel<T, I><<<rowGrid(rows), kRowBlock, 0, s>>>(
            x.as<const T>(), t.as<const I>(), lse.as<float>(),
            mode == 2 ? loss.as<T>() : nullptr, rows, C, ignore);
      CKPT_LAUNCH_CHECK(ctx, "cross_entropy rows");
      if (mode != 2)
        crossEntropyReduceKernel<T, I><<<1, kLossBlock, 0, s>>>(
            x.as<const T>(), t.as<const I>(), lse.as<const float>(),
            loss.as<T>(), nullptr, rows, C, ignore, mode == 0);
    });
  });
  CKPT_LAUNCH_CHECK(ctx, "cross_entropy");
}

void cross_entropy_grad(CudaExecContext &ctx, TensorList operands,
                        TensorList results, const Attrs &attrs,
                        const Tensor &) {
  const Tensor &g = get(operands, 0, "grad"), &x = get(operands, 1, "logits");
  const Tensor &t = get(operands, 2, "targets"), &lse = get(operands, 3, "lse");
  const Tensor &dx = get(results, 0, "result");
  requireFloat(x, "cross_entropy_grad");
  requireSameType(x, g, "cross_entropy_grad");
  requireSameType(x, dx, "cross_entropy_grad");
  requireSameShape(x, dx, "cross_entropy_grad");
  requireF32(lse, "cross_entropy_grad lse");
  int mode = lossReduction(attrs);
  int64_t ignore = attrs.getInt("ignore_index", -100);
  int64_t rows, C;
  crossEntropyShape(x, t, rows, C, "cross_entropy_grad");
  requireNumel(lse, rows, "cross_entropy_grad lse");
  if (g.numel() != (mode == 2 ? rows : 1))
    fail("cross_entropy_grad: grad " + shapeString(g) +
         " does not fit the reduction");
  if (rows == 0 || C == 0)
    return;
  cudaStream_t s = streamOf(ctx);
  float *count = static_cast<float *>(ctx.deviceScalars());
  dispatchFloat(x.dtype, "cross_entropy_grad", [&](auto tag) {
    using T = decltype(tag);
    dispatchIndex(t, "cross_entropy_grad", [&](auto itag) {
      using I = decltype(itag);
      if (mode == 0) {
        crossEntropyReduceKernel<T, I><<<1, kLossBlock, 0, s>>>(
            x.as<const T>(), t.as<const I>(), lse.as<const float>(), nullptr,
            count, rows, C, ignore, true);
        CKPT_LAUNCH_CHECK(ctx, "cross_entropy_grad count");
      }
      crossEntropyGradKernel<T, I><<<gridFor(rows * C), kBlock, 0, s>>>(
          g.as<const T>(), x.as<const T>(), t.as<const I>(),
          lse.as<const float>(), count, dx.as<T>(), rows, C, ignore, mode);
    });
  });
  CKPT_LAUNCH_CHECK(ctx, "cross_entropy_grad");
}

void mse_loss(CudaExecContext &ctx, TensorList operands, TensorList results,
              const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &t = get(operands, 1, "target");
  const Tensor &loss = get(results, 0, "loss");
  requireFloat(x, "mse_loss");
  requireSameType(x, t, "mse_loss target");
  requireSameShape(x, t, "mse_loss target");
  requireSameType(x, loss, "mse_loss loss");
  requireNumel(loss, 1, "mse_loss loss");
  int mode = mseReduction(attrs, "mse_loss");
  dispatchFloat(x.dtype, "mse_loss", [&](auto tag) {
    using T = decltype(tag);
    mseLossKernel<T><<<1, kLossBlock, 0, streamOf(ctx)>>>(
        x.as<const T>(), t.as<const T>(), loss.as<T>(), x.numel(), mode == 0);
  });
  CKPT_LAUNCH_CHECK(ctx, "mse_loss");
}

void mse_loss_grad(CudaExecContext &ctx, TensorList operands,
                   TensorList results, const Attrs &attrs, const Tensor &) {
  const Tensor &g = get(operands, 0, "grad"), &x = get(operands, 1, "input");
  const Tensor &t = get(operands, 2, "target");
  const Tensor &dx = get(results, 0, "result");
  requireFloat(x, "mse_loss_grad");
  requireSameType(x, g, "mse_loss_grad grad");
  requireSameType(x, t, "mse_loss_grad target");
  requireSameType(x, dx, "mse_loss_grad");
  requireSameShape(x, t, "mse_loss_grad target");
  requireSameShape(x, dx, "mse_loss_grad");
  requireNumel(g, 1, "mse_loss_grad grad");
  int mode = mseReduction(attrs, "mse_loss_grad");
  int64_t n = x.numel();
  if (n == 0)
    return;
  float alpha =
      mode == 1 ? 2.0f : static_cast<float>(2.0 / static_cast<double>(n));
  dispatchFloat(x.dtype, "mse_loss_grad", [&](auto tag) {
    using T = decltype(tag);
    mseLossGradKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        g.as<const T>(), x.as<const T>(), t.as<const T>(), dx.as<T>(), n,
        alpha);
  });
  CKPT_LAUNCH_CHECK(ctx, "mse_loss_grad");
}

} // namespace kernels
} // namespace ckpt::rt::cuda
