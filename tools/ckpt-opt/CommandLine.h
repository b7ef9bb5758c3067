//===- CommandLine.h - ckpt-opt's own face on LLVM's command line -*- C++ -*-===//
//
// ckpt-opt parses its command line with llvm::cl, which also carries every
// option LLVM's libraries register (300 backend options) and reports errors
// in pass options at no location (`<unknown>:0: error: ...`). These helpers
// give the tool its own --help, --version and option errors.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_TOOLS_CKPT_OPT_COMMANDLINE_H
#define CKPT_TOOLS_CKPT_OPT_COMMANDLINE_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ckpt_opt {

/// The category of ckpt-opt's own options, listed first by --help.
llvm::cl::OptionCategory &toolCategory();

/// Hides from --help every option registered so far except llvm::cl's own
/// (help, version) and those in toolCategory(): at the start of main these
/// are the options of LLVM's libraries, which --help-hidden still lists.
/// Options MLIR registers later (the pass list, -o, the mlir-* options) stay.
void hideLibraryOptions();

/// Makes --version print ckpt-opt's version and the MLIR it was built with.
void installVersionPrinter();

/// Prints a diagnostic that has no location as the tool's own and returns
/// success; returns failure for located diagnostics, leaving them to other
/// handlers. Errors in pass options have no location (MLIR reports them so):
/// `ckpt-opt: error: <message>`; an empty message (llvm::cl has already
/// printed why a value does not parse) is dropped, and "no such option" names
/// the command-line argument that holds the option, from `args` (the command
/// line). Remarks without location are the passes' summaries (the plan in
/// words): `ckpt-opt: <message>`, dropped when `quiet`.
mlir::LogicalResult printUnlocatedDiagnostic(mlir::Diagnostic &diag,
                                             llvm::ArrayRef<std::string> args,
                                             bool quiet, llvm::raw_ostream &os);

} // namespace ckpt_opt

#endif // CKPT_TOOLS_CKPT_OPT_COMMANDLINE_H
