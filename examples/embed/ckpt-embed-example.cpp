//===- ckpt-embed-example.cpp - ckpt-opt embedded in another tool ---------===//
//
// The smallest useful embedding of ckpt-opt, using its public API only:
//
//   ckpt-embed-example <model.json | step.mlir> <budget>
//
// loads a training step (graph format v1 JSON, or MLIR), plans checkpoints
// under the memory budget (`24GiB`, `512MiB`, `0.6x` of the no-recompute
// peak) with the ckpt pipeline, verifies the result and prints, for every
// function, the peak memory before and after and how many ops are now
// recomputed. Exits 1 with an error on stderr on any failure.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/MemoryTimeline.h"   // computeMemoryTimeline
#include "ckpt/Analysis/StepReport.h"       // formatBytes
#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h" // the `ckpt.recompute` name
#include "ckpt/Import/GraphImport.h"        // importGraphJson
#include "ckpt/InitAll.h"                   // registerAllDialects
#include "ckpt/Pipeline.h"                  // buildCkptPipeline
#include "ckpt/Remat/Budget.h"              // parseBudget

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

static int fail(const llvm::Twine &message) {
  llvm::errs() << "ckpt-embed-example: error: " << message << "\n";
  return 1;
}

/// The functions of `module` that have a body (the training steps).
static SmallVector<func::FuncOp> definedFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      funcs.push_back(func);
  return funcs;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: ckpt-embed-example <model.json | step.mlir> "
                    "<budget, e.g. 24GiB or 0.6x>\n";
    return 1;
  }
  std::string inputPath = argv[1], budgetText = argv[2];

  // The budget is parsed up front only to print it in bytes below; the
  // pipeline parses the same string itself.
  std::string budgetError;
  std::optional<ckpt::remat::Budget> budget =
      ckpt::remat::parseBudget(budgetText, budgetError);
  if (!budget)
    return fail("bad budget '" + budgetText + "': " + budgetError);

  // 1. Registration: a context that knows the ckpt dialect and the dialects
  //    a training step uses. (ckpt::registerAllPasses() is only needed to
  //    parse textual pipelines such as "ckpt-pipeline{budget=0.5x}".)
  DialectRegistry registry;
  ckpt::registerAllDialects(registry);
  MLIRContext context(registry);

  // Diagnostics (import, parse, pipeline) are printed with their source
  // locations through a SourceMgr that owns the input.
  std::string openError;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputPath, &openError);
  if (!input)
    return fail(openError);
  llvm::SourceMgr sourceMgr;
  llvm::StringRef text = input->getBuffer();
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  // 2. Load the step: graph format v1 (JSON) through the importer, MLIR
  //    through MLIR's parser.
  OwningOpRef<ModuleOp> module;
  if (llvm::StringRef(inputPath).ends_with(".json") ||
      ckpt::looksLikeJson(text))
    module = ckpt::importGraphJson(text, inputPath, &context);
  else
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("cannot load '" + inputPath + "'");

  // 3. The memory of every step before planning: the no-recompute peak.
  llvm::StringMap<int64_t> peakBefore;
  for (func::FuncOp func : definedFunctions(*module)) {
    FailureOr<ckpt::MemoryTimeline> timeline = ckpt::computeMemoryTimeline(func);
    if (failed(timeline))
      return fail("cannot simulate @" + func.getSymName());
    peakBefore[func.getSymName()] = timeline->peakBytes;
  }

  // 4. The pipeline, built from its options struct and run on the module.
  //    It fails (with a diagnostic) if no plan fits the budget.
  ckpt::CkptPipelineOptions options;
  options.budget = budgetText;
  options.strategy = ckpt::remat::Strategy::Greedy;
  PassManager pm(&context);
  ckpt::buildCkptPipeline(pm, options);
  if (failed(pm.run(*module)))
    return fail("checkpoint planning failed for budget " + budgetText);
  if (failed(verify(*module)))
    return fail("the planned module does not verify");

  // 5. The plan's summary: peaks before and after, recomputed ops.
  bool allFit = true;
  for (func::FuncOp func : definedFunctions(*module)) {
    FailureOr<ckpt::MemoryTimeline> timeline = ckpt::computeMemoryTimeline(func);
    if (failed(timeline))
      return fail("cannot simulate the planned @" + func.getSymName());
    int64_t before = peakBefore.lookup(func.getSymName());
    int64_t after = timeline->peakBytes;
    int64_t limit = budget->resolve(before);
    int64_t recomputed = 0;
    func.walk([&](Operation *op) {
      if (op->hasAttr(ckpt::CkptDialect::getRecomputeAttrName()))
        ++recomputed;
    });
    bool fits = after <= limit;
    allFit &= fits;
    llvm::outs() << "function @" << func.getSymName() << "\n"
                 << "  no-recompute peak: " << before << " bytes ("
                 << ckpt::formatBytes(before) << ")\n"
                 << "  budget:            " << limit << " bytes ("
                 << budgetText << ")\n"
                 << "  planned peak:      " << after << " bytes ("
                 << ckpt::formatBytes(after) << ")\n"
                 << "  within budget:     " << (fits ? "yes" : "no") << "\n"
                 << "  recomputed ops:    " << recomputed << "\n";
  }
  return allFit ? 0 : fail("a planned peak exceeds the budget");
}
