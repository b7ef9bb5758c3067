//===- RematGraphImport.cpp - Import remat benchmark graphs ---------------===//
//
// Reads the networkx node-link graphs of the rematerialization literature
// (docs/remat-graphs.md) in their two flavours:
//
// - Checkmate: nodes {id, name, backward, cost_cpu, cost_ram}, links
//   {source, target}; the node ids are the schedule order.
// - Random layered (Gagrani et al.): nodes {name, duration, out_cost,
//   param_cost}, links {"0", "1"}; `graph.order` is the schedule order.
//
// Every node becomes one `ckpt.opaque` op with `compute_cost` = its cost and
// one `tensor<Nxi1>` result of exactly its N output bytes. Structural
// problems are reported with the JSON path and the position in the file.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Import/RematGraphImport.h"

#include "JsonDocument.h"
#include "JsonLocator.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/CkptTraits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::ckpt;
namespace json = llvm::json;

bool mlir::ckpt::isRematGraphJson(StringRef buffer) {
  if (!buffer.ltrim().starts_with("{") || findExcessiveNesting(buffer))
    return false;
  llvm::Expected<json::Value> parsed = json::parse(buffer);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return false;
  }
  const json::Object *top = parsed->getAsObject();
  return top && top->get("nodes") && top->get("links") &&
         !top->get("format") && !top->get("version");
}

namespace {

/// The two published flavours of the format.
enum class Flavor { Checkmate, Layered };

/// Field names of one flavour.
struct FlavorKeys {
  StringRef id, cost, bytes, source, target;
};

/// One node as read from the file.
struct RematNode {
  int64_t id = 0;
  std::string name;
  bool backward = false;
  int64_t cost = 0;
  int64_t bytes = 0;
  int64_t paramBytes = 0;
  size_t index = 0; ///< Position in `nodes`.
  /// Schedule positions of the nodes this one reads, sorted, unique.
  SmallVector<size_t> deps;
  bool hasUsers = false;
};

class RematGraphImporter : public JsonFieldReader {
public:
  RematGraphImporter(StringRef text, StringRef fileName, MLIRContext *context)
      : JsonFieldReader(text, fileName, context), builder(context) {}

  OwningOpRef<ModuleOp> run();

private:

  /// Reads the non-negative integer `key`; `fallback` if absent and given.
  FailureOr<int64_t> getCount(const json::Object &object, StringRef key,
                              const JsonPath &path,
                              std::optional<int64_t> fallback = std::nullopt);
  /// Returns the position in `nodes` of node `id` read at `path`.
  FailureOr<size_t> lookupNode(const json::Object &object, StringRef key,
                               const JsonPath &path);

  LogicalResult readNodes(const json::Array &array, const JsonPath &path);
  LogicalResult readOrder(const json::Object *graph, const JsonPath &path);
  LogicalResult readLinks(const json::Array &array, const JsonPath &path);
  OwningOpRef<ModuleOp> build(StringRef name, const JsonPath &root);

  OpBuilder builder;

  Flavor flavor = Flavor::Checkmate;
  FlavorKeys keys;
  std::vector<RematNode> nodes;
  llvm::DenseMap<int64_t, size_t> indexOfId;
  /// Node indices in schedule order, and the inverse.
  std::vector<size_t> order;
  std::vector<size_t> position;
};

} // namespace

FailureOr<int64_t> RematGraphImporter::getCount(const json::Object &object,
                                                StringRef key,
                                                const JsonPath &path,
                                                std::optional<int64_t> fallback) {
  const json::Value *value = object.get(key);
  if (!value) {
    if (fallback)
      return *fallback;
    return error(path) << "missing required field '" << key << "'";
  }
  // Booleans are not numbers; doubles with an integral value are accepted.
  std::optional<int64_t> count =
      value->kind() == json::Value::Boolean ? std::nullopt
                                            : value->getAsInteger();
  if (!count || *count < 0)
    return error(path.field(key)) << "expected a non-negative integer";
  return *count;
}

FailureOr<size_t> RematGraphImporter::lookupNode(const json::Object &object,
                                                 StringRef key,
                                                 const JsonPath &path) {
  FailureOr<int64_t> id = getCount(object, key, path);
  if (failed(id))
    return failure();
  auto it = indexOfId.find(*id);
  if (it == indexOfId.end())
    return error(path.field(key)) << "unknown node " << *id;
  return it->second;
}

LogicalResult RematGraphImporter::readNodes(const json::Array &array,
                                            const JsonPath &path) {
  for (auto [i, value] : llvm::enumerate(array)) {
    JsonPath here = path.index(i);
    const json::Object *object = getObject(value, here);
    if (!object)
      return failure();
    RematNode node;
    node.index = i;
    FailureOr<int64_t> id = getCount(*object, keys.id, here);
    if (failed(id))
      return failure();
    FailureOr<int64_t> cost = getCount(*object, keys.cost, here);
    if (failed(cost))
      return failure();
    FailureOr<int64_t> bytes = getCount(*object, keys.bytes, here);
    if (failed(bytes))
      return failure();
    node.id = *id;
    node.cost = *cost;
    node.bytes = *bytes;
    if (node.bytes > kMaxTensorBytes)
      return error(here.field(keys.bytes))
             << "output of " << node.bytes
             << " bytes exceeds the supported maximum of " << kMaxTensorBytes;
    if (flavor == Flavor::Layered) {
      FailureOr<int64_t> param = getCount(*object, "param_cost", here, 0);
      if (failed(param))
        return failure();
      if (*param > kMaxTensorBytes)
        return error(here.field("param_cost"))
               << "parameter of " << *param
               << " bytes exceeds the supported maximum of " << kMaxTensorBytes;
      node.paramBytes = *param;
      node.name = ("node" + Twine(node.id)).str();
    } else {
      node.name = ("node" + Twine(node.id)).str();
      if (const json::Value *name = object->get("name")) {
        std::optional<StringRef> str = name->getAsString();
        if (!str)
          return error(here.field("name")) << "expected a string";
        if (!str->empty())
          node.name = str->str();
      }
      if (const json::Value *backward = object->get("backward")) {
        std::optional<bool> flag = backward->getAsBoolean();
        if (!flag)
          return error(here.field("backward")) << "expected true or false";
        node.backward = *flag;
      }
    }
    auto [it, inserted] = indexOfId.try_emplace(node.id, i);
    if (!inserted)
      return error(here.field(keys.id))
             << "duplicate node id " << node.id << " (also nodes["
             << it->second << "])";
    nodes.push_back(std::move(node));
  }
  return success();
}

LogicalResult RematGraphImporter::readOrder(const json::Object *graph,
                                            const JsonPath &path) {
  position.assign(nodes.size(), SIZE_MAX);
  if (flavor == Flavor::Checkmate) {
    // The node ids are a topological order.
    order.resize(nodes.size());
    std::iota(order.begin(), order.end(), size_t(0));
    llvm::sort(order, [&](size_t a, size_t b) {
      return nodes[a].id < nodes[b].id;
    });
  } else {
    if (!graph)
      return error(path) << "missing required field 'order'";
    const json::Array *array = getArray(*graph, "order", path);
    if (!array)
      return failure();
    JsonPath orderPath = path.field("order");
    for (auto [i, value] : llvm::enumerate(*array)) {
      std::optional<int64_t> id = value.kind() == json::Value::Boolean
                                      ? std::nullopt
                                      : value.getAsInteger();
      if (!id || *id < 0)
        return error(orderPath.index(i)) << "expected a non-negative integer";
      auto it = indexOfId.find(*id);
      if (it == indexOfId.end())
        return error(orderPath.index(i)) << "unknown node " << *id;
      if (position[it->second] != SIZE_MAX)
        return error(orderPath.index(i))
               << "node " << *id << " appears twice in the order (also at "
               << orderPath.index(position[it->second]).str() << ")";
      position[it->second] = order.size();
      order.push_back(it->second);
    }
    for (const RematNode &node : nodes)
      if (position[node.index] == SIZE_MAX)
        return error(orderPath) << "the order omits node " << node.id
                                << " (it must list every node once)";
  }
  for (auto [pos, index] : llvm::enumerate(order))
    position[index] = pos;
  return success();
}

LogicalResult RematGraphImporter::readLinks(const json::Array &array,
                                            const JsonPath &path) {
  for (auto [i, value] : llvm::enumerate(array)) {
    JsonPath here = path.index(i);
    const json::Object *link = getObject(value, here);
    if (!link)
      return failure();
    FailureOr<size_t> source = lookupNode(*link, keys.source, here);
    if (failed(source))
      return failure();
    FailureOr<size_t> target = lookupNode(*link, keys.target, here);
    if (failed(target))
      return failure();
    RematNode &from = nodes[*source];
    RematNode &to = nodes[*target];
    if (*source == *target)
      return error(here) << "link from node " << from.id << " to itself";
    if (position[*source] > position[*target])
      return error(here) << "link from node " << from.id << " to node "
                         << to.id << " goes against the schedule order ("
                         << (flavor == Flavor::Checkmate
                                 ? "node ids must be a topological order"
                                 : "graph.order")
                         << ")";
    // networkx node-link links of a simple graph are unique; a repeated
    // link adds nothing.
    auto it = llvm::lower_bound(to.deps, position[*source]);
    if (it == to.deps.end() || *it != position[*source])
      to.deps.insert(it, position[*source]);
    from.hasUsers = true;
  }
  return success();
}

OwningOpRef<ModuleOp> RematGraphImporter::build(StringRef name,
                                                const JsonPath &root) {
  JsonPath nodesPath = root.field("nodes");
  OwningOpRef<ModuleOp> module = ModuleOp::create(locationOf(root));
  builder.setInsertionPointToEnd(module->getBody());
  auto func = builder.create<func::FuncOp>(locationOf(root), name,
                                           builder.getFunctionType({}, {}));
  Block *body = builder.createBlock(&func.getBody());
  Type byteType = builder.getI1Type(); // 1 byte per element (CkptCost.h).

  // Resident parameters are arguments, in schedule order of their readers.
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  DenseMap<size_t, Value> paramOf;
  auto paramRole = builder.getNamedAttr(
      CkptDialect::getRoleAttrName(),
      ValueRoleAttr::get(context, ValueRole::Param));
  for (size_t index : order) {
    const RematNode &node = nodes[index];
    if (node.paramBytes == 0)
      continue;
    Type type = RankedTensorType::get({node.paramBytes}, byteType);
    Location loc =
        NameLoc::get(builder.getStringAttr(node.name + ".param"),
                     locationOf(nodesPath.index(index).field("param_cost")));
    paramOf[index] = body->addArgument(type, loc);
    argTypes.push_back(type);
    argAttrs.push_back(builder.getDictionaryAttr(paramRole));
  }

  builder.setInsertionPointToEnd(body);
  std::vector<Value> valueAt(order.size());
  SmallVector<Value> results;
  for (auto [pos, index] : llvm::enumerate(order)) {
    const RematNode &node = nodes[index];
    SmallVector<Value> operands;
    for (size_t dep : node.deps)
      operands.push_back(valueAt[dep]);
    if (Value param = paramOf.lookup(index))
      operands.push_back(param);
    Location loc = NameLoc::get(builder.getStringAttr(node.name),
                                locationOf(nodesPath.index(index)));
    auto op = builder.create<OpaqueOp>(
        loc, TypeRange{RankedTensorType::get({node.bytes}, byteType)},
        node.backward ? Phase::Backward : Phase::Forward, node.name, operands,
        /*flops=*/0,
        /*bytes_read=*/IntegerAttr(), /*bytes_written=*/IntegerAttr(),
        /*workspace=*/IntegerAttr(), builder.getI64IntegerAttr(node.cost));
    valueAt[pos] = op->getResult(0);
    if (!node.hasUsers)
      results.push_back(valueAt[pos]);
  }
  builder.create<func::ReturnOp>(locationOf(root.field("links")), results);
  func.setFunctionType(builder.getFunctionType(
      argTypes, ValueRange(results).getTypes()));
  if (!argAttrs.empty())
    func.setAllArgAttrs(argAttrs);
  auto outputRole = builder.getDictionaryAttr(builder.getNamedAttr(
      CkptDialect::getRoleAttrName(),
      ValueRoleAttr::get(context, ValueRole::Output)));
  func.setAllResultAttrs(
      SmallVector<DictionaryAttr>(results.size(), outputRole));
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> RematGraphImporter::run() {
  JsonPath root;
  std::optional<json::Value> document =
      parseJsonDocument(text, fileName, locator, context);
  if (!document)
    return nullptr;
  const json::Object *top = getObject(*document, root);
  if (!top)
    return nullptr;
  if (const json::Value *directed = top->get("directed");
      directed && directed->getAsBoolean() != true) {
    error(root.field("directed")) << "expected true (a directed graph)";
    return nullptr;
  }
  const json::Object *graph = nullptr;
  if (const json::Value *value = top->get("graph"))
    if (!(graph = getObject(*value, root.field("graph"))))
      return nullptr;
  const json::Array *nodeArray = getArray(*top, "nodes", root);
  const json::Array *linkArray =
      nodeArray ? getArray(*top, "links", root) : nullptr;
  if (!linkArray)
    return nullptr;
  JsonPath nodesPath = root.field("nodes");
  if (nodeArray->empty()) {
    error(nodesPath) << "a remat graph needs at least one node";
    return nullptr;
  }
  // The first node tells the flavour.
  const json::Object *first = getObject(nodeArray->front(), nodesPath.index(0));
  if (!first)
    return nullptr;
  if (first->get("cost_cpu")) {
    flavor = Flavor::Checkmate;
    keys = {"id", "cost_cpu", "cost_ram", "source", "target"};
  } else if (first->get("duration")) {
    flavor = Flavor::Layered;
    keys = {"name", "duration", "out_cost", "0", "1"};
  } else {
    error(nodesPath.index(0))
        << "expected a Checkmate node (id, cost_cpu, cost_ram) or a layered "
           "graph node (name, duration, out_cost)";
    return nullptr;
  }
  std::string name = "remat_graph";
  if (graph)
    if (std::optional<StringRef> given = graph->getString("name"))
      name = sanitizeSymbolName(*given, name);
  if (failed(readNodes(*nodeArray, nodesPath)) ||
      failed(readOrder(graph, root.field("graph"))) ||
      failed(readLinks(*linkArray, root.field("links"))))
    return nullptr;
  return build(name, root);
}

OwningOpRef<ModuleOp> mlir::ckpt::importRematGraphJson(StringRef json,
                                                       StringRef fileName,
                                                       MLIRContext *context) {
  context->getOrLoadDialect<CkptDialect>();
  context->getOrLoadDialect<func::FuncDialect>();
  return RematGraphImporter(json, fileName, context).run();
}
