//===- ParseHelper.h - Parse test IR for analysis unit tests ----*- C++ -*-===//

#ifndef CKPT_UNITTESTS_ANALYSIS_PARSEHELPER_H
#define CKPT_UNITTESTS_ANALYSIS_PARSEHELPER_H

#include "ckpt/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

namespace mlir::ckpt::test {

/// Owns a context with the ckpt dialects and the last parsed module.
class IRFixture {
public:
  IRFixture() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `source` and returns its first function (null on error).
  func::FuncOp parseFunc(llvm::StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return nullptr;
    auto funcs = module->getOps<func::FuncOp>();
    return funcs.empty() ? nullptr : *funcs.begin();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

} // namespace mlir::ckpt::test

#endif // CKPT_UNITTESTS_ANALYSIS_PARSEHELPER_H
