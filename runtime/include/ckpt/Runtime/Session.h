//===- Session.h - Running generated training steps ---------------*- C++ -*-===//
//
// A `Session` runs a generated `StepProgram`: it owns the arena (one
// allocation, or a buffer the caller lends), binds parameters, inputs and
// result buffers, runs steps and reports what it measured.
//
//   ckpt::rt::Session session(ckpt_step_program());
//   session.setArgument("h.0.ln_1.weight", weights, bytes);
//   session.run();                       // one training step
//   float loss = *static_cast<float *>(session.result(0));
//   ckpt::rt::Stats stats = session.stats();
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_SESSION_H
#define CKPT_RUNTIME_SESSION_H

#include "ckpt/Runtime/Program.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ckpt::rt {

/// What the runtime measured over the last `run()` (its own accounting, not
/// the planner's numbers).
struct Stats {
  /// Bytes of the arena (one allocation).
  uint64_t arenaBytes = 0;
  /// Peak of arena bytes held by live values at once (acquire/release).
  uint64_t peakBytesInUse = 0;
  /// One past the highest arena byte any value occupied.
  uint64_t highWaterBytes = 0;
  /// Kernel calls, and how many of them ran inside recompute segments.
  uint64_t opsRun = 0;
  uint64_t recomputedOps = 0;
  /// `beginSegment` calls (recompute segments run).
  uint64_t segmentsRun = 0;
  /// Wall time per phase, in seconds: forward, recompute, backward, optimizer.
  double forwardSeconds = 0, recomputeSeconds = 0, backwardSeconds = 0,
         optimizerSeconds = 0;
  /// The host arena (offloaded values): its bytes and the peak of its bytes
  /// held at once (acquireHost / releaseHost).
  uint64_t hostArenaBytes = 0;
  uint64_t hostPeakBytesInUse = 0;
  /// Copies each way, their bytes, and their wall time (on the host runtime
  /// a copy is a memcpy on the calling thread).
  uint64_t offloads = 0, prefetches = 0;
  uint64_t bytesToHost = 0, bytesToDevice = 0;
  double copySeconds = 0;
};

/// One line with every field of `stats` ("arena=... peak-in-use=... ").
std::string describe(const Stats &stats);

/// Options of a session.
struct SessionOptions {
  /// Base seed of every dropout stream.
  uint64_t seed = 0;
  /// Worker threads of the host kernels and OpenBLAS (0: hardware default).
  /// The same program gives bit-identical results for any value. The setting
  /// is process-wide (OpenBLAS has one) and applied at every `run()`.
  int threads = 0;
  /// Caller-owned arena of at least `program.arenaSize` bytes (aligned to
  /// `program.alignment`), or nullptr to allocate one.
  void *arena = nullptr;
};

/// Runs a generated step. Not thread-safe; one step at a time.
class Session : public ExecContext {
public:
  explicit Session(const StepProgram &program, SessionOptions options = {});
  ~Session();

  const StepProgram &program() const { return prog; }
  /// Index of the argument / result called `name`, or -1.
  int findArgument(const std::string &name) const;
  int findResult(const std::string &name) const;
  /// Copies `bytes` bytes (must equal the binding's size) into argument
  /// `index` (its arena slot or the session's own buffer for it). Throws
  /// std::invalid_argument on a size mismatch or a bad index.
  void setArgument(uint64_t index, const void *data, uint64_t bytes);
  /// Data of argument / result `index`. Arena-resident results are valid
  /// until the next `run`. (`result` hides ExecContext::result, which
  /// returns the same pointer and is what generated code calls.)
  void *argumentData(uint64_t index);
  void *result(uint64_t index);
  /// Runs one step. Throws std::runtime_error naming the op (mnemonic and
  /// source location) if a kernel fails or the program breaks its plan
  /// (overlapping live ranges, a write outside the arena). Before calling
  /// the program it acquires every argument that has an arena offset (live
  /// for the whole step); see Program.h for what generated code acquires.
  void run();
  /// What the last `run()` measured.
  const Stats &stats() const;

private:
  struct Impl;
  /// A copy (the program's tables are static data of the generated code), so
  /// that a temporary StepProgram cannot dangle.
  StepProgram prog;
  std::unique_ptr<Impl> impl;
  friend class ExecContext;
};

} // namespace ckpt::rt

#endif // CKPT_RUNTIME_SESSION_H
