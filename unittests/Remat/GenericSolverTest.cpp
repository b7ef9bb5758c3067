//===- GenericSolverTest.cpp - Rematerialization without a training form --===//

#include "ckpt/Remat/GenericSolver.h"
#include "ckpt/Remat/ExactSolvers.h"
#include "ckpt/Remat/LowerBound.h"
#include "ckpt/Remat/OptimalSolver.h"

#include "RematTestSupport.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <limits>
#include <random>

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::testing;
using Status = SolveResult::Status;

namespace {

/// A random DAG with no forward/backward split, like the random layered
/// benchmark graphs: every node is recomputable, reads one to three earlier
/// nodes (mostly recent ones, sometimes far back: skip connections), and the
/// sinks are the outputs.
Problem randomGenericDag(std::mt19937 &rng, int n) {
  Problem problem;
  for (int i = 0; i < n; ++i) {
    std::vector<int32_t> deps;
    int reads = i == 0 ? 0 : 1 + static_cast<int>(rng() % 3);
    for (int r = 0; r < reads; ++r) {
      int back = rng() % 4 == 0 ? 1 + static_cast<int>(rng() % i)
                                : 1 + static_cast<int>(rng() % std::min(i, 3));
      int32_t dep = i - back;
      if (std::find(deps.begin(), deps.end(), dep) == deps.end())
        deps.push_back(dep);
    }
    std::sort(deps.begin(), deps.end());
    // Drawn in separate statements, last argument first: the order in which
    // function arguments are evaluated is unspecified (gcc and clang differ),
    // and the random problems must not depend on the compiler.
    auto bytes = 1 + rng() % 16;
    double cost = static_cast<double>(rng() % 10);
    addNode(problem, cost, bytes, deps);
  }
  std::vector<bool> read(n, false);
  for (const Node &node : problem.nodes)
    for (int32_t dep : node.deps)
      read[dep] = true;
  for (int i = 0; i < n; ++i)
    problem.nodes[i].isOutput = !read[i];
  return problem;
}

/// Checks a generic result: valid, within the budget, its reported figures
/// are the evaluator's, and it costs at least the proven bound.
void expectSound(const Problem &problem, int64_t budget,
                 const SolveResult &result) {
  ASSERT_TRUE(result.hasSchedule());
  Evaluation eval = evaluateSchedule(problem, result.schedule);
  ASSERT_TRUE(eval.valid()) << eval.error;
  EXPECT_LE(eval.peakBytes, budget);
  EXPECT_DOUBLE_EQ(eval.totalCost, result.cost);
  EXPECT_EQ(eval.peakBytes, result.peakBytes);
  CostLowerBound bound = computeCostLowerBound(problem, budget);
  EXPECT_LE(bound.totalCost, result.cost + 1e-9);
}

TEST(GenericSolver, TrainingForm) {
  Problem problem;
  addNode(problem, 1, 1, {});
  addNode(problem, 1, 1, {0});
  EXPECT_FALSE(isTrainingForm(problem)); // No backward part.
  addNode(problem, 1, 1, {1}, false);
  EXPECT_TRUE(isTrainingForm(problem));
  addNode(problem, 1, 1, {2});
  EXPECT_FALSE(isTrainingForm(problem)); // Forward after backward.
  Problem backwardOnly;
  addNode(backwardOnly, 1, 1, {}, false);
  EXPECT_FALSE(isTrainingForm(backwardOnly));
}

// A value read early and late: the only way under the budget is to free it
// after its first read and recompute it before the last one, which no
// training-form engine considers (nothing here is a backward node).
TEST(GenericSolver, RecomputesForALaterForwardRead) {
  Problem problem;
  int32_t a = addNode(problem, 1, 10, {}); // read at once and at the end
  int32_t b = addNode(problem, 5, 1, {a});
  int32_t c = addNode(problem, 5, 10, {b}); // large, while a is idle
  int32_t d = addNode(problem, 5, 1, {c});
  addNode(problem, 5, 1, {a, d});
  problem.nodes.back().isOutput = true;
  int64_t peak = noRecomputePeak(problem);
  EXPECT_EQ(peak, 21); // a, b, c live together.
  SolveResult result = solveGeneric(problem, 12);
  SCOPED_TRACE(describe(problem, 12) + describe(result));
  expectSound(problem, 12, result);
  EXPECT_DOUBLE_EQ(result.cost, problem.baseCost() + 1); // a once more.
  int count = 0;
  for (int32_t id : result.schedule.order)
    count += id == a;
  EXPECT_EQ(count, 2);
}

// Non-recomputable nodes are computed once and kept for their reads; the
// engine still fits by recomputing the others.
TEST(GenericSolver, NonRecomputableNodesStay) {
  Problem problem;
  int32_t a = addNode(problem, 3, 8, {}, false);
  int32_t b = addNode(problem, 1, 8, {a});
  int32_t c = addNode(problem, 1, 8, {b});
  int32_t d = addNode(problem, 1, 8, {c});
  addNode(problem, 1, 1, {a, b, d});
  problem.nodes.back().isOutput = true;
  int64_t budget = 8 * 3 + 1;
  SolveResult result = solveGeneric(problem, budget);
  SCOPED_TRACE(describe(problem, budget) + describe(result));
  expectSound(problem, budget, result);
  size_t seen = 0;
  for (int32_t id : result.schedule.order)
    seen += id == a;
  EXPECT_EQ(seen, 1u);
}

// Property: on random generic DAGs the engine's result is valid, within the
// budget and above the proven bound. Its gap search stays in Checkmate's
// stage space, so it never beats the exhaustive optimum there, and equals it
// on most tiny problems; its eviction simulation may leave the stage space
// (e.g. recompute an output at the very end) and then fit where the stage
// space has no plan, or cost less. `optimal` takes the better of the two.
TEST(GenericSolver, RandomDagsAgainstExhaustive) {
  std::mt19937 rng(23);
  int compared = 0, equal = 0, solved = 0, feasible = 0, beyond = 0;
  double worstRatio = 1;
  for (int trial = 0; trial < 400; ++trial) {
    Problem problem = randomGenericDag(rng, 3 + trial % 4);
    int64_t budget = randomBudgetAboveFloor(rng, problem);
    SolveResult exact = solveExhaustive(problem, budget);
    SolveResult generic = solveGeneric(problem, budget);
    SCOPED_TRACE(describe(problem, budget) + "exhaustive: " + describe(exact) +
                 "\ngeneric: " + describe(generic));
    if (generic.hasSchedule()) {
      ++solved;
      expectSound(problem, budget, generic);
    }
    if (exact.status == Status::Unknown)
      continue;
    bool evicted = generic.fromEviction;
    OptimalOptions options;
    SolveResult best = solveOptimal(problem, budget, options);
    if (!exact.hasSchedule()) {
      // Only a plan outside the stage space can fit here.
      if (generic.hasSchedule()) {
        EXPECT_TRUE(evicted);
        ++beyond;
        EXPECT_TRUE(best.hasSchedule());
      }
      continue;
    }
    ++feasible;
    ASSERT_TRUE(best.hasSchedule());
    EXPECT_LE(best.cost, exact.cost + 1e-9);
    if (!generic.hasSchedule())
      continue;
    EXPECT_NEAR(best.cost, std::min(exact.cost, generic.cost), 1e-9);
    ++compared;
    if (!evicted) {
      EXPECT_GE(generic.cost, exact.cost - 1e-9);
    } else if (generic.cost < exact.cost - 1e-9) {
      ++beyond;
    }
    if (generic.cost <= exact.cost + 1e-9)
      ++equal;
    worstRatio = std::max(worstRatio, generic.cost / exact.cost);
  }
  std::printf("generic vs exhaustive: %d feasible, %d solved by the engine, "
              "%d as cheap (%.1f%%), worst ratio %.3f; %d plans beyond the "
              "stage space (fitting where it has none, or cheaper)\n",
              feasible, compared, equal, 100.0 * equal / std::max(compared, 1),
              worstRatio, beyond);
  EXPECT_GT(feasible, 200);
  // Measured (seed 23): see docs/checkpointing.md; thresholds guard against
  // regressions.
  EXPECT_GE(compared, feasible * 95 / 100);
  EXPECT_GE(equal, compared * 90 / 100);
  EXPECT_GT(solved, 0);
}

// `optimal` on a tiny problem where the generic engine's eviction plan,
// outside the stage space, fits where the stage space has no plan or costs
// less than its optimum: `optimal` returns that plan, named "generic", with
// its bound no higher than its cost. The first such instance of the seed
// above (RandomDagsAgainstExhaustive counts them all).
TEST(Optimal, TakesTheGenericPlanBeyondTheStageSpace) {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 400; ++trial) {
    Problem problem = randomGenericDag(rng, 3 + trial % 4);
    int64_t budget = randomBudgetAboveFloor(rng, problem);
    SolveResult exact = solveExhaustive(problem, budget);
    if (exact.status == Status::Unknown)
      continue;
    SolveResult generic = solveGeneric(problem, budget);
    if (!generic.hasSchedule() ||
        (exact.hasSchedule() && generic.cost >= exact.cost - 1e-9))
      continue;
    SolveResult best = solveOptimal(problem, budget, OptimalOptions());
    SCOPED_TRACE(describe(problem, budget) + "exhaustive: " + describe(exact) +
                 "\ngeneric: " + describe(generic) + "\noptimal: " +
                 describe(best));
    EXPECT_EQ(best.engine, Engine::Generic);
    EXPECT_NEAR(best.cost, generic.cost, 1e-9);
    EXPECT_LE(best.lowerBound, best.cost + 1e-9);
    expectSound(problem, budget, best);
    if (exact.hasSchedule())
      std::printf("trial %d: the generic engine's plan costs %g, the stage "
                  "space's optimum %g\n",
                  trial, generic.cost, exact.cost);
    else
      std::printf("trial %d: the generic engine's plan costs %g; the stage "
                  "space has none within the budget\n",
                  trial, generic.cost);
    return;
  }
  ADD_FAILURE() << "no instance where the generic engine beats the stage space";
}

// Larger random DAGs: sound at every budget down to near the floor, zero
// overhead at the no-recompute peak, deterministic.
TEST(GenericSolver, LargerDagsAreSoundAndDeterministic) {
  std::mt19937 rng(31);
  int solved = 0, attempted = 0;
  for (int trial = 0; trial < 30; ++trial) {
    Problem problem = randomGenericDag(rng, 40 + trial * 7);
    int64_t peak = noRecomputePeak(problem);
    for (double fraction : {1.0, 0.9, 0.7, 0.5}) {
      int64_t budget = static_cast<int64_t>(peak * fraction);
      if (budget < computeCostLowerBound(problem, budget).memoryFloor)
        continue;
      ++attempted;
      GenericOptions options;
      options.maxWork = 20'000'000;
      SolveResult result = solveGeneric(problem, budget, options);
      SCOPED_TRACE(describe(problem, budget) + describe(result));
      if (fraction == 1.0) {
        ASSERT_TRUE(result.hasSchedule());
        EXPECT_DOUBLE_EQ(result.cost, problem.baseCost());
      }
      if (!result.hasSchedule())
        continue;
      ++solved;
      expectSound(problem, budget, result);
      SolveResult again = solveGeneric(problem, budget, options);
      EXPECT_EQ(again.schedule.order, result.schedule.order);
    }
  }
  std::printf("larger generic DAGs: %d of %d cells above the proven floor "
              "solved\n",
              solved, attempted);
  // Measured (seed 31): see docs/checkpointing.md. Cells just above the
  // proven floor may have no plan at all; the descent also misses some.
  EXPECT_GE(solved, attempted * 6 / 10);
}

} // namespace

namespace {

// The acceptance figure on small random DAGs without a training form: how
// often, where the MILP proves optimality (within the stage space), the
// generic engine's plan costs at most 1% more. It does not always (tight
// budgets); the figures are printed and reported in docs/checkpointing.md.
TEST(GenericSolver, WithinOnePercentOfProvenMilp) {
  std::mt19937 rng(41);
  int proven = 0, within = 0, equal = 0, unsolved = 0;
  double worst = 1;
  for (int trial = 0; trial < 30; ++trial) {
    Problem problem = randomGenericDag(rng, 8 + trial % 4);
    int64_t budget = randomBudgetAboveFloor(rng, problem);
    SolveResult milp = solveMilp(problem, budget, 10.0);
    if (milp.status != Status::Optimal)
      continue;
    ++proven;
    SolveResult generic = solveGeneric(problem, budget);
    SCOPED_TRACE(describe(problem, budget) + "milp: " + describe(milp) +
                 "\ngeneric: " + describe(generic));
    if (!generic.hasSchedule()) {
      ++unsolved;
      continue;
    }
    expectSound(problem, budget, generic);
    double ratio = generic.cost / milp.cost;
    worst = std::max(worst, ratio);
    within += ratio <= 1.01 + 1e-12;
    equal += ratio <= 1 + 1e-12;
  }
  std::printf("generic vs proven MILP optima: %d proven, %d without a plan, "
              "%d within 1%%, %d as cheap, worst ratio %.4f\n",
              proven, unsolved, within, equal, worst);
  // Measured (seed 41): see docs/checkpointing.md. The 1% target is not
  // met on every proven cell; these thresholds guard the measured level.
  EXPECT_GT(proven, 12);
  EXPECT_GE(within, (proven - unsolved) * 7 / 10);
}

} // namespace

namespace {

/// The smallest budget within [lo, hi] at which the exhaustive enumeration
/// of the stage space has a plan (`hi` must be one where it has); bisection,
/// since a stage-space plan within a budget is within every larger one.
int64_t smallestExhaustiveBudget(const Problem &problem, int64_t lo,
                                 int64_t hi) {
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (solveExhaustive(problem, mid).hasSchedule())
      hi = mid;
    else
      lo = mid + 1;
  }
  return hi;
}

/// Plans with and without the fallback descents.
struct FallbackTally {
  int solved = 0, solvedWithout = 0;
};

/// Solves with `options` and again without the fallback descents: a cell
/// solved without them must be solved with them, at most as expensively,
/// and every plan must be sound. Returns the result with them.
SolveResult solveWithAndWithoutFallbacks(const Problem &problem,
                                         int64_t budget,
                                         const GenericOptions &options,
                                         FallbackTally &tally) {
  GenericOptions without = options;
  without.fallbackDescents = 0;
  SolveResult result = solveGeneric(problem, budget, options);
  SolveResult plain = solveGeneric(problem, budget, without);
  SCOPED_TRACE(describe(problem, budget) + describe(result) +
               "\nwithout fallbacks: " + describe(plain));
  if (plain.hasSchedule()) {
    ++tally.solvedWithout;
    EXPECT_TRUE(result.hasSchedule());
    if (result.hasSchedule()) {
      EXPECT_LE(result.cost, plain.cost + 1e-9);
    }
  }
  if (result.hasSchedule()) {
    ++tally.solved;
    expectSound(problem, budget, result);
  }
  return result;
}

// At the smallest budget of any schedule (brute force over all schedules,
// not only the stage space), on tiny random DAGs: every plan the engine and
// `optimal` return is sound, and they find one on most cells.
TEST(GenericSolver, SmallestBudgetOfAnySchedule) {
  std::mt19937 rng(61);
  int cells = 0, generic = 0, optimal = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Problem problem = randomGenericDag(rng, 3 + trial % 7);
    int64_t budget = smallestPeakOfAnySchedule(problem);
    ASSERT_NE(budget, std::numeric_limits<int64_t>::max());
    ++cells;
    SolveResult result = solveGeneric(problem, budget);
    SCOPED_TRACE(describe(problem, budget) + "generic: " + describe(result));
    if (result.hasSchedule()) {
      ++generic;
      expectSound(problem, budget, result);
    }
    OptimalOptions options;
    options.maxMilpNodes = 0; // enumeration still runs on these sizes
    SolveResult best = solveOptimal(problem, budget, options);
    if (best.hasSchedule()) {
      ++optimal;
      expectSound(problem, budget, best);
    }
  }
  std::printf("smallest budgets of any schedule: %d cells, the generic engine "
              "solves %d, optimal %d\n",
              cells, generic, optimal);
  EXPECT_GE(generic, cells * 8 / 10);
  EXPECT_GE(optimal, generic);
}

// Tight budgets on small random DAGs: at the smallest budget where the
// exhaustive enumeration of the stage space still has a plan, the engine
// finds one in most cases; its gap-search plans never beat the optimum of
// the stage space they lie in; the fallback descents only add plans.
TEST(GenericSolver, TightestStageSpaceBudgets) {
  std::mt19937 rng(53);
  int cells = 0;
  FallbackTally tally;
  for (int trial = 0; trial < 60; ++trial) {
    Problem problem = randomGenericDag(rng, 5 + trial % 2);
    int64_t peak = noRecomputePeak(problem);
    int64_t floor = computeMemoryFloor(problem).bytes;
    int64_t budget = smallestExhaustiveBudget(problem, floor, peak);
    SolveResult exact = solveExhaustive(problem, budget);
    ASSERT_TRUE(exact.hasSchedule());
    ++cells;
    SolveResult generic =
        solveWithAndWithoutFallbacks(problem, budget, {}, tally);
    SCOPED_TRACE(describe(problem, budget) + "exhaustive: " + describe(exact) +
                 "\ngeneric: " + describe(generic));
    if (generic.hasSchedule() && !generic.fromEviction) {
      EXPECT_GE(generic.cost, exact.cost - 1e-9);
    }
  }
  std::printf("tightest stage-space budgets: %d cells, the engine solves %d "
              "(%d without the fallback descents)\n",
              cells, tally.solved, tally.solvedWithout);
  EXPECT_GE(tally.solved, tally.solvedWithout);
  // Measured (seed 53): 59 of 60 solved, 57 without the fallbacks; the
  // threshold guards the level.
  EXPECT_GE(tally.solved, cells * 9 / 10);
}

// Larger random DAGs at tight budgets (30-60% of the way from the proven
// floor to the no-recompute peak), where the first descent often gets
// stuck: the fallback descents find plans there that the engine without
// them (first descent, then the eviction simulation) misses, every one
// sound, and the same on a second run.
TEST(GenericSolver, FallbackDescentsFitTighterBudgets) {
  std::mt19937 rng(67);
  int attempted = 0;
  FallbackTally tally;
  GenericOptions options;
  options.maxWork = 20'000'000;
  for (int trial = 0; trial < 24; ++trial) {
    Problem problem = randomGenericDag(rng, 30 + trial * 5);
    int64_t peak = noRecomputePeak(problem);
    int64_t floor = computeMemoryFloor(problem).bytes;
    for (int percent : {30, 45, 60}) {
      int64_t budget = floor + (peak - floor) * percent / 100;
      ++attempted;
      SolveResult result =
          solveWithAndWithoutFallbacks(problem, budget, options, tally);
      if (!result.hasSchedule())
        continue;
      SolveResult again = solveGeneric(problem, budget, options);
      EXPECT_EQ(again.schedule.order, result.schedule.order)
          << describe(problem, budget);
    }
  }
  std::printf("budgets near the floor: %d cells, %d solved, %d without the "
              "fallback descents\n",
              attempted, tally.solved, tally.solvedWithout);
  // Measured (seed 67): 24 of 72 solved, 17 without; the threshold guards
  // the gain.
  EXPECT_GE(tally.solved, tally.solvedWithout + 5);
}

// A training step (forward prefix, backward suffix) whose only plans
// recompute a forward value for a later forward read: the training-form
// engines find none, so `optimal` (exact engines off) falls back to the
// generic engine.
TEST(GenericSolver, OptimalFallsBackOnTrainingForm) {
  Problem problem;
  int32_t a = addNode(problem, 1, 10, {}); // read at once and much later
  int32_t b = addNode(problem, 5, 1, {a});
  int32_t c = addNode(problem, 5, 10, {b}); // large, while a is idle
  int32_t d = addNode(problem, 5, 1, {c});
  int32_t e = addNode(problem, 5, 1, {a, d});
  addNode(problem, 1, 1, {e}, false); // the backward part
  problem.nodes.back().isOutput = true;
  ASSERT_TRUE(isTrainingForm(problem));
  const int64_t budget = 12;
  OptimalOptions options;
  options.exactEngines = ExactEngines::None;
  OptimalOptions never = options;
  never.generic = OptimalOptions::Generic::Never;
  SolveResult without = solveOptimal(problem, budget, never);
  SolveResult result = solveOptimal(problem, budget, options);
  SCOPED_TRACE(describe(problem, budget) + describe(result) +
               "\nwithout the generic engine: " + describe(without));
  EXPECT_FALSE(without.hasSchedule());
  ASSERT_TRUE(result.hasSchedule());
  EXPECT_EQ(result.engine, Engine::Generic);
  expectSound(problem, budget, result);
}

} // namespace
