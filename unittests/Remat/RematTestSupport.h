//===- RematTestSupport.h - Shared helpers of the remat unit tests -*- C++ -*-//
//
// Readable dumps of problems and results for failure messages.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_UNITTESTS_REMAT_REMATTESTSUPPORT_H
#define CKPT_UNITTESTS_REMAT_REMATTESTSUPPORT_H

#include "ckpt/Remat/ExactSolvers.h"

#include <sstream>
#include <string>

namespace mlir::ckpt::remat::testing {

/// The budget and every node of `problem`, one per line.
/// Appends a node named `n<index>` to `problem`; returns its index.
inline int32_t addNode(Problem &problem, double cost, int64_t bytes,
                       std::vector<int32_t> deps, bool recomputable = true) {
  Node node;
  node.name = "n" + std::to_string(problem.nodes.size());
  node.cost = cost;
  node.bytes = bytes;
  node.deps = std::move(deps);
  node.recomputable = recomputable;
  problem.nodes.push_back(std::move(node));
  return static_cast<int32_t>(problem.nodes.size()) - 1;
}

inline std::string describe(const Problem &problem, int64_t budget) {
  std::ostringstream os;
  os << "budget " << budget << ", fixed " << problem.fixedBytes << "\n";
  for (size_t i = 0; i < problem.nodes.size(); ++i) {
    const Node &node = problem.nodes[i];
    os << "  " << i << ": cost " << node.cost << " bytes " << node.bytes
       << " ws " << node.workspace << " deps {";
    for (int32_t dep : node.deps)
      os << " " << dep;
    os << " }" << (node.recomputable ? "" : " fixed")
       << (node.isOutput ? " output" : "");
    if (node.primary >= 0)
      os << " projection of " << node.primary;
    os << "\n";
  }
  return os.str();
}

/// Status, cost, bound, peak and order of `result`.
inline std::string describe(const SolveResult &result) {
  std::ostringstream os;
  os << statusName(result.status) << " cost " << result.cost << " bound "
     << result.lowerBound << " peak " << result.peakBytes << " order [";
  for (int32_t id : result.schedule.order)
    os << " " << id;
  os << " ] (" << result.message << ")";
  return os.str();
}

} // namespace mlir::ckpt::remat::testing

#endif // CKPT_UNITTESTS_REMAT_REMATTESTSUPPORT_H
