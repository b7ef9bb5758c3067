//===- Program.h - The contract between generated steps and the runtime -*- C++
//-*-===//
//
// A generated training step (`ckpt-opt --emit=cpp`) is one C++ translation
// unit that defines a `StepProgram`: the arena size and bindings the memory
// plan fixed, and a `run` function that is a straight-line sequence of kernel
// calls through `ExecContext`, with arena offsets baked in. The runtime
// (`Session`) owns the arena and the context; it measures what the program
// does (bytes in use, ops, recomputed ops, time per phase) independently of
// the planner's arithmetic.
//
// Conventions generated code follows (docs/runtime.md):
//
// - Operands are passed in ODS operand order, one slot per ODS operand; an
//   absent optional operand is an absent `Tensor()` (rank -1, data nullptr)
//   in its slot. Variadic operands (`concat`) are passed all in order.
//   Results likewise, in ODS result order (variadic `param_grads`: only the
//   ones the op has). Kernels also accept only the present operands when an
//   AttrSizedOperandSegments op passes `operandSegmentSizes`.
// - Every inherent attribute is passed by its ODS name; `phase` (ignored by
//   the kernels) as the String "fwd" / "bwd" / "opt".
// - The workspace is any present tensor whose `bytes()` is the planned
//   workspace size (`ckpt.workspace_offset` in the arena), absent otherwise.
// - Accounting: every range is the plan's aligned size (bytes rounded up to
//   `StepProgram::alignment`). The session acquires every argument with an
//   arena offset before `run` starts; generated code never acquires or
//   releases arguments. Generated code acquires each op result (not views,
//   which share their base's storage and make no kernel call) and the op's
//   workspace before the call, releases the workspace after it, and releases
//   every value after its last use; an in-place result re-acquires exactly
//   its operand's range before that operand is released (counted once).
//   Step results are never released.
// - Offload (docs/runtime.md): `ckpt.offload` acquires its host buffer in
//   the host arena and calls `offload` (device to host); `ckpt.offload_wait`
//   calls `waitOffload`, after which the source's device range may be
//   released; `ckpt.prefetch` acquires its device result and calls
//   `prefetch` (host to device), and the first kernel reading the prefetched
//   value calls `waitPrefetch` before its call; a host buffer is released
//   after its last prefetch. Copies are numbered by their offload, in
//   program order.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUNTIME_PROGRAM_H
#define CKPT_RUNTIME_PROGRAM_H

#include "ckpt/Runtime/Tensor.h"

#include <cstdint>

namespace ckpt::rt {

class ExecContext;

/// Phase of a training step, as the dialect's `fwd` / `bwd` / `opt`.
enum class Phase : uint8_t { Forward, Backward, Optimizer };

/// Role of a step argument or result (the dialect's `#ckpt.role`).
enum class Role : uint8_t { Param, Input, Seed, State, Loss, Grad, Output };

/// Signature of every kernel: operands in the op's operand order (absent
/// optional operands as absent tensors), results in result order, the op's
/// attributes, and its planned workspace (absent when the op has none).
using KernelFn = void (*)(ExecContext &ctx, TensorList operands,
                          TensorList results, const Attrs &attrs,
                          const Tensor &workspace);

/// Static facts of one op of the step, for statistics and error messages.
struct OpInfo {
  /// Position of the op in the step (0-based, program order).
  int index;
  /// The op's mnemonic (`"layer_norm"`).
  const char *name;
  /// The op's source location (`"models.py:55"`), or "".
  const char *location;
  Phase phase;
  /// True for ops inside a recompute segment.
  bool recompute;
  /// The recompute segment the op belongs to, or -1.
  int segment;
};

/// One argument or result of the step.
struct Binding {
  /// The exporter's name (`"h.0.ln_1.weight"`, `"loss"`, `"grad:wte.weight"`).
  const char *name;
  Role role;
  DType dtype;
  int rank;
  int64_t shape[kMaxRank];
  /// Arena offset, or -1 when the value lives in a buffer the caller binds.
  int64_t offset;
  /// For `Role::Grad`: index of the argument it is the gradient of, else -1.
  int gradOf;
};

/// A generated training step.
struct StepProgram {
  /// The step's function name.
  const char *name;
  /// Bytes of the one arena (`ckpt.arena_size`).
  uint64_t arenaSize;
  /// The plan's peak of bytes live at once (`ckpt.arena_lower_bound`).
  uint64_t plannedPeakBytes;
  /// Alignment of every arena offset.
  uint64_t alignment;
  /// Ops in the step, and how many of them recompute a forward value.
  uint64_t numOps;
  uint64_t numRecomputedOps;
  /// Number of recompute segments.
  uint64_t numSegments;
  const Binding *arguments;
  uint64_t numArguments;
  const Binding *results;
  uint64_t numResults;
  /// Runs one step: `ctx` already holds the arena and the bound buffers.
  void (*run)(ExecContext &ctx);
  /// Bytes of the host arena holding offloaded values
  /// (`ckpt.host_arena_size`), the plan's peak of its bytes live at once,
  /// and the number of offloads; all 0 for a step without copies.
  uint64_t hostArenaSize;
  uint64_t plannedHostPeakBytes;
  uint64_t numOffloads;
};

/// What a generated step calls. Implemented by the runtime (Session.cpp).
class ExecContext {
public:
  /// Base of the arena.
  char *arena() const { return arenaBase; }
  /// Data of argument `index` (in the arena, or the caller's buffer).
  void *argument(uint64_t index) const;
  /// Data of result `index` (in the arena, or the caller's buffer).
  void *result(uint64_t index) const;
  /// The step's base random seed (Philox key for every dropout).
  uint64_t seed() const { return baseSeed; }

  /// Marks `[offset, offset + bytes)` of the arena as holding a live value
  /// from now on. Overlapping a range that is still live is a plan error
  /// (reported, the step fails); re-acquiring exactly a live range is an
  /// in-place reuse and counts once.
  void acquire(uint64_t offset, uint64_t bytes);
  /// Ends the lifetime of the value at `[offset, offset + bytes)`.
  void release(uint64_t offset, uint64_t bytes);
  /// The host arena's accounting, as `acquire` / `release` for the arena.
  void acquireHost(uint64_t offset, uint64_t bytes);
  void releaseHost(uint64_t offset, uint64_t bytes);
  /// Starts copy `copy`: `bytes` bytes from the arena at `deviceOffset` to
  /// the host arena at `hostOffset`.
  void offload(const OpInfo &op, uint64_t copy, uint64_t deviceOffset,
               uint64_t hostOffset, uint64_t bytes);
  /// Orders the ops after it after copy `copy` (offloaded before).
  void waitOffload(const OpInfo &op, uint64_t copy);
  /// Copies `bytes` bytes of copy `copy`'s host buffer at `hostOffset` into
  /// the arena at `deviceOffset`.
  void prefetch(const OpInfo &op, uint64_t copy, uint64_t hostOffset,
                uint64_t deviceOffset, uint64_t bytes);
  /// Called by the first op reading a prefetch of copy `copy`, before its
  /// kernel: it runs once the data is there.
  void waitPrefetch(const OpInfo &op, uint64_t copy);
  /// Brackets the ops of recompute segment `id`.
  void beginSegment(int id);
  void endSegment(int id);
  /// Runs one kernel, timing it and counting it under its phase.
  void call(const OpInfo &op, KernelFn kernel, TensorList operands,
            TensorList results, const Attrs &attrs, const Tensor &workspace);

protected:
  ExecContext() = default;
  char *arenaBase = nullptr;
  char *hostArenaBase = nullptr;
  uint64_t baseSeed = 0;
};

} // namespace ckpt::rt

#endif // CKPT_RUNTIME_PROGRAM_H
