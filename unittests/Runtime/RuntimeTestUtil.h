//===- RuntimeTestUtil.h - Helpers of the runtime unit tests -------*- C++ -*-===//
#ifndef CKPT_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H
#define CKPT_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H

#include "ckpt/Runtime/Kernels.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>
#include <vector>

namespace ckpt::rt::test {

/// Tolerances of gradients against central finite differences.
constexpr double kFdAtol = 2e-3, kFdRtol = 2e-2;

/// An ExecContext for calling kernels directly (kernels only use `seed()`).
struct TestContext : ExecContext {
  explicit TestContext(uint64_t seed = 0) { baseSeed = seed; }
};

/// An owning tensor; `pad` elements of slack let tests move the data to
/// another address (for the address-independence checks).
struct Buf {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint64_t> storage;
  size_t shift = 0; // Bytes the data starts after storage.data().

  Buf() = default;
  Buf(std::vector<int64_t> dims, DType type = DType::F32, size_t shiftBytes = 0)
      : dtype(type), shape(std::move(dims)), shift(shiftBytes) {
    storage.assign((bytes() + shift) / 8 + 2, 0);
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  size_t bytes() const { return numel() * elementBytes(dtype); }
  void *data() { return reinterpret_cast<char *>(storage.data()) + shift; }
  float *f() { return static_cast<float *>(data()); }
  int64_t *i64() { return static_cast<int64_t *>(data()); }
  uint8_t *u8() { return static_cast<uint8_t *>(data()); }
  Tensor t() {
    Tensor x;
    x.data = data();
    x.dtype = dtype;
    x.rank = static_cast<int>(shape.size());
    for (size_t i = 0; i < shape.size(); ++i)
      x.shape[i] = shape[i];
    return x;
  }
  std::vector<float> values() { return std::vector<float>(f(), f() + numel()); }
  void set(const std::vector<float> &v) {
    ASSERT_EQ(static_cast<int64_t>(v.size()), numel());
    std::memcpy(f(), v.data(), v.size() * 4);
  }
  /// A copy whose data lives at a different address and byte shift.
  Buf moved(size_t shiftBytes) const {
    Buf b(shape, dtype, shiftBytes);
    std::memcpy(b.data(),
                reinterpret_cast<const char *>(storage.data()) + shift, bytes());
    return b;
  }
};

/// Fills with uniform values in [lo, hi) from a fixed-seed generator.
inline void fillRandom(Buf &b, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < b.numel(); ++i)
    b.f()[i] = dist(gen);
}

/// Calls `kernel` with the given buffers and attributes.
inline void call(KernelFn kernel, std::vector<Tensor> operands,
                 std::vector<Tensor> results, std::vector<Attr> attrs = {},
                 Tensor workspace = Tensor(), uint64_t seed = 0) {
  TestContext ctx(seed);
  Attrs a{attrs.data(), attrs.size()};
  kernel(ctx, TensorList{operands.data(), operands.size()},
         TensorList{results.data(), results.size()}, a, workspace);
}

/// Expects `got` and `want` to agree to `atol + rtol * |want|`.
inline void expectClose(const std::vector<float> &got,
                        const std::vector<double> &want, double atol,
                        double rtol, const char *what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], atol + rtol * std::abs(want[i]))
        << what << " at element " << i;
}

/// Bitwise equality.
inline bool sameBits(Buf &a, Buf &b) {
  return a.bytes() == b.bytes() && std::memcmp(a.data(), b.data(), a.bytes()) == 0;
}

/// Central finite differences of `loss` with respect to every element of
/// `x`, in double from the float perturbations.
inline std::vector<double> numericGrad(Buf &x, const std::function<double()> &loss,
                                       float eps = 1e-2f) {
  std::vector<double> g(x.numel());
  for (int64_t i = 0; i < x.numel(); ++i) {
    float keep = x.f()[i];
    x.f()[i] = keep + eps;
    double up = loss();
    x.f()[i] = keep - eps;
    double down = loss();
    x.f()[i] = keep;
    g[i] = (up - down) / (2.0 * static_cast<double>(eps));
  }
  return g;
}

/// sum(w * y) in double.
inline double weightedSum(Buf &y, Buf &w) {
  double s = 0.0;
  for (int64_t i = 0; i < y.numel(); ++i)
    s += static_cast<double>(y.f()[i]) * w.f()[i];
  return s;
}

} // namespace ckpt::rt::test

#endif // CKPT_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H
