//===- PlanPropertyTest.cpp - Random interval sets, checked ---------------===//
//
// Thousands of random problems: every plan passes the independent checker,
// is at least the lower bound, and the exact search is never worse than the
// heuristics. The checker itself is compared with a brute-force pairwise
// check on random (mostly invalid) placements, so it is shown to fail when
// it must. Seeds are printed on failure.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Plan/MemoryPlan.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::ckpt::plan;

namespace {

/// A random problem: `n` buffers over `steps` steps, some in-place partners.
PlanProblem randomProblem(std::mt19937_64 &rng, size_t n, int64_t steps,
                          int64_t alignment) {
  PlanProblem problem;
  problem.alignment = alignment;
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (size_t i = 0; i < n; ++i) {
    PlanBuffer b;
    // Mostly small buffers, a few large ones, some of size 0.
    b.size = uniform(0, 9) == 0 ? uniform(0, 4096) : uniform(0, 600);
    b.start = uniform(0, steps - 1);
    b.end = std::min(steps - 1, b.start + (uniform(0, 3) == 0
                                               ? uniform(0, steps)
                                               : uniform(0, 4)));
    // In place of an earlier buffer ending where this one starts, with the
    // same size, not yet claimed.
    if (uniform(0, 3) == 0) {
      for (size_t j = 0; j < i; ++j) {
        PlanBuffer &p = problem.buffers[j];
        bool claimed = false;
        for (const PlanBuffer &q : problem.buffers)
          claimed |= q.inPlaceOf == static_cast<int64_t>(j);
        if (!claimed && p.start < b.start && p.end == b.start) {
          b.size = p.size;
          b.inPlaceOf = static_cast<int64_t>(j);
          break;
        }
      }
    }
    problem.buffers.push_back(b);
  }
  return problem;
}

/// Brute-force check: every pair of buffers live at a common step is
/// disjoint in bytes unless they are in-place partners at one offset at the
/// step where one ends and the other begins.
bool pairwiseValid(const PlanProblem &p, const std::vector<int64_t> &offsets,
                   int64_t arena) {
  size_t n = p.buffers.size();
  for (size_t i = 0; i < n; ++i) {
    int64_t size = alignUp(p.buffers[i].size, p.alignment);
    if (offsets[i] < 0 || offsets[i] % p.alignment ||
        offsets[i] + size > arena)
      return false;
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      const PlanBuffer &a = p.buffers[i], &b = p.buffers[j];
      int64_t sa = alignUp(a.size, p.alignment);
      int64_t sb = alignUp(b.size, p.alignment);
      if (sa == 0 || sb == 0 || a.end < b.start || b.end < a.start)
        continue;
      if (offsets[i] + sa <= offsets[j] || offsets[j] + sb <= offsets[i])
        continue;
      bool partners =
          offsets[i] == offsets[j] &&
          ((b.inPlaceOf == static_cast<int64_t>(i) && a.end == b.start &&
            sb >= sa) ||
           (a.inPlaceOf == static_cast<int64_t>(j) && b.end == a.start &&
            sa >= sb));
      if (!partners)
        return false;
    }
  return true;
}

TEST(PlanProperty, EveryPlanPassesTheChecker) {
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    size_t n = 1 + rng() % (seed % 10 == 0 ? 200 : 40);
    int64_t steps = 1 + static_cast<int64_t>(rng() % 40);
    PlanProblem problem = randomProblem(rng, n, steps, seed % 3 ? 1 : 256);
    ASSERT_EQ(validateProblem(problem), "");
    PlanOptions greedy;
    greedy.algorithm = PlanAlgorithm::GreedyBySize;
    MemoryPlan g = planMemory(problem, greedy);
    MemoryPlan best = planMemory(problem);
    for (const MemoryPlan *plan : {&g, &best}) {
      ASSERT_EQ(checkPlan(problem, plan->offsets, plan->arenaSize), "");
      ASSERT_TRUE(pairwiseValid(problem, plan->offsets, plan->arenaSize));
      ASSERT_GE(plan->arenaSize, plan->lowerBound);
      ASSERT_EQ(plan->lowerBound, computeLowerBound(problem));
    }
    ASSERT_LE(best.arenaSize, g.arenaSize);
    // In-place partners share their offset.
    for (size_t i = 0; i < n; ++i) {
      if (problem.buffers[i].inPlaceOf >= 0) {
        ASSERT_EQ(best.offsets[i], best.offsets[problem.buffers[i].inPlaceOf]);
      }
    }
  }
}

TEST(PlanProperty, CheckerAgreesWithPairwiseCheck) {
  int64_t rejected = 0;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed + 1000000);
    size_t n = 1 + rng() % 12;
    // Drawn in separate statements, last argument first: the order in which
    // function arguments are evaluated is unspecified (gcc and clang differ),
    // and the random problems must not depend on the compiler.
    auto third = 1 + rng() % 3;
    auto second = 1 + rng() % 10;
    PlanProblem problem = randomProblem(rng, n, second, third);
    // A packer's plan, then with one offset moved: sometimes still valid.
    MemoryPlan plan = planMemory(problem);
    std::vector<int64_t> offsets = plan.offsets;
    size_t moved = rng() % n;
    offsets[moved] = static_cast<int64_t>(rng() % 8) * problem.alignment;
    int64_t arena = plan.arenaSize + static_cast<int64_t>(rng() % 2) *
                                         problem.alignment;
    bool valid = pairwiseValid(problem, offsets, arena);
    ASSERT_EQ(checkPlan(problem, offsets, arena).empty(), valid);
    rejected += !valid;
  }
  // The mutations really produce invalid plans.
  EXPECT_GT(rejected, 500);
}

} // namespace
