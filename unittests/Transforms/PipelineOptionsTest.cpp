//===- PipelineOptionsTest.cpp - ckpt-pipeline's options match its passes' -===//
//
// The pipeline's options come from one list (PipelineOptions.def) and
// `ckpt-fit-arena`'s from Passes.td: these tests fail if the two drift apart
// (an option in one and not the other, another default) or if the pipeline
// does not hand a value on to the pass.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Pipeline.h"
#include "ckpt/Target/DeviceScratch.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <map>
#include <string>

using namespace mlir;
using namespace mlir::ckpt;

namespace {

/// Parses printed options (`name{a=1 b=x}` or `{a=1 b=x}`; no value holds a
/// space) into name -> value.
std::map<std::string, std::string> parsePrinted(llvm::StringRef text) {
  std::map<std::string, std::string> values;
  text = text.drop_until([](char c) { return c == '{'; }).drop_front();
  text = text.take_until([](char c) { return c == '}'; });
  llvm::SmallVector<llvm::StringRef> fields;
  text.split(fields, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef field : fields) {
    auto [name, value] = field.split('=');
    values[name.str()] = value.str();
  }
  return values;
}

/// The pipeline's options as printed, without those it keeps for itself.
std::map<std::string, std::string>
printedFitOptions(CkptPipelineOptions &options) {
  std::string text;
  llvm::raw_string_ostream os(text);
  options.print(os);
  std::map<std::string, std::string> values = parsePrinted(os.str());
  values.erase("plan-memory");
  values.erase("device-workspace");
  values.erase("chunk-loss-head");
  values.erase("chunk-when-infeasible");
  return values;
}

/// The options of the `ckpt-fit-arena` pass in `pm`, as printed.
std::map<std::string, std::string> printedPassOptions(OpPassManager &pm) {
  for (Pass &pass : pm.getPasses()) {
    if (pass.getArgument() != "ckpt-fit-arena")
      continue;
    std::string text;
    llvm::raw_string_ostream os(text);
    pass.printAsTextualPipeline(os);
    return parsePrinted(os.str());
  }
  ADD_FAILURE() << "the pipeline has no ckpt-fit-arena pass";
  return {};
}

TEST(PipelineOptions, FitArenaTakesThePipelinesOptionsWithItsDefaults) {
  CkptPipelineOptions pipeline;
  std::string text;
  llvm::raw_string_ostream os(text);
  createFitArenaPass()->printAsTextualPipeline(os);
  EXPECT_EQ(printedFitOptions(pipeline), parsePrinted(os.str()));
}

TEST(PipelineOptions, EveryValueReachesFitArena) {
  // Every option away from its default.
  std::unique_ptr<CkptPipelineOptions> options =
      CkptPipelineOptions::createFromString(
          "budget=1MiB budget-scope=activations strategy=greedy "
          "objective=flops profile=h200 time-limit=5 alignment=512 "
          "in-place=false verify-plan=true max-resolves=3 plan-memory=true "
          "offload=pcie-gen4 host-budget=1GiB");
  ASSERT_TRUE(options);
  OpPassManager pm("builtin.module");
  buildCkptPipeline(pm, *options);
  std::map<std::string, std::string> expected = printedFitOptions(*options);
  EXPECT_EQ(expected.size(), 12u);
  EXPECT_EQ(printedPassOptions(pm), expected);
}

/// The pipeline built from `options`, as printed.
std::string builtPipeline(const CkptPipelineOptions &options) {
  OpPassManager pm("builtin.module");
  buildCkptPipeline(pm, options);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return os.str();
}

TEST(PipelineOptions, ChunkLossHeadGetsTheBudget) {
  std::unique_ptr<CkptPipelineOptions> options =
      CkptPipelineOptions::createFromString(
          "chunk-loss-head=0 budget=1MiB budget-scope=activations "
          "objective=flops profile=h200");
  ASSERT_TRUE(options);
  std::string text = builtPipeline(*options);
  EXPECT_NE(text.find("ckpt-chunk-loss-head{budget=1MiB "
                      "budget-scope=activations chunks=0 explain=false "
                      "objective=flops profile=h200 when-needed=false}"),
            std::string::npos)
      << text;
  // Without a budget nothing is chunked by default.
  EXPECT_EQ(builtPipeline(CkptPipelineOptions()).find("ckpt-chunk-loss-head"),
            std::string::npos);
}

TEST(PipelineOptions, ChunksWhenTheBudgetIsBelowTheHeadsFloor) {
  // With a budget, by default: the pass chunks only a head that does not
  // fit it.
  std::unique_ptr<CkptPipelineOptions> options =
      CkptPipelineOptions::createFromString("budget=0.5x");
  ASSERT_TRUE(options);
  std::string text = builtPipeline(*options);
  EXPECT_NE(text.find("ckpt-chunk-loss-head{budget=0.5x budget-scope=step "
                      "chunks=0 explain=false objective=time "
                      "profile=h100-sxm when-needed=true}"),
            std::string::npos)
      << text;
  // Turned off.
  options = CkptPipelineOptions::createFromString(
      "budget=0.5x chunk-when-infeasible=false");
  ASSERT_TRUE(options);
  EXPECT_EQ(builtPipeline(*options).find("ckpt-chunk-loss-head"),
            std::string::npos);
}

TEST(PipelineOptions, BudgetSetFromCppIsParsedOnce) {
  CkptPipelineOptions options;
  options.budget = "0.5x";
  ASSERT_TRUE(options.budget.getValue().getBudget());
  EXPECT_EQ(options.budget.getValue().getBudget()->fraction, 0.5);
  EXPECT_EQ(options.budget.getValue().getText(), "0.5x");
  EXPECT_TRUE(options.budget.getValue().getError().empty());
  // A bare number keeps the reason, which the pass reports.
  options.budget = "4096";
  EXPECT_FALSE(options.budget.getValue().getBudget());
  EXPECT_NE(options.budget.getValue().getError().find("has no unit"),
            std::string::npos);
  options.budget = BudgetOption();
  EXPECT_TRUE(options.budget.getValue().empty());
}

TEST(PipelineOptions, DeviceWorkspaceIsParsedOnce) {
  CkptPipelineOptions options;
  EXPECT_TRUE(options.deviceWorkspace.getValue().empty());
  EXPECT_FALSE(options.deviceWorkspace.getValue().getBytes());
  options.deviceWorkspace = "cuda";
  EXPECT_EQ(options.deviceWorkspace.getValue().getKind(),
            DeviceWorkspaceOption::Kind::Cuda);
  EXPECT_EQ(options.deviceWorkspace.getValue().getBytes(),
            kCudaDeviceScratchBytes);
  // A bare number is bytes; 0 is a size (it removes a reservation).
  options.deviceWorkspace = "4096";
  EXPECT_EQ(options.deviceWorkspace.getValue().getBytes(), 4096);
  options.deviceWorkspace = "64MiB";
  EXPECT_EQ(options.deviceWorkspace.getValue().getBytes(), int64_t(64) << 20);
  EXPECT_EQ(options.deviceWorkspace.getValue().getText(), "64MiB");
  options.deviceWorkspace = "0";
  EXPECT_EQ(options.deviceWorkspace.getValue().getBytes(), 0);
  // A fraction keeps the reason, which the pass reports.
  options.deviceWorkspace = "0.5x";
  EXPECT_FALSE(options.deviceWorkspace.getValue().getBytes());
  EXPECT_NE(options.deviceWorkspace.getValue().getError().find(
                "bad device workspace size '0.5x'"),
            std::string::npos);
}

TEST(PipelineOptions, DeviceWorkspaceReachesTheReservation) {
  std::unique_ptr<CkptPipelineOptions> options =
      CkptPipelineOptions::createFromString("device-workspace=64MiB");
  ASSERT_TRUE(options);
  std::string text = builtPipeline(*options);
  EXPECT_NE(text.find("ckpt-reserve-device-workspace{size=64MiB}"),
            std::string::npos)
      << text;
  // A bad value is an error of the options, not of a pass.
  EXPECT_FALSE(CkptPipelineOptions::createFromString("device-workspace=0.5x"));
}

} // namespace
