//===- RematProblem.h - The rematerialization problem as plain data -*- C++
//-*-===//
//
// The problem every checkpointing engine solves, with no MLIR in it: a DAG of
// nodes in a given schedule order, each with a compute cost, an output size
// and a workspace; a solution is the sequence of node computations
// (recomputations included). `evaluateSchedule` is the reference semantics
// of a solution -- validity, peak memory and cost -- that every engine is
// judged by; the IR's MemoryTimeline checks the materialized result again.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_REMATPROBLEM_H
#define CKPT_REMAT_REMATPROBLEM_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::ckpt::remat {

/// One node: an op, or one extra result of a multi-result op (a
/// "projection", which costs nothing and is produced by its primary).
struct Node {
  /// Name used in messages and reports.
  std::string name;
  /// Cost of one computation (seconds, FLOPs or the input's own unit).
  double cost = 0;
  /// Size of the node's output buffer in bytes.
  int64_t bytes = 0;
  /// Scratch bytes needed only while the node is computed.
  int64_t workspace = 0;
  /// Nodes whose outputs this node reads; every index is smaller than the
  /// node's own. Projections depend on exactly their primary.
  std::vector<int32_t> deps;
  /// Whether the node may be computed more than once.
  bool recomputable = true;
  /// Whether the node's (last computed) output must live to the end.
  bool isOutput = false;
  /// For a projection, the index of the node whose computation produces it
  /// (it directly precedes its projections in the order); -1 otherwise.
  int32_t primary = -1;
};

/// A rematerialization problem. Nodes are in the given schedule order, which
/// is topological.
struct Problem {
  std::vector<Node> nodes;
  /// Bytes live for the whole schedule (graph inputs, parameters).
  int64_t fixedBytes = 0;

  /// Returns a message describing the first structural error (dependency not
  /// earlier, bad projection), or std::nullopt if the problem is well formed.
  std::optional<std::string> validate() const;

  /// Sum of the costs of computing every node once.
  double baseCost() const;
};

/// A solution: the sequence of computations. Valid schedules compute every
/// node at least once, and the first computations of the nodes appear in the
/// problem's order; a node that is not recomputable appears once.
struct Schedule {
  std::vector<int32_t> order;

  /// The schedule that computes every node exactly once, in order.
  static Schedule identity(const Problem &problem);
};

/// What a schedule costs. Every read binds to the most recent earlier
/// computation of the node read; a computed buffer lives from its
/// computation through the last read bound to it (an output's last
/// computation to the end; an unread buffer only while it is computed).
struct Evaluation {
  /// Empty if the schedule is valid; otherwise why not.
  std::string error;
  /// Peak of fixed bytes + live buffers + the running node's workspace.
  int64_t peakBytes = 0;
  /// Index into `order` where the peak first occurs (-1: no computation).
  int64_t peakStep = -1;
  /// Sum of the costs of all computations.
  double totalCost = 0;
  /// `totalCost` minus the problem's base cost: the recomputation overhead.
  double recomputeCost = 0;
  /// Number of computations beyond the first of each node.
  int64_t recomputations = 0;
  /// Live bytes while each step runs (including workspace).
  std::vector<int64_t> liveBytes;
  /// For each step, the step of the last read bound to its computation (the
  /// step itself when unread; the schedule's length for an output's final
  /// computation, kept to the end).
  std::vector<int64_t> lastRead;

  bool valid() const { return error.empty(); }
};

/// How `evaluateSchedule` reads a schedule.
struct EvaluationOptions {
  /// Accept first computations in any order (each still after its inputs'):
  /// the schedules of the backward search and the window repair before they
  /// are replayed in the problem's order.
  bool anyFirstOrder = false;
};

/// Evaluates `schedule` on `problem` (linear in its length plus reads).
Evaluation evaluateSchedule(const Problem &problem, const Schedule &schedule,
                            const EvaluationOptions &options = {});

/// A lower bound on the peak of every valid schedule, and the node that
/// sets it: while a node is computed, the fixed bytes, its dependencies, its
/// own output and workspace, and every non-recomputable output computed
/// before it must all be in memory.
struct MemoryFloor {
  int64_t bytes = 0;
  int32_t node = -1;
};
MemoryFloor computeMemoryFloor(const Problem &problem);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_REMATPROBLEM_H
