//===- ReorderedSchedulesTest.cpp - Plans found in another order ----------===//
//
// The claim behind ReorderedSchedules.h, checked by brute force on tiny
// DAGs: the smallest peak of any schedule is the same in every topological
// order. And its construction, on random DAGs: a plan found in another order
// replays in the problem's order as a valid schedule, with first
// computations in that order, and never more live bytes than the plan.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/ReorderedSchedules.h"

#include "RematTestSupport.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::testing;

namespace {

/// A random topological order of `problem` ending with its last node.
std::vector<int32_t> randomOrder(std::mt19937 &rng, const Problem &problem) {
  const size_t n = problem.nodes.size();
  std::vector<int32_t> missing(n, 0), order, ready;
  std::vector<std::vector<int32_t>> readers(n);
  for (size_t v = 0; v < n; ++v) {
    std::vector<int32_t> deps = problem.nodes[v].deps;
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    missing[v] = static_cast<int32_t>(deps.size());
    for (int32_t u : deps)
      readers[u].push_back(static_cast<int32_t>(v));
    if (missing[v] == 0)
      ready.push_back(static_cast<int32_t>(v));
  }
  while (!ready.empty()) {
    size_t pick = rng() % ready.size();
    if (ready[pick] == static_cast<int32_t>(n - 1) && ready.size() > 1)
      pick = (pick + 1) % ready.size();
    int32_t v = ready[pick];
    ready.erase(ready.begin() + pick);
    order.push_back(v);
    for (int32_t w : readers[v])
      if (--missing[w] == 0)
        ready.push_back(w);
  }
  return order;
}

/// Whether `order` is a topological permutation of `problem` ending with
/// its last node.
bool isTopologicalPermutation(const Problem &problem,
                              const std::vector<int32_t> &order) {
  const size_t n = problem.nodes.size();
  if (order.size() != n || order.back() != static_cast<int32_t>(n - 1))
    return false;
  std::vector<int32_t> position(n, -1);
  for (size_t k = 0; k < n; ++k) {
    if (order[k] < 0 || static_cast<size_t>(order[k]) >= n ||
        position[order[k]] >= 0)
      return false;
    position[order[k]] = static_cast<int32_t>(k);
  }
  for (size_t v = 0; v < n; ++v)
    for (int32_t dep : problem.nodes[v].deps)
      if (position[dep] >= position[v])
        return false;
  return true;
}

/// How many computations replaying `anyOrder` in the problem's order takes
/// when every stage starts from nothing: per node v, the computations of
/// `anyOrder` up to v's first that v needs.
size_t replayFromNothingLength(const Problem &problem,
                               const std::vector<int32_t> &anyOrder) {
  size_t total = 0;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    size_t first = 0;
    while (anyOrder[first] != static_cast<int32_t>(v))
      ++first;
    std::vector<bool> needed(problem.nodes.size(), false);
    needed[v] = true;
    for (size_t i = first + 1; i-- > 0;) {
      int32_t w = anyOrder[i];
      if (!needed[w])
        continue;
      needed[w] = false;
      ++total;
      for (int32_t u : problem.nodes[w].deps)
        needed[u] = true;
    }
  }
  return total;
}

TEST(ReorderedSchedules, SmallestPeakDoesNotDependOnTheOrder) {
  const unsigned seed = 20261130;
  std::mt19937 rng(seed);
  int differentOrders = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Problem problem = randomSingleSinkDag(rng, 3 + static_cast<int>(rng() % 8));
    std::vector<int32_t> order = randomOrder(rng, problem);
    Problem other = renumberProblem(problem, order);
    SCOPED_TRACE("seed " + std::to_string(seed) + " trial " +
                 std::to_string(trial) + "\n" + describe(problem, 0));
    ASSERT_FALSE(other.validate()) << *other.validate();
    int64_t here = smallestPeakOfAnySchedule(problem);
    int64_t there = smallestPeakOfAnySchedule(other);
    ASSERT_EQ(here, there);
    // The no-recompute peaks mostly differ: the orders are not trivial.
    differentOrders += evaluateSchedule(problem, Schedule::identity(problem))
                           .peakBytes !=
                       evaluateSchedule(other, Schedule::identity(other))
                           .peakBytes;
  }
  EXPECT_GT(differentOrders, 100);
}

TEST(ReorderedSchedules, LowMemoryOrdersAreTopological) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 100; ++trial) {
    Problem problem =
        randomSingleSinkDag(rng, 2 + static_cast<int>(rng() % 40));
    std::vector<std::vector<int32_t>> orders = lowMemoryOrders(problem, 20);
    ASSERT_EQ(orders.size(), 2u);
    for (const std::vector<int32_t> &order : orders)
      ASSERT_TRUE(isTopologicalPermutation(problem, order))
          << describe(problem, 0);
  }
}

TEST(ReorderedSchedules, ReplayKeepsTheProblemOrderAndThePeak) {
  const unsigned seed = 424242;
  std::mt19937 rng(seed);
  int recomputing = 0, reusing = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Problem problem =
        randomSingleSinkDag(rng, 4 + static_cast<int>(rng() % 40));
    std::vector<int32_t> order = randomOrder(rng, problem);
    Problem other = renumberProblem(problem, order);
    // A plan in the other order: the generic engine at a random budget
    // between its floor and its no-recompute peak.
    int64_t peak = evaluateSchedule(other, Schedule::identity(other)).peakBytes;
    int64_t budget = peak - static_cast<int64_t>(rng() % (peak / 3 + 1));
    GenericOptions options;
    options.tryOtherOrders = false;
    SolveResult there = solveGeneric(other, budget, options);
    if (!there.hasSchedule())
      continue;
    std::vector<int32_t> anyOrder;
    for (int32_t id : there.schedule.order)
      anyOrder.push_back(order[id]);
    Schedule replayed = replayInProblemOrder(problem, there.peakBytes, anyOrder);
    SCOPED_TRACE("seed " + std::to_string(seed) + " trial " +
                 std::to_string(trial) + "\n" +
                 describe(problem, there.peakBytes) + "plan there: " +
                 describe(there));
    Evaluation eval = evaluateSchedule(problem, replayed);
    ASSERT_TRUE(eval.valid()) << eval.error;
    ASSERT_LE(eval.peakBytes, there.peakBytes);
    recomputing += eval.recomputations > 0;
    // Never more computations than replaying every stage from nothing, and
    // often fewer (values kept from the previous stage).
    size_t fromNothing = replayFromNothingLength(problem, anyOrder);
    ASSERT_LE(replayed.order.size(), fromNothing);
    reusing += replayed.order.size() < fromNothing;
  }
  EXPECT_GT(recomputing, 50);
  EXPECT_GT(reusing, 20);
}

TEST(ReorderedSchedules, SolveReorderedIsSound) {
  std::mt19937 rng(99);
  int plans = 0;
  for (int trial = 0; trial < 100; ++trial) {
    Problem problem =
        randomSingleSinkDag(rng, 4 + static_cast<int>(rng() % 30));
    int64_t budget = randomBudgetBelowPeak(rng, problem);
    SolveResult result = solveReordered(problem, budget, {}, solveGeneric);
    if (!result.hasSchedule())
      continue;
    ++plans;
    Evaluation eval = evaluateSchedule(problem, result.schedule);
    ASSERT_TRUE(eval.valid()) << eval.error << "\n" << describe(problem, budget);
    EXPECT_LE(eval.peakBytes, budget);
    EXPECT_EQ(eval.peakBytes, result.peakBytes);
    EXPECT_DOUBLE_EQ(eval.totalCost, result.cost);
  }
  EXPECT_GT(plans, 30);
  // Problems it does not apply to are refused.
  Problem fixed = randomSingleSinkDag(rng, 6);
  fixed.nodes[2].recomputable = false;
  SolveResult refused = solveReordered(fixed, 1000, {}, solveGeneric);
  EXPECT_FALSE(refused.hasSchedule());
  EXPECT_NE(refused.message.find("recomputable"), std::string::npos);
}

} // namespace
