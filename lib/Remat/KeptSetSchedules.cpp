//===- KeptSetSchedules.cpp - Schedules from keep/drop decisions ----------===//

#include "ckpt/Remat/KeptSetSchedules.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir::ckpt::remat;

namespace {

/// Builds a schedule that recomputes dropped nodes on demand.
class DropScheduler {
public:
  DropScheduler(const Problem &problem, const std::vector<bool> &drop)
      : problem(problem), drop(drop), recomputed(problem.nodes.size(), false) {}

  Schedule run() {
    for (size_t id = 0; id < problem.nodes.size(); ++id) {
      const Node &node = problem.nodes[id];
      if (!node.recomputable)
        for (int32_t dep : node.deps)
          ensureReadable(dep);
      schedule.order.push_back(static_cast<int32_t>(id));
    }
    return std::move(schedule);
  }

private:
  bool isDropped(int32_t id) const {
    const Node &node = problem.nodes[id];
    return drop[id] && node.recomputable && !node.isOutput;
  }

  /// Makes node `id` readable by the backward pass.
  void ensureReadable(int32_t id) {
    int32_t primary =
        problem.nodes[id].primary >= 0 ? problem.nodes[id].primary : id;
    if (!isDropped(id) || recomputed[id])
      return;
    for (int32_t dep : problem.nodes[primary].deps)
      ensureReadable(dep);
    // The op produces all its results: recompute the primary and every
    // projection of it.
    for (size_t j = primary; j < problem.nodes.size(); ++j) {
      if (j != static_cast<size_t>(primary) &&
          problem.nodes[j].primary != primary)
        break;
      schedule.order.push_back(static_cast<int32_t>(j));
      recomputed[j] = true;
    }
  }

  const Problem &problem;
  const std::vector<bool> &drop;
  std::vector<bool> recomputed;
  Schedule schedule;
};

} // namespace

Schedule
mlir::ckpt::remat::scheduleDroppingNodes(const Problem &problem,
                                         const std::vector<bool> &drop) {
  return DropScheduler(problem, drop).run();
}

std::vector<bool>
mlir::ckpt::remat::dropInsideBlocks(const Problem &problem,
                                    const std::vector<int32_t> &blockOf) {
  const size_t n = problem.nodes.size();
  std::vector<bool> drop(n, false);
  for (size_t i = 0; i < n; ++i)
    drop[i] = blockOf[i] >= 0 && problem.nodes[i].recomputable;
  // Keep what a recomputable node of another block (or of none) reads.
  for (size_t j = 0; j < n; ++j) {
    const Node &reader = problem.nodes[j];
    if (!reader.recomputable || reader.primary >= 0)
      continue;
    for (int32_t dep : reader.deps)
      if (blockOf[dep] != blockOf[j])
        drop[dep] = false;
  }
  return drop;
}

std::vector<int32_t> mlir::ckpt::remat::groupBlocksIntoSqrtSegments(
    const std::vector<int32_t> &blockOf) {
  // Number the distinct blocks in order of first appearance.
  std::map<int32_t, int32_t> rank;
  for (int32_t block : blockOf)
    if (block >= 0 && !rank.count(block))
      rank.emplace(block, static_cast<int32_t>(rank.size()));
  int32_t size = std::max<int32_t>(
      1, static_cast<int32_t>(std::ceil(std::sqrt(double(rank.size())))));
  std::vector<int32_t> segment(blockOf.size(), -1);
  for (size_t i = 0; i < blockOf.size(); ++i)
    if (blockOf[i] >= 0)
      segment[i] = rank[blockOf[i]] / size;
  return segment;
}

/// Returns the recomputable, non-output nodes read by non-recomputable ones.
static std::vector<int32_t> findDropCandidates(const Problem &problem) {
  std::vector<bool> readLate(problem.nodes.size(), false);
  for (const Node &node : problem.nodes)
    if (!node.recomputable)
      for (int32_t dep : node.deps)
        readLate[dep] = true;
  std::vector<int32_t> candidates;
  for (size_t i = 0; i < problem.nodes.size(); ++i)
    if (readLate[i] && problem.nodes[i].recomputable &&
        !problem.nodes[i].isOutput)
      candidates.push_back(static_cast<int32_t>(i));
  return candidates;
}

namespace {

/// The greedy search over drop sets.
class GreedySearch {
public:
  GreedySearch(const Problem &problem, int64_t budget)
      : problem(problem), budget(budget) {}

  /// Evaluates `drop`; returns its cost if it fits, else -1.
  double costIfFits(const std::vector<bool> &drop) {
    ++evaluations;
    Evaluation eval =
        evaluateSchedule(problem, scheduleDroppingNodes(problem, drop));
    return eval.valid() && eval.peakBytes <= budget ? eval.totalCost : -1;
  }

  /// Cost of recomputing the op that produces node `id`.
  double producerCost(int32_t id) const {
    const Node &node = problem.nodes[id];
    return problem.nodes[node.primary >= 0 ? node.primary : id].cost;
  }

  /// Drops candidates in order of bytes per unit of cost until `drop` fits.
  /// Returns false if dropping all of them does not fit.
  bool dropByRatio(std::vector<int32_t> candidates, std::vector<bool> &drop) {
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](int32_t a, int32_t b) {
                       return double(problem.nodes[a].bytes) /
                                  std::max(producerCost(a), 1e-30) >
                              double(problem.nodes[b].bytes) /
                                  std::max(producerCost(b), 1e-30);
                     });
    size_t dropped = 0;
    bool fits = costIfFits(drop) >= 0;
    while (!fits && dropped < candidates.size()) {
      // Grow the dropped prefix geometrically.
      size_t next =
          std::min(candidates.size(), std::max<size_t>(1, dropped * 2));
      for (size_t i = dropped; i < next; ++i)
        drop[candidates[i]] = true;
      dropped = next;
      fits = costIfFits(drop) >= 0;
    }
    return fits;
  }

  /// Undoes drops of a fitting `drop`, most expensive first, while the peak
  /// still fits.
  void undoUnneededDrops(std::vector<bool> &drop) {
    std::vector<int32_t> dropped;
    for (size_t i = 0; i < drop.size(); ++i)
      if (drop[i])
        dropped.push_back(static_cast<int32_t>(i));
    std::stable_sort(dropped.begin(), dropped.end(), [&](int32_t a, int32_t b) {
      return producerCost(a) > producerCost(b);
    });
    for (int32_t id : dropped) {
      drop[id] = false;
      if (costIfFits(drop) < 0)
        drop[id] = true;
    }
  }

  const Problem &problem;
  int64_t budget;
  int64_t evaluations = 0;
};

} // namespace

GreedyResult mlir::ckpt::remat::searchDropsGreedily(
    const Problem &problem, int64_t budgetBytes,
    const std::vector<std::vector<bool>> &seeds) {
  GreedySearch search(problem, budgetBytes);
  std::vector<std::vector<bool>> starts;
  std::vector<bool> byRatio(problem.nodes.size(), false);
  if (search.dropByRatio(findDropCandidates(problem), byRatio))
    starts.push_back(std::move(byRatio));
  for (const std::vector<bool> &seed : seeds)
    if (search.costIfFits(seed) >= 0)
      starts.push_back(seed);
  GreedyResult result;
  double best = -1;
  for (std::vector<bool> &start : starts) {
    search.undoUnneededDrops(start);
    double cost = search.costIfFits(start);
    if (cost >= 0 && (best < 0 || cost < best)) {
      best = cost;
      result.drop = start;
    }
  }
  result.evaluations = search.evaluations;
  return result;
}
