//===- mlir_fuzzer.cpp - libFuzzer target: ckpt text, parser and verifier -===//
//
// Parses arbitrary bytes as MLIR assembly with the ckpt dialects registered
// (ckpt, func), then runs the verifier (the ckpt op verifiers and the
// training-step verifier) and, for a module that verifies, the printer --
// the path every .mlir input of ckpt-opt takes, after the same nesting check
// as ckpt-opt (MLIR's recursive parser overflows the stack on deeply nested
// input; ckpt-opt rejects that first). A crash or sanitizer report is a
// finding; parse and verifier errors are the expected outcome.
//
//===----------------------------------------------------------------------===//

#include "InputNesting.h" // tools/ckpt-opt: the tool's own input check.

#include "FuzzRegistry.h"
#include "ckpt/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

using namespace mlir;

using ckpt::fuzz::getRegistry;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  if (ckpt_opt::findExcessiveMlirNesting(text))
    return 0; // ckpt-opt reports this without parsing.
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  // MLIR's lexer needs a null-terminated buffer: copy.
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, llvm::nulls());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      sourceMgr, ParserConfig(&context, /*verifyAfterParse=*/false));
  if (!module || failed(verify(*module)))
    return 0;
  module->print(llvm::nulls());
  module->print(llvm::nulls(), OpPrintingFlags().printGenericOpForm());
  return 0;
}
