//===- LineExcerpts.h - Diagnostics on very long source lines ---*- C++ -*-===//
//
// MLIR's source-manager diagnostic handler prints the whole source line under
// every diagnostic, and as many spaces before the caret as the column: on a
// JSON graph written on one line (json.dumps without indent) a single error
// echoes the whole file, twice its size. ckpt-opt prints diagnostics located
// on long lines of its input with an excerpt around the column instead.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_TOOLS_CKPT_OPT_LINEEXCERPTS_H
#define CKPT_TOOLS_CKPT_OPT_LINEEXCERPTS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>

namespace ckpt_opt {

/// Longest source line a diagnostic shows whole.
constexpr size_t kMaxShownLineLength = 200;

/// Columns of a long line shown on each side of the column.
constexpr size_t kExcerptRadius = 60;

/// The word MLIR prints for `severity` (`error`, `warning`, `note`,
/// `remark`).
const char *severityName(mlir::DiagnosticSeverity severity);

/// If `diag` or one of its notes is located (through a file:line:col
/// location) on a line of `source`, the text of file `fileName`, longer than
/// kMaxShownLineLength, prints the diagnostic and its notes to `os` the way
/// MLIR's source-manager handler does, but with at most kExcerptRadius
/// columns on each side of the column of such lines ("..." where cut), and
/// returns success. Otherwise prints nothing and returns failure, leaving
/// the diagnostic to the handlers registered before.
mlir::LogicalResult printWithLineExcerpts(mlir::Diagnostic &diag,
                                          llvm::StringRef fileName,
                                          llvm::StringRef source,
                                          llvm::raw_ostream &os);

} // namespace ckpt_opt

#endif // CKPT_TOOLS_CKPT_OPT_LINEEXCERPTS_H
