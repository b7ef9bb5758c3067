//===- PlaceCheckpointsPropertyTest.cpp - Placement on random steps -------===//
//
// Runs ckpt-place-checkpoints with every strategy on a thousand random
// training steps (random forward DAGs with skip connections, views and
// multi-result ops, and a backward pass reading the forward values) and
// checks, with the independent memory simulation, that every accepted plan
// fits its budget; that the rewritten IR verifies and only forward ops are
// recomputed; that no budget means no change for `none`; that the exact
// engine, where it proves optimality, never costs more than greedy and finds
// a plan whenever greedy does; and that the output is deterministic.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/MemoryTimeline.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TrainingStep.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/InitAll.h"
#include "RandomTrainingStep.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace mlir::ckpt;

namespace {

/// The figures of one plan, from the pass's explanation.
struct Plan {
  int64_t peak = 0;
  int64_t basePeak = 0;
  double overhead = 0;
  std::string engine;
  std::string ir;
};

/// Reads `peak=`, `no-recompute`, `overhead=` and `engine=` from the pass's
/// explanation remark.
bool parseExplanation(StringRef remark, Plan &plan) {
  auto after = [&](StringRef key) {
    size_t pos = remark.find(key);
    return pos == StringRef::npos ? StringRef()
                                  : remark.drop_front(pos + key.size());
  };
  StringRef peak = after("peak="), base = after("(no-recompute ");
  StringRef overhead = after("overhead=");
  if (peak.consumeInteger(10, plan.peak) ||
      base.consumeInteger(10, plan.basePeak) || overhead.empty())
    return false;
  plan.overhead = std::strtod(overhead.str().c_str(), nullptr);
  StringRef engine = after("engine=");
  plan.engine =
      engine.empty() ? "" : ("engine=" + engine.split(' ').first).str();
  return true;
}

class PlaceCheckpointsProperty : public ::testing::Test {
protected:
  PlaceCheckpointsProperty() {
    static bool registered = [] {
      registerAllPasses();
      return true;
    }();
    (void)registered;
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Runs the pass on a fresh parse of `source` in budget scope `scope`;
  /// returns std::nullopt if it failed (the diagnostic is captured, not
  /// printed). The plan's peak must be the simulation's peak in the scope.
  std::optional<Plan> place(const std::string &source,
                            const std::string &options,
                            BudgetScope scope = BudgetScope::Step) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    if (!module)
      return std::nullopt;
    std::string remark;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Remark)
        remark = diag.str();
      return success();
    });
    PassManager pm = PassManager::on<ModuleOp>(&context);
    if (failed(parsePassPipeline(
            "func.func(ckpt-place-checkpoints{" + options + " budget-scope=" +
                stringifyBudgetScope(scope).str() + " explain=true})",
            pm)))
      return std::nullopt;
    if (failed(pm.run(*module)))
      return std::nullopt;
    EXPECT_TRUE(succeeded(verify(*module)));
    Plan plan;
    if (!parseExplanation(remark, plan)) {
      ADD_FAILURE() << "no plan explanation in: " << remark;
      return std::nullopt;
    }
    func::FuncOp func = *module->getOps<func::FuncOp>().begin();
    FailureOr<MemoryTimeline> timeline = computeMemoryTimeline(func);
    EXPECT_TRUE(succeeded(timeline));
    EXPECT_EQ(computeScopedPeak(*timeline, scope).bytes, plan.peak);
    if (scope == BudgetScope::Step) {
      EXPECT_EQ(timeline->peakBytes, plan.peak);
    }
    func.walk([&](Operation *op) {
      if (op->hasAttr(CkptDialect::getRecomputeAttrName())) {
        EXPECT_EQ(getOpPhase(op), Phase::Forward);
      }
    });
    llvm::raw_string_ostream os(plan.ir);
    module->print(os);
    return plan;
  }

  MLIRContext context;
};

TEST_F(PlaceCheckpointsProperty, RandomTrainingSteps) {
  const unsigned seed = 20261130;
  std::mt19937 rng(seed);
  int exactRuns = 0, exactBeatGreedy = 0, feasible = 0, scopedFeasible = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    int n = 3 + static_cast<int>(rng() % 10);
    std::string source = test::writeRandomTrainingStep(n, [&](int bound) {
      return std::uniform_int_distribution<int>(0, bound - 1)(rng);
    });
    SCOPED_TRACE(
        llvm::formatv("seed {0}, trial {1}:\n{2}", seed, trial, source).str());
    std::optional<Plan> none = place(source, "strategy=none");
    ASSERT_TRUE(none);
    EXPECT_EQ(none->peak, none->basePeak);
    EXPECT_EQ(none->overhead, 0.0);
    for (const char *baseline : {"full", "sqrt", "selective"}) {
      ASSERT_TRUE(place(source, std::string("strategy=") + baseline));
    }
    double fraction = 0.5 + 0.05 * static_cast<double>(rng() % 10);
    std::string budget = llvm::formatv("budget={0}x", fraction).str();
    int64_t limit = static_cast<int64_t>(fraction * double(none->basePeak));
    std::optional<Plan> greedy = place(source, "strategy=greedy " + budget);
    if (greedy) {
      ++feasible;
      EXPECT_LE(greedy->peak, limit);
      // Deterministic: the same input and options give the same output.
      EXPECT_EQ(place(source, "strategy=greedy " + budget)->ir, greedy->ir);
    }
    // In the activations scope, the fraction is of the peak without the
    // argument and the gradient, and the plan fits it in those terms.
    std::optional<Plan> scopedNone =
        place(source, "strategy=none", BudgetScope::Activations);
    ASSERT_TRUE(scopedNone);
    EXPECT_LE(scopedNone->basePeak, none->basePeak);
    int64_t scopedLimit =
        static_cast<int64_t>(fraction * double(scopedNone->basePeak));
    std::optional<Plan> scoped =
        place(source, "strategy=greedy " + budget, BudgetScope::Activations);
    if (scoped) {
      ++scopedFeasible;
      EXPECT_EQ(scoped->basePeak, scopedNone->basePeak);
      EXPECT_LE(scoped->peak, scopedLimit);
    }
    if (trial % 10 != 0 || n > 8)
      continue;
    std::optional<Plan> exact =
        place(source, "strategy=exact time-limit=5 objective=flops " + budget);
    std::optional<Plan> greedyFlops =
        place(source, "strategy=greedy objective=flops " + budget);
    ++exactRuns;
    if (greedyFlops) {
      ASSERT_TRUE(exact) << "greedy found a plan, exact did not";
    }
    if (exact) {
      EXPECT_LE(exact->peak, limit);
      if (exact->engine == "engine=optimal" && greedyFlops) {
        EXPECT_LE(exact->overhead, greedyFlops->overhead + 1e-4);
        exactBeatGreedy += exact->overhead < greedyFlops->overhead - 1e-4;
      }
    }
  }
  // The random budgets must exercise both outcomes.
  EXPECT_GT(feasible, 100);
  EXPECT_LT(feasible, 1000);
  EXPECT_GT(exactRuns, 10);
  EXPECT_GT(scopedFeasible, 100);
  std::printf("greedy feasible in %d of 1000 trials (%d in the activations "
              "scope); exact run %d times, strictly cheaper than greedy %d "
              "times\n",
              feasible, scopedFeasible, exactRuns, exactBeatGreedy);
}

} // namespace
