//===- HtmlReport.cpp - A checkpoint plan as a page to look at ------------===//
//
// Plain SVG drawn here (no charting library: the page must be one file that
// opens anywhere, and the project installs no JavaScript). Coordinates are
// printed with one decimal, so the page is deterministic.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/Transforms/HtmlReport.h"

#include "ckpt/Analysis/StepReport.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::ckpt;

namespace {

/// Name and colour of each layer of a memory chart (Tableau 10 colours).
struct LayerStyle {
  const char *name;
  const char *colour;
};
constexpr LayerStyle kLayerStyles[kNumMemoryLayers] = {
    {"parameter", "#4e79a7"}, {"input", "#76b7b2"},
    {"gradient", "#59a14f"},  {"activation", "#f28e2b"},
    {"temporary", "#e15759"}, {"workspace", "#9c755f"},
};

/// The plotting area of every chart, in SVG units.
constexpr double kWidth = 960, kHeight = 300;
constexpr double kLeft = 90, kRight = 24, kTop = 22, kBottom = 42;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;

std::string num(double value) { return llvm::formatv("{0:f1}", value).str(); }

/// Tick spacing for an axis from 0 to `max`: 1, 2 or 5 times a power of
/// `base` (1024 for bytes, 10 otherwise), at most about six ticks.
double tickStep(double max, double base) {
  if (!(max > 0))
    return 1;
  double unit = 1;
  while (unit * base <= max)
    unit *= base;
  while (unit > max && unit > 1e-12)
    unit /= 10;
  for (;;) {
    for (double factor : {1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0,
                          500.0})
      if (max / (unit * factor) <= 6)
        return unit * factor;
    unit *= 1000;
  }
}

std::string percentText(double fraction) {
  return llvm::formatv("+{0:f2}%", 100 * fraction).str();
}

/// Writes one memory chart; `yMax` is shared by the charts of one step so
/// that before and after compare at a glance.
void writeMemoryChart(const MemoryChart &chart, const HtmlStep &step,
                      llvm::StringRef caption, double yMax,
                      llvm::raw_ostream &os) {
  double lastOp = double(std::max<int64_t>(1, chart.ops - 1));
  auto x = [&](double op) { return kLeft + kPlotWidth * op / lastOp; };
  auto y = [&](double bytes) {
    return kTop + kPlotHeight * (1 - bytes / yMax);
  };
  os << "<svg class=\"memory-chart\" xmlns=\"http://www.w3.org/2000/svg\" "
        "viewBox=\"0 0 "
     << num(kWidth) << " " << num(kHeight) << "\" role=\"img\" data-peak-bytes=\""
     << chart.peakBytes << "\" data-budget-bytes=\"" << step.budgetBytes
     << "\">\n<title>" << escapeHtml(caption) << "</title>\n";
  // Axes and ticks.
  double step_ = tickStep(yMax, 1024);
  for (double tick = 0; tick <= yMax * 1.0001; tick += step_)
    os << "<line class=\"grid\" x1=\"" << num(kLeft) << "\" x2=\""
       << num(kLeft + kPlotWidth) << "\" y1=\"" << num(y(tick)) << "\" y2=\""
       << num(y(tick)) << "\"/><text class=\"tick\" x=\"" << num(kLeft - 6)
       << "\" y=\"" << num(y(tick) + 4) << "\" text-anchor=\"end\">"
       << formatBytes(static_cast<int64_t>(tick)) << "</text>\n";
  // Stacked layers, bottom to top.
  size_t n = chart.sampleOps.size();
  std::vector<double> below(n, 0), above(n, 0);
  for (size_t layer = 0; layer < kNumMemoryLayers; ++layer) {
    bool any = false;
    for (size_t s = 0; s < n; ++s) {
      above[s] = below[s] + double(chart.layers[s][layer]);
      any |= chart.layers[s][layer] != 0;
    }
    if (any) {
      os << "<polygon class=\"layer layer-" << kLayerStyles[layer].name
         << "\" fill=\"" << kLayerStyles[layer].colour << "\" points=\"";
      for (size_t s = 0; s < n; ++s)
        os << (s ? " " : "") << num(x(double(chart.sampleOps[s]))) << ","
           << num(y(above[s]));
      for (size_t s = n; s-- > 0;)
        os << " " << num(x(double(chart.sampleOps[s]))) << ","
           << num(y(below[s]));
      os << "\"><title>" << kLayerStyles[layer].name << "</title></polygon>\n";
    }
    below.swap(above);
  }
  // The backward pass starts here.
  if (chart.backwardStart > 0 && chart.backwardStart < chart.ops)
    os << "<line class=\"phase\" x1=\"" << num(x(double(chart.backwardStart)))
       << "\" x2=\"" << num(x(double(chart.backwardStart))) << "\" y1=\""
       << num(kTop) << "\" y2=\"" << num(kTop + kPlotHeight)
       << "\"/><text class=\"label\" x=\""
       << num(x(double(chart.backwardStart)) + 4) << "\" y=\""
       << num(kTop + 12) << "\">backward &#8594;</text>\n";
  // The budget line.
  if (step.budgetBytes >= 0)
    os << "<line class=\"budget\" x1=\"" << num(kLeft) << "\" x2=\""
       << num(kLeft + kPlotWidth) << "\" y1=\""
       << num(y(double(step.budgetBytes))) << "\" y2=\""
       << num(y(double(step.budgetBytes)))
       << "\"/><text class=\"budget-label\" x=\"" << num(kLeft + kPlotWidth)
       << "\" y=\"" << num(y(double(step.budgetBytes)) - 5)
       << "\" text-anchor=\"end\">budget " << escapeHtml(step.budgetText)
       << " = " << formatBytes(step.budgetBytes) << "</text>\n";
  // The peak.
  double peakX = x(double(std::max<int64_t>(0, chart.peakOp)));
  os << "<circle class=\"peak\" cx=\"" << num(peakX) << "\" cy=\""
     << num(y(double(chart.peakBytes))) << "\" r=\"4\"/><text class=\"label\" "
     << "x=\"" << num(std::min(peakX + 6, kLeft + kPlotWidth - 120))
     << "\" y=\"" << num(y(double(chart.peakBytes)) + 14) << "\">peak "
     << formatBytes(chart.peakBytes) << "</text>\n";
  os << "<text class=\"axis\" x=\"" << num(kLeft + kPlotWidth / 2) << "\" y=\""
     << num(kHeight - 8) << "\" text-anchor=\"middle\">op in schedule order (0-"
     << std::max<int64_t>(0, chart.ops - 1) << ")</text>\n</svg>\n";
}

void writeLegend(llvm::ArrayRef<const MemoryChart *> charts,
                 llvm::raw_ostream &os) {
  os << "<p class=\"legend\">";
  for (size_t layer = 0; layer < kNumMemoryLayers; ++layer) {
    bool any = false;
    for (const MemoryChart *chart : charts)
      for (const auto &sample : chart->layers)
        any |= sample[layer] != 0;
    if (any)
      os << "<span><i style=\"background:" << kLayerStyles[layer].colour
         << "\"></i>" << kLayerStyles[layer].name << "</span>";
  }
  os << "<span><i class=\"budget-key\"></i>budget</span></p>\n";
}

void writeFrontierChart(const Frontier &frontier, const HtmlStep &step,
                        llvm::raw_ostream &os) {
  double reference = double(std::max<int64_t>(1, frontier.noRecomputePeak));
  std::optional<double> chosenX;
  if (step.after && step.budgetBytes >= 0)
    chosenX = double(step.budgetBytes) / reference;
  double xMin = double(frontier.floor) / reference, xMax = 1;
  if (chosenX)
    xMin = std::min(xMin, *chosenX), xMax = std::max(xMax, *chosenX);
  xMin = std::floor(xMin * 20) / 20;
  if (xMax - xMin < 0.05)
    xMin = xMax - 0.05;
  double yMax = 0.01;
  for (const ParetoPoint &point : frontier.points) {
    if (point.found)
      yMax = std::max(yMax, point.overhead);
    if (std::isfinite(point.boundOverhead))
      yMax = std::max(yMax, point.boundOverhead);
  }
  if (chosenX)
    yMax = std::max(yMax, step.overhead);
  yMax *= 1.1;
  auto x = [&](double f) {
    return kLeft + kPlotWidth * (f - xMin) / (xMax - xMin);
  };
  auto y = [&](double o) { return kTop + kPlotHeight * (1 - o / yMax); };
  os << "<svg class=\"frontier-chart\" xmlns=\"http://www.w3.org/2000/svg\" "
        "viewBox=\"0 0 "
     << num(kWidth) << " " << num(kHeight)
     << "\" role=\"img\">\n<title>budget -> overhead frontier of @"
     << escapeHtml(frontier.name) << "</title>\n";
  double yStep = tickStep(yMax * 100, 10) / 100;
  for (double tick = 0; tick <= yMax * 1.0001; tick += yStep)
    os << "<line class=\"grid\" x1=\"" << num(kLeft) << "\" x2=\""
       << num(kLeft + kPlotWidth) << "\" y1=\"" << num(y(tick)) << "\" y2=\""
       << num(y(tick)) << "\"/><text class=\"tick\" x=\"" << num(kLeft - 6)
       << "\" y=\"" << num(y(tick) + 4) << "\" text-anchor=\"end\">"
       << percentText(tick) << "</text>\n";
  double xStep = tickStep(xMax - xMin, 10);
  for (double tick = std::ceil(xMin / xStep - 1e-9) * xStep;
       tick <= xMax + 1e-9; tick += xStep)
    os << "<text class=\"tick\" x=\"" << num(x(tick)) << "\" y=\""
       << num(kTop + kPlotHeight + 16) << "\" text-anchor=\"middle\">"
       << llvm::formatv("{0:f2}x", tick) << "</text>\n";
  // Lower bounds, then the plans found, both from the largest budget down.
  std::string bounds, plans;
  for (const ParetoPoint &point : frontier.points) {
    if (std::isfinite(point.boundOverhead))
      bounds += (bounds.empty() ? "" : " ") + num(x(point.fraction)) + "," +
                num(y(std::max(0.0, point.boundOverhead)));
    if (point.found)
      plans += (plans.empty() ? "" : " ") + num(x(point.fraction)) + "," +
               num(y(point.overhead));
  }
  if (!bounds.empty())
    os << "<polyline class=\"frontier-bound\" points=\"" << bounds
       << "\"><title>proven lower bound</title></polyline>\n";
  if (!plans.empty())
    os << "<polyline class=\"frontier-line\" points=\"" << plans << "\"/>\n";
  for (const ParetoPoint &point : frontier.points)
    if (point.found)
      os << "<circle class=\"frontier-point\" cx=\"" << num(x(point.fraction))
         << "\" cy=\"" << num(y(point.overhead)) << "\" r=\"3.5\"><title>"
         << formatBytes(point.budget) << " ("
         << llvm::formatv("{0:f3}x", point.fraction)
         << "): " << percentText(point.overhead) << ", "
         << escapeHtml(remat::engineName(point.engine))
         << "</title></circle>\n";
  if (chosenX)
    os << "<circle class=\"chosen-plan\" cx=\"" << num(x(*chosenX))
       << "\" cy=\"" << num(y(step.overhead)) << "\" r=\"7\"><title>this plan: "
       << escapeHtml(step.budgetText) << ", " << percentText(step.overhead)
       << "</title></circle><text class=\"label\" x=\""
       << num(x(*chosenX) + 10) << "\" y=\"" << num(y(step.overhead) - 8)
       << "\">this plan</text>\n";
  os << "<text class=\"axis\" x=\"" << num(kLeft + kPlotWidth / 2) << "\" y=\""
     << num(kHeight - 8)
     << "\" text-anchor=\"middle\">budget (fraction of the no-recompute peak, "
     << formatBytes(frontier.noRecomputePeak) << ")</text>\n</svg>\n";
}

void writeFrontierTable(const Frontier &frontier, llvm::raw_ostream &os) {
  os << "<table class=\"frontier\"><tr><th>budget</th><th>fraction</th>"
        "<th>plan peak</th><th>overhead</th><th>proven bound</th>"
        "<th>engine</th></tr>\n";
  for (const ParetoPoint &point : frontier.points)
    os << "<tr><td>" << formatBytes(point.budget) << "</td><td>"
       << llvm::formatv("{0:f3}x", point.fraction) << "</td><td>"
       << (point.found ? formatBytes(point.peak) : "-") << "</td><td>"
       << (point.found ? percentText(point.overhead) : "-") << "</td><td>"
       << (std::isfinite(point.boundOverhead) ? percentText(point.boundOverhead)
                                              : "infeasible")
       << "</td><td>"
       << (point.found ? escapeHtml(remat::engineName(point.engine))
                       : "no plan")
       << "</td></tr>\n";
  os << "</table>\n";
}

void writeRecomputedTable(const HtmlStep &step, llvm::raw_ostream &os) {
  if (step.recomputed.empty()) {
    os << "<p>The plan recomputes nothing.</p>\n";
    return;
  }
  os << "<table class=\"decisions\"><tr><th>module scope</th>"
        "<th>recomputed ops</th><th>bytes</th><th>by op</th></tr>\n";
  for (const RecomputedScope &group : step.recomputed) {
    os << "<tr><td>"
       << (group.scope.empty() ? "(no scope)" : escapeHtml(group.scope))
       << "</td><td>" << group.ops << "</td><td>" << formatBytes(group.bytes)
       << "</td><td>";
    for (auto [k, op] : llvm::enumerate(group.opBytes))
      os << (k ? ", " : "") << escapeHtml(op.first) << " "
         << formatBytes(op.second);
    os << "</td></tr>\n";
  }
  os << "</table>\n";
}

void writeStep(const HtmlStep &step, llvm::raw_ostream &os) {
  os << "<section class=\"step\" id=\"step-" << escapeHtml(step.name)
     << "\">\n<h2>@" << escapeHtml(step.name) << "</h2>\n";
  os << "<p>Memory counted in budget-scope <b>"
     << stringifyBudgetScope(step.scope) << "</b>"
     << (step.scope == BudgetScope::Activations
             ? " (saved activations, backward temporaries and op workspace; "
               "no parameters, inputs or parameter gradients)"
             : " (everything the step holds)")
     << ".</p>\n";
  if (!step.summary.empty())
    os << "<pre class=\"summary\">" << escapeHtml(step.summary) << "</pre>\n";

  std::vector<const MemoryChart *> charts;
  double yMax = double(std::max<int64_t>(1, step.budgetBytes));
  for (const auto *chart : {&step.before, &step.after})
    if (*chart) {
      charts.push_back(&**chart);
      yMax = std::max(yMax, double((*chart)->peakBytes));
    }
  yMax *= 1.08;
  os << "<h3>Memory over the step</h3>\n";
  writeLegend(charts, os);
  if (step.before)
    writeMemoryChart(*step.before, step,
                     step.after ? "before the plan: no recomputation"
                                : "the step as given",
                     yMax, os);
  if (step.before && step.after)
    os << "<p class=\"caption\">Before: no recomputation, peak "
       << formatBytes(step.before->peakBytes) << ".</p>\n";
  if (step.after) {
    writeMemoryChart(*step.after, step,
                     step.before ? "after the plan"
                                 : "the step as given, with its plan",
                     yMax, os);
    os << "<p class=\"caption\">"
       << (step.before ? "After the plan" : "The step as given (planned)")
       << ": peak " << formatBytes(step.after->peakBytes);
    if (!step.objective.empty())
      os << ", predicted overhead " << percentText(step.overhead) << " ("
         << escapeHtml(step.objective) << ")";
    os << ".</p>\n";
  }
  if (!step.before && !step.after)
    os << "<p>No timeline.</p>\n";

  if (step.frontier) {
    os << "<h3>Budget and overhead</h3>\n";
    writeFrontierChart(*step.frontier, step, os);
    os << "<p class=\"caption\">Each point is the cheapest plan found whose "
          "peak fits that budget; the dashed line is a proven lower bound on "
          "the overhead of every plan; the memory floor is "
       << formatBytes(step.frontier->floor) << ".</p>\n";
    writeFrontierTable(*step.frontier, os);
  }
  if (step.after) {
    os << "<h3>What the plan recomputes</h3>\n";
    writeRecomputedTable(step, os);
  }
  os << "</section>\n";
}

constexpr const char *kStyle = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px auto; max-width: 1000px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; }
h3 { font-size: 15px; margin-top: 20px; }
svg { width: 100%; height: auto; background: #fff; border: 1px solid #ddd; }
.grid { stroke: #e6e6e6; stroke-width: 1; }
.tick, .axis, .label, .budget-label { font-size: 12px; fill: #333; }
.budget-label { fill: #c00; font-weight: bold; }
.budget { stroke: #c00; stroke-width: 2; stroke-dasharray: 8 4; }
.phase { stroke: #555; stroke-width: 1; stroke-dasharray: 2 3; }
.peak { fill: #000; }
.layer { stroke: none; opacity: 0.9; }
.frontier-line { fill: none; stroke: #4e79a7; stroke-width: 2; }
.frontier-bound { fill: none; stroke: #888; stroke-width: 1.5; stroke-dasharray: 5 4; }
.frontier-point { fill: #4e79a7; }
.chosen-plan { fill: none; stroke: #c00; stroke-width: 3; }
.legend span { margin-right: 14px; white-space: nowrap; }
.legend i { display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: -1px; }
.legend i.budget-key { height: 0; border-top: 2px dashed #c00; vertical-align: 3px; width: 18px; }
table { border-collapse: collapse; margin: 8px 0; }
td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
pre.summary { background: #f6f6f6; padding: 8px; white-space: pre-wrap; }
.caption { color: #555; margin-top: 2px; }
)css";

} // namespace

std::string mlir::ckpt::escapeHtml(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

MemoryChart mlir::ckpt::buildMemoryChart(const MemoryTimeline &timeline,
                                         BudgetScope scope,
                                         size_t maxSamples) {
  MemoryChart chart;
  size_t ops = timeline.ops.size();
  chart.ops = static_cast<int64_t>(ops);
  chart.backwardStart = timeline.backwardStart;
  ScopedPeak peak = computeScopedPeak(timeline, scope);
  chart.peakBytes = peak.bytes;
  chart.peakOp = peak.op;
  maxSamples = std::max<size_t>(1, maxSamples);
  size_t buckets = std::min(ops, maxSamples);
  for (size_t b = 0; b < buckets; ++b) {
    size_t lo = ops * b / buckets, hi = ops * (b + 1) / buckets;
    size_t best = lo;
    for (size_t i = lo; i < hi; ++i)
      if (liveInScope(timeline, i, scope) > liveInScope(timeline, best, scope))
        best = i;
    std::array<int64_t, kNumMemoryLayers> layers{};
    for (size_t kind = 0; kind < kNumBufferKinds; ++kind)
      if (countsInScope(static_cast<BufferKind>(kind), scope))
        layers[kind] = timeline.liveDuringByKind[best][kind];
    layers[kNumBufferKinds] =
        timeline.workspace[best] +
        (scope == BudgetScope::Step ? timeline.deviceWorkspace : 0);
    chart.sampleOps.push_back(static_cast<int64_t>(best));
    chart.layers.push_back(layers);
  }
  return chart;
}

void mlir::ckpt::writeHtmlReport(llvm::ArrayRef<HtmlStep> steps,
                                 llvm::raw_ostream &os) {
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"
        "\n<title>ckpt-opt report</title>\n<style>"
     << kStyle << "</style>\n</head>\n<body>\n<h1>ckpt-opt: checkpoint plan "
                  "report</h1>\n";
  for (const HtmlStep &step : steps)
    writeStep(step, os);
  if (steps.empty())
    os << "<p>The input has no step function.</p>\n";
  os << "</body>\n</html>\n";
}
