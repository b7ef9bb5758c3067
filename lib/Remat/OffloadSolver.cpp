//===- OffloadSolver.cpp - Keep, recompute or offload under a budget -----===//

#include "ckpt/Remat/OffloadSolver.h"

#include "ckpt/Remat/LowerBound.h"

#include <algorithm>
#include <chrono>

using namespace mlir::ckpt::remat;

namespace {

/// What a node of the rewritten problem stands for.
struct RewrittenOrigin {
  enum class Kind { Node, Offload, Prefetch } kind = Kind::Node;
  /// The node of the original problem.
  int32_t node = 0;
};

/// The remat problem in which offloading a node is a recomputation.
struct RewrittenProblem {
  Problem problem;
  std::vector<RewrittenOrigin> origins;
};

/// Rewrites `problem` so that every node with `offloaded[v]` set gains,
/// right after its op's results, a kept zero-byte node "v.offload" reading
/// it and a node "v.prefetch" of v's size reading only that; the
/// non-recomputable readers of v read the prefetch instead. Recomputing
/// the prefetch is copying v back; its cost is the copy's time when
/// `chargeCopies`, else 0 (the copy hides behind compute).
RewrittenProblem rewriteForOffload(const Problem &problem,
                                   const std::vector<bool> &offloaded,
                                   const CopyLink &link, bool chargeCopies) {
  const size_t n = problem.nodes.size();
  RewrittenProblem result;
  result.problem.fixedBytes = problem.fixedBytes;
  std::vector<int32_t> newIndex(n, -1), prefetchIndex(n, -1);
  auto add = [&](Node node, RewrittenOrigin origin) {
    result.problem.nodes.push_back(std::move(node));
    result.origins.push_back(origin);
    return static_cast<int32_t>(result.problem.nodes.size()) - 1;
  };
  for (size_t i = 0; i < n; ++i) {
    const Node &node = problem.nodes[i];
    newIndex[i] = add(node, {RewrittenOrigin::Kind::Node, int32_t(i)});
    // After the last result of an op, the copies of its offloaded results.
    int32_t primary = node.primary >= 0 ? node.primary : int32_t(i);
    bool groupEnds = i + 1 == n || problem.nodes[i + 1].primary != primary;
    if (!groupEnds)
      continue;
    for (size_t member = primary; member <= i; ++member) {
      if (!offloaded[member])
        continue;
      const Node &value = problem.nodes[member];
      Node copyOut;
      copyOut.name = value.name + ".offload";
      copyOut.deps = {newIndex[member]};
      int32_t out = add(std::move(copyOut),
                        {RewrittenOrigin::Kind::Offload, int32_t(member)});
      Node copyIn;
      copyIn.name = value.name + ".prefetch";
      copyIn.bytes = value.bytes;
      copyIn.cost =
          chargeCopies ? link.copySeconds(value.bytes, /*toDevice=*/true) : 0;
      copyIn.deps = {out};
      prefetchIndex[member] =
          add(std::move(copyIn),
              {RewrittenOrigin::Kind::Prefetch, int32_t(member)});
    }
  }
  for (size_t i = 0; i < n; ++i) {
    Node &node = result.problem.nodes[newIndex[i]];
    if (node.primary >= 0)
      node.primary = newIndex[node.primary];
    for (int32_t &dep : node.deps)
      dep = offloaded[dep] && !problem.nodes[i].recomputable
                ? prefetchIndex[dep]
                : newIndex[dep];
  }
  return result;
}

/// The offload schedule of a schedule of the rewritten problem: its first
/// offload node is the offload; the first computation of a prefetch node
/// aliases the value still on the device, and each later one is a
/// prefetch. An offload never prefetched is dropped.
OffloadSchedule toOffloadSchedule(const RewrittenProblem &rewritten,
                                  const Schedule &schedule, size_t nodes) {
  OffloadSchedule result;
  std::vector<bool> offloadSeen(nodes, false), prefetchSeen(nodes, false),
      prefetched(nodes, false);
  for (int32_t id : schedule.order) {
    const RewrittenOrigin &origin = rewritten.origins[id];
    switch (origin.kind) {
    case RewrittenOrigin::Kind::Node:
      result.steps.push_back({StepKind::Compute, origin.node});
      break;
    case RewrittenOrigin::Kind::Offload:
      if (!offloadSeen[origin.node])
        result.steps.push_back({StepKind::Offload, origin.node});
      offloadSeen[origin.node] = true;
      break;
    case RewrittenOrigin::Kind::Prefetch:
      if (prefetchSeen[origin.node]) {
        result.steps.push_back({StepKind::Prefetch, origin.node});
        prefetched[origin.node] = true;
      }
      prefetchSeen[origin.node] = true;
      break;
    }
  }
  result.steps.erase(std::remove_if(result.steps.begin(), result.steps.end(),
                                    [&](const OffloadStep &step) {
                                      return step.kind == StepKind::Offload &&
                                             !prefetched[step.node];
                                    }),
                     result.steps.end());
  return result;
}

/// Whether `a` is better than `b`: faster, or as fast with fewer bytes
/// moved.
bool isBetter(const OffloadEvaluation &a, const OffloadEvaluation &b) {
  if (a.totalSeconds != b.totalSeconds)
    return a.totalSeconds < b.totalSeconds;
  return a.bytesToHost + a.bytesToDevice < b.bytesToHost + b.bytesToDevice;
}

/// One pass of `hoistPrefetches`; returns whether a prefetch moved.
bool hoistPrefetchesOnce(const Problem &problem, OffloadSchedule &schedule,
                         OffloadEvaluation &eval, const CopyLink &link,
                         int64_t deviceBudget, int64_t hostBudget) {
  bool moved = false;
  std::vector<int64_t> offloadStep(problem.nodes.size(), -1);
  for (size_t q = 0; q < schedule.steps.size(); ++q) {
    const OffloadStep step = schedule.steps[q];
    if (step.kind == StepKind::Offload)
      offloadStep[step.node] = static_cast<int64_t>(q);
    if (step.kind != StepKind::Prefetch)
      continue;
    OffloadSchedule best;
    OffloadEvaluation bestEval;
    bool improved = false;
    for (int64_t distance = 1;; distance *= 2) {
      int64_t target = static_cast<int64_t>(q) - distance;
      if (target <= offloadStep[step.node])
        break;
      OffloadSchedule earlier = schedule;
      earlier.steps.erase(earlier.steps.begin() + q);
      earlier.steps.insert(earlier.steps.begin() + target, step);
      OffloadEvaluation movedEval =
          evaluateOffloadSchedule(problem, earlier, link);
      if (!movedEval.valid())
        continue;
      if (movedEval.devicePeakBytes > deviceBudget ||
          movedEval.hostPeakBytes > hostBudget)
        break;
      if (isBetter(movedEval, improved ? bestEval : eval)) {
        best = std::move(earlier);
        bestEval = std::move(movedEval);
        improved = true;
      }
    }
    if (improved) {
      schedule = std::move(best);
      eval = std::move(bestEval);
      moved = true;
    }
  }
  return moved;
}

/// Issues each prefetch earlier, by 1, 2, 4, ... steps up to its offload,
/// keeping the move that shortens the step most while both budgets hold;
/// passes over all prefetches repeat (at most kHoistPasses) while one
/// moved, since a prefetch moved earlier frees the copy stream for those
/// after it.
void hoistPrefetches(const Problem &problem, OffloadSchedule &schedule,
                     OffloadEvaluation &eval, const CopyLink &link,
                     int64_t deviceBudget, int64_t hostBudget) {
  constexpr int kHoistPasses = 3;
  for (int pass = 0; pass < kHoistPasses; ++pass)
    if (!hoistPrefetchesOnce(problem, schedule, eval, link, deviceBudget,
                             hostBudget))
      return;
}

} // namespace

std::vector<int32_t>
mlir::ckpt::remat::findOffloadCandidates(const Problem &problem) {
  std::vector<bool> readBackward(problem.nodes.size(), false);
  for (const Node &node : problem.nodes)
    if (!node.recomputable)
      for (int32_t dep : node.deps)
        readBackward[dep] = true;
  std::vector<int32_t> candidates;
  for (size_t i = 0; i < problem.nodes.size(); ++i) {
    const Node &node = problem.nodes[i];
    if (node.recomputable && !node.isOutput && node.bytes > 0 &&
        readBackward[i])
      candidates.push_back(static_cast<int32_t>(i));
  }
  return candidates;
}

OffloadResult
mlir::ckpt::remat::solveWithOffload(const Problem &problem,
                                    int64_t deviceBudgetBytes,
                                    const OffloadOptions &options) {
  auto start = std::chrono::steady_clock::now();
  OffloadResult result;
  const size_t n = problem.nodes.size();
  std::vector<int32_t> candidates = findOffloadCandidates(problem);
  std::vector<size_t> sizes;
  unsigned steps = std::max(1u, options.candidateSteps);
  for (unsigned j = 0; j <= steps; ++j) {
    size_t size = candidates.size() * j / steps;
    if (sizes.empty() || sizes.back() != size)
      sizes.push_back(size);
  }
  auto consider = [&](OffloadSchedule schedule, OffloadEvaluation eval) {
    if (result.found && !isBetter(eval, result.evaluation))
      return;
    result.found = true;
    result.schedule = std::move(schedule);
    result.evaluation = std::move(eval);
  };
  // Nothing beats a plan that takes the plain step's time: no
  // recomputation, no exposed copy.
  auto unbeatable = [&] {
    return result.found && result.evaluation.totalSeconds <= problem.baseCost();
  };
  // Plans the step with the first `size` nodes of `order` offloaded.
  auto trySet = [&](const std::vector<int32_t> &order, size_t size) {
    std::vector<bool> offloaded(n, false);
    for (size_t k = 0; k < size; ++k)
      offloaded[order[k]] = true;
    // Whether the plan with copies priced at 0 hid every copy: pricing
    // them would only steer the engines toward recomputation, which the
    // first solve could already choose.
    bool hidCopies = false;
    for (bool chargeCopies : {false, true}) {
      if ((size == 0 && chargeCopies) || (chargeCopies && hidCopies))
        continue;
      RewrittenProblem rewritten =
          rewriteForOffload(problem, offloaded, options.link, chargeCopies);
      if (computeProvenFloor(rewritten.problem).bytes > deviceBudgetBytes)
        break;
      SolveOptions solveOptions = options.solve;
      if (size > 0)
        solveOptions.seeds.clear();
      // The engines' peak knows nothing of copy times; a plan whose
      // offloaded buffers outlive their reads is planned again under a
      // budget lowered by its excess.
      int64_t solveBudget = deviceBudgetBytes;
      for (int attempt = 0; attempt < 3 && solveBudget > 0; ++attempt) {
        SolveResult solved = solve(options.strategy, rewritten.problem,
                                   solveBudget, solveOptions);
        if (!solved.hasSchedule())
          break;
        OffloadSchedule schedule =
            toOffloadSchedule(rewritten, solved.schedule, n);
        OffloadEvaluation eval =
            evaluateOffloadSchedule(problem, schedule, options.link);
        if (!eval.valid())
          break;
        if (size > 0)
          hoistPrefetches(problem, schedule, eval, options.link,
                          deviceBudgetBytes, options.hostBudgetBytes);
        if (eval.hostPeakBytes > options.hostBudgetBytes)
          break;
        if (eval.devicePeakBytes <= deviceBudgetBytes) {
          hidCopies = !chargeCopies && eval.exposedCopySeconds == 0;
          consider(std::move(schedule), std::move(eval));
          break;
        }
        solveBudget -= eval.devicePeakBytes - deviceBudgetBytes;
      }
    }
  };
  // Two orders of the candidates: the earliest first (they wait longest
  // for their backward reader, so their copies hide best), and the
  // costliest to recompute per byte first (they spend the link on what
  // recomputation would pay most for).
  std::vector<int32_t> costliest = candidates;
  std::stable_sort(costliest.begin(), costliest.end(),
                   [&](int32_t a, int32_t b) {
                     const Node &x = problem.nodes[a], &y = problem.nodes[b];
                     return x.cost * double(y.bytes) > y.cost * double(x.bytes);
                   });
  for (const std::vector<int32_t> *order : {&candidates, &costliest})
    for (size_t size : sizes) {
      if (unbeatable())
        break;
      // The empty set, and the whole set, are the same in both orders.
      if (order != &candidates && (size == 0 || size == candidates.size()))
        continue;
      trySet(*order, size);
    }
  if (result.found)
    for (const OffloadStep &step : result.schedule.steps)
      if (step.kind == StepKind::Offload)
        result.offloaded.push_back(step.node);
  std::sort(result.offloaded.begin(), result.offloaded.end());
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return result;
}
