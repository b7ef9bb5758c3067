//===- PlanChecker.cpp - Validate problems, check packings ----------------===//
//
// The independent side of memory planning: problem validation and the
// packing checker. The checker shares no code with the packer: it sweeps the
// steps in order, keeping the live buffers in an ordered map by offset, and
// checks each new buffer against its two neighbours (the live buffers are
// pairwise disjoint, so the neighbours are the only candidates for overlap).
//
//===----------------------------------------------------------------------===//

#include "ckpt/Plan/MemoryPlan.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <queue>
#include <sstream>

using namespace mlir::ckpt::plan;

std::string mlir::ckpt::plan::validateProblem(const PlanProblem &problem) {
  std::ostringstream os;
  if (problem.alignment <= 0) {
    os << "alignment must be positive, got " << problem.alignment;
    return os.str();
  }
  const int64_t n = static_cast<int64_t>(problem.buffers.size());
  std::vector<bool> claimed(n, false);
  for (int64_t i = 0; i < n; ++i) {
    const PlanBuffer &b = problem.buffers[i];
    if (b.size < 0) {
      os << "buffer #" << i << " has negative size " << b.size;
      return os.str();
    }
    if (b.start > b.end) {
      os << "buffer #" << i << " ends (step " << b.end << ") before it starts"
         << " (step " << b.start << ")";
      return os.str();
    }
    if (b.inPlaceOf < 0)
      continue;
    if (b.inPlaceOf >= n || b.inPlaceOf == i) {
      os << "buffer #" << i << " has an invalid in-place partner "
         << b.inPlaceOf;
      return os.str();
    }
    const PlanBuffer &p = problem.buffers[b.inPlaceOf];
    if (p.start >= b.start || p.end != b.start ||
        alignUp(p.size, problem.alignment) !=
            alignUp(b.size, problem.alignment)) {
      os << "buffer #" << i << " cannot take over buffer #" << b.inPlaceOf
         << ": the partner must start earlier, end where it starts and "
            "have its size";
      return os.str();
    }
    if (claimed[b.inPlaceOf]) {
      os << "buffer #" << b.inPlaceOf
         << " is the in-place partner of two buffers";
      return os.str();
    }
    claimed[b.inPlaceOf] = true;
  }
  return "";
}

namespace {
/// A live buffer in the sweep.
struct Live {
  int64_t top;
  size_t index;
};
} // namespace

std::string mlir::ckpt::plan::checkPlan(const PlanProblem &problem,
                                        const std::vector<int64_t> &offsets,
                                        int64_t arenaSize) {
  std::ostringstream os;
  const size_t n = problem.buffers.size();
  if (offsets.size() != n) {
    os << "the plan has " << offsets.size() << " offsets for " << n
       << " buffers";
    return os.str();
  }
  if (problem.alignment <= 0) {
    os << "alignment must be positive, got " << problem.alignment;
    return os.str();
  }
  std::vector<int64_t> sizes(n), lastStep(n);
  for (size_t i = 0; i < n; ++i) {
    const PlanBuffer &b = problem.buffers[i];
    sizes[i] = alignUp(b.size, problem.alignment);
    lastStep[i] = b.end;
    if (offsets[i] < 0 || offsets[i] % problem.alignment != 0) {
      os << "buffer #" << i << " has offset " << offsets[i]
         << ", not a non-negative multiple of the alignment "
         << problem.alignment;
      return os.str();
    }
    if (offsets[i] > arenaSize || sizes[i] > arenaSize - offsets[i]) {
      os << "buffer #" << i << " at [" << offsets[i] << ", "
         << offsets[i] + sizes[i] << ") lies outside the arena of "
         << arenaSize << " bytes";
      return os.str();
    }
  }
  // A buffer whose storage a partner takes over, at the same offset and at
  // least as large, is covered by the partner at the shared step: it only
  // needs checking before it.
  for (size_t i = 0; i < n; ++i) {
    int64_t p = problem.buffers[i].inPlaceOf;
    if (p < 0 || static_cast<size_t>(p) >= n || static_cast<size_t>(p) == i)
      continue;
    if (offsets[p] == offsets[i] && sizes[i] >= sizes[p] &&
        problem.buffers[p].end == problem.buffers[i].start)
      lastStep[p] = problem.buffers[p].end - 1;
  }

  std::vector<size_t> byStart;
  for (size_t i = 0; i < n; ++i)
    if (sizes[i] > 0 && lastStep[i] >= problem.buffers[i].start)
      byStart.push_back(i);
  std::stable_sort(byStart.begin(), byStart.end(), [&](size_t a, size_t b) {
    return problem.buffers[a].start < problem.buffers[b].start;
  });
  // Live buffers by offset, and their last steps (a min-heap).
  std::map<int64_t, Live> live;
  using Expiry = std::pair<int64_t, size_t>;
  std::priority_queue<Expiry, std::vector<Expiry>, std::greater<Expiry>>
      expiries;
  auto describe = [&](size_t i) {
    std::ostringstream d;
    d << "buffer #" << i << " (steps " << problem.buffers[i].start << ".."
      << problem.buffers[i].end << ", bytes [" << offsets[i] << ", "
      << offsets[i] + sizes[i] << "))";
    return d.str();
  };
  for (size_t i : byStart) {
    int64_t step = problem.buffers[i].start;
    while (!expiries.empty() && expiries.top().first < step) {
      live.erase(offsets[expiries.top().second]);
      expiries.pop();
    }
    int64_t lo = offsets[i], hi = offsets[i] + sizes[i];
    auto next = live.lower_bound(lo);
    size_t other = n;
    if (next != live.end() && next->first < hi)
      other = next->second.index;
    else if (next != live.begin() && std::prev(next)->second.top > lo)
      other = std::prev(next)->second.index;
    if (other != n) {
      os << describe(i) << " overlaps " << describe(other) << " at step "
         << step;
      return os.str();
    }
    live[lo] = Live{hi, i};
    expiries.push({lastStep[i], i});
  }
  return "";
}
