//===- ArenaLedger.h - The runtimes' own accounting of the arena -*- C++
//-*-===//
//
// The bookkeeping both runtimes (host Session, CUDA CudaSession) run while a
// generated step executes: live ranges of the arena by offset (an exact
// re-acquire of a live range is an in-place reuse, counted once), the bytes
// in use and their peak, the high-water mark, and recompute segments. The
// first plan violation (an acquire outside the arena or over a live range, a
// release of a range that is not live, unbalanced segments) is kept for the
// session to raise, naming the op, before the next kernel call or at the end
// of the step. No MLIR, no CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_RUNTIME_ARENALEDGER_H
#define CKPT_RUNTIME_ARENALEDGER_H

#include <cstdint>
#include <map>
#include <string>

namespace ckpt::rt {

/// `[offset, offset + bytes)`, as the runtimes' messages write a range.
std::string describeRange(uint64_t offset, uint64_t bytes);

/// Live-range accounting of one step over an arena of a fixed size.
class ArenaLedger {
public:
  /// Starts a step over an arena of `arenaBytes`: nothing live, counters 0.
  void reset(uint64_t arenaBytes);

  /// Marks `[offset, offset + bytes)` live (nothing for 0 bytes).
  void acquire(uint64_t offset, uint64_t bytes);
  /// Ends the live range `[offset, offset + bytes)` (nothing for 0 bytes).
  void release(uint64_t offset, uint64_t bytes);
  /// Opens recompute segment `id`; segments do not nest.
  void beginSegment(int id);
  /// Closes recompute segment `id`, which must be the open one.
  void endSegment(int id);
  /// Ends the step: a segment still open is a violation.
  void finish();

  /// The first violation since the last `takeViolation`, or empty.
  const std::string &violation() const { return pending; }
  /// Returns the pending violation and clears it.
  std::string takeViolation();

  /// Bytes of the arena live now, their peak over the step, and one past
  /// the highest byte any live range reached.
  uint64_t bytesInUse() const { return inUse; }
  uint64_t peakBytesInUse() const { return peak; }
  uint64_t highWaterBytes() const { return highWater; }
  /// `beginSegment` calls this step.
  uint64_t segmentsRun() const { return segments; }
  /// The open recompute segment, or -1.
  int openSegmentId() const { return openSegment; }

private:
  void violate(const std::string &message);

  struct Live {
    uint64_t end;
    int refs;
  };
  std::map<uint64_t, Live> live;
  uint64_t arenaSize = 0, inUse = 0, peak = 0, highWater = 0, segments = 0;
  int openSegment = -1;
  std::string pending;
};

} // namespace ckpt::rt

#endif // CKPT_RUNTIME_ARENALEDGER_H
