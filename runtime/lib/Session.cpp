//===- Session.cpp - Running generated training steps -----------------------===//
//
// The arena, the bound buffers, the independent accounting of live ranges
// (acquire / release) and the timing of every kernel call.
//
//===----------------------------------------------------------------------===//
#include "ckpt/Runtime/Session.h"

#include "ckpt/Runtime/ArenaLedger.h"

#include "KernelSupport.h"
#include "ckpt/Runtime/Kernels.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ckpt::rt {

namespace {

/// An aligned heap block.
struct AlignedBuffer {
  void *ptr = nullptr;
  size_t size = 0;
  AlignedBuffer() = default;
  AlignedBuffer(size_t bytes, size_t alignment) : size(bytes) {
    size_t rounded = (std::max<size_t>(bytes, 1) + alignment - 1) / alignment * alignment;
    ptr = std::aligned_alloc(alignment, rounded);
    if (!ptr)
      throw std::bad_alloc();
    std::memset(ptr, 0, rounded);
  }
  AlignedBuffer(AlignedBuffer &&o) noexcept : ptr(o.ptr), size(o.size) {
    o.ptr = nullptr;
  }
  AlignedBuffer &operator=(AlignedBuffer &&o) noexcept {
    std::swap(ptr, o.ptr);
    std::swap(size, o.size);
    return *this;
  }
  ~AlignedBuffer() { std::free(ptr); }
};

uint64_t bindingBytes(const Binding &b) {
  uint64_t n = 1;
  for (int i = 0; i < b.rank; ++i)
    n *= static_cast<uint64_t>(b.shape[i]);
  return n * elementBytes(b.dtype);
}

std::string describeOp(const OpInfo &op) {
  std::string s = "op #" + std::to_string(op.index) + " '" +
                  (op.name ? op.name : "?") + "'";
  if (op.location && *op.location)
    s += std::string(" at ") + op.location;
  return s;
}

} // namespace

struct Session::Impl {
  SessionOptions options;
  uint64_t alignment = 64;
  AlignedBuffer ownedArena;
  char *arena = nullptr;
  uint64_t arenaSize = 0;
  std::vector<AlignedBuffer> argBuffers, resultBuffers;
  std::vector<void *> argPtrs, resultPtrs;

  /// The host arena of offloaded values, its accounting, and the state of
  /// every copy this step (0: not yet offloaded, 1: offloaded, 2: waited).
  AlignedBuffer hostArena;
  uint64_t hostArenaSize = 0;
  ArenaLedger hostLedger;
  std::vector<uint8_t> copyState;
  /// Per copy: prefetched this step.
  std::vector<uint8_t> prefetched;

  /// The step's arena accounting (acquire/release/segments).
  ArenaLedger ledger;
  Stats stats;
  const OpInfo *lastOp = nullptr;

  /// Copies the ledger's figures into `stats`.
  void syncStats() {
    stats.peakBytesInUse = ledger.peakBytesInUse();
    stats.highWaterBytes = ledger.highWaterBytes();
    stats.segmentsRun = ledger.segmentsRun();
    stats.hostPeakBytesInUse = hostLedger.peakBytesInUse();
  }
  /// Whether either ledger has a pending plan violation.
  bool violated() const {
    return !ledger.violation().empty() || !hostLedger.violation().empty();
  }
  /// Throws the pending plan violation, saying where it was seen.
  [[noreturn]] void raise(const std::string &where) {
    syncStats();
    if (ledger.violation().empty())
      throw std::runtime_error(
          "plan violation " + where +
          " in the host arena: " + hostLedger.takeViolation());
    throw std::runtime_error("plan violation " + where + ": " +
                             ledger.takeViolation());
  }
  /// Copies `bytes` bytes (a copy of an offload plan), timing it.
  void timedCopy(char *destination, const char *source, uint64_t bytes) {
    auto start = std::chrono::steady_clock::now();
    std::memcpy(destination, source, bytes);
    stats.copySeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  }
  /// Checks a copy's ranges and its place in the order of copies; throws
  /// naming `op`.
  void checkCopy(const OpInfo &op, uint64_t copy, uint64_t deviceOffset,
                 uint64_t hostOffset, uint64_t bytes) const {
    std::string what = describeOp(op) + ": copy " + std::to_string(copy);
    if (copy >= copyState.size())
      throw std::runtime_error(what + " does not exist (the step has " +
                               std::to_string(copyState.size()) + " offloads)");
    if (deviceOffset > arenaSize || bytes > arenaSize - deviceOffset)
      throw std::runtime_error(
          what + ": device " + describeRange(deviceOffset, bytes) +
          " lies outside the arena of " + std::to_string(arenaSize) + " bytes");
    if (hostOffset > hostArenaSize || bytes > hostArenaSize - hostOffset)
      throw std::runtime_error(what + ": host " +
                               describeRange(hostOffset, bytes) +
                               " lies outside the host arena of " +
                               std::to_string(hostArenaSize) + " bytes");
  }
  bool inOwned(const void *p, size_t bytes) const {
    auto a = reinterpret_cast<uintptr_t>(p);
    auto inside = [&](const void *base, size_t size) {
      auto b = reinterpret_cast<uintptr_t>(base);
      return a >= b && a + bytes <= b + size;
    };
    if (arena && inside(arena, arenaSize))
      return true;
    for (const AlignedBuffer &buf : argBuffers)
      if (buf.ptr && inside(buf.ptr, buf.size))
        return true;
    for (const AlignedBuffer &buf : resultBuffers)
      if (buf.ptr && inside(buf.ptr, buf.size))
        return true;
    return false;
  }
};

Session::Session(const StepProgram &program, SessionOptions options)
    : prog(program), impl(std::make_unique<Impl>()) {
  Impl &s = *impl;
  s.options = options;
  s.alignment = std::max<uint64_t>(64, program.alignment);
  if (s.alignment & (s.alignment - 1))
    throw std::invalid_argument("arena alignment " +
                                std::to_string(program.alignment) +
                                " is not a power of two");
  s.arenaSize = program.arenaSize;
  if (options.arena) {
    if (reinterpret_cast<uintptr_t>(options.arena) % s.alignment)
      throw std::invalid_argument("the caller's arena is not aligned to " +
                                  std::to_string(s.alignment) + " bytes");
    s.arena = static_cast<char *>(options.arena);
  } else {
    s.ownedArena = AlignedBuffer(s.arenaSize, s.alignment);
    s.arena = static_cast<char *>(s.ownedArena.ptr);
  }
  arenaBase = s.arena;
  baseSeed = options.seed;
  s.hostArenaSize = program.hostArenaSize;
  if (s.hostArenaSize > 0) {
    s.hostArena = AlignedBuffer(s.hostArenaSize, s.alignment);
    hostArenaBase = static_cast<char *>(s.hostArena.ptr);
  }
  auto bind = [&](const Binding *bindings, uint64_t count,
                  std::vector<AlignedBuffer> &buffers, std::vector<void *> &ptrs,
                  const char *kind) {
    buffers.resize(count);
    ptrs.resize(count);
    for (uint64_t i = 0; i < count; ++i) {
      const Binding &b = bindings[i];
      uint64_t bytes = bindingBytes(b);
      if (b.offset < 0) {
        buffers[i] = AlignedBuffer(bytes, 64);
        ptrs[i] = buffers[i].ptr;
        continue;
      }
      if (static_cast<uint64_t>(b.offset) + bytes > s.arenaSize)
        throw std::invalid_argument(std::string(kind) + " '" + b.name + "' at " +
                                    describeRange(b.offset, bytes) +
                                    " lies outside the arena of " +
                                    std::to_string(s.arenaSize) + " bytes");
      ptrs[i] = s.arena + b.offset;
    }
  };
  bind(program.arguments, program.numArguments, s.argBuffers, s.argPtrs,
       "argument");
  bind(program.results, program.numResults, s.resultBuffers, s.resultPtrs,
       "result");
  s.stats.arenaBytes = s.arenaSize;
  s.stats.hostArenaBytes = s.hostArenaSize;
}

Session::~Session() = default;

int Session::findArgument(const std::string &name) const {
  for (uint64_t i = 0; i < prog.numArguments; ++i)
    if (name == prog.arguments[i].name)
      return static_cast<int>(i);
  return -1;
}

int Session::findResult(const std::string &name) const {
  for (uint64_t i = 0; i < prog.numResults; ++i)
    if (name == prog.results[i].name)
      return static_cast<int>(i);
  return -1;
}

void Session::setArgument(uint64_t index, const void *data, uint64_t bytes) {
  if (index >= prog.numArguments)
    throw std::invalid_argument("argument index " + std::to_string(index) +
                                " out of range (" +
                                std::to_string(prog.numArguments) + " arguments)");
  uint64_t want = bindingBytes(prog.arguments[index]);
  if (bytes != want)
    throw std::invalid_argument("argument '" +
                                std::string(prog.arguments[index].name) +
                                "' takes " + std::to_string(want) +
                                " bytes, got " + std::to_string(bytes));
  if (bytes)
    std::memcpy(impl->argPtrs[index], data, bytes);
}

void *Session::argumentData(uint64_t index) {
  if (index >= prog.numArguments)
    throw std::invalid_argument("argument index out of range");
  return impl->argPtrs[index];
}

void *Session::result(uint64_t index) {
  if (index >= prog.numResults)
    throw std::invalid_argument("result index out of range");
  return impl->resultPtrs[index];
}

const Stats &Session::stats() const { return impl->stats; }

void Session::run() {
  Impl &s = *impl;
  int threads = s.options.threads > 0
                    ? s.options.threads
                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  detail::setThreadCount(threads);
  // GEMMs parallelize over fixed tiles of the result (detail::gemm), each
  // tile one single-threaded OpenBLAS call: OpenBLAS's own threading gives
  // different bits for different thread counts.
  openblas_set_num_threads(1);
  s.ledger.reset(s.arenaSize);
  s.hostLedger.reset(s.hostArenaSize);
  s.copyState.assign(prog.numOffloads, 0);
  s.prefetched.assign(prog.numOffloads, 0);
  s.stats = Stats();
  s.stats.arenaBytes = s.arenaSize;
  s.stats.hostArenaBytes = s.hostArenaSize;
  s.lastOp = nullptr;
  // Arguments in the arena are live for the whole step; generated code never
  // acquires or releases them. Their sizes are rounded up to the plan's
  // alignment, as the planner (and the generated acquire/release calls)
  // count every buffer, so the measured peak is comparable with the plan's.
  for (uint64_t i = 0; i < prog.numArguments; ++i) {
    const Binding &b = prog.arguments[i];
    uint64_t align = prog.alignment ? prog.alignment : 1;
    if (b.offset >= 0)
      acquire(static_cast<uint64_t>(b.offset),
              (bindingBytes(b) + align - 1) / align * align);
  }
  if (!s.ledger.violation().empty())
    s.raise("in the step's arguments");
  prog.run(*this);
  s.ledger.finish();
  for (size_t copy = 0; copy < s.copyState.size(); ++copy)
    if (s.copyState[copy] == 1)
      throw std::runtime_error("plan violation at the end of the step: copy " +
                               std::to_string(copy) +
                               " was offloaded but never waited for");
  if (s.violated())
    s.raise("at the end of the step" +
            (s.lastOp ? " (after " + describeOp(*s.lastOp) + ")" : std::string()));
  s.syncStats();
}

//===----------------------------------------------------------------------===//
// ExecContext: what generated code calls
//===----------------------------------------------------------------------===//

void *ExecContext::argument(uint64_t index) const {
  const auto &session = static_cast<const Session &>(*this);
  if (index >= session.prog.numArguments)
    throw std::runtime_error("generated code asked for argument " +
                             std::to_string(index) + " of " +
                             std::to_string(session.prog.numArguments));
  return session.impl->argPtrs[index];
}

void *ExecContext::result(uint64_t index) const {
  const auto &session = static_cast<const Session &>(*this);
  if (index >= session.prog.numResults)
    throw std::runtime_error("generated code asked for result " +
                             std::to_string(index) + " of " +
                             std::to_string(session.prog.numResults));
  return session.impl->resultPtrs[index];
}

void ExecContext::acquire(uint64_t offset, uint64_t bytes) {
  static_cast<Session &>(*this).impl->ledger.acquire(offset, bytes);
}

void ExecContext::release(uint64_t offset, uint64_t bytes) {
  static_cast<Session &>(*this).impl->ledger.release(offset, bytes);
}

void ExecContext::acquireHost(uint64_t offset, uint64_t bytes) {
  static_cast<Session &>(*this).impl->hostLedger.acquire(offset, bytes);
}

void ExecContext::releaseHost(uint64_t offset, uint64_t bytes) {
  static_cast<Session &>(*this).impl->hostLedger.release(offset, bytes);
}

void ExecContext::offload(const OpInfo &op, uint64_t copy,
                          uint64_t deviceOffset, uint64_t hostOffset,
                          uint64_t bytes) {
  Session::Impl &s = *static_cast<Session &>(*this).impl;
  if (s.violated())
    s.raise("before " + describeOp(op));
  s.checkCopy(op, copy, deviceOffset, hostOffset, bytes);
  if (s.copyState[copy] != 0)
    throw std::runtime_error(describeOp(op) + ": copy " + std::to_string(copy) +
                             " is offloaded twice");
  s.lastOp = &op;
  s.timedCopy(hostArenaBase + hostOffset, arenaBase + deviceOffset, bytes);
  s.copyState[copy] = 1;
  ++s.stats.offloads;
  s.stats.bytesToHost += bytes;
}

void ExecContext::waitOffload(const OpInfo &op, uint64_t copy) {
  Session::Impl &s = *static_cast<Session &>(*this).impl;
  if (copy >= s.copyState.size() || s.copyState[copy] != 1)
    throw std::runtime_error(describeOp(op) + ": waits for copy " +
                             std::to_string(copy) + ", which is not in flight");
  s.copyState[copy] = 2;
  s.lastOp = &op;
}

void ExecContext::prefetch(const OpInfo &op, uint64_t copy, uint64_t hostOffset,
                           uint64_t deviceOffset, uint64_t bytes) {
  Session::Impl &s = *static_cast<Session &>(*this).impl;
  if (s.violated())
    s.raise("before " + describeOp(op));
  s.checkCopy(op, copy, deviceOffset, hostOffset, bytes);
  if (s.copyState[copy] == 0)
    throw std::runtime_error(describeOp(op) + ": prefetches copy " +
                             std::to_string(copy) +
                             ", which was never offloaded");
  s.lastOp = &op;
  s.timedCopy(arenaBase + deviceOffset, hostArenaBase + hostOffset, bytes);
  ++s.stats.prefetches;
  s.stats.bytesToDevice += bytes;
  s.prefetched[copy] = 1;
}

void ExecContext::waitPrefetch(const OpInfo &op, uint64_t copy) {
  Session::Impl &s = *static_cast<Session &>(*this).impl;
  if (copy >= s.prefetched.size() || !s.prefetched[copy])
    throw std::runtime_error(describeOp(op) +
                             ": waits for a prefetch of copy " +
                             std::to_string(copy) + ", which has not run");
}

void ExecContext::beginSegment(int id) {
  static_cast<Session &>(*this).impl->ledger.beginSegment(id);
}

void ExecContext::endSegment(int id) {
  static_cast<Session &>(*this).impl->ledger.endSegment(id);
}

void ExecContext::call(const OpInfo &op, KernelFn kernel, TensorList operands,
                       TensorList results, const Attrs &attrs,
                       const Tensor &workspace) {
  Session::Impl &s = *static_cast<Session &>(*this).impl;
  if (s.violated())
    s.raise("before " + describeOp(op));
  int open = s.ledger.openSegmentId();
  if (op.recompute && op.segment >= 0 && open >= 0 && op.segment != open)
    throw std::runtime_error(describeOp(op) + " belongs to recompute segment " +
                             std::to_string(op.segment) + " but segment " +
                             std::to_string(open) + " is open");
  // Every buffer a kernel touches must be the arena or a bound buffer.
  auto check = [&](const Tensor &t, const char *kind, size_t i) {
    if (t.present() && !s.inOwned(t.data, t.bytes()))
      throw std::runtime_error(describeOp(op) + ": " + kind + " " +
                               std::to_string(i) +
                               " lies outside the arena and the bound buffers");
  };
  for (size_t i = 0; i < operands.size; ++i)
    check(operands[i], "operand", i);
  for (size_t i = 0; i < results.size; ++i)
    check(results[i], "result", i);
  check(workspace, "workspace", 0);
  s.lastOp = &op;
  auto start = std::chrono::steady_clock::now();
  try {
    kernel(*this, operands, results, attrs, workspace);
  } catch (const std::exception &e) {
    throw std::runtime_error(describeOp(op) + ": " + e.what());
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++s.stats.opsRun;
  if (op.recompute) {
    ++s.stats.recomputedOps;
    s.stats.recomputeSeconds += seconds;
    return;
  }
  switch (op.phase) {
  case Phase::Forward: s.stats.forwardSeconds += seconds; break;
  case Phase::Backward: s.stats.backwardSeconds += seconds; break;
  case Phase::Optimizer: s.stats.optimizerSeconds += seconds; break;
  }
}

std::string describe(const Stats &stats) {
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "arena=%llu peak-in-use=%llu high-water=%llu ops=%llu "
                "recomputed=%llu segments=%llu time: forward=%.6fs "
                "recompute=%.6fs backward=%.6fs optimizer=%.6fs",
                static_cast<unsigned long long>(stats.arenaBytes),
                static_cast<unsigned long long>(stats.peakBytesInUse),
                static_cast<unsigned long long>(stats.highWaterBytes),
                static_cast<unsigned long long>(stats.opsRun),
                static_cast<unsigned long long>(stats.recomputedOps),
                static_cast<unsigned long long>(stats.segmentsRun),
                stats.forwardSeconds, stats.recomputeSeconds,
                stats.backwardSeconds, stats.optimizerSeconds);
  std::string text = buf;
  if (stats.hostArenaBytes > 0 || stats.offloads > 0) {
    std::snprintf(buf, sizeof buf,
                  " host-arena=%llu host-peak-in-use=%llu offloads=%llu "
                  "prefetches=%llu to-host=%llu to-device=%llu copy=%.6fs",
                  static_cast<unsigned long long>(stats.hostArenaBytes),
                  static_cast<unsigned long long>(stats.hostPeakBytesInUse),
                  static_cast<unsigned long long>(stats.offloads),
                  static_cast<unsigned long long>(stats.prefetches),
                  static_cast<unsigned long long>(stats.bytesToHost),
                  static_cast<unsigned long long>(stats.bytesToDevice),
                  stats.copySeconds);
    text += buf;
  }
  return text;
}

} // namespace ckpt::rt
