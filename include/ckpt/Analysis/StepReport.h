//===- StepReport.h - What a training step costs, for humans ----*- C++ -*-===//
//
// Gathers the cost, time and memory figures of one training step (per-phase
// FLOPs and estimated time, parameter/gradient/activation bytes, the peak and
// where it occurs, the largest saved activations, a memory sparkline) and
// prints them as a table or as JSON (docs/cost-model.md).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_STEPREPORT_H
#define CKPT_ANALYSIS_STEPREPORT_H

#include "ckpt/Analysis/CostModel.h"
#include "ckpt/Analysis/MemoryTimeline.h"
#include "ckpt/Dialect/Ckpt/IR/BudgetAttr.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::ckpt {

/// Totals of one phase.
struct PhaseSummary {
  int64_t ops = 0;
  int64_t flops = 0;
  int64_t bytesMoved = 0; ///< bytes read + written
  double seconds = 0;     ///< estimated by the cost model
};

/// One buffer in a report: what defines it and where.
struct ReportedBuffer {
  std::string op;       ///< defining op name, or `argument`
  std::string location; ///< `file:line:col`, with the scope if any
  std::string type;     ///< the tensor type
  int64_t bytes = 0;
};

/// Everything `--ckpt-report` shows about one function.
/// What a step's copies to host memory do (a step placed with
/// `offload=<link>`).
struct OffloadSummary {
  /// The host link the step was placed for (`ckpt.offload_link`); "" when
  /// none is recorded.
  std::string link;
  int64_t offloads = 0;
  int64_t prefetches = 0;
  int64_t bytesToHost = 0;
  int64_t bytesToDevice = 0;
  /// Peak of the host buffers live at once (the memory simulation's).
  int64_t hostPeakBytes = 0;
  /// The offloaded values, largest first (at most 10).
  std::vector<ReportedBuffer> largest;
  /// With a known link: the copies' own time each way and the time the
  /// compute stream waits for them, simulated on the IR's op order with the
  /// cost model's op times and the link (independently of the placement's
  /// offload model).
  bool predicted = false;
  double toHostSeconds = 0;
  double toDeviceSeconds = 0;
  double exposedSeconds = 0;
};

/// Describes `buffer` (its op or argument, location, type and bytes).
ReportedBuffer describeReportedBuffer(const Buffer &buffer);

/// The copies of `func` (simulated as `timeline`), or none without copies
/// (OffloadReport.cpp).
std::optional<OffloadSummary> summarizeOffload(func::FuncOp func,
                                               const MemoryTimeline &timeline,
                                               const CostModel &model);

struct StepReport {
  std::string function;
  std::string costModel;
  /// Indexed by Phase (fwd, bwd, opt).
  std::array<PhaseSummary, 3> phases;
  int64_t parameterBytes = 0;
  int64_t gradientBytes = 0;
  int64_t inputBytes = 0;
  int64_t savedActivationBytes = 0;
  int64_t numSavedActivations = 0;
  int64_t peakBytes = 0;
  int64_t peakOpIndex = -1; ///< -1: the peak is at entry
  ReportedBuffer peakOp;    ///< the op running at the peak
  KindBytes peakByKind{};   ///< live bytes by kind at the peak
  int64_t peakWorkspace = 0;
  /// The budget scope the report states, and the peak in it
  /// (`computeScopedPeak`) with the op running at it (-1: at entry).
  BudgetScope scope = BudgetScope::Step;
  int64_t scopePeakBytes = 0;
  int64_t scopePeakOpIndex = -1;
  ReportedBuffer scopePeakOp;
  /// The largest saved activations, largest first (at most 10).
  std::vector<ReportedBuffer> largestSaved;
  /// Live bytes over the schedule, downsampled to at most 64 points (the
  /// maximum within each stretch of ops).
  std::vector<int64_t> timeline;
  /// The planned arena (`ckpt.arena_size`, docs/memory-plan.md), or -1 when
  /// the function has no memory plan.
  int64_t arenaBytes = -1;
  /// The plan's lower bound (`ckpt.arena_lower_bound`), or -1.
  int64_t arenaLowerBound = -1;
  /// The budget the step was planned under (`ckpt.budget`), if any.
  std::optional<ResolvedBudget> budget;
  /// The copies to host memory, for a step placed with offload.
  std::optional<OffloadSummary> offload;

  /// True when the function carries a memory plan.
  bool hasArena() const { return arenaBytes >= 0; }
};

/// Builds the report of `func` from its memory timeline and a cost model,
/// stating the peak in `scope` as well as the whole step's.
StepReport buildStepReport(func::FuncOp func, const MemoryTimeline &timeline,
                           const CostModel &model,
                           BudgetScope scope = BudgetScope::Step);

/// Prints `report` as a compact human-readable table.
void printStepReportText(const StepReport &report, llvm::raw_ostream &os);

/// Prints `report` as one JSON object (schema in docs/cost-model.md).
void printStepReportJson(const StepReport &report, llvm::raw_ostream &os);

/// Formats bytes in binary units: `512 B`, `1.50 KiB`, `3.00 GiB`.
std::string formatBytes(int64_t bytes);

/// Formats a FLOP count with a decimal prefix: `3.36 GFLOP`.
std::string formatFlops(int64_t flops);

/// Formats seconds as `3.13 ns`, `12.3 us`, `4.56 ms` or `1.23 s`.
std::string formatSeconds(double seconds);

/// Formats a number the shortest way that shows it (`%g`: `-5`, `0.25`,
/// `nan`): an option's value in a message, as the user would have typed it.
std::string formatNumber(double value);

/// Returns a one-line sparkline of `values` (block characters, lowest to
/// highest between the minimum and the maximum).
std::string sparkline(llvm::ArrayRef<int64_t> values);

} // namespace mlir::ckpt

#endif // CKPT_ANALYSIS_STEPREPORT_H
