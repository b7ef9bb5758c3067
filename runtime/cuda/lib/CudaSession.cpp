//===- CudaSession.cpp - Running generated training steps on a GPU --------===//
//
// The device arena, stream, cuBLASLt handle and scratch; host<->device
// binding; lifetime accounting (the same rules as the host Session); checked
// kernel calls with optional cudaEvent timing per phase.
//
//===----------------------------------------------------------------------===//
#include "CudaSessionImpl.h"

#include "ckpt/Runtime/Kernels.h"

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace ckpt::rt::cuda {

std::string describeOp(const OpInfo *op) {
  if (!op)
    return "outside any op";
  std::string s = "op #" + std::to_string(op->index) + " '" +
                  (op->name ? op->name : "?") + "'";
  if (op->location && *op->location)
    s += std::string(" (") + op->location + ")";
  if (op->recompute)
    s += " [recompute segment " + std::to_string(op->segment) + "]";
  return s;
}

uint64_t bindingBytes(const Binding &b) {
  uint64_t n = 1;
  for (int i = 0; i < b.rank; ++i)
    n *= static_cast<uint64_t>(b.shape[i]);
  return n * elementBytes(b.dtype);
}

//===----------------------------------------------------------------------===//
// Error checking
//===----------------------------------------------------------------------===//

/// " while running op #12 ..." for a failure inside a kernel call, else "".
static std::string during(const OpInfo *op) {
  return op ? " while running " + describeOp(op) : std::string();
}

static std::string position(const char *file, int line) {
  const char *base = std::strrchr(file, '/');
  return std::string(base ? base + 1 : file) + ":" + std::to_string(line);
}

void CudaExecContext::checkCuda(int status, const char *what, const char *file,
                                int line) const {
  if (status == cudaSuccess)
    return;
  auto err = static_cast<cudaError_t>(status);
  throw CudaError(std::string(what) + " failed: " + cudaGetErrorString(err) +
                  " (" + cudaGetErrorName(err) + ") at " +
                  position(file, line) +
                  during(state ? state->currentOp : nullptr));
}

void CudaExecContext::checkCublas(int status, const char *what,
                                  const char *file, int line) const {
  if (status == CUBLAS_STATUS_SUCCESS)
    return;
  auto err = static_cast<cublasStatus_t>(status);
  throw CudaError(std::string(what) +
                  " failed: " + cublasLtGetStatusString(err) + " (" +
                  cublasLtGetStatusName(err) + ") at " + position(file, line) +
                  during(state ? state->currentOp : nullptr));
}

void CudaExecContext::checkLaunch(const char *kernelName, const char *file,
                                  int line) const {
  checkCuda(static_cast<int>(cudaGetLastError()),
            (std::string("launch of ") + kernelName).c_str(), file, line);
}

#define CHECK_CUDA(call)                                                       \
  checkCuda(static_cast<int>(call), #call, __FILE__, __LINE__)
#define CHECK_CUBLAS(call)                                                     \
  checkCublas(static_cast<int>(call), #call, __FILE__, __LINE__)

//===----------------------------------------------------------------------===//
// CudaExecContext
//===----------------------------------------------------------------------===//

char *CudaExecContext::arena() const { return state->arena; }
uint64_t CudaExecContext::seed() const { return state->options.seed; }
void *CudaExecContext::stream() const { return state->stream; }
void *CudaExecContext::blasLtHandle() const { return state->blasLt; }
void *CudaExecContext::deviceScalars() const { return state->scratch; }
void *CudaExecContext::gemmWorkspace() const {
  return state->scratch + kDeviceScalarBytes;
}
bool CudaExecContext::allowTf32() const { return state->options.allowTf32; }
const OpInfo *CudaExecContext::currentOp() const { return state->currentOp; }

void *CudaExecContext::argument(uint64_t index) const {
  if (index >= state->argumentPtrs.size())
    throw CudaError("argument index " + std::to_string(index) +
                    " out of range");
  return state->argumentPtrs[index];
}

void *CudaExecContext::result(uint64_t index) const {
  if (index >= state->resultPtrs.size())
    throw CudaError("result index " + std::to_string(index) + " out of range");
  return state->resultPtrs[index];
}

void CudaExecContext::acquire(uint64_t offset, uint64_t bytes) {
  state->ledger.acquire(offset, bytes);
}

void CudaExecContext::release(uint64_t offset, uint64_t bytes) {
  state->ledger.release(offset, bytes);
}

void CudaExecContext::beginSegment(int id) { state->ledger.beginSegment(id); }

void CudaExecContext::endSegment(int id) { state->ledger.endSegment(id); }

static int phaseSlot(const OpInfo &op) {
  if (op.recompute)
    return 1;
  switch (op.phase) {
  case Phase::Forward:
    return 0;
  case Phase::Backward:
    return 2;
  case Phase::Optimizer:
    return 3;
  }
  return 0;
}

void CudaExecContext::call(const OpInfo &op, CudaKernelFn kernel,
                           TensorList operands, TensorList results,
                           const Attrs &attrs, const Tensor &workspace) {
  Impl &s = *state;
  if (!s.ledger.violation().empty())
    throw CudaError("plan error: " + s.ledger.takeViolation() + " (before " +
                    describeOp(&op) + ")");
  s.currentOp = &op;
  s.lastOp = &op;
  bool timed = s.options.timePhases;
  size_t pair = s.eventPairsUsed;
  if (timed) {
    while (s.events.size() < 2 * (pair + 1)) {
      cudaEvent_t e;
      CHECK_CUDA(cudaEventCreate(&e));
      s.events.push_back(e);
    }
    CHECK_CUDA(cudaEventRecord(s.events[2 * pair], s.stream));
  }
  try {
    kernel(*this, operands, results, attrs, workspace);
  } catch (const CudaError &) {
    throw; // Already names the op.
  } catch (const std::exception &e) {
    throw CudaError(describeOp(&op) + ": " + e.what());
  }
  checkLaunch(op.name ? op.name : "kernel", __FILE__, __LINE__);
  if (timed) {
    CHECK_CUDA(cudaEventRecord(s.events[2 * pair + 1], s.stream));
    s.eventPhase.push_back(phaseSlot(op));
    ++s.eventPairsUsed;
  }
  if (s.options.syncEachOp)
    CHECK_CUDA(cudaStreamSynchronize(s.stream));
  ++s.stats.opsRun;
  if (op.recompute)
    ++s.stats.recomputedOps;
  s.currentOp = nullptr;
}

//===----------------------------------------------------------------------===//
// CudaSession
//===----------------------------------------------------------------------===//

CudaSession::CudaSession(const CudaStepProgram &program,
                         CudaSessionOptions options)
    : prog(program), owned(std::make_unique<Impl>()) {
  state = owned.get();
  Impl &s = *state;
  s.program = &program;
  s.options = options;
  const StepProgram &step = program.step;
  if (!program.run)
    throw CudaError("CUDA step program '" +
                    std::string(step.name ? step.name : "?") +
                    "' has no run function");
  if (program.scratchOffset >= 0 &&
      (program.scratchOffset % 256 != 0 ||
       static_cast<uint64_t>(program.scratchOffset) + kDeviceScratchBytes >
           step.arenaSize))
    throw CudaError("the plan's device scratch offset " +
                    std::to_string(program.scratchOffset) +
                    " is not 256-byte aligned inside the arena");

  CHECK_CUDA(cudaSetDevice(options.device));
  CHECK_CUDA(cudaFree(nullptr)); // Create the context now, to measure it.
  size_t freeBytes = 0, totalBytes = 0;
  CHECK_CUDA(cudaMemGetInfo(&freeBytes, &totalBytes));
  s.stats.deviceBytesBaseline = totalBytes - freeBytes;

  CHECK_CUDA(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  CHECK_CUBLAS(cublasLtCreate(&s.blasLt));
  if (step.arenaSize > 0) {
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void **>(&s.arena), step.arenaSize));
    // Zero-filled, as the host arena: a program that reads a byte before
    // writing it still behaves the same on every run.
    CHECK_CUDA(cudaMemsetAsync(s.arena, 0, step.arenaSize, s.stream));
  }
  s.stats.arenaBytes = step.arenaSize;
  if (program.scratchOffset >= 0) {
    s.scratch = s.arena + program.scratchOffset;
  } else {
    CHECK_CUDA(
        cudaMalloc(reinterpret_cast<void **>(&s.scratch), kDeviceScratchBytes));
    s.scratchOwned = true;
    s.stats.scratchBytes = kDeviceScratchBytes;
  }

  auto bind = [&](const Binding *list, uint64_t n, std::vector<void *> &ptrs) {
    for (uint64_t i = 0; i < n; ++i) {
      const Binding &b = list[i];
      uint64_t bytes = bindingBytes(b);
      if (b.offset >= 0) {
        if (static_cast<uint64_t>(b.offset) + bytes > step.arenaSize)
          throw CudaError(std::string("binding '") + b.name +
                          "' lies outside the arena");
        ptrs.push_back(s.arena + b.offset);
        continue;
      }
      void *p = nullptr;
      if (bytes > 0) {
        CHECK_CUDA(cudaMalloc(&p, bytes));
        s.ownedBuffers.push_back(p);
        s.ownedBufferBytes += bytes;
      }
      ptrs.push_back(p);
    }
  };
  bind(step.arguments, step.numArguments, s.argumentPtrs);
  bind(step.results, step.numResults, s.resultPtrs);
  s.stats.boundBufferBytes = s.ownedBufferBytes;
  // Offload: pinned host memory (so that copies run asynchronously at the
  // link's rate), a stream per direction and an event per copy and way.
  if (step.hostArenaSize > 0)
    CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void **>(&s.hostArena),
                             step.hostArenaSize, cudaHostAllocDefault));
  s.stats.hostArenaBytes = step.hostArenaSize;
  if (step.numOffloads > 0) {
    CHECK_CUDA(cudaStreamCreateWithFlags(&s.toHost, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&s.toDevice, cudaStreamNonBlocking));
    CHECK_CUDA(cudaEventCreateWithFlags(&s.mark, cudaEventDisableTiming));
    for (uint64_t i = 0; i < step.numOffloads; ++i)
      for (auto *events : {&s.offloadDone, &s.prefetchDone}) {
        cudaEvent_t e;
        CHECK_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        events->push_back(e);
      }
  }
}

CudaExecContext::Impl::~Impl() {
  if (stream)
    cudaStreamSynchronize(stream);
  for (cudaStream_t copyStream : {toHost, toDevice})
    if (copyStream) {
      cudaStreamSynchronize(copyStream);
      cudaStreamDestroy(copyStream);
    }
  for (cudaEvent_t e : events)
    cudaEventDestroy(e);
  for (const std::vector<cudaEvent_t> *list :
       {&offloadDone, &prefetchDone, &copyEvents})
    for (cudaEvent_t e : *list)
      cudaEventDestroy(e);
  if (mark)
    cudaEventDestroy(mark);
  if (hostArena)
    cudaFreeHost(hostArena);
  for (void *p : ownedBuffers)
    cudaFree(p);
  if (scratchOwned)
    cudaFree(scratch);
  if (arena)
    cudaFree(arena);
  if (blasLt)
    cublasLtDestroy(blasLt);
  if (stream)
    cudaStreamDestroy(stream);
}

CudaSession::~CudaSession() = default;

static int findBinding(const Binding *list, uint64_t n,
                       const std::string &name) {
  for (uint64_t i = 0; i < n; ++i)
    if (list[i].name && name == list[i].name)
      return static_cast<int>(i);
  return -1;
}

int CudaSession::findArgument(const std::string &name) const {
  return findBinding(prog.step.arguments, prog.step.numArguments, name);
}

int CudaSession::findResult(const std::string &name) const {
  return findBinding(prog.step.results, prog.step.numResults, name);
}

void CudaSession::setArgument(uint64_t index, const void *hostData,
                              uint64_t bytes) {
  if (index >= prog.step.numArguments)
    throw std::invalid_argument("argument index " + std::to_string(index) +
                                " out of range");
  const Binding &b = prog.step.arguments[index];
  if (bytes != bindingBytes(b))
    throw std::invalid_argument(std::string("argument '") + b.name + "' has " +
                                std::to_string(bindingBytes(b)) +
                                " bytes, got " + std::to_string(bytes));
  if (bytes == 0)
    return;
  CHECK_CUDA(cudaMemcpyAsync(state->argumentPtrs[index], hostData, bytes,
                             cudaMemcpyHostToDevice, state->stream));
  CHECK_CUDA(cudaStreamSynchronize(state->stream));
}

static void readBinding(CudaSession &session, const Binding &b, void *device,
                        void *hostData, uint64_t bytes, cudaStream_t stream) {
  if (bytes != bindingBytes(b))
    throw std::invalid_argument(std::string("'") + b.name + "' has " +
                                std::to_string(bindingBytes(b)) +
                                " bytes, got " + std::to_string(bytes));
  if (bytes == 0)
    return;
  session.checkCuda(
      static_cast<int>(cudaMemcpyAsync(hostData, device, bytes,
                                       cudaMemcpyDeviceToHost, stream)),
      "cudaMemcpyAsync(device to host)", __FILE__, __LINE__);
  session.checkCuda(static_cast<int>(cudaStreamSynchronize(stream)),
                    "cudaStreamSynchronize", __FILE__, __LINE__);
}

void CudaSession::readResult(uint64_t index, void *hostData, uint64_t bytes) {
  if (index >= prog.step.numResults)
    throw std::invalid_argument("result index " + std::to_string(index) +
                                " out of range");
  readBinding(*this, prog.step.results[index], state->resultPtrs[index],
              hostData, bytes, state->stream);
}

void CudaSession::readArgument(uint64_t index, void *hostData, uint64_t bytes) {
  if (index >= prog.step.numArguments)
    throw std::invalid_argument("argument index " + std::to_string(index) +
                                " out of range");
  readBinding(*this, prog.step.arguments[index], state->argumentPtrs[index],
              hostData, bytes, state->stream);
}

void CudaSession::run() {
  Impl &s = *state;
  CudaStats &st = s.stats;
  CHECK_CUDA(cudaSetDevice(s.options.device));
  st.opsRun = st.recomputedOps = 0;
  st.forwardSeconds = st.recomputeSeconds = st.backwardSeconds =
      st.optimizerSeconds = st.stepSeconds = 0;
  s.ledger.reset(prog.step.arenaSize);
  s.hostLedger.reset(prog.step.hostArenaSize);
  s.copyState.assign(prog.step.numOffloads, 0);
  s.prefetched.assign(prog.step.numOffloads, 0);
  st.offloads = st.prefetches = st.bytesToHost = st.bytesToDevice = 0;
  st.toHostSeconds = st.toDeviceSeconds = 0;
  s.copyPairsUsed = 0;
  s.copyDirection.clear();
  s.eventPairsUsed = 0;
  s.eventPhase.clear();
  auto start = std::chrono::steady_clock::now();
  try {
    prog.run(*this);
  } catch (...) {
    s.currentOp = nullptr;
    // Leave no work in flight.
    for (cudaStream_t stream : {s.stream, s.toHost, s.toDevice})
      if (stream)
        cudaStreamSynchronize(stream);
    throw;
  }
  CHECK_CUDA(cudaStreamSynchronize(s.stream));
  for (cudaStream_t copyStream : {s.toHost, s.toDevice})
    if (copyStream)
      CHECK_CUDA(cudaStreamSynchronize(copyStream));
  for (size_t copy = 0; copy < s.copyState.size(); ++copy)
    if (s.copyState[copy] == 1)
      throw CudaError("plan error at the end of the step: copy " +
                      std::to_string(copy) +
                      " was offloaded but never waited for");
  s.ledger.finish();
  st.hostPeakBytesInUse = s.hostLedger.peakBytesInUse();
  if (!s.hostLedger.violation().empty())
    throw CudaError("plan error at the end of the step: host arena: " +
                    s.hostLedger.takeViolation());
  st.peakBytesInUse = s.ledger.peakBytesInUse();
  st.highWaterBytes = s.ledger.highWaterBytes();
  st.segmentsRun = s.ledger.segmentsRun();
  if (!s.ledger.violation().empty())
    throw CudaError(
        "plan error at the end of the step: " + s.ledger.takeViolation() +
        (s.lastOp ? " (after " + describeOp(s.lastOp) + ")" : std::string()));
  CHECK_CUDA(cudaGetLastError());
  st.stepSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  double *slots[4] = {&st.forwardSeconds, &st.recomputeSeconds,
                      &st.backwardSeconds, &st.optimizerSeconds};
  for (size_t p = 0; p < s.eventPairsUsed; ++p) {
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, s.events[2 * p], s.events[2 * p + 1]));
    *slots[s.eventPhase[p]] += ms * 1e-3;
  }
  for (size_t p = 0; p < s.copyPairsUsed; ++p) {
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, s.copyEvents[2 * p],
                                    s.copyEvents[2 * p + 1]));
    (s.copyDirection[p] == 0 ? st.toHostSeconds : st.toDeviceSeconds) +=
        ms * 1e-3;
  }
  size_t freeBytes = 0, totalBytes = 0;
  CHECK_CUDA(cudaMemGetInfo(&freeBytes, &totalBytes));
  st.deviceBytesUsed = totalBytes - freeBytes;
}

const CudaStats &CudaSession::stats() const { return state->stats; }

} // namespace ckpt::rt::cuda
