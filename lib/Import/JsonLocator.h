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
#include "llvm/ADT/StringMap.h"
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
/// Positions of visited values and the element offsets of visited arrays are
/// cached, so locating every node of a document costs one pass over it, not
/// one pass per node.
class JsonLocator {
public:
  explicit JsonLocator(llvm::StringRef text);

  /// Returns the byte offset of the value at `path`, or of the deepest prefix
  /// of `path` that exists.
  size_t find(const JsonPath &path) const;

  /// Returns the 1-based line and column of byte `offset`.
  std::pair<unsigned, unsigned> lineColumn(size_t offset) const;

private:
  size_t skipSpace(size_t pos) const;
  size_t skipString(size_t pos) const;
  size_t skipValue(size_t pos) const;
  /// Returns the offset of member `key` of the object at `pos`, or npos.
  size_t findMember(size_t pos, llvm::StringRef key) const;
  /// Returns the element offsets of the array at `pos` (cached by `path`).
  const std::vector<size_t> &elementsAt(size_t pos,
                                        const std::string &path) const;

  llvm::StringRef text;
  std::vector<size_t> lineStarts;
  /// Offset of the value at each path visited so far.
  mutable llvm::StringMap<size_t> valueCache;
  /// Element offsets of each array visited so far, by path.
  mutable llvm::StringMap<std::vector<size_t>> arrayCache;
};

} // namespace mlir::ckpt

#endif // CKPT_LIB_IMPORT_JSONLOCATOR_H
