//===- PlanDecisions.cpp - A checkpoint plan as data for other tools ------===//

#include "ckpt/Dialect/Ckpt/Transforms/PlanDecisions.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::ckpt;

PlanDecisions
mlir::ckpt::computePlanDecisions(func::FuncOp func,
                                 const RematProblemWithOrigins &problem,
                                 const remat::Schedule &schedule) {
  PlanDecisions result;
  const std::vector<remat::Node> &nodes = problem.problem.nodes;
  result.nodes.resize(nodes.size());
  for (auto [i, node] : llvm::enumerate(nodes)) {
    result.nodes[i].bytes = node.bytes;
    result.nodes[i].forward = node.recomputable;
  }

  // The backward pass starts at the first computation of a node that cannot
  // be recomputed; a forward value (not a step output) whose first
  // computation is read at or after it is saved.
  remat::Evaluation evaluation =
      remat::evaluateSchedule(problem.problem, schedule);
  int64_t backwardStart = static_cast<int64_t>(schedule.order.size());
  for (auto [step, id] : llvm::enumerate(schedule.order))
    if (!nodes[id].recomputable) {
      backwardStart = static_cast<int64_t>(step);
      break;
    }
  for (auto [step, id] : llvm::enumerate(schedule.order)) {
    PlanDecisions::NodeDecision &decision = result.nodes[id];
    if (decision.computations++ == 0 && evaluation.valid() &&
        decision.forward && !nodes[id].isOutput &&
        evaluation.lastRead[step] >= backwardStart &&
        static_cast<int64_t>(step) < backwardStart)
      decision.saved = true;
  }
  for (const PlanDecisions::NodeDecision &decision : result.nodes)
    if (decision.saved)
      result.savedBytes += decision.bytes;

  llvm::DenseMap<Value, int32_t> nodeOf;
  for (auto [i, origin] : llvm::enumerate(problem.origins))
    nodeOf[origin.op->getResult(origin.resultIndex)] = static_cast<int32_t>(i);
  int32_t opIndex = 0;
  for (Operation &op : func.getBody().front().without_terminator()) {
    for (OpResult res : op.getResults()) {
      auto it = nodeOf.find(getStorageRoot(res));
      result.values.push_back({opIndex,
                               static_cast<int32_t>(res.getResultNumber()),
                               it == nodeOf.end() ? -1 : it->second});
    }
    ++opIndex;
  }
  return result;
}

void mlir::ckpt::printPlanDecisionsJson(llvm::StringRef name,
                                        const PlanFigures &figures,
                                        const PlanDecisions &decisions,
                                        llvm::raw_ostream &os) {
  llvm::json::OStream json(os, /*IndentSize=*/1);
  json.object([&] {
    json.attribute("format", "ckpt-plan-decisions");
    json.attribute("version", 1);
    json.attribute("function", name);
    json.attribute("strategy", figures.strategy);
    json.attribute("objective", figures.objective);
    json.attribute("budget_scope", stringifyBudgetScope(figures.scope));
    json.attribute("budget", figures.budgetText);
    json.attribute("budget_bytes", figures.budgetBytes);
    json.attribute("no_recompute_peak_bytes", figures.noRecomputePeakBytes);
    json.attribute("peak_bytes", figures.peakBytes);
    json.attribute("overhead", figures.overhead);
    json.attribute("recomputed_ops", figures.recomputedOps);
    json.attribute("saved_bytes", decisions.savedBytes);
    // The engine's note without its timings: the same input and options
    // give the same file.
    std::string engine;
    llvm::SmallVector<llvm::StringRef> words;
    llvm::StringRef(figures.engineNote).split(words, ' ', -1, false);
    for (llvm::StringRef word : words) {
      if (word.starts_with("solve-seconds=") ||
          word.starts_with("engine-seconds="))
        continue;
      engine += (engine.empty() ? "" : " ") + word.str();
    }
    json.attribute("engine", engine);
    json.attributeArray("nodes", [&] {
      for (const PlanDecisions::NodeDecision &node : decisions.nodes)
        json.object([&] {
          json.attribute("bytes", node.bytes);
          json.attribute("forward", node.forward);
          json.attribute("saved", node.saved);
          json.attribute("computations", node.computations);
        });
    });
    json.attributeArray("values", [&] {
      for (const PlanDecisions::ValueDecision &value : decisions.values)
        json.object([&] {
          json.attribute("op", value.op);
          json.attribute("result", value.result);
          json.attribute("node", value.node);
        });
    });
  });
  os << "\n";
}
