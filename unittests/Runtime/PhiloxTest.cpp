//===- PhiloxTest.cpp - Philox-4x32-10 and the dropout stream ---------------===//
#include "Philox.h"

#include <gtest/gtest.h>

using namespace ckpt::rt::detail;

namespace {

// Known-answer vectors of Random123 (kat_vectors, philox4x32 with 10 rounds).
TEST(PhiloxTest, KnownAnswerZero) {
  PhiloxBlock r = philox4x32_10({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(r, (PhiloxBlock{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
}

TEST(PhiloxTest, KnownAnswerAllOnes) {
  PhiloxBlock r = philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                                {0xffffffffu, 0xffffffffu});
  EXPECT_EQ(r, (PhiloxBlock{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
}

TEST(PhiloxTest, KnownAnswerPiDigits) {
  PhiloxBlock r = philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                                {0xa4093822u, 0x299f31d0u});
  EXPECT_EQ(r, (PhiloxBlock{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

// Draw n is word n % 4 of the block with counter {n / 4, 0, stream lo, stream
// hi} under key {seed lo, seed hi}.
TEST(PhiloxTest, StreamLayout) {
  uint64_t seed = 0x0123456789abcdefull, streamId = 0x1122334455667788ull;
  DropoutStream s(seed, streamId);
  for (uint64_t n : {0ull, 1ull, 3ull, 4ull, 7ull, 1000001ull, (1ull << 34) + 2}) {
    uint64_t b = n / 4;
    PhiloxBlock block = philox4x32_10(
        {static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32), 0x55667788u,
         0x11223344u},
        {0x89abcdefu, 0x01234567u});
    EXPECT_EQ(s.word(n), block[n % 4]) << n;
    EXPECT_EQ(s.uniform(n), static_cast<float>(block[n % 4] >> 8) / 16777216.0f);
  }
}

TEST(PhiloxTest, UniformRangeAndRate) {
  DropoutStream s(7, 3);
  int kept = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    float u = s.uniform(i);
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    kept += s.keep(i, 0.25);
  }
  // Binomial(1e5, 0.75): standard deviation ~137.
  EXPECT_NEAR(kept, 75000, 1000);
}

TEST(PhiloxTest, StreamsAndSeedsDiffer) {
  DropoutStream a(1, 0), b(1, 1), c(2, 0);
  int sameAB = 0, sameAC = 0;
  for (int i = 0; i < 64; ++i) {
    sameAB += a.word(i) == b.word(i);
    sameAC += a.word(i) == c.word(i);
  }
  EXPECT_LT(sameAB, 2);
  EXPECT_LT(sameAC, 2);
}

} // namespace
