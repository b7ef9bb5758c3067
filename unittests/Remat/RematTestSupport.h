//===- RematTestSupport.h - Shared helpers of the remat unit tests -*- C++ -*-//
//
// Readable dumps of problems and results for failure messages, the
// smallest peak of any schedule of a tiny problem by brute force, random
// single-sink DAGs like the random layered benchmark graphs, and the
// evaluation of schedules whose first computations come in any order.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_UNITTESTS_REMAT_REMATTESTSUPPORT_H
#define CKPT_UNITTESTS_REMAT_REMATTESTSUPPORT_H

#include "ckpt/Remat/ExactSolvers.h"
#include "ckpt/Remat/ReorderedSchedules.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace mlir::ckpt::remat::testing {

/// Appends a node named `n<index>` to `problem`; returns its index.
inline int32_t addNode(Problem &problem, double cost, int64_t bytes,
                       std::vector<int32_t> deps, bool recomputable = true) {
  Node node;
  node.name = "n" + std::to_string(problem.nodes.size());
  node.cost = cost;
  node.bytes = bytes;
  node.deps = std::move(deps);
  node.recomputable = recomputable;
  problem.nodes.push_back(std::move(node));
  return static_cast<int32_t>(problem.nodes.size()) - 1;
}

/// The peak of `problem` run in order without recomputation.
inline int64_t noRecomputePeak(const Problem &problem) {
  return evaluateSchedule(problem, Schedule::identity(problem)).peakBytes;
}

/// A random budget from the memory floor of `problem` (0%) to its
/// no-recompute peak (100%), in whole percent: one draw of `rng`.
inline int64_t randomBudgetAboveFloor(std::mt19937 &rng,
                                      const Problem &problem) {
  int64_t peak = noRecomputePeak(problem);
  MemoryFloor floor = computeMemoryFloor(problem);
  return floor.bytes + (peak - floor.bytes) * (rng() % 101) / 100;
}

/// The budget and every node of `problem`, one per line.
inline std::string describe(const Problem &problem, int64_t budget) {
  std::ostringstream os;
  os << "budget " << budget << ", fixed " << problem.fixedBytes << "\n";
  for (size_t i = 0; i < problem.nodes.size(); ++i) {
    const Node &node = problem.nodes[i];
    os << "  " << i << ": cost " << node.cost << " bytes " << node.bytes
       << " ws " << node.workspace << " deps {";
    for (int32_t dep : node.deps)
      os << " " << dep;
    os << " }" << (node.recomputable ? "" : " fixed")
       << (node.isOutput ? " output" : "");
    if (node.primary >= 0)
      os << " projection of " << node.primary;
    os << "\n";
  }
  return os.str();
}

/// The masks the shortest paths over (next first computation, live set)
/// below share: the outputs, each node's inputs, and the bytes of a set.
struct LiveSetSpace {
  explicit LiveSetSpace(const Problem &problem)
      : problem(problem), n(static_cast<int>(problem.nodes.size())),
        depMask(n, 0) {
    for (int v = 0; v < n; ++v) {
      if (problem.nodes[v].isOutput)
        outputs |= 1u << v;
      for (int32_t d : problem.nodes[v].deps)
        depMask[v] |= 1u << d;
    }
  }
  /// Fixed bytes plus the bytes of the nodes in `set`.
  int64_t bytesOf(uint32_t set) const {
    int64_t sum = problem.fixedBytes;
    for (int v = 0; v < n; ++v)
      if (set >> v & 1)
        sum += problem.nodes[v].bytes;
    return sum;
  }
  const Problem &problem;
  int n;
  uint32_t outputs = 0;
  std::vector<uint32_t> depMask;
};

/// The smallest peak of any valid schedule of a problem of at most 12
/// nodes, by a minimax shortest path over (next first computation, live
/// set): a step computes the next node for the first time or recomputes a
/// recomputable one, with its inputs live; any live value may be dropped at
/// any time; the outputs must be live at the end. Not limited to the stage
/// space of the exact engines.
inline int64_t smallestPeakOfAnySchedule(const Problem &problem) {
  LiveSetSpace space(problem);
  const int n = space.n;
  const uint32_t all = (1u << n) - 1;
  const uint32_t outputs = space.outputs;
  const std::vector<uint32_t> &depMask = space.depMask;
  auto bytesOf = [&](uint32_t set) { return space.bytesOf(set); };
  const int64_t unreached = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> best(static_cast<size_t>(n + 1) << n, unreached);
  using Entry = std::tuple<int64_t, int, uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  auto offer = [&](int64_t peak, int k, uint32_t live) {
    size_t index = (static_cast<size_t>(k) << n) | live;
    if (peak < best[index]) {
      best[index] = peak;
      queue.push({peak, k, live});
    }
  };
  offer(problem.fixedBytes, 0, 0);
  while (!queue.empty()) {
    auto [peak, k, live] = queue.top();
    queue.pop();
    if (peak != best[(static_cast<size_t>(k) << n) | live])
      continue;
    if (k == n && (live & outputs) == outputs)
      return peak;
    for (int v = 0; v < n; ++v)
      if (live >> v & 1)
        offer(peak, k, live & ~(1u << v)); // drop v
    for (int v = 0; v <= std::min(k, n - 1); ++v) {
      if (v < k && !problem.nodes[v].recomputable)
        continue;
      if ((depMask[v] & live) != depMask[v])
        continue;
      uint32_t after = (live | 1u << v) & all;
      int64_t during = bytesOf(after) + problem.nodes[v].workspace;
      offer(std::max(peak, during), v == k ? k + 1 : k, after);
    }
  }
  return unreached;
}

/// The smallest cost of any valid schedule of a problem of at most 12 nodes
/// without projections whose peak is within `budget`, by a shortest path
/// over the states of `smallestPeakOfAnySchedule` (a step must fit the
/// budget); +infinity if none fits. Not limited to the stage space.
inline double smallestCostOfAnySchedule(const Problem &problem,
                                        int64_t budget) {
  LiveSetSpace space(problem);
  const int n = space.n;
  const uint32_t outputs = space.outputs;
  const std::vector<uint32_t> &depMask = space.depMask;
  auto bytesOf = [&](uint32_t set) { return space.bytesOf(set); };
  const double unreached = std::numeric_limits<double>::infinity();
  std::vector<double> best(static_cast<size_t>(n + 1) << n, unreached);
  using Entry = std::tuple<double, int, uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  auto offer = [&](double cost, int k, uint32_t live) {
    size_t index = (static_cast<size_t>(k) << n) | live;
    if (cost < best[index]) {
      best[index] = cost;
      queue.push({cost, k, live});
    }
  };
  if (problem.fixedBytes <= budget)
    offer(0, 0, 0);
  while (!queue.empty()) {
    auto [cost, k, live] = queue.top();
    queue.pop();
    if (cost != best[(static_cast<size_t>(k) << n) | live])
      continue;
    if (k == n && (live & outputs) == outputs)
      return cost;
    for (int v = 0; v < n; ++v)
      if (live >> v & 1)
        offer(cost, k, live & ~(1u << v)); // drop v
    for (int v = 0; v <= std::min(k, n - 1); ++v) {
      if (live >> v & 1)
        continue; // a second copy helps nothing
      if (v < k && !problem.nodes[v].recomputable)
        continue;
      if ((depMask[v] & live) != depMask[v])
        continue;
      uint32_t after = live | 1u << v;
      if (bytesOf(after) + problem.nodes[v].workspace > budget)
        continue;
      offer(cost + problem.nodes[v].cost, v == k ? k + 1 : k, after);
    }
  }
  return unreached;
}

/// A random training DAG: forward nodes read one or two recent forward
/// values (skip connections); backward nodes read the previous gradient and
/// one or two forward values.
inline Problem randomTrainingDag(std::mt19937 &rng, int forward) {
  Problem problem;
  for (int i = 0; i < forward; ++i) {
    std::vector<int32_t> deps;
    if (i > 0)
      deps.push_back(i - 1);
    if (i > 2 && rng() % 3 == 0)
      deps.push_back(static_cast<int32_t>(rng() % (i - 1)));
    auto bytes = 1 + rng() % 16; // (one draw at a time, as above)
    auto cost = 1 + rng() % 5;
    addNode(problem, cost, bytes, deps);
  }
  int32_t grad = -1;
  for (int i = forward - 1; i >= 0; --i) {
    std::vector<int32_t> deps = {i};
    if (i > 0 && rng() % 2)
      deps.push_back(static_cast<int32_t>(rng() % i));
    if (grad >= 0)
      deps.push_back(grad);
    auto bytes = 1 + rng() % 16;
    auto cost = 1 + rng() % 5;
    grad = addNode(problem, cost, bytes, deps, false);
  }
  problem.nodes.back().isOutput = true;
  return problem;
}

/// Adds a last node of cost 1 and `bytes` that reads every node nobody reads
/// yet, and makes it the only output.
inline void addSinkOfUnreadNodes(Problem &problem, int64_t bytes) {
  const int n = static_cast<int>(problem.nodes.size());
  std::vector<bool> read(n, false);
  for (const Node &node : problem.nodes)
    for (int32_t dep : node.deps)
      read[dep] = true;
  std::vector<int32_t> sinks;
  for (int i = 0; i < n; ++i)
    if (!read[i])
      sinks.push_back(i);
  addNode(problem, 1, bytes, sinks);
  problem.nodes.back().isOutput = true;
}

/// A random DAG like the random layered graphs: every node recomputable,
/// reading one to three earlier nodes, some with workspace; one last node
/// reads every node nobody else reads and is the only output.
inline Problem randomSingleSinkDag(std::mt19937 &rng, int n) {
  Problem problem;
  problem.fixedBytes = rng() % 3 == 0 ? 1 + rng() % 8 : 0;
  for (int i = 0; i + 1 < n; ++i) {
    std::vector<int32_t> deps;
    int reads = i == 0 ? 0 : 1 + static_cast<int>(rng() % 3);
    for (int r = 0; r < reads; ++r) {
      int32_t dep = static_cast<int32_t>(rng() % i);
      if (std::find(deps.begin(), deps.end(), dep) == deps.end())
        deps.push_back(dep);
    }
    std::sort(deps.begin(), deps.end());
    // Drawn in separate statements, last argument first: the order in which
    // function arguments are evaluated is unspecified (gcc and clang differ),
    // and the random problems must not depend on the compiler.
    auto bytes = 1 + rng() % 16;
    double cost = 1 + static_cast<double>(rng() % 9);
    addNode(problem, cost, bytes, deps);
    if (rng() % 5 == 0)
      problem.nodes.back().workspace = 1 + rng() % 6;
  }
  addSinkOfUnreadNodes(problem, 1 + rng() % 4);
  return problem;
}

/// A random layered DAG shaped like the field's random layered graphs:
/// `layers` layers of two to `width` nodes, each reading one to three nodes
/// of the layer before and, now and then, one of an earlier layer; sizes
/// vary fifty-fold. One last node reads every node nobody else reads and is
/// the only output.
inline Problem randomLayeredDag(std::mt19937 &rng, int layers, int width) {
  Problem problem;
  addNode(problem, 1, 100 + rng() % 900, {});
  std::vector<std::vector<int32_t>> layerNodes = {{0}};
  for (int layer = 1; layer < layers; ++layer) {
    const std::vector<int32_t> &previous = layerNodes.back();
    std::vector<int32_t> current;
    const int count = 2 + static_cast<int>(rng() % (width - 1));
    for (int k = 0; k < count; ++k) {
      std::vector<int32_t> deps;
      const int reads = 1 + static_cast<int>(rng() % 3);
      for (int r = 0; r < reads; ++r)
        deps.push_back(previous[rng() % previous.size()]);
      if (layer > 1 && rng() % 4 == 0) {
        const std::vector<int32_t> &earlier = layerNodes[rng() % (layer - 1)];
        deps.push_back(earlier[rng() % earlier.size()]);
      }
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      current.push_back(static_cast<int32_t>(problem.nodes.size()));
      auto bytes = 100 + rng() % 5000; // (one draw at a time, as above)
      double cost = 1 + static_cast<double>(rng() % 9);
      addNode(problem, cost, bytes, deps);
    }
    layerNodes.push_back(std::move(current));
  }
  addSinkOfUnreadNodes(problem, 100 + rng() % 400);
  return problem;
}

/// A random budget between half the no-recompute peak of `problem` and all
/// of it.
inline int64_t randomBudgetBelowPeak(std::mt19937 &rng,
                                     const Problem &problem) {
  int64_t peak = noRecomputePeak(problem);
  return peak - static_cast<int64_t>(rng() % (peak / 2 + 1));
}

/// Evaluates `computations`, a schedule whose first computations may come
/// in any topological order, on `problem` renumbered in that order (as
/// `evaluateSchedule` wants them in the problem's).
inline Evaluation evaluateInItsOwnOrder(const Problem &problem,
                                 const std::vector<int32_t> &computations) {
  const size_t n = problem.nodes.size();
  std::vector<int32_t> order, renamed(n, -1);
  for (int32_t v : computations) {
    if (v < 0 || static_cast<size_t>(v) >= n) {
      Evaluation bad;
      bad.error = "node out of range";
      return bad;
    }
    if (renamed[v] < 0) {
      renamed[v] = static_cast<int32_t>(order.size());
      order.push_back(v);
    }
  }
  if (order.size() != n) {
    Evaluation bad;
    bad.error = "a node is never computed";
    return bad;
  }
  for (size_t v = 0; v < n; ++v)
    for (int32_t u : problem.nodes[v].deps)
      if (renamed[u] >= renamed[v]) {
        Evaluation bad;
        bad.error = "a node is first computed before its input";
        return bad;
      }
  Schedule schedule;
  for (int32_t v : computations)
    schedule.order.push_back(renamed[v]);
  return evaluateSchedule(renumberProblem(problem, order), schedule);
}

/// Status, cost, bound, peak and order of `result`.
inline std::string describe(const SolveResult &result) {
  std::ostringstream os;
  os << statusName(result.status) << " cost " << result.cost << " bound "
     << result.lowerBound << " peak " << result.peakBytes << " order [";
  for (int32_t id : result.schedule.order)
    os << " " << id;
  os << " ] (" << result.message << ")";
  return os.str();
}

} // namespace mlir::ckpt::remat::testing

#endif // CKPT_UNITTESTS_REMAT_REMATTESTSUPPORT_H
