//===- DeadInputBound.cpp - Knapsack bound with recomputations' inputs ----===//
//
// See DeadInputBound.h for the bound and why every multiplier gives a
// valid one.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/DeadInputBound.h"

#include "BoundData.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace mlir::ckpt::remat;

namespace {

/// One value crossing the point: its bytes and cost share, and its dead
/// inputs as (cost share / k, bytes / k, recomputable).
struct CrossingItem {
  double bytes, cost;
  size_t firstInput, endInput;
};
struct DeadInput {
  double cost, bytes;
  bool recomputable;
};

/// L_x(lambda) of DeadInputBound.h.
double valueAt(double lambda, double excess,
               const std::vector<CrossingItem> &items,
               const std::vector<DeadInput> &inputs) {
  double value = lambda * excess;
  for (const CrossingItem &item : items) {
    double term = item.cost - lambda * item.bytes;
    for (size_t i = item.firstInput; i < item.endInput; ++i) {
      const DeadInput &u = inputs[i];
      term += u.recomputable ? std::min(u.cost, lambda * u.bytes)
                             : lambda * u.bytes;
    }
    value += std::min(0.0, term);
  }
  return value;
}

} // namespace

DeadInputBound mlir::ckpt::remat::computeDeadInputBound(
    const Problem &problem, int64_t budgetBytes, int32_t maxPoints,
    int64_t maxWork) {
  DeadInputBound result;
  if (problem.validate())
    return result;
  const std::vector<Node> &nodes = problem.nodes;
  const int32_t n = static_cast<int32_t>(nodes.size());
  detail::BoundData data = detail::buildBoundData(problem, budgetBytes);
  if (data.overFloor)
    return result;
  // The points over the budget, largest need first (ties: program order).
  std::vector<int32_t> points;
  for (int32_t x = 0; x < n; ++x)
    if (data.excess[x] > 0)
      points.push_back(x);
  std::stable_sort(points.begin(), points.end(), [&](int32_t a, int32_t b) {
    return data.excess[a] > data.excess[b];
  });
  if (points.size() > static_cast<size_t>(maxPoints))
    points.resize(maxPoints);

  const int32_t kSteps = 60;
  int64_t work = 0;
  std::vector<int32_t> readsAt(n, 0); // k_u at the current point
  std::vector<CrossingItem> items;
  std::vector<DeadInput> inputs;
  for (int32_t x : points) {
    // The values crossing x, and how many of them read each dead input.
    items.clear();
    inputs.clear();
    std::vector<int32_t> crossing;
    for (int32_t v = 0; v < x; ++v) {
      if (!nodes[v].recomputable || nodes[v].bytes <= 0 || data.last[v] <= x)
        continue;
      if (std::binary_search(data.deps[x].begin(), data.deps[x].end(), v))
        continue; // an input of x: in memory
      crossing.push_back(v);
      for (int32_t u : data.deps[v])
        if (data.last[u] < x)
          ++readsAt[u];
    }
    int64_t size = n;
    for (int32_t v : crossing) {
      CrossingItem item{double(nodes[v].bytes), data.share[v], inputs.size(),
                        inputs.size()};
      for (int32_t u : data.deps[v])
        if (data.last[u] < x)
          inputs.push_back({data.share[u] / readsAt[u],
                            double(nodes[u].bytes) / readsAt[u],
                            nodes[u].recomputable});
      item.endInput = inputs.size();
      items.push_back(item);
    }
    for (int32_t v : crossing)
      for (int32_t u : data.deps[v])
        readsAt[u] = 0;
    size += int64_t(items.size() + inputs.size()) * kSteps;
    if (work + size > maxWork)
      break;
    work += size;
    // L_x is concave: golden-section search for its maximum on [0, high],
    // high past the largest cost per byte an item can have.
    double high = 0;
    for (const CrossingItem &item : items) {
      double cost = item.cost;
      for (size_t i = item.firstInput; i < item.endInput; ++i)
        cost += inputs[i].cost;
      high = std::max(high, 2 * cost / item.bytes);
    }
    if (high <= 0)
      continue;
    const double ratio = (std::sqrt(5.0) - 1) / 2;
    double lo = 0, hi = high;
    double a = hi - ratio * (hi - lo), b = lo + ratio * (hi - lo);
    double fa = valueAt(a, data.excess[x], items, inputs);
    double fb = valueAt(b, data.excess[x], items, inputs);
    double best = std::max(fa, fb);
    for (int32_t step = 0; step < kSteps; ++step) {
      if (fa < fb) {
        lo = a;
        a = b;
        fa = fb;
        b = lo + ratio * (hi - lo);
        fb = valueAt(b, data.excess[x], items, inputs);
      } else {
        hi = b;
        b = a;
        fb = fa;
        a = hi - ratio * (hi - lo);
        fa = valueAt(a, data.excess[x], items, inputs);
      }
      best = std::max({best, fa, fb});
    }
    // Sums of doubles: stay a hair under what was computed.
    best *= 1 - 1e-9;
    if (best > result.recomputeCost) {
      result.recomputeCost = best;
      result.node = x;
    }
  }
  return result;
}
