//===- BoundData.cpp - What the cost bounds read of a problem -------------===//

#include "BoundData.h"

#include "ProblemShape.h"

#include <algorithm>

using namespace mlir::ckpt::remat;

detail::BoundData detail::buildBoundData(const Problem &problem,
                                         int64_t budget) {
  const std::vector<Node> &nodes = problem.nodes;
  const int32_t n = static_cast<int32_t>(nodes.size());
  BoundData data;
  data.deps = uniqueDeps(problem);
  data.readers.assign(n, {});
  data.last.assign(n, -1);
  std::vector<int32_t> group(n);
  std::vector<double> groupCost(n, 0), groupBytes(n, 0);
  for (int32_t i = 0; i < n; ++i) {
    group[i] = nodes[i].primary >= 0 ? nodes[i].primary : i;
    groupCost[group[i]] += nodes[i].cost;
    groupBytes[group[i]] += double(nodes[i].bytes);
    for (int32_t dep : data.deps[i]) {
      data.last[dep] = std::max(data.last[dep], i);
      data.readers[dep].push_back(i);
    }
  }
  data.share.assign(n, 0);
  for (int32_t i = 0; i < n; ++i) {
    double groupBytesOf = groupBytes[group[i]];
    data.share[i] = groupBytesOf > 0 ? groupCost[group[i]] *
                                           double(nodes[i].bytes) / groupBytesOf
                                     : 0;
    if (nodes[i].isOutput)
      data.last[i] = n;
  }

  // Bytes alive across each point (computed before it, read after it), by
  // difference arrays.
  std::vector<int64_t> rec(n + 1, 0), nonRec(n + 1, 0);
  for (int32_t v = 0; v < n; ++v) {
    if (data.last[v] <= v + 1)
      continue;
    std::vector<int64_t> &diff = nodes[v].recomputable ? rec : nonRec;
    diff[v + 1] += nodes[v].bytes;
    diff[data.last[v]] -= nodes[v].bytes;
  }
  data.excess.assign(n, 0);
  int64_t recAlive = 0, nonRecAlive = 0;
  for (int32_t x = 0; x < n; ++x) {
    recAlive += rec[x];
    nonRecAlive += nonRec[x];
    // Everything alive is counted once; the inputs of x read for the last
    // time here are in memory too.
    int64_t need = problem.fixedBytes + nodes[x].bytes + nodes[x].workspace +
                   recAlive + nonRecAlive;
    for (int32_t dep : data.deps[x])
      if (data.last[dep] == x)
        need += nodes[dep].bytes;
    // What every schedule holds at x (the knapsack bound's floor).
    int64_t floor = need - recAlive;
    for (int32_t dep : data.deps[x])
      if (data.last[dep] > x && nodes[dep].recomputable)
        floor += nodes[dep].bytes;
    if (floor > budget)
      data.overFloor = true;
    data.excess[x] = double(need - budget);
  }
  return data;
}
