//===- OptimalSolver.cpp - Every engine behind one interface --------------===//

#include "ckpt/Remat/OptimalSolver.h"

#include "ckpt/Remat/KeptSetSchedules.h"
#include "ckpt/Remat/LowerBound.h"

#include "StageSpace.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>

using namespace mlir::ckpt::remat;

namespace {

/// The best schedule seen so far.
struct Incumbent {
  const Problem &problem;
  int64_t budget;
  SolveResult best;

  /// Offers `schedule` found by `engine`; keeps it if it fits and is
  /// strictly cheaper (ties keep the earlier engine, so results do not
  /// depend on timing).
  void offer(Schedule schedule, const char *engine) {
    Evaluation eval = evaluateSchedule(problem, schedule);
    if (!eval.valid() || eval.peakBytes > budget)
      return;
    if (best.hasSchedule() && !(eval.totalCost < best.cost))
      return;
    best.status = SolveResult::Status::Feasible;
    best.schedule = std::move(schedule);
    best.cost = eval.totalCost;
    best.peakBytes = eval.peakBytes;
    best.engine = engine;
  }
};

/// Wall-clock seconds per engine, as "name:seconds" pairs.
class EngineTimes {
public:
  /// Runs `work` and records its time under `name`.
  template <typename Work> auto time(const char *name, Work work) {
    auto start = std::chrono::steady_clock::now();
    auto result = work();
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), "%s%s:%.3f",
                  text.empty() ? "" : ",", name, seconds);
    text += buffer;
    return result;
  }
  std::string text;
};

} // namespace

SolveResult mlir::ckpt::remat::solveOptimal(const Problem &problem,
                                            int64_t budgetBytes,
                                            const OptimalOptions &options) {
  detail::SolveClock clock;
  SolveResult result;
  if (!clock.accept(problem, result))
    return clock.finish(result);
  const double inf = std::numeric_limits<double>::infinity();

  EngineTimes times;
  CostLowerBound bound = times.time(
      "bound", [&] { return computeCostLowerBound(problem, budgetBytes); });
  if (bound.totalCost == inf) {
    result.status = SolveResult::Status::Infeasible;
    result.lowerBound = inf;
    result.message = "no schedule fits: proven by the memory bound at node " +
                     std::to_string(bound.node);
    return clock.finish(result);
  }

  Incumbent incumbent{problem, budgetBytes, {}};
  std::vector<std::string> notes;

  // Problems without a training form get the generic engine, and so do
  // small ones with it.
  bool runGeneric =
      options.generic == OptimalOptions::Generic::Always ||
      (options.generic == OptimalOptions::Generic::Auto &&
       (!isTrainingForm(problem) ||
        problem.nodes.size() <= options.maxGenericTrainingNodes));

  // Tiny problems: enumerate the stage space.
  if (options.exactEngines && stageSpaceBits(problem) <= kMaxExhaustiveBits) {
    SolveResult exact = times.time(
        "exhaustive", [&] { return solveExhaustive(problem, budgetBytes); });
    if (runGeneric && (exact.hasSchedule() ||
                       exact.status == SolveResult::Status::Infeasible)) {
      // The stage space is not every schedule: the generic engine's
      // eviction plans lie outside it, so they may fit where it has none,
      // or cost less.
      SolveResult generic = times.time("generic", [&] {
        return solveGeneric(problem, budgetBytes, options.genericOptions);
      });
      if (generic.hasSchedule() &&
          (!exact.hasSchedule() || generic.cost < exact.cost)) {
        generic.engine = "generic";
        generic.lowerBound = std::min(generic.cost, bound.totalCost);
        generic.message = "engine seconds " + times.text;
        return clock.finish(generic);
      }
    }
    exact.message = "engine seconds " + times.text;
    if (exact.status == SolveResult::Status::Infeasible) {
      exact.engine = "exhaustive";
      exact.lowerBound = std::max(exact.lowerBound, bound.totalCost);
      return clock.finish(exact);
    }
    if (exact.hasSchedule()) {
      exact.engine = "exhaustive";
      exact.lowerBound = std::max(bound.totalCost, exact.lowerBound);
      return clock.finish(exact);
    }
  }

  // The scalable engine, the seeds, the greedy search.
  SolveResult chain = times.time("segment-chain", [&] {
    return solveSegmentChain(problem, budgetBytes, options.chain);
  });
  if (chain.hasSchedule()) {
    if (chain.schedule.order.size() <= 20000)
      detail::dropNeedlessRecomputations(problem, budgetBytes, chain.schedule);
    incumbent.offer(std::move(chain.schedule), "segment-chain");
  } else {
    notes.push_back("segment-chain: " + chain.message);
  }
  for (const std::vector<bool> &seed : options.seeds)
    if (seed.size() == problem.nodes.size())
      incumbent.offer(scheduleDroppingNodes(problem, seed), "baseline");
  if (problem.nodes.size() <= options.maxGreedyNodes) {
    GreedyResult greedy = times.time("greedy", [&] {
      return searchDropsGreedily(problem, budgetBytes, options.seeds);
    });
    if (!greedy.drop.empty())
      incumbent.offer(scheduleDroppingNodes(problem, greedy.drop), "greedy");
  }

  // The generic engine (see runGeneric). On larger training-form problems
  // (Auto) it is the last resort when the engines above found no plan: its
  // eviction and recomputation of forward values for later forward reads
  // may fit where they do not.
  if (runGeneric || (options.generic == OptimalOptions::Generic::Auto &&
                     !incumbent.best.hasSchedule())) {
    SolveResult generic = times.time("generic", [&] {
      return solveGeneric(problem, budgetBytes, options.genericOptions);
    });
    if (generic.hasSchedule()) {
      incumbent.offer(std::move(generic.schedule), "generic");
    } else if (generic.status == SolveResult::Status::Infeasible &&
               !incumbent.best.hasSchedule()) {
      // Its backward search visited every set within the budget: no
      // schedule at all fits, so the MILP need not look.
      generic.engine = "generic";
      generic.message = "engine seconds " + times.text + "; " + generic.message;
      return clock.finish(generic);
    } else {
      notes.push_back("generic: " + generic.message);
    }
  }

  // Small problems: the MILP certifies, or improves.
  double stageBound = 0;
  bool proven = false;
  if (options.exactEngines && problem.nodes.size() <= options.maxMilpNodes) {
    MilpOptions milpOptions;
    milpOptions.timeLimitSeconds = options.milpTimeLimitSeconds;
    milpOptions.progress = options.milpProgress;
    // The MIP start: on problems without a training form (where every
    // value may be recomputed, so the model is much larger), CBC 2.10 spends
    // minutes outside its time limit completing a start (measured: 100 s for
    // the 100-node random layered graph), so it gets none there.
    if (incumbent.best.hasSchedule() && isTrainingForm(problem))
      milpOptions.start = &incumbent.best.schedule;
    SolveResult milp = times.time(
        "milp", [&] { return solveMilp(problem, budgetBytes, milpOptions); });
    if (milp.status == SolveResult::Status::Infeasible &&
        !incumbent.best.hasSchedule()) {
      milp.engine = "milp";
      return clock.finish(milp);
    }
    if (milp.hasSchedule()) {
      stageBound = milp.lowerBound;
      if (milp.status == SolveResult::Status::Optimal &&
          !(incumbent.best.hasSchedule() && incumbent.best.cost < milp.cost)) {
        // Prefer a heuristic plan of the same cost (it is already checked);
        // otherwise the MILP's.
        if (!incumbent.best.hasSchedule() || milp.cost < incumbent.best.cost)
          incumbent.offer(std::move(milp.schedule), "milp");
        proven = true;
      } else {
        incumbent.offer(std::move(milp.schedule), "milp");
      }
    } else {
      notes.push_back("milp: " + milp.message);
    }
  }

  result = std::move(incumbent.best);
  if (!result.hasSchedule()) {
    result.status = SolveResult::Status::Unknown;
    result.lowerBound = bound.totalCost;
    result.message = "no engine found a schedule within the budget";
    for (const std::string &note : notes)
      result.message += "; " + note;
    return clock.finish(result);
  }
  result.message = "engine seconds " + times.text;
  if (proven)
    result.status = SolveResult::Status::Optimal;
  result.lowerBound =
      std::min(result.cost, std::max(bound.totalCost, stageBound));
  return clock.finish(result);
}
