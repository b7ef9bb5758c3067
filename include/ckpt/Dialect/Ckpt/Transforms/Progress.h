//===- Progress.h - Progress lines of long solves -------------------*- C++ -*-===//
//
// Passes that can run for many seconds (the exact engine, the Pareto sweep,
// the HTML report's frontier) say how far they are while a user watches a
// terminal. The lines go straight to stderr as they happen: diagnostics of
// function passes run in parallel are held back until every function is
// done, which would defeat them. They are written only when stderr is a
// terminal, unless a tool turns them off (ckpt-opt --quiet); the final line
// of a long pass is a remark, as its other messages are.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_PROGRESS_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_PROGRESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

namespace mlir::ckpt {

/// Whether progress lines are written: by default when stderr is a
/// terminal.
bool progressWanted();

/// Turns progress lines off (or on, where stderr is a terminal), and sets
/// the prefix of each line (a tool's name: `ckpt-opt: `).
void configureProgress(bool enabled, llvm::StringRef prefix);

/// Writes one progress line to stderr if progress is wanted. Safe to call
/// from several threads.
void writeProgress(const llvm::Twine &message);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_PROGRESS_H
