//===- LowerBound.cpp - Knapsack lower bound on recomputation cost -------===//

#include "ckpt/Remat/LowerBound.h"
#include "ckpt/Remat/DeadInputBound.h"
#include "ckpt/Remat/SegmentBound.h"

#include "ProblemShape.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <set>
#include <utility>
#include <vector>

using namespace mlir::ckpt::remat;

CostLowerBound mlir::ckpt::remat::computeCostLowerBound(const Problem &problem,
                                                        int64_t budgetBytes,
                                                        int64_t maxWork) {
  CostLowerBound result;
  result.totalCost = problem.baseCost();
  const std::vector<Node> &nodes = problem.nodes;
  const int32_t n = static_cast<int32_t>(nodes.size());
  if (problem.validate())
    return result;

  // Last reader of every value (n for outputs), the group of every node and
  // the cost of computing a group again.
  std::vector<int32_t> last(n, -1), group(n);
  std::vector<double> groupCost(n, 0);
  for (int32_t i = 0; i < n; ++i) {
    group[i] = nodes[i].primary >= 0 ? nodes[i].primary : i;
    groupCost[group[i]] += nodes[i].cost;
    for (int32_t dep : nodes[i].deps)
      last[dep] = std::max(last[dep], i);
  }
  for (int32_t i = 0; i < n; ++i)
    if (nodes[i].isOutput)
      last[i] = n;
  std::vector<std::vector<int32_t>> leaving(n + 1);
  for (int32_t v = 0; v < n; ++v)
    if (last[v] > v + 1)
      leaving[last[v]].push_back(v);

  // Recomputable values alive across x, by group, cheapest per byte first.
  std::vector<int64_t> groupBytes(n, 0);
  std::set<std::pair<double, int32_t>> items;
  int64_t itemBytes = 0, nonRecomputable = 0;
  auto keyOf = [&](int32_t g) {
    return std::make_pair(groupCost[g] / double(groupBytes[g]), g);
  };
  auto change = [&](int32_t v, int64_t sign) {
    if (!nodes[v].recomputable) {
      nonRecomputable += sign * nodes[v].bytes;
      return;
    }
    int32_t g = group[v];
    if (groupBytes[g] > 0)
      items.erase(keyOf(g));
    groupBytes[g] += sign * nodes[v].bytes;
    itemBytes += sign * nodes[v].bytes;
    if (groupBytes[g] > 0)
      items.insert(keyOf(g));
  };

  int64_t work = 0;
  double best = 0;
  std::vector<int32_t> deps;
  for (int32_t x = 0; x < n && work < maxWork; ++x) {
    for (int32_t v : leaving[x])
      change(v, -1);
    if (x > 0 && last[x - 1] > x)
      change(x - 1, +1);
    // The inputs of x are in memory: take them out of the items.
    deps = nodes[x].deps;
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    int64_t mandatory = problem.fixedBytes + nodes[x].bytes +
                        nodes[x].workspace + nonRecomputable;
    std::vector<int32_t> lifted;
    for (int32_t dep : deps) {
      bool alive = last[dep] > x; // in the items or nonRecomputable
      if (alive && !nodes[dep].recomputable)
        continue; // already in nonRecomputable
      mandatory += nodes[dep].bytes;
      if (alive) {
        change(dep, -1);
        lifted.push_back(dep);
      }
    }
    if (mandatory > result.memoryFloor) {
      result.memoryFloor = mandatory;
      result.floorNode = x;
    }
    int64_t need = mandatory + itemBytes - budgetBytes;
    if (need > 0 && best < std::numeric_limits<double>::infinity()) {
      double cost = 0;
      int64_t left = need;
      for (auto it = items.begin(); it != items.end() && left > 0; ++it) {
        ++work;
        int64_t bytes = groupBytes[it->second];
        int64_t take = std::min(bytes, left);
        cost += groupCost[it->second] * (double(take) / double(bytes));
        left -= take;
      }
      if (left > 0) {
        best = std::numeric_limits<double>::infinity();
        result.node = x;
      }
      if (left <= 0 && cost > best) {
        best = cost;
        result.node = x;
      }
    }
    for (int32_t dep : lifted)
      change(dep, +1);
  }
  result.totalCost += best;
  result.knapsackCost = result.totalCost;
  if (best == std::numeric_limits<double>::infinity())
    return result;
  SegmentBound segments =
      computeSegmentBound(problem, budgetBytes, 300, maxWork);
  double linked = problem.baseCost() + segments.recomputeCost;
  if (linked > result.totalCost) {
    result.totalCost = linked;
    result.from = CostLowerBound::Source::Segments;
  }
  DeadInputBound dead = computeDeadInputBound(problem, budgetBytes);
  double withInputs = problem.baseCost() + dead.recomputeCost;
  if (withInputs > result.totalCost) {
    result.totalCost = withInputs;
    result.from = CostLowerBound::Source::DeadInputs;
  }
  return result;
}

namespace {

/// The look-back search of `computeLookBackFloor` for one problem.
class LookBack {
public:
  explicit LookBack(const Problem &problem)
      : problem(problem), deps(detail::uniqueDeps(problem)) {}

  /// Bytes of a sorted set of nodes.
  int64_t bytesOf(const std::vector<int32_t> &set) const {
    int64_t sum = 0;
    for (int32_t v : set)
      sum += problem.nodes[v].bytes;
    return sum;
  }

  /// The smallest, over the member h of `set` computed last, of the larger
  /// of what is in memory while h is computed and the same looked back
  /// `depth - 1` more steps; `set` (sorted, unique) is in memory at some
  /// step, all computed earlier. Results <= `low` or >= `high` are only
  /// known to be so (alpha-beta style).
  int64_t lookBack(const std::vector<int32_t> &set, int32_t depth, int64_t low,
                   int64_t high) {
    if (set.empty() || depth <= 0)
      return problem.fixedBytes;
    const int64_t base = problem.fixedBytes + bytesOf(set);
    // What is in memory while each member is computed.
    std::vector<std::pair<int64_t, int32_t>> during;
    during.reserve(set.size());
    for (int32_t h : set) {
      int64_t extra = problem.nodes[h].workspace;
      for (int32_t d : deps[h])
        if (!std::binary_search(set.begin(), set.end(), d))
          extra += problem.nodes[d].bytes;
      work += 1 + static_cast<int64_t>(deps[h].size());
      during.push_back({base + extra, h});
    }
    std::sort(during.begin(), during.end());
    int64_t best = high;
    std::vector<int32_t> next;
    for (const auto &[value, h] : during) {
      if (value >= best)
        break; // Sorted: no later member does better.
      int64_t result = value;
      if (depth > 1) {
        next.clear();
        std::set_union(set.begin(), set.end(), deps[h].begin(), deps[h].end(),
                       std::back_inserter(next));
        next.erase(std::find(next.begin(), next.end(), h));
        result = std::max(
            value, lookBack(next, depth - 1, std::max(low, value), best));
      }
      best = std::min(best, result);
      if (best <= low)
        break;
    }
    return best;
  }

  const Problem &problem;
  std::vector<std::vector<int32_t>> deps;
  int64_t work = 0;
};

} // namespace

LookBackFloor mlir::ckpt::remat::computeLookBackFloor(const Problem &problem,
                                                      int32_t depth,
                                                      int64_t maxWork) {
  LookBackFloor floor;
  floor.bytes = problem.fixedBytes;
  if (problem.validate())
    return floor;
  LookBack search(problem);
  const int32_t n = static_cast<int32_t>(problem.nodes.size());
  // Nodes with the largest plain floor first, so the bound rises early and
  // prunes the rest.
  std::vector<std::pair<int64_t, int32_t>> plain;
  plain.reserve(n);
  for (int32_t x = 0; x < n; ++x) {
    const Node &node = problem.nodes[x];
    plain.push_back({problem.fixedBytes + search.bytesOf(search.deps[x]) +
                         node.bytes + node.workspace,
                     x});
  }
  std::sort(plain.begin(), plain.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (const auto &[own, x] : plain) {
    if (own > floor.bytes) {
      floor.bytes = own;
      floor.node = x;
    }
    if (depth <= 0)
      continue;
    if (search.work > maxWork) {
      floor.capped = true;
      break;
    }
    // x's inputs are in memory while x is computed, all computed earlier.
    int64_t back = search.lookBack(search.deps[x], depth, floor.bytes,
                                   std::numeric_limits<int64_t>::max());
    if (back > floor.bytes) {
      floor.bytes = back;
      floor.node = x;
    }
  }
  return floor;
}

ProvenFloor mlir::ckpt::remat::computeProvenFloor(const Problem &problem) {
  MemoryFloor plain = computeMemoryFloor(problem);
  ProvenFloor floor{plain.bytes, plain.node, false};
  CostLowerBound bound = computeCostLowerBound(problem, 0);
  if (bound.memoryFloor > floor.bytes) {
    floor.bytes = bound.memoryFloor;
    floor.node = bound.floorNode;
  }
  LookBackFloor lookBack = computeLookBackFloor(problem);
  floor.lookedBack = lookBack.bytes > floor.bytes;
  if (floor.lookedBack) {
    floor.bytes = lookBack.bytes;
    floor.node = lookBack.node;
  }
  return floor;
}
