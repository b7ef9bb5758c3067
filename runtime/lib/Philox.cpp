//===- Philox.cpp - Philox-4x32-10 ------------------------------------------===//
#include "Philox.h"

namespace ckpt::rt::detail {

namespace {
constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

inline void mulHiLo(uint32_t a, uint32_t b, uint32_t &hi, uint32_t &lo) {
  uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}
} // namespace

PhiloxBlock philox4x32_10(PhiloxBlock c, std::array<uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += kWeyl0;
      k[1] += kWeyl1;
    }
    uint32_t hi0, lo0, hi1, lo1;
    mulHiLo(kMul0, c[0], hi0, lo0);
    mulHiLo(kMul1, c[2], hi1, lo1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
  }
  return c;
}

} // namespace ckpt::rt::detail
