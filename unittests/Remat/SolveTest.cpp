//===- SolveTest.cpp - Strategy names and the `solve` entry point --------===//
//
// The strategy names round-trip through `parseStrategy`; `solve` runs the
// engine of each engine strategy (the same answer as calling the engine
// directly) and names it in the typed `engine` field; `optimal` reports its
// engine times as typed fields, in the order of its engine list.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/Solve.h"
#include "ckpt/Remat/GenericSolver.h"
#include "ckpt/Remat/LowerBound.h"
#include "ckpt/Remat/OptimalSolver.h"
#include "ckpt/Remat/SegmentChainSolver.h"

#include "RematTestSupport.h"

#include "gtest/gtest.h"

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::testing;
using Status = SolveResult::Status;

namespace {

/// A training chain of `layers` forward nodes (recomputable) and as many
/// backward nodes, each backward node reading its forward node and the
/// gradient before it.
Problem trainingChain(int layers) {
  Problem problem;
  for (int i = 0; i < layers; ++i)
    addNode(problem, 1 + i % 3, 4 + 2 * (i % 2),
            i ? std::vector<int32_t>{i - 1} : std::vector<int32_t>{});
  int32_t grad = -1;
  for (int i = layers - 1; i >= 0; --i) {
    std::vector<int32_t> deps{i};
    if (grad >= 0)
      deps.push_back(grad);
    grad = addNode(problem, 2, 3, deps, /*recomputable=*/false);
  }
  problem.nodes.back().isOutput = true;
  return problem;
}

/// A budget halfway between the proven floor and the no-recompute peak.
int64_t middleBudget(const Problem &problem) {
  int64_t peak = noRecomputePeak(problem);
  int64_t floor = computeProvenFloor(problem).bytes;
  return floor + (peak - floor) / 2;
}

TEST(Solve, StrategyNamesRoundTrip) {
  const Strategy all[] = {
      Strategy::None,      Strategy::Full,    Strategy::Sqrt,
      Strategy::Selective, Strategy::Greedy,  Strategy::Chain,
      Strategy::Generic,   Strategy::Optimal, Strategy::Exact};
  for (Strategy strategy : all) {
    std::optional<Strategy> parsed = parseStrategy(strategyName(strategy));
    ASSERT_TRUE(parsed.has_value()) << strategyName(strategy);
    EXPECT_EQ(*parsed, strategy);
  }
  EXPECT_FALSE(parseStrategy("Optimal").has_value());
  EXPECT_FALSE(parseStrategy("").has_value());
  EXPECT_FALSE(parseStrategy("milp").has_value());
  // The list the pass prints for an unknown strategy.
  EXPECT_EQ(strategyNameList(), "none, full, sqrt, selective, greedy, chain, "
                                "generic, optimal or exact");
  EXPECT_FALSE(needsBudget(Strategy::Sqrt));
  EXPECT_TRUE(needsBudget(Strategy::Greedy));
  EXPECT_FALSE(isEngineStrategy(Strategy::Greedy));
  EXPECT_TRUE(isEngineStrategy(Strategy::Exact));
}

TEST(Solve, EngineNamesAndTimes) {
  EXPECT_STREQ(engineName(Engine::SegmentChain), "segment-chain");
  EXPECT_STREQ(engineName(Engine::None), "");
  EXPECT_EQ(formatEngineSeconds(
                {{Engine::Bound, 0.0012}, {Engine::SegmentChain, 0.1204}}),
            "bound:0.001,segment-chain:0.120");
  EXPECT_EQ(formatEngineSeconds({}), "");
}

// Each engine strategy runs its engine: the same plan as the engine called
// directly (all are deterministic), named in `engine`.
TEST(Solve, DispatchesToTheEngine) {
  Problem problem = trainingChain(8);
  int64_t budget = middleBudget(problem);
  ASSERT_LT(budget, noRecomputePeak(problem));

  SolveResult chain = solve(Strategy::Chain, problem, budget, {});
  SolveResult direct = solveSegmentChain(problem, budget);
  ASSERT_TRUE(chain.hasSchedule()) << describe(chain);
  EXPECT_EQ(chain.engine, Engine::SegmentChain);
  EXPECT_EQ(chain.schedule.order, direct.schedule.order);

  SolveResult generic = solve(Strategy::Generic, problem, budget, {});
  SolveResult genericDirect = solveGeneric(problem, budget);
  EXPECT_EQ(generic.engine, Engine::Generic);
  EXPECT_EQ(generic.status, genericDirect.status);
  EXPECT_EQ(generic.schedule.order, genericDirect.schedule.order);

  SolveOptions options;
  options.timeLimitSeconds = 5;
  SolveResult optimal = solve(Strategy::Optimal, problem, budget, options);
  OptimalOptions optimalOptions;
  optimalOptions.milpTimeLimitSeconds = 5;
  SolveResult optimalDirect = solveOptimal(problem, budget, optimalOptions);
  ASSERT_TRUE(optimal.hasSchedule()) << describe(optimal);
  EXPECT_EQ(optimal.engine, optimalDirect.engine);
  EXPECT_EQ(optimal.cost, optimalDirect.cost);
  // The bound runs first; every engine's time is typed.
  ASSERT_FALSE(optimal.engineSeconds.empty());
  EXPECT_EQ(optimal.engineSeconds.front().engine, Engine::Bound);
  for (const EngineTime &time : optimal.engineSeconds)
    EXPECT_GE(time.seconds, 0);

  SolveResult exact = solve(Strategy::Exact, problem, budget, options);
  EXPECT_EQ(exact.engine, Engine::Milp);
  ASSERT_TRUE(exact.hasSchedule()) << describe(exact);
  EXPECT_LE(optimal.cost, exact.cost + 1e-9);
}

// Where everything fits, `generic` keeps everything without searching.
TEST(Solve, GenericKeepsEverythingWhereItFits) {
  Problem problem = trainingChain(5);
  SolveResult result =
      solve(Strategy::Generic, problem, noRecomputePeak(problem), {});
  ASSERT_TRUE(result.hasSchedule());
  EXPECT_EQ(result.engine, Engine::Generic);
  EXPECT_EQ(result.schedule.order, Schedule::identity(problem).order);
}

// Below the proven floor `exact` answers Infeasible without a MILP, and says
// which floor; a baseline strategy or a missing budget is refused.
TEST(Solve, RefusesWhatItCannotSolve) {
  Problem problem = trainingChain(5);
  int64_t floor = computeProvenFloor(problem).bytes;
  SolveResult below = solve(Strategy::Exact, problem, floor - 1, {});
  EXPECT_EQ(below.status, Status::Infeasible);
  EXPECT_EQ(below.engine, Engine::Milp);
  // The floor it proved this with travels in the result, for the report.
  ASSERT_TRUE(below.floor.has_value());
  EXPECT_EQ(below.floor->bytes, floor);
  EXPECT_EQ(below.floor->node, computeProvenFloor(problem).node);
  // Engines that compute no floor report none.
  SolveResult chain =
      solve(Strategy::Chain, problem, noRecomputePeak(problem), {});
  EXPECT_FALSE(chain.floor.has_value());

  SolveResult baseline =
      solve(Strategy::Sqrt, problem, noRecomputePeak(problem), {});
  EXPECT_EQ(baseline.status, Status::Unknown);
  EXPECT_FALSE(baseline.hasSchedule());

  SolveResult noBudget = solve(Strategy::Chain, problem, -1, {});
  EXPECT_EQ(noBudget.status, Status::Unknown);
}

} // namespace
