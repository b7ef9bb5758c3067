//===- MemoryTimeline.cpp - Liveness and peak memory of a step ------------===//

#include "ckpt/Analysis/MemoryTimeline.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TrainingStep.h"

using namespace mlir;
using namespace mlir::ckpt;

StringRef mlir::ckpt::stringifyBufferKind(BufferKind kind) {
  switch (kind) {
  case BufferKind::Parameter:
    return "parameter";
  case BufferKind::Input:
    return "input";
  case BufferKind::Gradient:
    return "gradient";
  case BufferKind::Activation:
    return "activation";
  case BufferKind::Temporary:
    return "temporary";
  }
  llvm_unreachable("unknown buffer kind");
}

/// Kind of argument `index` of `func`.
static BufferKind argumentKind(func::FuncOp func, unsigned index) {
  return getArgumentRole(func, index) == ValueRole::Param
             ? BufferKind::Parameter
             : BufferKind::Input;
}

FailureOr<MemoryTimeline> mlir::ckpt::computeMemoryTimeline(func::FuncOp func) {
  MemoryTimeline t;
  if (func.isExternal())
    return func.emitError() << "cannot simulate the memory of an external "
                               "function";
  Block &body = func.getBody().front();
  for (Operation &op : body.without_terminator())
    t.ops.push_back(&op);
  const int64_t numOps = t.ops.size();

  Operation *terminator = body.getTerminator();

  // Buffers: arguments, then non-view results; views share their root's.
  for (BlockArgument arg : body.getArguments()) {
    t.bufferOf[arg] = t.buffers.size();
    t.buffers.push_back({arg, getTensorBytes(arg.getType()),
                         argumentKind(func, arg.getArgNumber()), -1, numOps});
  }
  t.backwardStart = numOps;
  t.workspace.assign(numOps, 0);
  for (auto [index, op] : llvm::enumerate(t.ops)) {
    auto costOp = dyn_cast<CostOpInterface>(op);
    if (!costOp)
      return op->emitOpError() << "has no cost model; the memory simulation "
                                  "only handles ckpt ops";
    std::optional<Phase> phase = getOpPhase(op);
    if (phase == Phase::Backward && t.backwardStart == numOps)
      t.backwardStart = index;
    t.workspace[index] = costOp.getCost().workspaceBytes;
    if (costOp.isView()) {
      t.bufferOf[op->getResult(0)] = t.bufferOf.lookup(op->getOperand(0));
      continue;
    }
    if (auto offload = dyn_cast<OffloadOp>(op)) {
      t.hostBufferOf[offload.getResult()] = t.hostBuffers.size();
      int64_t at = static_cast<int64_t>(index);
      t.hostBuffers.push_back({offload.getResult(),
                               getTensorBytes(offload.getType()),
                               BufferKind::Activation, at, at});
      continue;
    }
    for (Value result : op->getResults()) {
      BufferKind kind = phase == Phase::Forward ? BufferKind::Activation
                                                : BufferKind::Temporary;
      t.bufferOf[result] = t.buffers.size();
      t.buffers.push_back({result, getTensorBytes(result.getType()), kind,
                           static_cast<int64_t>(index),
                           static_cast<int64_t>(index)});
    }
  }

  // Buffers returned as parameter gradients, directly or through views.
  for (auto [i, value] : llvm::enumerate(terminator->getOperands())) {
    Buffer &buffer = t.buffers[t.bufferOf.lookup(value)];
    if (getResultRole(func, i) == ValueRole::Grad && buffer.def >= 0)
      buffer.kind = BufferKind::Gradient;
  }

  // Last uses; reading a view reads its root. Returned values live on.
  // A host buffer is read only by the prefetches copying it back.
  for (auto [index, op] : llvm::enumerate(t.ops))
    for (Value operand : op->getOperands()) {
      auto host = t.hostBufferOf.find(operand);
      if (host != t.hostBufferOf.end()) {
        if (isa<PrefetchOp>(op)) {
          Buffer &buffer = t.hostBuffers[host->second];
          buffer.lastUse = std::max<int64_t>(buffer.lastUse, index);
        }
        continue;
      }
      Buffer &buffer = t.buffers[t.bufferOf.lookup(operand)];
      buffer.lastUse = std::max<int64_t>(buffer.lastUse, index);
    }
  for (Value value : terminator->getOperands())
    t.buffers[t.bufferOf.lookup(value)].lastUse = numOps;

  // Sweep: a buffer is live during ops [max(def, 0), lastUse].
  std::vector<KindBytes> allocated(numOps + 1, KindBytes{}),
      freedAfter(numOps + 1, KindBytes{});
  KindBytes live{};
  for (const Buffer &buffer : t.buffers) {
    size_t kind = static_cast<size_t>(buffer.kind);
    if (buffer.def < 0) {
      live[kind] = addSat(live[kind], buffer.bytes);
      t.liveAtEntry = addSat(t.liveAtEntry, buffer.bytes);
    } else {
      allocated[buffer.def][kind] =
          addSat(allocated[buffer.def][kind], buffer.bytes);
    }
    if (buffer.lastUse < numOps)
      freedAfter[buffer.lastUse][kind] =
          addSat(freedAfter[buffer.lastUse][kind], buffer.bytes);
  }
  auto total = [](const KindBytes &bytes) {
    int64_t sum = 0;
    for (int64_t b : bytes)
      sum = addSat(sum, b);
    return sum;
  };
  if (auto bytes = func->getAttrOfType<IntegerAttr>(
          CkptDialect::getDeviceWorkspaceAttrName()))
    t.deviceWorkspace = std::max<int64_t>(bytes.getInt(), 0);
  t.liveAtEntry = addSat(t.liveAtEntry, t.deviceWorkspace);
  t.peakBytes = t.liveAtEntry;
  for (int64_t i = 0; i < numOps; ++i) {
    for (size_t k = 0; k < kNumBufferKinds; ++k)
      live[k] = addSat(live[k], allocated[i][k]);
    t.liveDuringByKind.push_back(live);
    int64_t during =
        addSat(addSat(total(live), t.workspace[i]), t.deviceWorkspace);
    t.liveDuring.push_back(during);
    if (during > t.peakBytes) {
      t.peakBytes = during;
      t.peakOp = i;
    }
    for (size_t k = 0; k < kNumBufferKinds; ++k)
      live[k] -= freedAfter[i][k];
    t.liveAfter.push_back(addSat(total(live), t.deviceWorkspace));
  }

  // Host memory: a buffer is live during ops [def, lastUse].
  std::vector<int64_t> hostDelta(numOps + 1, 0);
  for (const Buffer &buffer : t.hostBuffers) {
    hostDelta[buffer.def] = addSat(hostDelta[buffer.def], buffer.bytes);
    hostDelta[buffer.lastUse + 1] -= buffer.bytes;
  }
  int64_t hostLive = 0;
  t.hostLiveDuring.reserve(numOps);
  for (int64_t i = 0; i < numOps; ++i) {
    hostLive += hostDelta[i];
    t.hostLiveDuring.push_back(hostLive);
    if (hostLive > t.hostPeakBytes) {
      t.hostPeakBytes = hostLive;
      t.hostPeakOp = i;
    }
  }

  // Saved activations: forward buffers crossing into the backward phase
  // (none without a backward phase).
  for (auto [index, buffer] : llvm::enumerate(t.buffers)) {
    if (t.backwardStart == numOps)
      break;
    if (buffer.def < 0 || buffer.def >= t.backwardStart ||
        buffer.lastUse < t.backwardStart ||
        getOpPhase(t.ops[buffer.def]) != Phase::Forward)
      continue;
    t.savedActivations.push_back(index);
    t.savedBytes = addSat(t.savedBytes, buffer.bytes);
  }
  return t;
}

bool mlir::ckpt::countsInScope(BufferKind kind, BudgetScope scope) {
  switch (scope) {
  case BudgetScope::Step:
    return true;
  case BudgetScope::Activations:
    return kind == BufferKind::Activation || kind == BufferKind::Temporary;
  }
  llvm_unreachable("unknown budget scope");
}

int64_t mlir::ckpt::liveInScope(const MemoryTimeline &t, size_t index,
                                BudgetScope scope) {
  int64_t live = t.workspace[index];
  for (size_t k = 0; k < kNumBufferKinds; ++k)
    if (countsInScope(static_cast<BufferKind>(k), scope))
      live = addSat(live, t.liveDuringByKind[index][k]);
  if (scope == BudgetScope::Step)
    live = addSat(live, t.deviceWorkspace);
  return live;
}

ScopedPeak mlir::ckpt::computeScopedPeak(const MemoryTimeline &t,
                                         BudgetScope scope) {
  ScopedPeak peak;
  peak.bytes = scope == BudgetScope::Step ? t.liveAtEntry : 0;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    int64_t live = liveInScope(t, i, scope);
    if (live > peak.bytes) {
      peak.bytes = live;
      peak.op = static_cast<int64_t>(i);
    }
  }
  return peak;
}
