//===- RematGraphImport.h - Import remat benchmark graphs -------*- C++ -*-===//
//
// Translates the standard rematerialization benchmark graphs (networkx
// node-link JSON: Checkmate's layer graphs and the random layered graphs of
// Gagrani et al., see docs/remat-graphs.md) into a module holding one
// function of `ckpt.opaque` ops with explicit costs and exact output sizes.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_IMPORT_REMATGRAPHIMPORT_H
#define CKPT_IMPORT_REMATGRAPHIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::ckpt {

/// Returns true if `buffer` is a remat benchmark graph: a JSON object with
/// `nodes` and `links` members and neither of graph format v1's `format` and
/// `version` markers. Returns false for anything else, malformed JSON
/// included (the graph-format importer then reports it).
bool isRematGraphJson(llvm::StringRef buffer);

/// Imports the remat benchmark graph `json`, read from `fileName`, into a new
/// module in `context`: one function whose ops are the graph's nodes in the
/// graph's schedule order, each a `ckpt.opaque` op with the node's cost as
/// `compute_cost` and a result of exactly the node's output bytes. Every
/// problem is reported through `context`'s diagnostic engine at
/// `fileName:line:col` with the JSON path of the offending element; returns
/// null on failure. The imported module is verified.
OwningOpRef<ModuleOp> importRematGraphJson(llvm::StringRef json,
                                           llvm::StringRef fileName,
                                           MLIRContext *context);

} // namespace mlir::ckpt

#endif // CKPT_IMPORT_REMATGRAPHIMPORT_H
