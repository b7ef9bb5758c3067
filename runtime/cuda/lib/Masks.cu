//===- Masks.cu - Device kernels of masks and position ids ----------------===//
//
// iota, compare, select, the logical ops on i1, neg / abs / minimum / maximum
// (floats and integers), tril / triu, pad and gather,
// with the semantics of the host kernels (runtime/lib/KernelsMask.cpp) and
// the call checks they share (ckpt/Runtime/Kernels.h). Kernels that do not
// look at values move elements by their byte size, so every dtype works.
// The i32 / i64 path of add, sub and mul (position ids) is here too.
// gather cannot report a bad index from the device: it never reads outside
// the input and stores NaN (floats) or 0 (integers, i1) instead.
//
//===----------------------------------------------------------------------===//
#include "DeviceCommon.cuh"

#include <cstring>
#include <type_traits>

namespace ckpt::rt::cuda {
using namespace detail;

namespace {

/// Row-major geometry of a result and of the tensor its elements come from.
struct CopyMap {
  int rank = 0;
  int64_t shape[kMaxIndexRank] = {};    // The result's.
  int64_t inShape[kMaxIndexRank] = {};  // The source's.
  int64_t inStride[kMaxIndexRank] = {}; // The source's, in elements.
  int64_t low[kMaxIndexRank] = {};      // pad: the leading pads.
  int dim = 0;                          // gather: the gathered dimension.
};

CopyMap copyMap(const Tensor &result, const Tensor &source) {
  CopyMap m;
  m.rank = result.rank;
  for (int d = 0; d < result.rank; ++d) {
    m.shape[d] = result.shape[d];
    m.inShape[d] = source.shape[d];
  }
  rowMajorStrides(source.shape, source.rank, m.inStride);
  return m;
}

//===----------------------------------------------------------------------===//
// Device code
//===----------------------------------------------------------------------===//

/// The value a comparison looks at: f16 / bf16 widen exactly to f32.
template <typename T> __device__ __forceinline__ T cmpValue(T v) { return v; }
__device__ __forceinline__ float cmpValue(__half v) { return __half2float(v); }
__device__ __forceinline__ float cmpValue(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <typename T>
__global__ void compareKernel(const T *a, StridedMap ma, const T *b,
                              StridedMap mb, uint8_t *out, int64_t n,
                              int pred) {
  CKPT_GRID_LOOP(i, n) {
    auto x = cmpValue(a[ma.offset(i)]);
    auto y = cmpValue(b[mb.offset(i)]);
    bool r = false;
    switch (static_cast<ComparePredicate>(pred)) {
    case ComparePredicate::Eq: r = x == y; break;
    case ComparePredicate::Ne: r = x != y; break;
    case ComparePredicate::Lt: r = x < y; break;
    case ComparePredicate::Le: r = x <= y; break;
    case ComparePredicate::Gt: r = x > y; break;
    case ComparePredicate::Ge: r = x >= y; break;
    }
    out[i] = r ? 1 : 0;
  }
}

template <typename U>
__global__ void selectKernel(const uint8_t *c, StridedMap mc, const U *t,
                             StridedMap mt, const U *f, StridedMap mf, U *out,
                             int64_t n) {
  CKPT_GRID_LOOP(i, n) {
    out[i] = c[mc.offset(i)] ? t[mt.offset(i)] : f[mf.offset(i)];
  }
}

/// op 0: not, 1: and, 2: or (the not's `b` is unused).
__global__ void logicalKernel(const uint8_t *a, StridedMap ma,
                              const uint8_t *b, StridedMap mb, uint8_t *out,
                              int64_t n, int op) {
  CKPT_GRID_LOOP(i, n) {
    bool x = a[ma.offset(i)] != 0;
    bool r = op == 0 ? !x
             : op == 1 ? x && b[mb.offset(i)] != 0
                       : x || b[mb.offset(i)] != 0;
    out[i] = r ? 1 : 0;
  }
}

/// Keeps `j - i <= k` (lower) or `j - i >= k` (upper) of the last two
/// dimensions `[rows, cols]`.
template <typename U>
__global__ void triangleKernel(const U *x, U *y, int64_t n, int64_t rows,
                               int64_t cols, int64_t k, bool lower) {
  CKPT_GRID_LOOP(e, n) {
    int64_t j = e % cols, i = (e / cols) % rows;
    bool keep = lower ? j - i <= k : j - i >= k;
    U v = x[e];
    y[e] = keep ? v : U(0);
  }
}

/// PyTorch's CPU arange rounding (docs/dialect.md): accumulate in `A`, blocks
/// of `V` elements over the leading multiple of `2V`.
template <typename T, typename A, int V>
__global__ void iotaFloatKernel(T *y, int64_t n, A start, A step) {
  int64_t blocked = n / (2 * V) * (2 * V);
  CKPT_GRID_LOOP(i, n) {
    if (i < blocked) {
      int64_t b = i / V * V;
      T base = static_cast<T>(start + step * static_cast<A>(b));
      y[i] = static_cast<T>(static_cast<A>(base) + static_cast<A>(i - b) * step);
    } else {
      y[i] = static_cast<T>(start + step * static_cast<A>(i));
    }
  }
}

template <typename I>
__global__ void iotaIntKernel(I *y, int64_t n, int64_t start, int64_t step) {
  CKPT_GRID_LOOP(i, n) { y[i] = static_cast<I>(start + i * step); }
}

template <typename U>
__global__ void padKernel(const U *x, U *y, CopyMap m, int64_t n, U value) {
  CKPT_GRID_LOOP(e, n) {
    int64_t rest = e, off = 0;
    bool inside = true;
    for (int d = m.rank - 1; d >= 0; --d) {
      int64_t idx = rest % m.shape[d] - m.low[d];
      rest /= m.shape[d];
      inside = inside && idx >= 0 && idx < m.inShape[d];
      off += idx * m.inStride[d];
    }
    y[e] = inside ? x[off] : value;
  }
}

template <typename U>
__global__ void gatherDimKernel(const U *x, const int64_t *index, U *y,
                                CopyMap m, int64_t n, U bad) {
  CKPT_GRID_LOOP(e, n) {
    int64_t rest = e, off = 0;
    int64_t at = index[e];
    bool inside = at >= 0 && at < m.inShape[m.dim];
    for (int d = m.rank - 1; d >= 0; --d) {
      int64_t c = rest % m.shape[d];
      rest /= m.shape[d];
      off += (d == m.dim ? at : c) * m.inStride[d];
    }
    y[e] = inside ? x[off] : bad;
  }
}

/// Integer `a op b` wrapping around: computed on the unsigned type.
template <typename T>
__global__ void integerArithmeticKernel(const T *a, StridedMap ma, const T *b,
                                        StridedMap mb, T *out, int64_t n,
                                        char op) {
  using U = std::make_unsigned_t<T>;
  CKPT_GRID_LOOP(i, n) {
    U u = static_cast<U>(a[ma.offset(i)]), v = static_cast<U>(b[mb.offset(i)]);
    U w = op == '+' ? U(u + v) : op == '-' ? U(u - v) : U(u * v);
    out[i] = static_cast<T>(w);
  }
}

/// `-v` (or `|v|` with `abs`): integers wrap around (two's complement, the
/// minimum maps to itself); f16 / bf16 go through f32, where both are exact.
template <typename T>
__device__ __forceinline__ T negOrAbs(T v, bool abs) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    T neg = static_cast<T>(U{0} - static_cast<U>(v));
    return abs && v >= 0 ? v : neg;
  } else {
    float f = toF32(v);
    return fromF32<T>(abs ? fabsf(f) : -f);
  }
}

template <typename T>
__global__ void signKernel(const T *x, T *y, int64_t n, bool abs) {
  CKPT_GRID_LOOP(i, n) { y[i] = negOrAbs(x[i], abs); }
}

/// `lhs < rhs ? lhs : rhs` (`takeMin`) or `lhs > rhs ? lhs : rhs`, NaN where
/// either float operand is NaN: the host kernels' minimum / maximum.
template <typename T>
__global__ void extremumKernel(const T *a, StridedMap ma, const T *b,
                               StridedMap mb, T *out, int64_t n, bool takeMin) {
  CKPT_GRID_LOOP(i, n) {
    T u = a[ma.offset(i)], v = b[mb.offset(i)];
    auto x = cmpValue(u), y = cmpValue(v);
    T r = (takeMin ? x < y : x > y) ? u : v;
    if constexpr (!std::is_integral_v<T>) {
      if (x != x || y != y)
        r = fromF32<T>(__int_as_float(0x7fc00000));
    }
    out[i] = r;
  }
}

//===----------------------------------------------------------------------===//
// Host helpers
//===----------------------------------------------------------------------===//

/// The broadcast map of `t` onto `r`, or a KernelError naming `what`.
StridedMap broadcastMap(const Tensor &t, const Tensor &r, const char *what) {
  StridedMap m;
  if (!makeBroadcastMap(t.shape, t.rank, r.shape, r.rank, m))
    fail(std::string(what) + " " + shapeString(t) + " does not broadcast to " +
         shapeString(r));
  return m;
}

void requireType(const Tensor &t, DType type, const char *what) {
  if (t.dtype != type)
    fail(std::string(what) + " must be " + dtypeName(type) + ", got " +
         shapeString(t));
}

/// The bits of `v` stored as an element of `type`, in a U of its size
/// (little-endian: the low bytes of the widest encoding).
template <typename U> U bitsOf(double v, DType type) {
  uint64_t raw = 0;
  auto put = [&raw](const auto &value) {
    std::memcpy(&raw, &value, sizeof value);
  };
  switch (type) {
  case DType::F32: put(static_cast<float>(v)); break;
  case DType::F16: put(__double2half(v)); break;
  case DType::BF16: put(__double2bfloat16(v)); break;
  case DType::I1: put(static_cast<uint8_t>(v != 0.0)); break;
  case DType::I32: put(static_cast<int32_t>(v)); break;
  case DType::I64: put(static_cast<int64_t>(v)); break;
  }
  U bits;
  std::memcpy(&bits, &raw, sizeof bits);
  return bits;
}

void launchLogical(CudaExecContext &ctx, TensorList operands,
                   TensorList results, int op, const char *name) {
  const Tensor &a = get(operands, 0, op == 0 ? "input" : "lhs");
  const Tensor &r = get(results, 0, "result");
  const Tensor &b = op == 0 ? a : get(operands, 1, "rhs");
  requireType(a, DType::I1, name);
  requireType(b, DType::I1, name);
  requireType(r, DType::I1, name);
  if (op == 0)
    requireSameShape(a, r, name);
  StridedMap ma = broadcastMap(a, r, "lhs"), mb = broadcastMap(b, r, "rhs");
  int64_t n = r.numel();
  if (n == 0)
    return;
  logicalKernel<<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
      a.as<const uint8_t>(), ma, b.as<const uint8_t>(), mb, r.as<uint8_t>(), n,
      op);
  CKPT_LAUNCH_CHECK(ctx, name);
}

void launchTriangle(CudaExecContext &ctx, TensorList operands,
                    TensorList results, const Attrs &attrs, bool lower,
                    const char *name) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  requireSameType(x, y, name);
  requireSameShape(x, y, name);
  if (x.rank < 2)
    fail(std::string(name) + ": the input must have rank 2 or more, got " +
         shapeString(x));
  int64_t n = x.numel(), rows = x.shape[x.rank - 2], cols = x.shape[x.rank - 1];
  if (n == 0)
    return;
  int64_t k = attrs.getInt("diagonal", 0);
  dispatchBytes(x.dtype, [&](auto tag) {
    using U = decltype(tag);
    triangleKernel<U><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        x.as<const U>(), y.as<U>(), n, rows, cols, k, lower);
  });
  CKPT_LAUNCH_CHECK(ctx, name);
}

/// Calls `body(T{})` with T the C++ type of a float or signed integer
/// `type` (f32, f16, bf16, i32, i64).
template <typename Body>
void dispatchNumeric(DType type, const char *what, Body body) {
  switch (type) {
  case DType::I32: body(int32_t{}); return;
  case DType::I64: body(int64_t{}); return;
  default: dispatchFloat(type, what, body);
  }
}

void launchSign(CudaExecContext &ctx, TensorList operands, TensorList results,
                bool abs, const char *name) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  requireSameType(x, y, name);
  requireSameShape(x, y, name);
  int64_t n = x.numel();
  if (n == 0)
    return;
  dispatchNumeric(x.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    signKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(x.as<const T>(),
                                                            y.as<T>(), n, abs);
  });
  CKPT_LAUNCH_CHECK(ctx, name);
}

void launchExtremum(CudaExecContext &ctx, TensorList operands,
                    TensorList results, bool takeMin, const char *name) {
  const Tensor &a = get(operands, 0, "lhs"), &b = get(operands, 1, "rhs");
  const Tensor &r = get(results, 0, "result");
  requireSameType(a, r, name);
  requireSameType(b, r, name);
  StridedMap ma = broadcastMap(a, r, "lhs"), mb = broadcastMap(b, r, "rhs");
  int64_t n = r.numel();
  if (n == 0)
    return;
  dispatchNumeric(r.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    extremumKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        a.as<const T>(), ma, b.as<const T>(), mb, r.as<T>(), n, takeMin);
  });
  CKPT_LAUNCH_CHECK(ctx, name);
}

} // namespace

bool detail::launchIntegerArithmetic(CudaExecContext &ctx, TensorList operands,
                                     TensorList results, char op,
                                     const char *name) {
  const Tensor &r = get(results, 0, "result");
  if (r.dtype != DType::I32 && r.dtype != DType::I64)
    return false;
  const Tensor &a = get(operands, 0, "lhs"), &b = get(operands, 1, "rhs");
  requireSameType(a, r, name);
  requireSameType(b, r, name);
  StridedMap ma = broadcastMap(a, r, "lhs"), mb = broadcastMap(b, r, "rhs");
  int64_t n = r.numel();
  if (n == 0)
    return true;
  auto launch = [&](auto tag) {
    using T = decltype(tag);
    integerArithmeticKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        a.as<const T>(), ma, b.as<const T>(), mb, r.as<T>(), n, op);
  };
  if (r.dtype == DType::I32)
    launch(int32_t{});
  else
    launch(int64_t{});
  CKPT_LAUNCH_CHECK(ctx, name);
  return true;
}

namespace kernels {

void iota(CudaExecContext &ctx, TensorList, TensorList results,
          const Attrs &attrs, const Tensor &) {
  const Tensor &y = get(results, 0, "result");
  requireRank(y, 1, "iota result");
  IotaParams p = iotaParams(attrs, y);
  int64_t n = y.shape[0];
  if (n == 0)
    return;
  cudaStream_t s = streamOf(ctx);
  switch (y.dtype) {
  case DType::I32:
    iotaIntKernel<int32_t><<<gridFor(n), kBlock, 0, s>>>(
        y.as<int32_t>(), n, p.startInt, p.stepInt);
    break;
  case DType::I64:
    iotaIntKernel<int64_t><<<gridFor(n), kBlock, 0, s>>>(
        y.as<int64_t>(), n, p.startInt, p.stepInt);
    break;
  case DType::F32:
    iotaFloatKernel<float, double, 8>
        <<<gridFor(n), kBlock, 0, s>>>(y.as<float>(), n, p.start, p.step);
    break;
  case DType::F16:
    iotaFloatKernel<__half, float, 16><<<gridFor(n), kBlock, 0, s>>>(
        y.as<__half>(), n, static_cast<float>(p.start),
        static_cast<float>(p.step));
    break;
  case DType::BF16:
    iotaFloatKernel<__nv_bfloat16, float, 16><<<gridFor(n), kBlock, 0, s>>>(
        y.as<__nv_bfloat16>(), n, static_cast<float>(p.start),
        static_cast<float>(p.step));
    break;
  default:
    fail("iota: the result must be f32, f16, bf16, i32 or i64");
  }
  CKPT_LAUNCH_CHECK(ctx, "iota");
}

void compare(CudaExecContext &ctx, TensorList operands, TensorList results,
             const Attrs &attrs, const Tensor &) {
  const Tensor &a = get(operands, 0, "lhs"), &b = get(operands, 1, "rhs");
  const Tensor &r = get(results, 0, "result");
  requireType(r, DType::I1, "compare result");
  requireSameType(a, b, "compare");
  int pred = static_cast<int>(comparePredicate(attrs));
  StridedMap ma = broadcastMap(a, r, "lhs"), mb = broadcastMap(b, r, "rhs");
  int64_t n = r.numel();
  if (n == 0)
    return;
  auto launch = [&](auto tag) {
    using T = decltype(tag);
    compareKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        a.as<const T>(), ma, b.as<const T>(), mb, r.as<uint8_t>(), n, pred);
  };
  switch (a.dtype) {
  case DType::I1: launch(uint8_t{}); break;
  case DType::I32: launch(int32_t{}); break;
  case DType::I64: launch(int64_t{}); break;
  default: dispatchFloat(a.dtype, "compare", launch);
  }
  CKPT_LAUNCH_CHECK(ctx, "compare");
}

void select(CudaExecContext &ctx, TensorList operands, TensorList results,
            const Attrs &, const Tensor &) {
  const Tensor &c = get(operands, 0, "cond"), &t = get(operands, 1, "on_true"),
               &f = get(operands, 2, "on_false");
  const Tensor &r = get(results, 0, "result");
  requireType(c, DType::I1, "select cond");
  requireSameType(t, r, "select");
  requireSameType(f, r, "select");
  StridedMap mc = broadcastMap(c, r, "cond"), mt = broadcastMap(t, r, "on_true"),
             mf = broadcastMap(f, r, "on_false");
  int64_t n = r.numel();
  if (n == 0)
    return;
  dispatchBytes(r.dtype, [&](auto tag) {
    using U = decltype(tag);
    selectKernel<U><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        c.as<const uint8_t>(), mc, t.as<const U>(), mt, f.as<const U>(), mf,
        r.as<U>(), n);
  });
  CKPT_LAUNCH_CHECK(ctx, "select");
}

void logical_not(CudaExecContext &ctx, TensorList operands, TensorList results,
                 const Attrs &, const Tensor &) {
  launchLogical(ctx, operands, results, 0, "logical_not");
}

void logical_and(CudaExecContext &ctx, TensorList operands, TensorList results,
                 const Attrs &, const Tensor &) {
  launchLogical(ctx, operands, results, 1, "logical_and");
}

void logical_or(CudaExecContext &ctx, TensorList operands, TensorList results,
                const Attrs &, const Tensor &) {
  launchLogical(ctx, operands, results, 2, "logical_or");
}

void neg(CudaExecContext &ctx, TensorList operands, TensorList results,
         const Attrs &, const Tensor &) {
  launchSign(ctx, operands, results, /*abs=*/false, "neg");
}

void abs(CudaExecContext &ctx, TensorList operands, TensorList results,
         const Attrs &, const Tensor &) {
  launchSign(ctx, operands, results, /*abs=*/true, "abs");
}

void minimum(CudaExecContext &ctx, TensorList operands, TensorList results,
             const Attrs &, const Tensor &) {
  launchExtremum(ctx, operands, results, /*takeMin=*/true, "minimum");
}

void maximum(CudaExecContext &ctx, TensorList operands, TensorList results,
             const Attrs &, const Tensor &) {
  launchExtremum(ctx, operands, results, /*takeMin=*/false, "maximum");
}

void tril(CudaExecContext &ctx, TensorList operands, TensorList results,
          const Attrs &attrs, const Tensor &) {
  launchTriangle(ctx, operands, results, attrs, /*lower=*/true, "tril");
}

void triu(CudaExecContext &ctx, TensorList operands, TensorList results,
          const Attrs &attrs, const Tensor &) {
  launchTriangle(ctx, operands, results, attrs, /*lower=*/false, "triu");
}

void pad(CudaExecContext &ctx, TensorList operands, TensorList results,
         const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  const int64_t *low = padLow(x, y, attrs);
  double value = attrs.getFloat("value");
  if (y.dtype == DType::I1 && value != 0.0 && value != 1.0)
    fail("pad: an i1 pad value must be 0 or 1");
  CopyMap m = copyMap(y, x);
  for (int d = 0; d < y.rank; ++d)
    m.low[d] = low[d];
  int64_t n = y.numel();
  if (n == 0)
    return;
  dispatchBytes(y.dtype, [&](auto tag) {
    using U = decltype(tag);
    padKernel<U><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        x.as<const U>(), y.as<U>(), m, n, bitsOf<U>(value, y.dtype));
  });
  CKPT_LAUNCH_CHECK(ctx, "pad");
}

void gather(CudaExecContext &ctx, TensorList operands, TensorList results,
            const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &idx = get(operands, 1, "index");
  const Tensor &y = get(results, 0, "result");
  CopyMap m = copyMap(y, x);
  m.dim = gatherDim(x, idx, y, attrs);
  int64_t n = y.numel();
  if (n == 0)
    return;
  double bad = isFloat(y.dtype) ? NAN : 0.0;
  dispatchBytes(y.dtype, [&](auto tag) {
    using U = decltype(tag);
    gatherDimKernel<U><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        x.as<const U>(), idx.as<const int64_t>(), y.as<U>(), m, n,
        bitsOf<U>(bad, y.dtype));
  });
  CKPT_LAUNCH_CHECK(ctx, "gather");
}

} // namespace kernels
} // namespace ckpt::rt::cuda
