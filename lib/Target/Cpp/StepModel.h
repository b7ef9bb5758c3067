//===- StepModel.h - What the C++ exporter generates, as plain data -*- C++ -*-===//
//
// The exporter works in two stages: `buildStepModel` reads a planned step
// function, checks that code can be generated for it (and that its memory
// plan is consistent with the IR) and records everything the generated code
// and the plan JSON need as plain data; the writers (EmitCpp.cpp) only
// format that data. Private to lib/Target/Cpp.
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_LIB_TARGET_CPP_STEPMODEL_H
#define CKPT_LIB_TARGET_CPP_STEPMODEL_H

#include "ckpt/Dialect/Ckpt/IR/BudgetAttr.h"
#include "ckpt/Target/Cpp/EmitCpp.h"

#include "mlir/IR/AsmState.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::ckpt::cpp {

/// One tensor operand or result of a kernel call, in the arena.
struct TensorRef {
  /// False for an absent optional operand (`Tensor{}`).
  bool present = true;
  int64_t offset = 0;
  /// Runtime dtype enumerator (`F32`, `I64`, ...).
  std::string dtype;
  std::vector<int64_t> shape;
};

/// One attribute of a kernel call, as the runtime's `Attr` carries it.
struct AttrValue {
  enum class Kind { Int, Float, Ints, String, Unit };
  std::string name;
  Kind kind = Kind::Unit;
  int64_t intValue = 0;
  double floatValue = 0;
  std::vector<int64_t> ints;
  std::string stringValue;
};

/// An arena range `[offset, offset + bytes)` (bytes aligned as planned).
struct Range {
  int64_t offset = 0;
  int64_t bytes = 0;
};

/// A copy between the device arena and the host arena: `ckpt.offload`
/// (device to host), `ckpt.offload_wait` (the compute stream waits for that
/// copy) or `ckpt.prefetch` (host to a new device buffer).
struct CopyEntry {
  enum class Kind { Offload, Wait, Prefetch };
  Kind kind = Kind::Offload;
  /// The offload the copy belongs to: its index among the step's offloads,
  /// in program order.
  int64_t copy = 0;
  /// The device range copied from (offload) or to (prefetch); -1 for a
  /// wait.
  int64_t deviceOffset = -1;
  /// The host buffer's offset in the host arena.
  int64_t hostOffset = 0;
  /// Bytes copied (the tensor's own size).
  int64_t bytes = 0;
};

/// One op of the step, in program order.
struct OpEntry {
  int64_t index = 0;
  /// Mnemonic (`matmul`): the runtime kernel's name.
  std::string mnemonic;
  /// The op as printed (one line, function-scoped value names).
  std::string text;
  /// `file:line[:col] (name)` of the op, or "".
  std::string location;
  /// Runtime phase enumerator (`Forward`, `Backward`, `Optimizer`).
  std::string phase;
  bool recompute = false;
  /// Recompute segment, or -1.
  int segment = -1;
  /// Views make no kernel call (their result aliases the operand).
  bool view = false;
  std::vector<TensorRef> operands;
  std::vector<TensorRef> results;
  std::vector<AttrValue> attrs;
  std::optional<Range> workspace;
  /// Storage that begins (before the call) and ends (after it) at this op.
  std::vector<Range> acquires;
  std::vector<Range> releases;
  /// A copy op: what it copies (no kernel call), and the host arena ranges
  /// that begin and end at it.
  std::optional<CopyEntry> copy;
  std::vector<Range> hostAcquires;
  std::vector<Range> hostReleases;
  /// Prefetches (their copy numbers) this op is the first to read: it waits
  /// for them before its kernel runs.
  std::vector<int64_t> awaitsPrefetches;
  /// In-place reuses at this op: "%result takes over the storage of %operand".
  std::vector<std::string> inPlaceNotes;
};

/// One storage block of the plan (an argument, a non-view op result or a
/// workspace), as the runtime sees it.
struct BufferEntry {
  /// `%5`, `%arg0`, or "" for a workspace.
  std::string value;
  /// Defining op's name (`ckpt.matmul`), or "" for an argument.
  std::string op;
  /// Defining op's index, or -1 for an argument.
  int64_t opIndex = -1;
  /// Argument number, or -1.
  int64_t argument = -1;
  std::string kind;
  int64_t offset = 0;
  /// Aligned bytes, and the tensor's own bytes.
  int64_t bytes = 0;
  int64_t tensorBytes = 0;
  /// Lifetime in op indices, inclusive (the op count for "end of step").
  int64_t firstOp = 0;
  int64_t lastOp = 0;
  /// Index of the buffer whose storage this one takes over, or -1.
  int64_t inPlaceOf = -1;
};

/// A maximal run of recomputing ops (and views between them).
struct SegmentEntry {
  int id = 0;
  int64_t firstOp = 0;
  int64_t lastOp = 0;
  /// Indices of the ops that run a kernel in the segment.
  std::vector<int64_t> ops;
  /// Values the segment recomputes.
  std::vector<std::string> recomputed;
  /// First later op reading a recomputed value (-1 if none), as printed.
  int64_t consumerOp = -1;
  std::string consumerText;
  std::string consumerLocation;
};

/// One argument or result of the step.
struct BindingEntry {
  std::string name;
  /// Role keyword (`param`, `grad`, ...) and runtime enumerator (`Param`).
  std::string role;
  std::string roleEnum;
  std::string dtype;
  std::vector<int64_t> shape;
  int64_t offset = 0;
  int64_t bytes = 0;
  int64_t gradOf = -1;
};

/// Everything generated for one step.
struct StepModel {
  std::string name;
  std::string identifier;
  int64_t arenaSize = 0;
  int64_t lowerBound = 0;
  int64_t alignment = 0;
  /// The budget the step was planned under (`ckpt.budget`), if any: the
  /// plan JSON states it.
  std::optional<ResolvedBudget> budget;
  /// Bytes of the function's `ckpt.device_workspace` and its planned arena
  /// offset (0 and -1 without one).
  int64_t deviceWorkspace = 0;
  int64_t deviceWorkspaceOffset = -1;
  std::vector<OpEntry> ops;
  std::vector<BufferEntry> buffers;
  std::vector<SegmentEntry> segments;
  std::vector<BindingEntry> arguments;
  std::vector<BindingEntry> results;
  int64_t numKernelCalls = 0;
  int64_t numRecomputedOps = 0;
  int64_t numInPlace = 0;
  /// The host arena (`ckpt.host_arena_size`; 0 without copies), the peak of
  /// its aligned bytes live at once, and the copies each way.
  int64_t hostArenaSize = 0;
  int64_t hostLowerBound = 0;
  int64_t numOffloads = 0;
  int64_t numPrefetches = 0;
};

/// Reads `func`; reports every problem as a diagnostic and fails if any.
FailureOr<StepModel> buildStepModel(func::FuncOp func,
                                    const EmitCppOptions &options);

//===----------------------------------------------------------------------===//
// Per-op translation (OpTranslation.cpp)
//===----------------------------------------------------------------------===//

/// Runtime dtype enumerator (`F32`, `I1`, `I32`, `I64`; for the CUDA target
/// also `F16`, `BF16`) of a tensor type's element type, or "" if the target's
/// runtime has no kernels for it.
std::string runtimeDType(Type type, EmitTarget target);
/// `file:line[:col] (name)` of `loc`: its first file position and first name.
std::string formatLocation(Location loc);
/// The name of a block argument's NameLoc, or "".
std::string argumentName(BlockArgument arg);
/// `value` and `op` as printed with the function-scoped names of `state`
/// (the op on one line).
std::string printValue(Value value, AsmState &state);
std::string printOp(Operation *op, AsmState &state);
/// The operands of `op` as its kernel receives them: a null value for an
/// absent trailing optional operand of an op without `operandSegmentSizes`.
SmallVector<Value> kernelOperands(Operation *op);
/// Converts one inherent attribute; refuses (with a diagnostic at `op`) an
/// attribute the runtime cannot represent.
LogicalResult convertAttribute(Operation *op, NamedAttribute named,
                               AttrValue &out);

} // namespace mlir::ckpt::cpp

#endif // CKPT_LIB_TARGET_CPP_STEPMODEL_H
