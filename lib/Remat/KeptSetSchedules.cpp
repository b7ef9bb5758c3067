//===- KeptSetSchedules.cpp - Schedules from keep/drop decisions ----------===//

#include "ckpt/Remat/KeptSetSchedules.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir::ckpt::remat;

namespace {

/// Walks the schedule that recomputes dropped nodes on demand, calling
/// `emit` with each step's node; reusable, so that searches evaluating many
/// drop sets allocate once.
class DropScheduler {
public:
  explicit DropScheduler(const Problem &problem)
      : problem(problem), droppable(problem.nodes.size()),
        groupEnd(problem.nodes.size()) {
    // A primary's group: it and the projections right after it.
    for (size_t i = problem.nodes.size(); i-- > 0;) {
      const Node &node = problem.nodes[i];
      droppable[i] = node.recomputable && !node.isOutput;
      groupEnd[i] =
          i + 1 < problem.nodes.size() &&
                  problem.nodes[i + 1].primary == static_cast<int32_t>(i)
              ? groupEnd[i + 1]
              : static_cast<int32_t>(i + 1);
      // groupEnd of a projection is its primary group's end too.
      if (i + 1 < problem.nodes.size() && node.primary >= 0 &&
          problem.nodes[i + 1].primary == node.primary)
        groupEnd[i] = groupEnd[i + 1];
    }
  }

  /// Calls `emit(node)` for every step of the schedule dropping `drop`.
  template <typename Emit>
  void run(const std::vector<bool> &drop, Emit &&emit) {
    recomputed.assign(problem.nodes.size(), 0);
    for (size_t id = 0; id < problem.nodes.size(); ++id) {
      const Node &node = problem.nodes[id];
      if (!node.recomputable)
        for (int32_t dep : node.deps)
          ensureReadable(drop, dep, emit);
      emit(static_cast<int32_t>(id));
    }
  }

private:
  /// Makes node `id` readable by the backward pass.
  template <typename Emit>
  void ensureReadable(const std::vector<bool> &drop, int32_t id, Emit &emit) {
    if (!drop[id] || !droppable[id] || recomputed[id])
      return;
    int32_t primary =
        problem.nodes[id].primary >= 0 ? problem.nodes[id].primary : id;
    for (int32_t dep : problem.nodes[primary].deps)
      ensureReadable(drop, dep, emit);
    // The op produces all its results: recompute the primary and every
    // projection of it.
    for (int32_t j = primary; j < groupEnd[primary]; ++j) {
      emit(j);
      recomputed[j] = 1;
    }
  }

  const Problem &problem;
  /// Whether a drop decision applies: recomputable and not an output.
  std::vector<uint8_t> droppable;
  /// One past the last projection of each primary (itself + 1 for others).
  std::vector<int32_t> groupEnd;
  std::vector<uint8_t> recomputed;
};

} // namespace

Schedule
mlir::ckpt::remat::scheduleDroppingNodes(const Problem &problem,
                                         const std::vector<bool> &drop) {
  Schedule schedule;
  DropScheduler(problem).run(drop,
                             [&](int32_t id) { schedule.order.push_back(id); });
  return schedule;
}

/// The drop schedules of a valid problem are valid by construction, so only
/// their lifetimes are computed, into buffers reused between calls, and the
/// walk stops at the first step over the budget.
struct DropSetEvaluator::Fast {
  explicit Fast(const Problem &problem)
      : problem(problem), scheduler(problem) {}

  double costIfWithin(const std::vector<bool> &drop, int64_t budget) {
    const size_t n = problem.nodes.size();
    order.clear();
    lastRead.clear();
    latest.assign(n, -1);
    double total = 0;
    // Bind every read to the latest computation of the node read.
    scheduler.run(drop, [&](int32_t id) {
      const Node &node = problem.nodes[id];
      const int64_t step = static_cast<int64_t>(order.size());
      for (int32_t dep : node.deps)
        lastRead[latest[dep]] = step;
      latest[id] = step;
      order.push_back(id);
      lastRead.push_back(-1);
      total += node.cost;
    });
    const int64_t end = static_cast<int64_t>(order.size());
    for (size_t id = 0; id < n; ++id)
      if (problem.nodes[id].isOutput)
        lastRead[latest[id]] = end;
    if (problem.fixedBytes > budget)
      return -1;
    freed.assign(order.size() + 1, 0);
    int64_t live = problem.fixedBytes;
    for (size_t step = 0; step < order.size(); ++step) {
      const Node &node = problem.nodes[order[step]];
      live += node.bytes;
      int64_t until = std::max<int64_t>(lastRead[step], step);
      if (until < end)
        freed[until] += node.bytes;
      if (live + node.workspace > budget)
        return -1;
      live -= freed[step];
    }
    return total;
  }

  const Problem &problem;
  DropScheduler scheduler;
  std::vector<int32_t> order;
  std::vector<int64_t> latest, lastRead, freed;
};

DropSetEvaluator::DropSetEvaluator(const Problem &problem) : problem(problem) {
  if (!problem.validate())
    fast = std::make_unique<Fast>(problem);
}

DropSetEvaluator::~DropSetEvaluator() = default;

double DropSetEvaluator::costIfWithin(const std::vector<bool> &drop,
                                      int64_t budgetBytes) {
  if (drop.size() == problem.nodes.size() && fast)
    return fast->costIfWithin(drop, budgetBytes);
  Evaluation eval =
      evaluateSchedule(problem, scheduleDroppingNodes(problem, drop));
  return eval.valid() && eval.peakBytes <= budgetBytes ? eval.totalCost : -1;
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
      : problem(problem), budget(budget), evaluator(problem) {}

  /// Evaluates `drop`; returns its cost if it fits, else -1.
  double costIfFits(const std::vector<bool> &drop) {
    ++evaluations;
    return evaluator.costIfWithin(drop, budget);
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
  DropSetEvaluator evaluator;
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
