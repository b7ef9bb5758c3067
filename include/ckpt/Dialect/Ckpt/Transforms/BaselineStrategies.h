//===- BaselineStrategies.h - What users know: full, sqrt, selective -*- C++ -*-//
//
// The drop decisions of the baseline strategies users know, read off the IR:
// `full` checkpoints every block (the exporter's module scopes, `layers.N`,
// or else the forward pass's repeated structure, ForwardStructure.h), `sqrt`
// is Chen et al.'s sqrt(N) on the forward cut points, and `selective` is
// Megatron-LM's recomputation of attention cores.
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

/// The blocks of `full`: the module-scope blocks (`getNodeBlocks`) when at
/// least two of them hold two or more recomputable nodes; otherwise the
/// forward pass's repeated blocks (`remat::findRepeatedBlocks`, ops of the
/// same name being of the same kind).
std::vector<int32_t>
getFullRecomputationBlocks(const RematProblemWithOrigins &problem);

/// Drop decisions of `full`: everything inside each block of
/// `getFullRecomputationBlocks` but what another block reads (as
/// `torch.utils.checkpoint` around each block).
std::vector<bool> dropFullRecomputation(const RematProblemWithOrigins &problem);

/// Drop decisions of `sqrt` (Chen et al. 2016): the forward segments between
/// cut points grouped into ceil(sqrt(N)) consecutive segments each, keeping
/// only the last cut point of each group; the tail after the last cut point
/// is kept (as `checkpoint_sequential` runs its last part unchecked).
std::vector<bool> dropSqrtSegments(const RematProblemWithOrigins &problem);

/// The drop sets of `full`, `sqrt` and `selective`, in that order, then
/// sqrt(N) segments of module blocks: the starts of the budget-driven
/// searches (`greedy`, `optimal`), which never cost more than a start that
/// fits.
std::vector<std::vector<bool>>
getBaselineDropSets(func::FuncOp func, const RematProblemWithOrigins &problem);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_BASELINESTRATEGIES_H
