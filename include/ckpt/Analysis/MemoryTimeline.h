//===- MemoryTimeline.h - Liveness and peak memory of a step ----*- C++ -*-===//
//
// Simulates the memory of a training step in its current op order: which
// buffers exist while each op runs, the live bytes before and after every op,
// the peak and where it occurs, and the forward values saved for the
// backward pass. It is the independent judge for every pass that changes the
// schedule or recomputes values, so it reads only the IR.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_MEMORYTIMELINE_H
#define CKPT_ANALYSIS_MEMORYTIMELINE_H

#include "ckpt/Analysis/BudgetScope.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <array>
#include <vector>

namespace mlir::ckpt {

/// What a buffer holds, for accounting.
enum class BufferKind {
  Parameter,  ///< a `param` argument
  Input,      ///< an `input`, `seed` or `state` argument
  Gradient,   ///< an op result returned as a parameter gradient
  Activation, ///< any other result of a forward op
  Temporary,  ///< any other result of a backward or optimizer op
};
constexpr size_t kNumBufferKinds = 5;

/// Returns a short lower-case name of `kind` (`parameter`, `activation`, ...).
llvm::StringRef stringifyBufferKind(BufferKind kind);

/// One allocation: an argument or a non-view op result, together with every
/// view aliasing it.
struct Buffer {
  Value value;   ///< the root value owning the storage
  int64_t bytes; ///< storage size
  BufferKind kind;
  int64_t def;     ///< index of the defining op; -1 for arguments
  int64_t lastUse; ///< index of the last op reading it or one of its views;
                   ///< the op count if it is returned or an argument
};

/// Live bytes of each buffer kind at one point of the schedule.
using KindBytes = std::array<int64_t, kNumBufferKinds>;

/// The memory behaviour of a step function in its current op order.
/// Arguments are owned by the caller and live for the whole step; a returned
/// value lives from its definition to the end; any other buffer lives from
/// its defining op through its last use (an unused result only during its
/// defining op). Workspace counts only while its op runs.
struct MemoryTimeline {
  /// The ops of the function body in order (the terminator excluded).
  std::vector<Operation *> ops;
  /// Every buffer, arguments first, then op results in program order.
  std::vector<Buffer> buffers;
  /// Buffer index of every value (views map to their root's buffer).
  llvm::DenseMap<Value, size_t> bufferOf;
  /// Bytes live while op i runs: its operands, its results, everything live
  /// across it, and its workspace.
  std::vector<int64_t> liveDuring;
  /// Bytes live after op i, once buffers whose last use is op i are freed.
  std::vector<int64_t> liveAfter;
  /// The same split by buffer kind (workspace excluded).
  std::vector<KindBytes> liveDuringByKind;
  /// Workspace of op i.
  std::vector<int64_t> workspace;
  /// Bytes of the function's `ckpt.device_workspace` (0 without one): live
  /// from entry to exit, counted in `liveAtEntry`, `liveDuring`, `liveAfter`
  /// and the peak, not in `liveDuringByKind`.
  int64_t deviceWorkspace = 0;
  /// Bytes live before the first op (the arguments and the device
  /// workspace).
  int64_t liveAtEntry = 0;
  /// Maximum of `liveDuring` (or `liveAtEntry` for an empty body).
  int64_t peakBytes = 0;
  /// Index of the first op at which the peak occurs, -1 if at entry.
  int64_t peakOp = -1;
  /// Index of the first backward op, or the op count if there is none.
  int64_t backwardStart = 0;
  /// Buffers of forward results defined before `backwardStart` and used at
  /// or after it: the activations saved for the backward pass, in program
  /// order. Empty if the function has no backward op.
  std::vector<size_t> savedActivations;
  /// Total bytes of `savedActivations`.
  int64_t savedBytes = 0;

  /// Host buffers: the results of `ckpt.offload`, in program order, kept out
  /// of `buffers`, `bufferOf` and every device figure above (kind
  /// `Activation`). One lives from its offload through the last
  /// `ckpt.prefetch` reading it (only during its offload if none does; a
  /// `ckpt.offload_wait` names the copy and reads no host data).
  std::vector<Buffer> hostBuffers;
  /// Host buffer index of every host value.
  llvm::DenseMap<Value, size_t> hostBufferOf;
  /// Host bytes live while op i runs.
  std::vector<int64_t> hostLiveDuring;
  /// Maximum of `hostLiveDuring` (0 without host buffers) and the first op
  /// where it occurs (-1: none).
  int64_t hostPeakBytes = 0;
  int64_t hostPeakOp = -1;
};

/// Whether buffers of `kind` count in the budget and the peak of `scope`:
/// every kind in `step`; only activations and temporaries in `activations`.
bool countsInScope(BufferKind kind, BudgetScope scope);

/// Bytes counted in `scope` while op `index` runs: the live buffers of the
/// kinds in scope and the op's workspace, plus, in `step`, the device
/// workspace.
int64_t liveInScope(const MemoryTimeline &timeline, size_t index,
                    BudgetScope scope);

/// The peak of a timeline in one budget scope.
struct ScopedPeak {
  int64_t bytes = 0;
  /// Index of the first op at which it occurs; -1: at entry.
  int64_t op = -1;
};

/// Returns the peak of `liveInScope` over the ops (at least what is in scope
/// at entry: the arguments and the device workspace in `step`, nothing in
/// `activations`). In `step` it is `peakBytes` at `peakOp`. Computed from
/// the timeline's own per-kind sweep, so it re-checks any plan built from a
/// scoped remat problem independently.
ScopedPeak computeScopedPeak(const MemoryTimeline &timeline, BudgetScope scope);

/// Simulates `func`, a function whose body is one block of ckpt ops (a
/// `ckpt.step`, or any function of ckpt ops). Fails with a diagnostic if an
/// op has no cost interface.
FailureOr<MemoryTimeline> computeMemoryTimeline(func::FuncOp func);

} // namespace mlir::ckpt

#endif // CKPT_ANALYSIS_MEMORYTIMELINE_H
