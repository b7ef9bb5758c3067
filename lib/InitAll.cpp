//===- InitAll.cpp - Register everything ckpt-opt provides ----------------===//

#include "ckpt/InitAll.h"
#include "ckpt/Dialect/Ckpt/IR/CkptDialect.h"
#include "ckpt/Dialect/Ckpt/Transforms/Passes.h"
#include "ckpt/Pipeline.h"
#include "ckpt/Target/Cpp/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/Passes.h"

void mlir::ckpt::registerAllDialects(DialectRegistry &registry) {
  registry.insert<CkptDialect, func::FuncDialect>();
}

void mlir::ckpt::registerAllPasses() {
  registerCkptPasses();
  registerCkptPipeline();
  registerCkptTargetPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
}
