//===- PlanMemory.cpp - Place every buffer of a step in one arena ---------===//
//
// Implements `ckpt-plan-memory`: IR -> MemoryTimeline -> plan::PlanProblem
// (lifetimes in op order, aligned sizes, in-place partners) -> plan::
// planMemory -> independent plan::checkPlan (with `verify`) -> attributes on
// the IR and, with `output`, a JSON file (docs/memory-plan.md).
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/MemoryTimeline.h"
#include "ckpt/Analysis/StepReport.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/OutputFile.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Plan/MemoryPlan.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"

#include <chrono>

namespace mlir::ckpt {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;

namespace {

/// What a planned buffer stores: a MemoryTimeline buffer, an op's
/// workspace, or the function's device workspace.
struct BufferOrigin {
  int64_t timelineBuffer = -1; ///< index into MemoryTimeline::buffers
  int64_t workspaceOp = -1;    ///< op index, for a workspace buffer
  bool deviceWorkspace = false; ///< the step-long `ckpt.device_workspace`
};

/// The planning problem of one function, where its buffers come from, and
/// the plan.
struct FunctionPlan {
  plan::PlanProblem problem;
  std::vector<BufferOrigin> origins;
  /// Per buffer: 0 for the parameter region (parameters and gradients with
  /// `separate-parameters`), 1 for the rest.
  std::vector<int> region;
  plan::MemoryPlan plan;
  /// The host arena: one buffer per `MemoryTimeline::hostBuffers` entry, in
  /// order (empty without copies).
  plan::PlanProblem hostProblem;
  plan::MemoryPlan hostPlan;
  int64_t parameterRegion = 0;
  double seconds = 0;
};

struct PlanMemoryPass
    : public mlir::ckpt::impl::PlanMemoryPassBase<PlanMemoryPass> {
  using PlanMemoryPassBase::PlanMemoryPassBase;

  void runOnOperation() override;

private:
  /// Builds, solves and (with `verify`) checks the plan of `func`.
  FailureOr<FunctionPlan> planFunction(func::FuncOp func,
                                       const MemoryTimeline &t);
};

} // namespace

/// Elementwise ops whose result 0 may overwrite an operand of the same size
/// that dies at the op: each output element depends only on the input
/// elements at its own position.
static bool isElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, NegOp, ExpOp, LogOp, SqrtOp, RsqrtOp,
             TanhOp, SinOp, CosOp, AbsOp, MinimumOp, MaximumOp, PowOp, ConvertOp, ReluOp, SigmoidOp, SiluOp,
             GeluOp, ReluGradOp, SigmoidGradOp, TanhGradOp, SiluGradOp,
             GeluGradOp, ClampOp, ClampGradOp, HardswishOp, HardswishGradOp,
             HardsigmoidOp, HardsigmoidGradOp, DropoutOp, DropoutGradOp>(op);
}

/// Builds the packing problem of `t`: one buffer per timeline buffer (in
/// order), then one per op workspace.
static FunctionPlan buildProblem(const MemoryTimeline &t, int64_t alignment,
                                 bool inPlace, bool separateParameters) {
  FunctionPlan fp;
  fp.problem.alignment = alignment;
  auto regionOf = [&](BufferKind kind) {
    return separateParameters &&
                   (kind == BufferKind::Parameter ||
                    kind == BufferKind::Gradient)
               ? 0
               : 1;
  };
  for (auto [index, buffer] : llvm::enumerate(t.buffers)) {
    fp.problem.buffers.push_back(
        {buffer.bytes, std::max<int64_t>(buffer.def, 0), buffer.lastUse, -1});
    fp.origins.push_back({static_cast<int64_t>(index), -1});
    fp.region.push_back(regionOf(buffer.kind));
  }
  for (auto [index, bytes] : llvm::enumerate(t.workspace)) {
    if (bytes <= 0)
      continue;
    int64_t step = static_cast<int64_t>(index);
    fp.problem.buffers.push_back({bytes, step, step, -1});
    fp.origins.push_back({-1, step});
    fp.region.push_back(1);
  }
  // The device workspace lives through the whole step, like an argument.
  if (t.deviceWorkspace > 0) {
    fp.problem.buffers.push_back(
        {t.deviceWorkspace, 0, static_cast<int64_t>(t.ops.size()), -1});
    fp.origins.push_back({-1, -1, true});
    fp.region.push_back(1);
  }
  if (!inPlace)
    return fp;
  // In place: result 0 of an elementwise op over an operand whose storage
  // (an op result, never a caller-owned argument) dies at this op, and whose
  // elements map one to one onto the result's: the same element type and
  // count (a broadcast operand, or a 1-byte mask under an f32 result, would
  // be overwritten before all of it is read).
  std::vector<bool> claimed(t.buffers.size(), false);
  for (auto [index, op] : llvm::enumerate(t.ops)) {
    if (!isElementwise(op) || op->getNumResults() == 0)
      continue;
    auto resultType = cast<ShapedType>(op->getResult(0).getType());
    size_t result = t.bufferOf.lookup(op->getResult(0));
    int64_t size = plan::alignUp(t.buffers[result].bytes, alignment);
    for (Value operand : op->getOperands()) {
      auto operandType = dyn_cast<ShapedType>(operand.getType());
      if (!operandType ||
          operandType.getElementType() != resultType.getElementType() ||
          operandType.getNumElements() != resultType.getNumElements())
        continue;
      size_t source = t.bufferOf.lookup(operand);
      const Buffer &b = t.buffers[source];
      if (claimed[source] || b.def < 0 ||
          b.lastUse != static_cast<int64_t>(index) ||
          plan::alignUp(b.bytes, alignment) != size ||
          fp.region[source] != fp.region[result])
        continue;
      claimed[source] = true;
      fp.problem.buffers[result].inPlaceOf = static_cast<int64_t>(source);
      break;
    }
  }
  return fp;
}

/// Packs the buffers of `region` alone; returns the region's plan with
/// offsets for every buffer of `fp` (0 outside the region).
static plan::MemoryPlan packRegion(const FunctionPlan &fp, int region,
                                   const plan::PlanOptions &options) {
  plan::PlanProblem sub;
  sub.alignment = fp.problem.alignment;
  std::vector<int64_t> local(fp.problem.buffers.size(), -1);
  std::vector<size_t> global;
  for (auto [i, b] : llvm::enumerate(fp.problem.buffers)) {
    if (fp.region[i] != region)
      continue;
    local[i] = sub.buffers.size();
    global.push_back(i);
    plan::PlanBuffer copy = b;
    // Partners are always in the same region (buildProblem) and earlier.
    copy.inPlaceOf = b.inPlaceOf >= 0 ? local[b.inPlaceOf] : -1;
    sub.buffers.push_back(copy);
  }
  plan::MemoryPlan packed = plan::planMemory(sub, options);
  plan::MemoryPlan result = packed;
  result.offsets.assign(fp.problem.buffers.size(), 0);
  for (auto [l, g] : llvm::enumerate(global))
    result.offsets[g] = packed.offsets[l];
  return result;
}

FailureOr<FunctionPlan> PlanMemoryPass::planFunction(func::FuncOp func,
                                                     const MemoryTimeline &t) {
  FunctionPlan fp = buildProblem(t, alignment, inPlace, separateParameters);
  plan::PlanOptions options;
  options.algorithm = algorithm;
  options.restarts = restarts;
  auto begin = std::chrono::steady_clock::now();
  if (!separateParameters) {
    fp.plan = plan::planMemory(fp.problem, options);
  } else {
    // Parameters and gradients first, the rest above them.
    plan::MemoryPlan params = packRegion(fp, 0, options);
    plan::MemoryPlan rest = packRegion(fp, 1, options);
    fp.parameterRegion = params.arenaSize;
    fp.plan = rest;
    fp.plan.arenaSize = params.arenaSize + rest.arenaSize;
    fp.plan.lowerBound = plan::computeLowerBound(fp.problem);
    fp.plan.inPlaceBuffers += params.inPlaceBuffers;
    fp.plan.provenOptimal = fp.plan.arenaSize == fp.plan.lowerBound;
    for (size_t i = 0; i < fp.problem.buffers.size(); ++i)
      fp.plan.offsets[i] = fp.region[i] == 0
                               ? params.offsets[i]
                               : rest.offsets[i] + params.arenaSize;
  }
  // The host buffers (offloaded values) in an arena of their own, pinned
  // host memory at run time.
  fp.hostProblem.alignment = alignment;
  for (const Buffer &buffer : t.hostBuffers)
    fp.hostProblem.buffers.push_back(
        {buffer.bytes, buffer.def, buffer.lastUse, -1});
  if (!fp.hostProblem.buffers.empty())
    fp.hostPlan = plan::planMemory(fp.hostProblem, options);
  fp.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             begin)
                   .count();
  if (verify) {
    std::string why =
        plan::checkPlan(fp.problem, fp.plan.offsets, fp.plan.arenaSize);
    if (why.empty() && !fp.hostProblem.buffers.empty()) {
      why = plan::checkPlan(fp.hostProblem, fp.hostPlan.offsets,
                            fp.hostPlan.arenaSize);
      if (!why.empty())
        why = "host arena: " + why;
    }
    if (!why.empty()) {
      emitError(func.getLoc())
          << "ckpt-plan-memory: internal error: the plan of @"
          << func.getSymName() << " fails the checker: " << why;
      return failure();
    }
  }
  return fp;
}

/// Writes the plan onto the IR: offsets of arguments, results and
/// workspaces, and the arena figures on the function.
static void attachPlan(func::FuncOp func, const MemoryTimeline &t,
                       const FunctionPlan &fp) {
  Builder b(func.getContext());
  std::vector<int64_t> offsetOfTimelineBuffer(t.buffers.size(), 0);
  for (auto [i, origin] : llvm::enumerate(fp.origins)) {
    if (origin.timelineBuffer >= 0)
      offsetOfTimelineBuffer[origin.timelineBuffer] = fp.plan.offsets[i];
    else if (origin.deviceWorkspace)
      func->setAttr(CkptDialect::getDeviceWorkspaceOffsetAttrName(),
                    b.getI64IntegerAttr(fp.plan.offsets[i]));
    else
      t.ops[origin.workspaceOp]->setAttr(
          CkptDialect::getWorkspaceOffsetAttrName(),
          b.getI64IntegerAttr(fp.plan.offsets[i]));
  }
  for (BlockArgument arg : func.getArguments())
    func.setArgAttr(arg.getArgNumber(), CkptDialect::getOffsetAttrName(),
                    b.getI64IntegerAttr(
                        offsetOfTimelineBuffer[t.bufferOf.lookup(arg)]));
  for (Operation *op : t.ops) {
    if (op->getNumResults() == 0)
      continue;
    SmallVector<int64_t> offsets;
    for (Value result : op->getResults()) {
      // An offload's result is in the host arena.
      auto host = t.hostBufferOf.find(result);
      offsets.push_back(
          host != t.hostBufferOf.end()
              ? fp.hostPlan.offsets[host->second]
              : offsetOfTimelineBuffer[t.bufferOf.lookup(result)]);
    }
    op->setAttr(CkptDialect::getOffsetAttrName(),
                b.getDenseI64ArrayAttr(offsets));
  }
  func->setAttr(CkptDialect::getArenaSizeAttrName(),
                b.getI64IntegerAttr(fp.plan.arenaSize));
  func->setAttr(CkptDialect::getArenaLowerBoundAttrName(),
                b.getI64IntegerAttr(fp.plan.lowerBound));
  if (!fp.hostProblem.buffers.empty())
    func->setAttr(CkptDialect::getHostArenaSizeAttrName(),
                  b.getI64IntegerAttr(fp.hostPlan.arenaSize));
  else
    func->removeAttr(CkptDialect::getHostArenaSizeAttrName());
  if (fp.parameterRegion > 0)
    func->setAttr(CkptDialect::getParameterRegionAttrName(),
                  b.getI64IntegerAttr(fp.parameterRegion));
  else
    func->removeAttr(CkptDialect::getParameterRegionAttrName());
}

/// Returns `arena / lowerBound` (1 for an empty arena).
static double arenaRatio(const plan::MemoryPlan &plan) {
  return plan.lowerBound > 0 ? static_cast<double>(plan.arenaSize) /
                                   static_cast<double>(plan.lowerBound)
                             : 1.0;
}

/// The plan of one function as JSON (schema in docs/memory-plan.md).
static llvm::json::Object planJson(func::FuncOp func, const MemoryTimeline &t,
                                   const FunctionPlan &fp) {
  llvm::json::Array buffers;
  for (auto [i, origin] : llvm::enumerate(fp.origins)) {
    const plan::PlanBuffer &pb = fp.problem.buffers[i];
    llvm::json::Object entry{{"offset", fp.plan.offsets[i]},
                             {"bytes", pb.size},
                             {"first_step", pb.start},
                             {"last_step", pb.end}};
    if (origin.deviceWorkspace) {
      entry["kind"] = "device_workspace";
    } else if (origin.workspaceOp >= 0) {
      entry["kind"] = "workspace";
      entry["op_index"] = origin.workspaceOp;
      entry["op"] =
          t.ops[origin.workspaceOp]->getName().getStringRef().str();
    } else {
      const Buffer &buffer = t.buffers[origin.timelineBuffer];
      entry["kind"] = stringifyBufferKind(buffer.kind).str();
      if (auto arg = dyn_cast<BlockArgument>(buffer.value)) {
        entry["argument"] = static_cast<int64_t>(arg.getArgNumber());
      } else {
        entry["op_index"] = buffer.def;
        entry["op"] = t.ops[buffer.def]->getName().getStringRef().str();
        entry["result"] =
            static_cast<int64_t>(cast<OpResult>(buffer.value).getResultNumber());
      }
    }
    if (pb.inPlaceOf >= 0)
      entry["in_place_of"] = pb.inPlaceOf;
    buffers.push_back(std::move(entry));
  }
  llvm::json::Array hostBuffers;
  for (auto [i, pb] : llvm::enumerate(fp.hostProblem.buffers))
    hostBuffers.push_back(llvm::json::Object{
        {"offset", fp.hostPlan.offsets[i]},
        {"bytes", pb.size},
        {"first_step", pb.start},
        {"last_step", pb.end},
        {"op_index", pb.start},
        {"op", t.ops[pb.start]->getName().getStringRef().str()}});
  return llvm::json::Object{{"function", func.getSymName().str()},
                            {"host_arena_bytes", fp.hostPlan.arenaSize},
                            {"host_lower_bound_bytes", fp.hostPlan.lowerBound},
                            {"host_buffers", std::move(hostBuffers)},
                            {"arena_bytes", fp.plan.arenaSize},
                            {"lower_bound_bytes", fp.plan.lowerBound},
                            {"ratio", arenaRatio(fp.plan)},
                            {"parameter_region_bytes", fp.parameterRegion},
                            {"alignment", fp.problem.alignment},
                            {"method", fp.plan.method},
                            {"proven_optimal", fp.plan.provenOptimal},
                            {"in_place_buffers", fp.plan.inPlaceBuffers},
                            {"plan_seconds", fp.seconds},
                            {"buffers", std::move(buffers)}};
}

/// The largest alignment= accepted (1 GiB).
static constexpr int64_t kMaxAlignment = int64_t(1) << 30;

void PlanMemoryPass::runOnOperation() {
  ModuleOp module = getOperation();
  // Errors in the options have no place in the input: no location. Offsets
  // are sums of aligned sizes: an alignment of at most 1 GiB keeps them far
  // from overflowing (2^62 at 2^32 buffers).
  Location optionsLoc = UnknownLoc::get(&getContext());
  if (alignment <= 0 || !llvm::isPowerOf2_64(alignment) ||
      alignment > kMaxAlignment) {
    emitError(optionsLoc)
        << "ckpt-plan-memory: alignment must be a positive power of two, at "
           "most 1 GiB, got "
        << alignment.getValue();
    return signalPassFailure();
  }
  llvm::json::Array functions;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    FailureOr<MemoryTimeline> timeline = computeMemoryTimeline(func);
    if (failed(timeline))
      return signalPassFailure();
    FailureOr<FunctionPlan> fp = planFunction(func, *timeline);
    if (failed(fp))
      return signalPassFailure();
    numInPlace += fp->plan.inPlaceBuffers;
    if (explain)
      emitRemark(func.getLoc())
          << "memory plan: arena=" << fp->plan.arenaSize
          << " lower-bound=" << fp->plan.lowerBound
          << " ratio=" << llvm::formatv("{0:f4}", arenaRatio(fp->plan)).str()
          << " buffers=" << fp->problem.buffers.size()
          << " in-place=" << fp->plan.inPlaceBuffers
          << " method=" << fp->plan.method
          << (fp->plan.provenOptimal ? " optimal" : "")
          << (fp->hostProblem.buffers.empty()
                  ? std::string()
                  : " host-arena=" + std::to_string(fp->hostPlan.arenaSize) +
                        " host-lower-bound=" +
                        std::to_string(fp->hostPlan.lowerBound) +
                        " host-buffers=" +
                        std::to_string(fp->hostProblem.buffers.size()));
    if (!output.empty())
      functions.push_back(planJson(func, *timeline, *fp));
    attachPlan(func, *timeline, *fp);
  }
  if (output.empty())
    return;
  // Written to a temporary file that replaces `output` once complete.
  llvm::Error written =
      writeOutputFile(output, [&](llvm::raw_ostream &os) {
        llvm::json::Object document{{"version", 1},
                                    {"functions", std::move(functions)}};
        os << llvm::formatv("{0:2}", llvm::json::Value(std::move(document)))
           << "\n";
        return llvm::Error::success();
      });
  if (written) {
    emitError(module.getLoc())
        << "ckpt-plan-memory: cannot write '" << output
        << "': " << llvm::toString(std::move(written));
    return signalPassFailure();
  }
}
