//===- WindowRepair.cpp - Lowering a schedule's peak window by window ------===//
//
// See WindowRepair.h.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/WindowRepair.h"

#include "ckpt/Remat/BackwardSearch.h"

#include "StageSpace.h"

#include <algorithm>
#include <cmath>

using namespace mlir::ckpt::remat;

AnyOrderProfile
mlir::ckpt::remat::profileAnyOrder(const Problem &problem,
                                   const std::vector<int32_t> &computations) {
  AnyOrderProfile profile;
  const int64_t steps = static_cast<int64_t>(computations.size());
  const size_t n = problem.nodes.size();
  std::vector<int64_t> latest(n, -1);
  std::vector<int64_t> lastRead(steps, -1);
  for (int64_t step = 0; step < steps; ++step) {
    int32_t v = computations[step];
    if (v < 0 || static_cast<size_t>(v) >= n)
      return {};
    for (int32_t dep : problem.nodes[v].deps) {
      if (latest[dep] < 0)
        return {};
      lastRead[latest[dep]] = step;
    }
    latest[v] = step;
  }
  for (size_t v = 0; v < n; ++v)
    if (problem.nodes[v].isOutput && latest[v] >= 0)
      lastRead[latest[v]] = steps;
  std::vector<int64_t> freedAt(steps + 1, 0);
  profile.during.resize(steps);
  profile.after.resize(steps);
  int64_t live = problem.fixedBytes;
  for (int64_t step = 0; step < steps; ++step) {
    const Node &node = problem.nodes[computations[step]];
    live += node.bytes;
    profile.during[step] = live + node.workspace;
    lastRead[step] = std::max(lastRead[step], step);
    freedAt[lastRead[step]] += node.bytes;
    live -= freedAt[step];
    profile.after[step] = live;
  }
  profile.lastRead = std::move(lastRead);
  return profile;
}

std::vector<int32_t>
mlir::ckpt::remat::spliceWindow(const std::vector<int32_t> &computations,
                                int64_t before, int64_t after,
                                const std::vector<int32_t> &window) {
  std::vector<int32_t> spliced(computations.begin(),
                               computations.begin() + (before + 1));
  spliced.insert(spliced.end(), window.begin(), window.end());
  spliced.insert(spliced.end(), computations.begin() + (after + 1),
                 computations.end());
  return spliced;
}

namespace {

/// The nodes whose buffers are live after `step` (-1: before the first).
std::vector<int32_t> liveAfter(const std::vector<int32_t> &computations,
                               const AnyOrderProfile &profile, int64_t step) {
  std::vector<int32_t> live;
  for (int64_t u = 0; u <= step; ++u)
    if (profile.lastRead[u] > step)
      live.push_back(computations[u]);
  std::sort(live.begin(), live.end());
  return live;
}

int64_t peakOf(const AnyOrderProfile &profile) {
  int64_t peak = 0;
  for (int64_t bytes : profile.during)
    peak = std::max(peak, bytes);
  return peak;
}

} // namespace

WindowRepairResult
mlir::ckpt::remat::repairByWindows(const Problem &problem, int64_t budgetBytes,
                                   const std::vector<int32_t> &start,
                                   const WindowRepairOptions &options) {
  WindowRepairResult result;
  result.computations = start;
  AnyOrderProfile profile = profileAnyOrder(problem, start);
  if (profile.during.empty()) {
    result.message = "the starting schedule is not valid";
    return result;
  }
  result.peakBytes = peakOf(profile);
  result.fits = result.peakBytes <= budgetBytes;
  if (!detail::isFreelyReorderable(problem)) {
    result.message = "windows need every node recomputable, no projections, "
                     "and the last node as the only output";
    return result;
  }
  const int64_t startPeak = result.peakBytes;
  // Steps are fractions of the peak without recomputation.
  std::vector<int32_t> identity(problem.nodes.size());
  for (size_t v = 0; v < identity.size(); ++v)
    identity[v] = static_cast<int32_t>(v);
  const int64_t unit = peakOf(profileAnyOrder(problem, identity));
  std::vector<int32_t> &current = result.computations;
  double step = std::max(options.stepFraction, 1e-6);
  int32_t halvings = 0;
  BackwardSearchOptions searchOptions;
  searchOptions.maxWork = options.windowWork;
  while (!result.fits && result.work < options.maxWork) {
    const int64_t target = std::max(
        budgetBytes,
        result.peakBytes -
            std::max<int64_t>(1, std::llround(step * unit)));
    std::vector<int32_t> candidate = current;
    AnyOrderProfile at = profile;
    bool stuck = false;
    // Plan again, left to right, every window holding a step over target.
    while (result.work < options.maxWork) {
      const int64_t steps = static_cast<int64_t>(candidate.size());
      int64_t over = -1;
      for (int64_t t = 0; t < steps && over < 0; ++t)
        if (at.during[t] > target)
          over = t;
      if (over < 0)
        break;
      bool fixed = false;
      for (int32_t k = 0, half = std::max(1, options.halfWidth);
           k <= options.widenings && !fixed; ++k, half *= 2) {
        // The boundaries: where the fewest bytes are live within twice the
        // half width (before: the latest such step; the start when it is
        // in reach, where nothing is live).
        int64_t before = -1, after = -1;
        int64_t lo = over - 2 * static_cast<int64_t>(half);
        if (lo > 0) {
          for (int64_t t = lo; t < over; ++t)
            if (at.after[t] <= target &&
                (before < 0 || at.after[t] <= at.after[before]))
              before = t;
          if (before < 0)
            continue;
        }
        int64_t hi =
            std::min(steps - 1, over + 2 * static_cast<int64_t>(half));
        for (int64_t t = over; t <= hi; ++t)
          if (at.after[t] <= target &&
              (after < 0 || at.after[t] < at.after[after]))
            after = t;
        if (after < 0)
          after = steps - 1;
        BackwardWindow window;
        window.needed = liveAfter(candidate, at, after);
        if (before >= 0)
          window.available = liveAfter(candidate, at, before);
        searchOptions.maxWork =
            std::min(options.windowWork, options.maxWork - result.work);
        BackwardSearchResult found =
            searchBackwardWindow(problem, target, window, searchOptions);
        result.work += std::max<int64_t>(found.work, 1);
        if (found.outcome != BackwardSearchResult::Outcome::Found) {
          ++result.windowsFailed;
          continue;
        }
        std::vector<int32_t> spliced =
            spliceWindow(candidate, before, after, found.computations);
        AnyOrderProfile next = profileAnyOrder(problem, spliced);
        // The search guarantees both; checked all the same.
        bool fits = !next.during.empty();
        for (int64_t t = before + 1;
             fits && t < before + 1 + static_cast<int64_t>(
                                          found.computations.size());
             ++t)
          fits = next.during[t] <= target;
        if (!fits) {
          ++result.windowsFailed;
          continue;
        }
        candidate = std::move(spliced);
        at = std::move(next);
        fixed = true;
        ++result.windowsFixed;
      }
      if (!fixed) {
        stuck = true;
        break;
      }
    }
    if (stuck || peakOf(at) > target) {
      // Try a smaller step from the last schedule that fit its target.
      if (++halvings > 3)
        break;
      step /= 2;
      continue;
    }
    current = std::move(candidate);
    profile = std::move(at);
    result.peakBytes = peakOf(profile);
    result.fits = result.peakBytes <= budgetBytes;
  }
  result.message = "peak " + std::to_string(startPeak) + " -> " +
                   std::to_string(result.peakBytes) + " bytes, " +
                   std::to_string(result.windowsFixed) + " windows planned again (" +
                   std::to_string(result.windowsFailed) + " could not be)";
  return result;
}
