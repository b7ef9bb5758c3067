//===- WindowRepair.cpp - Lowering a schedule's peak window by window ------===//
//
// See WindowRepair.h.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/WindowRepair.h"

#include "ckpt/Remat/BackwardSearch.h"

#include "ProblemShape.h"
#include "ScheduleProfile.h"

#include <algorithm>
#include <cmath>

using namespace mlir::ckpt::remat;

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

using detail::liveAfter;
using detail::Profile;
using detail::profileOf;

/// Replaces steps (before, after] of `candidate` (evaluated in `at`) by
/// `window` when the result is valid and the window's steps fit `target`
/// (the backward search guarantees both; checked all the same).
bool spliceIfFits(const Problem &problem, int64_t target, int64_t before,
                  int64_t after, const std::vector<int32_t> &window,
                  std::vector<int32_t> &candidate, Profile &at) {
  std::vector<int32_t> spliced =
      spliceWindow(candidate, before, after, window);
  Profile next = profileOf(problem, spliced);
  if (!next.eval.valid())
    return false;
  for (size_t k = 0; k < window.size(); ++k)
    if (next.eval.liveBytes[before + 1 + static_cast<int64_t>(k)] > target)
      return false;
  candidate = std::move(spliced);
  at = std::move(next);
  return true;
}

/// Tries to lower the live bytes at step `over` of `candidate` (evaluated
/// in `at`) by eviction: a value live across that step but not read by it
/// is no longer kept until its next read; the backward search computes it
/// again just before that read, from the values live there, within `cap`
/// (the target, or more where the excess is deferred). Tries the largest
/// such values first, at most `options.evictions` of them; on success
/// updates `candidate` and `at` and sets `readAt` to the read's step in the
/// new schedule.
bool evictAcross(const Problem &problem, int64_t cap, int64_t over,
                 std::vector<int32_t> &candidate, Profile &at,
                 const WindowRepairOptions &options,
                 WindowRepairResult &result, int64_t &readAt) {
  const int64_t steps = static_cast<int64_t>(candidate.size());
  const std::vector<int32_t> &readAtOver =
      problem.nodes[candidate[over]].deps;
  std::vector<std::pair<int64_t, int64_t>> kept; // (bytes, step)
  for (int64_t u = 0; u < over; ++u) {
    int32_t value = candidate[u];
    if (at.eval.lastRead[u] > over &&
        std::find(readAtOver.begin(), readAtOver.end(), value) ==
            readAtOver.end())
      kept.push_back({problem.nodes[value].bytes, u});
  }
  // Largest first; among equals, the earliest computation.
  std::sort(kept.begin(), kept.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  BackwardSearchOptions searchOptions;
  int32_t tried = 0;
  for (const auto &[bytes, u] : kept) {
    if (tried >= options.evictions || result.work >= options.maxWork)
      break;
    const int32_t value = candidate[u];
    // The first read after `over` (it reads this computation: the value is
    // live across `over`, so not computed again before it).
    int64_t read = -1;
    for (int64_t t = over + 1; t < steps && read < 0; ++t) {
      const std::vector<int32_t> &deps = problem.nodes[candidate[t]].deps;
      if (std::find(deps.begin(), deps.end(), value) != deps.end())
        read = t;
    }
    if (read < 0)
      continue;
    ++tried;
    BackwardWindow window;
    window.needed = liveAfter(candidate, at, read - 1);
    for (int32_t live : window.needed)
      if (live != value)
        window.available.push_back(live);
    searchOptions.maxWork =
        std::min(options.evictionWork, options.maxWork - result.work);
    BackwardSearchResult found =
        searchBackwardWindow(problem, cap, window, searchOptions);
    result.work += std::max<int64_t>(found.work, 1);
    if (found.outcome != BackwardSearchResult::Outcome::Found)
      continue;
    if (!spliceIfFits(problem, cap, read - 1, read - 1, found.computations,
                      candidate, at))
      continue;
    readAt = read + static_cast<int64_t>(candidate.size()) - steps;
    ++result.evictions;
    return true;
  }
  return false;
}

} // namespace

WindowRepairResult
mlir::ckpt::remat::repairByWindows(const Problem &problem, int64_t budgetBytes,
                                   const std::vector<int32_t> &start,
                                   const WindowRepairOptions &options) {
  WindowRepairResult result;
  result.computations = start;
  Profile profile = profileOf(problem, start);
  if (!profile.eval.valid()) {
    result.message = "the starting schedule is not valid";
    return result;
  }
  result.peakBytes = profile.eval.peakBytes;
  result.fits = result.peakBytes <= budgetBytes;
  if (!detail::isFreelyReorderable(problem)) {
    result.message = "windows need every node recomputable, no projections, "
                     "and the last node as the only output";
    return result;
  }
  const int64_t startPeak = result.peakBytes;
  // Steps are fractions of the peak without recomputation.
  const int64_t unit =
      evaluateSchedule(problem, Schedule::identity(problem)).peakBytes;
  std::vector<int32_t> &current = result.computations;
  double step = std::max(options.stepFraction, 1e-6);
  int32_t halvings = 0;
  // Windows alone until a round stops short (their plans recompute less),
  // then evictions first; deferring excess, evictions first throughout.
  bool evictFirst = options.deferExcess;
  BackwardSearchOptions searchOptions;
  searchOptions.maxWork = options.windowWork;
  while (!result.fits && result.work < options.maxWork) {
    const int64_t target = std::max(
        budgetBytes,
        result.peakBytes -
            std::max<int64_t>(1, std::llround(step * unit)));
    std::vector<int32_t> candidate = current;
    Profile at = profile;
    // Deferring excess, an eviction's recomputation may reach one byte
    // below the round's starting peak, so the round never raises the peak;
    // but not for a step before the read of the last eviction that did
    // (`deferredUntil`): evictions there would nest, each pushing the
    // excess into the recomputation before the same read.
    const int64_t deferredCap =
        options.deferExcess ? std::max(target, result.peakBytes - 1) : target;
    int64_t deferredUntil = -1;
    bool stuck = false;
    // Plan again, left to right, every window holding a step over target.
    while (result.work < options.maxWork) {
      const int64_t steps = static_cast<int64_t>(candidate.size());
      int64_t over = -1;
      for (int64_t t = 0; t < steps && over < 0; ++t)
        if (at.eval.liveBytes[t] > target)
          over = t;
      if (over < 0)
        break;
      const int64_t length = static_cast<int64_t>(candidate.size());
      const int64_t cap = over >= deferredUntil ? deferredCap : target;
      int64_t readAt = -1;
      if (evictFirst && evictAcross(problem, cap, over, candidate, at,
                                    options, result, readAt)) {
        const int64_t inserted =
            static_cast<int64_t>(candidate.size()) - length;
        bool exceeds = false;
        for (int64_t t = readAt - inserted; t < readAt && !exceeds; ++t)
          exceeds = at.eval.liveBytes[t] > target;
        if (exceeds) {
          deferredUntil = readAt;
          ++result.deferred;
        } else if (deferredUntil > over) {
          deferredUntil += inserted;
        }
        continue;
      }
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
        if (!spliceIfFits(problem, target, before, after, found.computations,
                          candidate, at)) {
          ++result.windowsFailed;
          continue;
        }
        fixed = true;
        if (deferredUntil > before)
          deferredUntil += static_cast<int64_t>(candidate.size()) - length;
        ++result.windowsFixed;
      }
      if (!fixed) {
        stuck = true;
        break;
      }
    }
    // Every step the round changed fits the target (or, deferred, stays
    // below the round's starting peak), and no other step has more live
    // bytes than before, so its schedule is kept even when the round
    // stopped short (the next round goes on from its fixes).
    current = std::move(candidate);
    profile = std::move(at);
    result.peakBytes = profile.eval.peakBytes;
    result.fits = result.peakBytes <= budgetBytes;
    if (stuck || result.peakBytes > target) {
      // Go on with a smaller step, evictions first.
      evictFirst = true;
      if (++halvings > 3)
        break;
      step /= 2;
    }
  }
  result.message = "peak " + std::to_string(startPeak) + " -> " +
                   std::to_string(result.peakBytes) + " bytes, " +
                   std::to_string(result.windowsFixed) + " windows planned again (" +
                   std::to_string(result.windowsFailed) + " could not be), " +
                   std::to_string(result.evictions) + " values evicted" +
                   (options.deferExcess ? " (" + std::to_string(result.deferred) +
                                              " deferring excess)"
                                        : "");
  return result;
}
