//===- JsonLocator.h - Source positions inside a JSON text -------*- C++ -*-===//
//
// llvm::json values carry no source positions. JsonLocator recovers them: it
// walks the raw text of an already-validated document along a JSON path and
// returns the line and column of the value found there.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_IMPORT_JSONLOCATOR_H
#define CKPT_LIB_IMPORT_JSONLOCATOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir::ckpt {

/// One step of a JSON path: an object key or an array index.
struct JsonPathElement {
  std::string key;
  int64_t index = -1; ///< >= 0 for an array index, -1 for a key.
};

/// A path from the document root, printable as `nodes[41].inputs[1]`.
class JsonPath {
public:
  /// Returns this path extended by object key `key`.
  JsonPath field(llvm::StringRef key) const;
  /// Returns this path extended by array index `index`.
  JsonPath index(size_t index) const;
  /// Returns the printed form (`<root>` for the empty path).
  std::string str() const;
  /// Returns the path's elements from the root.
  llvm::ArrayRef<JsonPathElement> elements() const { return elems; }

private:
  llvm::SmallVector<JsonPathElement, 4> elems;
};

/// Maps JSON paths of a syntactically valid document to source positions.
class JsonLocator {
public:
  explicit JsonLocator(llvm::StringRef text);

  /// Returns the byte offset of the value at `path`, or of the deepest prefix
  /// of `path` that exists.
  size_t find(const JsonPath &path) const;

  /// Returns the byte offsets of the elements of the array at `path` (empty
  /// if the value there is not an array).
  std::vector<size_t> arrayElements(const JsonPath &path) const;

  /// Returns the 1-based line and column of byte `offset`.
  std::pair<unsigned, unsigned> lineColumn(size_t offset) const;

private:
  size_t skipSpace(size_t pos) const;
  size_t skipString(size_t pos) const;
  size_t skipValue(size_t pos) const;

  llvm::StringRef text;
  std::vector<size_t> lineStarts;
};

} // namespace mlir::ckpt

#endif // CKPT_LIB_IMPORT_JSONLOCATOR_H
