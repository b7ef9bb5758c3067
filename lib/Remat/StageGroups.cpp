//===- StageGroups.cpp - The stages of the exact engines ------------------===//

#include "StageGroups.h"

using namespace mlir::ckpt::remat;
using namespace mlir::ckpt::remat::detail;

StageGroups detail::buildStageGroups(const Problem &problem) {
  StageGroups groups;
  const int32_t n = static_cast<int32_t>(problem.nodes.size());
  groups.groupOf.resize(n);
  for (int32_t i = 0; i < n; ++i) {
    const Node &node = problem.nodes[i];
    if (node.primary < 0) {
      groups.begin.push_back(i);
      groups.recomputable.push_back(node.recomputable);
      groups.cost.push_back(0);
    }
    groups.groupOf[i] = groups.size() - 1;
    groups.cost.back() += node.cost;
  }
  groups.begin.push_back(n);
  return groups;
}

void detail::appendGroup(const StageGroups &groups, int32_t g,
                         std::vector<int32_t> &order) {
  for (int32_t i = groups.begin[g]; i < groups.begin[g + 1]; ++i)
    order.push_back(i);
}
