//===- ProblemShape.h - Structural queries on a problem ------------*- C++
//-*-===//
//
// Internal to CkptRemat: facts about a problem's graph that several engines
// ask (its inputs without repeats; whether its nodes may be computed in any
// order).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_REMAT_PROBLEMSHAPE_H
#define CKPT_LIB_REMAT_PROBLEMSHAPE_H

#include "ckpt/Remat/RematProblem.h"

#include <cstdint>
#include <vector>

namespace mlir::ckpt::remat::detail {

/// The inputs of every node of `problem`, each list sorted and without
/// repeats.
std::vector<std::vector<int32_t>> uniqueDeps(const Problem &problem);

/// Whether every node of `problem` may be recomputed, none is a
/// projection, and the last node is the only output: the form whose
/// schedules may first compute the nodes in any order (ReorderedSchedules.h,
/// BackwardSearch.h).
bool isFreelyReorderable(const Problem &problem);

/// Whether no node of `problem` is a projection.
bool hasNoProjections(const Problem &problem);

} // namespace mlir::ckpt::remat::detail

#endif // CKPT_LIB_REMAT_PROBLEMSHAPE_H
