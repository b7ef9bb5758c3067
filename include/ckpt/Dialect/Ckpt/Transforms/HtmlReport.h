//===- HtmlReport.h - A checkpoint plan as a page to look at ------*- C++ -*-===//
//
// One self-contained HTML file (inline SVG and CSS, no script, nothing
// fetched) per module: for every step, the memory timeline before and after
// the plan stacked by buffer kind with the budget line, the budget ->
// overhead frontier with the chosen plan marked, and the recomputed ops by
// module scope. Built from plain data so that it can be tested without IR.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_HTMLREPORT_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_HTMLREPORT_H

#include "ckpt/Analysis/MemoryTimeline.h"
#include "ckpt/Dialect/Ckpt/Transforms/ParetoFrontier.h"
#include "ckpt/Dialect/Ckpt/Transforms/PlanSummary.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::ckpt {

/// The layers of a memory chart, bottom to top: the buffer kinds, then op
/// workspace (with the device workspace in the step scope).
constexpr size_t kNumMemoryLayers = kNumBufferKinds + 1;

/// A memory timeline reduced to what a chart shows, in one budget scope.
struct MemoryChart {
  /// Ops in the schedule and the index of the first backward op.
  int64_t ops = 0;
  int64_t backwardStart = 0;
  /// Sampled points: the op index and its live bytes per layer (kinds out
  /// of the scope are 0). Each sample is the op with the most live bytes in
  /// its stretch of the schedule, so the chart never hides the peak.
  std::vector<int64_t> sampleOps;
  std::vector<std::array<int64_t, kNumMemoryLayers>> layers;
  /// The peak in the scope and the op where it occurs (-1: at entry).
  int64_t peakBytes = 0;
  int64_t peakOp = -1;
};

/// Reduces `timeline` to at most `maxSamples` points, counting what
/// `scope` counts (the layers of each sample sum to `liveInScope`).
MemoryChart buildMemoryChart(const MemoryTimeline &timeline,
                             BudgetScope scope, size_t maxSamples = 600);

/// Everything the page shows about one step function.
struct HtmlStep {
  std::string name;
  BudgetScope scope = BudgetScope::Step;
  /// The budget as typed and in bytes in `scope`; -1 bytes: none given.
  std::string budgetText;
  int64_t budgetBytes = -1;
  /// The step as given; `before` is absent when the input already carries a
  /// plan (recomputed ops), `after` when no budget was given.
  std::optional<MemoryChart> before;
  std::optional<MemoryChart> after;
  /// The plan's predicted overhead (fraction of the step's cost, in the
  /// objective's terms) and the objective's name.
  double overhead = 0;
  std::string objective;
  /// The placement's own summary (summarizePlan), shown verbatim.
  std::string summary;
  /// Recomputed ops by module scope (groupRecomputedOps).
  std::vector<RecomputedScope> recomputed;
  /// The budget -> overhead frontier, when it was solved.
  std::optional<Frontier> frontier;
};

/// Writes the page for `steps` (one section each) to `os`. The output
/// depends only on the data: the same steps give byte-identical pages.
void writeHtmlReport(llvm::ArrayRef<HtmlStep> steps, llvm::raw_ostream &os);

/// Escapes `&`, `<`, `>`, `"` and `'` for HTML text and attribute values.
std::string escapeHtml(llvm::StringRef text);

} // namespace mlir::ckpt

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_HTMLREPORT_H
