//===- CudaOffload.cpp - Copies to host memory and back on a GPU ----------===//
//
// The offload part of CudaExecContext (conventions in ckpt/Runtime/Program.h,
// docs/gpu.md "Offload"): the pinned host arena's accounting, and copies on a
// stream per direction, ordered against the compute stream and each other by
// events.
//
//===----------------------------------------------------------------------===//
#include "CudaSessionImpl.h"

#include <string>

namespace ckpt::rt::cuda {

#define CHECK_CUDA(call)                                                       \
  checkCuda(static_cast<int>(call), #call, __FILE__, __LINE__)

void CudaExecContext::acquireHost(uint64_t offset, uint64_t bytes) {
  state->hostLedger.acquire(offset, bytes);
}

void CudaExecContext::releaseHost(uint64_t offset, uint64_t bytes) {
  state->hostLedger.release(offset, bytes);
}

/// Makes `waiter` wait for the work enqueued on `signaller` so far.
static void waitFor(CudaExecContext &ctx, cudaStream_t waiter,
                    cudaStream_t signaller) {
  CudaExecContext::Impl &s = ctx.impl();
  ctx.checkCuda(static_cast<int>(cudaEventRecord(s.mark, signaller)),
                "cudaEventRecord", __FILE__, __LINE__);
  ctx.checkCuda(static_cast<int>(cudaStreamWaitEvent(waiter, s.mark, 0)),
                "cudaStreamWaitEvent", __FILE__, __LINE__);
}

/// Checks copy `copy`'s number and ranges, naming `op`.
static void checkCopy(const CudaExecContext::Impl &s, const OpInfo &op,
                      uint64_t copy, uint64_t deviceOffset, uint64_t hostOffset,
                      uint64_t bytes) {
  const StepProgram &step = s.program->step;
  std::string what = describeOp(&op) + ": copy " + std::to_string(copy);
  if (copy >= s.copyState.size())
    throw CudaError(what + " does not exist (the step has " +
                    std::to_string(s.copyState.size()) + " offloads)");
  if (deviceOffset > step.arenaSize || bytes > step.arenaSize - deviceOffset)
    throw CudaError(what + ": device " + describeRange(deviceOffset, bytes) +
                    " lies outside the arena");
  if (hostOffset > step.hostArenaSize ||
      bytes > step.hostArenaSize - hostOffset)
    throw CudaError(what + ": host " + describeRange(hostOffset, bytes) +
                    " lies outside the host arena");
}

/// With timeCopies, records the start (`end` false) or the end of a copy on
/// `stream` (direction 0: to host, 1: to device).
static void timeCopy(CudaExecContext &ctx, cudaStream_t stream, int direction,
                     bool end) {
  CudaExecContext::Impl &s = ctx.impl();
  if (!s.options.timeCopies)
    return;
  size_t pair = s.copyPairsUsed;
  while (s.copyEvents.size() < 2 * (pair + 1)) {
    cudaEvent_t e;
    ctx.checkCuda(static_cast<int>(cudaEventCreate(&e)), "cudaEventCreate",
                  __FILE__, __LINE__);
    s.copyEvents.push_back(e);
  }
  ctx.checkCuda(static_cast<int>(cudaEventRecord(
                    s.copyEvents[2 * pair + (end ? 1 : 0)], stream)),
                "cudaEventRecord", __FILE__, __LINE__);
  if (end) {
    s.copyDirection.push_back(direction);
    ++s.copyPairsUsed;
  }
}

/// Enqueues the copy of `bytes` bytes from `source` to `destination` on the
/// stream of its direction (timed with timeCopies) and records `done` after
/// it.
static void enqueueCopy(CudaExecContext &ctx, char *destination,
                        const char *source, uint64_t bytes, bool toDevice,
                        cudaEvent_t done) {
  CudaExecContext::Impl &s = ctx.impl();
  cudaStream_t stream = toDevice ? s.toDevice : s.toHost;
  int direction = toDevice ? 1 : 0;
  timeCopy(ctx, stream, direction, false);
  ctx.checkCuda(static_cast<int>(cudaMemcpyAsync(
                    destination, source, bytes,
                    toDevice ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                    stream)),
                "cudaMemcpyAsync", __FILE__, __LINE__);
  timeCopy(ctx, stream, direction, true);
  ctx.checkCuda(static_cast<int>(cudaEventRecord(done, stream)),
                "cudaEventRecord", __FILE__, __LINE__);
}

void CudaExecContext::offload(const OpInfo &op, uint64_t copy,
                              uint64_t deviceOffset, uint64_t hostOffset,
                              uint64_t bytes) {
  Impl &s = *state;
  if (!s.ledger.violation().empty() || !s.hostLedger.violation().empty())
    throw CudaError("plan error: " +
                    (s.ledger.violation().empty()
                         ? "host arena: " + s.hostLedger.takeViolation()
                         : s.ledger.takeViolation()) +
                    " (before " + describeOp(&op) + ")");
  checkCopy(s, op, copy, deviceOffset, hostOffset, bytes);
  if (s.copyState[copy] != 0)
    throw CudaError(describeOp(&op) + ": copy " + std::to_string(copy) +
                    " is offloaded twice");
  s.currentOp = s.lastOp = &op;
  // The source is written by work enqueued on the compute stream; the host
  // range may still be read by an earlier copy back.
  waitFor(*this, s.toHost, s.stream);
  waitFor(*this, s.toHost, s.toDevice);
  enqueueCopy(*this, s.hostArena + hostOffset, s.arena + deviceOffset, bytes,
              /*toDevice=*/false, s.offloadDone[copy]);
  s.copyState[copy] = 1;
  ++s.stats.offloads;
  s.stats.bytesToHost += bytes;
  s.currentOp = nullptr;
}

void CudaExecContext::waitOffload(const OpInfo &op, uint64_t copy) {
  Impl &s = *state;
  if (copy >= s.copyState.size() || s.copyState[copy] != 1)
    throw CudaError(describeOp(&op) + ": waits for copy " +
                    std::to_string(copy) + ", which is not in flight");
  s.currentOp = s.lastOp = &op;
  CHECK_CUDA(cudaStreamWaitEvent(s.stream, s.offloadDone[copy], 0));
  s.copyState[copy] = 2;
  s.currentOp = nullptr;
}

void CudaExecContext::prefetch(const OpInfo &op, uint64_t copy,
                               uint64_t hostOffset, uint64_t deviceOffset,
                               uint64_t bytes) {
  Impl &s = *state;
  checkCopy(s, op, copy, deviceOffset, hostOffset, bytes);
  if (s.copyState[copy] == 0)
    throw CudaError(describeOp(&op) + ": prefetches copy " +
                    std::to_string(copy) + ", which was never offloaded");
  s.currentOp = s.lastOp = &op;
  // The device range may have held a value the compute stream used; the
  // host data is there once the copy out is done.
  waitFor(*this, s.toDevice, s.stream);
  CHECK_CUDA(cudaStreamWaitEvent(s.toDevice, s.offloadDone[copy], 0));
  enqueueCopy(*this, s.arena + deviceOffset, s.hostArena + hostOffset, bytes,
              /*toDevice=*/true, s.prefetchDone[copy]);
  s.prefetched[copy] = 1;
  ++s.stats.prefetches;
  s.stats.bytesToDevice += bytes;
  s.currentOp = nullptr;
}

void CudaExecContext::waitPrefetch(const OpInfo &op, uint64_t copy) {
  Impl &s = *state;
  if (copy >= s.prefetched.size() || !s.prefetched[copy])
    throw CudaError(describeOp(&op) + ": waits for a prefetch of copy " +
                    std::to_string(copy) + ", which has not run");
  CHECK_CUDA(cudaStreamWaitEvent(s.stream, s.prefetchDone[copy], 0));
}

} // namespace ckpt::rt::cuda
