//===- PlaceCheckpoints.cpp - Keep or recompute under a budget ------------===//
//
// Implements `ckpt-place-checkpoints`: IR -> remat problem -> strategy ->
// reference evaluation -> materialization -> independent re-check by the
// memory simulation.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/MemoryTimeline.h"
#include "ckpt/Analysis/StepReport.h"
#include "ckpt/Dialect/Ckpt/IR/BudgetAttr.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/OptionChecks.h"
#include "ckpt/Dialect/Ckpt/Transforms/OutputFile.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Dialect/Ckpt/Transforms/PlanDecisions.h"
#include "ckpt/Dialect/Ckpt/Transforms/PlanSummary.h"
#include "ckpt/Dialect/Ckpt/Transforms/Progress.h"
#include "ckpt/Dialect/Ckpt/Transforms/RematLowering.h"
#include "ckpt/Dialect/Ckpt/Transforms/StrategyDispatch.h"
#include "ckpt/Remat/Budget.h"
#include "ckpt/Remat/LowerBound.h"
#include "ckpt/Remat/OffloadSolver.h"
#include "ckpt/Remat/Solve.h"

#include "ckpt/Dialect/Ckpt/IR/TrainingStep.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::ckpt {
#define GEN_PASS_DEF_PLACECHECKPOINTSPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;

namespace {

struct PlaceCheckpointsPass
    : public mlir::ckpt::impl::PlaceCheckpointsPassBase<PlaceCheckpointsPass> {
  using PlaceCheckpointsPassBase::PlaceCheckpointsPassBase;

  void runOnOperation() override;

private:
  /// The scope memory is counted in: the option's, or that of the
  /// function's `ckpt.budget` when the budget comes from there.
  BudgetScope scope = BudgetScope::Step;
  /// The budget, once resolved (or read from `ckpt.budget`).
  std::optional<ResolvedBudget> resolved;
  /// The no-recompute peak in the scope that fractions refer to (exact
  /// sizes, also with `alignment`), set before any strategy runs.
  int64_t referencePeak = 0;

  /// Reports that no plan fits `limit`, with the floor every plan needs
  /// (`planned`'s where the engine computed it), when an engine proved that
  /// nothing fits, `planned`'s proof, and with `explain`, what the engines
  /// tried.
  void reportInfeasible(func::FuncOp func, const RematProblemWithOrigins &p,
                        int64_t limit, int64_t planPeak, Operation *peakOp,
                        const StrategyPlan &planned);

  /// Reads `offload` and `host-budget` (`readOffloadOptions`) into `link`
  /// and `hostLimit`; offload also needs an engine strategy. Fails with an
  /// error naming the option.
  LogicalResult readOffloadOptions(bool timeObjective);
  /// Rewrites `func` to run `copies` (a plan with copies that fits `limit`
  /// and the host budget), re-measures it with the memory simulation and
  /// reports it; `reference` is the no-recompute peak fractions refer to.
  void placeWithCopies(func::FuncOp func, const RematProblemWithOrigins &p,
                       const remat::OffloadResult &copies, int64_t limit,
                       int64_t reference);
  /// With `offload`: the link and the host budget in bytes.
  std::optional<remat::CopyLink> link;
  int64_t hostLimit = std::numeric_limits<int64_t>::max();
};

} // namespace

/// Progress of the exact engine for a user at a terminal: a line about
/// every 5 s while CBC runs (none elsewhere).
static remat::MilpOptions::Progress milpProgress(func::FuncOp func) {
  if (!progressWanted())
    return {};
  std::string name = func.getSymName().str();
  return [name](double elapsed, double limit, double deadline) {
    auto seconds = [](double s) { return llvm::formatv("{0:f0}", s).str(); };
    if (elapsed <= limit)
      writeProgress("ckpt-place-checkpoints: @" + name +
                    ": the exact engine (MILP, CBC) is solving: " +
                    seconds(elapsed) + " s of its time-limit=" +
                    formatNumber(limit));
    else
      writeProgress("ckpt-place-checkpoints: @" + name +
                    ": the exact engine (MILP, CBC) is finishing a step past "
                    "its time-limit=" +
                    formatNumber(limit) + ": " + seconds(elapsed) +
                    " s, stopped at " + seconds(deadline) + " s at the latest");
  };
}

/// `part` as a percentage of `whole` (`85%`, `0.4%`).
static std::string share(int64_t part, int64_t whole) {
  double percent = 100.0 * static_cast<double>(part) /
                   static_cast<double>(std::max<int64_t>(whole, 1));
  return llvm::formatv(percent < 10 ? "{0:f1}%" : "{0:f0}%", percent).str();
}

/// Explains the no-recompute peak of `func` (not yet rewritten) in `scope`:
/// what each buffer kind holds there, the share recomputation can reduce
/// (the activations), and in `step`, what `activations` would leave out,
/// suggesting it when the budget is below the proven `floor` by no more than
/// those bytes.
static void explainPeak(InFlightDiagnostic &diag, func::FuncOp func,
                        const MemoryTimeline &t, BudgetScope scope,
                        int64_t limit, int64_t floor) {
  ScopedPeak peak = computeScopedPeak(t, scope);
  KindBytes byKind{};
  int64_t workspace = 0;
  if (peak.op >= 0) {
    byKind = t.liveDuringByKind[peak.op];
    workspace = t.workspace[peak.op];
  } else {
    for (const Buffer &buffer : t.buffers)
      if (buffer.def < 0)
        byKind[static_cast<size_t>(buffer.kind)] += buffer.bytes;
  }
  auto bytesOf = [&](BufferKind kind) {
    return byKind[static_cast<size_t>(kind)];
  };
  Location loc = peak.op >= 0 ? t.ops[peak.op]->getLoc() : func.getLoc();
  Diagnostic &note = diag.attachNote(loc);
  note << "at the no-recompute peak in budget-scope="
       << stringifyBudgetScope(scope) << ", " << formatBytes(peak.bytes) << " ("
       << peak.bytes << " bytes) "
       << (peak.op >= 0 ? "while this op runs" : "at entry") << ":";
  static const char *kindNames[kNumBufferKinds] = {
      "parameters", "inputs", "gradients", "activations", "temporaries"};
  for (size_t k = 0; k < kNumBufferKinds; ++k)
    if (countsInScope(static_cast<BufferKind>(k), scope))
      note << " " << kindNames[k] << " " << formatBytes(byKind[k]) << ",";
  note << " workspace " << formatBytes(workspace);
  if (scope == BudgetScope::Step && t.deviceWorkspace > 0)
    note << ", device workspace " << formatBytes(t.deviceWorkspace);
  int64_t activations = bytesOf(BufferKind::Activation);
  note << "; recomputation can reduce only the activations: "
       << formatBytes(activations) << " (" << share(activations, peak.bytes)
       << ")";
  if (scope != BudgetScope::Step)
    return;
  int64_t outside =
      addSat(addSat(bytesOf(BufferKind::Parameter), bytesOf(BufferKind::Input)),
             addSat(bytesOf(BufferKind::Gradient), t.deviceWorkspace));
  if (outside <= 0)
    return;
  Diagnostic &fixed = diag.attachNote(loc);
  fixed << "at that peak, parameters, inputs and gradients"
        << (t.deviceWorkspace > 0 ? " (and the device workspace)" : "")
        << " hold " << formatBytes(outside) << " (" << outside << " bytes, "
        << share(outside, peak.bytes) << "), which recomputation cannot reduce";
  if (floor > limit && floor - limit <= outside)
    fixed << "; try budget-scope=activations, which leaves them out of the "
             "budget and the peak";
}

void PlaceCheckpointsPass::reportInfeasible(func::FuncOp func,
                                            const RematProblemWithOrigins &p,
                                            int64_t limit, int64_t planPeak,
                                            Operation *peakOp,
                                            const StrategyPlan &planned) {
  // The exact strategy computed the floor already.
  remat::ProvenFloor floor =
      planned.floor ? *planned.floor : remat::computeProvenFloor(p.problem);
  llvm::StringRef proof = planned.proof;
  llvm::StringRef tried = planned.tried;
  // The function is not rewritten yet: its timeline is the no-recompute one.
  FailureOr<MemoryTimeline> timeline = computeMemoryTimeline(func);
  // The floor is also given as a fraction of the no-recompute peak in the
  // scope: the terms a `0.5x` budget is written in.
  int64_t reference = std::max<int64_t>(1, referencePeak);
  InFlightDiagnostic diag = emitError(func.getLoc())
                            << "ckpt-place-checkpoints: ";
  if (planPeak >= 0)
    diag << "the '" << remat::strategyName(strategy) << "' plan needs "
         << formatBytes(planPeak) << " (" << planPeak
         << " bytes) at its peak, over the budget of ";
  else
    diag << "strategy '" << remat::strategyName(strategy)
         << "' found no plan within the budget of ";
  diag << formatBytes(limit) << " (" << limit << " bytes)";
  if (resolved && resolved->target)
    diag << " (the placement target below the budget of "
         << formatBytes(resolved->bytes) << ")";
  diag << ", given as budget=" << (resolved ? resolved->requested : "")
       << " in budget-scope=" << stringifyBudgetScope(scope)
       << "; every plan needs at least " << formatBytes(floor.bytes) << " ("
       << floor.bytes << " bytes, "
       << llvm::formatv("{0:f3}", double(floor.bytes) / double(reference))
       << "x of the no-recompute peak) in this scope";
  if (alignment > 1)
    diag.attachNote(func.getLoc())
        << "every buffer is counted rounded up to alignment="
        << static_cast<int64_t>(alignment)
        << " bytes, as the memory plan holds it";
  if (peakOp)
    diag.attachNote(peakOp->getLoc()) << "the plan's peak occurs while this "
                                         "op runs";
  if (!proof.empty())
    diag.attachNote(func.getLoc())
        << "no plan exists within this budget, proven by the " << proof;
  if (explain && proof.empty() && !tried.empty())
    diag.attachNote(func.getLoc()) << "the engines tried: " << tried;
  if (floor.node >= 0 && floor.lookedBack)
    diag.attachNote(p.origins[floor.node].op->getLoc())
        << "no plan can use less than " << formatBytes(floor.bytes) << " ("
        << floor.bytes
        << " bytes): this op's inputs are all in memory while it runs, and "
           "while whichever of them a plan computes last ran, so were the "
           "others and that one's own inputs (looking back up to "
        << remat::kLookBackDepth << " such steps)";
  else if (floor.node >= 0)
    diag.attachNote(p.origins[floor.node].op->getLoc())
        << "no plan can use less than " << formatBytes(floor.bytes) << " ("
        << floor.bytes
        << " bytes): while this op runs, its inputs, outputs and workspace, "
        << (scope == BudgetScope::Step ? "the step's arguments and " : "")
        << "the backward values still to be read must all be in memory";
  if (succeeded(timeline))
    explainPeak(diag, func, *timeline, scope, limit, floor.bytes);
  if (link)
    diag.attachNote(func.getLoc())
        << "with offload=" << offload << " no plan fits either"
        << (hostLimit < std::numeric_limits<int64_t>::max()
                ? " within host-budget=" + hostBudget.getValue().getText()
                : std::string());
}

LogicalResult PlaceCheckpointsPass::readOffloadOptions(bool timeObjective) {
  link.reset();
  hostLimit = std::numeric_limits<int64_t>::max();
  FailureOr<std::optional<OffloadTarget>> target =
      mlir::ckpt::readOffloadOptions(&getContext(), "ckpt-place-checkpoints",
                                     offload, hostBudget.getValue(),
                                     timeObjective);
  if (failed(target))
    return failure();
  if (!*target)
    return success();
  if (!remat::isEngineStrategy(strategy))
    return emitError(UnknownLoc::get(&getContext()))
           << "ckpt-place-checkpoints: offload needs an engine strategy "
              "(chain, generic, optimal or exact), not strategy="
           << remat::strategyName(strategy);
  link = (*target)->link;
  hostLimit = (*target)->hostBudgetBytes;
  return success();
}

void PlaceCheckpointsPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  if (!decisions.empty()) {
    auto module = func->getParentOfType<ModuleOp>();
    int64_t bodies = 0;
    for (auto other : module.getOps<func::FuncOp>())
      bodies += other.isExternal() ? 0 : 1;
    if (bodies != 1) {
      emitError(func.getLoc())
          << "ckpt-place-checkpoints: decisions= writes the plan of one "
             "function, but the module has "
          << bodies << " functions with a body";
      return signalPassFailure();
    }
  }
  std::string error;
  std::optional<remat::Budget> parsedBudget;
  // Errors in the options have no place in the input: they are reported
  // without a location, naming the option.
  Location optionsLoc = UnknownLoc::get(&getContext());
  // Parsed with the options; a budget set from C++ may still be invalid.
  if (!budget.getValue().getError().empty()) {
    emitError(optionsLoc) << "ckpt-place-checkpoints: "
                          << budget.getValue().getError();
    return signalPassFailure();
  }
  parsedBudget = budget.getValue().getBudget();
  // Without `budget=`, the budget resolved before (`ckpt.budget`), in its
  // own scope.
  resolved.reset();
  if (!parsedBudget)
    resolved = getBudget(func);
  scope = resolved ? resolved->scope : budgetScope.getValue();
  if (failed(checkTimeLimitOption(&getContext(), "ckpt-place-checkpoints", timeLimit)))
    return signalPassFailure();
  std::optional<RooflineCostModel> model;
  if (objective == Objective::Time) {
    FailureOr<HardwareProfile> hardware = loadHardwareProfile(profile, error);
    if (failed(hardware)) {
      emitError(optionsLoc) << "ckpt-place-checkpoints: " << error;
      return signalPassFailure();
    }
    model.emplace(*hardware);
  }
  if (failed(readOffloadOptions(objective == Objective::Time)))
    return signalPassFailure();

  if (alignment < 1 || alignment > (int64_t(1) << 30) ||
      !llvm::isPowerOf2_64(alignment)) {
    emitError(optionsLoc) << "ckpt-place-checkpoints: alignment="
                          << static_cast<int64_t>(alignment)
                          << " is not a power of two from 1 to 1073741824";
    return signalPassFailure();
  }
  RematProblemOptions options;
  options.costModel = model ? &*model : nullptr;
  options.scope = scope;
  options.alignment = alignment;
  FailureOr<RematProblemWithOrigins> problem = buildRematProblem(func, options);
  if (failed(problem))
    return signalPassFailure();
  remat::Evaluation baseline = remat::evaluateSchedule(
      problem->problem, remat::Schedule::identity(problem->problem));
  // The problem counts memory in the budget's scope, so its no-recompute
  // peak is what a fraction refers to and its peaks are what the budget
  // bounds.
  // With sizes rounded to an alignment, a fraction still refers to the exact
  // no-recompute peak in the scope (as the pipeline's arena check resolves
  // it); the plan's aligned peak must fit it.
  int64_t reference = baseline.peakBytes;
  if (alignment > 1) {
    FailureOr<MemoryTimeline> exact = computeMemoryTimeline(func);
    if (failed(exact))
      return signalPassFailure();
    reference = computeScopedPeak(*exact, scope).bytes;
  }
  referencePeak = reference;
  // The one resolution of `budget=`: recorded on the function, so that
  // later stages read the bytes instead of resolving the text again.
  if (parsedBudget) {
    resolved = ResolvedBudget{parsedBudget->resolve(reference), scope,
                              budget.getValue().getText(), std::nullopt};
    setBudget(func, *resolved);
  }
  int64_t limit = resolved ? resolved->placementLimit() : -1;
  const char *name = remat::strategyName(strategy);
  if (remat::needsBudget(strategy) && limit < 0) {
    emitError(func.getLoc())
        << "ckpt-place-checkpoints: strategy '" << name << "' needs a budget";
    return signalPassFailure();
  }
  remat::SolveOptions solveOptions;
  solveOptions.timeLimitSeconds = timeLimit;
  solveOptions.exactEngines = exactEngines;
  solveOptions.milpProgress = milpProgress(func);
  FailureOr<StrategyPlan> planned =
      planWithStrategy(func, *problem, strategy, limit, solveOptions);
  if (failed(planned))
    return signalPassFailure();
  // With offload: the plan with copies, when it is faster than the
  // keep/recompute plan as the offload model measures both, or when only it
  // fits.
  std::optional<remat::OffloadResult> copies;
  if (link) {
    remat::OffloadOptions offloadOptions;
    offloadOptions.link = *link;
    offloadOptions.hostBudgetBytes = hostLimit;
    offloadOptions.strategy = strategy;
    offloadOptions.solve = solveOptions;
    remat::OffloadResult offloaded =
        remat::solveWithOffload(problem->problem, limit, offloadOptions);
    // Its evaluation is the verifier's (evaluateOffloadSchedule); a plan
    // whose copies were all dropped is the keep/recompute one.
    bool faster = offloaded.found && offloaded.evaluation.offloads > 0;
    if (faster && planned->schedule) {
      remat::Evaluation plain =
          remat::evaluateSchedule(problem->problem, *planned->schedule);
      remat::OffloadEvaluation withoutCopies = remat::evaluateOffloadSchedule(
          problem->problem,
          remat::OffloadSchedule::fromSchedule(*planned->schedule), *link);
      faster = !(plain.valid() && plain.peakBytes <= limit) ||
               offloaded.evaluation.totalSeconds < withoutCopies.totalSeconds;
    }
    if (faster)
      copies = std::move(offloaded);
  }
  if (copies)
    return placeWithCopies(func, *problem, *copies, limit, reference);
  if (!planned->schedule) {
    reportInfeasible(func, *problem, limit, -1, nullptr, *planned);
    return signalPassFailure();
  }
  const remat::Schedule &schedule = *planned->schedule;
  remat::Evaluation plan = remat::evaluateSchedule(problem->problem, schedule);
  if (!plan.valid()) {
    emitError(func.getLoc()) << "ckpt-place-checkpoints: internal error: the "
                             << name << " schedule is invalid: " << plan.error;
    return signalPassFailure();
  }

  if (limit >= 0 && plan.peakBytes > limit) {
    reportInfeasible(func, *problem, limit, plan.peakBytes,
                     problem->origins[schedule.order[plan.peakStep]].op,
                     *planned);
    return signalPassFailure();
  }

  std::optional<PlanDecisions> decided;
  if (!decisions.empty())
    decided = computePlanDecisions(func, *problem, schedule);
  int64_t recomputedOps = materializeSchedule(func, *problem, schedule);
  numRecomputed += recomputedOps;
  // Independent check: simulate the rewritten IR and take its peak in the
  // budget's scope from the simulation's own accounting by buffer kind.
  FailureOr<MemoryTimeline> timeline = computeMemoryTimeline(func);
  if (failed(timeline))
    return signalPassFailure();
  ScopedPeak checked = computeScopedPeak(*timeline, scope);
  if (checked.bytes > plan.peakBytes || (limit >= 0 && checked.bytes > limit)) {
    emitError(func.getLoc())
        << "ckpt-place-checkpoints: internal error: the rewritten function "
           "peaks at "
        << checked.bytes
        << " bytes in budget-scope=" << stringifyBudgetScope(scope)
        << ", the plan promised " << plan.peakBytes;
    return signalPassFailure();
  }
  double overhead =
      plan.recomputeCost / std::max(1e-300, problem->problem.baseCost());
  PlanFigures figures;
  figures.strategy = name;
  figures.objective = stringifyObjective(objective).str();
  figures.scope = scope;
  if (resolved) {
    figures.budgetBytes = resolved->bytes;
    figures.targetBytes = resolved->target.value_or(-1);
    figures.budgetText = resolved->requested;
  }
  figures.noRecomputePeakBytes = reference;
  figures.peakBytes = checked.bytes;
  figures.overhead = overhead;
  figures.recomputedOps = recomputedOps;
  figures.engineNote = planned->noteWithoutTimings;
  figures.engine = remat::engineName(planned->engine);
  figures.lowerBoundOverhead = planned->boundOverhead;
  if (decided) {
    // Written to a temporary file that replaces `decisions` once complete.
    llvm::Error written =
        writeOutputFile(decisions, [&](llvm::raw_ostream &os) {
          printPlanDecisionsJson(func.getSymName(), figures, *decided, os);
          return llvm::Error::success();
        });
    if (written) {
      emitError(func.getLoc())
          << "ckpt-place-checkpoints: cannot write decisions='" << decisions
          << "': " << llvm::toString(std::move(written));
      return signalPassFailure();
    }
  }
  // The plan in words, as the tool's own remark (no location: it is about
  // the whole function); `summary=false` turns it off.
  if (summary)
    emitRemark(UnknownLoc::get(&getContext()))
        << "ckpt-place-checkpoints: " << summarizePlan(func, figures);
  if (explain) {
    emitRemark(func.getLoc())
        << "checkpoint plan: strategy=" << name << " peak=" << checked.bytes
        << " (no-recompute " << baseline.peakBytes
        << ") budget=" << (limit >= 0 ? std::to_string(limit) : "none")
        << " recomputed-ops=" << recomputedOps
        << " overhead=" << llvm::formatv("{0:f4}", overhead).str() << " ("
        << stringifyObjective(objective) << ")" << planned->note
        << " scope=" << stringifyBudgetScope(scope);
  }
}

void PlaceCheckpointsPass::placeWithCopies(func::FuncOp func,
                                           const RematProblemWithOrigins &p,
                                           const remat::OffloadResult &copies,
                                           int64_t limit, int64_t reference) {
  const remat::OffloadEvaluation &eval = copies.evaluation;
  if (!decisions.empty()) {
    emitError(func.getLoc())
        << "ckpt-place-checkpoints: decisions= does not describe copies, "
           "and the plan with offload="
        << offload << " offloads " << eval.offloads
        << " values; drop decisions= or offload=";
    return signalPassFailure();
  }
  MaterializedOffload written =
      materializeOffloadSchedule(func, p, copies.schedule, eval);
  // The link the copies were planned for, which the report prices them with.
  func->setAttr(CkptDialect::getOffloadLinkAttrName(),
                StringAttr::get(&getContext(), offload));
  numRecomputed += written.recomputedOps;
  numOffloaded += written.offloads;
  // Independent check: the memory simulation of the rewritten IR, device
  // and host, against the offload model's figures and the budgets.
  FailureOr<MemoryTimeline> timeline = computeMemoryTimeline(func);
  if (failed(timeline))
    return signalPassFailure();
  ScopedPeak checked = computeScopedPeak(*timeline, scope);
  if (checked.bytes > eval.devicePeakBytes || checked.bytes > limit ||
      timeline->hostPeakBytes > eval.hostPeakBytes ||
      timeline->hostPeakBytes > hostLimit) {
    emitError(func.getLoc())
        << "ckpt-place-checkpoints: internal error: the rewritten function "
           "peaks at "
        << checked.bytes
        << " device bytes in budget-scope=" << stringifyBudgetScope(scope)
        << " and " << timeline->hostPeakBytes
        << " host bytes; the offload plan promised " << eval.devicePeakBytes
        << " and " << eval.hostPeakBytes;
    return signalPassFailure();
  }
  const double base = std::max(1e-300, p.problem.baseCost());
  double overhead = (eval.totalSeconds - p.problem.baseCost()) / base;
  if (summary || explain) {
    std::string text = llvm::formatv(
        "@{0}: budget {1} ({2} bytes) in budget-scope={3}; device peak {4} "
        "({5} bytes, {6:f3}x of the no-recompute peak); offloads {7} values "
        "over {8}: {9} to the host and {10} back, host peak {11} ({12} "
        "bytes); recomputes {13} ops; step time {14:f1}% over the plain "
        "step ({15:f1}% recomputation, {16:f1}% exposed copies); the copies "
        "take {17:f3} ms to the host and {18:f3} ms back",
        func.getSymName(), formatBytes(limit), limit,
        stringifyBudgetScope(scope), formatBytes(checked.bytes), checked.bytes,
        double(checked.bytes) / double(std::max<int64_t>(1, reference)),
        written.offloads, offload, formatBytes(eval.bytesToHost),
        formatBytes(eval.bytesToDevice), formatBytes(timeline->hostPeakBytes),
        timeline->hostPeakBytes, written.recomputedOps, 100.0 * overhead,
        100.0 * eval.recomputeSeconds / base,
        100.0 * eval.exposedCopySeconds / base, 1e3 * eval.toHostSeconds,
        1e3 * eval.toDeviceSeconds);
    if (summary)
      emitRemark(UnknownLoc::get(&getContext()))
          << "ckpt-place-checkpoints: " << text;
    if (explain)
      emitRemark(func.getLoc())
          << "checkpoint plan: strategy=" << remat::strategyName(strategy)
          << " offload=" << offload << " peak=" << checked.bytes
          << " model-peak=" << eval.devicePeakBytes
          << " host-peak=" << timeline->hostPeakBytes
          << " model-host-peak=" << eval.hostPeakBytes << " budget=" << limit
          << " offloaded=" << written.offloads
          << " prefetched=" << written.prefetches
          << " to-host=" << eval.bytesToHost
          << " to-device=" << eval.bytesToDevice
          << " recomputed-ops=" << written.recomputedOps
          << " overhead=" << llvm::formatv("{0:f4}", overhead).str()
          << " exposed-copy-seconds="
          << llvm::formatv("{0:e3}", eval.exposedCopySeconds).str()
          << " scope=" << stringifyBudgetScope(scope);
  }
}
