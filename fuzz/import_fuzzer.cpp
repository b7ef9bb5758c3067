//===- import_fuzzer.cpp - libFuzzer target: the graph-format importer ----===//
//
// Feeds arbitrary bytes to mlir::ckpt::importGraphJson exactly as ckpt-opt
// does (diagnostics through a SourceMgrDiagnosticHandler on the buffer), and
// for every accepted graph checks what ckpt-opt relies on next: the imported
// module, printed with its locations, parses and verifies again in a fresh
// context. Anything else than "imported" or "rejected with a diagnostic" --
// a crash, a sanitizer report, a leak, or an imported module that does not
// round-trip -- is a finding.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Import/GraphImport.h"
#include "FuzzRegistry.h"
#include "ckpt/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;

using ckpt::fuzz::getRegistry;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef json(reinterpret_cast<const char *>(data), size);
  std::string text;
  {
    MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
    context.printOpOnDiagnostic(false);
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(json, "fuzz.json",
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    // Diagnostics are rendered (with their source excerpt) as in ckpt-opt,
    // then dropped.
    SourceMgrDiagnosticHandler handler(sourceMgr, &context, llvm::nulls());
    OwningOpRef<ModuleOp> module =
        ckpt::importGraphJson(json, "fuzz.json", &context);
    if (!module)
      return 0;
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().enableDebugInfo());
  }

  // ckpt-opt hands this text to MlirOptMain, which parses and verifies it in
  // a new context: an imported graph must survive that.
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "imported.mlir"),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, errorStream);
  if (!parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context))) {
    llvm::errs() << "ckpt-fuzz-import: the imported module does not parse "
                    "and verify again:\n"
                 << errors << "\n--- imported module ---\n"
                 << text << "\n";
    std::abort();
  }
  return 0;
}
