//===- RematProblem.cpp - Reference semantics of rematerialization --------===//

#include "ckpt/Remat/RematProblem.h"

#include <algorithm>
#include <limits>

using namespace mlir::ckpt::remat;

std::optional<std::string> Problem::validate() const {
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node &node = nodes[i];
    if (node.bytes < 0 || node.workspace < 0 || !(node.cost >= 0))
      return "node " + std::to_string(i) + " (" + node.name +
             "): negative cost, size or workspace";
    for (int32_t dep : node.deps)
      if (dep < 0 || static_cast<size_t>(dep) >= i)
        return "node " + std::to_string(i) + " (" + node.name +
               "): dependency " + std::to_string(dep) +
               " is not an earlier node";
    if (node.primary >= 0) {
      bool adjacent = node.primary < static_cast<int32_t>(i);
      for (size_t j = node.primary + 1; adjacent && j < i; ++j)
        adjacent = nodes[j].primary == node.primary;
      if (!adjacent || node.deps.size() != 1 ||
          node.deps.front() != node.primary ||
          nodes[node.primary].primary >= 0 ||
          node.recomputable != nodes[node.primary].recomputable)
        return "node " + std::to_string(i) + " (" + node.name +
               "): a projection must directly follow its primary (or its "
               "other projections), depend on it alone and share its "
               "recomputability";
    }
  }
  return std::nullopt;
}

double Problem::baseCost() const {
  double total = 0;
  for (const Node &node : nodes)
    total += node.cost;
  return total;
}

Schedule Schedule::identity(const Problem &problem) {
  Schedule schedule;
  schedule.order.resize(problem.nodes.size());
  for (size_t i = 0; i < problem.nodes.size(); ++i)
    schedule.order[i] = static_cast<int32_t>(i);
  return schedule;
}

Evaluation mlir::ckpt::remat::evaluateSchedule(
    const Problem &problem, const Schedule &schedule,
    const EvaluationOptions &options) {
  Evaluation eval;
  const size_t n = problem.nodes.size();
  const std::vector<int32_t> &order = schedule.order;
  auto fail = [&](size_t step, const std::string &why) {
    eval.error = "step " + std::to_string(step) + ": " + why;
    return eval;
  };

  // Bind every read to the latest computation of the node read.
  std::vector<int64_t> latest(n, -1);
  std::vector<int64_t> lastRead(order.size(), -1);
  int32_t nextFirst = 0;
  size_t firsts = 0;
  for (size_t step = 0; step < order.size(); ++step) {
    int32_t id = order[step];
    if (id < 0 || static_cast<size_t>(id) >= n)
      return fail(step, "node " + std::to_string(id) + " does not exist");
    const Node &node = problem.nodes[id];
    if (latest[id] < 0 && options.anyFirstOrder) {
      ++firsts;
    } else if (latest[id] < 0) {
      if (id != nextFirst)
        return fail(step, "first computation of node " + std::to_string(id) +
                              " (" + node.name + ") out of order; node " +
                              std::to_string(nextFirst) + " comes first");
      ++nextFirst;
    } else {
      if (!node.recomputable)
        return fail(step, "node " + std::to_string(id) + " (" + node.name +
                              ") is not recomputable");
      ++eval.recomputations;
    }
    if (node.primary >= 0) {
      // A projection is produced by the computation just before it.
      int32_t prev = step > 0 ? order[step - 1] : -1;
      if (prev != node.primary &&
          (prev < 0 || problem.nodes[prev].primary != node.primary))
        return fail(step, "projection " + std::to_string(id) + " (" +
                              node.name +
                              ") does not follow a computation of its "
                              "primary");
    }
    for (int32_t dep : node.deps) {
      if (latest[dep] < 0)
        return fail(step, "node " + std::to_string(id) + " (" + node.name +
                              ") reads node " + std::to_string(dep) +
                              ", which has not been computed");
      lastRead[latest[dep]] = static_cast<int64_t>(step);
    }
    latest[id] = static_cast<int64_t>(step);
    eval.totalCost += node.cost;
  }
  if (options.anyFirstOrder && firsts != n)
    nextFirst = static_cast<int32_t>(
        std::find(latest.begin(), latest.end(), -1) - latest.begin());
  if (options.anyFirstOrder ? firsts != n : static_cast<size_t>(nextFirst) != n)
    return fail(order.size(), "node " + std::to_string(nextFirst) + " (" +
                                  problem.nodes[nextFirst].name +
                                  ") is never computed");

  // Lifetimes: [step, lastRead]; outputs' latest computations to the end.
  const int64_t end = static_cast<int64_t>(order.size());
  for (size_t id = 0; id < n; ++id)
    if (problem.nodes[id].isOutput)
      lastRead[latest[id]] = end;
  std::vector<int64_t> freed(order.size() + 1, 0);
  int64_t live = problem.fixedBytes;
  eval.peakBytes = problem.fixedBytes;
  eval.liveBytes.reserve(order.size());
  for (size_t step = 0; step < order.size(); ++step) {
    const Node &node = problem.nodes[order[step]];
    live += node.bytes;
    int64_t until = std::max<int64_t>(lastRead[step], step);
    lastRead[step] = until;
    if (until < end)
      freed[until] += node.bytes;
    int64_t during = live + node.workspace;
    eval.liveBytes.push_back(during);
    if (during > eval.peakBytes) {
      eval.peakBytes = during;
      eval.peakStep = static_cast<int64_t>(step);
    }
    live -= freed[step];
  }
  eval.recomputeCost = eval.totalCost - problem.baseCost();
  eval.lastRead = std::move(lastRead);
  return eval;
}

MemoryFloor mlir::ckpt::remat::computeMemoryFloor(const Problem &problem) {
  MemoryFloor floor;
  floor.bytes = problem.fixedBytes;
  int64_t finishedOutputs = 0;
  for (size_t i = 0; i < problem.nodes.size(); ++i) {
    const Node &node = problem.nodes[i];
    int64_t need =
        problem.fixedBytes + finishedOutputs + node.bytes + node.workspace;
    for (int32_t dep : node.deps)
      if (!(problem.nodes[dep].isOutput && !problem.nodes[dep].recomputable))
        need += problem.nodes[dep].bytes; // Finished outputs already counted.
    if (need > floor.bytes) {
      floor.bytes = need;
      floor.node = static_cast<int32_t>(i);
    }
    if (node.isOutput && !node.recomputable)
      finishedOutputs += node.bytes;
  }
  return floor;
}
