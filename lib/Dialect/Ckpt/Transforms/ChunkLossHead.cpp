//===- ChunkLossHead.cpp - Row chunks of the vocabulary projection --------===//
//
// Implements `ckpt-chunk-loss-head` (see Passes.td): each loss head in the
// form LossHead.h describes is rewritten into row chunks (LossHead.cpp),
// with the number of chunks given or chosen here: by the cheapest plan
// under a budget, or by the proven memory floor.
//
//===----------------------------------------------------------------------===//

#include "LossHead.h"

#include "ckpt/Analysis/CostModel.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Dialect/Ckpt/Transforms/RematLowering.h"
#include "ckpt/Remat/LowerBound.h"
#include "ckpt/Remat/Solve.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>
#include <string>

namespace mlir::ckpt {
#define GEN_PASS_DEF_CHUNKLOSSHEADPASS
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h.inc"
} // namespace mlir::ckpt

using namespace mlir;
using namespace mlir::ckpt;
using namespace mlir::ckpt::detail;

namespace {

/// The chunk counts `chunks=0` tries.
constexpr int64_t kAutoChunkCounts[] = {2, 4, 8, 16, 32, 64};
/// How far above the lowest floor `chunks=0` accepts a floor, to split the
/// head into fewer pieces.
constexpr double kAutoFloorSlack = 0.01;

/// What a candidate rewrite gives the step: its proven floor in the scope,
/// with a budget the budget in bytes (resolved against the candidate's own
/// no-recompute peak) and, when planned, the total cost of the `optimal`
/// plan under it (infinity when none is found).
struct Candidate {
  int64_t floor = 0;
  int64_t budgetBytes = -1;
  double planCost = std::numeric_limits<double>::infinity();
};

/// Evaluates `func` as a candidate; nothing when its problem cannot be
/// built (the reason is left to placement to report). With a budget, it is
/// resolved against `func`'s own no-recompute peak, as placement will, and
/// with `plan` the step is planned under it.
std::optional<Candidate> evaluate(func::FuncOp func, BudgetScope scope,
                                  const CostModel *costModel,
                                  const std::optional<remat::Budget> &budget,
                                  bool plan = true) {
  ScopedDiagnosticHandler quiet(func.getContext(),
                                [](Diagnostic &) { return success(); });
  RematProblemOptions options;
  options.scope = scope;
  options.costModel = costModel;
  FailureOr<RematProblemWithOrigins> problem = buildRematProblem(func, options);
  if (failed(problem))
    return std::nullopt;
  Candidate candidate;
  candidate.floor = remat::computeProvenFloor(problem->problem).bytes;
  if (budget) {
    int64_t peak =
        remat::evaluateSchedule(problem->problem,
                                remat::Schedule::identity(problem->problem))
            .peakBytes;
    int64_t bytes = budget->resolve(peak);
    candidate.budgetBytes = bytes;
    if (plan && candidate.floor <= bytes) {
      remat::SolveResult plan =
          remat::solve(remat::Strategy::Optimal, problem->problem, bytes, {});
      if (plan.hasSchedule())
        candidate.planCost = plan.cost;
    }
  }
  return candidate;
}

/// The cross-entropy ops of `func`, in walk order.
SmallVector<CrossEntropyOp> lossesOf(func::FuncOp func) {
  SmallVector<CrossEntropyOp> losses;
  func.walk([&](CrossEntropyOp loss) { losses.push_back(loss); });
  return losses;
}

struct ChunkLossHeadPass
    : public mlir::ckpt::impl::ChunkLossHeadPassBase<ChunkLossHeadPass> {
  using ChunkLossHeadPassBase::ChunkLossHeadPassBase;

  /// With `chunks=0`, the number of chunks for head `index` of `func`
  /// (1: leave it), among 1 and kAutoChunkCounts. With a budget: the one
  /// whose step has the cheapest `optimal` plan under it (the fewest pieces
  /// among equals), so that chunking is chosen where it lowers the step's
  /// time, not only its floor. Without one, or when no candidate has a
  /// plan: the fewest pieces whose proven floor is within kAutoFloorSlack of
  /// the lowest (more pieces cost more weight-gradient traffic for little
  /// memory), or 1 when none lowers the floor as it is. `why` says how.
  int64_t chooseChunks(func::FuncOp func, size_t index,
                       const CostModel *costModel, std::string &why) {
    const std::optional<remat::Budget> &plannedBudget =
        budget.getValue().getBudget();
    std::optional<Candidate> asIs =
        evaluate(func, budgetScope, costModel, plannedBudget, !whenNeeded);
    if (!asIs)
      return 1;
    std::string scope = stringifyBudgetScope(budgetScope).str();
    if (whenNeeded && (!plannedBudget || asIs->floor <= asIs->budgetBytes)) {
      why = plannedBudget
                ? "its proven floor in budget-scope=" + scope + " (" +
                      std::to_string(asIs->floor) +
                      " bytes) is within budget=" + budget.getValue().getText()
                : "when-needed without a budget";
      return 1;
    }
    SmallVector<std::pair<int64_t, Candidate>> tried{{1, *asIs}};
    int64_t rows =
        cast<RankedTensorType>(lossesOf(func)[index].getLogits().getType())
            .getDimSize(0);
    for (int64_t count : kAutoChunkCounts) {
      auto trial = cast<func::FuncOp>(func->clone());
      CrossEntropyOp loss = lossesOf(trial)[index];
      std::string whyNot;
      FailureOr<LossHead> head = matchLossHead(loss, whyNot);
      bool more = false;
      if (succeeded(head)) {
        // More chunks than rows give the same pieces.
        more = rowChunks(rows, count).pieces == count;
        rewriteLossHead(*head, count);
        if (std::optional<Candidate> candidate = evaluate(
                trial, budgetScope, costModel, plannedBudget, !whenNeeded))
          tried.push_back({count, *candidate});
      }
      trial->erase();
      if (!more)
        break;
      // When needed: the fewest pieces whose floor fits the budget.
      if (whenNeeded && tried.back().first == count &&
          tried.back().second.floor <= tried.back().second.budgetBytes) {
        why = "the head's proven floor in budget-scope=" + scope + " (" +
              std::to_string(asIs->floor) +
              " bytes) is over budget=" + budget.getValue().getText() +
              "; with " + std::to_string(count) + " chunks it is " +
              std::to_string(tried.back().second.floor) + " bytes";
        return count;
      }
    }
    // With a budget: the cheapest plan.
    const std::pair<int64_t, Candidate> *cheapest = nullptr;
    for (const auto &entry : tried)
      if (entry.second.planCost < std::numeric_limits<double>::infinity() &&
          (!cheapest || entry.second.planCost < cheapest->second.planCost))
        cheapest = &entry;
    if (cheapest) {
      // The step's whole cost in the objective's unit.
      const char *unit = costModel ? " s" : " FLOPs";
      auto costText = [&](double cost) {
        return cost < std::numeric_limits<double>::infinity()
                   ? llvm::formatv("{0:e3}", cost).str() + unit
                   : std::string("no plan");
      };
      why =
          "the cheapest optimal plan at budget=" + budget.getValue().getText() +
          " in budget-scope=" + scope + ": cost " +
          costText(cheapest->second.planCost);
      if (cheapest->first != 1)
        why += " against " + costText(tried[0].second.planCost) + " unchunked";
      return cheapest->first;
    }
    // Otherwise: the floor.
    int64_t lowest = asIs->floor;
    for (const auto &entry : tried)
      lowest = std::min(lowest, entry.second.floor);
    why = "no chunk count lowers the proven floor in budget-scope=" + scope +
          " (" + std::to_string(asIs->floor) + " bytes)";
    if (lowest >= asIs->floor)
      return 1;
    for (const auto &[count, candidate] : tried)
      if (static_cast<double>(candidate.floor) <=
          static_cast<double>(lowest) * (1.0 + kAutoFloorSlack)) {
        why = "proven floor in budget-scope=" + scope + " " +
              std::to_string(asIs->floor) + " -> " +
              std::to_string(candidate.floor) + " bytes";
        return count;
      }
    return 1;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (chunks == 1)
      return;
    std::optional<RooflineCostModel> model;
    if (chunks == 0 && budget.getValue().getBudget() &&
        objective == Objective::Time) {
      std::string error;
      FailureOr<HardwareProfile> hardware = loadHardwareProfile(profile, error);
      if (failed(hardware)) {
        emitError(UnknownLoc::get(&getContext()))
            << "ckpt-chunk-loss-head: " << error;
        return signalPassFailure();
      }
      model.emplace(*hardware);
    }
    SmallVector<CrossEntropyOp> losses = lossesOf(func);
    for (auto [index, loss] : llvm::enumerate(losses)) {
      std::string whyNot;
      FailureOr<LossHead> head = matchLossHead(loss, whyNot);
      if (failed(head)) {
        if (explain)
          loss.emitRemark() << "loss head left as it is: " << whyNot;
        continue;
      }
      int64_t count = chunks;
      std::string why;
      if (count == 0) {
        count = chooseChunks(func, index, model ? &*model : nullptr, why);
        if (count == 1) {
          if (explain)
            loss.emitRemark() << "loss head left as it is: " << why;
          continue;
        }
      }
      auto logits = cast<RankedTensorType>(loss.getLogits().getType());
      RowChunks split = rowChunks(logits.getDimSize(0), count);
      if (explain) {
        InFlightDiagnostic remark =
            loss.emitRemark()
            << "loss head chunked: " << logits.getDimSize(0) << " rows x "
            << logits.getDimSize(1) << " classes in " << split.pieces
            << " pieces of at most " << split.rowsPerPiece << " rows";
        if (!why.empty())
          remark << "; " << why;
      }
      rewriteLossHead(*head, count);
    }
  }
};

} // namespace
