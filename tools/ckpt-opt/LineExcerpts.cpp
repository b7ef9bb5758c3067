//===- LineExcerpts.cpp - Diagnostics on very long source lines -----------===//

#include "LineExcerpts.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

#include <algorithm>
#include <optional>
#include <string>

using namespace mlir;

namespace {

/// Where a diagnostic points in the input: its file:line:col location and,
/// when that is in the input, the line's text.
struct SourcePoint {
  FileLineColLoc file;
  std::optional<llvm::StringRef> line;
};

/// Line `number` (1-based) of `source`, without its line break.
std::optional<llvm::StringRef> lineOf(llvm::StringRef source,
                                      unsigned number) {
  if (number == 0)
    return std::nullopt;
  size_t start = 0;
  for (unsigned line = 1; line < number; ++line) {
    size_t next = source.find('\n', start);
    if (next == llvm::StringRef::npos)
      return std::nullopt;
    start = next + 1;
  }
  return source.slice(start, source.find('\n', start)).rtrim('\r');
}

SourcePoint locate(Location loc, llvm::StringRef fileName,
                   llvm::StringRef source) {
  SourcePoint point;
  point.file = LocationAttr(loc).findInstanceOf<FileLineColLoc>();
  if (point.file && point.file.getFilename().getValue() == fileName)
    point.line = lineOf(source, point.file.getLine());
  return point;
}

bool isLong(const SourcePoint &point) {
  return point.line && point.line->size() > ckpt_opt::kMaxShownLineLength;
}

/// Prints one diagnostic (or note) with its line, or an excerpt of it.
void printOne(Location loc, const std::string &message,
              DiagnosticSeverity severity, llvm::StringRef fileName,
              llvm::StringRef source, llvm::raw_ostream &os) {
  SourcePoint point = locate(loc, fileName, source);
  if (point.file)
    os << point.file.getFilename().getValue() << ":" << point.file.getLine()
       << ":" << point.file.getColumn() << ": ";
  else if (!isa<UnknownLoc>(loc))
    os << loc << ": ";
  os << ckpt_opt::severityName(severity) << ": " << message << "\n";
  if (!point.line)
    return;
  llvm::StringRef line = *point.line;
  size_t at = std::min<size_t>(
      point.file.getColumn() ? point.file.getColumn() - 1 : 0, line.size());
  size_t caret = at;
  if (line.size() > ckpt_opt::kMaxShownLineLength) {
    size_t begin = at > ckpt_opt::kExcerptRadius
                       ? at - ckpt_opt::kExcerptRadius
                       : 0;
    size_t end = std::min(line.size(), at + ckpt_opt::kExcerptRadius + 1);
    std::string shown = (begin > 0 ? "..." : "") +
                        line.slice(begin, end).str() +
                        (end < line.size() ? "..." : "");
    caret = at - begin + (begin > 0 ? 3 : 0);
    os << shown << "\n";
  } else {
    os << line << "\n";
  }
  os.indent(caret) << "^\n";
}

} // namespace

const char *ckpt_opt::severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

LogicalResult ckpt_opt::printWithLineExcerpts(Diagnostic &diag,
                                              llvm::StringRef fileName,
                                              llvm::StringRef source,
                                              llvm::raw_ostream &os) {
  bool anyLong = isLong(locate(diag.getLocation(), fileName, source));
  for (Diagnostic &note : diag.getNotes())
    anyLong |= isLong(locate(note.getLocation(), fileName, source));
  if (!anyLong)
    return failure();
  printOne(diag.getLocation(), diag.str(), diag.getSeverity(), fileName,
           source, os);
  for (Diagnostic &note : diag.getNotes())
    printOne(note.getLocation(), note.str(), note.getSeverity(), fileName,
             source, os);
  os.flush();
  return success();
}
