//===- BaselineStrategies.cpp - full, sqrt and selective from the IR ------===//

#include "ckpt/Dialect/Ckpt/Transforms/BaselineStrategies.h"

#include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TrainingStep.h"
#include "ckpt/Remat/KeptSetSchedules.h"

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

std::vector<std::vector<bool>>
mlir::ckpt::getBaselineDropSets(func::FuncOp func,
                                const RematProblemWithOrigins &p) {
  std::vector<int32_t> blocks = getNodeBlocks(p);
  return {remat::dropInsideBlocks(p.problem, blocks),
          remat::dropInsideBlocks(p.problem,
                                  remat::groupBlocksIntoSqrtSegments(blocks)),
          dropAttentionCores(func, p)};
}
