//===- BaselineStrategies.h - What users know: full, sqrt, selective -*- C++ -*-//
//
// The drop decisions of the baseline strategies, read off the IR: blocks from
// the exporter's module scopes, and Megatron-LM's attention cores.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_BASELINESTRATEGIES_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_BASELINESTRATEGIES_H

#include "ckpt/Dialect/Ckpt/Transforms/RematLowering.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::ckpt {

/// Returns the block index of every problem node (-1 outside blocks),
/// numbering blocks in order of first appearance. A node's block is its
/// op's module scope up to the first all-digit component (`h.3.attn.c_attn`
/// -> `h.3`).
std::vector<int32_t> getNodeBlocks(const RematProblemWithOrigins &problem);

/// The module scope of an op: the first NameLoc name inside its location
/// (the importer wraps each node's location in one), or "".
std::string getModuleScope(Location loc);

/// Drop decisions of Megatron-LM's selective recomputation: forward
/// softmaxes, the dropouts of their outputs, the score batch_matmuls feeding
/// them and the batch_matmuls reading their outputs.
std::vector<bool> dropAttentionCores(func::FuncOp func,
                                     const RematProblemWithOrigins &problem);

/// The drop sets of `full`, `sqrt` and `selective`, in that order.
std::vector<std::vector<bool>>
getBaselineDropSets(func::FuncOp func, const RematProblemWithOrigins &problem);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_BASELINESTRATEGIES_H
