//===- ArenaLedger.cpp - The runtimes' own accounting of the arena --------===//

#include "ckpt/Runtime/ArenaLedger.h"

#include <algorithm>
#include <iterator>

using namespace ckpt::rt;

std::string ckpt::rt::describeRange(uint64_t offset, uint64_t bytes) {
  return "[" + std::to_string(offset) + ", " + std::to_string(offset + bytes) +
         ")";
}

void ArenaLedger::reset(uint64_t arenaBytes) {
  live.clear();
  arenaSize = arenaBytes;
  inUse = peak = highWater = segments = 0;
  openSegment = -1;
  pending.clear();
}

void ArenaLedger::violate(const std::string &message) {
  if (pending.empty())
    pending = message;
}

std::string ArenaLedger::takeViolation() {
  std::string message;
  message.swap(pending);
  return message;
}

void ArenaLedger::acquire(uint64_t offset, uint64_t bytes) {
  if (bytes == 0)
    return;
  if (offset + bytes > arenaSize || offset + bytes < offset) {
    violate("acquire of " + describeRange(offset, bytes) +
            " outside the arena of " + std::to_string(arenaSize) + " bytes");
    return;
  }
  auto it = live.find(offset);
  if (it != live.end() && it->second.end == offset + bytes) {
    ++it->second.refs; // In-place reuse: the same storage, counted once.
    return;
  }
  // The live range starting at or after `offset`, and the one before it.
  auto next = live.lower_bound(offset);
  if (next != live.end() && next->first < offset + bytes) {
    violate("acquire of " + describeRange(offset, bytes) +
            " overlaps the live range " +
            describeRange(next->first, next->second.end - next->first));
    return;
  }
  if (next != live.begin()) {
    auto prev = std::prev(next);
    if (prev->second.end > offset) {
      violate("acquire of " + describeRange(offset, bytes) +
              " overlaps the live range " +
              describeRange(prev->first, prev->second.end - prev->first));
      return;
    }
  }
  live.emplace(offset, Live{offset + bytes, 1});
  inUse += bytes;
  peak = std::max(peak, inUse);
  highWater = std::max(highWater, offset + bytes);
}

void ArenaLedger::release(uint64_t offset, uint64_t bytes) {
  if (bytes == 0)
    return;
  auto it = live.find(offset);
  if (it == live.end() || it->second.end != offset + bytes) {
    violate("release of " + describeRange(offset, bytes) +
            ", which is not live");
    return;
  }
  if (--it->second.refs > 0)
    return;
  inUse -= bytes;
  live.erase(it);
}

void ArenaLedger::beginSegment(int id) {
  if (openSegment >= 0)
    violate("recompute segment " + std::to_string(id) +
            " begins inside segment " + std::to_string(openSegment));
  openSegment = id;
  ++segments;
}

void ArenaLedger::endSegment(int id) {
  if (openSegment != id)
    violate("end of recompute segment " + std::to_string(id) +
            (openSegment >= 0
                 ? " while segment " + std::to_string(openSegment) + " is open"
                 : std::string(" that was never begun")));
  openSegment = -1;
}

void ArenaLedger::finish() {
  if (openSegment >= 0)
    violate("recompute segment " + std::to_string(openSegment) +
            " was never closed");
}
