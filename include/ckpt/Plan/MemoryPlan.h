//===- MemoryPlan.h - Static placement of buffers in one arena --*- C++ -*-===//
//
// The memory-planning problem in plain data: buffers with a size and a
// lifetime (an inclusive range of schedule steps), optionally an in-place
// partner whose storage they may take over, and an alignment. The packer
// assigns every buffer an offset in one arena so that no two buffers live at
// the same step share a byte; the checker verifies a packing independently
// of the packer. No MLIR here (docs/memory-plan.md).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_PLAN_MEMORYPLAN_H
#define CKPT_PLAN_MEMORYPLAN_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::ckpt::plan {

/// One buffer to place: `size` bytes live during steps [start, end]
/// (inclusive). Two buffers conflict when their step ranges intersect.
struct PlanBuffer {
  int64_t size = 0;  ///< bytes (rounded up to the alignment when placed)
  int64_t start = 0; ///< first step at which the buffer is live
  int64_t end = 0;   ///< last step at which the buffer is live
  /// In-place partner: the index of a buffer that starts earlier, whose last
  /// step is this buffer's first step and whose storage this one may take over (an
  /// elementwise op writing its result over an input that dies there), or -1.
  /// A partner must have the same aligned size; each buffer is the partner of
  /// at most one other.
  int64_t inPlaceOf = -1;
};

/// A packing problem.
struct PlanProblem {
  std::vector<PlanBuffer> buffers;
  /// Every offset is a multiple of it and every size is rounded up to it.
  int64_t alignment = 256;
};

/// How to pack.
enum class PlanAlgorithm {
  /// TFLite's arena planner / XLA's heap simulator: buffers by decreasing
  /// size, each in the smallest gap that fits (best fit). One pass.
  GreedyBySize,
  /// Several orderings (size, peak-first, lifetime, area, start) with best
  /// fit and first fit, `restarts` randomized size orders, an iterated local
  /// search on the best orders, and the exact search when the instance is
  /// small; the smallest arena wins, ties to the earlier try. Effort is
  /// capped by `workLimit` (deterministic).
  Portfolio,
};

/// Returns the name of `algorithm` as `ckpt-plan-memory`'s `algorithm=`
/// spells it: "greedy-by-size" or "portfolio".
const char *planAlgorithmName(PlanAlgorithm algorithm);

/// Returns the algorithm named `name` (as `planAlgorithmName` spells it), or
/// nullopt.
std::optional<PlanAlgorithm> parsePlanAlgorithm(std::string_view name);

/// Options of `planMemory`.
struct PlanOptions {
  PlanAlgorithm algorithm = PlanAlgorithm::Portfolio;
  /// Randomized orderings tried by `Portfolio` after the fixed ones.
  unsigned restarts = 32;
  /// Iterations of the local search on the best order found.
  unsigned searchIterations = 4000;
  /// Effort cap of `Portfolio`, in placed blocks visited by all tries
  /// together (deterministic, unlike a time limit): once reached, no further
  /// try starts (the first ordering always runs). 1e8 is about 0.15 s.
  int64_t workLimit = 100000000;
  /// Seed of the randomized orderings (plans are deterministic per seed).
  uint64_t seed = 1;
  /// `Portfolio` runs the exact branch-and-bound search when at most this
  /// many storage blocks (after in-place merging) remain.
  unsigned exactMaxBuffers = 10;
  /// Node limit of the exact search; when reached, the result is the best
  /// packing found and is not proven optimal.
  int64_t exactNodeLimit = 2000000;
};

/// A packing: an offset for every buffer and the arena size.
struct MemoryPlan {
  std::vector<int64_t> offsets; ///< per buffer, in problem order
  int64_t arenaSize = 0;        ///< highest byte used + 1 (aligned sizes)
  /// Peak over steps of the aligned bytes live at once, in-place partners
  /// counted once: no packing of this problem can be smaller.
  int64_t lowerBound = 0;
  /// Buffers that took over their in-place partner's storage.
  int64_t inPlaceBuffers = 0;
  /// The ordering that produced the packing (`size/best-fit`, `exact`, ...).
  std::string method;
  /// True when the arena equals the lower bound or the exact search finished.
  bool provenOptimal = false;
};

/// Rounds `bytes` up to a multiple of `alignment` (> 0).
int64_t alignUp(int64_t bytes, int64_t alignment);

/// Checks that `problem` is well formed: alignment > 0, sizes >= 0,
/// start <= end, valid in-place partners (index in range, not itself, the
/// partner starts earlier and its last step is this buffer's first step,
/// equal aligned sizes, each
/// partner claimed once). Returns an empty string or the first problem found.
std::string validateProblem(const PlanProblem &problem);

/// Returns the lower bound of `problem`: the peak over steps of the aligned
/// bytes live at once, where a buffer and its in-place partner count once.
int64_t computeLowerBound(const PlanProblem &problem);

/// Packs `problem` (which must validate) into one arena. Every valid
/// in-place partnership is honoured (the two buffers get the same offset).
MemoryPlan planMemory(const PlanProblem &problem,
                      const PlanOptions &options = {});

/// Independent check of a packing, written without the packer's code: every
/// offset is non-negative and aligned, every buffer lies inside
/// [0, arenaSize), and no two buffers live at a common step share a byte,
/// except a buffer and its in-place partner at the same offset at the step
/// where one ends and the other begins. Returns an empty string or a
/// description of the first violation (buffer indices, offsets, steps).
std::string checkPlan(const PlanProblem &problem,
                      const std::vector<int64_t> &offsets, int64_t arenaSize);

} // namespace mlir::ckpt::plan

#endif // CKPT_PLAN_MEMORYPLAN_H
