//===- Philox.cuh - Philox-4x32-10 for host and device ----------*- C++ -*-===//
//
// The counter-based generator behind every dropout mask of the CUDA backend,
// header-only and `__host__ __device__` so that the device kernels and the
// host unit tests run the very same code. The stream layout is the host
// runtime's (runtime/lib/Philox.h, docs/runtime.md): a recomputed dropout on
// the GPU reproduces the forward mask exactly, and a mask drawn on the GPU
// equals the host backend's mask for the same seeds.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_CUDA_PHILOX_CUH
#define CKPT_RUNTIME_CUDA_PHILOX_CUH

#include "ckpt/Runtime/Cuda/HostDevice.h"

#include <cstdint>

namespace ckpt::rt::cuda {

/// One 128-bit Philox block: four 32-bit words.
struct Philox4 {
  uint32_t w[4];
};

/// High and low 32-bit halves of `a * b`.
CKPT_HD inline void philoxMulHiLo(uint32_t a, uint32_t b, uint32_t &hi,
                                  uint32_t &lo) {
  uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}

/// Philox-4x32 with 10 rounds (Salmon et al., SC'11): the bijection of
/// `counter` under the 64-bit key `(key0, key1)`.
CKPT_HD inline Philox4 philox4x32_10(Philox4 c, uint32_t key0, uint32_t key1) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key0 += kWeyl0;
      key1 += kWeyl1;
    }
    uint32_t hi0, lo0, hi1, lo1;
    philoxMulHiLo(kMul0, c.w[0], hi0, lo0);
    philoxMulHiLo(kMul1, c.w[2], hi1, lo1);
    Philox4 next = {{hi1 ^ c.w[1] ^ key0, lo1, hi0 ^ c.w[3] ^ key1, lo0}};
    c = next;
  }
  return c;
}

/// The keep/drop stream of one dropout (or attention-dropout) op, exactly the
/// host runtime's `DropoutStream`: draw number `n` is word `n % 4` of
///   philox4x32_10(counter = {lo32(n / 4), hi32(n / 4), lo32(stream),
///                            hi32(stream)},
///                 key = {lo32(baseSeed), hi32(baseSeed)})
/// where `stream` is the op's `seed` attribute and `n = offset + i` for the
/// op's element `i` (row-major over the result; for attention the element
/// `((b * H + h) * S + i) * Skv + j` of the probability matrix).
struct PhiloxStream {
  uint32_t key0, key1;
  uint64_t stream;

  CKPT_HD PhiloxStream(uint64_t baseSeed, uint64_t stream)
      : key0(static_cast<uint32_t>(baseSeed)),
        key1(static_cast<uint32_t>(baseSeed >> 32)), stream(stream) {}

  /// The block holding draws `4 * block .. 4 * block + 3`.
  CKPT_HD Philox4 block(uint64_t block) const {
    Philox4 c = {
        {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
         static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)}};
    return philox4x32_10(c, key0, key1);
  }
  /// The 32-bit word of draw `n`.
  CKPT_HD uint32_t word(uint64_t n) const { return block(n / 4).w[n % 4]; }
  /// The uniform number of draw `n`: its top 24 bits scaled into [0, 1).
  CKPT_HD float uniform(uint64_t n) const { return philoxUniform(word(n)); }
  /// True if draw `n` keeps its element under drop probability `p`.
  CKPT_HD bool keep(uint64_t n, double p) const {
    return philoxKeep(word(n), p);
  }

  /// 24 random bits of `word` scaled into [0, 1) (exact in f32).
  CKPT_HD static float philoxUniform(uint32_t word) {
    return static_cast<float>(word >> 8) * (1.0f / 16777216.0f);
  }
  /// The keep rule of the host runtime: `uniform >= p`, compared in double.
  CKPT_HD static bool philoxKeep(uint32_t word, double p) {
    return static_cast<double>(philoxUniform(word)) >= p;
  }
};

/// The threshold form of the keep rule that device kernels use: draw `word`
/// is kept iff `(word >> 8) >= keepThreshold(p)`. Equivalent to
/// `PhiloxStream::philoxKeep` for every word (unit-tested), but integer-only.
CKPT_HD inline uint32_t keepThreshold(double p) {
  if (p != p)
    return 1u << 24; // NaN: `uniform >= NaN` never holds, nothing is kept.
  if (!(p > 0.0))
    return 0;
  if (p >= 1.0)
    return 1u << 24; // Larger than any 24-bit value: nothing is kept.
  // Smallest t with t * 2^-24 >= p; t * 2^-24 is exact in double.
  double scaled = p * 16777216.0;
  uint32_t t = static_cast<uint32_t>(scaled);
  if (static_cast<double>(t) < scaled)
    ++t;
  return t;
}

} // namespace ckpt::rt::cuda

#endif // CKPT_RUNTIME_CUDA_PHILOX_CUH
