//===- CudaSession.h - Generated training steps on a GPU --------*- C++ -*-===//
//
// The device twin of ckpt/Runtime/Session.h. A generated CUDA step
// (`ckpt-opt --emit=cuda`) is the same straight-line program as the host
// step, but its `run` function takes a `CudaExecContext` and calls the device
// kernels of CudaKernels.h. `CudaSession` owns the device arena (one
// `cudaMalloc` of the plan's size), a stream, a cuBLASLt handle and the fixed
// device scratch block (cuBLASLt workspace plus a few scalars), binds
// arguments by host<->device copies, runs steps and reports what it measured.
//
//   ckpt::rt::cuda::CudaSession session(ckpt_step_cuda_program());
//   session.setArgument(0, hostWeights, bytes);    // host -> device
//   session.run();                                 // one training step
//   float loss;
//   session.readResult(0, &loss, sizeof loss);     // device -> host
//
// Every CUDA and cuBLASLt call is checked; a failure throws `CudaError` with
// the call, the source position and the op being run (mnemonic, index,
// location). Plain C++17: this header needs no CUDA headers.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_CUDA_CUDASESSION_H
#define CKPT_RUNTIME_CUDA_CUDASESSION_H

#include "ckpt/Runtime/Program.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace ckpt::rt::cuda {

class CudaExecContext;

/// Signature of every device kernel: as `ckpt::rt::KernelFn`, with tensor
/// data pointers that are device pointers (into the arena or a bound device
/// buffer). Kernels enqueue work on `ctx.stream()` and return without
/// synchronizing.
using CudaKernelFn = void (*)(CudaExecContext &ctx, TensorList operands,
                              TensorList results, const Attrs &attrs,
                              const Tensor &workspace);

/// A generated CUDA training step: the plan's facts (`step`, whose `run` is
/// unused and may be null) and the device program.
struct CudaStepProgram {
  /// Arena size, bindings and counts, exactly as in the host program.
  StepProgram step;
  /// Runs one step: enqueues every kernel on `ctx.stream()`.
  void (*run)(CudaExecContext &ctx);
  /// Arena offset of the device scratch block (`kDeviceScratchBytes`) when
  /// the plan reserved it inside the arena, or -1: the session then
  /// allocates it separately (and reports it in `CudaStats`).
  int64_t scratchOffset;
};

/// Bytes of the cuBLASLt workspace every GEMM may use: 32 MiB, NVIDIA's
/// recommendation for Hopper (enough for split-K on every shape we emit).
constexpr uint64_t kCublasLtWorkspaceBytes = 32ull << 20;
/// Bytes of small device scalars some kernels exchange (the number of
/// counted rows of a `mean` cross-entropy), placed before the GEMM workspace.
constexpr uint64_t kDeviceScalarBytes = 256;
/// Bytes of the device scratch block a step needs besides the planned
/// arena: scalars, then the cuBLASLt workspace (256-byte aligned).
constexpr uint64_t kDeviceScratchBytes =
    kDeviceScalarBytes + kCublasLtWorkspaceBytes;

/// A CUDA or cuBLASLt failure, or a kernel call the device backend refuses.
struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What the runtime measured over the last `run()`.
struct CudaStats {
  /// Bytes of the device arena (one `cudaMalloc`).
  uint64_t arenaBytes = 0;
  /// Bytes of the device scratch block, when allocated outside the arena.
  uint64_t scratchBytes = 0;
  /// Bytes of the session's own device buffers for arguments and results
  /// that live outside the arena.
  uint64_t boundBufferBytes = 0;
  /// Peak of arena bytes held by live values at once (acquire/release).
  uint64_t peakBytesInUse = 0;
  /// One past the highest arena byte any value occupied.
  uint64_t highWaterBytes = 0;
  /// Device memory in use (`total - free` of `cudaMemGetInfo`) after the
  /// step: the arena, the scratch, the bound buffers, the CUDA context and
  /// cuBLASLt's own allocations, and anything other processes hold.
  uint64_t deviceBytesUsed = 0;
  /// Device memory in use before the session allocated anything (the CUDA
  /// context and other processes), for `deviceBytesUsed - baseline`.
  uint64_t deviceBytesBaseline = 0;
  /// Kernel calls, and how many of them ran inside recompute segments.
  uint64_t opsRun = 0;
  uint64_t recomputedOps = 0;
  /// `beginSegment` calls (recompute segments run).
  uint64_t segmentsRun = 0;
  /// GPU time per phase in seconds (cudaEvent pairs around every kernel call;
  /// zero unless `CudaSessionOptions::timePhases`): forward, recompute,
  /// backward, optimizer.
  double forwardSeconds = 0, recomputeSeconds = 0, backwardSeconds = 0,
         optimizerSeconds = 0;
  /// Wall time of the whole step, launch to synchronization, in seconds.
  double stepSeconds = 0;
  /// The pinned host arena of offloaded values (`cudaHostAlloc`) and the
  /// peak of its bytes held at once (acquireHost / releaseHost).
  uint64_t hostArenaBytes = 0;
  uint64_t hostPeakBytesInUse = 0;
  /// Copies each way and their bytes; with `timeCopies`, the GPU time of
  /// the copies on each copy stream (cudaEvent pairs), in seconds.
  uint64_t offloads = 0, prefetches = 0;
  uint64_t bytesToHost = 0, bytesToDevice = 0;
  double toHostSeconds = 0, toDeviceSeconds = 0;
};

/// Options of a CUDA session.
struct CudaSessionOptions {
  /// Base seed of every dropout stream.
  uint64_t seed = 0;
  /// CUDA device ordinal.
  int device = 0;
  /// Let f32 GEMMs run on TF32 tensor cores (`CUBLAS_COMPUTE_32F_FAST_TF32`).
  /// Off by default: f32 products then match the host backend closely.
  bool allowTf32 = false;
  /// Record a cudaEvent pair around every kernel call and add the elapsed
  /// times per phase to `CudaStats`.
  bool timePhases = false;
  /// Record a cudaEvent pair around every copy of an offload plan and add
  /// the elapsed times per direction to `CudaStats`.
  bool timeCopies = false;
  /// Synchronize after every kernel call, so that an asynchronous fault is
  /// reported with the op that caused it (slow; for debugging).
  bool syncEachOp = false;
};

/// What a generated CUDA step calls, and what device kernels use. Mirrors
/// `ckpt::rt::ExecContext`.
class CudaExecContext {
public:
  /// Device base of the arena.
  char *arena() const;
  /// Device data of argument / result `index`.
  void *argument(uint64_t index) const;
  void *result(uint64_t index) const;
  /// The step's base random seed (Philox key for every dropout).
  uint64_t seed() const;

  /// Lifetime accounting, exactly as the host `ExecContext::acquire` /
  /// `release` (conventions in ckpt/Runtime/Program.h): the session acquires
  /// the arguments before `run`; overlapping a live range or releasing a
  /// range that is not live is a plan error, raised as `CudaError` before the
  /// next kernel call or at the end of the step; re-acquiring exactly a live
  /// range is an in-place reuse (counted once, reference-counted).
  void acquire(uint64_t offset, uint64_t bytes);
  void release(uint64_t offset, uint64_t bytes);
  /// Offload (conventions in ckpt/Runtime/Program.h): the host arena's
  /// accounting; copy `copy` to the host on the device-to-host stream, after
  /// the work enqueued so far (and after every earlier copy back, whose host
  /// range it may reuse); the compute stream waiting for that copy; copy
  /// `copy` back on the host-to-device stream, after the work enqueued so
  /// far (its device range may have held another value) and after the copy
  /// out; and the compute stream waiting for the copy back, called by its
  /// first reader.
  void acquireHost(uint64_t offset, uint64_t bytes);
  void releaseHost(uint64_t offset, uint64_t bytes);
  void offload(const OpInfo &op, uint64_t copy, uint64_t deviceOffset,
               uint64_t hostOffset, uint64_t bytes);
  void waitOffload(const OpInfo &op, uint64_t copy);
  void prefetch(const OpInfo &op, uint64_t copy, uint64_t hostOffset,
                uint64_t deviceOffset, uint64_t bytes);
  void waitPrefetch(const OpInfo &op, uint64_t copy);
  /// Brackets the ops of recompute segment `id`.
  void beginSegment(int id);
  void endSegment(int id);
  /// Runs one kernel: enqueues it on the stream, checks the launch, counts it
  /// under its phase and, with `timePhases`, times it with cudaEvents.
  /// Failures are rethrown as `CudaError` naming the op.
  void call(const OpInfo &op, CudaKernelFn kernel, TensorList operands,
            TensorList results, const Attrs &attrs, const Tensor &workspace);

  // For kernels.

  /// The session's stream (a `cudaStream_t`).
  void *stream() const;
  /// The session's cuBLASLt handle (a `cublasLtHandle_t`).
  void *blasLtHandle() const;
  /// Device scratch: `kDeviceScalarBytes` of scalars and the cuBLASLt
  /// workspace of `kCublasLtWorkspaceBytes`.
  void *deviceScalars() const;
  void *gemmWorkspace() const;
  /// Whether f32 GEMMs may use TF32.
  bool allowTf32() const;
  /// The op being run, or nullptr outside `call`.
  const OpInfo *currentOp() const;
  /// Throws `CudaError` if `status` (a `cudaError_t`) is not success; the
  /// message names `what`, `file:line` and the op being run.
  void checkCuda(int status, const char *what, const char *file,
                 int line) const;
  /// The same for a `cublasStatus_t`.
  void checkCublas(int status, const char *what, const char *file,
                   int line) const;
  /// Checks the last kernel launch (`cudaGetLastError`).
  void checkLaunch(const char *kernelName, const char *file, int line) const;

  /// Internal state (defined in runtime/cuda/lib).
  struct Impl;
  Impl &impl() const { return *state; }

protected:
  CudaExecContext() = default;
  Impl *state = nullptr;
};

/// Runs a generated CUDA step on one device. Not thread-safe.
class CudaSession : public CudaExecContext {
public:
  explicit CudaSession(const CudaStepProgram &program,
                       CudaSessionOptions options = {});
  ~CudaSession();
  CudaSession(const CudaSession &) = delete;
  CudaSession &operator=(const CudaSession &) = delete;

  const CudaStepProgram &program() const { return prog; }
  /// Index of the argument / result called `name`, or -1.
  int findArgument(const std::string &name) const;
  int findResult(const std::string &name) const;
  /// Copies `bytes` host bytes (must equal the binding's size) to argument
  /// `index` on the device. Throws std::invalid_argument on a size mismatch
  /// or a bad index.
  void setArgument(uint64_t index, const void *hostData, uint64_t bytes);
  /// Copies result / argument `index` (`bytes` must equal its size) from the
  /// device into `hostData`, after synchronizing the stream.
  void readResult(uint64_t index, void *hostData, uint64_t bytes);
  void readArgument(uint64_t index, void *hostData, uint64_t bytes);
  /// Device data of argument / result `index`.
  void *argumentData(uint64_t index) const { return argument(index); }
  void *resultData(uint64_t index) const { return result(index); }
  /// Runs one step and synchronizes. Throws `CudaError` naming the op if a
  /// kernel or CUDA call fails or the program breaks its plan.
  void run();
  /// What the last `run()` measured.
  const CudaStats &stats() const;

private:
  const CudaStepProgram &prog;
  std::unique_ptr<Impl> owned;
};

/// Bytes of a binding's tensor.
uint64_t bindingBytes(const Binding &binding);

} // namespace ckpt::rt::cuda

#endif // CKPT_RUNTIME_CUDA_CUDASESSION_H
