//===- GraphImport.cpp - Import graph format v1 into the ckpt dialect -----===//
//
// Reads a graph-format-v1 document (docs/graph-format.md) and builds one
// `ckpt.step` function. Structural problems are reported with the JSON path
// and the position in the file; op-level problems through the op verifiers,
// with a note pointing back at the node.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Import/GraphImport.h"

#include "AttributeConversion.h"
#include "JsonDocument.h"
#include "JsonLocator.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TrainingStep.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"

#include <limits>

using namespace mlir;
using namespace mlir::ckpt;
namespace json = llvm::json;

bool mlir::ckpt::looksLikeJson(StringRef buffer) {
  return buffer.ltrim().starts_with("{");
}

namespace {

/// Where a value comes from: a graph input or output `output` of `node`.
struct ValueSource {
  int64_t node = -1; ///< -1 for graph inputs.
  size_t output = 0;
};

class GraphImporter : public JsonFieldReader {
public:
  GraphImporter(StringRef text, StringRef fileName, MLIRContext *context)
      : JsonFieldReader(text, fileName, context), builder(context) {}

  OwningOpRef<ModuleOp> run();

private:
  // Field access with located errors (beyond JsonFieldReader's).
  std::optional<StringRef> getString(const json::Object &object, StringRef key,
                                     const JsonPath &path, bool required = true);
  LogicalResult checkKeys(const json::Object &object, const JsonPath &path,
                          ArrayRef<StringRef> allowed);
  FailureOr<RankedTensorType> parseTensorType(const json::Object &object,
                                              const JsonPath &path);
  LogicalResult declareValue(StringRef id, ValueSource source,
                             const JsonPath &path);

  // The document's parts.
  LogicalResult importInputs(const json::Array &inputs, const JsonPath &path);
  LogicalResult indexNodes(const json::Array &nodes, const JsonPath &path);
  LogicalResult importNode(const json::Object &node, size_t index,
                           const JsonPath &path);
  FailureOr<Value> resolveOperand(StringRef id, size_t node,
                                  const JsonPath &path);
  LogicalResult importOutputs(const json::Array &outputs, const JsonPath &path);
  FailureOr<Location> nodeLocation(const json::Object &node,
                                   const JsonPath &path);

  OpBuilder builder;

  func::FuncOp func;
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  SmallVector<Location> argLocs;
  llvm::StringMap<unsigned> inputIndex;  ///< input id -> argument number
  llvm::StringMap<ValueSource> sources;  ///< every declared value id
  llvm::StringMap<Value> defined;        ///< ids defined so far in schedule
  std::vector<std::string> nodeNames;    ///< printable name per node
  std::vector<SmallVector<std::string>> nodeInputs; ///< input ids per node
};

} // namespace

//===----------------------------------------------------------------------===//
// Diagnostics and field access
//===----------------------------------------------------------------------===//

std::optional<StringRef> GraphImporter::getString(const json::Object &object,
                                                  StringRef key,
                                                  const JsonPath &path,
                                                  bool required) {
  const json::Value *value = object.get(key);
  if (!value) {
    if (required)
      error(path) << "missing required field '" << key << "'";
    return std::nullopt;
  }
  std::optional<StringRef> str = value->getAsString();
  if (!str)
    error(path.field(key)) << "expected a string";
  return str;
}

LogicalResult GraphImporter::checkKeys(const json::Object &object,
                                       const JsonPath &path,
                                       ArrayRef<StringRef> allowed) {
  // Report unknown keys in sorted order so that messages are deterministic.
  SmallVector<StringRef> unknown;
  for (const auto &entry : object)
    if (!llvm::is_contained(allowed, StringRef(entry.first)))
      unknown.push_back(entry.first);
  if (unknown.empty())
    return success();
  llvm::sort(unknown);
  return error(path.field(unknown.front()))
         << "unknown field '" << unknown.front() << "' (allowed: "
         << llvm::join(allowed, ", ") << ")";
}

FailureOr<RankedTensorType>
GraphImporter::parseTensorType(const json::Object &object,
                               const JsonPath &path) {
  const json::Array *shape = getArray(object, "shape", path);
  if (!shape)
    return failure();
  SmallVector<int64_t> dims;
  for (auto [i, dim] : llvm::enumerate(*shape)) {
    std::optional<int64_t> size = dim.getAsInteger();
    if (!size || *size < 0)
      return error(path.field("shape").index(i))
             << "expected a non-negative integer dimension";
    dims.push_back(*size);
  }
  std::optional<StringRef> dtype = getString(object, "dtype", path);
  if (!dtype)
    return failure();
  Type element = llvm::StringSwitch<Type>(*dtype)
                     .Case("f32", builder.getF32Type())
                     .Case("f16", builder.getF16Type())
                     .Case("bf16", builder.getBF16Type())
                     .Case("i64", builder.getI64Type())
                     .Case("i32", builder.getI32Type())
                     .Case("i1", builder.getI1Type())
                     .Default(Type());
  if (!element)
    return error(path.field("dtype"))
           << "unknown dtype '" << *dtype
           << "' (expected f32, f16, bf16, i64, i32 or i1)";
  auto type = RankedTensorType::get(dims, element);
  if (getTensorBytes(type) > kMaxTensorBytes)
    return error(path.field("shape"))
           << "tensor of " << getTensorBytes(type)
           << " bytes exceeds the supported maximum of " << kMaxTensorBytes;
  return type;
}

LogicalResult GraphImporter::declareValue(StringRef id, ValueSource source,
                                          const JsonPath &path) {
  if (id.empty())
    return error(path) << "value ids must not be empty";
  auto [it, inserted] = sources.try_emplace(id, source);
  if (inserted)
    return success();
  ValueSource first = it->second;
  InFlightDiagnostic diag = error(path) << "duplicate value id '" << id << "'";
  diag << " (first defined by "
       << (first.node < 0 ? std::string("a graph input")
                          : nodeNames[first.node])
       << ")";
  return diag;
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importInputs(const json::Array &inputs,
                                          const JsonPath &path) {
  for (auto [i, value] : llvm::enumerate(inputs)) {
    JsonPath here = path.index(i);
    const json::Object *input = getObject(value, here);
    if (!input ||
        failed(checkKeys(*input, here, {"id", "role", "shape", "dtype", "name"})))
      return failure();
    std::optional<StringRef> id = getString(*input, "id", here);
    std::optional<StringRef> roleName = getString(*input, "role", here);
    if (!id || !roleName)
      return failure();
    std::optional<ValueRole> role = symbolizeValueRole(*roleName);
    if (!role || (*role != ValueRole::Param && *role != ValueRole::Input &&
                  *role != ValueRole::Seed && *role != ValueRole::State))
      return error(here.field("role"))
             << "unknown input role '" << *roleName
             << "' (expected param, input, seed or state)";
    FailureOr<RankedTensorType> type = parseTensorType(*input, here);
    if (failed(type) || failed(declareValue(*id, {-1, 0}, here.field("id"))))
      return failure();
    inputIndex[*id] = argTypes.size();
    argTypes.push_back(*type);
    NamedAttribute roleAttr(
        builder.getStringAttr(CkptDialect::getRoleAttrName()),
        ValueRoleAttr::get(context, *role));
    argAttrs.push_back(builder.getDictionaryAttr(roleAttr));
    Location loc = locationOf(here);
    if (std::optional<StringRef> name = input->getString("name"))
      loc = NameLoc::get(builder.getStringAttr(*name), loc);
    argLocs.push_back(loc);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::indexNodes(const json::Array &nodes,
                                        const JsonPath &path) {
  // First pass: declare every node output, so that a reference to a value
  // defined later can be told apart from an unknown one.
  llvm::StringMap<size_t> nodeIds;
  nodeNames.resize(nodes.size());
  nodeInputs.resize(nodes.size());
  for (auto [i, value] : llvm::enumerate(nodes)) {
    JsonPath here = path.index(i);
    const json::Object *node = getObject(value, here);
    if (!node || failed(checkKeys(*node, here,
                                  {"id", "op", "phase", "inputs", "outputs",
                                   "attrs", "loc", "scope"})))
      return failure();
    nodeNames[i] = here.str();
    if (std::optional<StringRef> id = getString(*node, "id", here, false)) {
      auto [it, inserted] = nodeIds.try_emplace(*id, i);
      if (!inserted)
        return error(here.field("id")) << "duplicate node id '" << *id
                                       << "' (also " << nodeNames[it->second]
                                       << ")";
      nodeNames[i] += " ('" + id->str() + "')";
    } else if (node->get("id")) {
      return failure();
    }
    const json::Array *inputs = getArray(*node, "inputs", here);
    const json::Array *outputs = getArray(*node, "outputs", here);
    if (!inputs || !outputs)
      return failure();
    for (auto [j, input] : llvm::enumerate(*inputs)) {
      if (input.kind() == json::Value::Null) {
        nodeInputs[i].push_back("");
        continue;
      }
      std::optional<StringRef> id = input.getAsString();
      if (!id)
        return error(here.field("inputs").index(j))
               << "expected a value id (string) or null";
      nodeInputs[i].push_back(id->str());
    }
    for (auto [j, output] : llvm::enumerate(*outputs)) {
      JsonPath outPath = here.field("outputs").index(j);
      const json::Object *object = getObject(output, outPath);
      if (!object || failed(checkKeys(*object, outPath, {"id", "shape", "dtype"})))
        return failure();
      std::optional<StringRef> id = getString(*object, "id", outPath);
      if (!id || failed(declareValue(*id, {static_cast<int64_t>(i), j},
                                     outPath.field("id"))))
        return failure();
    }
  }
  return success();
}

/// Returns the location of a node: its `loc` (file:line:col of the model
/// code) if given, else its position in the JSON file; wrapped in a NameLoc
/// of its `scope` if given. A `loc` that is neither `"file"`,
/// `"file:line"` nor `{"file", "line", "col"}` with lines and columns that
/// fit a location (0 to 2^32-1) is an error at its JSON path.
FailureOr<Location> GraphImporter::nodeLocation(const json::Object &node,
                                                const JsonPath &path) {
  Location loc = locationOf(path);
  if (const json::Value *value = node.get("loc")) {
    JsonPath locPath = path.field("loc");
    if (std::optional<StringRef> str = value->getAsString()) {
      auto [file, line] = str->rsplit(':');
      unsigned lineNo = 0;
      if (!line.empty() && llvm::all_of(line, llvm::isDigit)) {
        if (line.getAsInteger(10, lineNo))
          return error(locPath) << "line " << line
                                << " is out of range (0 to 4294967295)";
        loc = FileLineColLoc::get(context, file, lineNo, 0);
      } else {
        loc = FileLineColLoc::get(context, *str, 0, 0);
      }
    } else if (const json::Object *object = value->getAsObject()) {
      if (failed(checkKeys(*object, locPath, {"file", "line", "col"})))
        return failure();
      std::optional<StringRef> file =
          getString(*object, "file", locPath, /*required=*/true);
      if (!file)
        return failure();
      unsigned position[2] = {0, 0};
      const StringRef keys[2] = {"line", "col"};
      for (auto [i, key] : llvm::enumerate(keys)) {
        const json::Value *number = object->get(key);
        if (!number)
          continue;
        std::optional<int64_t> integer = number->getAsInteger();
        if (!integer || *integer < 0 ||
            *integer > int64_t(std::numeric_limits<unsigned>::max()))
          return error(locPath.field(key))
                 << "expected a " << (i ? "column" : "line")
                 << " number from 0 to 4294967295";
        position[i] = static_cast<unsigned>(*integer);
      }
      loc = FileLineColLoc::get(context, *file, position[0], position[1]);
    } else {
      return error(locPath) << "expected a string (\"file:line\") or an "
                               "object {\"file\", \"line\", \"col\"}";
    }
  }
  if (std::optional<StringRef> scope = node.getString("scope"))
    loc = NameLoc::get(builder.getStringAttr(*scope), loc);
  return loc;
}

/// Returns the chain of nodes from `from` back to `to` through inputs, if
/// `from` depends on `to`. A depth-first search in input order with an
/// explicit stack: a dependency chain is as long as the graph, far deeper than
/// the call stack allows.
static bool findDependency(size_t from, size_t to,
                           ArrayRef<SmallVector<std::string>> nodeInputs,
                           const llvm::StringMap<ValueSource> &sources,
                           SmallVectorImpl<size_t> &chain,
                           llvm::DenseSet<size_t> &visited) {
  // Each frame: a node on the current path and its next input to follow.
  SmallVector<std::pair<size_t, size_t>> stack;
  auto enter = [&](size_t node) {
    if (!visited.insert(node).second)
      return false;
    chain.push_back(node);
    stack.push_back({node, 0});
    return true;
  };
  if (enter(from) && from == to)
    return true;
  while (!stack.empty()) {
    auto &[node, next] = stack.back();
    if (next == nodeInputs[node].size()) {
      stack.pop_back();
      chain.pop_back();
      continue;
    }
    const std::string &id = nodeInputs[node][next++];
    auto it = sources.find(id);
    if (id.empty() || it == sources.end() || it->second.node < 0)
      continue;
    size_t producer = it->second.node;
    if (enter(producer) && producer == to)
      return true;
  }
  return false;
}

FailureOr<Value> GraphImporter::resolveOperand(StringRef id, size_t node,
                                               const JsonPath &path) {
  if (Value value = defined.lookup(id))
    return value;
  auto it = sources.find(id);
  if (it == sources.end())
    return error(path) << "unknown value '" << id << "'";
  size_t producer = it->second.node;
  SmallVector<size_t> chain;
  llvm::DenseSet<size_t> visited;
  if (findDependency(producer, node, nodeInputs, sources, chain, visited)) {
    InFlightDiagnostic diag = error(path) << "cycle: " << nodeNames[node];
    for (size_t step : chain)
      diag << " uses a value of " << nodeNames[step] << ",";
    diag << " which closes the cycle";
    return diag;
  }
  return error(path) << "use before definition: '" << id
                     << "' is produced by " << nodeNames[producer]
                     << ", which comes later in the schedule";
}

/// Number of operand groups of ops with several optional operands: an input
/// list is padded with nulls to this length. Ops with one optional operand
/// always have it last and need no entry.
static std::optional<size_t> getOperandGroupCount(StringRef op) {
  return llvm::StringSwitch<std::optional<size_t>>(op)
      .Cases("layer_norm", "batch_norm", 3) // input, weight?, bias?
      .Default(std::nullopt);
}

LogicalResult GraphImporter::importNode(const json::Object &node, size_t index,
                                        const JsonPath &path) {
  std::optional<StringRef> opName = getString(node, "op", path);
  std::optional<StringRef> phaseName = getString(node, "phase", path);
  if (!opName || !phaseName)
    return failure();
  std::optional<Phase> phase = llvm::StringSwitch<std::optional<Phase>>(*phaseName)
                                   .Case("forward", Phase::Forward)
                                   .Case("backward", Phase::Backward)
                                   .Case("optimizer", Phase::Optimizer)
                                   .Default(std::nullopt);
  if (!phase)
    return error(path.field("phase"))
           << "unknown phase '" << *phaseName
           << "' (expected forward, backward or optimizer)";
  std::string fullName = ("ckpt." + *opName).str();
  std::optional<RegisteredOperationName> info =
      RegisteredOperationName::lookup(fullName, context);
  if (!info)
    return error(path.field("op")) << "unknown op '" << *opName << "'";

  // Operands: nulls mark absent optional operands.
  FailureOr<Location> location = nodeLocation(node, path);
  if (failed(location))
    return failure();
  OperationState state(*location, *info);
  ArrayRef<std::string> inputIds = nodeInputs[index];
  bool segmented = info->hasTrait<OpTrait::AttrSizedOperandSegments>();
  std::optional<size_t> groups = getOperandGroupCount(*opName);
  if (segmented && !groups)
    return error(path) << "internal error: the importer does not know the "
                          "operand groups of '"
                       << *opName << "'";
  SmallVector<int32_t> segmentSizes;
  for (auto [j, id] : llvm::enumerate(inputIds)) {
    JsonPath inPath = path.field("inputs").index(j);
    if (id.empty()) {
      bool trailing = llvm::all_of(inputIds.drop_front(j),
                                   [](const std::string &s) { return s.empty(); });
      if (!segmented && !trailing)
        return error(inPath) << "null is only allowed for absent optional "
                                "operands (trailing ones for '"
                             << *opName << "')";
      if (segmented)
        segmentSizes.push_back(0);
      continue;
    }
    FailureOr<Value> value = resolveOperand(id, index, inPath);
    if (failed(value))
      return failure();
    state.addOperands(*value);
    segmentSizes.push_back(1);
  }
  if (segmented) {
    if (segmentSizes.size() > *groups)
      return error(path.field("inputs"))
             << "'" << *opName << "' takes at most " << *groups << " inputs";
    segmentSizes.resize(*groups, 0);
    state.addAttribute("operandSegmentSizes",
                       builder.getDenseI32ArrayAttr(segmentSizes));
  }

  // Results.
  const json::Array *outputs = node.getArray("outputs");
  SmallVector<std::string> outputIds;
  for (auto [j, output] : llvm::enumerate(*outputs)) {
    JsonPath outPath = path.field("outputs").index(j);
    FailureOr<RankedTensorType> type =
        parseTensorType(*output.getAsObject(), outPath);
    if (failed(type))
      return failure();
    state.addTypes(*type);
    outputIds.push_back(output.getAsObject()->getString("id")->str());
  }

  // Attributes.
  state.addAttribute("phase", PhaseAttr::get(context, *phase));
  if (const json::Value *attrsValue = node.get("attrs")) {
    const json::Object *attrs = getObject(*attrsValue, path.field("attrs"));
    if (!attrs)
      return failure();
    SmallVector<StringRef> names;
    for (const auto &entry : *attrs)
      names.push_back(entry.first);
    llvm::sort(names);
    ArrayRef<StringAttr> known = info->getAttributeNames();
    for (StringRef name : names) {
      JsonPath attrPath = path.field("attrs").field(name);
      bool isKnown = llvm::any_of(
          known, [&](StringAttr attr) { return attr.getValue() == name; });
      if (!isKnown || name == "phase" || name == "operandSegmentSizes")
        return error(attrPath) << "op '" << *opName
                               << "' has no attribute '" << name << "'";
      std::string reason;
      FailureOr<Attribute> attr =
          convertJsonAttribute(context, name, *attrs->get(name), reason);
      if (failed(attr))
        return error(attrPath) << reason;
      if (*attr)
        state.addAttribute(name, *attr);
    }
  }

  Operation *op = builder.create(state);
  // Verify now, pointing back at the node from any verifier error.
  Location jsonLoc = locationOf(path);
  std::string nodeName = nodeNames[index];
  LogicalResult verified = success();
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        diag.attachNote(jsonLoc) << "in " << nodeName;
      return failure(); // Pass it on to the enclosing handler.
    });
    verified = verify(op, /*verifyRecursively=*/false);
  }
  if (failed(verified))
    return failure();
  for (auto [id, result] : llvm::zip(outputIds, op->getResults()))
    defined[id] = result;
  return success();
}

//===----------------------------------------------------------------------===//
// Outputs and the whole document
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importOutputs(const json::Array &outputs,
                                           const JsonPath &path) {
  SmallVector<Value> values;
  SmallVector<DictionaryAttr> resultAttrs;
  for (auto [i, entry] : llvm::enumerate(outputs)) {
    JsonPath here = path.index(i);
    const json::Object *output = getObject(entry, here);
    if (!output ||
        failed(checkKeys(*output, here, {"value", "role", "grad_of"})))
      return failure();
    std::optional<StringRef> id = getString(*output, "value", here);
    std::optional<StringRef> roleName = getString(*output, "role", here);
    if (!id || !roleName)
      return failure();
    Value value = defined.lookup(*id);
    if (!value)
      return error(here.field("value")) << "unknown value '" << *id << "'";
    std::optional<ValueRole> role = symbolizeValueRole(*roleName);
    if (!role || (*role != ValueRole::Loss && *role != ValueRole::Grad &&
                  *role != ValueRole::State && *role != ValueRole::Output))
      return error(here.field("role"))
             << "unknown output role '" << *roleName
             << "' (expected loss, grad, state or output)";
    SmallVector<NamedAttribute> attrs = {
        builder.getNamedAttr(CkptDialect::getRoleAttrName(),
                             ValueRoleAttr::get(context, *role))};
    std::optional<StringRef> gradOf =
        getString(*output, "grad_of", here, /*required=*/false);
    if (!gradOf && output->get("grad_of"))
      return failure();
    if (*role == ValueRole::Grad && !gradOf)
      return error(here) << "a grad output needs 'grad_of' naming its "
                            "parameter";
    if (*role != ValueRole::Grad && gradOf)
      return error(here.field("grad_of"))
             << "only grad outputs may have 'grad_of'";
    if (gradOf) {
      auto it = inputIndex.find(*gradOf);
      if (it == inputIndex.end())
        return error(here.field("grad_of"))
               << "'" << *gradOf << "' is not a graph input";
      attrs.push_back(builder.getNamedAttr(
          CkptDialect::getGradOfAttrName(),
          builder.getI64IntegerAttr(it->second)));
    }
    values.push_back(value);
    resultAttrs.push_back(builder.getDictionaryAttr(attrs));
  }
  builder.create<func::ReturnOp>(locationOf(path), values);
  func.setFunctionType(
      builder.getFunctionType(argTypes, ValueRange(values).getTypes()));
  func.setAllResultAttrs(resultAttrs);
  return success();
}

OwningOpRef<ModuleOp> GraphImporter::run() {
  JsonPath root;
  std::optional<json::Value> document =
      parseJsonDocument(text, fileName, locator, context);
  if (!document)
    return nullptr;
  const json::Object *top = getObject(*document, root);
  if (!top || failed(checkKeys(*top, root,
                               {"format", "version", "name", "inputs", "nodes",
                                "outputs", "producer"})))
    return nullptr;
  std::optional<StringRef> format = getString(*top, "format", root);
  if (!format)
    return nullptr;
  if (*format != "ckpt-graph") {
    error(root.field("format")) << "expected \"ckpt-graph\", got \"" << *format
                                << "\"";
    return nullptr;
  }
  const json::Value *version = top->get("version");
  if (!version) {
    error(root) << "missing required field 'version'";
    return nullptr;
  }
  if (version->getAsInteger() != 1) {
    std::string shown;
    llvm::raw_string_ostream(shown) << *version;
    error(root.field("version"))
        << "unsupported graph format version " << shown
        << " (this ckpt-opt reads version 1)";
    return nullptr;
  }
  std::string name = "step";
  if (top->get("name")) {
    std::optional<StringRef> given = getString(*top, "name", root);
    if (!given)
      return nullptr;
    name = sanitizeSymbolName(*given, "step");
  }
  const json::Array *inputs = getArray(*top, "inputs", root);
  const json::Array *nodes = inputs ? getArray(*top, "nodes", root) : nullptr;
  const json::Array *outputs = nodes ? getArray(*top, "outputs", root) : nullptr;
  if (!outputs || failed(importInputs(*inputs, root.field("inputs"))) ||
      failed(indexNodes(*nodes, root.field("nodes"))))
    return nullptr;

  Location topLoc = locationOf(root);
  OwningOpRef<ModuleOp> module = ModuleOp::create(topLoc);
  builder.setInsertionPointToEnd(module->getBody());
  // Signature errors (loss count, gradient types) concern the outputs.
  func = builder.create<func::FuncOp>(locationOf(root.field("outputs")), name,
                                      builder.getFunctionType(argTypes, {}));
  func.setAllArgAttrs(argAttrs);
  Block *body = builder.createBlock(&func.getBody(), {}, argTypes, argLocs);
  for (const auto &entry : inputIndex)
    defined[entry.getKey()] = body->getArgument(entry.getValue());
  builder.setInsertionPointToEnd(body);

  JsonPath nodesPath = root.field("nodes");
  for (auto [i, node] : llvm::enumerate(*nodes))
    if (failed(importNode(*node.getAsObject(), i, nodesPath.index(i))))
      return nullptr;
  if (failed(importOutputs(*outputs, root.field("outputs"))))
    return nullptr;
  func->setAttr(CkptDialect::getStepAttrName(), builder.getUnitAttr());
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> mlir::ckpt::importGraphJson(StringRef json,
                                                  StringRef fileName,
                                                  MLIRContext *context) {
  context->getOrLoadDialect<CkptDialect>();
  context->getOrLoadDialect<func::FuncDialect>();
  return GraphImporter(json, fileName, context).run();
}
