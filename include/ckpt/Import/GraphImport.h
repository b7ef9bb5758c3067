//===- GraphImport.h - Import graph format v1 into the ckpt dialect -*- C++
//-*-===//
//
// Translates a training step written in graph format v1 (JSON, see
// docs/graph-format.md) into a module holding one `ckpt.step` function.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_IMPORT_GRAPHIMPORT_H
#define CKPT_IMPORT_GRAPHIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::ckpt {

/// Imports the graph-format-v1 document `json`, read from `fileName`, into a
/// new module in `context` (which must have the ckpt dialect registered).
/// Every problem is reported through `context`'s diagnostic engine with a
/// location `fileName:line:col` and the JSON path of the offending element;
/// returns null on failure. The imported module is verified.
OwningOpRef<ModuleOp> importGraphJson(llvm::StringRef json,
                                      llvm::StringRef fileName,
                                      MLIRContext *context);

/// Returns true if `buffer` looks like a JSON document (its first
/// non-whitespace character is `{`).
bool looksLikeJson(llvm::StringRef buffer);

} // namespace mlir::ckpt

#endif // CKPT_IMPORT_GRAPHIMPORT_H
