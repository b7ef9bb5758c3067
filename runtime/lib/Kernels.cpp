//===- Kernels.cpp - Host kernels: GEMMs, elementwise, data movement --------===//
//
// Matrix products, elementwise arithmetic and activations, softmax, dropout,
// embedding, cross-entropy, reductions, shape ops and optimizer updates.
// Normalization, attention, convolution and pooling are in KernelsNN.cpp.
//
// Determinism: every parallel loop splits independent output elements or
// rows; sums run in a fixed order (in double where noted), so results do not
// depend on the thread count or on buffer addresses.
//
//===----------------------------------------------------------------------===//
#include "KernelSupport.h"
#include "Philox.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace ckpt::rt::detail;

namespace ckpt::rt::kernels {

namespace {

/// Largest broadcast operand (in floats) that an elementwise kernel copies
/// aside when its result overlaps it: 16 KiB, enough for any arena
/// alignment up to 16 KiB.
constexpr int64_t kAliasScratchFloats = 4096;


template <typename F>
void binary(TensorList operands, TensorList results, F f, const char *name) {
  const Tensor &a = get(operands, 0, "lhs"), &b = get(operands, 1, "rhs");
  const Tensor &r = get(results, 0, "result");
  requireF32(a, name);
  requireF32(b, name);
  requireF32(r, name);
  const float *pa = a.as<float>(), *pb = b.as<float>();
  float *pr = r.as<float>();
  if (sameShape(a, r) && sameShape(b, r)) {
    parallelFor(r.numel(), kElementGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        pr[i] = f(pa[i], pb[i]);
    });
    return;
  }
  // A result that takes over the storage of an operand it broadcasts would
  // overwrite elements still to be read: such an operand is read from a copy
  // on the stack. (The planner's in-place reuse only checks that the aligned
  // sizes agree, which for a broadcast operand - at most half the result's
  // elements - means both fit in one alignment unit.)
  alignas(64) float copyA[kAliasScratchFloats], copyB[kAliasScratchFloats];
  auto detach = [&](const Tensor &t, const float *&p, float *copy) {
    if (sameShape(t, r) || !overlaps(t, r))
      return;
    if (t.numel() > kAliasScratchFloats)
      fail(std::string(name) + ": the result overlaps a broadcast operand of " +
           std::to_string(t.bytes()) + " bytes (more than the " +
           std::to_string(kAliasScratchFloats * 4) + " bytes the kernel copies)");
    std::memcpy(copy, p, t.bytes());
    p = copy;
  };
  detach(a, pa, copyA);
  detach(b, pb, copyB);
  std::vector<int64_t> sa = broadcastStrides(a, r, "lhs"),
                       sb = broadcastStrides(b, r, "rhs");
  if (r.rank == 0) {
    pr[0] = f(pa[0], pb[0]);
    return;
  }
  int64_t inner = r.shape[r.rank - 1];
  int64_t rows = inner == 0 ? 0 : r.numel() / inner;
  int64_t ia = sa[r.rank - 1], ib = sb[r.rank - 1];
  parallelFor(rows, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(inner, 1)),
              [&](int64_t lo, int64_t hi) {
                for (int64_t row = lo; row < hi; ++row) {
                  const float *ra = pa + rowOffset(r, sa, row);
                  const float *rb = pb + rowOffset(r, sb, row);
                  float *rr = pr + row * inner;
                  for (int64_t j = 0; j < inner; ++j)
                    rr[j] = f(ra[j * ia], rb[j * ib]);
                }
              });
}

template <typename F>
void unary(TensorList operands, TensorList results, F f, const char *name) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &r = get(results, 0, "result");
  requireF32(x, name);
  requireF32(r, name);
  requireSameShape(x, r, name);
  const float *px = x.as<float>();
  float *pr = r.as<float>();
  parallelFor(r.numel(), kElementGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      pr[i] = f(px[i]);
  });
}

/// `result = f(grad, saved)` elementwise over tensors of one shape.
template <typename F>
void gradElementwise(TensorList operands, TensorList results, F f,
                     const char *name) {
  const Tensor &g = get(operands, 0, "grad"), &s = get(operands, 1, "saved");
  const Tensor &r = get(results, 0, "result");
  requireF32(g, name);
  requireF32(s, name);
  requireF32(r, name);
  requireSameShape(g, r, name);
  requireSameShape(s, r, name);
  const float *pg = g.as<float>(), *ps = s.as<float>();
  float *pr = r.as<float>();
  parallelFor(r.numel(), kElementGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      pr[i] = f(pg[i], ps[i]);
  });
}

float sigmoidf(float x) { return 1.0f / (1.0f + std::exp(-x)); }

constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kGeluCoeff = 0.044715f;
constexpr float kInvSqrt2 = 0.7071067811865476f;
constexpr float kInvSqrt2Pi = 0.3989422804014327f;

bool geluIsTanh(const Attrs &attrs) {
  std::string a = attrs.getString("approximation");
  if (a == "tanh")
    return true;
  if (a == "erf")
    return false;
  fail("unknown gelu approximation '" + a + "'");
}

/// `[outer, axis, inner]` view of a tensor around dimension `axis`.
struct AxisView {
  int64_t outer = 1, extent = 1, inner = 1;
};
AxisView axisView(const Tensor &t, int64_t axis) {
  if (axis < 0 || axis >= t.rank)
    fail("axis " + std::to_string(axis) + " out of range for " + shapeString(t));
  AxisView v;
  for (int i = 0; i < axis; ++i)
    v.outer *= t.shape[i];
  v.extent = t.shape[axis];
  for (int i = axis + 1; i < t.rank; ++i)
    v.inner *= t.shape[i];
  return v;
}

/// Runs `line(base, stride, n)` for every line along the axis view.
template <typename F> void forEachLine(const AxisView &v, F line) {
  int64_t lines = v.outer * v.inner;
  parallelFor(lines, kRowGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t l = lo; l < hi; ++l) {
      int64_t o = l / v.inner, in = l % v.inner;
      line(o * v.extent * v.inner + in, v.inner, v.extent);
    }
  });
}

template <typename Index>
int64_t loadIndex(const void *p, int64_t i) {
  return static_cast<int64_t>(static_cast<const Index *>(p)[i]);
}
int64_t indexAt(const Tensor &t, int64_t i) {
  return t.dtype == DType::I64 ? loadIndex<int64_t>(t.data, i)
                               : loadIndex<int32_t>(t.data, i);
}
void requireIndex(const Tensor &t, const char *what) {
  if (t.dtype != DType::I32 && t.dtype != DType::I64)
    fail(std::string(what) + " must be i32 or i64");
}

/// Row-major strides of `t`.
std::vector<int64_t> stridesOf(const Tensor &t) {
  std::vector<int64_t> s(std::max(t.rank, 0), 1);
  for (int i = t.rank - 2; i >= 0; --i)
    s[i] = s[i + 1] * t.shape[i + 1];
  return s;
}

/// Copies `result` (row-major) from `src` read at element offset `base` plus
/// index·`srcStrides`, element size `eb`. Splits over rows of the result.
void stridedCopy(const Tensor &result, const char *src, int64_t base,
                 const std::vector<int64_t> &srcStrides) {
  size_t eb = elementBytes(result.dtype);
  char *dst = static_cast<char *>(result.data);
  if (result.rank == 0) {
    std::memcpy(dst, src + base * eb, eb);
    return;
  }
  int64_t inner = result.shape[result.rank - 1];
  int64_t rows = inner == 0 ? 0 : result.numel() / inner;
  int64_t is = srcStrides[result.rank - 1];
  parallelFor(rows, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(inner, 1)),
              [&](int64_t lo, int64_t hi) {
                for (int64_t row = lo; row < hi; ++row) {
                  int64_t off = base + rowOffset(result, srcStrides, row);
                  char *d = dst + row * inner * eb;
                  if (is == 1) {
                    std::memcpy(d, src + off * eb, inner * eb);
                    continue;
                  }
                  for (int64_t j = 0; j < inner; ++j)
                    std::memcpy(d + j * eb, src + (off + j * is) * eb, eb);
                }
              });
}

void requireSameDType(const Tensor &a, const Tensor &b, const char *what) {
  if (a.dtype != b.dtype)
    fail(std::string(what) + ": element types differ");
}

} // namespace

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

namespace {

/// `c = op(a) x op(b) + beta * c` for `matmul` and `matmul_acc` (`name`),
/// shapes checked.
void matrixProduct(const char *name, const Tensor &a, const Tensor &b,
                   const Tensor &c, const Attrs &attrs, float beta) {
  std::string what(name);
  requireF32(a, name);
  requireF32(b, name);
  requireF32(c, name);
  requireRank(a, 2, (what + " lhs").c_str());
  requireRank(b, 2, (what + " rhs").c_str());
  requireRank(c, 2, (what + " result").c_str());
  bool ta = attrs.has("transpose_lhs"), tb = attrs.has("transpose_rhs");
  int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  int64_t kb = tb ? b.shape[1] : b.shape[0], n = tb ? b.shape[0] : b.shape[1];
  if (k != kb || c.shape[0] != m || c.shape[1] != n)
    fail(what + ": shapes " + shapeString(a) + " x " + shapeString(b) +
         " -> " + shapeString(c) + " do not match");
  gemm(ta, tb, m, n, k, a.as<float>(), a.shape[1], b.as<float>(), b.shape[1],
       beta, c.as<float>(), n);
}

} // namespace

void matmul(ExecContext &, TensorList operands, TensorList results,
            const Attrs &attrs, const Tensor &) {
  matrixProduct("matmul", get(operands, 0, "lhs"), get(operands, 1, "rhs"),
                get(results, 0, "result"), attrs, 0.0f);
}

void matmul_acc(ExecContext &, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  const Tensor &acc = get(operands, 0, "acc");
  const Tensor &c = get(results, 0, "result");
  requireF32(acc, "matmul_acc");
  requireSameShape(acc, c, "matmul_acc accumulator and result");
  // One GEMM with beta = 1 over a copy of the accumulator.
  if (c.data != acc.data)
    std::memcpy(c.data, acc.data, c.bytes());
  matrixProduct("matmul_acc", get(operands, 1, "lhs"), get(operands, 2, "rhs"),
                c, attrs, 1.0f);
}

void batch_matmul(ExecContext &, TensorList operands, TensorList results,
                  const Attrs &attrs, const Tensor &) {
  const Tensor &a = get(operands, 0, "lhs"), &b = get(operands, 1, "rhs");
  const Tensor &c = get(results, 0, "result");
  requireF32(a, "batch_matmul");
  requireF32(b, "batch_matmul");
  requireF32(c, "batch_matmul");
  int rank = c.rank;
  if (rank < 3 || a.rank != rank || b.rank != rank)
    fail("batch_matmul: operands and result need the same rank >= 3");
  bool ta = attrs.has("transpose_lhs"), tb = attrs.has("transpose_rhs");
  int64_t a0 = a.shape[rank - 2], a1 = a.shape[rank - 1];
  int64_t b0 = b.shape[rank - 2], b1 = b.shape[rank - 1];
  int64_t m = ta ? a1 : a0, k = ta ? a0 : a1, kb = tb ? b1 : b0, n = tb ? b0 : b1;
  if (k != kb || c.shape[rank - 2] != m || c.shape[rank - 1] != n)
    fail("batch_matmul: shapes " + shapeString(a) + " x " + shapeString(b) +
         " -> " + shapeString(c) + " do not match");
  // Batch strides (in matrices), 0 for broadcast dimensions.
  std::vector<int64_t> sa(rank - 2), sb(rank - 2);
  int64_t pa = 1, pb = 1, batches = 1;
  for (int d = rank - 3; d >= 0; --d) {
    int64_t cd = c.shape[d];
    if ((a.shape[d] != cd && a.shape[d] != 1) || (b.shape[d] != cd && b.shape[d] != 1))
      fail("batch_matmul: batch dimensions of " + shapeString(a) + " and " +
           shapeString(b) + " do not broadcast to " + shapeString(c));
    sa[d] = a.shape[d] == 1 ? 0 : pa;
    sb[d] = b.shape[d] == 1 ? 0 : pb;
    pa *= a.shape[d];
    pb *= b.shape[d];
    batches *= cd;
  }
  const float *A = a.as<float>(), *B = b.as<float>();
  float *C = c.as<float>();
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t rem = bi, oa = 0, ob = 0;
    for (int d = rank - 3; d >= 0; --d) {
      int64_t idx = rem % c.shape[d];
      rem /= c.shape[d];
      oa += idx * sa[d];
      ob += idx * sb[d];
    }
    gemm(ta, tb, m, n, k, A + oa * a0 * a1, a1, B + ob * b0 * b1, b1, 0.0f,
         C + bi * m * n, n);
  }
}

void linear(ExecContext &, TensorList operands, TensorList results,
            const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &w = get(operands, 1, "weight");
  const Tensor *bias = optionalOperand(operands, attrs, 3, 2);
  const Tensor &y = get(results, 0, "result");
  requireF32(x, "linear");
  requireF32(w, "linear");
  requireF32(y, "linear");
  requireRank(w, 2, "linear weight");
  if (x.rank < 1 || y.rank != x.rank)
    fail("linear: input and result need the same rank >= 1");
  int64_t in = w.shape[1], out = w.shape[0];
  if (x.shape[x.rank - 1] != in || y.shape[y.rank - 1] != out)
    fail("linear: shapes " + shapeString(x) + ", weight " + shapeString(w) +
         " -> " + shapeString(y) + " do not match");
  int64_t rows = in == 0 ? y.numel() / std::max<int64_t>(out, 1) : x.numel() / in;
  gemm(false, true, rows, out, in, x.as<float>(), in, w.as<float>(), in, 0.0f,
       y.as<float>(), out);
  if (bias) {
    requireF32(*bias, "linear bias");
    if (bias->numel() != out)
      fail("linear: bias " + shapeString(*bias) + " does not have " +
           std::to_string(out) + " elements");
    const float *pb = bias->as<float>();
    float *py = y.as<float>();
    parallelFor(rows, kRowGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r)
        for (int64_t j = 0; j < out; ++j)
          py[r * out + j] += pb[j];
    });
  }
}

//===----------------------------------------------------------------------===//
// Elementwise arithmetic
//===----------------------------------------------------------------------===//

void add(ExecContext &, TensorList operands, TensorList results, const Attrs &,
         const Tensor &) {
  if (integerArithmetic(operands, results, '+', "add"))
    return;
  binary(operands, results, [](float a, float b) { return a + b; }, "add");
}
void sub(ExecContext &, TensorList operands, TensorList results, const Attrs &,
         const Tensor &) {
  if (integerArithmetic(operands, results, '-', "sub"))
    return;
  binary(operands, results, [](float a, float b) { return a - b; }, "sub");
}
void mul(ExecContext &, TensorList operands, TensorList results, const Attrs &,
         const Tensor &) {
  if (integerArithmetic(operands, results, '*', "mul"))
    return;
  binary(operands, results, [](float a, float b) { return a * b; }, "mul");
}
void div(ExecContext &, TensorList operands, TensorList results, const Attrs &,
         const Tensor &) {
  binary(operands, results, [](float a, float b) { return a / b; }, "div");
}
void exp(ExecContext &, TensorList operands, TensorList results, const Attrs &,
         const Tensor &) {
  unary(operands, results, [](float x) { return std::exp(x); }, "exp");
}
void log(ExecContext &, TensorList operands, TensorList results, const Attrs &,
         const Tensor &) {
  unary(operands, results, [](float x) { return std::log(x); }, "log");
}
void sqrt(ExecContext &, TensorList operands, TensorList results, const Attrs &,
          const Tensor &) {
  unary(operands, results, [](float x) { return std::sqrt(x); }, "sqrt");
}
void rsqrt(ExecContext &, TensorList operands, TensorList results, const Attrs &,
           const Tensor &) {
  unary(operands, results, [](float x) { return 1.0f / std::sqrt(x); }, "rsqrt");
}
void tanh(ExecContext &, TensorList operands, TensorList results, const Attrs &,
          const Tensor &) {
  unary(operands, results, [](float x) { return std::tanh(x); }, "tanh");
}
void sin(ExecContext &, TensorList operands, TensorList results, const Attrs &,
         const Tensor &) {
  unary(operands, results, [](float x) { return std::sin(x); }, "sin");
}
void cos(ExecContext &, TensorList operands, TensorList results, const Attrs &,
         const Tensor &) {
  unary(operands, results, [](float x) { return std::cos(x); }, "cos");
}
void pow(ExecContext &, TensorList operands, TensorList results,
         const Attrs &attrs, const Tensor &) {
  float e = static_cast<float>(attrs.getFloat("exponent"));
  unary(operands, results, [e](float x) { return std::pow(x, e); }, "pow");
}

namespace {
uint16_t floatToBF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet.
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u); // Round to nearest even.
  return static_cast<uint16_t>(u >> 16);
}
float bf16ToFloat(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t floatToHalf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t absu = u & 0x7fffffffu;
  if (absu > 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7e00u);
  if (absu >= 0x477ff000u) // Rounds to >= 65520: infinity.
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (absu < 0x38800000u) { // Below the smallest normal half: subnormal.
    float af;
    std::memcpy(&af, &absu, 4);
    // Multiply into the subnormal range, where float rounding is exact RNE.
    float scaled = af * 16777216.0f; // 2^24: units of 2^-24.
    uint32_t q = static_cast<uint32_t>(std::nearbyint(scaled));
    return static_cast<uint16_t>(sign | q);
  }
  uint32_t mant = absu & 0x7fffffu;
  uint32_t exp = (absu >> 23) - 127 + 15;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    ++h; // May carry into the exponent, which is still correct.
  return static_cast<uint16_t>(sign | h);
}
float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u |= sign;
    std::memcpy(&f, &u, 4);
    return f;
  }
  uint32_t u = exp == 31 ? (sign | 0x7f800000u | (mant << 13))
                         : (sign | ((exp - 15 + 127) << 23) | (mant << 13));
  std::memcpy(&f, &u, 4);
  return f;
}
/// One element in transit through `convert`: a float (f32/f16/bf16 widen
/// exactly to f32) or an integer (i1, i32, i64).
struct Element {
  bool isFloat;
  float f;
  int64_t i;
};
Element loadElement(const Tensor &t, int64_t i) {
  switch (t.dtype) {
  case DType::F32: return {true, t.as<float>()[i], 0};
  case DType::BF16: return {true, bf16ToFloat(t.as<uint16_t>()[i]), 0};
  case DType::F16: return {true, halfToFloat(t.as<uint16_t>()[i]), 0};
  case DType::I1: return {false, 0.0f, t.as<uint8_t>()[i] != 0};
  case DType::I32: return {false, 0.0f, t.as<int32_t>()[i]};
  case DType::I64: return {false, 0.0f, t.as<int64_t>()[i]};
  }
  fail("convert: unknown element type");
}
/// `f` truncated toward zero to `Int`; NaN and values outside its range give
/// its minimum, as x86's cvttss2si (and so PyTorch on x86 CPUs) does. The
/// range test avoids the undefined behaviour of an out-of-range cast.
template <typename Int> Int truncateFloat(float f) {
  constexpr float bound = -static_cast<float>(std::numeric_limits<Int>::min());
  if (!(f >= -bound && f < bound))
    return std::numeric_limits<Int>::min();
  return static_cast<Int>(f);
}
void storeElement(const Tensor &t, int64_t i, Element e) {
  // Integers reach f16/bf16 through f32, as PyTorch converts them.
  float f = e.isFloat ? e.f : static_cast<float>(e.i);
  switch (t.dtype) {
  case DType::F32: t.as<float>()[i] = f; return;
  case DType::BF16: t.as<uint16_t>()[i] = floatToBF16(f); return;
  case DType::F16: t.as<uint16_t>()[i] = floatToHalf(f); return;
  case DType::I1:
    t.as<uint8_t>()[i] = e.isFloat ? e.f != 0.0f : e.i != 0;
    return;
  case DType::I32:
    // i64 -> i32 keeps the low 32 bits (two's complement).
    t.as<int32_t>()[i] = e.isFloat ? truncateFloat<int32_t>(e.f)
                                   : static_cast<int32_t>(
                                         static_cast<uint32_t>(e.i));
    return;
  case DType::I64:
    t.as<int64_t>()[i] = e.isFloat ? truncateFloat<int64_t>(e.f) : e.i;
    return;
  }
  fail("convert: unknown element type");
}
} // namespace

void convert(ExecContext &, TensorList operands, TensorList results,
             const Attrs &, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &r = get(results, 0, "result");
  requireSameShape(x, r, "convert");
  int64_t n = x.numel();
  if (x.dtype == r.dtype) {
    if (x.data != r.data)
      std::memmove(r.data, x.data, x.bytes());
    return;
  }
  // Elementwise with possibly aliased storage of different element sizes:
  // narrowing runs forward, widening backward, so no element is overwritten
  // before it is read.
  if (overlaps(x, r)) {
    if (elementBytes(r.dtype) <= elementBytes(x.dtype))
      for (int64_t i = 0; i < n; ++i)
        storeElement(r, i, loadElement(x, i));
    else
      for (int64_t i = n - 1; i >= 0; --i)
        storeElement(r, i, loadElement(x, i));
    return;
  }
  parallelFor(n, kElementGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      storeElement(r, i, loadElement(x, i));
  });
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

void relu(ExecContext &, TensorList operands, TensorList results, const Attrs &,
          const Tensor &) {
  // NaN propagates, as torch.relu does.
  unary(operands, results, [](float x) { return x < 0.0f ? 0.0f : x; }, "relu");
}
void sigmoid(ExecContext &, TensorList operands, TensorList results,
             const Attrs &, const Tensor &) {
  unary(operands, results, [](float x) { return sigmoidf(x); }, "sigmoid");
}
void silu(ExecContext &, TensorList operands, TensorList results, const Attrs &,
          const Tensor &) {
  unary(operands, results, [](float x) { return x * sigmoidf(x); }, "silu");
}
void gelu(ExecContext &, TensorList operands, TensorList results,
          const Attrs &attrs, const Tensor &) {
  if (geluIsTanh(attrs))
    unary(operands, results,
          [](float x) {
            float u = kSqrt2OverPi * (x + kGeluCoeff * x * x * x);
            return 0.5f * x * (1.0f + std::tanh(u));
          },
          "gelu");
  else
    unary(operands, results,
          [](float x) { return 0.5f * x * (1.0f + std::erf(x * kInvSqrt2)); },
          "gelu");
}
void relu_grad(ExecContext &, TensorList operands, TensorList results,
               const Attrs &, const Tensor &) {
  gradElementwise(operands, results,
                  [](float dy, float y) { return y > 0.0f ? dy : 0.0f; },
                  "relu_grad");
}
void sigmoid_grad(ExecContext &, TensorList operands, TensorList results,
                  const Attrs &, const Tensor &) {
  gradElementwise(operands, results,
                  [](float dy, float y) { return dy * y * (1.0f - y); },
                  "sigmoid_grad");
}
void tanh_grad(ExecContext &, TensorList operands, TensorList results,
               const Attrs &, const Tensor &) {
  gradElementwise(operands, results,
                  [](float dy, float y) { return dy * (1.0f - y * y); },
                  "tanh_grad");
}
void silu_grad(ExecContext &, TensorList operands, TensorList results,
               const Attrs &, const Tensor &) {
  gradElementwise(operands, results,
                  [](float dy, float x) {
                    float s = sigmoidf(x);
                    return dy * s * (1.0f + x * (1.0f - s));
                  },
                  "silu_grad");
}
void gelu_grad(ExecContext &, TensorList operands, TensorList results,
               const Attrs &attrs, const Tensor &) {
  if (geluIsTanh(attrs))
    gradElementwise(operands, results,
                    [](float dy, float x) {
                      float x2 = x * x;
                      float u = kSqrt2OverPi * (x + kGeluCoeff * x2 * x);
                      float t = std::tanh(u);
                      float du = kSqrt2OverPi * (1.0f + 3.0f * kGeluCoeff * x2);
                      return dy * (0.5f * (1.0f + t) +
                                   0.5f * x * (1.0f - t * t) * du);
                    },
                    "gelu_grad");
  else
    gradElementwise(operands, results,
                    [](float dy, float x) {
                      float cdf = 0.5f * (1.0f + std::erf(x * kInvSqrt2));
                      float pdf = kInvSqrt2Pi * std::exp(-0.5f * x * x);
                      return dy * (cdf + x * pdf);
                    },
                    "gelu_grad");
}

} // namespace ckpt::rt::kernels

namespace ckpt::rt::kernels {

// The bounds round to f32, as PyTorch rounds hardtanh's scalar bounds to the
// tensor's dtype (forward) and to f32 (backward).
void clamp(ExecContext &, TensorList operands, TensorList results,
           const Attrs &attrs, const Tensor &) {
  auto [lower, upper] = clampBounds(attrs, "clamp");
  float lo = static_cast<float>(lower), hi = static_cast<float>(upper);
  // Both comparisons are false on NaN, which therefore propagates.
  unary(operands, results,
        [lo, hi](float x) { return x < lo ? lo : (x > hi ? hi : x); },
        "clamp");
}
void clamp_grad(ExecContext &, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  auto [lower, upper] = clampBounds(attrs, "clamp_grad");
  float lo = static_cast<float>(lower), hi = static_cast<float>(upper);
  // aten.hardtanh_backward: zero at and beyond the bounds.
  gradElementwise(operands, results,
                  [lo, hi](float dy, float x) {
                    return x <= lo || x >= hi ? 0.0f : dy;
                  },
                  "clamp_grad");
}

// The hard activations evaluate PyTorch's expressions in its order, so f32
// results are bit-identical (CkptOps.td). std::max/std::min return their
// first argument when a comparison is false, so NaN propagates as in
// PyTorch's vectorized maximum/minimum.
void hardswish(ExecContext &, TensorList operands, TensorList results,
               const Attrs &, const Tensor &) {
  unary(operands, results,
        [](float x) {
          return x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
        },
        "hardswish");
}
void hardswish_grad(ExecContext &, TensorList operands, TensorList results,
                    const Attrs &, const Tensor &) {
  // aten.hardswish_backward of PyTorch 2 (0 from -3 down; 1.13 gave -dy/2
  // at -3): NaN takes the middle branch.
  gradElementwise(operands, results,
                  [](float dy, float x) {
                    if (x <= -3.0f)
                      return 0.0f;
                    if (x >= 3.0f)
                      return dy;
                    return dy * (x / 3.0f + 0.5f);
                  },
                  "hardswish_grad");
}
void hardsigmoid(ExecContext &, TensorList operands, TensorList results,
                 const Attrs &, const Tensor &) {
  unary(operands, results,
        [](float x) { return std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f; },
        "hardsigmoid");
}
void hardsigmoid_grad(ExecContext &, TensorList operands, TensorList results,
                      const Attrs &, const Tensor &) {
  constexpr float kOneSixth = 1.0f / 6.0f;
  gradElementwise(operands, results,
                  [](float dy, float x) {
                    return x > -3.0f && x < 3.0f ? dy * kOneSixth : 0.0f;
                  },
                  "hardsigmoid_grad");
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

namespace {
void softmaxImpl(TensorList operands, TensorList results, const Attrs &attrs,
                 bool logForm) {
  const char *name = logForm ? "log_softmax" : "softmax";
  const Tensor &x = get(operands, 0, "input");
  const Tensor &y = get(results, 0, "result");
  requireF32(x, name);
  requireF32(y, name);
  requireSameShape(x, y, name);
  AxisView v = axisView(x, attrs.getInt("axis"));
  const float *px = x.as<float>();
  float *py = y.as<float>();
  forEachLine(v, [&](int64_t base, int64_t stride, int64_t n) {
    float m = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < n; ++j)
      m = std::max(m, px[base + j * stride]);
    double sum = 0.0;
    for (int64_t j = 0; j < n; ++j)
      sum += std::exp(px[base + j * stride] - m);
    if (logForm) {
      float lse = static_cast<float>(std::log(sum));
      for (int64_t j = 0; j < n; ++j)
        py[base + j * stride] = px[base + j * stride] - m - lse;
    } else {
      float inv = static_cast<float>(1.0 / sum);
      for (int64_t j = 0; j < n; ++j)
        py[base + j * stride] = std::exp(px[base + j * stride] - m) * inv;
    }
  });
}

void softmaxGradImpl(TensorList operands, TensorList results,
                     const Attrs &attrs, bool logForm) {
  const char *name = logForm ? "log_softmax_grad" : "softmax_grad";
  const Tensor &g = get(operands, 0, "grad"), &y = get(operands, 1, "output");
  const Tensor &r = get(results, 0, "result");
  requireF32(g, name);
  requireF32(y, name);
  requireF32(r, name);
  requireSameShape(g, y, name);
  requireSameShape(g, r, name);
  AxisView v = axisView(g, attrs.getInt("axis"));
  const float *pg = g.as<float>(), *py = y.as<float>();
  float *pr = r.as<float>();
  forEachLine(v, [&](int64_t base, int64_t stride, int64_t n) {
    double s = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      int64_t i = base + j * stride;
      s += logForm ? static_cast<double>(pg[i])
                   : static_cast<double>(pg[i]) * py[i];
    }
    float sf = static_cast<float>(s);
    for (int64_t j = 0; j < n; ++j) {
      int64_t i = base + j * stride;
      pr[i] = logForm ? pg[i] - std::exp(py[i]) * sf : py[i] * (pg[i] - sf);
    }
  });
}
} // namespace

void softmax(ExecContext &, TensorList operands, TensorList results,
             const Attrs &attrs, const Tensor &) {
  softmaxImpl(operands, results, attrs, false);
}
void log_softmax(ExecContext &, TensorList operands, TensorList results,
                 const Attrs &attrs, const Tensor &) {
  softmaxImpl(operands, results, attrs, true);
}
void softmax_grad(ExecContext &, TensorList operands, TensorList results,
                  const Attrs &attrs, const Tensor &) {
  softmaxGradImpl(operands, results, attrs, false);
}
void log_softmax_grad(ExecContext &, TensorList operands, TensorList results,
                      const Attrs &attrs, const Tensor &) {
  softmaxGradImpl(operands, results, attrs, true);
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

void dropout(ExecContext &ctx, TensorList operands, TensorList results,
             const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &y = get(results, 0, "result"), &mask = get(results, 1, "mask");
  requireF32(x, "dropout");
  requireF32(y, "dropout");
  requireSameShape(x, y, "dropout");
  requireSameShape(x, mask, "dropout mask");
  if (mask.dtype != DType::I1)
    fail("dropout: the mask must be i1");
  double p = attrs.getFloat("p");
  int64_t seed = attrs.getInt("seed"), offset = attrs.getInt("offset");
  if (p < 0.0 || p > 1.0 || seed < 0 || offset < 0)
    fail("dropout: p must be in [0, 1], seed and offset non-negative");
  float scale = p >= 1.0 ? 0.0f : static_cast<float>(1.0 / (1.0 - p));
  const float *px = x.as<float>();
  float *py = y.as<float>();
  uint8_t *pm = mask.as<uint8_t>();
  uint64_t base = ctx.seed();
  parallelFor(x.numel(), kElementGrain, [&](int64_t lo, int64_t hi) {
    DropoutStream stream(base, static_cast<uint64_t>(seed));
    for (int64_t i = lo; i < hi; ++i) {
      bool keep = stream.keep(static_cast<uint64_t>(offset + i), p);
      pm[i] = keep ? 1 : 0;
      py[i] = keep ? px[i] * scale : 0.0f;
    }
  });
}

void dropout_grad(ExecContext &, TensorList operands, TensorList results,
                  const Attrs &attrs, const Tensor &) {
  const Tensor &g = get(operands, 0, "grad"), &mask = get(operands, 1, "mask");
  const Tensor &r = get(results, 0, "result");
  requireF32(g, "dropout_grad");
  requireF32(r, "dropout_grad");
  requireSameShape(g, r, "dropout_grad");
  requireSameShape(g, mask, "dropout_grad mask");
  if (mask.dtype != DType::I1)
    fail("dropout_grad: the mask must be i1");
  double p = attrs.getFloat("p");
  float scale = p >= 1.0 ? 0.0f : static_cast<float>(1.0 / (1.0 - p));
  const float *pg = g.as<float>();
  const uint8_t *pm = mask.as<uint8_t>();
  float *pr = r.as<float>();
  if (overlaps(mask, r)) {
    // The result over the (4x smaller) mask: backwards, result element i
    // only overwrites mask bytes 4i..4i+3, already read for every i > 0
    // (and for i = 0 within the same step).
    for (int64_t i = g.numel() - 1; i >= 0; --i)
      pr[i] = pm[i] ? pg[i] * scale : 0.0f;
    return;
  }
  parallelFor(g.numel(), kElementGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      pr[i] = pm[i] ? pg[i] * scale : 0.0f;
  });
}

//===----------------------------------------------------------------------===//
// Embedding and loss
//===----------------------------------------------------------------------===//

void embedding(ExecContext &, TensorList operands, TensorList results,
               const Attrs &, const Tensor &) {
  const Tensor &table = get(operands, 0, "table"), &idx = get(operands, 1, "indices");
  const Tensor &y = get(results, 0, "result");
  requireF32(table, "embedding");
  requireF32(y, "embedding");
  requireRank(table, 2, "embedding table");
  requireIndex(idx, "embedding indices");
  int64_t v = table.shape[0], d = table.shape[1], n = idx.numel();
  if (y.numel() != n * d)
    fail("embedding: result " + shapeString(y) + " does not hold " +
         std::to_string(n) + " rows of " + std::to_string(d));
  const float *pt = table.as<float>();
  float *py = y.as<float>();
  parallelFor(n, kRowGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      int64_t row = indexAt(idx, i);
      if (row < 0 || row >= v)
        fail("embedding: index " + std::to_string(row) + " out of range [0, " +
             std::to_string(v) + ")");
      std::memcpy(py + i * d, pt + row * d, d * sizeof(float));
    }
  });
}

void embedding_grad(ExecContext &, TensorList operands, TensorList results,
                    const Attrs &attrs, const Tensor &) {
  const Tensor &g = get(operands, 0, "grad"), &idx = get(operands, 1, "indices");
  const Tensor &r = get(results, 0, "result");
  requireF32(g, "embedding_grad");
  requireF32(r, "embedding_grad");
  requireRank(r, 2, "embedding_grad result");
  requireIndex(idx, "embedding_grad indices");
  int64_t v = r.shape[0], d = r.shape[1], n = idx.numel();
  if (g.numel() != n * d)
    fail("embedding_grad: grad " + shapeString(g) + " does not hold " +
         std::to_string(n) + " rows of " + std::to_string(d));
  int64_t padding = embeddingPaddingIndex(attrs, v, "embedding_grad");
  for (int64_t i = 0; i < n; ++i) {
    int64_t row = indexAt(idx, i);
    if (row < 0 || row >= v)
      fail("embedding_grad: index " + std::to_string(row) +
           " out of range [0, " + std::to_string(v) + ")");
  }
  const float *pg = g.as<float>();
  float *pr = r.as<float>();
  std::fill(pr, pr + v * d, 0.0f);
  // Split over columns: every column sums its rows in index order. Rows
  // selecting `padding_idx` contribute nothing (aten.embedding_dense_backward).
  parallelFor(d, 8, [&](int64_t lo, int64_t hi) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t row = indexAt(idx, i);
      if (row == padding)
        continue;
      for (int64_t j = lo; j < hi; ++j)
        pr[row * d + j] += pg[i * d + j];
    }
  });
}

namespace {
enum class Reduction { Mean, Sum, None };
Reduction getReduction(const Attrs &attrs) {
  std::string r = attrs.getString("reduction");
  if (r == "mean")
    return Reduction::Mean;
  if (r == "sum")
    return Reduction::Sum;
  if (r == "none")
    return Reduction::None;
  fail("unknown loss reduction '" + r + "'");
}
} // namespace

void cross_entropy(ExecContext &, TensorList operands, TensorList results,
                   const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "logits"), &t = get(operands, 1, "targets");
  const Tensor &loss = get(results, 0, "loss"), &lse = get(results, 1, "lse");
  requireF32(x, "cross_entropy");
  requireF32(loss, "cross_entropy");
  requireF32(lse, "cross_entropy lse");
  requireIndex(t, "cross_entropy targets");
  Reduction red = getReduction(attrs);
  int64_t ignore = attrs.getInt("ignore_index", -100);
  if (x.rank < 1)
    fail("cross_entropy: logits need rank >= 1");
  int64_t c = x.shape[x.rank - 1], rows = t.numel();
  if (x.numel() != rows * c || lse.numel() != rows)
    fail("cross_entropy: logits " + shapeString(x) + ", targets " +
         shapeString(t) + " and lse " + shapeString(lse) + " do not match");
  if ((red == Reduction::None && loss.numel() != rows) ||
      (red != Reduction::None && loss.numel() != 1))
    fail("cross_entropy: loss " + shapeString(loss) + " does not fit the reduction");
  const float *px = x.as<float>();
  float *pl = lse.as<float>();
  std::vector<float> rowLoss(red == Reduction::None ? 0 : rows);
  float *out = red == Reduction::None ? loss.as<float>() : rowLoss.data();
  parallelFor(rows, kRowGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const float *row = px + r * c;
      float m = -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < c; ++j)
        m = std::max(m, row[j]);
      double s = 0.0;
      for (int64_t j = 0; j < c; ++j)
        s += std::exp(row[j] - m);
      float l = m + static_cast<float>(std::log(s));
      pl[r] = l;
      int64_t target = indexAt(t, r);
      if (target == ignore) {
        out[r] = 0.0f;
        continue;
      }
      if (target < 0 || target >= c)
        fail("cross_entropy: target " + std::to_string(target) +
             " out of range [0, " + std::to_string(c) + ")");
      out[r] = l - row[target];
    }
  });
  if (red == Reduction::None)
    return;
  double sum = 0.0;
  int64_t counted = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if (indexAt(t, r) == ignore)
      continue;
    sum += out[r];
    ++counted;
  }
  // `mean` over no counted row is 0/0 = NaN, as in PyTorch.
  loss.as<float>()[0] = red == Reduction::Sum
                            ? static_cast<float>(sum)
                            : static_cast<float>(sum / static_cast<double>(counted));
}

void cross_entropy_grad(ExecContext &, TensorList operands, TensorList results,
                        const Attrs &attrs, const Tensor &) {
  const Tensor &g = get(operands, 0, "grad"), &x = get(operands, 1, "logits");
  const Tensor &t = get(operands, 2, "targets"), &lse = get(operands, 3, "lse");
  const Tensor &r = get(results, 0, "result");
  requireF32(g, "cross_entropy_grad");
  requireF32(x, "cross_entropy_grad");
  requireF32(lse, "cross_entropy_grad lse");
  requireF32(r, "cross_entropy_grad");
  requireIndex(t, "cross_entropy_grad targets");
  requireSameShape(x, r, "cross_entropy_grad");
  Reduction red = getReduction(attrs);
  int64_t ignore = attrs.getInt("ignore_index", -100);
  int64_t c = x.rank < 1 ? 0 : x.shape[x.rank - 1], rows = t.numel();
  if (x.numel() != rows * c || lse.numel() != rows)
    fail("cross_entropy_grad: logits, targets and lse do not match");
  if ((red == Reduction::None && g.numel() != rows) ||
      (red != Reduction::None && g.numel() != 1))
    fail("cross_entropy_grad: grad " + shapeString(g) + " does not fit the reduction");
  float scale = 1.0f;
  if (red == Reduction::Mean) {
    int64_t counted = 0;
    for (int64_t i = 0; i < rows; ++i)
      counted += indexAt(t, i) != ignore;
    scale = static_cast<float>(1.0 / static_cast<double>(counted));
  }
  const float *pg = g.as<float>(), *px = x.as<float>(), *pl = lse.as<float>();
  float *pr = r.as<float>();
  parallelFor(rows, kRowGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      float *out = pr + i * c;
      const float *row = px + i * c;
      int64_t target = indexAt(t, i);
      if (target == ignore) {
        std::fill(out, out + c, 0.0f);
        continue;
      }
      if (target < 0 || target >= c)
        fail("cross_entropy_grad: target " + std::to_string(target) +
             " out of range [0, " + std::to_string(c) + ")");
      float dl = (red == Reduction::None ? pg[i] : pg[0]) * scale;
      for (int64_t j = 0; j < c; ++j) {
        float p = std::exp(row[j] - pl[i]);
        out[j] = (p - (j == target ? 1.0f : 0.0f)) * dl;
      }
    }
  });
}

void mse_loss(ExecContext &, TensorList operands, TensorList results,
              const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input"), &t = get(operands, 1, "target");
  const Tensor &loss = get(results, 0, "loss");
  requireF32(x, "mse_loss");
  requireF32(t, "mse_loss target");
  requireF32(loss, "mse_loss");
  requireSameShape(x, t, "mse_loss");
  if (loss.numel() != 1)
    fail("mse_loss: loss " + shapeString(loss) + " is not a scalar");
  Reduction red = getReduction(attrs);
  if (red == Reduction::None)
    fail("mse_loss: reduction 'none' is not supported");
  const float *px = x.as<float>(), *pt = t.as<float>();
  int64_t n = x.numel();
  // Each difference and square in f32, as PyTorch forms them; the squares
  // add up in double in element order (deterministic), rounded once.
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    float d = px[i] - pt[i];
    sum += static_cast<double>(d * d);
  }
  // `mean` of no element is 0/0 = NaN, as in PyTorch.
  loss.as<float>()[0] =
      red == Reduction::Sum
          ? static_cast<float>(sum)
          : static_cast<float>(sum / static_cast<double>(n));
}

void mse_loss_grad(ExecContext &, TensorList operands, TensorList results,
                   const Attrs &attrs, const Tensor &) {
  const Tensor &g = get(operands, 0, "grad"), &x = get(operands, 1, "input");
  const Tensor &t = get(operands, 2, "target");
  const Tensor &r = get(results, 0, "result");
  requireF32(g, "mse_loss_grad");
  requireF32(x, "mse_loss_grad");
  requireF32(t, "mse_loss_grad target");
  requireF32(r, "mse_loss_grad");
  requireSameShape(x, t, "mse_loss_grad");
  requireSameShape(x, r, "mse_loss_grad");
  if (g.numel() != 1)
    fail("mse_loss_grad: grad " + shapeString(g) + " is not a scalar");
  Reduction red = getReduction(attrs);
  if (red == Reduction::None)
    fail("mse_loss_grad: reduction 'none' is not supported");
  int64_t n = x.numel();
  // aten.mse_loss_backward: alpha = 2/N in double, rounded to f32, then
  // (alpha * (x - t)) * grad.
  float alpha = red == Reduction::Sum
                    ? 2.0f
                    : static_cast<float>(2.0 / static_cast<double>(n));
  float dl = g.as<float>()[0];
  const float *px = x.as<float>(), *pt = t.as<float>();
  float *pr = r.as<float>();
  parallelFor(n, kElementGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      pr[i] = alpha * (px[i] - pt[i]) * dl;
  });
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

namespace {
enum class ReduceKind { Sum, Mean, Max };

void reduce(TensorList operands, TensorList results, const Attrs &attrs,
            ReduceKind kind, const char *name) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &y = get(results, 0, "result");
  requireF32(x, name);
  requireF32(y, name);
  size_t n = 0;
  const int64_t *axes = attrs.getInts("axes", n);
  std::vector<bool> reduced(x.rank, false);
  for (size_t i = 0; i < n; ++i) {
    if (axes[i] < 0 || axes[i] >= x.rank || reduced[axes[i]])
      fail(std::string(name) + ": bad axes");
    reduced[axes[i]] = true;
  }
  std::vector<int64_t> strides = stridesOf(x);
  std::vector<int64_t> keptDims, keptStrides, redDims, redStrides;
  int64_t redCount = 1;
  for (int d = 0; d < x.rank; ++d) {
    if (reduced[d]) {
      redDims.push_back(x.shape[d]);
      redStrides.push_back(strides[d]);
      redCount *= x.shape[d];
    } else {
      keptDims.push_back(x.shape[d]);
      keptStrides.push_back(strides[d]);
    }
  }
  int64_t outCount = 1;
  for (int64_t d : keptDims)
    outCount *= d;
  if (y.numel() != outCount)
    fail(std::string(name) + ": result " + shapeString(y) +
         " does not match the reduction of " + shapeString(x));
  if (kind == ReduceKind::Max && redCount == 0 && outCount > 0)
    fail(std::string(name) + ": maximum over an empty set");
  const float *px = x.as<float>();
  float *py = y.as<float>();
  parallelFor(outCount, kRowGrain, [&](int64_t lo, int64_t hi) {
    std::vector<int64_t> idx(redDims.size());
    for (int64_t o = lo; o < hi; ++o) {
      int64_t base = 0, rem = o;
      for (int d = static_cast<int>(keptDims.size()) - 1; d >= 0; --d) {
        base += (rem % keptDims[d]) * keptStrides[d];
        rem /= keptDims[d];
      }
      std::fill(idx.begin(), idx.end(), 0);
      double acc = 0.0;
      float best = -std::numeric_limits<float>::infinity();
      int64_t off = base;
      for (int64_t k = 0; k < redCount; ++k) {
        float v = px[off];
        if (kind == ReduceKind::Max)
          best = (v > best || std::isnan(v)) && !std::isnan(best) ? v : best;
        else
          acc += v;
        // Odometer over the reduced dimensions, last fastest.
        for (int d = static_cast<int>(redDims.size()) - 1; d >= 0; --d) {
          off += redStrides[d];
          if (++idx[d] < redDims[d])
            break;
          off -= redStrides[d] * redDims[d];
          idx[d] = 0;
        }
      }
      if (kind == ReduceKind::Max)
        py[o] = best;
      else if (kind == ReduceKind::Mean)
        py[o] = static_cast<float>(acc / static_cast<double>(redCount));
      else
        py[o] = static_cast<float>(acc);
    }
  });
}
} // namespace

void reduce_sum(ExecContext &, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  reduce(operands, results, attrs, ReduceKind::Sum, "reduce_sum");
}
void reduce_mean(ExecContext &, TensorList operands, TensorList results,
                 const Attrs &attrs, const Tensor &) {
  reduce(operands, results, attrs, ReduceKind::Mean, "reduce_mean");
}
void reduce_max(ExecContext &, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  reduce(operands, results, attrs, ReduceKind::Max, "reduce_max");
}

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

void reshape(ExecContext &, TensorList operands, TensorList results,
             const Attrs &, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &y = get(results, 0, "result");
  requireSameDType(x, y, "reshape");
  if (x.numel() != y.numel())
    fail("reshape: " + shapeString(x) + " and " + shapeString(y) +
         " differ in size");
  // A view: the result normally shares the input's storage.
  if (x.data != y.data)
    std::memmove(y.data, x.data, x.bytes());
}

void transpose(ExecContext &, TensorList operands, TensorList results,
               const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &y = get(results, 0, "result");
  requireSameDType(x, y, "transpose");
  size_t n = 0;
  const int64_t *perm = attrs.getInts("perm", n);
  if (static_cast<int>(n) != x.rank || y.rank != x.rank)
    fail("transpose: perm does not match the rank");
  std::vector<bool> seen(n, false);
  std::vector<int64_t> xs = stridesOf(x), src(n);
  bool view = true;
  int64_t last = -1;
  for (size_t i = 0; i < n; ++i) {
    if (perm[i] < 0 || perm[i] >= x.rank || seen[perm[i]])
      fail("transpose: perm is not a permutation");
    seen[perm[i]] = true;
    if (y.shape[i] != x.shape[perm[i]])
      fail("transpose: result " + shapeString(y) + " does not match");
    src[i] = xs[perm[i]];
    if (x.shape[perm[i]] > 1) {
      view = view && perm[i] > last;
      last = perm[i];
    }
  }
  if (view) {
    if (x.data != y.data)
      std::memmove(y.data, x.data, x.bytes());
    return;
  }
  if (overlaps(x, y))
    fail("transpose: a copying transpose cannot write over its input");
  stridedCopy(y, static_cast<const char *>(x.data), 0, src);
}

void broadcast(ExecContext &, TensorList operands, TensorList results,
               const Attrs &, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &y = get(results, 0, "result");
  requireSameDType(x, y, "broadcast");
  if (overlaps(x, y))
    fail("broadcast: the result overlaps the input");
  std::vector<int64_t> s = broadcastStrides(x, y, "broadcast input");
  stridedCopy(y, static_cast<const char *>(x.data), 0, s);
}

void slice(ExecContext &, TensorList operands, TensorList results,
           const Attrs &attrs, const Tensor &) {
  const Tensor &x = get(operands, 0, "input");
  const Tensor &y = get(results, 0, "result");
  requireSameDType(x, y, "slice");
  size_t ns = 0, nt = 0;
  const int64_t *starts = attrs.getInts("starts", ns);
  const int64_t *steps = attrs.getInts("steps", nt);
  if (static_cast<int>(ns) != x.rank || static_cast<int>(nt) != x.rank ||
      y.rank != x.rank)
    fail("slice: starts/steps do not match the rank");
  std::vector<int64_t> xs = stridesOf(x), src(x.rank);
  int64_t base = 0;
  for (int d = 0; d < x.rank; ++d) {
    if (y.shape[d] > 0) {
      int64_t first = starts[d], lastIdx = starts[d] + (y.shape[d] - 1) * steps[d];
      if (first < 0 || first >= x.shape[d] || lastIdx < 0 || lastIdx >= x.shape[d])
        fail("slice: dimension " + std::to_string(d) + " reads outside " +
             shapeString(x));
    }
    base += starts[d] * xs[d];
    src[d] = steps[d] * xs[d];
  }
  if (overlaps(x, y))
    fail("slice: the result overlaps the input");
  if (y.numel() == 0)
    return;
  stridedCopy(y, static_cast<const char *>(x.data), base, src);
}

void concat(ExecContext &, TensorList operands, TensorList results,
            const Attrs &attrs, const Tensor &) {
  const Tensor &y = get(results, 0, "result");
  int64_t axis = attrs.getInt("axis");
  AxisView yv = axisView(y, axis);
  size_t eb = elementBytes(y.dtype);
  int64_t total = 0;
  for (size_t i = 0; i < operands.size; ++i) {
    const Tensor &x = get(operands, i, "input");
    requireSameDType(x, y, "concat");
    if (x.rank != y.rank)
      fail("concat: ranks differ");
    for (int d = 0; d < y.rank; ++d)
      if (d != axis && x.shape[d] != y.shape[d])
        fail("concat: input " + shapeString(x) + " does not match " + shapeString(y));
    if (overlaps(x, y))
      fail("concat: the result overlaps an input");
    total += x.shape[axis];
  }
  if (total != y.shape[axis])
    fail("concat: sizes along the axis do not add up");
  char *dst = static_cast<char *>(y.data);
  int64_t rowBytes = yv.extent * yv.inner * eb;
  int64_t at = 0;
  for (size_t i = 0; i < operands.size; ++i) {
    const Tensor &x = operands[i];
    int64_t chunk = x.shape[axis] * yv.inner * eb;
    const char *src = static_cast<const char *>(x.data);
    parallelFor(yv.outer, kRowGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t o = lo; o < hi; ++o)
        std::memcpy(dst + o * rowBytes + at, src + o * chunk, chunk);
    });
    at += chunk;
  }
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

void fill(ExecContext &, TensorList, TensorList results, const Attrs &attrs,
          const Tensor &) {
  const Tensor &r = get(results, 0, "result");
  double value = attrs.getFloat("value");
  int64_t n = r.numel();
  switch (r.dtype) {
  case DType::F32: {
    float v = static_cast<float>(value);
    float *pr = r.as<float>();
    parallelFor(n, kElementGrain, [&](int64_t lo, int64_t hi) {
      std::fill(pr + lo, pr + hi, v);
    });
    return;
  }
  case DType::I32:
    std::fill(r.as<int32_t>(), r.as<int32_t>() + n, static_cast<int32_t>(value));
    return;
  case DType::I64:
    std::fill(r.as<int64_t>(), r.as<int64_t>() + n, static_cast<int64_t>(value));
    return;
  case DType::I1: // one byte per element; the verifier allows 0 and 1 only
    std::fill(r.as<uint8_t>(), r.as<uint8_t>() + n, static_cast<uint8_t>(value != 0.0));
    return;
  default:
    fail("fill: result must be f32, i1, i32 or i64");
  }
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

void sgd_update(ExecContext &, TensorList operands, TensorList results,
                const Attrs &attrs, const Tensor &) {
  const Tensor &p = get(operands, 0, "param"), &g = get(operands, 1, "grad");
  const Tensor &r = get(results, 0, "result");
  requireF32(p, "sgd_update");
  requireF32(g, "sgd_update");
  requireF32(r, "sgd_update");
  requireSameShape(p, g, "sgd_update");
  requireSameShape(p, r, "sgd_update");
  float lr = static_cast<float>(attrs.getFloat("lr"));
  const float *pp = p.as<float>(), *pg = g.as<float>();
  float *pr = r.as<float>();
  parallelFor(p.numel(), kElementGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      pr[i] = pp[i] - lr * pg[i];
  });
}

void adamw_update(ExecContext &, TensorList operands, TensorList results,
                  const Attrs &attrs, const Tensor &) {
  const Tensor &p = get(operands, 0, "param"), &g = get(operands, 1, "grad");
  const Tensor &m = get(operands, 2, "exp_avg"), &v = get(operands, 3, "exp_avg_sq");
  const Tensor &rp = get(results, 0, "result"), &rm = get(results, 1, "new_exp_avg");
  const Tensor &rv = get(results, 2, "new_exp_avg_sq");
  for (const Tensor *t : {&p, &g, &m, &v, &rp, &rm, &rv}) {
    requireF32(*t, "adamw_update");
    requireSameShape(*t, p, "adamw_update");
  }
  double lr = attrs.getFloat("lr"), b1 = attrs.getFloat("beta1"),
         b2 = attrs.getFloat("beta2"), eps = attrs.getFloat("eps"),
         wd = attrs.getFloat("weight_decay");
  int64_t step = attrs.getInt("step");
  if (step < 1)
    fail("adamw_update: step must be >= 1");
  double bc1 = 1.0 - std::pow(b1, static_cast<double>(step));
  double bc2 = 1.0 - std::pow(b2, static_cast<double>(step));
  const float *pp = p.as<float>(), *pg = g.as<float>(), *pm = m.as<float>(),
              *pv = v.as<float>();
  float *op = rp.as<float>(), *om = rm.as<float>(), *ov = rv.as<float>();
  // Per element in double, rounded once per stored value; every element is
  // read before any result at its index is written (results may alias).
  parallelFor(p.numel(), kElementGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      double gi = pg[i], pi = pp[i];
      float mi = static_cast<float>(b1 * pm[i] + (1.0 - b1) * gi);
      float vi = static_cast<float>(b2 * pv[i] + (1.0 - b2) * gi * gi);
      double mhat = mi / bc1, vhat = vi / bc2;
      float np = static_cast<float>(pi - lr * (mhat / (std::sqrt(vhat) + eps) + wd * pi));
      om[i] = mi;
      ov[i] = vi;
      op[i] = np;
    }
  });
}

} // namespace ckpt::rt::kernels
