//===- PhiloxDeviceTest.cpp - The CUDA backend's Philox on the host -------===//
//
// Philox.cuh is what the dropout and attention kernels run; these tests run
// the same code on the host and check it against Random123's known answers
// and against the host runtime's DropoutStream draw for draw, so a mask drawn
// on the GPU equals the host backend's mask.
//
//===----------------------------------------------------------------------===//
#include "ckpt/Runtime/Cuda/Philox.cuh"

#include "Philox.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

using ckpt::rt::cuda::keepThreshold;
using ckpt::rt::cuda::Philox4;
using ckpt::rt::cuda::philox4x32_10;
using ckpt::rt::cuda::PhiloxStream;
using ckpt::rt::detail::DropoutStream;

namespace {

void expectBlock(Philox4 r, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  EXPECT_EQ(r.w[0], a);
  EXPECT_EQ(r.w[1], b);
  EXPECT_EQ(r.w[2], c);
  EXPECT_EQ(r.w[3], d);
}

// Random123's kat_vectors for philox4x32 with 10 rounds.
TEST(CudaPhiloxTest, KnownAnswers) {
  expectBlock(philox4x32_10({{0, 0, 0, 0}}, 0, 0), 0x6627e8d5u, 0xe169c58du,
              0xbc57ac4cu, 0x9b00dbd8u);
  expectBlock(
      philox4x32_10({{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}},
                    0xffffffffu, 0xffffffffu),
      0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu);
  expectBlock(
      philox4x32_10({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}},
                    0xa4093822u, 0x299f31d0u),
      0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u);
}

// Draw for draw equal to the host runtime's stream, over seeds and stream ids
// that exercise both halves of every 64-bit field.
TEST(CudaPhiloxTest, MatchesHostDropoutStream) {
  const uint64_t seeds[] = {0, 1, 0x0123456789abcdefull, ~0ull};
  const uint64_t streams[] = {0, 7, 0x1122334455667788ull};
  for (uint64_t seed : seeds)
    for (uint64_t stream : streams) {
      PhiloxStream device(seed, stream);
      DropoutStream host(seed, stream);
      for (uint64_t n = 0; n < 4096; ++n) {
        ASSERT_EQ(device.word(n), host.word(n))
            << seed << " " << stream << " " << n;
        ASSERT_EQ(device.uniform(n), host.uniform(n));
      }
      for (uint64_t n : {(1ull << 32) - 1, 1ull << 32, (1ull << 34) + 2, ~0ull})
        ASSERT_EQ(device.word(n), host.word(n)) << n;
    }
}

// The kernels' integer keep test `(word >> 8) >= keepThreshold(p)` decides
// exactly as the host's `uniform >= p`, for every 24-bit value.
TEST(CudaPhiloxTest, ThresholdEqualsHostKeepRule) {
  const double ps[] = {
      0.0,       1e-9, 1.0 / 16777216.0,       0.1,         0.25, 0.5,
      1.0 / 3.0, 0.9,  1.0 - 1.0 / 16777216.0, 1.0 - 1e-12, 1.0};
  for (double p : ps) {
    uint32_t t = keepThreshold(p);
    for (uint32_t v = 0; v < (1u << 24); ++v) {
      bool host = PhiloxStream::philoxKeep(v << 8, p);
      if (host != (v >= t))
        FAIL() << "p = " << p << ", value " << v << ", threshold " << t;
    }
  }
}

// Against the host stream's own keep(), on real draws.
TEST(CudaPhiloxTest, KeepMatchesHostOnDraws) {
  PhiloxStream device(42, 3);
  DropoutStream host(42, 3);
  for (double p : {0.1, 0.5, 0.9}) {
    uint32_t t = keepThreshold(p);
    int kept = 0;
    for (uint64_t n = 0; n < 20000; ++n) {
      bool k = (device.word(n) >> 8) >= t;
      ASSERT_EQ(k, host.keep(n, p)) << p << " " << n;
      kept += k;
    }
    // Binomial(2e4, 1 - p): within 6 standard deviations.
    double sd = std::sqrt(20000 * p * (1 - p));
    EXPECT_NEAR(kept, 20000 * (1 - p), 6 * sd);
  }
}

TEST(CudaPhiloxTest, ThresholdEdges) {
  EXPECT_EQ(keepThreshold(0.0), 0u);
  EXPECT_EQ(keepThreshold(-1.0), 0u);
  EXPECT_EQ(keepThreshold(1.0), 1u << 24);
  EXPECT_EQ(keepThreshold(std::nan("")), 1u << 24);
  EXPECT_EQ(keepThreshold(0.5), 1u << 23);
  EXPECT_EQ(keepThreshold(0.5 + 1e-12), (1u << 23) + 1);
}

} // namespace
