//===- CommandLine.cpp - ckpt-opt's own face on LLVM's command line -------===//

#include "CommandLine.h"
#include "LineExcerpts.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

llvm::cl::OptionCategory &ckpt_opt::toolCategory() {
  static llvm::cl::OptionCategory category(
      "Checkpoint planning options (ckpt-opt)",
      "The input, the output and what to write; the passes are listed under "
      "General options, LLVM's own options under --help-hidden.");
  return category;
}

void ckpt_opt::hideLibraryOptions() {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *option = entry.getValue();
    StringRef name = entry.getKey();
    if (name == "help" || name == "help-list" || name == "version" ||
        option->getOptionHiddenFlag() != llvm::cl::NotHidden ||
        llvm::is_contained(option->Categories, &toolCategory()))
      continue;
    option->setHiddenFlag(llvm::cl::Hidden);
  }
}

void ckpt_opt::installVersionPrinter() {
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "ckpt-opt " CKPT_OPT_VERSION " (built with MLIR " CKPT_MLIR_VERSION
          ")\n";
  });
}

/// The argument of `args` naming the pass whose options contain `option`
/// (`--ckpt-pareto=points=8 bogus=1` for `bogus`), as `--ckpt-pareto`; empty
/// if none does.
static std::string argumentWithOption(llvm::ArrayRef<std::string> args,
                                      StringRef option) {
  for (StringRef arg : args) {
    if (!arg.starts_with("-"))
      continue;
    auto [flag, value] = arg.split('=');
    if (value.empty())
      continue;
    SmallVector<StringRef> words;
    llvm::SplitString(value, words, " \t{}");
    for (StringRef word : words)
      if (word.split('=').first == option)
        return "--" + flag.ltrim('-').str();
  }
  return "";
}

LogicalResult ckpt_opt::printUnlocatedDiagnostic(
    Diagnostic &diag, llvm::ArrayRef<std::string> args, bool quiet,
    llvm::raw_ostream &os) {
  if (!isa<UnknownLoc>(diag.getLocation()))
    return failure();
  std::string message = diag.str();
  if (message.empty())
    return success();
  if (diag.getSeverity() == DiagnosticSeverity::Remark) {
    if (!quiet)
      os << "ckpt-opt: " << message << "\n";
    return success();
  }
  StringRef text = message;
  if (text.consume_front("<Pass-Options-Parser>: ")) {
    if (text.consume_front("no such option ")) {
      std::string option = text.trim().str();
      std::string where = argumentWithOption(args, option);
      message = "no such option '" + option + "'" +
                (where.empty() ? "" : " in " + where) +
                " (ckpt-opt --help lists each pass's options)";
    } else {
      message = text.str();
    }
  }
  os << "ckpt-opt: " << severityName(diag.getSeverity()) << ": " << message
     << "\n";
  for (Diagnostic &note : diag.getNotes())
    os << "ckpt-opt: note: " << note.str() << "\n";
  return success();
}
