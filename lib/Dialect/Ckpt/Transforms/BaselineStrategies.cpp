//===- BaselineStrategies.cpp - full, sqrt and selective from the IR ------===//

#include "ckpt/Dialect/Ckpt/Transforms/BaselineStrategies.h"

#include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TrainingStep.h"
#include "ckpt/Remat/ForwardStructure.h"
#include "ckpt/Remat/KeptSetSchedules.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::ckpt;

std::string mlir::ckpt::getModuleScope(Location loc) {
  std::string scope;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      scope = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return scope;
}

/// Returns the block a scope belongs to: its path up to and including the
/// first all-digit component (`h.3.attn.c_attn` -> `h.3`), or "".
static std::string getBlockOfScope(StringRef scope) {
  SmallVector<StringRef> parts;
  scope.split(parts, '.');
  for (size_t i = 0; i < parts.size(); ++i)
    if (!parts[i].empty() && llvm::all_of(parts[i], llvm::isDigit))
      return llvm::join(ArrayRef<StringRef>(parts).take_front(i + 1), ".");
  return "";
}

std::vector<int32_t>
mlir::ckpt::getNodeBlocks(const RematProblemWithOrigins &p) {
  llvm::StringMap<int32_t> ids;
  std::vector<int32_t> blockOf;
  for (const NodeOrigin &origin : p.origins) {
    std::string block = getBlockOfScope(getModuleScope(origin.op->getLoc()));
    if (block.empty()) {
      blockOf.push_back(-1);
      continue;
    }
    auto [it, inserted] = ids.try_emplace(block, ids.size());
    blockOf.push_back(it->second);
  }
  return blockOf;
}

/// Returns the op defining the storage `value` aliases (through views).
static Operation *getStorageOp(Value value) {
  return getStorageRoot(value).getDefiningOp();
}

/// Marks the ops of unfused attention cores (Megatron-LM's selective
/// recomputation): forward softmaxes, dropouts of their output, the score
/// batch_matmuls feeding them and the batch_matmuls reading their output.
static llvm::DenseSet<Operation *> findAttentionCores(func::FuncOp func) {
  llvm::DenseSet<Operation *> core;
  auto forward = [](Operation *op) {
    return op && getOpPhase(op) == Phase::Forward;
  };
  func.walk([&](SoftmaxOp softmax) {
    if (!forward(softmax))
      return;
    core.insert(softmax);
    if (Operation *scores = getStorageOp(softmax.getInput());
        forward(scores) && isa<BatchMatmulOp>(scores))
      core.insert(scores);
  });
  func.walk([&](DropoutOp dropout) {
    if (forward(dropout) && core.contains(getStorageOp(dropout.getInput())))
      core.insert(dropout);
  });
  func.walk([&](BatchMatmulOp matmul) {
    if (!forward(matmul) || core.contains(matmul))
      return;
    for (Value operand : matmul->getOperands())
      if (Operation *def = getStorageOp(operand);
          def && isa<SoftmaxOp, DropoutOp>(def) && core.contains(def))
        core.insert(matmul);
  });
  return core;
}

std::vector<bool>
mlir::ckpt::dropAttentionCores(func::FuncOp func,
                               const RematProblemWithOrigins &p) {
  llvm::DenseSet<Operation *> core = findAttentionCores(func);
  std::vector<bool> drop(p.problem.nodes.size(), false);
  for (size_t i = 0; i < drop.size(); ++i)
    drop[i] = core.contains(p.origins[i].op);
  return drop;
}

/// Whether module scopes give the blocks users checkpoint: at least two
/// blocks hold two or more recomputable nodes each. (An MLP whose
/// activations are called outside `layers.N`, or a VGG whose every
/// `nn.Sequential` child is a block of one op, has no such blocks.)
static bool scopesGiveBlocks(const RematProblemWithOrigins &p,
                             const std::vector<int32_t> &blockOf) {
  llvm::DenseMap<int32_t, int32_t> recomputable;
  for (size_t i = 0; i < blockOf.size(); ++i)
    if (blockOf[i] >= 0 && p.problem.nodes[i].recomputable)
      ++recomputable[blockOf[i]];
  int32_t blocks = 0;
  for (const auto &entry : recomputable)
    blocks += entry.second >= 2 ? 1 : 0;
  return blocks >= 2;
}

std::vector<int32_t>
mlir::ckpt::getFullRecomputationBlocks(const RematProblemWithOrigins &p) {
  std::vector<int32_t> blocks = getNodeBlocks(p);
  if (scopesGiveBlocks(p, blocks))
    return blocks;
  // The repeated structure: ops are of the same kind when they have the
  // same name.
  llvm::StringMap<int32_t> kindIds;
  std::vector<int32_t> kindOf;
  kindOf.reserve(p.origins.size());
  for (const NodeOrigin &origin : p.origins)
    kindOf.push_back(
        kindIds.try_emplace(origin.op->getName().getStringRef(), kindIds.size())
            .first->second);
  return remat::findRepeatedBlocks(p.problem, kindOf);
}

std::vector<bool>
mlir::ckpt::dropFullRecomputation(const RematProblemWithOrigins &p) {
  return remat::dropInsideBlocks(p.problem, getFullRecomputationBlocks(p));
}

std::vector<bool>
mlir::ckpt::dropSqrtSegments(const RematProblemWithOrigins &p) {
  return remat::dropInsideBlocks(
      p.problem, remat::groupBlocksIntoSqrtSegments(
                     remat::segmentsBetweenCutPoints(p.problem)));
}

std::vector<std::vector<bool>>
mlir::ckpt::getBaselineDropSets(func::FuncOp func,
                                const RematProblemWithOrigins &p) {
  // Also sqrt(N) over the module blocks: a start the budget-driven searches
  // profit from where blocks span several cut-point segments (a U-Net's
  // skip connections leave it few cut points).
  return {dropFullRecomputation(p), dropSqrtSegments(p),
          dropAttentionCores(func, p),
          remat::dropInsideBlocks(
              p.problem, remat::groupBlocksIntoSqrtSegments(getNodeBlocks(p)))};
}
