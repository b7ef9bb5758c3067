//===- ForwardStructure.h - Cut points and repeated blocks -------*- C++ -*-===//
//
// The structure the baseline strategies are defined on, read off the plain
// problem: the forward pass's cut points (articulation points: a value that
// alone carries everything later forward nodes need from earlier ones), the
// segments between them, and the forward pass's repeated blocks (the same
// sequence of op kinds, segment by segment, several times in a row).
//
// Chen et al. (2016) checkpoint every sqrt(N)-th of the N cut points of a
// network; PyTorch users checkpoint each repeated block (`layers.N`), or a
// sequential model in equal parts, running its last part without a
// checkpoint (`checkpoint_sequential`). These functions give those blocks
// where the exporter's module scopes do not.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_FORWARDSTRUCTURE_H
#define CKPT_REMAT_FORWARDSTRUCTURE_H

#include "ckpt/Remat/RematProblem.h"

#include <cstdint>
#include <vector>

namespace mlir::ckpt::remat {

/// Returns the forward cut points of `problem` in order: recomputable nodes
/// c (not projections, not primaries of projections) such that no edge from
/// a recomputable node before c reaches a recomputable node after c, and c
/// is read by a later recomputable node. Keeping c's output keeps all that
/// the forward pass after c needs from before it.
std::vector<int32_t> findForwardCutPoints(const Problem &problem);

/// Numbers the forward segments: segment k holds the recomputable nodes
/// after cut point k-1 up to and including cut point k. Nodes after the last
/// cut point (the forward pass's tail, which the backward pass reads at
/// once) and non-recomputable nodes get -1. Returns the segment of every
/// node.
std::vector<int32_t> segmentsBetweenCutPoints(const Problem &problem);

/// Finds repeated blocks from the op kinds of the nodes (`kindOf[i]`, any
/// ids, equal for ops of the same kind): each forward segment is labelled
/// with the sequence of kinds it holds; a unit of p consecutive segments
/// repeated r >= 2 times in a row covers p * r segments. Units are chosen
/// greedily among the segments not yet covered, until no unit repeats: most
/// segments covered first; ties go to the shorter unit, then to the rotation
/// whose repetitions end at the fewest bytes (the values checkpointing
/// keeps), then to the earlier start.
/// Every repetition of a unit is one block, except where a repetition holds
/// only one value the backward pass reads: checkpointing it would keep as
/// much as it drops, so two repetitions make a block. Returns the block of
/// every node (-1 outside blocks), blocks numbered in order.
std::vector<int32_t> findRepeatedBlocks(const Problem &problem,
                                        const std::vector<int32_t> &kindOf);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_FORWARDSTRUCTURE_H
