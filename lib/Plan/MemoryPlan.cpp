//===- MemoryPlan.cpp - Static placement of buffers in one arena ----------===//
//
// The packer: in-place partners are merged into storage blocks, then blocks
// are placed one at a time in some order, each at the best-fitting (or the
// lowest) gap left by the already placed blocks it conflicts with in time.
// `Portfolio` tries several orders, improves the best ones by an iterated
// local search over orders and, for small instances, searches all orders
// exactly. The result is checked independently by checkPlan
// (PlanChecker.cpp).
//
//===----------------------------------------------------------------------===//

#include "ckpt/Plan/MemoryPlan.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <numeric>
#include <random>

using namespace mlir::ckpt::plan;

namespace {

/// A storage block: one buffer or a chain of in-place partners, which share
/// one offset.
struct StorageBlock {
  int64_t size = 0;
  int64_t start = 0;
  int64_t end = 0;
};

/// A placed block, kept in a vector sorted by offset.
struct Placed {
  int64_t offset;
  int64_t top; ///< offset + size
  int64_t start;
  int64_t end;
};

/// How a block picks its gap.
enum class Fit { Best, First };

/// Threshold accepting of the local search: a trial order may start out up
/// to this fraction of (best - lower bound) above the best arena.
constexpr double kSlack = 0.3;
constexpr int64_t kNoCutoff = std::numeric_limits<int64_t>::max();

} // namespace

const char *mlir::ckpt::plan::planAlgorithmName(PlanAlgorithm algorithm) {
  return algorithm == PlanAlgorithm::GreedyBySize ? "greedy-by-size"
                                                  : "portfolio";
}

std::optional<PlanAlgorithm>
mlir::ckpt::plan::parsePlanAlgorithm(std::string_view name) {
  for (PlanAlgorithm algorithm :
       {PlanAlgorithm::Portfolio, PlanAlgorithm::GreedyBySize})
    if (name == planAlgorithmName(algorithm))
      return algorithm;
  return std::nullopt;
}

int64_t mlir::ckpt::plan::alignUp(int64_t bytes, int64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

/// Merges in-place chains of a validated problem into blocks; `blockOf`
/// receives the block of every buffer.
static std::vector<StorageBlock> buildBlocks(const PlanProblem &problem,
                                             std::vector<size_t> &blockOf) {
  const size_t n = problem.buffers.size();
  // Follow each chain from its first buffer (one that takes over nobody's
  // storage) through the buffers taking over its storage.
  std::vector<int64_t> successor(n, -1);
  for (size_t i = 0; i < n; ++i)
    if (problem.buffers[i].inPlaceOf >= 0)
      successor[problem.buffers[i].inPlaceOf] = static_cast<int64_t>(i);
  blockOf.assign(n, 0);
  std::vector<StorageBlock> blocks;
  for (size_t i = 0; i < n; ++i) {
    if (problem.buffers[i].inPlaceOf >= 0)
      continue;
    StorageBlock block;
    block.size = alignUp(problem.buffers[i].size, problem.alignment);
    block.start = problem.buffers[i].start;
    block.end = problem.buffers[i].end;
    for (int64_t j = static_cast<int64_t>(i); j >= 0; j = successor[j]) {
      blockOf[j] = blocks.size();
      block.start = std::min(block.start, problem.buffers[j].start);
      block.end = std::max(block.end, problem.buffers[j].end);
    }
    blocks.push_back(block);
  }
  return blocks;
}

/// Peak of the bytes of `blocks` live at once.
static int64_t blocksLowerBound(const std::vector<StorageBlock> &blocks) {
  // (step, delta): frees at end + 1 sort before allocations at the same step.
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(2 * blocks.size());
  for (const StorageBlock &b : blocks) {
    events.push_back({b.start, b.size});
    events.push_back({b.end + 1, -b.size});
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0, peak = 0;
  for (const auto &[step, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

int64_t mlir::ckpt::plan::computeLowerBound(const PlanProblem &problem) {
  std::vector<size_t> blockOf;
  return blocksLowerBound(buildBlocks(problem, blockOf));
}

/// Places `blocks` in `order`, writing `offsets` (per block). Returns the
/// arena size, or any value >= `cutoff` as soon as the arena reaches it.
static int64_t packInOrder(const std::vector<StorageBlock> &blocks,
                           const std::vector<uint32_t> &order, Fit fit,
                           std::vector<int64_t> &offsets, int64_t cutoff,
                           int64_t &work) {
  std::vector<Placed> placed;
  placed.reserve(blocks.size());
  offsets.assign(blocks.size(), 0);
  int64_t arena = 0;
  for (uint32_t index : order) {
    const StorageBlock &b = blocks[index];
    if (b.size == 0)
      continue;
    // Walk the conflicting blocks bottom-up; `cursor` is the lowest offset
    // above all of them seen so far, so [cursor, p.offset) is a free gap.
    int64_t cursor = 0, chosen = -1;
    int64_t bestGap = std::numeric_limits<int64_t>::max();
    work += static_cast<int64_t>(placed.size()) + 1;
    for (const Placed &p : placed) {
      if (p.start > b.end || p.end < b.start)
        continue;
      int64_t gap = p.offset - cursor;
      if (gap >= b.size && gap < bestGap) {
        chosen = cursor;
        bestGap = gap;
        if (fit == Fit::First || gap == b.size)
          break;
      }
      cursor = std::max(cursor, p.top);
    }
    if (chosen < 0)
      chosen = cursor;
    offsets[index] = chosen;
    arena = std::max(arena, chosen + b.size);
    if (arena >= cutoff)
      return arena;
    Placed entry{chosen, chosen + b.size, b.start, b.end};
    auto at = std::upper_bound(
        placed.begin(), placed.end(), chosen,
        [](int64_t offset, const Placed &p) { return offset < p.offset; });
    placed.insert(at, entry);
  }
  return arena;
}

namespace {

/// Exact search over placement orders with lowest-gap placement: every
/// packing is reproduced by placing its blocks by increasing offset, each at
/// its lowest free offset (no block moves up), so trying all orders finds an
/// optimal packing. Branch and bound on the arena so far.
class ExactSearch {
public:
  ExactSearch(const std::vector<StorageBlock> &blocks, int64_t lowerBound,
              int64_t best, int64_t nodeLimit)
      : blocks(blocks), lowerBound(lowerBound), best(best),
        nodeLimit(nodeLimit), used(blocks.size(), false),
        current(blocks.size(), 0) {}

  /// Runs the search; returns true if it improved on the initial `best`.
  bool run() {
    bool improved = false;
    recurse(0, 0, improved);
    return improved;
  }

  /// True when the node limit cut the search short.
  bool truncated() const { return nodes > nodeLimit; }

  int64_t bestArena() const { return best; }
  const std::vector<int64_t> &bestOffsets() const { return bestPlacement; }

private:
  void recurse(size_t depth, int64_t top, bool &improved) {
    if (best <= lowerBound || ++nodes > nodeLimit)
      return;
    if (depth == blocks.size()) {
      best = top;
      bestPlacement = current;
      improved = true;
      return;
    }
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (used[i])
        continue;
      const StorageBlock &b = blocks[i];
      int64_t offset = lowestOffset(b);
      int64_t newTop = std::max(top, offset + b.size);
      if (newTop >= best)
        continue;
      used[i] = true;
      current[i] = offset;
      order.push_back(i);
      recurse(depth + 1, newTop, improved);
      order.pop_back();
      used[i] = false;
    }
  }

  /// Lowest offset where `b` fits among the placed blocks it conflicts with.
  int64_t lowestOffset(const StorageBlock &b) const {
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (size_t j : order) {
      const StorageBlock &p = blocks[j];
      if (p.size > 0 && p.start <= b.end && b.start <= p.end)
        taken.push_back({current[j], current[j] + p.size});
    }
    std::sort(taken.begin(), taken.end());
    int64_t cursor = 0;
    for (const auto &[lo, hi] : taken) {
      if (lo - cursor >= b.size)
        return cursor;
      cursor = std::max(cursor, hi);
    }
    return cursor;
  }

  const std::vector<StorageBlock> &blocks;
  int64_t lowerBound;
  int64_t best;
  int64_t nodeLimit;
  int64_t nodes = 0;
  std::vector<bool> used;
  std::vector<int64_t> current;
  std::vector<size_t> order;
  std::vector<int64_t> bestPlacement;
};

/// A named placement order.
struct Ordering {
  const char *name;
  std::vector<uint32_t> order;
};

} // namespace

/// A packing order tried by the portfolio: where the local search may start.
struct Start {
  int64_t arena;
  std::vector<uint32_t> order;
  Fit fit;
};

/// Starts of the local search (the best distinct arenas of the portfolio).
constexpr size_t kSearchStarts = 4;

/// Iterated local search on a placement order: each step either moves one
/// block that reaches above the lower bound to an earlier position (the
/// front half the time) or, one step in four, moves all of them to the
/// front in their order (squeaky wheel); the trial order is repacked and
/// kept if its arena is within a slack of the best that shrinks to zero
/// (threshold accepting). Improvements update `best`, `bestOffsets` and
/// `method`. Stops after `iterations`, at the lower bound or when `work`
/// reaches `workLimit`.
static void localSearch(const std::vector<StorageBlock> &blocks,
                        int64_t lowerBound, std::vector<uint32_t> current,
                        Fit fit, unsigned iterations, std::mt19937_64 &rng,
                        int64_t &work, int64_t workLimit, int64_t &best,
                        std::vector<int64_t> &bestOffsets,
                        std::string &method) {
  std::vector<int64_t> offsets, currentOffsets;
  int64_t currentArena =
      packInOrder(blocks, current, fit, currentOffsets, kNoCutoff, work);
  std::vector<uint32_t> trial, high;
  std::vector<uint32_t> position(blocks.size());
  std::vector<char> isHigh(blocks.size(), 0);
  for (unsigned it = 0;
       it < iterations && best > lowerBound && work < workLimit; ++it) {
    high.clear();
    for (uint32_t i = 0; i < blocks.size(); ++i)
      if (blocks[i].size > 0 && currentOffsets[i] + blocks[i].size > lowerBound)
        high.push_back(i);
    if (high.empty())
      break;
    if (rng() % 4 == 0) {
      std::fill(isHigh.begin(), isHigh.end(), 0);
      for (uint32_t h : high)
        isHigh[h] = 1;
      trial.clear();
      for (uint32_t b : current)
        if (isHigh[b])
          trial.push_back(b);
      for (uint32_t b : current)
        if (!isHigh[b])
          trial.push_back(b);
    } else {
      for (size_t p = 0; p < current.size(); ++p)
        position[current[p]] = static_cast<uint32_t>(p);
      size_t from = position[high[rng() % high.size()]];
      if (from == 0)
        continue;
      size_t to = rng() % 2 ? 0 : rng() % from;
      trial = current;
      std::rotate(trial.begin() + static_cast<std::ptrdiff_t>(to),
                  trial.begin() + static_cast<std::ptrdiff_t>(from),
                  trial.begin() + static_cast<std::ptrdiff_t>(from) + 1);
    }
    int64_t slack =
        static_cast<int64_t>(static_cast<double>(best - lowerBound) * kSlack *
                             (1.0 - static_cast<double>(it) / iterations));
    int64_t limit = std::max(currentArena, best + slack);
    int64_t arena = packInOrder(blocks, trial, fit, offsets, limit + 1, work);
    if (arena > limit)
      continue;
    current.swap(trial);
    currentOffsets.swap(offsets);
    currentArena = arena;
    if (arena < best) {
      best = arena;
      bestOffsets = currentOffsets;
      method = "local-search";
    }
  }
}

/// Returns the indices of `blocks` sorted by `less` (ties by index).
template <typename Less>
static std::vector<uint32_t>
sortedOrder(const std::vector<StorageBlock> &blocks, Less less) {
  std::vector<uint32_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return less(blocks[a], blocks[b]);
  });
  return order;
}

/// The fixed orderings of the portfolio; the first is TFLite's.
static std::vector<Ordering>
fixedOrderings(const std::vector<StorageBlock> &blocks, bool onlyGreedy) {
  auto length = [](const StorageBlock &b) { return b.end - b.start + 1; };
  std::vector<Ordering> result;
  result.push_back({"size", sortedOrder(blocks, [&](const StorageBlock &a,
                                                    const StorageBlock &b) {
                      if (a.size != b.size)
                        return a.size > b.size;
                      return length(a) > length(b);
                    })});
  if (onlyGreedy)
    return result;
  result.push_back({"lifetime", sortedOrder(blocks, [&](const StorageBlock &a,
                                                        const StorageBlock &b) {
                      if (length(a) != length(b))
                        return length(a) > length(b);
                      return a.size > b.size;
                    })});
  result.push_back({"area", sortedOrder(blocks, [&](const StorageBlock &a,
                                                    const StorageBlock &b) {
                      return static_cast<double>(a.size) * length(a) >
                             static_cast<double>(b.size) * length(b);
                    })});
  result.push_back({"start", sortedOrder(blocks, [&](const StorageBlock &a,
                                                     const StorageBlock &b) {
                      if (a.start != b.start)
                        return a.start < b.start;
                      return a.end > b.end;
                    })});
  return result;
}

/// The peak-first order (TFLite's greedy-by-breadth, per block): each block
/// keyed by the most bytes live at one step of its lifetime, so the blocks
/// live at the peak step come first, then those of the next highest step
/// they reach; ties by decreasing size, then longer lifetime.
static std::vector<uint32_t>
peakFirstOrder(const std::vector<StorageBlock> &blocks) {
  int64_t steps = 0;
  for (const StorageBlock &b : blocks)
    steps = std::max(steps, b.end + 2);
  std::vector<int64_t> live(static_cast<size_t>(steps), 0);
  for (const StorageBlock &b : blocks) {
    live[b.start] += b.size;
    live[b.end + 1] -= b.size;
  }
  for (size_t i = 1; i < live.size(); ++i)
    live[i] += live[i - 1];
  // Sparse table for range maxima.
  std::vector<std::vector<int64_t>> table{live};
  for (size_t width = 1; 2 * width <= live.size(); width *= 2) {
    const std::vector<int64_t> &prev = table.back();
    std::vector<int64_t> next(prev.size() - width);
    for (size_t i = 0; i < next.size(); ++i)
      next[i] = std::max(prev[i], prev[i + width]);
    table.push_back(std::move(next));
  }
  std::vector<int64_t> key(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    size_t lo = blocks[i].start, hi = blocks[i].end + 1, level = 0;
    while ((size_t{2} << level) <= hi - lo)
      ++level;
    key[i] =
        std::max(table[level][lo], table[level][hi - (size_t{1} << level)]);
  }
  std::vector<uint32_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (key[a] != key[b])
      return key[a] > key[b];
    if (blocks[a].size != blocks[b].size)
      return blocks[a].size > blocks[b].size;
    return blocks[a].end - blocks[a].start > blocks[b].end - blocks[b].start;
  });
  return order;
}

MemoryPlan mlir::ckpt::plan::planMemory(const PlanProblem &problem,
                                        const PlanOptions &options) {
  assert(validateProblem(problem).empty() &&
         "planMemory needs a valid problem");
  std::vector<size_t> blockOf;
  std::vector<StorageBlock> blocks = buildBlocks(problem, blockOf);
  MemoryPlan plan;
  plan.lowerBound = blocksLowerBound(blocks);
  plan.inPlaceBuffers =
      static_cast<int64_t>(problem.buffers.size() - blocks.size());

  bool greedyOnly = options.algorithm == PlanAlgorithm::GreedyBySize;
  std::vector<int64_t> bestOffsets, offsets;
  int64_t best = kNoCutoff;
  // Deterministic effort cap: placed blocks visited by all tries together.
  int64_t work = 0;
  const int64_t workLimit =
      greedyOnly ? kNoCutoff : std::max<int64_t>(options.workLimit, 1);
  std::vector<Start> starts;
  auto consider = [&](const std::string &method,
                      const std::vector<uint32_t> &order, Fit fit) {
    if (best <= plan.lowerBound)
      return;
    int64_t arena = packInOrder(blocks, order, fit, offsets, best, work);
    if (arena < best) {
      // Only improvements complete, so the starts have distinct arenas.
      starts.push_back({arena, order, fit});
      best = arena;
      bestOffsets = offsets;
      plan.method = method;
    }
  };
  std::vector<Ordering> orderings = fixedOrderings(blocks, greedyOnly);
  if (!greedyOnly)
    orderings.insert(orderings.begin() + 1, {"peak", peakFirstOrder(blocks)});
  for (const Ordering &o : orderings) {
    // The first try always runs; the others within the effort cap.
    if (best != kNoCutoff && work >= workLimit)
      break;
    consider(std::string(o.name) + "/best-fit", o.order, Fit::Best);
    if (!greedyOnly && work < workLimit)
      consider(std::string(o.name) + "/first-fit", o.order, Fit::First);
  }
  std::mt19937_64 rng(options.seed);
  if (!greedyOnly) {
    // Randomized size orders: each size scaled by a factor in [1, 1.25), so
    // blocks of similar size swap places.
    std::uniform_real_distribution<double> noise(1.0, 1.25);
    for (unsigned r = 0;
         r < options.restarts && best > plan.lowerBound && work < workLimit;
         ++r) {
      std::vector<double> key(blocks.size());
      for (size_t i = 0; i < blocks.size(); ++i)
        key[i] = static_cast<double>(blocks[i].size) * noise(rng);
      std::vector<uint32_t> order(blocks.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](uint32_t a, uint32_t b) { return key[a] > key[b]; });
      consider("random-size/best-fit", order, Fit::Best);
    }
  }
  if (!greedyOnly && best > plan.lowerBound && !blocks.empty() &&
      options.searchIterations > 0) {
    // Iterated local search from the best few starts (distinct arenas), each
    // with an equal share of the iterations (docs/memory-plan.md).
    std::stable_sort(
        starts.begin(), starts.end(),
        [](const Start &x, const Start &y) { return x.arena < y.arena; });
    std::vector<const Start *> chosen;
    for (const Start &st : starts)
      if (chosen.size() < kSearchStarts &&
          (chosen.empty() || chosen.back()->arena != st.arena))
        chosen.push_back(&st);
    unsigned share = std::max<unsigned>(
        1, options.searchIterations / static_cast<unsigned>(chosen.size()));
    for (const Start *st : chosen)
      localSearch(blocks, plan.lowerBound, st->order, st->fit, share, rng, work,
                  workLimit, best, bestOffsets, plan.method);
  }
  if (blocks.empty())
    best = 0;
  plan.provenOptimal = best <= plan.lowerBound;
  if (!greedyOnly && !plan.provenOptimal &&
      blocks.size() <= options.exactMaxBuffers) {
    ExactSearch search(blocks, plan.lowerBound, best, options.exactNodeLimit);
    if (search.run()) {
      best = search.bestArena();
      bestOffsets = search.bestOffsets();
      plan.method = "exact";
    }
    plan.provenOptimal = !search.truncated();
  }
  if (blocks.empty())
    plan.method = "empty";

  plan.arenaSize = best;
  plan.offsets.assign(problem.buffers.size(), 0);
  for (size_t i = 0; i < problem.buffers.size(); ++i)
    plan.offsets[i] = bestOffsets.empty() ? 0 : bestOffsets[blockOf[i]];
  return plan;
}
