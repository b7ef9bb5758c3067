//===- RematLowering.cpp - Between the IR and the remat problem -----------===//

#include "ckpt/Dialect/Ckpt/Transforms/RematLowering.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TrainingStep.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::ckpt;

double mlir::ckpt::computeNodeCost(CostOpInterface op,
                                   const CostModel *costModel) {
  if (std::optional<int64_t> explicitCost = op.getExplicitCost())
    return static_cast<double>(*explicitCost);
  if (costModel)
    return costModel->estimateSeconds(op);
  return static_cast<double>(op.getCost().flops);
}

FailureOr<RematProblemWithOrigins>
mlir::ckpt::buildRematProblem(func::FuncOp func,
                              const RematProblemOptions &options) {
  if (failed(rejectHostCopies(
          func, "checkpoint placement",
          "it plans a step without copies, and this one is placed already")))
    return failure();
  RematProblemWithOrigins result;
  remat::Problem &problem = result.problem;
  Block &body = func.getBody().front();
  const bool wholeStep = options.scope == BudgetScope::Step;
  const int64_t alignment = std::max<int64_t>(options.alignment, 1);
  // A buffer's size as a plan with the alignment holds it.
  auto held = [&](int64_t bytes) {
    return bytes <= 0 ? int64_t(0)
                      : addSat(bytes, alignment - 1) / alignment * alignment;
  };
  if (wholeStep) {
    for (BlockArgument arg : body.getArguments())
      problem.fixedBytes =
          addSat(problem.fixedBytes, held(getTensorBytes(arg.getType())));
    // The device workspace is held for the whole step, like the arguments.
    if (auto bytes = func->getAttrOfType<IntegerAttr>(
            CkptDialect::getDeviceWorkspaceAttrName()))
      problem.fixedBytes = addSat(problem.fixedBytes, held(bytes.getInt()));
  }
  // Op results returned as parameter gradients (BufferKind::Gradient): out
  // of the activations scope for their whole lifetime.
  llvm::DenseSet<Value> gradients;
  Operation *terminator = body.getTerminator();
  for (auto [i, value] : llvm::enumerate(terminator->getOperands())) {
    Value root = getStorageRoot(value);
    if (getResultRole(func, i) == ValueRole::Grad && root.getDefiningOp())
      gradients.insert(root);
  }
  auto weight = [&](Value result) -> int64_t {
    if (!wholeStep && gradients.contains(result))
      return 0;
    return held(getTensorBytes(result.getType()));
  };

  llvm::DenseMap<Value, int32_t> nodeOf;
  // Explicit costs (in the input graph's unit) replace FLOPs and seconds, so
  // they must be given on every op or on none: the units do not mix.
  Operation *withExplicitCost = nullptr;
  Operation *withoutExplicitCost = nullptr;
  for (Operation &op : body.without_terminator()) {
    auto costOp = dyn_cast<CostOpInterface>(&op);
    if (!costOp)
      return op.emitOpError() << "has no cost model; checkpoint placement "
                                 "only handles ckpt ops";
    if (costOp.isView())
      continue;
    OpCost cost = costOp.getCost();
    std::optional<int64_t> explicitCost = costOp.getExplicitCost();
    (explicitCost ? withExplicitCost : withoutExplicitCost) = &op;
    if (withExplicitCost && withoutExplicitCost) {
      InFlightDiagnostic diag =
          withoutExplicitCost->emitOpError()
          << "has no explicit compute_cost, but other ops of the function "
             "have one; checkpoint placement needs one cost unit for all ops";
      diag.attachNote(withExplicitCost->getLoc())
          << "this op has an explicit compute_cost";
      return diag;
    }
    bool recomputable =
        !options.forwardOnly || getOpPhase(&op) == Phase::Forward;
    int32_t primary = static_cast<int32_t>(problem.nodes.size());
    for (OpResult res : op.getResults()) {
      remat::Node node;
      node.name =
          (op.getName().getStringRef() + "#" + Twine(problem.nodes.size()))
              .str();
      node.bytes = weight(res);
      node.recomputable = recomputable;
      if (res.getResultNumber() == 0) {
        node.cost = computeNodeCost(costOp, options.costModel);
        node.workspace = held(cost.workspaceBytes);
        for (Value operand : op.getOperands()) {
          auto it = nodeOf.find(getStorageRoot(operand));
          if (it != nodeOf.end() && !llvm::is_contained(node.deps, it->second))
            node.deps.push_back(it->second);
        }
        llvm::sort(node.deps);
      } else {
        node.primary = primary;
        node.deps = {primary};
        problem.nodes[primary].workspace =
            addSat(problem.nodes[primary].workspace, node.bytes);
      }
      nodeOf[res] = static_cast<int32_t>(problem.nodes.size());
      problem.nodes.push_back(std::move(node));
      result.origins.push_back({&op, res.getResultNumber()});
    }
  }
  for (Value value : terminator->getOperands()) {
    auto it = nodeOf.find(getStorageRoot(value));
    if (it != nodeOf.end())
      problem.nodes[it->second].isOutput = true;
  }
  return result;
}

namespace {

/// Rebuilds a function body in schedule order.
class ScheduleMaterializer {
public:
  ScheduleMaterializer(func::FuncOp func, const RematProblemWithOrigins &p)
      : func(func), problem(p), builder(func.getContext()) {}

  int64_t run(const remat::Schedule &schedule);
  MaterializedOffload run(const remat::OffloadSchedule &schedule,
                          const remat::OffloadEvaluation &evaluation);

private:
  /// Takes the body's ops out of the way: the rewritten ones go before the
  /// terminator; `finish` erases the old ones.
  void start();
  void finish();
  /// Clones node `id`'s op on the current operands (a `ckpt.recompute` if
  /// it was computed before); returns whether it was a recomputation.
  bool compute(int32_t id);

  /// Returns the current copy of `value` (an argument, an op result, or a
  /// view, which is re-created on the current copy of its root if needed).
  Value current(Value value);

  func::FuncOp func;
  const RematProblemWithOrigins &problem;
  OpBuilder builder;
  /// Latest copy of every original op result.
  llvm::DenseMap<Value, Value> latest;
  /// The copy of a view op made for a given copy of its operand.
  llvm::DenseMap<std::pair<Operation *, Value>, Value> viewCopies;
  /// The ops of the body before the rewrite, and those already cloned.
  SmallVector<Operation *> oldOps;
  llvm::DenseSet<Operation *> computed;
};

} // namespace

Value ScheduleMaterializer::current(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return value;
  auto costOp = dyn_cast<CostOpInterface>(def);
  if (costOp && costOp.isView()) {
    Value base = current(def->getOperand(0));
    auto key = std::make_pair(def, base);
    auto it = viewCopies.find(key);
    if (it != viewCopies.end())
      return it->second;
    IRMapping mapping;
    mapping.map(def->getOperand(0), base);
    Operation *copy = builder.clone(*def, mapping);
    Value result = copy->getResult(cast<OpResult>(value).getResultNumber());
    viewCopies[key] = result;
    return result;
  }
  return latest.lookup(value);
}

void ScheduleMaterializer::start() {
  Block &body = func.getBody().front();
  Operation *terminator = body.getTerminator();
  for (Operation &op : body.without_terminator())
    oldOps.push_back(&op);
  builder.setInsertionPoint(terminator);
}

void ScheduleMaterializer::finish() {
  Operation *terminator = func.getBody().front().getTerminator();
  for (OpOperand &operand : terminator->getOpOperands())
    operand.set(current(operand.get()));
  for (Operation *op : llvm::reverse(oldOps))
    op->erase();
}

bool ScheduleMaterializer::compute(int32_t id) {
  Operation *op = problem.origins[id].op;
  IRMapping mapping;
  for (Value operand : op->getOperands())
    mapping.map(operand, current(operand));
  Operation *copy = builder.clone(*op, mapping);
  bool recomputation = !computed.insert(op).second;
  if (recomputation)
    copy->setAttr(CkptDialect::getRecomputeAttrName(),
                  UnitAttr::get(func.getContext()));
  for (auto [from, to] : llvm::zip(op->getResults(), copy->getResults()))
    latest[from] = to;
  return recomputation;
}

int64_t ScheduleMaterializer::run(const remat::Schedule &schedule) {
  start();
  int64_t recomputed = 0;
  for (int32_t id : schedule.order) {
    if (problem.problem.nodes[id].primary >= 0)
      continue; // Produced by the copy of its primary just made.
    recomputed += compute(id) ? 1 : 0;
  }
  finish();
  return recomputed;
}

MaterializedOffload
ScheduleMaterializer::run(const remat::OffloadSchedule &schedule,
                          const remat::OffloadEvaluation &evaluation) {
  start();
  MaterializedOffload result;
  // The waits due after each step, in schedule order of their offloads.
  std::vector<SmallVector<std::pair<Value, Value>>> waitsAfter(
      schedule.steps.size());
  llvm::DenseMap<int32_t, Value> hostOf;
  for (auto [index, step] : llvm::enumerate(schedule.steps)) {
    const NodeOrigin &origin = problem.origins[step.node];
    Value original = origin.op->getResult(origin.resultIndex);
    // A copy has the phase of the value it copies, as a recomputation has
    // that of its op: views of the value keep theirs.
    Phase phase = getOpPhase(origin.op).value_or(Phase::Forward);
    switch (step.kind) {
    case remat::StepKind::Compute:
      if (problem.problem.nodes[step.node].primary >= 0)
        break; // Produced by the copy of its primary just made.
      result.recomputedOps += compute(step.node) ? 1 : 0;
      break;
    case remat::StepKind::Offload: {
      Value source = current(original);
      auto offload =
          builder.create<OffloadOp>(origin.op->getLoc(), phase, source);
      hostOf[step.node] = offload.getResult();
      int64_t after = evaluation.copyHeldThrough[index];
      waitsAfter[after].push_back({source, offload.getResult()});
      ++result.offloads;
      break;
    }
    case remat::StepKind::Prefetch: {
      auto prefetch = builder.create<PrefetchOp>(origin.op->getLoc(), phase,
                                                 hostOf.lookup(step.node));
      latest[original] = prefetch.getResult();
      ++result.prefetches;
      break;
    }
    }
    for (auto [source, host] : waitsAfter[index])
      builder.create<OffloadWaitOp>(source.getLoc(),
                                    host.getDefiningOp<OffloadOp>().getPhase(),
                                    source, host);
  }
  finish();
  return result;
}

int64_t mlir::ckpt::materializeSchedule(func::FuncOp func,
                                        const RematProblemWithOrigins &problem,
                                        const remat::Schedule &schedule) {
  return ScheduleMaterializer(func, problem).run(schedule);
}

MaterializedOffload mlir::ckpt::materializeOffloadSchedule(
    func::FuncOp func, const RematProblemWithOrigins &problem,
    const remat::OffloadSchedule &schedule,
    const remat::OffloadEvaluation &evaluation) {
  return ScheduleMaterializer(func, problem).run(schedule, evaluation);
}
