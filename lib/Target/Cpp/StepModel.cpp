//===- StepModel.cpp - Read a planned step for the C++ exporter -----------===//
//
// Checks that code can be generated for a planned step and collects what the
// writers need: per op its tensors in the arena, its attributes and the
// storage that begins and ends there; the buffers, the recompute segments and
// the bindings. The memory plan is re-checked against the IR with the
// planner's own checker and lower bound (lib/Plan), so the generated
// acquire/release calls make the runtime measure exactly the planned peak.
//
//===----------------------------------------------------------------------===//

#include "StepModel.h"

#include "ckpt/Analysis/MemoryTimeline.h"
#include "ckpt/Dialect/Ckpt/IR/CkptCost.h"
#include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TrainingStep.h"
#include "ckpt/Plan/MemoryPlan.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::ckpt;
using namespace mlir::ckpt::cpp;

/// The largest rank of a runtime tensor (`ckpt::rt::kMaxRank`).
static constexpr int64_t kMaxRank = 8;
/// The largest alignment tried when the plan's alignment is inferred.
static constexpr int64_t kMaxInferredAlignment = int64_t(1) << 16;

namespace {

/// Builds the model of one function.
class ModelBuilder {
public:
  ModelBuilder(func::FuncOp func, const EmitCppOptions &options)
      : func(func), options(options),
        state(func, OpPrintingFlags().elideLargeElementsAttrs(16)) {}

  FailureOr<StepModel> build();

private:
  LogicalResult checkOps();
  LogicalResult readPlan();
  LogicalResult inferAlignment();
  LogicalResult checkHostPlan();
  void buildOps();
  void buildBuffers();
  void buildSegments();
  LogicalResult buildBindings();
  TensorRef tensorOf(Value value);
  /// What a copy op copies; none for any other op.
  std::optional<CopyEntry> copyOf(Operation *op);
  int64_t aligned(int64_t bytes) const {
    return plan::alignUp(bytes, model.alignment);
  }

  func::FuncOp func;
  const EmitCppOptions &options;
  AsmState state;
  StepModel model;
  MemoryTimeline timeline;
  /// Arena offset of every timeline buffer, then of every op's workspace.
  std::vector<int64_t> bufferOffset;
  std::vector<int64_t> workspaceOffset;
  /// Per timeline buffer: the buffer whose storage it takes over, or -1.
  std::vector<int64_t> inPlaceOf;
  /// Per timeline buffer: taken over in place by another buffer.
  std::vector<bool> takenOver;
  /// Host arena offset of every host buffer (`MemoryTimeline::hostBuffers`).
  std::vector<int64_t> hostOffset;
  /// The converted inherent attributes of every op.
  llvm::DenseMap<Operation *, std::vector<AttrValue>> opAttrs;
};

} // namespace

FailureOr<StepModel> ModelBuilder::build() {
  model.name = func.getSymName().str();
  for (char c : model.name)
    model.identifier += llvm::isAlnum(c) || c == '_' ? c : '_';
  // Every unsupported op is reported, whether or not the step is planned.
  bool opsOk = succeeded(checkOps());
  bool planned = func->hasAttr(CkptDialect::getArenaSizeAttrName()) &&
                 func->hasAttr(CkptDialect::getArenaLowerBoundAttrName());
  if (!planned)
    func.emitError() << "cannot generate code for @" << model.name
                     << ": it has no memory plan ('ckpt.arena_size' and "
                        "'ckpt.arena_lower_bound'); run ckpt-plan-memory or "
                        "ckpt-pipeline{plan-memory=true} first";
  if (!opsOk || !planned || failed(readPlan()) || failed(inferAlignment()) ||
      failed(buildBindings()))
    return failure();
  buildOps();
  buildBuffers();
  buildSegments();
  return std::move(model);
}

/// Reports every op that cannot be generated; all of them, not the first.
LogicalResult ModelBuilder::checkOps() {
  bool ok = true;
  auto checkType = [&](Operation *op, Type type, StringRef what) {
    std::string subject =
        isa<func::FuncOp>(op) ? "@" + model.name
                              : "'" + op->getName().getStringRef().str() + "'";
    auto shaped = dyn_cast<RankedTensorType>(type);
    if (!shaped || !shaped.hasStaticShape() ||
        runtimeDType(type, options.target).empty()) {
      op->emitError() << "unimplemented: cannot generate code for " << subject
                      << ": " << what << " has type " << type
                      << (options.target == EmitTarget::Cuda
                              ? " (the CUDA runtime has f32, f16, bf16, i1, "
                                "i32 and i64 tensors of static shape)"
                              : " (the host runtime has f32, i1, i32 and i64 "
                                "tensors of static shape)");
      return false;
    }
    if (shaped.getRank() > kMaxRank) {
      op->emitError() << "unimplemented: cannot generate code for " << subject
                      << ": " << what << " has rank " << shaped.getRank()
                      << " (the host runtime has at most " << kMaxRank << ")";
      return false;
    }
    return true;
  };
  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments())
    ok &= checkType(func, arg.getType(),
                    "argument #" + std::to_string(arg.getArgNumber()));
  for (Operation &op : body.without_terminator()) {
    if (!isa_and_nonnull<CkptDialect>(op.getDialect()) ||
        !isa<CostOpInterface>(op) || !getOpPhase(&op)) {
      op.emitError() << "unimplemented: cannot generate code for '"
                     << op.getName() << "': only ckpt ops have host kernels";
      ok = false;
      continue;
    }
    if (isa<OpaqueOp>(op)) {
      op.emitError() << "unimplemented: cannot generate code for "
                        "'ckpt.opaque' (\""
                     << cast<OpaqueOp>(op).getName()
                     << "\"): an opaque op has no semantics to run";
      ok = false;
      continue;
    }
    bool typesOk = true;
    for (auto [i, operand] : llvm::enumerate(op.getOperands()))
      typesOk &= checkType(&op, operand.getType(),
                           "operand #" + std::to_string(i));
    for (auto [i, result] : llvm::enumerate(op.getResults()))
      typesOk &= checkType(&op, result.getType(),
                           "result #" + std::to_string(i));
    ok &= typesOk;
    if (!typesOk)
      continue;
    DictionaryAttr props =
        dyn_cast_or_null<DictionaryAttr>(op.getPropertiesAsAttribute());
    std::vector<AttrValue> attrs;
    if (props)
      for (NamedAttribute named : props) {
        AttrValue value;
        if (failed(convertAttribute(&op, named, value))) {
          ok = false;
          continue;
        }
        attrs.push_back(std::move(value));
      }
    opAttrs[&op] = std::move(attrs);
    if (!op.hasAttr(CkptDialect::getOffsetAttrName()) &&
        op.getNumResults() > 0 &&
        func->hasAttr(CkptDialect::getArenaSizeAttrName())) {
      op.emitError() << "cannot generate code for '" << op.getName()
                     << "': it has no 'ckpt.offset' (the memory plan is "
                        "incomplete; re-run ckpt-plan-memory)";
      ok = false;
    }
  }
  return success(ok);
}

/// Reads the offsets of the plan into `bufferOffset` / `workspaceOffset`.
LogicalResult ModelBuilder::readPlan() {
  auto arena = func->getAttrOfType<IntegerAttr>(
      CkptDialect::getArenaSizeAttrName());
  auto bound = func->getAttrOfType<IntegerAttr>(
      CkptDialect::getArenaLowerBoundAttrName());
  model.arenaSize = arena.getInt();
  model.budget = getBudget(func);
  model.lowerBound = bound.getInt();
  FailureOr<MemoryTimeline> computed = computeMemoryTimeline(func);
  if (failed(computed))
    return failure();
  timeline = std::move(*computed);
  bufferOffset.assign(timeline.buffers.size(), -1);
  workspaceOffset.assign(timeline.ops.size(), -1);
  hostOffset.assign(timeline.hostBuffers.size(), -1);
  bool ok = true;
  if (!timeline.hostBuffers.empty()) {
    auto host = func->getAttrOfType<IntegerAttr>(
        CkptDialect::getHostArenaSizeAttrName());
    if (!host) {
      func.emitError() << "cannot generate code for @" << model.name
                       << ": it offloads values but has no "
                          "'ckpt.host_arena_size' (the memory plan is "
                          "incomplete; re-run ckpt-plan-memory)";
      ok = false;
    } else {
      model.hostArenaSize = host.getInt();
    }
  }
  model.deviceWorkspace = timeline.deviceWorkspace;
  if (model.deviceWorkspace > 0) {
    auto offset = func->getAttrOfType<IntegerAttr>(
        CkptDialect::getDeviceWorkspaceOffsetAttrName());
    if (!offset) {
      func.emitError() << "cannot generate code for @" << model.name
                       << ": its device workspace has no "
                          "'ckpt.device_workspace_offset' (the memory plan is "
                          "incomplete; re-run ckpt-plan-memory)";
      ok = false;
    } else {
      model.deviceWorkspaceOffset = offset.getInt();
    }
  }
  for (BlockArgument arg : func.getArguments()) {
    auto offset = func.getArgAttrOfType<IntegerAttr>(
        arg.getArgNumber(), CkptDialect::getOffsetAttrName());
    if (!offset) {
      func.emitError() << "cannot generate code for @" << model.name
                       << ": argument #" << arg.getArgNumber()
                       << " has no 'ckpt.offset' (the memory plan is "
                          "incomplete; re-run ckpt-plan-memory)";
      ok = false;
      continue;
    }
    bufferOffset[timeline.bufferOf.lookup(arg)] = offset.getInt();
  }
  for (auto [index, op] : llvm::enumerate(timeline.ops)) {
    if (timeline.workspace[index] > 0) {
      auto offset = op->getAttrOfType<IntegerAttr>(
          CkptDialect::getWorkspaceOffsetAttrName());
      if (!offset) {
        op->emitError() << "cannot generate code for '" << op->getName()
                        << "': its workspace has no 'ckpt.workspace_offset'";
        ok = false;
      } else {
        workspaceOffset[index] = offset.getInt();
      }
    }
    auto offsets =
        op->getAttrOfType<DenseI64ArrayAttr>(CkptDialect::getOffsetAttrName());
    if (!offsets)
      continue; // Reported by checkOps.
    bool view = cast<CostOpInterface>(op).isView();
    if (auto offload = dyn_cast<OffloadOp>(op)) {
      hostOffset[timeline.hostBufferOf.lookup(offload.getResult())] =
          offsets[0];
      continue;
    }
    for (OpResult result : op->getResults()) {
      size_t buffer = timeline.bufferOf.lookup(result);
      int64_t offset = offsets[result.getResultNumber()];
      if (!view) {
        bufferOffset[buffer] = offset;
      } else if (offset != bufferOffset[buffer]) {
        op->emitError() << "cannot generate code for '" << op->getName()
                        << "': this view has offset " << offset
                        << " but the storage it aliases has offset "
                        << bufferOffset[buffer]
                        << " (a view shares its operand's storage; the plan "
                           "does not come from ckpt-plan-memory)";
        ok = false;
      }
    }
  }
  return success(ok);
}

/// Finds in-place reuses (a result at the offset of an operand's storage
/// that dies at the same op), rebuilds the planner's packing problem and
/// picks the alignment with which the plan checks and reproduces its lower
/// bound.
LogicalResult ModelBuilder::inferAlignment() {
  const std::vector<Buffer> &buffers = timeline.buffers;
  inPlaceOf.assign(buffers.size(), -1);
  takenOver.assign(buffers.size(), false);
  for (auto [index, op] : llvm::enumerate(timeline.ops)) {
    // Copies are not computed in place (and an offload's result is on the
    // host).
    if (cast<CostOpInterface>(op).isView() ||
        isa<OffloadOp, OffloadWaitOp, PrefetchOp>(op))
      continue;
    for (Value result : op->getResults()) {
      size_t target = timeline.bufferOf.lookup(result);
      if (buffers[target].bytes == 0)
        continue;
      for (Value operand : op->getOperands()) {
        size_t source = timeline.bufferOf.lookup(operand);
        const Buffer &b = buffers[source];
        if (b.def < 0 || b.lastUse != static_cast<int64_t>(index) ||
            b.bytes == 0 || takenOver[source] ||
            bufferOffset[source] != bufferOffset[target])
          continue;
        inPlaceOf[target] = static_cast<int64_t>(source);
        takenOver[source] = true;
        break;
      }
    }
  }
  plan::PlanProblem problem;
  std::vector<int64_t> offsets;
  for (auto [index, b] : llvm::enumerate(buffers)) {
    problem.buffers.push_back(
        {b.bytes, std::max<int64_t>(b.def, 0), b.lastUse, inPlaceOf[index]});
    offsets.push_back(bufferOffset[index]);
  }
  for (auto [index, bytes] : llvm::enumerate(timeline.workspace)) {
    if (bytes <= 0)
      continue;
    int64_t step = static_cast<int64_t>(index);
    problem.buffers.push_back({bytes, step, step, -1});
    offsets.push_back(workspaceOffset[index]);
  }
  if (model.deviceWorkspace > 0) {
    problem.buffers.push_back({model.deviceWorkspace, 0,
                               static_cast<int64_t>(timeline.ops.size()), -1});
    offsets.push_back(model.deviceWorkspaceOffset);
  }
  int64_t largest = kMaxInferredAlignment;
  for (int64_t offset : offsets)
    if (offset > 0)
      largest = std::min(largest, offset & -offset);
  if (model.arenaSize > 0)
    largest = std::min(largest, model.arenaSize & -model.arenaSize);
  SmallVector<int64_t> candidates;
  if (options.alignment > 0)
    candidates.push_back(options.alignment);
  else
    for (int64_t a = largest; a >= 1; a /= 2)
      candidates.push_back(a);
  std::string firstProblem;
  for (int64_t alignment : candidates) {
    problem.alignment = alignment;
    std::string why = plan::validateProblem(problem);
    if (why.empty()) {
      int64_t bound = plan::computeLowerBound(problem);
      if (bound != model.lowerBound)
        why = "its lower bound is " + std::to_string(bound) + ", not " +
              std::to_string(model.lowerBound);
    }
    if (why.empty())
      why = plan::checkPlan(problem, offsets, model.arenaSize);
    if (why.empty()) {
      model.alignment = alignment;
      return checkHostPlan();
    }
    if (firstProblem.empty())
      firstProblem =
          "with alignment " + std::to_string(alignment) + ", " + why;
  }
  return func.emitError()
         << "cannot generate code for @" << model.name
         << ": its memory plan does not match the IR (" << firstProblem
         << "); the plan is stale or was not made by ckpt-plan-memory "
            "(re-run it after the last pass that changes the ops)";
}

/// Checks the host arena's plan with the planner's checker, at the device
/// plan's alignment, and takes its lower bound.
LogicalResult ModelBuilder::checkHostPlan() {
  if (timeline.hostBuffers.empty())
    return success();
  plan::PlanProblem problem;
  problem.alignment = model.alignment;
  for (const Buffer &b : timeline.hostBuffers)
    problem.buffers.push_back({b.bytes, b.def, b.lastUse, -1});
  std::string why = plan::validateProblem(problem);
  if (why.empty())
    why = plan::checkPlan(problem, hostOffset, model.hostArenaSize);
  if (!why.empty())
    return func.emitError()
           << "cannot generate code for @" << model.name
           << ": its host arena's plan does not match the IR (" << why
           << "); re-run ckpt-plan-memory after the last pass that changes "
              "the ops";
  model.hostLowerBound = plan::computeLowerBound(problem);
  return success();
}

/// Names, roles, types and offsets of the arguments and results.
LogicalResult ModelBuilder::buildBindings() {
  auto roleEnum = [](StringRef keyword) {
    std::string name = keyword.str();
    name[0] = llvm::toUpper(name[0]);
    return name;
  };
  auto fill = [&](BindingEntry &entry, Value value, ValueRole role) {
    auto type = cast<RankedTensorType>(value.getType());
    entry.role = stringifyEnum(role).str();
    entry.roleEnum = roleEnum(entry.role);
    entry.dtype = runtimeDType(type, options.target);
    entry.shape.assign(type.getShape().begin(), type.getShape().end());
    entry.offset = bufferOffset[timeline.bufferOf.lookup(value)];
    entry.bytes = getTensorBytes(type);
  };
  bool ok = true;
  llvm::StringSet<> seen;
  for (BlockArgument arg : func.getArguments()) {
    BindingEntry entry;
    unsigned index = arg.getArgNumber();
    entry.name = argumentName(arg);
    if (entry.name.empty())
      entry.name = "arg" + std::to_string(index);
    fill(entry, arg, getArgumentRole(func, index).value_or(ValueRole::Input));
    if (!seen.insert(entry.name).second) {
      func.emitError() << "cannot generate code for @" << model.name
                       << ": two arguments are named '" << entry.name << "'";
      ok = false;
    }
    model.arguments.push_back(std::move(entry));
  }
  Operation *terminator = func.getBody().front().getTerminator();
  unsigned numLosses = 0;
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    numLosses += getResultRole(func, i) == ValueRole::Loss;
  seen.clear();
  for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
    BindingEntry entry;
    ValueRole role = getResultRole(func, index).value_or(ValueRole::Output);
    fill(entry, value, role);
    std::optional<int64_t> gradOf = getGradientOf(func, index);
    if (role == ValueRole::Grad && gradOf && *gradOf >= 0 &&
        *gradOf < static_cast<int64_t>(model.arguments.size())) {
      entry.gradOf = *gradOf;
      entry.name = "grad:" + model.arguments[*gradOf].name;
    } else if (role == ValueRole::Loss && numLosses == 1) {
      entry.name = "loss";
    } else {
      entry.name = entry.role + ":" + std::to_string(index);
    }
    if (!seen.insert(entry.name).second) {
      func.emitError() << "cannot generate code for @" << model.name
                       << ": two results are named '" << entry.name << "'";
      ok = false;
    }
    model.results.push_back(std::move(entry));
  }
  return success(ok);
}

TensorRef ModelBuilder::tensorOf(Value value) {
  TensorRef ref;
  if (!value) {
    ref.present = false;
    return ref;
  }
  auto type = cast<RankedTensorType>(value.getType());
  ref.offset = bufferOffset[timeline.bufferOf.lookup(value)];
  ref.dtype = runtimeDType(type, options.target);
  ref.shape.assign(type.getShape().begin(), type.getShape().end());
  return ref;
}

std::optional<CopyEntry> ModelBuilder::copyOf(Operation *op) {
  auto hostOf = [&](Value host) {
    return static_cast<int64_t>(timeline.hostBufferOf.lookup(host));
  };
  CopyEntry copy;
  Value host;
  if (auto offload = dyn_cast<OffloadOp>(op)) {
    copy.kind = CopyEntry::Kind::Offload;
    host = offload.getResult();
    copy.deviceOffset =
        bufferOffset[timeline.bufferOf.lookup(offload.getInput())];
  } else if (auto wait = dyn_cast<OffloadWaitOp>(op)) {
    copy.kind = CopyEntry::Kind::Wait;
    host = wait.getHost();
  } else if (auto prefetch = dyn_cast<PrefetchOp>(op)) {
    copy.kind = CopyEntry::Kind::Prefetch;
    host = prefetch.getHost();
    copy.deviceOffset =
        bufferOffset[timeline.bufferOf.lookup(prefetch.getResult())];
  } else {
    return std::nullopt;
  }
  copy.copy = hostOf(host);
  copy.hostOffset = hostOffset[copy.copy];
  copy.bytes = getTensorBytes(host.getType());
  return copy;
}

/// One entry per op: tensors, attributes, and the storage it begins and ends.
void ModelBuilder::buildOps() {
  const int64_t numOps = timeline.ops.size();
  std::vector<std::vector<size_t>> dyingAt(numOps), hostDyingAt(numOps);
  for (auto [index, b] : llvm::enumerate(timeline.buffers))
    if (b.def >= 0 && b.lastUse < numOps && b.bytes > 0)
      dyingAt[b.lastUse].push_back(index);
  for (auto [index, b] : llvm::enumerate(timeline.hostBuffers))
    if (b.bytes > 0)
      hostDyingAt[b.lastUse].push_back(index);
  for (auto [index, op] : llvm::enumerate(timeline.ops)) {
    OpEntry entry;
    entry.index = static_cast<int64_t>(index);
    entry.mnemonic = op->getName().stripDialect().str();
    entry.text = printOp(op, state);
    entry.location = formatLocation(op->getLoc());
    switch (*getOpPhase(op)) {
    case Phase::Forward:
      entry.phase = "Forward";
      break;
    case Phase::Backward:
      entry.phase = "Backward";
      break;
    case Phase::Optimizer:
      entry.phase = "Optimizer";
      break;
    }
    entry.recompute = op->hasAttr(CkptDialect::getRecomputeAttrName());
    entry.view = cast<CostOpInterface>(op).isView();
    for (size_t buffer : hostDyingAt[index])
      entry.hostReleases.push_back(
          {hostOffset[buffer], aligned(timeline.hostBuffers[buffer].bytes)});
    if (std::optional<CopyEntry> copy = copyOf(op)) {
      entry.copy = *copy;
      if (isa<OffloadOp>(op)) {
        ++model.numOffloads;
        entry.hostAcquires.push_back({copy->hostOffset, aligned(copy->bytes)});
      } else if (auto prefetch = dyn_cast<PrefetchOp>(op)) {
        ++model.numPrefetches;
        entry.acquires.push_back({copy->deviceOffset, aligned(copy->bytes)});
      }
      for (size_t buffer : dyingAt[index])
        entry.releases.push_back(
            {bufferOffset[buffer], aligned(timeline.buffers[buffer].bytes)});
      model.ops.push_back(std::move(entry));
      continue;
    }
    for (Value operand : kernelOperands(op))
      entry.operands.push_back(tensorOf(operand));
    for (Value result : op->getResults())
      entry.results.push_back(tensorOf(result));
    entry.attrs = opAttrs.lookup(op);
    if (timeline.workspace[index] > 0)
      entry.workspace =
          Range{workspaceOffset[index], aligned(timeline.workspace[index])};
    if (!entry.view) {
      for (Value result : op->getResults()) {
        size_t buffer = timeline.bufferOf.lookup(result);
        const Buffer &b = timeline.buffers[buffer];
        if (b.bytes == 0)
          continue;
        entry.acquires.push_back({bufferOffset[buffer], aligned(b.bytes)});
        if (inPlaceOf[buffer] >= 0) {
          ++model.numInPlace;
          entry.inPlaceNotes.push_back(
              printValue(result, state) + " takes over the storage of " +
              printValue(timeline.buffers[inPlaceOf[buffer]].value, state));
        }
      }
      ++model.numKernelCalls;
      model.numRecomputedOps += entry.recompute;
    }
    for (size_t buffer : dyingAt[index])
      entry.releases.push_back(
          {bufferOffset[buffer], aligned(timeline.buffers[buffer].bytes)});
    model.ops.push_back(std::move(entry));
  }
  // The first kernel reading a prefetched buffer (directly or through a
  // view) waits for its copy.
  llvm::DenseMap<size_t, int64_t> pendingPrefetch; // buffer -> copy
  for (auto [index, op] : llvm::enumerate(timeline.ops)) {
    OpEntry &entry = model.ops[index];
    if (entry.copy) {
      if (entry.copy->kind == CopyEntry::Kind::Prefetch)
        pendingPrefetch[timeline.bufferOf.lookup(op->getResult(0))] =
            entry.copy->copy;
      continue;
    }
    if (entry.view)
      continue;
    for (Value operand : op->getOperands()) {
      auto it = pendingPrefetch.find(timeline.bufferOf.lookup(operand));
      if (it == pendingPrefetch.end())
        continue;
      entry.awaitsPrefetches.push_back(it->second);
      pendingPrefetch.erase(it);
    }
  }
}

/// Every storage block of the plan, in the planner's order: arguments and
/// op results, then workspaces.
void ModelBuilder::buildBuffers() {
  for (auto [index, b] : llvm::enumerate(timeline.buffers)) {
    BufferEntry entry;
    entry.value = printValue(b.value, state);
    if (auto arg = dyn_cast<BlockArgument>(b.value)) {
      entry.argument = arg.getArgNumber();
    } else {
      entry.opIndex = b.def;
      entry.op = timeline.ops[b.def]->getName().getStringRef().str();
    }
    entry.kind = stringifyBufferKind(b.kind).str();
    entry.offset = bufferOffset[index];
    entry.bytes = aligned(b.bytes);
    entry.tensorBytes = b.bytes;
    entry.firstOp = std::max<int64_t>(b.def, 0);
    entry.lastOp = b.lastUse;
    entry.inPlaceOf = inPlaceOf[index];
    model.buffers.push_back(std::move(entry));
  }
  for (auto [index, bytes] : llvm::enumerate(timeline.workspace)) {
    if (bytes <= 0)
      continue;
    BufferEntry entry;
    entry.opIndex = static_cast<int64_t>(index);
    entry.op = timeline.ops[index]->getName().getStringRef().str();
    entry.kind = "workspace";
    entry.offset = workspaceOffset[index];
    entry.bytes = aligned(bytes);
    entry.tensorBytes = bytes;
    entry.firstOp = entry.lastOp = entry.opIndex;
    model.buffers.push_back(std::move(entry));
  }
}

/// Groups maximal runs of recomputing ops (views between them included)
/// into segments and finds the op each segment is for.
void ModelBuilder::buildSegments() {
  const int64_t numOps = model.ops.size();
  for (int64_t i = 0; i < numOps;) {
    if (!model.ops[i].recompute) {
      ++i;
      continue;
    }
    SegmentEntry segment;
    segment.id = static_cast<int>(model.segments.size());
    segment.firstOp = i;
    int64_t last = i;
    for (int64_t j = i; j < numOps && (model.ops[j].recompute ||
                                       model.ops[j].view);
         ++j)
      if (model.ops[j].recompute)
        last = j;
    segment.lastOp = last;
    llvm::DenseSet<Value> recomputed;
    for (int64_t j = i; j <= last; ++j) {
      model.ops[j].segment = segment.id;
      if (!model.ops[j].recompute || model.ops[j].view)
        continue;
      segment.ops.push_back(j);
      for (Value result : timeline.ops[j]->getResults()) {
        recomputed.insert(result);
        segment.recomputed.push_back(printValue(result, state));
      }
    }
    for (int64_t k = last + 1; k < numOps && segment.consumerOp < 0; ++k)
      for (Value operand : timeline.ops[k]->getOperands())
        if (recomputed.contains(getStorageRoot(operand))) {
          segment.consumerOp = k;
          segment.consumerText = model.ops[k].text;
          segment.consumerLocation = model.ops[k].location;
          break;
        }
    model.segments.push_back(std::move(segment));
    i = last + 1;
  }
}

FailureOr<StepModel> mlir::ckpt::cpp::buildStepModel(
    func::FuncOp func, const EmitCppOptions &options) {
  return ModelBuilder(func, options).build();
}
