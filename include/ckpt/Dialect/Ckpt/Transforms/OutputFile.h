//===- OutputFile.h - Files the passes write, never half-written --*- C++ -*-===//
//
// The report, the frontier, the memory plan and the plan decisions are
// written by passes to files their options name. A regular file is written
// to a temporary next to it and renamed over it once complete and flushed
// without error, so a failure (a full disk) leaves no partial file and keeps
// an existing one. A name that exists and is not a regular file (a device
// such as /dev/null or /dev/full, a pipe, a symbolic link) is written in
// place: renaming over it would replace the device node or the link. `-` is
// stdout.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_OUTPUTFILE_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_OUTPUTFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::ckpt {

/// Writes `path` with `write` as described above; returns the error of
/// `write`, of opening, of writing (checked after flushing) or of renaming.
llvm::Error
writeOutputFile(llvm::StringRef path,
                llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_OUTPUTFILE_H
