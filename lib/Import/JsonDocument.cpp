//===- JsonDocument.cpp - Parsing JSON input with located errors ----------===//

#include "JsonDocument.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <vector>

using namespace mlir;
using namespace mlir::ckpt;
namespace json = llvm::json;

std::optional<size_t> mlir::ckpt::findExcessiveNesting(StringRef text) {
  size_t depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

std::optional<DuplicateKey> mlir::ckpt::findDuplicateKey(StringRef text) {
  // One frame per open bracket: for objects, the keys seen (key -> offset)
  // and whether the next string is a key.
  struct Frame {
    bool object = false;
    bool expectKey = false;
    llvm::StringMap<size_t> keys;
  };
  std::vector<Frame> frames;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      size_t start = i;
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      if (!frames.empty() && frames.back().object && frames.back().expectKey) {
        Frame &frame = frames.back();
        frame.expectKey = false;
        StringRef key = text.slice(start + 1, std::min(i, e));
        auto [it, inserted] = frame.keys.try_emplace(key, start);
        if (!inserted)
          return DuplicateKey{start, it->second, key.str()};
      }
    } else if (c == '{' || c == '[') {
      frames.emplace_back();
      frames.back().object = c == '{';
      frames.back().expectKey = c == '{';
    } else if (c == '}' || c == ']') {
      if (!frames.empty())
        frames.pop_back();
    } else if (c == ',' && !frames.empty() && frames.back().object) {
      frames.back().expectKey = true;
    }
  }
  return std::nullopt;
}

std::optional<json::Value>
mlir::ckpt::parseJsonDocument(StringRef text, StringRef fileName,
                              const JsonLocator &locator,
                              MLIRContext *context) {
  // llvm::json parses (and destroys) values recursively: bound the nesting
  // before it sees the text, or deep input overflows the stack.
  if (std::optional<size_t> offset = findExcessiveNesting(text)) {
    auto [line, column] = locator.lineColumn(*offset);
    emitError(FileLineColLoc::get(context, fileName, line, column))
        << "invalid JSON: nested deeper than " << kMaxJsonDepth << " levels";
    return std::nullopt;
  }
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed) {
    std::string message = llvm::toString(parsed.takeError());
    // llvm::json reports "[line:col, byte=N]: reason"; locate by offset.
    size_t offset = 0;
    StringRef rest = StringRef(message).split("byte=").second;
    rest.consumeInteger(10, offset);
    StringRef reason = StringRef(message).split("]: ").second;
    auto [line, column] = locator.lineColumn(std::min(offset, text.size()));
    emitError(FileLineColLoc::get(context, fileName, line, column))
        << "invalid JSON: " << (reason.empty() ? StringRef(message) : reason);
    return std::nullopt;
  }
  if (std::optional<DuplicateKey> duplicate = findDuplicateKey(text)) {
    auto [line, column] = locator.lineColumn(duplicate->offset);
    auto [firstLine, firstColumn] = locator.lineColumn(duplicate->firstOffset);
    emitError(FileLineColLoc::get(context, fileName, line, column))
        << "invalid JSON: duplicate key '" << duplicate->key
        << "' in one object (first at line " << firstLine << ", column "
        << firstColumn << ")";
    return std::nullopt;
  }
  return std::move(*parsed);
}

std::string mlir::ckpt::sanitizeSymbolName(StringRef name,
                                           StringRef fallback) {
  std::string result;
  for (char c : name)
    result += (llvm::isAlnum(c) || c == '_' || c == '.' || c == '$') ? c : '_';
  if (result.empty())
    return fallback.str();
  if (llvm::isDigit(result.front()))
    result.insert(result.begin(), '_');
  return result;
}

Location JsonFieldReader::locationOf(const JsonPath &path) const {
  auto [line, column] = locator.lineColumn(locator.find(path));
  return FileLineColLoc::get(context, fileName, line, column);
}

InFlightDiagnostic JsonFieldReader::error(const JsonPath &path) {
  InFlightDiagnostic diag = emitError(locationOf(path));
  diag << "at " << path.str() << ": ";
  return diag;
}

const llvm::json::Object *
JsonFieldReader::getObject(const llvm::json::Value &value,
                           const JsonPath &path) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    error(path) << "expected an object";
  return object;
}

const llvm::json::Array *
JsonFieldReader::getArray(const llvm::json::Object &object,
                          llvm::StringRef key, const JsonPath &path) {
  const llvm::json::Value *value = object.get(key);
  if (!value) {
    error(path) << "missing required field '" << key << "'";
    return nullptr;
  }
  const llvm::json::Array *array = value->getAsArray();
  if (!array)
    error(path.field(key)) << "expected an array";
  return array;
}
