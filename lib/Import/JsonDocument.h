//===- JsonDocument.h - Parsing JSON input with located errors ---*- C++ -*-===//
//
// Shared by the importers: parses a whole JSON document, reporting syntax
// errors and excessive nesting at their `file:line:col`, and turns free-form
// graph names into symbol names.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_IMPORT_JSONDOCUMENT_H
#define CKPT_LIB_IMPORT_JSONDOCUMENT_H

#include "JsonLocator.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace mlir::ckpt {

/// Deepest nesting of arrays and objects the importers accept.
constexpr size_t kMaxJsonDepth = 256;

/// Returns the offset of the first bracket nested deeper than kMaxJsonDepth
/// in `text`, outside strings, if any.
std::optional<size_t> findExcessiveNesting(llvm::StringRef text);

/// A key that appears twice in one object: its second occurrence and its
/// first (byte offsets of the opening quotes) and the key as written.
struct DuplicateKey {
  size_t offset = 0;
  size_t firstOffset = 0;
  std::string key;
};

/// Returns the first key that repeats within one object of `text`, a valid
/// JSON document (llvm::json keeps the last value silently). Keys compare as
/// written, escapes undecoded.
std::optional<DuplicateKey> findDuplicateKey(llvm::StringRef text);

/// Parses `text` (read from `fileName`). On a syntax error, a key repeated
/// within one object, or nesting deeper than kMaxJsonDepth, emits a located
/// `invalid JSON: ...` error through
/// `context` and returns std::nullopt.
std::optional<llvm::json::Value> parseJsonDocument(llvm::StringRef text,
                                                   llvm::StringRef fileName,
                                                   const JsonLocator &locator,
                                                   MLIRContext *context);

/// Returns `name` as a valid symbol name: characters other than letters,
/// digits, `_`, `.` and `$` become `_`; a leading digit gets a `_` prefix; an
/// empty name becomes `fallback`.
std::string sanitizeSymbolName(llvm::StringRef name, llvm::StringRef fallback);

/// Located diagnostics and typed field access over one JSON document: what
/// every importer needs before it knows anything about its format.
class JsonFieldReader {
public:
  JsonFieldReader(llvm::StringRef text, llvm::StringRef fileName,
                  MLIRContext *context)
      : text(text), fileName(fileName), context(context), locator(text) {}

protected:
  /// The `file:line:col` of the element at `path`.
  Location locationOf(const JsonPath &path) const;
  /// Emits an error at `path`'s location, starting "at <path>: ".
  InFlightDiagnostic error(const JsonPath &path);
  /// Returns `value` as an object, or emits "expected an object".
  const llvm::json::Object *getObject(const llvm::json::Value &value,
                                      const JsonPath &path);
  /// Returns the required array field `key` of `object` (at `path`), or
  /// emits "missing required field" / "expected an array".
  const llvm::json::Array *getArray(const llvm::json::Object &object,
                                    llvm::StringRef key, const JsonPath &path);

  /// The document's text and name, the context diagnostics go to, and the
  /// positions of its elements.
  llvm::StringRef text;
  llvm::StringRef fileName;
  MLIRContext *context;
  JsonLocator locator;
};

} // namespace mlir::ckpt

#endif // CKPT_LIB_IMPORT_JSONDOCUMENT_H
