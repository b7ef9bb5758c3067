//===- JsonLocator.cpp - Source positions inside a JSON text --------------===//

#include "JsonLocator.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir::ckpt;

JsonPath JsonPath::field(llvm::StringRef key) const {
  JsonPath result = *this;
  result.elems.push_back({key.str(), -1});
  return result;
}

JsonPath JsonPath::index(size_t index) const {
  JsonPath result = *this;
  result.elems.push_back({"", static_cast<int64_t>(index)});
  return result;
}

std::string JsonPath::str() const {
  if (elems.empty())
    return "<root>";
  std::string result;
  llvm::raw_string_ostream os(result);
  for (const JsonPathElement &elem : elems) {
    if (elem.index >= 0)
      os << "[" << elem.index << "]";
    else
      os << (result.empty() ? "" : ".") << elem.key;
  }
  return result;
}

JsonLocator::JsonLocator(llvm::StringRef text) : text(text) {
  lineStarts.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      lineStarts.push_back(i + 1);
}

std::pair<unsigned, unsigned> JsonLocator::lineColumn(size_t offset) const {
  auto it = std::upper_bound(lineStarts.begin(), lineStarts.end(), offset);
  size_t line = it - lineStarts.begin(); // 1-based: upper_bound is one past.
  return {static_cast<unsigned>(line),
          static_cast<unsigned>(offset - lineStarts[line - 1] + 1)};
}

size_t JsonLocator::skipSpace(size_t pos) const {
  while (pos < text.size() &&
         (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' ||
          text[pos] == '\r'))
    ++pos;
  return pos;
}

size_t JsonLocator::skipString(size_t pos) const {
  // pos is at the opening quote.
  for (++pos; pos < text.size() && text[pos] != '"'; ++pos)
    if (text[pos] == '\\')
      ++pos;
  return std::min(pos + 1, text.size());
}

size_t JsonLocator::skipValue(size_t pos) const {
  pos = skipSpace(pos);
  if (pos >= text.size())
    return pos;
  if (text[pos] == '"')
    return skipString(pos);
  if (text[pos] == '{' || text[pos] == '[') {
    int depth = 0;
    while (pos < text.size()) {
      char c = text[pos];
      if (c == '"') {
        pos = skipString(pos);
        continue;
      }
      if (c == '{' || c == '[')
        ++depth;
      else if (c == '}' || c == ']')
        --depth;
      ++pos;
      if (depth == 0)
        return pos;
    }
    return pos;
  }
  // Number or literal.
  while (pos < text.size() && text[pos] != ',' && text[pos] != '}' &&
         text[pos] != ']' && text[pos] != ' ' && text[pos] != '\n' &&
         text[pos] != '\t' && text[pos] != '\r')
    ++pos;
  return pos;
}

/// Decodes the JSON string starting at `pos` (at its opening quote).
static std::string decodeKey(llvm::StringRef text, size_t pos, size_t end) {
  std::string quoted = text.slice(pos, end).str();
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(quoted);
  if (!value) {
    llvm::consumeError(value.takeError());
    return "";
  }
  if (std::optional<llvm::StringRef> str = value->getAsString())
    return str->str();
  return "";
}

size_t JsonLocator::findMember(size_t pos, llvm::StringRef key) const {
  if (pos >= text.size() || text[pos] != '{')
    return std::string::npos;
  pos = skipSpace(pos + 1);
  while (pos < text.size() && text[pos] == '"') {
    size_t keyEnd = skipString(pos);
    std::string member = decodeKey(text, pos, keyEnd);
    pos = skipSpace(keyEnd);
    if (pos < text.size() && text[pos] == ':')
      pos = skipSpace(pos + 1);
    if (member == key)
      return pos;
    pos = skipSpace(skipValue(pos));
    if (pos < text.size() && text[pos] == ',')
      pos = skipSpace(pos + 1);
  }
  return std::string::npos;
}

const std::vector<size_t> &
JsonLocator::elementsAt(size_t pos, const std::string &path) const {
  auto [it, inserted] = arrayCache.try_emplace(path);
  if (!inserted || pos >= text.size() || text[pos] != '[')
    return it->second;
  std::vector<size_t> &offsets = it->second;
  pos = skipSpace(pos + 1);
  while (pos < text.size() && text[pos] != ']') {
    offsets.push_back(pos);
    pos = skipSpace(skipValue(pos));
    if (pos < text.size() && text[pos] == ',')
      pos = skipSpace(pos + 1);
    else
      break;
  }
  return offsets;
}

size_t JsonLocator::find(const JsonPath &path) const {
  size_t pos = skipSpace(0);
  std::string prefix;
  for (const JsonPathElement &elem : path.elements()) {
    std::string parent = prefix;
    prefix += elem.index >= 0 ? "[" + std::to_string(elem.index) + "]"
                              : "." + elem.key;
    auto cached = valueCache.find(prefix);
    if (cached != valueCache.end()) {
      pos = cached->second;
      continue;
    }
    size_t next;
    if (elem.index >= 0) {
      const std::vector<size_t> &elements = elementsAt(pos, parent);
      next = static_cast<size_t>(elem.index) < elements.size()
                 ? elements[elem.index]
                 : std::string::npos;
    } else {
      next = findMember(pos, elem.key);
    }
    if (next == std::string::npos)
      return pos; // The deepest existing prefix.
    valueCache[prefix] = pos = next;
  }
  return pos;
}
