//===- InitAll.h - Register everything ckpt-opt provides ---------*- C++
//-*-===//
//
// The one entry point that tools, tests and embedders call to register the
// ckpt dialect, the dialects it builds on, and every ckpt pass.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_INITALL_H
#define CKPT_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::ckpt {

/// Adds the ckpt dialect and the dialects a training step uses (func) to
/// `registry`.
void registerAllDialects(DialectRegistry &registry);

/// Registers every ckpt pass and the `ckpt-pipeline` pipeline (and the
/// generic MLIR passes ckpt-opt offers, such as canonicalize and cse) with
/// the global pass registry.
void registerAllPasses();

} // namespace mlir::ckpt

#endif // CKPT_INITALL_H
