//===- OptimalSolver.cpp - Every engine behind one interface --------------===//
//
// `solveOptimal` is the ordered list `kOptimalEngines` below: each entry names
// an engine, says on which runs it applies (a predicate over the problem,
// the options and what the entries before it found) and runs it; one loop
// goes through the list. An entry may settle the answer (a proof that
// nothing fits, or the exact engines' plan); otherwise the cheapest plan
// offered wins, ties to the earlier entry.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Remat/OptimalSolver.h"

#include "ckpt/Remat/KeptSetSchedules.h"
#include "ckpt/Remat/LowerBound.h"

#include "ScheduleCheck.h"
#include "SolveClock.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>

using namespace mlir::ckpt::remat;

namespace {

/// What the entries of one `solveOptimal` run share.
struct OptimalRun {
  const Problem &problem;
  int64_t budget;
  const OptimalOptions &options;
  /// Whether the generic engine runs beside the others (`OptimalOptions::
  /// Generic`): on problems without a training form, and on small ones
  /// with it.
  bool genericBeside = false;
  /// The proven bound over every valid schedule (the first entry).
  CostLowerBound bound;
  /// The enumeration's answer, when it ran.
  std::optional<SolveResult> exhaustive;
  /// The best schedule offered so far.
  SolveResult best;
  /// Why engines found nothing, for an Unknown answer.
  std::vector<std::string> notes;
  /// The seconds of each engine that ran.
  std::vector<EngineTime> times;
  /// The engine of the entry that runs now (what `time` records).
  Engine current = Engine::None;
  /// The MILP's bound over the stage space, and whether it proved the best
  /// schedule optimal there.
  double stageBound = 0;
  bool proven = false;
  /// The answer, when an entry settles it.
  SolveResult answer;

  /// Runs `work` and records its wall-clock time under the current engine.
  template <typename Work> auto time(Work work) {
    auto start = std::chrono::steady_clock::now();
    auto result = work();
    times.push_back({current, std::chrono::duration<double>(
                                  std::chrono::steady_clock::now() - start)
                                  .count()});
    return result;
  }

  /// Offers `schedule` found by `engine`; keeps it if it fits and is
  /// strictly cheaper (ties keep the earlier engine, so results do not
  /// depend on timing).
  void offer(Schedule schedule, Engine engine) {
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

  /// Settles the answer as `result`, found by `engine`.
  bool settle(SolveResult result, Engine engine) {
    answer = std::move(result);
    answer.engine = engine;
    return true;
  }

  /// "engine seconds " and the times so far, for the message.
  std::string engineSecondsText() const {
    return "engine seconds " + formatEngineSeconds(times);
  }
};

/// One engine of `solveOptimal`: whether it runs, and how. `run` returns
/// true when its answer settles the run (`OptimalRun::answer`).
struct EngineEntry {
  Engine engine;
  bool (*applies)(const OptimalRun &);
  bool (*run)(OptimalRun &);
};

bool appliesAlways(const OptimalRun &) { return true; }

/// The bound: settles the run when it proves that nothing fits.
bool runBoundEntry(OptimalRun &run) {
  run.bound =
      run.time([&] { return computeCostLowerBound(run.problem, run.budget); });
  if (run.bound.totalCost != std::numeric_limits<double>::infinity())
    return false;
  SolveResult infeasible;
  infeasible.status = SolveResult::Status::Infeasible;
  infeasible.lowerBound = std::numeric_limits<double>::infinity();
  infeasible.message = "no schedule fits: proven by the memory bound at node " +
                       std::to_string(run.bound.node);
  return run.settle(std::move(infeasible), Engine::None);
}

/// Whether the enumeration answered (a plan, or a proof that none fits).
bool exhaustiveAnswered(const OptimalRun &run) {
  return run.exhaustive &&
         (run.exhaustive->hasSchedule() ||
          run.exhaustive->status == SolveResult::Status::Infeasible);
}

/// Settles the run with the enumeration's answer.
bool settleExhaustive(OptimalRun &run) {
  SolveResult exact = std::move(*run.exhaustive);
  exact.message = run.engineSecondsText();
  exact.lowerBound = std::max(exact.lowerBound, run.bound.totalCost);
  return run.settle(std::move(exact), Engine::Exhaustive);
}

/// Tiny problems: enumerate the stage space. Its answer settles the run,
/// unless the generic engine runs beside it (the next entry).
bool appliesExhaustive(const OptimalRun &run) {
  return run.options.exactEngines != ExactEngines::None &&
         stageSpaceBits(run.problem) <= kMaxExhaustiveBits;
}
bool runExhaustiveEntry(OptimalRun &run) {
  run.exhaustive =
      run.time([&] { return solveExhaustive(run.problem, run.budget); });
  if (!exhaustiveAnswered(run) || run.genericBeside)
    return false;
  return settleExhaustive(run);
}

/// The stage space is not every schedule: the generic engine's eviction
/// plans lie outside it, so they may fit where it has none, or cost less.
/// Settles the run with the cheaper of the two.
bool appliesGenericBesideExhaustive(const OptimalRun &run) {
  return run.genericBeside && exhaustiveAnswered(run);
}
bool runGenericBesideExhaustiveEntry(OptimalRun &run) {
  SolveResult generic = run.time([&] {
    return solveGeneric(run.problem, run.budget, run.options.genericOptions);
  });
  const SolveResult &exact = *run.exhaustive;
  if (!generic.hasSchedule() ||
      (exact.hasSchedule() && !(generic.cost < exact.cost)))
    return settleExhaustive(run);
  generic.lowerBound = std::min(generic.cost, run.bound.totalCost);
  generic.message = run.engineSecondsText();
  return run.settle(std::move(generic), Engine::Generic);
}

/// The scalable engine.
bool runChainEntry(OptimalRun &run) {
  SolveResult chain = run.time([&] {
    return solveSegmentChain(run.problem, run.budget, run.options.chain);
  });
  if (!chain.hasSchedule()) {
    run.notes.push_back("segment-chain: " + chain.message);
    return false;
  }
  if (chain.schedule.order.size() <= 20000)
    detail::dropNeedlessRecomputations(run.problem, run.budget, chain.schedule);
  run.offer(std::move(chain.schedule), Engine::SegmentChain);
  return false;
}

/// The seeds (not timed: their plans are given).
bool runBaselineEntry(OptimalRun &run) {
  for (const std::vector<bool> &seed : run.options.seeds)
    if (seed.size() == run.problem.nodes.size())
      run.offer(scheduleDroppingNodes(run.problem, seed), Engine::Baseline);
  return false;
}

/// The greedy search (quadratic, so only up to `maxGreedyNodes`).
bool appliesGreedy(const OptimalRun &run) {
  return run.problem.nodes.size() <= run.options.maxGreedyNodes;
}
bool runGreedyEntry(OptimalRun &run) {
  GreedyResult greedy = run.time([&] {
    return searchDropsGreedily(run.problem, run.budget, run.options.seeds);
  });
  if (!greedy.drop.empty())
    run.offer(scheduleDroppingNodes(run.problem, greedy.drop), Engine::Greedy);
  return false;
}

/// The generic engine beside the others; on larger training-form problems
/// (Auto) the last resort when the engines above found no plan: its
/// eviction and recomputation of forward values for later forward reads may
/// fit where they do not.
bool appliesGeneric(const OptimalRun &run) {
  return run.genericBeside ||
         (run.options.generic == OptimalOptions::Generic::Auto &&
          !run.best.hasSchedule());
}
bool runGenericEntry(OptimalRun &run) {
  SolveResult generic = run.time([&] {
    return solveGeneric(run.problem, run.budget, run.options.genericOptions);
  });
  if (generic.hasSchedule()) {
    run.offer(std::move(generic.schedule), Engine::Generic);
    return false;
  }
  if (generic.status == SolveResult::Status::Infeasible &&
      !run.best.hasSchedule()) {
    // Its backward search visited every set within the budget: no schedule
    // at all fits, so the MILP need not look.
    generic.message = run.engineSecondsText() + "; " + generic.message;
    return run.settle(std::move(generic), Engine::Generic);
  }
  run.notes.push_back("generic: " + generic.message);
  return false;
}

/// Problems of at most `costRepair.maxNodes` nodes: the best plan so far,
/// planned again window by window for less cost (CostRepair.h), unless it
/// is already within `costRepair.skipWithinBound` of the proven bound.
bool appliesCostRepair(const OptimalRun &run) {
  const CostRepairOptions &options = run.options.costRepair;
  return run.best.hasSchedule() &&
         run.problem.nodes.size() <= static_cast<size_t>(options.maxNodes) &&
         run.best.cost > run.bound.totalCost * (1 + options.skipWithinBound);
}
bool runCostRepairEntry(OptimalRun &run) {
  CostRepairResult repaired = run.time([&] {
    return improveByWindows(run.problem, run.budget, run.best.schedule,
                            run.options.costRepair);
  });
  if (repaired.windowsImproved > 0)
    run.offer(std::move(repaired.schedule), Engine::CostRepair);
  return false;
}

/// Small problems: the MILP certifies, or improves.
bool appliesMilp(const OptimalRun &run) {
  return run.options.exactEngines == ExactEngines::All &&
         run.problem.nodes.size() <= run.options.maxMilpNodes;
}
bool runMilpEntry(OptimalRun &run) {
  MilpOptions milpOptions;
  milpOptions.timeLimitSeconds = run.options.milpTimeLimitSeconds;
  milpOptions.progress = run.options.milpProgress;
  // The MIP start: on problems without a training form (where every value
  // may be recomputed, so the model is much larger), CBC 2.10 spends
  // minutes outside its time limit completing a start (measured: 100 s for
  // the 100-node random layered graph), so it gets none there.
  if (run.best.hasSchedule() && isTrainingForm(run.problem))
    milpOptions.start = &run.best.schedule;
  SolveResult milp =
      run.time([&] { return solveMilp(run.problem, run.budget, milpOptions); });
  if (milp.status == SolveResult::Status::Infeasible && !run.best.hasSchedule())
    return run.settle(std::move(milp), Engine::Milp);
  if (!milp.hasSchedule()) {
    run.notes.push_back("milp: " + milp.message);
    return false;
  }
  run.stageBound = milp.lowerBound;
  if (milp.status == SolveResult::Status::Optimal &&
      !(run.best.hasSchedule() && run.best.cost < milp.cost)) {
    // Prefer a heuristic plan of the same cost (it is already checked);
    // otherwise the MILP's.
    if (!run.best.hasSchedule() || milp.cost < run.best.cost)
      run.offer(std::move(milp.schedule), Engine::Milp);
    run.proven = true;
  } else {
    run.offer(std::move(milp.schedule), Engine::Milp);
  }
  return false;
}

/// The engines in the order they run. The order is the policy: the bound
/// first (it may prove that nothing fits), the exact enumeration where it is
/// cheap, the scalable engines and the seeds, the generic engine, the cost
/// repair of the best of their plans, and the MILP last, started from the
/// best plan so far.
const EngineEntry kOptimalEngines[] = {
    {Engine::Bound, appliesAlways, runBoundEntry},
    {Engine::Exhaustive, appliesExhaustive, runExhaustiveEntry},
    {Engine::Generic, appliesGenericBesideExhaustive,
     runGenericBesideExhaustiveEntry},
    {Engine::SegmentChain, appliesAlways, runChainEntry},
    {Engine::Baseline, appliesAlways, runBaselineEntry},
    {Engine::Greedy, appliesGreedy, runGreedyEntry},
    {Engine::Generic, appliesGeneric, runGenericEntry},
    {Engine::CostRepair, appliesCostRepair, runCostRepairEntry},
    {Engine::Milp, appliesMilp, runMilpEntry},
};

/// The answer when no entry settled the run: the best schedule offered.
SolveResult answerFromBest(OptimalRun &run) {
  SolveResult result = std::move(run.best);
  if (!result.hasSchedule()) {
    result.status = SolveResult::Status::Unknown;
    result.lowerBound = run.bound.totalCost;
    result.message = "no engine found a schedule within the budget";
    for (const std::string &note : run.notes)
      result.message += "; " + note;
    return result;
  }
  result.message = run.engineSecondsText();
  if (run.proven)
    result.status = SolveResult::Status::Optimal;
  result.lowerBound =
      std::min(result.cost, std::max(run.bound.totalCost, run.stageBound));
  return result;
}

} // namespace

const char *mlir::ckpt::remat::exactEnginesName(ExactEngines value) {
  switch (value) {
  case ExactEngines::None:
    return "none";
  case ExactEngines::Enumeration:
    return "enumeration";
  case ExactEngines::All:
    return "all";
  }
  return "";
}

std::optional<ExactEngines>
mlir::ckpt::remat::parseExactEngines(std::string_view name) {
  for (ExactEngines value :
       {ExactEngines::None, ExactEngines::Enumeration, ExactEngines::All})
    if (name == exactEnginesName(value))
      return value;
  if (name == "false")
    return ExactEngines::None;
  if (name == "true")
    return ExactEngines::All;
  return std::nullopt;
}

SolveResult mlir::ckpt::remat::solveOptimal(const Problem &problem,
                                            int64_t budgetBytes,
                                            const OptimalOptions &options) {
  detail::SolveClock clock;
  SolveResult result;
  if (!clock.accept(problem, result))
    return clock.finish(result);
  OptimalRun run{problem, budgetBytes, options};
  run.genericBeside =
      options.generic == OptimalOptions::Generic::Always ||
      (options.generic == OptimalOptions::Generic::Auto &&
       (!isTrainingForm(problem) ||
        problem.nodes.size() <= options.maxGenericTrainingNodes));
  bool settled = false;
  for (const EngineEntry &entry : kOptimalEngines) {
    if (!entry.applies(run))
      continue;
    run.current = entry.engine;
    if ((settled = entry.run(run)))
      break;
  }
  result = settled ? std::move(run.answer) : answerFromBest(run);
  result.engineSeconds = std::move(run.times);
  return clock.finish(result);
}
