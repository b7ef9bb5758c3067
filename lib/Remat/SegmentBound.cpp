//===- SegmentBound.cpp - Lagrangian bound over read segments -------------===//
//
// See SegmentBound.h for the relaxation and why every multiplier vector
// gives a valid bound.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/SegmentBound.h"

#include "BoundData.h"

#include <algorithm>
#include <vector>

using namespace mlir::ckpt::remat;

namespace {

/// The points x in [lo, hi] of one value's segment, the value's bytes and
/// its share of its group's cost.
struct ReadSegment {
  int32_t lo, hi;
  double bytes, cost;
};

/// The relaxation: need_x - budget per point, and the segments.
struct SegmentRelaxation {
  std::vector<double> excess;
  std::vector<ReadSegment> segments;
  bool overFloor = false;
};

/// Builds the relaxation. A group (an op and its projections) is computed
/// as one; its cost is split between its values in proportion to their
/// bytes: a schedule that recomputes the group k times pays k times the
/// whole cost, at least the sum over members of share times that member's
/// absent segments (each at most k).
SegmentRelaxation buildSegmentRelaxation(const Problem &problem,
                                         int64_t budget) {
  const std::vector<Node> &nodes = problem.nodes;
  const int32_t n = static_cast<int32_t>(nodes.size());
  detail::BoundData data = detail::buildBoundData(problem, budget);
  SegmentRelaxation relax;
  relax.excess = std::move(data.excess);
  relax.overFloor = data.overFloor;
  // Segments: between v and its first reader, consecutive readers, and the
  // last reader and the end for an output.
  for (int32_t v = 0; v < n; ++v) {
    const Node &node = nodes[v];
    // Every crossing value gets its segments, free ones (cost 0) too:
    // need_x counts it, so the relaxation must be able to leave it out.
    if (!node.recomputable || node.bytes <= 0 || data.last[v] <= v + 1)
      continue;
    double bytes = double(node.bytes), cost = data.share[v];
    int32_t from = v;
    auto add = [&](int32_t to) {
      if (to > from + 1)
        relax.segments.push_back({from + 1, to - 1, bytes, cost});
      from = to;
    };
    for (int32_t r : data.readers[v])
      add(r);
    if (node.isOutput)
      add(n);
  }
  return relax;
}

} // namespace

SegmentBound mlir::ckpt::remat::computeSegmentBound(const Problem &problem,
                                                    int64_t budgetBytes,
                                                    int32_t maxIterations,
                                                    int64_t maxWork) {
  SegmentBound result;
  if (problem.validate())
    return result;
  SegmentRelaxation relax = buildSegmentRelaxation(problem, budgetBytes);
  if (relax.overFloor)
    return result;
  const int32_t n = static_cast<int32_t>(problem.nodes.size());
  const int64_t size = int64_t(n) + int64_t(relax.segments.size()) + 1;

  std::vector<double> lambda(n, 0), prefix(n + 1, 0), grad(n), diff(n + 1);
  double best = 0;
  // The Polyak step aims `gap` above the best value so far; the gap halves
  // after `patience` iterations without a new best.
  double gap = -1;
  int32_t sinceBest = 0;
  const int32_t patience = 10;
  for (int32_t it = 0; it < maxIterations; ++it) {
    if ((it + 1) * size > maxWork) {
      result.capped = true;
      break;
    }
    ++result.iterations;
    // L(lambda) and a supergradient: the bytes present at each point (all
    // needed ones, less the values out for a whole segment) minus budget.
    for (int32_t x = 0; x < n; ++x)
      prefix[x + 1] = prefix[x] + lambda[x];
    std::fill(diff.begin(), diff.end(), 0.0);
    double value = 0;
    for (int32_t x = 0; x < n; ++x)
      value += lambda[x] * relax.excess[x];
    for (const ReadSegment &s : relax.segments) {
      double saved = s.bytes * (prefix[s.hi + 1] - prefix[s.lo]);
      if (saved > s.cost) {
        value += s.cost - saved;
        diff[s.lo] -= s.bytes;
        diff[s.hi + 1] += s.bytes;
      }
    }
    if (value > best) {
      best = value;
      sinceBest = 0;
    } else if (++sinceBest >= patience) {
      gap /= 2;
      sinceBest = 0;
    }
    double norm = 0, running = 0;
    for (int32_t x = 0; x < n; ++x) {
      running += diff[x];
      grad[x] = relax.excess[x] + running;
      // Projected: a zero multiplier with a negative slope stays zero.
      if (lambda[x] <= 0 && grad[x] < 0)
        grad[x] = 0;
      norm += grad[x] * grad[x];
    }
    if (norm <= 0)
      break; // lambda is optimal
    if (gap < 0) {
      // First step: aim at the cost of leaving out, at the most loaded
      // point, its whole excess at the average cost per byte.
      double totalCost = 0, totalBytes = 0;
      for (const ReadSegment &s : relax.segments) {
        totalCost += s.cost;
        totalBytes += s.bytes;
      }
      double peakExcess =
          *std::max_element(relax.excess.begin(), relax.excess.end());
      if (totalBytes <= 0 || peakExcess <= 0)
        break; // nothing to leave out, or everything fits
      gap = peakExcess * totalCost / totalBytes;
    }
    double step = (std::max(best, value) + gap - value) / norm;
    for (int32_t x = 0; x < n; ++x)
      lambda[x] = std::max(0.0, lambda[x] + step * grad[x]);
  }
  // Sums of doubles: stay a hair under what was computed.
  result.recomputeCost = best * (1 - 1e-9);
  return result;
}
