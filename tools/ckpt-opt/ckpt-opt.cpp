//===- ckpt-opt.cpp - The ckpt-opt driver ---------------------------------===//
//
// An mlir-opt-style driver with the ckpt dialect and all ckpt passes. Besides
// `.mlir` it reads training steps in graph format v1 (JSON) and the remat
// benchmark graphs (networkx node-link JSON): those are imported first, then
// run through the same pass pipeline.
//
//===----------------------------------------------------------------------===//

#include "CommandLine.h"
#include "InputNesting.h"
#include "LineExcerpts.h"

#include "ckpt/Analysis/StepReport.h"
#include "ckpt/Dialect/Ckpt/Transforms/Progress.h"
#include "ckpt/Import/GraphImport.h"
#include "ckpt/Import/RematGraphImport.h"
#include "ckpt/InitAll.h"
#include "ckpt/Target/Cpp/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;

namespace {
enum class InputFormat { Auto, Mlir, Json, RematGraph };
} // namespace

static llvm::cl::opt<InputFormat> inputFormat(
    "input-format", llvm::cl::desc("Format of the input file"),
    llvm::cl::cat(ckpt_opt::toolCategory()),
    llvm::cl::init(InputFormat::Auto),
    llvm::cl::values(
        clEnumValN(InputFormat::Auto, "auto",
                   "JSON if the file name ends in .json or the content starts "
                   "with '{' (a remat graph if it is an object with 'nodes' "
                   "and 'links' and no 'format' or 'version', graph format "
                   "v1 otherwise), MLIR otherwise (default)"),
        clEnumValN(InputFormat::Mlir, "mlir", "MLIR assembly"),
        clEnumValN(InputFormat::Json, "json", "graph format v1 (JSON)"),
        clEnumValN(InputFormat::RematGraph, "remat-graph",
                   "remat benchmark graph (networkx node-link JSON: "
                   "Checkmate or random layered)")));

namespace {
enum class EmitKind { Auto, Mlir, Cpp, Cuda, None };
} // namespace

static llvm::cl::opt<EmitKind> emitKind(
    "emit", llvm::cl::desc("What to write to the output file"),
    llvm::cl::cat(ckpt_opt::toolCategory()),
    llvm::cl::init(EmitKind::Auto),
    llvm::cl::values(
        clEnumValN(EmitKind::Auto, "auto",
                   "the resulting IR, except when a report pass "
                   "(--ckpt-report, --ckpt-pareto) writes to stdout and no "
                   "-o is given (default)"),
        clEnumValN(EmitKind::Mlir, "mlir", "the resulting IR"),
        clEnumValN(EmitKind::Cpp, "cpp",
                   "C++ for the host runtime: <step>.cpp, <step>.h and "
                   "<step>.plan.json per planned function, written into the "
                   "directory named by -o (docs/codegen.md)"),
        clEnumValN(EmitKind::Cuda, "cuda",
                   "CUDA for the device runtime: <step>.cu, <step>.h and "
                   "<step>.plan.json per planned function, written into the "
                   "directory named by -o (docs/gpu.md)"),
        clEnumValN(EmitKind::None, "none", "nothing (run the passes only)")));

static llvm::cl::opt<bool> quiet(
    "quiet",
    llvm::cl::desc("Do not print the passes' summaries (the plan in words); "
                   "errors and warnings are still printed"),
    llvm::cl::init(false), llvm::cl::cat(ckpt_opt::toolCategory()));

static llvm::cl::opt<int64_t> emitCppAlignment(
    "emit-cpp-alignment",
    llvm::cl::desc("With --emit=cpp/cuda: the alignment the memory plan was made "
                   "with (0: inferred from the plan, the default)"),
    llvm::cl::cat(ckpt_opt::toolCategory()),
    llvm::cl::init(0));

/// Returns true if the command line asks for a pass that prints to stdout
/// (--ckpt-report, --ckpt-pareto).
static bool requestsReport(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (StringRef(argv[i]).contains("ckpt-report") ||
        StringRef(argv[i]).contains("ckpt-pareto"))
      return true;
  return false;
}

/// Imports a JSON buffer (graph format v1, or a remat benchmark graph if
/// `rematGraph`) and returns it as MLIR text carrying its locations, or null
/// after reporting errors.
static std::unique_ptr<llvm::MemoryBuffer>
importJsonToText(std::unique_ptr<llvm::MemoryBuffer> buffer,
                 StringRef fileName, bool rematGraph,
                 DialectRegistry &registry) {
  MLIRContext context(registry);
  // Diagnostics point at the JSON and the model code, not at generic IR.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  StringRef json = buffer->getBuffer();
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  ScopedDiagnosticHandler excerpts(&context, [&](Diagnostic &diag) {
    return ckpt_opt::printWithLineExcerpts(diag, fileName, json, llvm::errs());
  });
  OwningOpRef<ModuleOp> module =
      rematGraph ? ckpt::importRematGraphJson(json, fileName, &context)
                 : ckpt::importGraphJson(json, fileName, &context);
  if (!module)
    return nullptr;
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo());
  return llvm::MemoryBuffer::getMemBufferCopy(text,
                                              fileName.str() + " (imported)");
}

/// Opens the output. A regular file is written under a unique temporary name
/// in the same directory and only renamed over `path` by commitOutput, once
/// the whole pipeline succeeded: a failed or killed run never leaves a partial
/// output, and never clobbers an existing one. stdout (`-`), special files
/// (`/dev/null`, pipes) and symbolic links are written in place. `tempPath`
/// is set to the temporary name, or left empty when writing in place.
static std::unique_ptr<llvm::ToolOutputFile>
openOutput(StringRef path, std::string &tempPath, std::string &errorMessage) {
  namespace fs = llvm::sys::fs;
  fs::file_status status;
  bool inPlace = path == "-" || (!fs::status(path, status, /*follow=*/false) &&
                                 status.type() != fs::file_type::regular_file);
  if (inPlace)
    return openOutputFile(path, &errorMessage);
  int fd;
  SmallString<128> temp;
  if (std::error_code error =
          fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temp)) {
    errorMessage = "cannot open output file '" + path.str() +
                   "': " + error.message();
    return nullptr;
  }
  tempPath = temp.str().str();
  return std::make_unique<llvm::ToolOutputFile>(tempPath, fd);
}

/// Flushes the output and moves it to `path`; reports failure (a full disk,
/// a failed rename) as an error, the temporary file then being removed.
static LogicalResult commitOutput(llvm::ToolOutputFile &output, StringRef path,
                                  StringRef tempPath) {
  output.os().flush(); // Not close(): the output may be stdout.
  if (std::error_code error = output.os().error()) {
    llvm::errs() << "ckpt-opt: cannot write '" << path
                 << "': " << error.message() << "\n";
    output.os().clear_error();
    return failure();
  }
  if (!tempPath.empty()) {
    if (std::error_code error = llvm::sys::fs::rename(tempPath, path)) {
      llvm::errs() << "ckpt-opt: cannot write '" << path
                   << "': " << error.message() << "\n";
      return failure();
    }
  }
  output.keep();
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Before MLIR registers its options: what is registered now is LLVM's.
  ckpt_opt::hideLibraryOptions();
  ckpt_opt::installVersionPrinter();
  std::vector<std::string> commandLine(argv, argv + argc);
  ckpt::registerAllPasses();
  DialectRegistry registry;
  ckpt::registerAllDialects(registry);

  // Diagnostics name the op's location; printing the whole op in generic
  // form under every error helps compiler developers, not users, so it is
  // off unless asked for.
  SmallVector<char *> args(argv, argv + argc);
  std::string quietDiagnostics = "--mlir-print-op-on-diagnostic=false";
  if (llvm::none_of(args, [](char *arg) {
        return StringRef(arg).ltrim('-').starts_with(
            "mlir-print-op-on-diagnostic");
      }))
    args.insert(args.begin() + 1, quietDiagnostics.data());
  argc = args.size();
  argv = args.data();

  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "ckpt-opt: checkpoint planning for training graphs\n",
      registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // Long solves and imports write progress lines on a terminal; --quiet
  // silences them with the summaries.
  ckpt::configureProgress(!quiet, "ckpt-opt: ");
  // Diagnostics without a location (errors in pass options, the passes'
  // summaries) are printed as the tool's own; errors name the argument that
  // holds the option.
  if (!config.shouldVerifyDiagnostics()) {
    MlirOptMainConfig base = config;
    config.setPassPipelineSetupFn([base, commandLine](PassManager &pm) {
      pm.getContext()->getDiagEngine().registerHandler(
          [commandLine](Diagnostic &diag) {
            return ckpt_opt::printUnlocatedDiagnostic(diag, commandLine, quiet,
                                                      llvm::errs());
          });
      return base.setupPassPipeline(pm);
    });
  }

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << "ckpt-opt: " << errorMessage << "\n";
    return 1;
  }
  // An empty file parses as an empty module, which every pass accepts: say
  // so instead of succeeding with nothing done.
  std::string shownName = inputFilename == "-" ? "<stdin>" : inputFilename;
  if (input->getBuffer().trim().empty() && !config.shouldVerifyDiagnostics()) {
    llvm::errs() << "ckpt-opt: the input '" << shownName << "' is empty\n";
    return 1;
  }
  bool isJson = inputFormat == InputFormat::Json ||
                inputFormat == InputFormat::RematGraph ||
                (inputFormat == InputFormat::Auto &&
                 (StringRef(inputFilename).ends_with(".json") ||
                  ckpt::looksLikeJson(input->getBuffer())));
  if (isJson) {
    bool rematGraph = inputFormat == InputFormat::RematGraph ||
                      (inputFormat == InputFormat::Auto &&
                       ckpt::isRematGraphJson(input->getBuffer()));
    // The passes' diagnostics point into the JSON too: show long lines of it
    // as excerpts (MLIR's handler, registered before, prints the rest).
    if (!config.shouldVerifyDiagnostics()) {
      auto json = std::make_shared<std::string>(input->getBuffer().str());
      MlirOptMainConfig base = config;
      config.setPassPipelineSetupFn([base, json,
                                     shownName](PassManager &pm) {
        pm.getContext()->getDiagEngine().registerHandler(
            [json, shownName](Diagnostic &diag) {
              return ckpt_opt::printWithLineExcerpts(diag, shownName, *json,
                                                     llvm::errs());
            });
        return base.setupPassPipeline(pm);
      });
    }
    auto importStart = std::chrono::steady_clock::now();
    size_t inputBytes = input->getBufferSize();
    input = importJsonToText(std::move(input), shownName, rematGraph, registry);
    if (!input)
      return 1;
    ckpt::writeProgress(
        "imported " + shownName + " (" + ckpt::formatBytes(inputBytes) +
        " of JSON) in " +
        llvm::formatv("{0:f2}",
                      std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - importStart)
                          .count())
            .str() +
        " s");
  } else if (std::optional<size_t> offset =
                 ckpt_opt::findExcessiveMlirNesting(input->getBuffer())) {
    llvm::SourceMgr sourceMgr;
    StringRef buffer = input->getBuffer();
    sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    sourceMgr.PrintMessage(
        llvm::errs(), llvm::SMLoc::getFromPointer(buffer.data() + *offset),
        llvm::SourceMgr::DK_Error,
        "nested deeper than " + llvm::Twine(ckpt_opt::kMaxMlirNesting) +
            " levels of brackets");
    return 1;
  }

  if (emitKind == EmitKind::Cpp || emitKind == EmitKind::Cuda) {
    if (outputFilename == "-") {
      llvm::errs() << "ckpt-opt: --emit="
                   << (emitKind == EmitKind::Cuda ? "cuda" : "cpp")
                   << " writes a directory: name it with -o <directory>\n";
      return 1;
    }
    // The library's emit pass runs last and keeps the files, written here
    // once the whole run succeeded.
    ckpt::EmitCppOptions emitOptions;
    emitOptions.alignment = emitCppAlignment;
    if (emitKind == EmitKind::Cuda)
      emitOptions.target = ckpt::EmitTarget::Cuda;
    ckpt::EmitStepsResult emitted;
    MlirOptMainConfig pipeline = config;
    config.setPassPipelineSetupFn(
        [pipeline, emitOptions, &emitted](PassManager &pm) {
          if (failed(pipeline.setupPassPipeline(pm)))
            return failure();
          pm.addPass(ckpt::createEmitStepsPass(emitOptions, emitted));
          return success();
        });
    llvm::raw_null_ostream discard;
    if (failed(MlirOptMain(discard, std::move(input), registry, config)))
      return 1;
    // Refusals expected by -verify-diagnostics: success, nothing written.
    if (emitted.refused || emitted.steps.empty())
      return emitted.refused && config.shouldVerifyDiagnostics() ? 0 : 1;
    if (llvm::Error error =
            ckpt::writeEmittedSteps(emitted.steps, outputFilename)) {
      llvm::errs() << "ckpt-opt: " << llvm::toString(std::move(error))
                   << "\n";
      return 1;
    }
    return 0;
  }

  // The output is only kept once the whole pipeline succeeded.
  std::string tempPath;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutput(outputFilename, tempPath, errorMessage);
  if (!output) {
    llvm::errs() << "ckpt-opt: " << errorMessage << "\n";
    return 1;
  }
  bool emitIR = emitKind == EmitKind::Mlir ||
                (emitKind == EmitKind::Auto &&
                 !(outputFilename == "-" && requestsReport(argc, argv)));
  llvm::raw_null_ostream discard;
  llvm::raw_ostream *os = emitIR ? static_cast<llvm::raw_ostream *>(&output->os())
                                 : &discard;
  if (failed(MlirOptMain(*os, std::move(input), registry, config)) ||
      failed(commitOutput(*output, outputFilename, tempPath)))
    return 1;
  return 0;
}
