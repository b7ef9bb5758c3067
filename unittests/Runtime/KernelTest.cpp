//===- KernelTest.cpp - GEMMs, elementwise, softmax, dropout, loss, shapes ==//
//
// Each kernel against a naive double-precision reference on small random
// shapes; each gradient kernel against central finite differences of its
// forward kernel (eps 1e-2 on O(1) inputs; tolerance 2e-3 absolute + 2e-2
// relative, which float rounding of the forward pass and the O(eps^2)
// truncation error stay well inside).
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include "KernelSupport.h"
#include "Philox.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace ckpt::rt;
using namespace ckpt::rt::test;

namespace {

//===--- Matrix products ---------------------------------------------------===//

/// Naive op(A) x op(B) in double.
std::vector<double> refMatmul(const float *a, const float *b, int64_t m,
                              int64_t n, int64_t k, bool ta, bool tb) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += static_cast<double>(ta ? a[p * m + i] : a[i * k + p]) *
             (tb ? b[j * k + p] : b[p * n + j]);
      c[i * n + j] = s;
    }
  return c;
}

TEST(KernelTest, MatmulTransposeFlags) {
  const int64_t m = 5, n = 7, k = 3;
  for (int flags = 0; flags < 4; ++flags) {
    bool ta = flags & 1, tb = flags & 2;
    Buf a(ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k});
    Buf b(tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n});
    Buf c({m, n});
    fillRandom(a, 1 + flags);
    fillRandom(b, 11 + flags);
    std::vector<Attr> attrs;
    if (ta)
      attrs.push_back(unitAttr("transpose_lhs"));
    if (tb)
      attrs.push_back(unitAttr("transpose_rhs"));
    call(kernels::matmul, {a.t(), b.t()}, {c.t()}, attrs);
    expectClose(c.values(), refMatmul(a.f(), b.f(), m, n, k, ta, tb), 1e-5, 1e-5,
                "matmul");
  }
}

TEST(KernelTest, MatmulAcrossGemmTiles) {
  // More rows and columns than one GEMM tile, so that every tile's operand
  // offsets (with and without transposes) are exercised.
  const int64_t m = 2 * ckpt::rt::detail::kGemmTileRows + 3,
                n = ckpt::rt::detail::kGemmTileCols + 5, k = 3;
  for (int flags = 0; flags < 4; ++flags) {
    bool ta = flags & 1, tb = flags & 2;
    Buf a(ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k});
    Buf b(tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n});
    Buf c({m, n});
    fillRandom(a, 3 + flags);
    fillRandom(b, 13 + flags);
    std::vector<Attr> attrs;
    if (ta)
      attrs.push_back(unitAttr("transpose_lhs"));
    if (tb)
      attrs.push_back(unitAttr("transpose_rhs"));
    ckpt::rt::detail::setThreadCount(2);
    call(kernels::matmul, {a.t(), b.t()}, {c.t()}, attrs);
    ckpt::rt::detail::setThreadCount(1);
    expectClose(c.values(), refMatmul(a.f(), b.f(), m, n, k, ta, tb), 1e-5, 1e-5,
                "tiled matmul");
  }
}

TEST(KernelTest, BatchMatmulBroadcast) {
  // lhs [2, 1, 4, 3], rhs [1, 3, 5, 3] with transpose_rhs -> [2, 3, 4, 5].
  Buf a({2, 1, 4, 3}), b({1, 3, 5, 3}), c({2, 3, 4, 5});
  fillRandom(a, 2);
  fillRandom(b, 3);
  call(kernels::batch_matmul, {a.t(), b.t()}, {c.t()}, {unitAttr("transpose_rhs")});
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      std::vector<double> r = refMatmul(a.f() + i * 12, b.f() + j * 15, 4, 5, 3,
                                        false, true);
      want.insert(want.end(), r.begin(), r.end());
    }
  expectClose(c.values(), want, 1e-5, 1e-5, "batch_matmul");
}

TEST(KernelTest, LinearWithAndWithoutBias) {
  Buf x({2, 3, 4}), w({5, 4}), b({5}), y({2, 3, 5}), y2({2, 3, 5});
  fillRandom(x, 4);
  fillRandom(w, 5);
  fillRandom(b, 6);
  std::vector<double> want = refMatmul(x.f(), w.f(), 6, 5, 4, false, true);
  call(kernels::linear, {x.t(), w.t(), Tensor()}, {y.t()});
  expectClose(y.values(), want, 1e-5, 1e-5, "linear no bias");
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j)
      want[i * 5 + j] += b.f()[j];
  call(kernels::linear, {x.t(), w.t(), b.t()}, {y.t()});
  expectClose(y.values(), want, 1e-5, 1e-5, "linear");
  // Only the present operands, with the bias slot missing.
  call(kernels::linear, {x.t(), w.t()}, {y2.t()});
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j)
      want[i * 5 + j] -= b.f()[j];
  expectClose(y2.values(), want, 1e-5, 1e-5, "linear two operands");
}

//===--- Elementwise -------------------------------------------------------===//

TEST(KernelTest, BinaryBroadcasting) {
  Buf a({3, 1, 4}), b({2, 1}), r({3, 2, 4});
  fillRandom(a, 7);
  fillRandom(b, 8, 0.5f, 2.0f);
  struct Case {
    KernelFn fn;
    double (*ref)(double, double);
  } cases[] = {{kernels::add, [](double x, double y) { return x + y; }},
               {kernels::sub, [](double x, double y) { return x - y; }},
               {kernels::mul, [](double x, double y) { return x * y; }},
               {kernels::div, [](double x, double y) { return x / y; }}};
  for (const Case &c : cases) {
    call(c.fn, {a.t(), b.t()}, {r.t()});
    std::vector<double> want;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j)
        for (int k = 0; k < 4; ++k)
          want.push_back(c.ref(a.f()[i * 4 + k], b.f()[j]));
    expectClose(r.values(), want, 1e-6, 1e-6, "binary");
  }
  // Scalar (rank 0) operand.
  Buf s(std::vector<int64_t>{}), r2({3, 1, 4});
  s.f()[0] = 2.0f;
  call(kernels::mul, {a.t(), s.t()}, {r2.t()});
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(r2.f()[i], a.f()[i] * 2.0f);
  // Mismatched shapes are refused.
  Buf bad({5});
  EXPECT_THROW(call(kernels::add, {a.t(), bad.t()}, {r.t()}), KernelError);
}

TEST(KernelTest, ElementwiseInPlace) {
  Buf a({64}), b({64});
  fillRandom(a, 9);
  fillRandom(b, 10);
  std::vector<float> want(64);
  for (int i = 0; i < 64; ++i)
    want[i] = a.f()[i] * b.f()[i];
  call(kernels::mul, {a.t(), b.t()}, {a.t()}); // result aliases lhs
  EXPECT_EQ(a.values(), want);
  for (int i = 0; i < 64; ++i)
    want[i] = std::tanh(want[i]);
  call(kernels::tanh, {a.t()}, {a.t()});
  EXPECT_EQ(a.values(), want);
  // A result over a broadcast operand (same aligned size in the plan): the
  // operand is read from a copy, so the result is as without aliasing.
  Buf shared({4, 16}), lhs({4, 16}), want2({4, 16});
  fillRandom(shared, 11);
  fillRandom(lhs, 12);
  Tensor row(shared.data(), DType::F32, {16});
  Buf rowCopy({16});
  std::memcpy(rowCopy.data(), shared.data(), 64);
  call(kernels::sub, {lhs.t(), rowCopy.t()}, {want2.t()});
  call(kernels::sub, {lhs.t(), row}, {shared.t()});
  EXPECT_TRUE(sameBits(shared, want2));
  // Too large to copy aside: refused rather than wrong.
  Buf huge({2, 8192});
  Tensor hugeRow(huge.data(), DType::F32, {8192});
  EXPECT_THROW(call(kernels::add, {huge.t(), hugeRow}, {huge.t()}), KernelError);
  // dropout_grad whose result takes over the mask's storage.
  Buf storage({16}), dy({16}), dx({16});
  fillRandom(dy, 13);
  uint8_t bits[16] = {1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1};
  std::memcpy(storage.data(), bits, 16);
  Tensor mask(storage.data(), DType::I1, {16});
  call(kernels::dropout_grad, {dy.t(), mask}, {dx.t()}, {floatAttr("p", 0.5)});
  call(kernels::dropout_grad, {dy.t(), mask}, {storage.t()}, {floatAttr("p", 0.5)});
  EXPECT_TRUE(sameBits(storage, dx));
}

TEST(KernelTest, UnaryAndActivations) {
  Buf x({50}), y({50});
  fillRandom(x, 12, 0.1f, 3.0f); // positive: log, sqrt, rsqrt, pow
  struct Case {
    KernelFn fn;
    std::vector<Attr> attrs;
    double (*ref)(double);
  } cases[] = {
      {kernels::neg, {}, [](double v) { return -v; }},
      {kernels::exp, {}, [](double v) { return std::exp(v); }},
      {kernels::log, {}, [](double v) { return std::log(v); }},
      {kernels::sqrt, {}, [](double v) { return std::sqrt(v); }},
      {kernels::rsqrt, {}, [](double v) { return 1 / std::sqrt(v); }},
      {kernels::tanh, {}, [](double v) { return std::tanh(v); }},
      {kernels::pow, {floatAttr("exponent", 1.5)}, [](double v) { return std::pow(v, 1.5); }},
      {kernels::sigmoid, {}, [](double v) { return 1 / (1 + std::exp(-v)); }},
      {kernels::silu, {}, [](double v) { return v / (1 + std::exp(-v)); }},
      {kernels::gelu, {stringAttr("approximation", "erf")},
       [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }},
      {kernels::gelu, {stringAttr("approximation", "tanh")},
       [](double v) {
         return 0.5 * v *
                (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
       }},
  };
  for (int sign = 0; sign < 2; ++sign) {
    if (sign) // negative inputs for the functions defined there
      for (int i = 0; i < 50; ++i)
        x.f()[i] = -x.f()[i];
    for (Case &c : cases) {
      if (sign && (c.fn == kernels::log || c.fn == kernels::sqrt ||
                   c.fn == kernels::rsqrt || c.fn == kernels::pow))
        continue;
      call(c.fn, {x.t()}, {y.t()}, c.attrs);
      std::vector<double> want;
      for (int i = 0; i < 50; ++i)
        want.push_back(c.ref(x.f()[i]));
      expectClose(y.values(), want, 1e-6, 1e-5, "unary");
    }
  }
  x.f()[0] = -1;
  x.f()[1] = 2;
  x.f()[2] = 0;
  call(kernels::relu, {x.t()}, {y.t()});
  EXPECT_EQ(y.f()[0], 0.0f);
  EXPECT_EQ(y.f()[1], 2.0f);
  EXPECT_EQ(y.f()[2], 0.0f);
  EXPECT_THROW(call(kernels::gelu, {x.t()}, {y.t()}, {stringAttr("approximation", "x")}),
               KernelError);
  Buf i32({50}, DType::I32);
  EXPECT_THROW(call(kernels::exp, {i32.t()}, {y.t()}), KernelError);
}

/// Checks `gradKernel(dy, saved)` against finite differences of `fwd`.
void checkActivationGrad(KernelFn fwd, KernelFn grad, std::vector<Attr> attrs,
                         bool savedIsOutput, uint32_t seed) {
  Buf x({40}), y({40}), dy({40}), dx({40});
  fillRandom(x, seed, -2.0f, 2.0f);
  for (int i = 0; i < 40; ++i) // keep away from relu's kink
    if (std::abs(x.f()[i]) < 0.05f)
      x.f()[i] = 0.3f;
  fillRandom(dy, seed + 1);
  call(fwd, {x.t()}, {y.t()}, attrs);
  call(grad, {dy.t(), savedIsOutput ? y.t() : x.t()}, {dx.t()}, attrs);
  std::vector<double> num = numericGrad(x, [&] {
    Buf out({40});
    call(fwd, {x.t()}, {out.t()}, attrs);
    return weightedSum(out, dy);
  }, 1e-3f);
  expectClose(dx.values(), num, kFdAtol, kFdRtol, "activation grad");
}

TEST(KernelTest, ActivationGradsMatchFiniteDifferences) {
  checkActivationGrad(kernels::relu, kernels::relu_grad, {}, true, 20);
  checkActivationGrad(kernels::sigmoid, kernels::sigmoid_grad, {}, true, 21);
  checkActivationGrad(kernels::tanh, kernels::tanh_grad, {}, true, 22);
  checkActivationGrad(kernels::silu, kernels::silu_grad, {}, false, 23);
  checkActivationGrad(kernels::gelu, kernels::gelu_grad,
                      {stringAttr("approximation", "erf")}, false, 24);
  checkActivationGrad(kernels::gelu, kernels::gelu_grad,
                      {stringAttr("approximation", "tanh")}, false, 25);
}

TEST(KernelTest, ClampAndGradAtBoundsAndNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<Attr> relu6 = {floatAttr("min", 0.0), floatAttr("max", 6.0)};
  Buf x({10}), y({10}), dy({10}), dx({10});
  x.set({-7.0f, 0.0f, -0.0f, 3.0f, 6.0f, 6.5f, nan, inf, -inf, 1e-30f});
  call(kernels::clamp, {x.t()}, {y.t()}, relu6);
  std::vector<float> want = {0.0f, 0.0f, -0.0f, 3.0f, 6.0f,
                             6.0f, nan,  6.0f,  0.0f, 1e-30f};
  for (int i = 0; i < 10; ++i) {
    // NaN propagates; -0 is inside [0, 6] and stays -0, as in torch.
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(y.f()[i])) << i;
    else
      EXPECT_EQ(y.f()[i], want[i]) << i;
    EXPECT_EQ(std::signbit(y.f()[i]), std::signbit(want[i])) << i;
  }
  // aten.hardtanh_backward: zero at the bounds (0 and -0 included), dy
  // strictly inside and for NaN.
  dy.set({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  call(kernels::clamp_grad, {dy.t(), x.t()}, {dx.t()}, relu6);
  EXPECT_EQ(dx.values(),
            (std::vector<float>{0, 0, 0, 4, 0, 0, 7, 0, 0, 10}));

  // Bounds round to f32 as torch rounds its scalars: x just below
  // float(0.1) clamps to it, and float(0.1) itself is a bound for the grad.
  float lo = static_cast<float>(0.1);
  std::vector<Attr> tenth = {floatAttr("min", 0.1), floatAttr("max", 0.5)};
  Buf b({3}), by({3}), bdy({3}), bdx({3});
  b.set({std::nextafter(lo, 0.0f), lo, std::nextafter(lo, 1.0f)});
  call(kernels::clamp, {b.t()}, {by.t()}, tenth);
  EXPECT_EQ(by.values(), (std::vector<float>{lo, lo, b.f()[2]}));
  bdy.set({1, 1, 1});
  call(kernels::clamp_grad, {bdy.t(), b.t()}, {bdx.t()}, tenth);
  EXPECT_EQ(bdx.values(), (std::vector<float>{0, 0, 1}));

  // In place, as the memory planner may run it.
  Buf z({64}), zWant({64});
  fillRandom(z, 31, -3.0f, 3.0f);
  std::vector<Attr> unit = {floatAttr("min", -1.0), floatAttr("max", 1.0)};
  call(kernels::clamp, {z.t()}, {zWant.t()}, unit);
  call(kernels::clamp, {z.t()}, {z.t()}, unit);
  EXPECT_TRUE(sameBits(z, zWant));

  // Bad bounds are refused rather than computed.
  EXPECT_THROW(call(kernels::clamp, {x.t()}, {y.t()},
                    {floatAttr("min", 6.0), floatAttr("max", 0.0)}),
               KernelError);
  EXPECT_THROW(call(kernels::clamp_grad, {dy.t(), x.t()}, {dx.t()},
                    {floatAttr("min", nan), floatAttr("max", 0.0)}),
               KernelError);
  EXPECT_THROW(call(kernels::clamp, {x.t()}, {y.t()}, {floatAttr("min", 0.0)}),
               KernelError);
}

TEST(KernelTest, ClampGradMatchesFiniteDifferences) {
  // Inputs in [-2, 2]: some clipped on each side. No sample of this seed lies
  // within eps of the kinks at +-1.2, where finite differences are undefined.
  checkActivationGrad(kernels::clamp, kernels::clamp_grad,
                      {floatAttr("min", -1.2), floatAttr("max", 1.2)}, false,
                      26);
}

TEST(KernelTest, HardActivationsAtBoundsAndNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Buf x({9}), y({9}), dy({9}), dx({9});
  x.set({-4.0f, -3.0f, -1.5f, 0.0f, -0.0f, 1.5f, 3.0f, 4.0f, nan});
  // hardswish = x * min(max(x + 3, 0), 6) / 6: -0 below -3 and at -3
  // (a negative times +0), x itself from 3 on, NaN propagates.
  call(kernels::hardswish, {x.t()}, {y.t()});
  std::vector<float> want = {-0.0f,  -0.0f, -0.375f, 0.0f, -0.0f,
                             1.125f, 3.0f,  4.0f,    nan};
  for (int i = 0; i < 9; ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(y.f()[i])) << i;
    else
      EXPECT_EQ(y.f()[i], want[i]) << i;
    EXPECT_EQ(std::signbit(y.f()[i]), std::signbit(want[i])) << i;
  }
  // hardswish_grad, PyTorch 2's form: 0 up to -3 (included), dy * (x/3 + 1/2)
  // on (-3, 3), dy from 3 on, NaN for NaN.
  dy.set({2, 2, 2, 2, 2, 2, 2, 2, 2});
  call(kernels::hardswish_grad, {dy.t(), x.t()}, {dx.t()});
  std::vector<float> wantGrad = {0.0f, 0.0f, 0.0f, 1.0f, 1.0f,
                                 2.0f, 2.0f,  2.0f};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(dx.f()[i], wantGrad[i]) << i;
  EXPECT_TRUE(std::isnan(dx.f()[8]));
  // hardsigmoid = min(max(x + 3, 0), 6) / 6.
  call(kernels::hardsigmoid, {x.t()}, {y.t()});
  std::vector<float> wantSig = {0.0f, 0.0f,  0.25f, 0.5f,
                                0.5f, 0.75f, 1.0f,  1.0f};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(y.f()[i], wantSig[i]) << i;
  EXPECT_TRUE(std::isnan(y.f()[8]));
  // hardsigmoid_grad: dy * float(1/6) strictly inside (-3, 3); zero at the
  // bounds and for NaN.
  dy.set({5, 5, 5, 5, 5, 5, 5, 5, 5});
  call(kernels::hardsigmoid_grad, {dy.t(), x.t()}, {dx.t()});
  float inside = 5.0f * (1.0f / 6.0f);
  EXPECT_EQ(dx.values(), (std::vector<float>{0, 0, inside, inside, inside,
                                             inside, 0, 0, 0}));
}

TEST(KernelTest, HardActivationGradsMatchFiniteDifferences) {
  // Inputs in [-2, 2]: inside (-3, 3), where both are smooth.
  checkActivationGrad(kernels::hardswish, kernels::hardswish_grad, {}, false,
                      27);
  checkActivationGrad(kernels::hardsigmoid, kernels::hardsigmoid_grad, {},
                      false, 28);
}

TEST(KernelTest, SinAndCos) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Buf x({5}), s({5}), c({5});
  x.set({0.0f, -0.0f, 1.0f, inf, nan});
  call(kernels::sin, {x.t()}, {s.t()});
  call(kernels::cos, {x.t()}, {c.t()});
  EXPECT_EQ(s.f()[0], 0.0f);
  EXPECT_TRUE(std::signbit(s.f()[1])); // sin(-0) = -0
  EXPECT_EQ(c.f()[0], 1.0f);
  EXPECT_EQ(c.f()[1], 1.0f);
  // sin^2 + cos^2 = 1 to rounding; sin(1) to six digits.
  EXPECT_NEAR(s.f()[2], 0.841471f, 1e-6f);
  EXPECT_NEAR(s.f()[2] * s.f()[2] + c.f()[2] * c.f()[2], 1.0f, 2e-7f);
  for (int i = 3; i < 5; ++i) { // infinity and NaN give NaN
    EXPECT_TRUE(std::isnan(s.f()[i])) << i;
    EXPECT_TRUE(std::isnan(c.f()[i])) << i;
  }
}

/// The elements of an integer buffer as a vector of T.
template <typename T> std::vector<T> elementsOf(Buf &b) {
  const T *p = static_cast<const T *>(b.data());
  return std::vector<T>(p, p + b.numel());
}

TEST(KernelTest, AbsAndNegWrapOnIntegers) {
  // Two's complement, as PyTorch: the minimum is its own negation and
  // absolute value; the maximum negates exactly.
  const int32_t min32 = std::numeric_limits<int32_t>::min(),
                max32 = std::numeric_limits<int32_t>::max();
  Buf x({5}, DType::I32), y({5}, DType::I32);
  int32_t in32[5] = {-5, 0, 7, min32, max32};
  std::memcpy(x.data(), in32, sizeof in32);
  call(kernels::abs, {x.t()}, {y.t()});
  EXPECT_EQ(elementsOf<int32_t>(y),
            (std::vector<int32_t>{5, 0, 7, min32, max32}));
  call(kernels::neg, {x.t()}, {y.t()});
  EXPECT_EQ(elementsOf<int32_t>(y),
            (std::vector<int32_t>{5, 0, -7, min32, -max32}));
  const int64_t min64 = std::numeric_limits<int64_t>::min();
  Buf a({4}, DType::I64), b({4}, DType::I64);
  int64_t in64[4] = {-(int64_t(1) << 40), 3, min64, -1};
  std::memcpy(a.data(), in64, sizeof in64);
  call(kernels::abs, {a.t()}, {b.t()});
  EXPECT_EQ(elementsOf<int64_t>(b),
            (std::vector<int64_t>{int64_t(1) << 40, 3, min64, 1}));
  call(kernels::neg, {a.t()}, {a.t()}); // in place
  EXPECT_EQ(elementsOf<int64_t>(a),
            (std::vector<int64_t>{int64_t(1) << 40, -3, min64, 1}));
  // Mixed element types are refused.
  EXPECT_THROW(call(kernels::abs, {x.t()}, {b.t()}), KernelError);
}

TEST(KernelTest, AbsOnFloatsClearsTheSignBit) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Buf x({4}), y({4});
  x.set({-1.5f, -0.0f, -inf, -nan});
  call(kernels::abs, {x.t()}, {y.t()});
  EXPECT_EQ(y.f()[0], 1.5f);
  EXPECT_EQ(y.f()[1], 0.0f);
  EXPECT_FALSE(std::signbit(y.f()[1])); // |-0| = +0
  EXPECT_EQ(y.f()[2], inf);
  EXPECT_TRUE(std::isnan(y.f()[3]));
  EXPECT_FALSE(std::signbit(y.f()[3]));
  call(kernels::neg, {x.t()}, {y.t()}); // floats unchanged: -(-0) = +0
  EXPECT_EQ(y.f()[0], 1.5f);
  EXPECT_FALSE(std::signbit(y.f()[1]));
  EXPECT_EQ(y.f()[2], inf);
}

TEST(KernelTest, MinimumMaximumBroadcastNaNAndZeros) {
  // i64 [2,1] against [3]: min / max of every pair.
  Buf a({2, 1}, DType::I64), b({3}, DType::I64), r({2, 3}, DType::I64);
  int64_t av[2] = {-3, 9}, bv[3] = {0, 5, -7};
  std::memcpy(a.data(), av, sizeof av);
  std::memcpy(b.data(), bv, sizeof bv);
  call(kernels::minimum, {a.t(), b.t()}, {r.t()});
  EXPECT_EQ(elementsOf<int64_t>(r),
            (std::vector<int64_t>{-3, -3, -7, 0, 5, -7}));
  call(kernels::maximum, {a.t(), b.t()}, {r.t()});
  EXPECT_EQ(elementsOf<int64_t>(r), (std::vector<int64_t>{0, 5, -3, 9, 9, 9}));
  // f32: NaN on either side wins; of two zeros rhs is taken (PyTorch's
  // vectorized kernel); a rank-0 rhs broadcasts.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Buf x({5}), y({5}), z({5}), s(std::vector<int64_t>{});
  x.set({1.0f, nan, 2.0f, -0.0f, 0.0f});
  y.set({nan, 1.0f, -4.0f, 0.0f, -0.0f});
  call(kernels::minimum, {x.t(), y.t()}, {z.t()});
  EXPECT_TRUE(std::isnan(z.f()[0]));
  EXPECT_TRUE(std::isnan(z.f()[1]));
  EXPECT_EQ(z.f()[2], -4.0f);
  EXPECT_FALSE(std::signbit(z.f()[3]));
  EXPECT_TRUE(std::signbit(z.f()[4]));
  call(kernels::maximum, {x.t(), y.t()}, {z.t()});
  EXPECT_TRUE(std::isnan(z.f()[0]));
  EXPECT_TRUE(std::isnan(z.f()[1]));
  EXPECT_EQ(z.f()[2], 2.0f);
  EXPECT_FALSE(std::signbit(z.f()[3]));
  EXPECT_TRUE(std::signbit(z.f()[4]));
  s.set({1.5f});
  call(kernels::maximum, {x.t(), s.t()}, {x.t()}); // in place over lhs
  EXPECT_EQ(x.f()[0], 1.5f);
  EXPECT_TRUE(std::isnan(x.f()[1]));
  EXPECT_EQ(x.f()[2], 2.0f);
  EXPECT_EQ(x.f()[3], 1.5f);
  // Element types must agree; i1 has no order here.
  EXPECT_THROW(call(kernels::minimum, {a.t(), x.t()}, {r.t()}), KernelError);
  Buf m({3}, DType::I1);
  EXPECT_THROW(call(kernels::minimum, {m.t(), m.t()}, {m.t()}), KernelError);
}

TEST(KernelTest, Convert) {
  Buf x({6}), h({6}, DType::BF16), back({6}), half({6}, DType::F16);
  x.set({1.0f, -2.5f, 1.00390625f, 3.0e38f, 65504.0f, 6.0e-8f});
  call(kernels::convert, {x.t()}, {h.t()});
  const uint16_t *bits = reinterpret_cast<const uint16_t *>(h.data());
  EXPECT_EQ(bits[0], 0x3f80); // 1.0
  EXPECT_EQ(bits[1], 0xc020); // -2.5
  EXPECT_EQ(bits[2], 0x3f80); // 1 + 2^-8 is a tie: rounds to even (1.0)
  call(kernels::convert, {h.t()}, {back.t()});
  EXPECT_EQ(back.f()[1], -2.5f);
  call(kernels::convert, {x.t()}, {half.t()});
  const uint16_t *hb = reinterpret_cast<const uint16_t *>(half.data());
  EXPECT_EQ(hb[0], 0x3c00);
  EXPECT_EQ(hb[1], 0xc100);
  EXPECT_EQ(hb[3], 0x7c00); // overflow to infinity
  EXPECT_EQ(hb[4], 0x7bff); // 65504, the largest half
  EXPECT_EQ(hb[5], 0x0001); // 6e-8 ~ 2^-24, the smallest subnormal
  call(kernels::convert, {half.t()}, {back.t()});
  EXPECT_EQ(back.f()[4], 65504.0f);
  EXPECT_EQ(back.f()[5], std::ldexp(1.0f, -24));
}

TEST(KernelTest, ConvertIntegersAndMasks) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Floats to integers truncate toward zero; NaN and out-of-range values
  // give the minimum (x86's and PyTorch's CPU result); to i1 is `!= 0`.
  Buf x({8}), i32({8}, DType::I32), i64({8}, DType::I64), mask({8}, DType::I1);
  x.set({2.7f, -2.7f, -0.0f, nan, 3.0e9f, -2147483648.0f, 1e20f, 0.5f});
  call(kernels::convert, {x.t()}, {i32.t()});
  const int32_t *p32 = reinterpret_cast<const int32_t *>(i32.data());
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(std::vector<int32_t>(p32, p32 + 8),
            (std::vector<int32_t>{2, -2, 0, min32, min32, min32, min32, 0}));
  call(kernels::convert, {x.t()}, {i64.t()});
  const int64_t *p64 = reinterpret_cast<const int64_t *>(i64.data());
  const int64_t min64 = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(std::vector<int64_t>(p64, p64 + 8),
            (std::vector<int64_t>{2, -2, 0, min64, 3000000000, -2147483648LL,
                                  min64, 0}));
  call(kernels::convert, {x.t()}, {mask.t()});
  const uint8_t *pm = reinterpret_cast<const uint8_t *>(mask.data());
  EXPECT_EQ(std::vector<uint8_t>(pm, pm + 8),
            (std::vector<uint8_t>{1, 1, 0, 1, 1, 1, 1, 1}));
  // Integers to f32: exact below 2^24, round to nearest even above; i64 to
  // i32 keeps the low 32 bits; to i1 is `!= 0`.
  int64_t ints[8] = {
      16777217, -3, 0, (int64_t(1) << 33) + 5, 7, -1, (int64_t(1) << 62) + 1,
      1};
  std::memcpy(i64.data(), ints, sizeof ints);
  Buf back({8});
  call(kernels::convert, {i64.t()}, {back.t()});
  EXPECT_EQ(back.values(),
            (std::vector<float>{16777216.0f, -3.0f, 0.0f, 8589934592.0f, 7.0f,
                                -1.0f, 4611686018427387904.0f, 1.0f}));
  call(kernels::convert, {i64.t()}, {i32.t()});
  EXPECT_EQ(std::vector<int32_t>(p32, p32 + 8),
            (std::vector<int32_t>{16777217, -3, 0, 5, 7, -1, 1, 1}));
  call(kernels::convert, {i64.t()}, {mask.t()});
  EXPECT_EQ(std::vector<uint8_t>(pm, pm + 8),
            (std::vector<uint8_t>{1, 1, 0, 1, 1, 1, 1, 1}));
  // i1 to floats and integers is 0 or 1.
  call(kernels::convert, {mask.t()}, {back.t()});
  EXPECT_EQ(back.values(), (std::vector<float>{1, 1, 0, 1, 1, 1, 1, 1}));
}

TEST(KernelTest, ConvertInPlaceAcrossElementSizes) {
  // The memory planner may give the result the operand's storage: i64 ->
  // i1 narrows (runs forward) and i1 -> i64 widens (runs backward); either
  // way the values equal an out-of-place conversion.
  std::vector<int64_t> values(64);
  for (int i = 0; i < 64; ++i)
    values[i] = i % 3 == 0 ? 0 : i - 30;
  Buf storage({64}, DType::I64), want({64}, DType::I1);
  std::memcpy(storage.data(), values.data(), 64 * 8);
  call(kernels::convert, {storage.t()}, {want.t()});
  Tensor in = storage.t(), out = storage.t();
  out.dtype = DType::I1;
  call(kernels::convert, {in}, {out});
  EXPECT_EQ(std::memcmp(storage.data(), want.data(), 64), 0);
  Buf wide({64}, DType::I64);
  call(kernels::convert, {want.t()}, {wide.t()});
  Tensor mask = storage.t(), widened = storage.t();
  mask.dtype = DType::I1;
  call(kernels::convert, {mask}, {widened});
  EXPECT_EQ(std::memcmp(storage.data(), wide.data(), 64 * 8), 0);
}

//===--- Softmax -----------------------------------------------------------===//

TEST(KernelTest, SoftmaxAndLogSoftmaxAlongAxis) {
  Buf x({3, 4, 5}), y({3, 4, 5});
  fillRandom(x, 30, -3, 3);
  for (int64_t axis = 0; axis < 3; ++axis)
    for (int logForm = 0; logForm < 2; ++logForm) {
      call(logForm ? kernels::log_softmax : kernels::softmax, {x.t()}, {y.t()},
           {intAttr("axis", axis)});
      int64_t dims[3] = {3, 4, 5}, strides[3] = {20, 5, 1};
      std::vector<double> want(60);
      for (int64_t i = 0; i < 60; ++i) {
        int64_t pos = (i / strides[axis]) % dims[axis];
        int64_t base = i - pos * strides[axis];
        double s = 0;
        for (int64_t j = 0; j < dims[axis]; ++j)
          s += std::exp(static_cast<double>(x.f()[base + j * strides[axis]]));
        want[i] = logForm ? x.f()[i] - std::log(s) : std::exp(x.f()[i]) / s;
      }
      expectClose(y.values(), want, 1e-6, 1e-5, "softmax");
    }
}

TEST(KernelTest, SoftmaxGradsMatchFiniteDifferences) {
  for (int logForm = 0; logForm < 2; ++logForm) {
    KernelFn fwd = logForm ? kernels::log_softmax : kernels::softmax;
    KernelFn grad = logForm ? kernels::log_softmax_grad : kernels::softmax_grad;
    Buf x({3, 6}), y({3, 6}), dy({3, 6}), dx({3, 6});
    fillRandom(x, 31 + logForm, -2, 2);
    fillRandom(dy, 33 + logForm);
    std::vector<Attr> attrs = {intAttr("axis", 0)};
    call(fwd, {x.t()}, {y.t()}, attrs);
    call(grad, {dy.t(), y.t()}, {dx.t()}, attrs);
    std::vector<double> num = numericGrad(x, [&] {
      Buf out({3, 6});
      call(fwd, {x.t()}, {out.t()}, attrs);
      return weightedSum(out, dy);
    });
    expectClose(dx.values(), num, kFdAtol, kFdRtol, "softmax grad");
  }
}

//===--- Dropout -----------------------------------------------------------===//

TEST(KernelTest, DropoutMaskFollowsPhilox) {
  Buf x({7, 9}), y({7, 9}), mask({7, 9}, DType::I1);
  fillRandom(x, 40);
  double p = 0.3;
  std::vector<Attr> attrs = {floatAttr("p", p), intAttr("seed", 5),
                             intAttr("offset", 3), stringAttr("phase", "fwd")};
  call(kernels::dropout, {x.t()}, {y.t(), mask.t()}, attrs, Tensor(), /*seed=*/99);
  ckpt::rt::detail::DropoutStream stream(99, 5);
  int kept = 0;
  float scale = static_cast<float>(1.0 / (1.0 - p));
  for (int i = 0; i < 63; ++i) {
    bool keep = stream.uniform(3 + i) >= p;
    kept += keep;
    EXPECT_EQ(mask.u8()[i], keep ? 1 : 0) << i;
    EXPECT_EQ(y.f()[i], keep ? x.f()[i] * scale : 0.0f) << i;
  }
  EXPECT_GT(kept, 20);
  EXPECT_LT(kept, 63);
  // Replaying reproduces the mask exactly; another base seed does not.
  Buf y2({7, 9}), mask2({7, 9}, DType::I1);
  call(kernels::dropout, {x.t()}, {y2.t(), mask2.t()}, attrs, Tensor(), 99);
  EXPECT_TRUE(sameBits(mask, mask2));
  EXPECT_TRUE(sameBits(y, y2));
  call(kernels::dropout, {x.t()}, {y2.t(), mask2.t()}, attrs, Tensor(), 100);
  EXPECT_FALSE(sameBits(mask, mask2));
  // Offset shifts the stream: element i at offset 4 is draw 4 + i.
  std::vector<Attr> shifted = {floatAttr("p", p), intAttr("seed", 5),
                               intAttr("offset", 4)};
  call(kernels::dropout, {x.t()}, {y2.t(), mask2.t()}, shifted, Tensor(), 99);
  for (int i = 0; i + 1 < 63; ++i)
    EXPECT_EQ(mask2.u8()[i], mask.u8()[i + 1]);
  // Gradient: mask * dy / (1 - p), which is the derivative of the forward
  // pass at a fixed mask.
  Buf dy({7, 9}), dx({7, 9});
  fillRandom(dy, 41);
  call(kernels::dropout_grad, {dy.t(), mask.t()}, {dx.t()}, {floatAttr("p", p)});
  std::vector<double> num = numericGrad(x, [&] {
    Buf out({7, 9}), m({7, 9}, DType::I1);
    call(kernels::dropout, {x.t()}, {out.t(), m.t()}, attrs, Tensor(), 99);
    return weightedSum(out, dy);
  });
  expectClose(dx.values(), num, kFdAtol, kFdRtol, "dropout grad");
  // p = 1 drops everything, p = 0 keeps everything.
  call(kernels::dropout, {x.t()}, {y2.t(), mask2.t()},
       {floatAttr("p", 1.0), intAttr("seed", 0), intAttr("offset", 0)});
  for (int i = 0; i < 63; ++i)
    EXPECT_EQ(y2.f()[i], 0.0f);
  call(kernels::dropout, {x.t()}, {y2.t(), mask2.t()},
       {floatAttr("p", 0.0), intAttr("seed", 0), intAttr("offset", 0)});
  EXPECT_EQ(y2.values(), x.values());
}

//===--- Embedding and cross-entropy ---------------------------------------===//

TEST(KernelTest, EmbeddingAndGrad) {
  Buf table({6, 3}), idx({2, 2}, DType::I64), y({2, 2, 3});
  fillRandom(table, 50);
  int64_t ids[4] = {5, 0, 5, 2};
  std::memcpy(idx.data(), ids, sizeof ids);
  call(kernels::embedding, {table.t(), idx.t()}, {y.t()});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(y.f()[i * 3 + j], table.f()[ids[i] * 3 + j]);
  Buf idx32({2, 2}, DType::I32);
  int32_t ids32[4] = {5, 0, 5, 2};
  std::memcpy(idx32.data(), ids32, sizeof ids32);
  Buf y32({2, 2, 3});
  call(kernels::embedding, {table.t(), idx32.t()}, {y32.t()});
  EXPECT_TRUE(sameBits(y, y32));
  Buf dy({2, 2, 3}), dt({6, 3});
  fillRandom(dy, 51);
  call(kernels::embedding_grad, {dy.t(), idx.t()}, {dt.t()});
  std::vector<double> num = numericGrad(table, [&] {
    Buf out({2, 2, 3});
    call(kernels::embedding, {table.t(), idx.t()}, {out.t()});
    return weightedSum(out, dy);
  });
  expectClose(dt.values(), num, kFdAtol, kFdRtol, "embedding grad");
  ids[1] = 6;
  std::memcpy(idx.data(), ids, sizeof ids);
  EXPECT_THROW(call(kernels::embedding, {table.t(), idx.t()}, {y.t()}), KernelError);
}

TEST(KernelTest, EmbeddingGradPaddingIndex) {
  // Indices {5, 0, 5, 2} into a 6-row table: with padding_idx = 5 both rows
  // selecting 5 are dropped, so row 5 stays zero and the others are as
  // without padding; a padding_idx no index selects changes nothing.
  Buf idx({2, 2}, DType::I64), dy({2, 2, 3}), all({6, 3}), padded({6, 3}),
      unused({6, 3});
  int64_t ids[4] = {5, 0, 5, 2};
  std::memcpy(idx.data(), ids, sizeof ids);
  fillRandom(dy, 52);
  call(kernels::embedding_grad, {dy.t(), idx.t()}, {all.t()});
  call(kernels::embedding_grad, {dy.t(), idx.t()}, {padded.t()},
       {intAttr("padding_idx", 5)});
  for (int r = 0; r < 6; ++r)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(padded.f()[r * 3 + j], r == 5 ? 0.0f : all.f()[r * 3 + j])
          << r << "," << j;
  EXPECT_NE(all.f()[5 * 3], 0.0f);
  call(kernels::embedding_grad, {dy.t(), idx.t()}, {unused.t()},
       {intAttr("padding_idx", 3)});
  EXPECT_TRUE(sameBits(unused, all));
  // A padding_idx outside the table is refused.
  EXPECT_THROW(call(kernels::embedding_grad, {dy.t(), idx.t()}, {padded.t()},
                    {intAttr("padding_idx", 6)}),
               KernelError);
}

TEST(KernelTest, MseLossAndGrad) {
  Buf x({3, 5}), t({3, 5});
  fillRandom(x, 62, -2, 2);
  fillRandom(t, 63, -2, 2);
  double total = 0;
  for (int i = 0; i < 15; ++i) {
    float d = x.f()[i] - t.f()[i];
    total += static_cast<double>(d * d);
  }
  for (const char *red : {"mean", "sum"}) {
    bool mean = std::string(red) == "mean";
    std::vector<Attr> attrs = {stringAttr("reduction", red)};
    Buf loss(std::vector<int64_t>{});
    call(kernels::mse_loss, {x.t(), t.t()}, {loss.t()}, attrs);
    // The double sum rounded once: exactly this value.
    EXPECT_EQ(loss.f()[0], static_cast<float>(mean ? total / 15 : total));
    Buf dl(std::vector<int64_t>{}), dx({3, 5});
    dl.set({0.75f});
    call(kernels::mse_loss_grad, {dl.t(), x.t(), t.t()}, {dx.t()}, attrs);
    // (alpha * (x - t)) * dl with alpha = float(2/15) or 2, bit for bit.
    float alpha = mean ? static_cast<float>(2.0 / 15.0) : 2.0f;
    for (int i = 0; i < 15; ++i)
      EXPECT_EQ(dx.f()[i], alpha * (x.f()[i] - t.f()[i]) * 0.75f) << i;
    std::vector<double> num = numericGrad(x, [&] {
      Buf out(std::vector<int64_t>{});
      call(kernels::mse_loss, {x.t(), t.t()}, {out.t()}, attrs);
      return weightedSum(out, dl);
    });
    expectClose(dx.values(), num, kFdAtol, kFdRtol, red);
  }
  // `none`, shape mismatches and a non-scalar loss are refused.
  Buf loss(std::vector<int64_t>{}), wide({3, 6});
  EXPECT_THROW(call(kernels::mse_loss, {x.t(), t.t()}, {loss.t()},
                    {stringAttr("reduction", "none")}),
               KernelError);
  EXPECT_THROW(call(kernels::mse_loss, {x.t(), wide.t()}, {loss.t()},
                    {stringAttr("reduction", "sum")}),
               KernelError);
  EXPECT_THROW(call(kernels::mse_loss, {x.t(), t.t()}, {x.t()},
                    {stringAttr("reduction", "sum")}),
               KernelError);
}

TEST(KernelTest, CrossEntropyAndGrad) {
  const int64_t rows = 5, classes = 4;
  Buf x({rows, classes}), t({rows}, DType::I64), lse({rows});
  fillRandom(x, 60, -2, 2);
  int64_t targets[rows] = {1, -100, 3, 0, 3};
  std::memcpy(t.data(), targets, sizeof targets);
  std::vector<double> rowLoss(rows), rowLse(rows);
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < classes; ++c)
      s += std::exp(static_cast<double>(x.f()[r * classes + c]));
    rowLse[r] = std::log(s);
    rowLoss[r] = targets[r] == -100 ? 0 : rowLse[r] - x.f()[r * classes + targets[r]];
  }
  for (const char *red : {"mean", "sum", "none"}) {
    bool none = std::string(red) == "none";
    Buf loss(none ? std::vector<int64_t>{rows} : std::vector<int64_t>{});
    std::vector<Attr> attrs = {stringAttr("reduction", red), intAttr("ignore_index", -100)};
    call(kernels::cross_entropy, {x.t(), t.t()}, {loss.t(), lse.t()}, attrs);
    expectClose(lse.values(), rowLse, 1e-5, 1e-5, "lse");
    double total = 0;
    for (double l : rowLoss)
      total += l;
    if (none)
      expectClose(loss.values(), rowLoss, 1e-5, 1e-5, "loss none");
    else
      EXPECT_NEAR(loss.f()[0], std::string(red) == "mean" ? total / 4 : total, 1e-5);
    Buf dl(loss.shape), dx({rows, classes});
    fillRandom(dl, 61, 0.5f, 1.5f);
    call(kernels::cross_entropy_grad, {dl.t(), x.t(), t.t(), lse.t()}, {dx.t()}, attrs);
    std::vector<double> num = numericGrad(x, [&] {
      Buf out(loss.shape), l2({rows});
      call(kernels::cross_entropy, {x.t(), t.t()}, {out.t(), l2.t()}, attrs);
      return weightedSum(out, dl);
    });
    expectClose(dx.values(), num, kFdAtol, kFdRtol, red);
  }
  // All rows ignored: mean is NaN (0/0), as in PyTorch.
  int64_t ignored[rows] = {-100, -100, -100, -100, -100};
  std::memcpy(t.data(), ignored, sizeof ignored);
  Buf loss(std::vector<int64_t>{});
  call(kernels::cross_entropy, {x.t(), t.t()}, {loss.t(), lse.t()},
       {stringAttr("reduction", "mean")});
  EXPECT_TRUE(std::isnan(loss.f()[0]));
  targets[0] = 4;
  std::memcpy(t.data(), targets, sizeof targets);
  EXPECT_THROW(call(kernels::cross_entropy, {x.t(), t.t()}, {loss.t(), lse.t()},
                    {stringAttr("reduction", "sum")}),
               KernelError);
}

//===--- Reductions --------------------------------------------------------===//

TEST(KernelTest, Reductions) {
  Buf x({2, 3, 4});
  fillRandom(x, 70);
  struct Case {
    std::vector<int64_t> axes;
    bool keep;
    std::vector<int64_t> outShape;
  } cases[] = {{{1}, false, {2, 4}}, {{0, 2}, true, {1, 3, 1}},
               {{0, 1, 2}, false, {}}, {{}, false, {2, 3, 4}}};
  for (const Case &c : cases)
    for (int kind = 0; kind < 3; ++kind) {
      Buf y(c.outShape);
      std::vector<Attr> attrs = {intsAttr("axes", c.axes.data(), c.axes.size())};
      if (c.keep)
        attrs.push_back(unitAttr("keep_dims"));
      KernelFn fn = kind == 0 ? kernels::reduce_sum
                              : kind == 1 ? kernels::reduce_mean : kernels::reduce_max;
      call(fn, {x.t()}, {y.t()}, attrs);
      std::vector<double> want(y.numel(), kind == 2 ? -1e30 : 0.0);
      std::vector<int> count(y.numel(), 0);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
          for (int k = 0; k < 4; ++k) {
            int idx[3] = {i, j, k}, dims[3] = {2, 3, 4};
            int64_t o = 0;
            for (int d = 0; d < 3; ++d) {
              bool reduced = false;
              for (int64_t a : c.axes)
                reduced |= a == d;
              if (!reduced)
                o = o * dims[d] + idx[d];
            }
            double v = x.f()[(i * 3 + j) * 4 + k];
            want[o] = kind == 2 ? std::max(want[o], v) : want[o] + v;
            ++count[o];
          }
      if (kind == 1)
        for (size_t o = 0; o < want.size(); ++o)
          want[o] /= count[o];
      expectClose(y.values(), want, 1e-6, 1e-6, "reduce");
    }
}

//===--- Shape and data movement -------------------------------------------===//

TEST(KernelTest, TransposeCopyAndView) {
  Buf x({2, 3, 4}), y({4, 2, 3});
  fillRandom(x, 80);
  int64_t perm[3] = {2, 0, 1};
  call(kernels::transpose, {x.t()}, {y.t()}, {intsAttr("perm", perm, 3)});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        EXPECT_EQ(y.f()[(k * 2 + i) * 3 + j], x.f()[(i * 3 + j) * 4 + k]);
  // A view (unit dimension moved): same storage, nothing to do; or a copy.
  Buf a({1, 5}), b({5, 1});
  fillRandom(a, 81);
  int64_t swap[2] = {1, 0};
  call(kernels::transpose, {a.t()}, {b.t()}, {intsAttr("perm", swap, 2)});
  EXPECT_EQ(a.values(), b.values());
  Tensor inPlace = a.t();
  inPlace.rank = 2;
  inPlace.shape[0] = 5;
  inPlace.shape[1] = 1;
  call(kernels::transpose, {a.t()}, {inPlace}, {intsAttr("perm", swap, 2)});
  // i64 data moves too.
  Buf xi({2, 3}, DType::I64), yi({3, 2}, DType::I64);
  for (int i = 0; i < 6; ++i)
    xi.i64()[i] = i;
  call(kernels::transpose, {xi.t()}, {yi.t()}, {intsAttr("perm", swap, 2)});
  EXPECT_EQ(yi.i64()[1], 3);
  EXPECT_EQ(yi.i64()[2], 1);
}

TEST(KernelTest, ReshapeBroadcastSliceConcat) {
  Buf x({2, 6}), r({3, 4});
  fillRandom(x, 90);
  call(kernels::reshape, {x.t()}, {r.t()});
  EXPECT_EQ(x.values(), r.values());
  call(kernels::reshape, {x.t()}, {Tensor(x.data(), DType::F32, {12})}); // view

  Buf b({3, 1}), bb({2, 3, 4});
  fillRandom(b, 91);
  call(kernels::broadcast, {b.t()}, {bb.t()});
  for (int i = 0; i < 24; ++i)
    EXPECT_EQ(bb.f()[i], b.f()[(i / 4) % 3]);

  Buf s({2, 2});
  int64_t starts[2] = {1, 5}, steps[2] = {-1, -2};
  call(kernels::slice, {x.t()}, {s.t()},
       {intsAttr("starts", starts, 2), intsAttr("steps", steps, 2)});
  EXPECT_EQ(s.f()[0], x.f()[6 + 5]);
  EXPECT_EQ(s.f()[1], x.f()[6 + 3]);
  EXPECT_EQ(s.f()[2], x.f()[0 + 5]);
  EXPECT_EQ(s.f()[3], x.f()[0 + 3]);
  int64_t badStarts[2] = {0, 5}, badSteps[2] = {1, 1};
  EXPECT_THROW(call(kernels::slice, {x.t()}, {s.t()},
                    {intsAttr("starts", badStarts, 2), intsAttr("steps", badSteps, 2)}),
               KernelError);

  Buf a({2, 1, 3}), c({2, 2, 3}), out({2, 3, 3});
  fillRandom(a, 92);
  fillRandom(c, 93);
  call(kernels::concat, {a.t(), c.t()}, {out.t()}, {intAttr("axis", 1)});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(out.f()[(i * 3 + j) * 3 + k],
                  j == 0 ? a.f()[i * 3 + k] : c.f()[(i * 2 + j - 1) * 3 + k]);
}

// ckpt.fill writes its value, rounded to the result's type, everywhere; rank 0
// included; index results take the integral value.
TEST(KernelTest, Fill) {
  Buf scalar(std::vector<int64_t>{}), big({3, 5});
  call(kernels::fill, {}, {scalar.t()}, {floatAttr("value", 0.1)});
  EXPECT_EQ(scalar.f()[0], 0.1f);
  call(kernels::fill, {}, {big.t()}, {floatAttr("value", -2.5)});
  for (float v : big.values())
    EXPECT_EQ(v, -2.5f);
  int64_t indices[4] = {1, 2, 3, 4};
  call(kernels::fill, {}, {Tensor(indices, DType::I64, {4})}, {floatAttr("value", 7)});
  for (int64_t v : indices)
    EXPECT_EQ(v, 7);
  Buf missing({2});
  EXPECT_THROW(call(kernels::fill, {}, {missing.t()}), KernelError);
}

//===--- Optimizers --------------------------------------------------------===//

TEST(KernelTest, SgdAndAdamW) {
  Buf p({10}), g({10}), r({10});
  fillRandom(p, 100);
  fillRandom(g, 101);
  call(kernels::sgd_update, {p.t(), g.t()}, {r.t()}, {floatAttr("lr", 0.1)});
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(r.f()[i], p.f()[i] - 0.1f * g.f()[i]);
  Buf m({10}), v({10}), rp({10}), rm({10}), rv({10});
  fillRandom(m, 102);
  fillRandom(v, 103, 0.0f, 1.0f);
  std::vector<Attr> attrs = {floatAttr("lr", 1e-2), floatAttr("beta1", 0.9),
                             floatAttr("beta2", 0.999), floatAttr("eps", 1e-8),
                             floatAttr("weight_decay", 0.1), intAttr("step", 3)};
  call(kernels::adamw_update, {p.t(), g.t(), m.t(), v.t()}, {rp.t(), rm.t(), rv.t()},
       attrs);
  for (int i = 0; i < 10; ++i) {
    double mi = 0.9 * m.f()[i] + 0.1 * g.f()[i];
    double vi = 0.999 * v.f()[i] + 0.001 * g.f()[i] * g.f()[i];
    double mh = mi / (1 - std::pow(0.9, 3)), vh = vi / (1 - std::pow(0.999, 3));
    double np = p.f()[i] - 1e-2 * (mh / (std::sqrt(vh) + 1e-8) + 0.1 * p.f()[i]);
    EXPECT_NEAR(rm.f()[i], mi, 1e-6);
    EXPECT_NEAR(rv.f()[i], vi, 1e-6);
    EXPECT_NEAR(rp.f()[i], np, 1e-6);
  }
  // In place (the results over the operands) gives the same bits.
  Buf p2 = p.moved(0), m2 = m.moved(0), v2 = v.moved(0);
  call(kernels::adamw_update, {p2.t(), g.t(), m2.t(), v2.t()}, {p2.t(), m2.t(), v2.t()},
       attrs);
  EXPECT_TRUE(sameBits(p2, rp));
  EXPECT_TRUE(sameBits(m2, rm));
  EXPECT_TRUE(sameBits(v2, rv));
  EXPECT_THROW(call(kernels::sgd_update, {p.t(), g.t()}, {r.t()}), KernelError);
}

//===--- Optional operands -------------------------------------------------===//

TEST(KernelTest, OptionalOperandConventions) {
  using ckpt::rt::detail::optionalOperand;
  Buf x({2}), w({2}), b({2});
  Tensor slots[3] = {x.t(), Tensor(), b.t()};
  Attrs none;
  EXPECT_EQ(optionalOperand({slots, 3}, none, 3, 1), nullptr);
  EXPECT_EQ(optionalOperand({slots, 3}, none, 3, 2)->data, b.data());
  // Compact operands decoded by operandSegmentSizes.
  int64_t seg[3] = {1, 0, 1};
  Attr segAttr = intsAttr("operandSegmentSizes", seg, 3);
  Attrs withSeg{&segAttr, 1};
  Tensor compact[2] = {x.t(), b.t()};
  EXPECT_EQ(optionalOperand({compact, 2}, withSeg, 3, 1), nullptr);
  EXPECT_EQ(optionalOperand({compact, 2}, withSeg, 3, 2)->data, b.data());
  // Without segment sizes, missing trailing operands are absent.
  EXPECT_EQ(optionalOperand({compact, 1}, none, 3, 2), nullptr);
  int64_t badSeg[3] = {1, 1, 1};
  Attr badAttr = intsAttr("operandSegmentSizes", badSeg, 3);
  EXPECT_THROW(optionalOperand({compact, 2}, Attrs{&badAttr, 1}, 3, 1), KernelError);
  (void)w;
}

} // namespace
