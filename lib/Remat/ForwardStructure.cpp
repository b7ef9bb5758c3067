//===- ForwardStructure.cpp - Cut points and repeated blocks --------------===//

#include "ckpt/Remat/ForwardStructure.h"

#include <algorithm>
#include <map>

using namespace mlir::ckpt::remat;

/// Whether node `id` is the primary of a multi-result op (its projections
/// follow it directly).
static bool hasProjections(const Problem &problem, size_t id) {
  return id + 1 < problem.nodes.size() &&
         problem.nodes[id + 1].primary == static_cast<int32_t>(id);
}

std::vector<int32_t>
mlir::ckpt::remat::findForwardCutPoints(const Problem &problem) {
  const size_t n = problem.nodes.size();
  // The last recomputable reader of each recomputable node (-1: none).
  std::vector<int64_t> lastReader(n, -1);
  for (size_t r = 0; r < n; ++r) {
    const Node &reader = problem.nodes[r];
    if (!reader.recomputable)
      continue;
    for (int32_t dep : reader.deps)
      if (problem.nodes[dep].recomputable)
        lastReader[dep] = std::max<int64_t>(lastReader[dep], r);
  }
  std::vector<int32_t> cuts;
  // The furthest recomputable reader of any recomputable node before `c`.
  int64_t reach = -1;
  for (size_t c = 0; c < n; ++c) {
    const Node &node = problem.nodes[c];
    if (node.recomputable && node.primary < 0 && !hasProjections(problem, c) &&
        reach <= static_cast<int64_t>(c) &&
        lastReader[c] > static_cast<int64_t>(c))
      cuts.push_back(static_cast<int32_t>(c));
    if (node.recomputable)
      reach = std::max(reach, lastReader[c]);
  }
  return cuts;
}

std::vector<int32_t>
mlir::ckpt::remat::segmentsBetweenCutPoints(const Problem &problem) {
  const size_t n = problem.nodes.size();
  std::vector<int32_t> cuts = findForwardCutPoints(problem);
  std::vector<int32_t> segment(n, -1);
  if (cuts.empty())
    return segment;
  int32_t current = 0;
  size_t nextCut = 0;
  for (size_t i = 0; i <= static_cast<size_t>(cuts.back()); ++i) {
    if (problem.nodes[i].recomputable)
      segment[i] = current;
    if (nextCut < cuts.size() && static_cast<size_t>(cuts[nextCut]) == i) {
      ++current;
      ++nextCut;
    }
  }
  return segment;
}

namespace {

/// A unit of `period` segments repeated `repeats` times from `start`.
struct RepeatedUnit {
  int64_t start = 0;
  int64_t period = 0;
  int64_t repeats = 0;
  /// The bytes of the cut points that end its repetitions: what
  /// checkpointing each repetition keeps.
  int64_t boundaryBytes = 0;

  int64_t covered() const { return period * repeats; }

  /// Whether this unit is preferred to `other`: more segments covered, then
  /// the shorter unit, then the smaller boundaries (of the rotations of a
  /// periodic stretch, the one that ends at its smallest values, as a pooling
  /// layer ends a VGG stage), then the earlier start.
  bool betterThan(const RepeatedUnit &other) const {
    if (covered() != other.covered())
      return covered() > other.covered();
    if (period != other.period)
      return period < other.period;
    if (boundaryBytes != other.boundaryBytes)
      return boundaryBytes < other.boundaryBytes;
    return start < other.start;
  }
};

/// Units are picked at most this many times (each pick scans every period
/// once), which bounds the search on graphs without repeated structure.
constexpr int kMaxUnitPicks = 64;

/// The best unit repeated among the uncovered segments with these labels
/// (`endBytes`: the bytes of each segment's cut point), or one with no
/// repeats.
RepeatedUnit findBestUnit(const std::vector<int32_t> &label,
                          const std::vector<int64_t> &endBytes,
                          const std::vector<bool> &covered) {
  const int64_t m = static_cast<int64_t>(label.size());
  RepeatedUnit best;
  for (int64_t p = 1; 2 * p <= m; ++p) {
    int64_t runStart = 0, runLength = 0;
    // A run of `runLength` equal pairs (k, k + p) from `runStart` is a
    // p-periodic stretch of runLength + p segments: try each rotation of
    // the unit that fits the most repetitions into it.
    auto closeRun = [&] {
      if (runLength < p)
        return;
      int64_t stretchEnd = runStart + runLength + p;
      RepeatedUnit unit{runStart, p, (runLength + p) / p, 0};
      for (; unit.start + unit.covered() <= stretchEnd; ++unit.start) {
        unit.boundaryBytes = 0;
        for (int64_t r = 0; r < unit.repeats; ++r)
          unit.boundaryBytes += endBytes[unit.start + (r + 1) * p - 1];
        if (unit.betterThan(best))
          best = unit;
      }
    };
    for (int64_t k = 0; k + p < m; ++k) {
      bool same = !covered[k] && !covered[k + p] && label[k] == label[k + p];
      if (same) {
        if (runLength == 0)
          runStart = k;
        ++runLength;
      } else {
        closeRun();
        runLength = 0;
      }
    }
    closeRun();
  }
  return best;
}

} // namespace

std::vector<int32_t>
mlir::ckpt::remat::findRepeatedBlocks(const Problem &problem,
                                      const std::vector<int32_t> &kindOf) {
  const size_t n = problem.nodes.size();
  std::vector<int32_t> segment = segmentsBetweenCutPoints(problem);
  // Label each segment by the sequence of kinds it holds.
  std::vector<std::vector<int32_t>> kinds;
  for (size_t i = 0; i < n; ++i) {
    if (segment[i] < 0)
      continue;
    if (static_cast<size_t>(segment[i]) >= kinds.size())
      kinds.resize(segment[i] + 1);
    kinds[segment[i]].push_back(kindOf[i]);
  }
  // Each segment ends at its cut point, its last node.
  std::vector<int64_t> endBytes(kinds.size(), 0);
  for (size_t i = 0; i < n; ++i)
    if (segment[i] >= 0)
      endBytes[segment[i]] = problem.nodes[i].bytes;
  std::map<std::vector<int32_t>, int32_t> labelIds;
  std::vector<int32_t> label;
  for (const std::vector<int32_t> &sequence : kinds)
    label.push_back(
        labelIds.emplace(sequence, static_cast<int32_t>(labelIds.size()))
            .first->second);

  // Pick units greedily; every repetition of a unit becomes a block.
  std::vector<bool> covered(label.size(), false);
  std::vector<int32_t> blockOfSegment(label.size(), -1);
  std::vector<RepeatedUnit> units;
  for (int pick = 0; pick < kMaxUnitPicks; ++pick) {
    RepeatedUnit unit = findBestUnit(label, endBytes, covered);
    if (unit.repeats < 2)
      break;
    for (int64_t k = unit.start; k < unit.start + unit.covered(); ++k)
      covered[k] = true;
    units.push_back(unit);
  }
  // Number the blocks in order of their segments.
  std::sort(units.begin(), units.end(),
            [](const RepeatedUnit &a, const RepeatedUnit &b) {
              return a.start < b.start;
            });
  // The backward pass's reads of each segment: a block's checkpoint keeps
  // its output, so a block that holds only one value the backward pass
  // reads saves nothing by being recomputed (an MLP layer whose backward
  // reads only its output). Such units are grouped by two.
  std::vector<int32_t> savedIn(label.size(), 0);
  std::vector<bool> readByBackward(n, false);
  for (const Node &node : problem.nodes)
    if (!node.recomputable)
      for (int32_t dep : node.deps)
        readByBackward[dep] = true;
  for (size_t i = 0; i < n; ++i)
    if (segment[i] >= 0 && readByBackward[i])
      ++savedIn[segment[i]];
  int32_t nextBlock = 0;
  for (const RepeatedUnit &unit : units) {
    int32_t saved = 0;
    for (int64_t k = 0; k < unit.period; ++k)
      saved += savedIn[unit.start + k];
    const int64_t group = saved == 1 ? 2 : 1;
    for (int64_t r = 0; r < unit.repeats; ++r)
      for (int64_t k = 0; k < unit.period; ++k)
        blockOfSegment[unit.start + r * unit.period + k] =
            nextBlock + static_cast<int32_t>(r / group);
    nextBlock += static_cast<int32_t>((unit.repeats + group - 1) / group);
  }
  std::vector<int32_t> blockOf(n, -1);
  for (size_t i = 0; i < n; ++i)
    if (segment[i] >= 0)
      blockOf[i] = blockOfSegment[segment[i]];
  return blockOf;
}
