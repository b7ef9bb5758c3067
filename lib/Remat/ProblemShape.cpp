//===- ProblemShape.cpp - Structural queries on a problem -----------------===//

#include "ProblemShape.h"

#include <algorithm>

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::detail;

std::vector<std::vector<int32_t>> detail::uniqueDeps(const Problem &problem) {
  std::vector<std::vector<int32_t>> deps(problem.nodes.size());
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    deps[v] = problem.nodes[v].deps;
    std::sort(deps[v].begin(), deps[v].end());
    deps[v].erase(std::unique(deps[v].begin(), deps[v].end()), deps[v].end());
  }
  return deps;
}

bool detail::isFreelyReorderable(const Problem &problem) {
  const size_t n = problem.nodes.size();
  for (size_t v = 0; v < n; ++v) {
    const Node &node = problem.nodes[v];
    if (!node.recomputable || node.primary >= 0 ||
        (node.isOutput && v + 1 != n))
      return false;
  }
  return true;
}

bool detail::hasNoProjections(const Problem &problem) {
  for (const Node &node : problem.nodes)
    if (node.primary >= 0)
      return false;
  return true;
}
