//===- InputNesting.h - Bound the bracket nesting of MLIR input -*- C++ -*-===//
//
// MLIR's parser (and printer) descend recursively into nested attributes,
// types, locations and regions, so a few thousand levels of brackets overflow
// the stack: no diagnostic, a crash. ckpt-opt rejects deeper input up front.
// A training step needs a handful of levels. Shared by ckpt-opt and the
// parser fuzzer (fuzz/mlir_fuzzer.cpp), which must see what the tool sees.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_TOOLS_CKPT_OPT_INPUTNESTING_H
#define CKPT_TOOLS_CKPT_OPT_INPUTNESTING_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>

namespace ckpt_opt {

/// Deepest bracket nesting ckpt-opt accepts in MLIR assembly.
constexpr size_t kMaxMlirNesting = 256;

/// Returns the offset of the first bracket -- `(`, `[`, `{` or `<` -- nested
/// deeper than kMaxMlirNesting in MLIR assembly `text`, if any. String
/// literals and `//` comments are skipped; `->` and `>=` do not close a `<`.
/// An over-approximation of the parser's depth is fine: real input is far
/// below the limit.
inline std::optional<size_t> findExcessiveMlirNesting(llvm::StringRef text) {
  size_t depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '"':
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '/':
      if (i + 1 < e && text[i + 1] == '/')
        while (i < e && text[i] != '\n')
          ++i;
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (++depth > kMaxMlirNesting)
        return i;
      break;
    case '>':
      if ((i > 0 && text[i - 1] == '-') || (i + 1 < e && text[i + 1] == '='))
        break;
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

} // namespace ckpt_opt

#endif // CKPT_TOOLS_CKPT_OPT_INPUTNESTING_H
