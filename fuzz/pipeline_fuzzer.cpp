//===- pipeline_fuzzer.cpp - libFuzzer target: the whole pipeline ---------===//
//
// Drives the pipeline with fuzzer-chosen inputs: the bytes pick a random
// training step (test/lib/RandomTrainingStep.h), a budget (a fraction of the
// no-recompute peak) and a strategy; the step is printed, re-parsed and run
// through `buildCkptPipeline`. Findings: a crash or sanitizer report, a
// generated step that does not verify, a rewritten module that does not
// verify, or an accepted plan whose simulated peak exceeds the budget.
// (The exact MILP engine is left out: CBC's run time does not suit
// fuzzing; tests cover it.) When memory planning and code generation join
// the pipeline they are fuzzed here too.
//
//===----------------------------------------------------------------------===//

#include "FuzzRegistry.h"
#include "RandomTrainingStep.h"

#include "ckpt/Analysis/MemoryTimeline.h"
#include "ckpt/InitAll.h"
#include "ckpt/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace mlir;

/// The registry, with the ckpt passes registered once beforehand.
static const DialectRegistry &getRegistry() {
  static bool passes = (ckpt::registerAllPasses(), true);
  (void)passes;
  return ckpt::fuzz::getRegistry();
}

/// Reports a finding and aborts, so that libFuzzer keeps the input.
[[noreturn]] static void finding(const char *what, const std::string &source) {
  std::fprintf(stderr, "pipeline fuzzer finding: %s\n%s\n", what,
               source.c_str());
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider input(data, size);
  using ckpt::remat::Strategy;
  static const Strategy strategies[] = {
      Strategy::None, Strategy::Full, Strategy::Sqrt,
      Strategy::Selective, Strategy::Greedy};
  Strategy strategy = strategies[input.ConsumeIntegralInRange(0, 4)];
  int fraction = input.ConsumeIntegralInRange(5, 105); // percent of the peak
  int numOps = input.ConsumeIntegralInRange(1, 24);
  std::string source = ckpt::test::writeRandomTrainingStep(
      numOps, [&](int bound) { return input.ConsumeIntegralInRange(0, bound - 1); });

  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    finding("the generated step does not parse or verify", source);
  auto func = *module->getOps<func::FuncOp>().begin();
  FailureOr<ckpt::MemoryTimeline> before = ckpt::computeMemoryTimeline(func);
  if (failed(before))
    finding("the memory simulation rejects the generated step", source);
  int64_t budget = before->peakBytes * fraction / 100;

  ckpt::CkptPipelineOptions options;
  options.strategy = strategy;
  if (strategy != Strategy::None)
    options.budget = std::to_string(budget) + "B";
  PassManager pm = PassManager::on<ModuleOp>(&context);
  ckpt::buildCkptPipeline(pm, options);
  if (failed(pm.run(*module)))
    return 0; // Rejected with a diagnostic (e.g. the budget cannot be met).
  if (failed(verify(*module)))
    finding("the rewritten module does not verify", source);
  FailureOr<ckpt::MemoryTimeline> after = ckpt::computeMemoryTimeline(func);
  if (failed(after))
    finding("the memory simulation rejects the rewritten step", source);
  if (strategy != Strategy::None && after->peakBytes > budget)
    finding("an accepted plan exceeds its budget", source);
  return 0;
}
