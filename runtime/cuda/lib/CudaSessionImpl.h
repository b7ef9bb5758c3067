//===- CudaSessionImpl.h - State behind CudaExecContext ---------*- C++ -*-===//
//
// Private to runtime/cuda/lib: the device arena, stream, cuBLASLt handle,
// lifetime accounting, event timing and the GEMM algorithm cache.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_CUDA_LIB_CUDASESSIONIMPL_H
#define CKPT_RUNTIME_CUDA_LIB_CUDASESSIONIMPL_H

#include "ckpt/Runtime/Cuda/CudaSession.h"
#include "ckpt/Runtime/ArenaLedger.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <map>
#include <string>
#include <vector>

namespace ckpt::rt::cuda {

/// A cached cuBLASLt algorithm choice for one GEMM problem (shape, types,
/// layouts, alignment): fixed for the session, so a recomputed product runs
/// the very same algorithm as the original.
struct GemmAlgo {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceBytes;
};

struct CudaExecContext::Impl {
  const CudaStepProgram *program = nullptr;
  CudaSessionOptions options;
  char *arena = nullptr;                        // Device arena.
  char *scratch = nullptr;                      // Device scratch block.
  bool scratchOwned = false;                    // Allocated outside the arena.
  std::vector<void *> argumentPtrs, resultPtrs; // Device data per binding.
  std::vector<void *> ownedBuffers;             // cudaMalloc'ed bindings.
  uint64_t ownedBufferBytes = 0;
  cudaStream_t stream = nullptr;
  cublasLtHandle_t blasLt = nullptr;
  std::map<std::string, GemmAlgo> gemmAlgos;

  /// Offload: the pinned host arena, its accounting, the two copy streams,
  /// per copy the events of its copy out and its copy back, one event that
  /// marks a point of a stream for another to wait on (re-recorded each
  /// time: a wait takes the record before it), per copy its state this step
  /// (0: none, 1: offloaded, 2: waited) and whether it was copied back, and
  /// event pairs timing the copies (with timeCopies; 0: to host, 1: to
  /// device).
  char *hostArena = nullptr;
  ArenaLedger hostLedger;
  cudaStream_t toHost = nullptr, toDevice = nullptr;
  std::vector<cudaEvent_t> offloadDone, prefetchDone;
  cudaEvent_t mark = nullptr;
  std::vector<uint8_t> copyState, prefetched;
  std::vector<cudaEvent_t> copyEvents;
  std::vector<int> copyDirection;
  size_t copyPairsUsed = 0;

  /// Lifetime accounting (the host Session's): its first plan violation is
  /// raised before the next kernel call (naming it) or at the end of the step.
  ArenaLedger ledger;
  const OpInfo *lastOp = nullptr;

  // Event timing: pairs recorded this step, with the phase slot (0 forward,
  // 1 recompute, 2 backward, 3 optimizer).
  std::vector<cudaEvent_t> events; // Pool, grown on demand.
  std::vector<int> eventPhase;     // Per recorded pair.
  size_t eventPairsUsed = 0;

  const OpInfo *currentOp = nullptr;
  CudaStats stats;

  Impl() = default;
  Impl(const Impl &) = delete;
  Impl &operator=(const Impl &) = delete;
  /// Frees every device resource (also after a constructor that failed
  /// half-way); errors cannot be reported from here and are ignored.
  ~Impl();
};

/// "op #12 'attention' (models.py:55)" for error messages, or "no op".
std::string describeOp(const OpInfo *op);

} // namespace ckpt::rt::cuda

#endif // CKPT_RUNTIME_CUDA_LIB_CUDASESSIONIMPL_H
