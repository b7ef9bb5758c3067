//===- Elementwise.cu - Elementwise device kernels ------------------------===//
//
// Unary arithmetic and activations (neg, on integers too, is in Masks.cu),
// their gradients, broadcasting binary arithmetic, convert, fill, dropout on
// Philox, and the optimizer updates.
// Every element is independent: grid-stride loops, results independent of the
// launch geometry.
//
//===----------------------------------------------------------------------===//
#include "DeviceCommon.cuh"

#include "ckpt/Runtime/Cuda/Philox.cuh"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ckpt::rt::cuda {
using namespace detail;

namespace {

enum UnaryOp : int {
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kTanh,
  kPow,
  kRelu,
  kSigmoid,
  kSilu,
  kGeluErf,
  kGeluTanh,
  kClamp,
  kSin,
  kCos,
  kHardswish,
  kHardsigmoid
};
enum GradOp : int {
  kReluGrad,
  kSigmoidGrad,
  kTanhGrad,
  kSiluGrad,
  kGeluErfGrad,
  kGeluTanhGrad,
  kClampGrad,
  kHardswishGrad,
  kHardsigmoidGrad
};
enum BinaryOp : int { kAdd, kSub, kMul, kDiv };

constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kGeluCoeff = 0.044715f;
constexpr float kInvSqrt2 = 0.7071067811865476f;
constexpr float kInvSqrt2Pi = 0.3989422804014327f;

__device__ __forceinline__ float sigmoidf(float x) {
  return 1.0f / (1.0f + expf(-x));
}

/// `min(max(x + 3, 0), 6)` with comparisons (not fmaxf/fminf, which drop a
/// NaN): NaN propagates, as in PyTorch's hardswish and hardsigmoid.
__device__ __forceinline__ float relu6Shifted(float x) {
  float c = x + 3.0f;
  c = c < 0.0f ? 0.0f : c;
  return c > 6.0f ? 6.0f : c;
}

/// `Op` of `x`; `param` and `param2` are the exponent of pow and the bounds
/// of clamp.
template <int Op>
__device__ __forceinline__ float unaryOp(float x, float param, float param2) {
  switch (Op) {
  case kExp:
    return expf(x);
  case kLog:
    return logf(x);
  case kSqrt:
    return sqrtf(x);
  case kRsqrt:
    return 1.0f / sqrtf(x);
  case kTanh:
    return tanhf(x);
  case kPow:
    return powf(x, param);
  case kRelu:
    return x > 0.0f ? x : 0.0f;
  case kSigmoid:
    return sigmoidf(x);
  case kSilu:
    return x * sigmoidf(x);
  case kGeluErf:
    return 0.5f * x * (1.0f + erff(x * kInvSqrt2));
  case kGeluTanh: {
    float u = kSqrt2OverPi * (x + kGeluCoeff * x * x * x);
    return 0.5f * x * (1.0f + tanhf(u));
  }
  case kClamp: // Both comparisons are false on NaN, which propagates.
    return x < param ? param : (x > param2 ? param2 : x);
  case kSin:
    return sinf(x);
  case kCos:
    return cosf(x);
  case kHardswish: // The product first, then the division, as PyTorch.
    return x * relu6Shifted(x) / 6.0f;
  case kHardsigmoid:
    return relu6Shifted(x) / 6.0f;
  }
  return 0.0f;
}

/// The gradient `Op` from `dy` and the saved tensor `s`; `param` and
/// `param2` are the bounds of clamp.
template <int Op>
__device__ __forceinline__ float gradOp(float dy, float s, float param,
                                        float param2) {
  switch (Op) {
  case kReluGrad:
    return s > 0.0f ? dy : 0.0f;
  case kSigmoidGrad:
    return dy * s * (1.0f - s);
  case kTanhGrad:
    return dy * (1.0f - s * s);
  case kSiluGrad: {
    float sg = sigmoidf(s);
    return dy * sg * (1.0f + s * (1.0f - sg));
  }
  case kGeluErfGrad: {
    float cdf = 0.5f * (1.0f + erff(s * kInvSqrt2));
    float pdf = kInvSqrt2Pi * expf(-0.5f * s * s);
    return dy * (cdf + s * pdf);
  }
  case kGeluTanhGrad: {
    float s2 = s * s;
    float t = tanhf(kSqrt2OverPi * (s + kGeluCoeff * s2 * s));
    float du = kSqrt2OverPi * (1.0f + 3.0f * kGeluCoeff * s2);
    return dy * (0.5f * (1.0f + t) + 0.5f * s * (1.0f - t * t) * du);
  }
  case kClampGrad: // aten.hardtanh_backward: zero at and beyond the bounds.
    return s <= param || s >= param2 ? 0.0f : dy;
  case kHardswishGrad: // aten.hardswish_backward: NaN takes the middle.
    return s <= -3.0f ? 0.0f : (s >= 3.0f ? dy : dy * (s / 3.0f + 0.5f));
  case kHardsigmoidGrad: // aten.hardsigmoid_backward: zero at -3 and 3.
    return s > -3.0f && s < 3.0f ? dy * (1.0f / 6.0f) : 0.0f;
  }
  return 0.0f;
}

template <int Op> __device__ __forceinline__ float binaryOp(float a, float b) {
  switch (Op) {
  case kAdd:
    return a + b;
  case kSub:
    return a - b;
  case kMul:
    return a * b;
  case kDiv:
    return a / b;
  }
  return 0.0f;
}

template <typename T, int Op>
__global__ void unaryKernel(const T *x, T *y, int64_t n, float param,
                            float param2) {
  CKPT_GRID_LOOP(i, n) {
    y[i] = fromF32<T>(unaryOp<Op>(toF32(x[i]), param, param2));
  }
}

template <typename T, int Op>
__global__ void gradKernel(const T *dy, const T *saved, T *dx, int64_t n,
                           float param, float param2) {
  CKPT_GRID_LOOP(i, n) {
    dx[i] =
        fromF32<T>(gradOp<Op>(toF32(dy[i]), toF32(saved[i]), param, param2));
  }
}

/// `out = a op b`; an operand whose map is null-ranked (`rank < 0`) has the
/// result's shape and is read contiguously.
template <typename T, int Op>
__global__ void binaryKernel(const T *a, StridedMap ma, bool aDense, const T *b,
                             StridedMap mb, bool bDense, T *out, int64_t n) {
  CKPT_GRID_LOOP(i, n) {
    float va = toF32(a[aDense ? i : ma.offset(i)]);
    float vb = toF32(b[bDense ? i : mb.offset(i)]);
    out[i] = fromF32<T>(binaryOp<Op>(va, vb));
  }
}

/// One element in transit through `convert`: a float (f32/f16/bf16 widen
/// exactly to f32) or an integer (i1 stored as one byte, i32, i64).
struct AnyElement {
  bool isFloat;
  float f;
  long long i;
};

template <typename T>
__device__ __forceinline__ AnyElement loadAny(const T *p, int64_t k) {
  if constexpr (std::is_same_v<T, uint8_t>)
    return {false, 0.0f, p[k] != 0};
  else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>)
    return {false, 0.0f, static_cast<long long>(p[k])};
  else
    return {true, toF32(p[k]), 0};
}

/// `f` truncated toward zero to `Int`; NaN and out-of-range values give its
/// minimum, as the host kernel (and PyTorch on x86 CPUs). CUDA's own
/// conversion saturates instead, hence the explicit test.
template <typename Int> struct IntMin;
template <> struct IntMin<int32_t> {
  static constexpr int32_t value = INT32_MIN;
};
template <> struct IntMin<int64_t> {
  static constexpr int64_t value = INT64_MIN;
};

template <typename Int> __device__ __forceinline__ Int truncateFloat(float f) {
  // Plain constants (std::numeric_limits is host-only under nvcc).
  constexpr Int lowest = IntMin<Int>::value;
  constexpr float bound = -static_cast<float>(lowest);
  if (!(f >= -bound && f < bound))
    return lowest;
  return static_cast<Int>(f);
}

template <typename T>
__device__ __forceinline__ void storeAny(T *p, int64_t k, AnyElement e) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    p[k] = e.isFloat ? e.f != 0.0f : e.i != 0;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    // i64 -> i32 keeps the low 32 bits.
    p[k] = e.isFloat ? truncateFloat<int32_t>(e.f)
                     : static_cast<int32_t>(static_cast<uint32_t>(e.i));
  } else if constexpr (std::is_same_v<T, int64_t>) {
    p[k] = e.isFloat ? truncateFloat<int64_t>(e.f) : e.i;
  } else {
    // Integers reach f16/bf16 through f32 (round to nearest even twice), as
    // PyTorch converts them.
    p[k] = fromF32<T>(e.isFloat ? e.f : __ll2float_rn(e.i));
  }
}

template <typename In, typename Out>
__global__ void convertKernel(const In *x, Out *y, int64_t n) {
  CKPT_GRID_LOOP(i, n) { storeAny(y, i, loadAny(x, i)); }
}

/// `convert` over storage shared by the operand and a result of another
/// element size (the memory planner's in-place reuse; both start at the same
/// address): one block, chunks of blockDim elements staged in registers,
/// forward when narrowing and backward when widening, so no chunk
/// overwrites bytes a later chunk still has to read.
template <typename In, typename Out>
__global__ void convertInPlaceKernel(const In *x, Out *y, int64_t n,
                                     bool backward) {
  int64_t chunks = (n + blockDim.x - 1) / blockDim.x;
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t i = (backward ? chunks - 1 - c : c) * blockDim.x + threadIdx.x;
    AnyElement e{};
    if (i < n)
      e = loadAny(x, i);
    __syncthreads();
    if (i < n)
      storeAny(y, i, e);
    __syncthreads();
  }
}

/// Calls `body(T{})` with T the C++ storage type of any dtype (i1: uint8_t).
template <typename Body> void dispatchAny(DType type, Body body) {
  switch (type) {
  case DType::I1:
    body(uint8_t{});
    return;
  case DType::I32:
    body(int32_t{});
    return;
  case DType::I64:
    body(int64_t{});
    return;
  default:
    dispatchFloat(type, "convert", body);
  }
}

/// `value` rounded once, to nearest even, from f64 to `T`.
template <typename T> __device__ __forceinline__ T fromF64(double v);
template <> __device__ __forceinline__ float fromF64<float>(double v) {
  return static_cast<float>(v);
}
template <> __device__ __forceinline__ __half fromF64<__half>(double v) {
  return __double2half(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromF64<__nv_bfloat16>(double v) {
  return __double2bfloat16(v);
}
template <> __device__ __forceinline__ int32_t fromF64<int32_t>(double v) {
  return static_cast<int32_t>(v);
}
template <> __device__ __forceinline__ int64_t fromF64<int64_t>(double v) {
  return static_cast<int64_t>(v);
}
template <> __device__ __forceinline__ uint8_t fromF64<uint8_t>(double v) {
  return v != 0.0 ? 1 : 0; // i1: false / true
}

template <typename T>
__global__ void fillKernel(T *y, int64_t n, double value) {
  T v = fromF64<T>(value);
  CKPT_GRID_LOOP(i, n) { y[i] = v; }
}

/// Dropout: thread work unit is one Philox block (four draws), so each block
/// is computed once. Draw `offset + i` decides element `i`.
template <typename T>
__global__ void dropoutKernel(const T *x, T *y, uint8_t *mask, int64_t n,
                              PhiloxStream stream, uint64_t offset,
                              uint32_t threshold, float scale) {
  uint64_t firstBlock = offset / 4;
  int64_t blocks = static_cast<int64_t>((offset + n + 3) / 4 - firstBlock);
  CKPT_GRID_LOOP(bi, blocks) {
    uint64_t blk = firstBlock + bi;
    Philox4 r = stream.block(blk);
#pragma unroll
    for (int lane = 0; lane < 4; ++lane) {
      uint64_t draw = 4 * blk + lane;
      if (draw < offset || draw >= offset + static_cast<uint64_t>(n))
        continue;
      int64_t i = static_cast<int64_t>(draw - offset);
      bool keep = (r.w[lane] >> 8) >= threshold;
      mask[i] = keep ? 1 : 0;
      y[i] = fromF32<T>(keep ? toF32(x[i]) * scale : 0.0f);
    }
  }
}

template <typename T>
__global__ void dropoutGradKernel(const T *dy, const uint8_t *mask, T *dx,
                                  int64_t n, float scale) {
  CKPT_GRID_LOOP(i, n) {
    dx[i] = fromF32<T>(mask[i] ? toF32(dy[i]) * scale : 0.0f);
  }
}

template <typename T>
__global__ void sgdKernel(const T *p, const T *g, T *out, int64_t n, float lr) {
  CKPT_GRID_LOOP(i, n) { out[i] = fromF32<T>(toF32(p[i]) - lr * toF32(g[i])); }
}

struct AdamHyper {
  float lr, beta1, beta2, eps, weightDecay, bias1, bias2;
};

template <typename T>
__global__ void adamwKernel(const T *p, const T *g, const float *m,
                            const float *v, T *pOut, float *mOut, float *vOut,
                            int64_t n, AdamHyper h) {
  CKPT_GRID_LOOP(i, n) {
    float gi = toF32(g[i]), pi = toF32(p[i]);
    float mi = h.beta1 * m[i] + (1.0f - h.beta1) * gi;
    float vi = h.beta2 * v[i] + (1.0f - h.beta2) * gi * gi;
    float mhat = mi / h.bias1, vhat = vi / h.bias2;
    mOut[i] = mi;
    vOut[i] = vi;
    pOut[i] = fromF32<T>(
        pi - h.lr * (mhat / (sqrtf(vhat) + h.eps) + h.weightDecay * pi));
  }
}

//===----------------------------------------------------------------------===//
// Host wrappers
//===----------------------------------------------------------------------===//

template <int Op>
void launchUnary(CudaExecContext &ctx, TensorList operands, TensorList results,
                 const char *name, float param = 0.0f, float param2 = 0.0f) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  requireFloat(x, name);
  requireSameType(x, y, name);
  requireSameShape(x, y, name);
  int64_t n = x.numel();
  if (n == 0)
    return;
  dispatchFloat(x.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    unaryKernel<T, Op><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        x.as<const T>(), y.as<T>(), n, param, param2);
  });
  CKPT_LAUNCH_CHECK(ctx, name);
}

template <int Op>
void launchGrad(CudaExecContext &ctx, TensorList operands, TensorList results,
                const char *name, float param = 0.0f, float param2 = 0.0f) {
  const Tensor &dy = get(operands, 0, "grad"), &s = get(operands, 1, "saved");
  const Tensor &dx = get(results, 0, "result");
  requireFloat(dy, name);
  requireSameType(dy, s, name);
  requireSameType(dy, dx, name);
  requireSameShape(dy, s, name);
  requireSameShape(dy, dx, name);
  int64_t n = dy.numel();
  if (n == 0)
    return;
  dispatchFloat(dy.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    gradKernel<T, Op><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        dy.as<const T>(), s.as<const T>(), dx.as<T>(), n, param, param2);
  });
  CKPT_LAUNCH_CHECK(ctx, name);
}

bool sameShape(const Tensor &a, const Tensor &b) {
  if (a.rank != b.rank)
    return false;
  for (int i = 0; i < a.rank; ++i)
    if (a.shape[i] != b.shape[i])
      return false;
  return true;
}

template <int Op>
void launchBinary(CudaExecContext &ctx, TensorList operands, TensorList results,
                  const char *name) {
  if (Op != kDiv && launchIntegerArithmetic(ctx, operands, results,
                                            "+-*"[Op], name))
    return;
  const Tensor &a = get(operands, 0, "lhs"), &b = get(operands, 1, "rhs");
  const Tensor &y = get(results, 0, "result");
  requireFloat(y, name);
  requireSameType(a, y, name);
  requireSameType(b, y, name);
  StridedMap ma, mb;
  if (!makeBroadcastMap(a.shape, a.rank, y.shape, y.rank, ma) ||
      !makeBroadcastMap(b.shape, b.rank, y.shape, y.rank, mb))
    fail(std::string(name) + ": " + shapeString(a) + " and " + shapeString(b) +
         " do not broadcast to " + shapeString(y));
  int64_t n = y.numel();
  if (n == 0)
    return;
  bool aDense = sameShape(a, y), bDense = sameShape(b, y);
  dispatchFloat(y.dtype, name, [&](auto tag) {
    using T = decltype(tag);
    binaryKernel<T, Op><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        a.as<const T>(), ma, aDense, b.as<const T>(), mb, bDense, y.as<T>(), n);
  });
  CKPT_LAUNCH_CHECK(ctx, name);
}

/// The `approximation` attribute of gelu / gelu_grad: true for `tanh`.
bool geluIsTanh(const Attrs &attrs) {
  const char *a = attrs.getString("approximation");
  if (std::strcmp(a, "tanh") == 0)
    return true;
  if (std::strcmp(a, "erf") == 0)
    return false;
  fail(std::string("unknown gelu approximation '") + a + "'");
}

/// `v` rounded once, to nearest even, to `T`, and widened back to f32
/// (exactly): how PyTorch's clamp rounds a scalar bound to the tensor's type.
template <typename T> float roundedTo(double v);
template <> float roundedTo<float>(double v) { return static_cast<float>(v); }
template <> float roundedTo<__half>(double v) {
  return __half2float(__double2half(v));
}
template <> float roundedTo<__nv_bfloat16>(double v) {
  return __bfloat162float(__double2bfloat16(v));
}

float dropoutScale(double p) {
  return p >= 1.0 ? 0.0f : static_cast<float>(1.0 / (1.0 - p));
}

} // namespace

namespace kernels {

#define CKPT_UNARY(NAME, OP)                                                   \
  void NAME(CudaExecContext &ctx, TensorList operands, TensorList results,     \
            const Attrs &, const Tensor &) {                                   \
    launchUnary<OP>(ctx, operands, results, #NAME);                            \
  }
CKPT_UNARY(exp, kExp)
CKPT_UNARY(log, kLog)
CKPT_UNARY(sqrt, kSqrt)
CKPT_UNARY(rsqrt, kRsqrt)
CKPT_UNARY(tanh, kTanh)
CKPT_UNARY(sin, kSin)
CKPT_UNARY(cos, kCos)
CKPT_UNARY(relu, kRelu)
CKPT_UNARY(sigmoid, kSigmoid)
CKPT_UNARY(silu, kSilu)
CKPT_UNARY(hardswish, kHardswish)
CKPT_UNARY(hardsigmoid, kHardsigmoid)
#undef CKPT_UNARY

#define CKPT_GRAD(NAME, OP)                                                    \
  void NAME(CudaExecContext &ctx, TensorList operands, TensorList results,     \
            const Attrs &, const Tensor &) {                                   \
    launchGrad<OP>(ctx, operands, results, #NAME);                             \
  }
CKPT_GRAD(relu_grad, kReluGrad)
CKPT_GRAD(sigmoid_grad, kSigmoidGrad)
CKPT_GRAD(tanh_grad, kTanhGrad)
CKPT_GRAD(silu_grad, kSiluGrad)
CKPT_GRAD(hardswish_grad, kHardswishGrad)
CKPT_GRAD(hardsigmoid_grad, kHardsigmoidGrad)
#undef CKPT_GRAD

#define CKPT_BINARY(NAME, OP)                                                  \
  void NAME(CudaExecContext &ctx, TensorList operands, TensorList results,     \
            const Attrs &, const Tensor &) {                                   \
    launchBinary<OP>(ctx, operands, results, #NAME);                           \
  }
CKPT_BINARY(add, kAdd)
CKPT_BINARY(sub, kSub)
CKPT_BINARY(mul, kMul)
CKPT_BINARY(div, kDiv)
#undef CKPT_BINARY

void pow(CudaExecContext &ctx, TensorList operands, TensorList results,
         const Attrs &attrs, const Tensor &) {
  launchUnary<kPow>(ctx, operands, results, "pow",
                    static_cast<float>(attrs.getFloat("exponent")));
}

void gelu(CudaExecContext &ctx, TensorList operands, TensorList results,
          const Attrs &attrs, const Tensor &) {
  if (geluIsTanh(attrs))
    launchUnary<kGeluTanh>(ctx, operands, results, "gelu");
  else
    launchUnary<kGeluErf>(ctx, operands, results, "gelu");
}

void gelu_grad(CudaExecContext &ctx, TensorList operands, TensorList results,
               const Attrs &attrs, const Tensor &) {
  if (geluIsTanh(attrs))
    launchGrad<kGeluTanhGrad>(ctx, operands, results, "gelu_grad");
  else
    launchGrad<kGeluErfGrad>(ctx, operands, results, "gelu_grad");
}

// PyTorch's hardtanh compares in the tensor's type with the bounds rounded
// to it; hardtanh_backward compares in f32 with the bounds rounded to f32.
void clamp(CudaExecContext &ctx, TensorList operands, TensorList results,
           const Attrs &attrs, const Tensor &) {
  std::pair<double, double> bounds = clampBounds(attrs, "clamp");
  float lo = 0.0f, hi = 0.0f;
  dispatchFloat(get(operands, 0, "input").dtype, "clamp", [&](auto tag) {
    using T = decltype(tag);
    lo = roundedTo<T>(bounds.first);
    hi = roundedTo<T>(bounds.second);
  });
  launchUnary<kClamp>(ctx, operands, results, "clamp", lo, hi);
}

void clamp_grad(CudaExecContext &ctx, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  std::pair<double, double> bounds = clampBounds(attrs, "clamp_grad");
  launchGrad<kClampGrad>(ctx, operands, results, "clamp_grad",
                         static_cast<float>(bounds.first),
                         static_cast<float>(bounds.second));
}

void convert(CudaExecContext &ctx, TensorList operands, TensorList results,
             const Attrs &, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &y = get(results, 0, "result");
  requireSameShape(x, y, "convert");
  int64_t n = x.numel();
  if (n == 0)
    return;
  cudaStream_t s = streamOf(ctx);
  if (x.dtype == y.dtype) {
    if (x.data != y.data)
      CKPT_CUDA_CHECK(ctx, cudaMemcpyAsync(y.data, x.data, x.bytes(),
                                           cudaMemcpyDeviceToDevice, s));
    return;
  }
  auto x0 = reinterpret_cast<uintptr_t>(x.data);
  auto y0 = reinterpret_cast<uintptr_t>(y.data);
  bool overlapping = x0 < y0 + y.bytes() && y0 < x0 + x.bytes();
  bool widening = elementBytes(y.dtype) > elementBytes(x.dtype);
  dispatchAny(x.dtype, [&](auto in) {
    dispatchAny(y.dtype, [&](auto out) {
      using In = decltype(in);
      using Out = decltype(out);
      if (overlapping && elementBytes(y.dtype) != elementBytes(x.dtype))
        convertInPlaceKernel<In, Out>
            <<<1, kBlock, 0, s>>>(x.as<const In>(), y.as<Out>(), n, widening);
      else
        convertKernel<In, Out>
            <<<gridFor(n), kBlock, 0, s>>>(x.as<const In>(), y.as<Out>(), n);
    });
  });
  CKPT_LAUNCH_CHECK(ctx, "convert");
}

void fill(CudaExecContext &ctx, TensorList, TensorList results,
          const Attrs &attrs, const Tensor &) {
  const Tensor &y = get(results, 0, "result");
  double value = attrs.getFloat("value");
  int64_t n = y.numel();
  if (n == 0)
    return;
  cudaStream_t s = streamOf(ctx);
  switch (y.dtype) {
  case DType::I32:
    fillKernel<int32_t>
        <<<gridFor(n), kBlock, 0, s>>>(y.as<int32_t>(), n, value);
    break;
  case DType::I64:
    fillKernel<int64_t>
        <<<gridFor(n), kBlock, 0, s>>>(y.as<int64_t>(), n, value);
    break;
  case DType::I1: // one byte per element, 0 or 1
    fillKernel<uint8_t>
        <<<gridFor(n), kBlock, 0, s>>>(y.as<uint8_t>(), n, value);
    break;
  default:
    dispatchFloat(y.dtype, "fill", [&](auto tag) {
      using T = decltype(tag);
      fillKernel<T><<<gridFor(n), kBlock, 0, s>>>(y.as<T>(), n, value);
    });
  }
  CKPT_LAUNCH_CHECK(ctx, "fill");
}

void dropout(CudaExecContext &ctx, TensorList operands, TensorList results,
             const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &y = get(results, 0, "result"), &mask = get(results, 1, "mask");
  requireFloat(x, "dropout");
  requireSameType(x, y, "dropout");
  requireSameShape(x, y, "dropout");
  requireSameShape(x, mask, "dropout mask");
  if (mask.dtype != DType::I1)
    fail("dropout: the mask must be i1");
  double p = attrs.getFloat("p");
  int64_t seed = attrs.getInt("seed"), offset = attrs.getInt("offset");
  if (!(p >= 0.0 && p <= 1.0) || seed < 0 || offset < 0)
    fail("dropout: p must be in [0, 1], seed and offset non-negative");
  int64_t n = x.numel();
  if (n == 0)
    return;
  PhiloxStream stream(ctx.seed(), static_cast<uint64_t>(seed));
  uint64_t blocks = (static_cast<uint64_t>(offset) + n + 3) / 4 -
                    static_cast<uint64_t>(offset) / 4;
  dispatchFloat(x.dtype, "dropout", [&](auto tag) {
    using T = decltype(tag);
    dropoutKernel<T>
        <<<gridFor(static_cast<int64_t>(blocks)), kBlock, 0, streamOf(ctx)>>>(
            x.as<const T>(), y.as<T>(), mask.as<uint8_t>(), n, stream,
            static_cast<uint64_t>(offset), keepThreshold(p), dropoutScale(p));
  });
  CKPT_LAUNCH_CHECK(ctx, "dropout");
}

void dropout_grad(CudaExecContext &ctx, TensorList operands, TensorList results,
                  const Attrs &attrs, const Tensor &) {
  const Tensor &dy = get(operands, 0, "grad"), &mask = get(operands, 1, "mask");
  const Tensor &dx = get(results, 0, "result");
  requireFloat(dy, "dropout_grad");
  requireSameType(dy, dx, "dropout_grad");
  requireSameShape(dy, dx, "dropout_grad");
  requireSameShape(dy, mask, "dropout_grad mask");
  if (mask.dtype != DType::I1)
    fail("dropout_grad: the mask must be i1");
  int64_t n = dy.numel();
  if (n == 0)
    return;
  float scale = dropoutScale(attrs.getFloat("p"));
  dispatchFloat(dy.dtype, "dropout_grad", [&](auto tag) {
    using T = decltype(tag);
    dropoutGradKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        dy.as<const T>(), mask.as<const uint8_t>(), dx.as<T>(), n, scale);
  });
  CKPT_LAUNCH_CHECK(ctx, "dropout_grad");
}

void sgd_update(CudaExecContext &ctx, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  const Tensor &p = get(operands, 0, "param"), &g = get(operands, 1, "grad");
  const Tensor &out = get(results, 0, "result");
  requireFloat(p, "sgd_update");
  requireSameType(p, g, "sgd_update");
  requireSameType(p, out, "sgd_update");
  requireSameShape(p, g, "sgd_update");
  requireSameShape(p, out, "sgd_update");
  int64_t n = p.numel();
  if (n == 0)
    return;
  float lr = static_cast<float>(attrs.getFloat("lr"));
  dispatchFloat(p.dtype, "sgd_update", [&](auto tag) {
    using T = decltype(tag);
    sgdKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        p.as<const T>(), g.as<const T>(), out.as<T>(), n, lr);
  });
  CKPT_LAUNCH_CHECK(ctx, "sgd_update");
}

void adamw_update(CudaExecContext &ctx, TensorList operands, TensorList results,
                  const Attrs &attrs, const Tensor &) {
  const Tensor &p = get(operands, 0, "param"), &g = get(operands, 1, "grad");
  const Tensor &m = get(operands, 2, "exp_avg"),
               &v = get(operands, 3, "exp_avg_sq");
  const Tensor &pOut = get(results, 0, "result");
  const Tensor &mOut = get(results, 1, "new_exp_avg");
  const Tensor &vOut = get(results, 2, "new_exp_avg_sq");
  requireFloat(p, "adamw_update");
  requireSameType(p, g, "adamw_update");
  requireSameType(p, pOut, "adamw_update");
  for (const Tensor *t : {&m, &v, &mOut, &vOut})
    requireF32(*t, "adamw_update moments");
  for (const Tensor *t : {&g, &m, &v, &pOut, &mOut, &vOut})
    requireSameShape(p, *t, "adamw_update");
  int64_t step = attrs.getInt("step");
  if (step < 1)
    fail("adamw_update: step must be >= 1");
  AdamHyper h;
  double beta1 = attrs.getFloat("beta1"), beta2 = attrs.getFloat("beta2");
  h.lr = static_cast<float>(attrs.getFloat("lr"));
  h.beta1 = static_cast<float>(beta1);
  h.beta2 = static_cast<float>(beta2);
  h.eps = static_cast<float>(attrs.getFloat("eps"));
  h.weightDecay = static_cast<float>(attrs.getFloat("weight_decay"));
  h.bias1 =
      static_cast<float>(1.0 - std::pow(beta1, static_cast<double>(step)));
  h.bias2 =
      static_cast<float>(1.0 - std::pow(beta2, static_cast<double>(step)));
  int64_t n = p.numel();
  if (n == 0)
    return;
  dispatchFloat(p.dtype, "adamw_update", [&](auto tag) {
    using T = decltype(tag);
    adamwKernel<T><<<gridFor(n), kBlock, 0, streamOf(ctx)>>>(
        p.as<const T>(), g.as<const T>(), m.as<const float>(),
        v.as<const float>(), pOut.as<T>(), mOut.as<float>(), vOut.as<float>(),
        n, h);
  });
  CKPT_LAUNCH_CHECK(ctx, "adamw_update");
}

} // namespace kernels
} // namespace ckpt::rt::cuda
