//===- Philox.h - Philox-4x32-10 counter-based random numbers -----*- C++ -*-===//
//
// The generator behind every dropout of a generated step (docs/runtime.md,
// "Random numbers"). Private to runtime/lib; the unit tests include it.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_LIB_PHILOX_H
#define CKPT_RUNTIME_LIB_PHILOX_H

#include <array>
#include <cstdint>

namespace ckpt::rt::detail {

/// One 128-bit Philox block: four 32-bit words.
using PhiloxBlock = std::array<uint32_t, 4>;

/// Philox-4x32 with 10 rounds (Salmon et al., SC'11): the bijection of
/// `counter` under the 64-bit `key`.
PhiloxBlock philox4x32_10(PhiloxBlock counter, std::array<uint32_t, 2> key);

/// The keep/drop stream of one dropout op. Draw number `n` (0-based, counted
/// from the op's first element at `offset`) is word `n % 4` of the block
///   philox4x32_10(counter = {lo32(n / 4), hi32(n / 4), lo32(stream),
///                            hi32(stream)},
///                 key = {lo32(baseSeed), hi32(baseSeed)})
/// and its uniform number is `(word >> 8) * 2^-24` in [0, 1).
class DropoutStream {
public:
  DropoutStream(uint64_t baseSeed, uint64_t stream)
      : key{static_cast<uint32_t>(baseSeed), static_cast<uint32_t>(baseSeed >> 32)},
        stream(stream) {}
  /// The 32-bit word of draw number `n`.
  uint32_t word(uint64_t n) const {
    if (n / 4 != cachedBlock || !haveCache) {
      uint64_t b = n / 4;
      cache = philox4x32_10({static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32),
                             static_cast<uint32_t>(stream),
                             static_cast<uint32_t>(stream >> 32)},
                            key);
      cachedBlock = b;
      haveCache = true;
    }
    return cache[n % 4];
  }
  /// The uniform number of draw `n`: 24 random bits scaled into [0, 1).
  float uniform(uint64_t n) const {
    return static_cast<float>(word(n) >> 8) * (1.0f / 16777216.0f);
  }
  /// True if draw `n` keeps its element under drop probability `p`:
  /// `uniform(n) >= p`.
  bool keep(uint64_t n, double p) const {
    return static_cast<double>(uniform(n)) >= p;
  }

private:
  std::array<uint32_t, 2> key;
  uint64_t stream;
  mutable PhiloxBlock cache{};
  mutable uint64_t cachedBlock = 0;
  mutable bool haveCache = false;
};

} // namespace ckpt::rt::detail

#endif // CKPT_RUNTIME_LIB_PHILOX_H
