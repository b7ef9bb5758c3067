//===- PlanDecisions.cpp - A checkpoint plan as data for other tools ------===//

#include "ckpt/Dialect/Ckpt/Transforms/PlanDecisions.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

#include "llvm/Support/FormatVariadic.h"
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
  // Values are written as raw JSON text: building llvm::json::Values trips
  // GCC's -Wmaybe-uninitialized inside LLVM's JSON.h in the sanitizer
  // build.
  llvm::json::OStream json(os, /*IndentSize=*/1);
  auto integer = [&](llvm::StringRef key, int64_t value) {
    json.attributeBegin(key);
    json.rawValue(std::to_string(value));
    json.attributeEnd();
  };
  auto string = [&](llvm::StringRef key, llvm::StringRef value) {
    std::string quoted = "\"";
    for (char c : value) {
      if (c == '"' || c == '\\')
        (quoted += '\\') += c;
      else if (static_cast<unsigned char>(c) < 0x20)
        quoted += llvm::formatv("\\u{0:x-4}", static_cast<unsigned>(c)).str();
      else
        quoted += c;
    }
    json.attributeBegin(key);
    json.rawValue(quoted + "\"");
    json.attributeEnd();
  };
  auto boolean = [&](llvm::StringRef key, bool value) {
    json.attributeBegin(key);
    json.rawValue(value ? "true" : "false");
    json.attributeEnd();
  };
  json.object([&] {
    string("format", "ckpt-plan-decisions");
    integer("version", 1);
    string("function", name);
    string("strategy", figures.strategy);
    string("objective", figures.objective);
    string("budget_scope", stringifyBudgetScope(figures.scope));
    string("budget", figures.budgetText);
    integer("budget_bytes", figures.budgetBytes);
    integer("no_recompute_peak_bytes", figures.noRecomputePeakBytes);
    integer("peak_bytes", figures.peakBytes);
    json.attributeBegin("overhead");
    json.rawValue(llvm::formatv("{0:e9}", figures.overhead).str());
    json.attributeEnd();
    integer("recomputed_ops", figures.recomputedOps);
    integer("saved_bytes", decisions.savedBytes);
    // The engine's note has no timings: the same input and options give the
    // same file. Its words are joined by single spaces.
    std::string engine;
    llvm::SmallVector<llvm::StringRef> words;
    llvm::StringRef(figures.engineNote).split(words, ' ', -1, false);
    for (llvm::StringRef word : words)
      engine += (engine.empty() ? "" : " ") + word.str();
    string("engine", engine);
    json.attributeArray("nodes", [&] {
      for (const PlanDecisions::NodeDecision &node : decisions.nodes)
        json.object([&] {
          integer("bytes", node.bytes);
          boolean("forward", node.forward);
          boolean("saved", node.saved);
          integer("computations", node.computations);
        });
    });
    json.attributeArray("values", [&] {
      for (const PlanDecisions::ValueDecision &value : decisions.values)
        json.object([&] {
          integer("op", value.op);
          integer("result", value.result);
          integer("node", value.node);
        });
    });
  });
  os << "\n";
}
