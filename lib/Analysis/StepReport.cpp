//===- StepReport.cpp - What a training step costs, for humans ------------===//

#include "ckpt/Analysis/StepReport.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/TrainingStep.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::ckpt;

//===----------------------------------------------------------------------===//
// Formatting
//===----------------------------------------------------------------------===//

std::string mlir::ckpt::formatBytes(int64_t bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024)
    return llvm::formatv("{0} B", bytes).str();
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return llvm::formatv("{0:f2} {1}", value, units[unit]).str();
}

std::string mlir::ckpt::formatFlops(int64_t flops) {
  static const char *units[] = {"FLOP",  "KFLOP", "MFLOP", "GFLOP",
                                "TFLOP", "PFLOP", "EFLOP"};
  double value = static_cast<double>(flops);
  size_t unit = 0;
  while (value >= 1000 && unit + 1 < std::size(units)) {
    value /= 1000;
    ++unit;
  }
  if (unit == 0)
    return llvm::formatv("{0} FLOP", flops).str();
  return llvm::formatv("{0:f2} {1}", value, units[unit]).str();
}

std::string mlir::ckpt::formatSeconds(double seconds) {
  if (seconds < 1e-6)
    return llvm::formatv("{0:f2} ns", seconds * 1e9).str();
  if (seconds < 1e-3)
    return llvm::formatv("{0:f1} us", seconds * 1e6).str();
  if (seconds < 1)
    return llvm::formatv("{0:f2} ms", seconds * 1e3).str();
  return llvm::formatv("{0:f2} s", seconds).str();
}

std::string mlir::ckpt::formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

std::string mlir::ckpt::sparkline(ArrayRef<int64_t> values) {
  static const char *levels[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                 "\u2585", "\u2586", "\u2587", "\u2588"};
  if (values.empty())
    return "";
  int64_t lo = *llvm::min_element(values), hi = *llvm::max_element(values);
  std::string line;
  for (int64_t value : values) {
    size_t level =
        hi == lo ? 0
                 : static_cast<size_t>(static_cast<double>(value - lo) * 7.999 /
                                       static_cast<double>(hi - lo));
    line += levels[std::min<size_t>(level, 7)];
  }
  return line;
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

/// Returns `file:line:col` of the first file location inside `loc`, prefixed
/// by the first name (the module scope) as `scope @ file:line:col`.
static std::string describeLocation(Location loc) {
  std::string name, file;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner); named && name.empty())
      name = named.getName().str();
    if (auto fileLoc = dyn_cast<FileLineColLoc>(inner); fileLoc && file.empty())
      file = llvm::formatv("{0}:{1}:{2}", fileLoc.getFilename().getValue(),
                           fileLoc.getLine(), fileLoc.getColumn())
                 .str();
    return WalkResult::advance();
  });
  if (name.empty())
    return file.empty() ? "unknown" : file;
  return file.empty() ? name : name + " @ " + file;
}

static std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

ReportedBuffer mlir::ckpt::describeReportedBuffer(const Buffer &buffer) {
  ReportedBuffer result;
  result.bytes = buffer.bytes;
  result.type = typeString(buffer.value.getType());
  if (Operation *def = buffer.value.getDefiningOp()) {
    result.op = def->getName().getStringRef().str();
    result.location = describeLocation(def->getLoc());
  } else {
    result.op = "argument";
    result.location =
        describeLocation(cast<BlockArgument>(buffer.value).getLoc());
  }
  return result;
}

/// The op at index `op` of `t` as a report names it ("entry" for -1).
static ReportedBuffer describeOpAt(const MemoryTimeline &t, int64_t op) {
  ReportedBuffer result;
  if (op < 0) {
    result.op = "entry";
    return result;
  }
  result.op = t.ops[op]->getName().getStringRef().str();
  result.location = describeLocation(t.ops[op]->getLoc());
  return result;
}

StepReport mlir::ckpt::buildStepReport(func::FuncOp func,
                                       const MemoryTimeline &t,
                                       const CostModel &model,
                                       BudgetScope scope) {
  StepReport report;
  report.function = func.getSymName().str();
  report.costModel = model.describe();
  for (Operation *op : t.ops) {
    std::optional<Phase> phase = getOpPhase(op);
    // Copies are no kernels: the offload summary states them.
    if (!phase || isa<OffloadOp, OffloadWaitOp, PrefetchOp>(op))
      continue;
    PhaseSummary &summary = report.phases[static_cast<size_t>(*phase)];
    OpCost cost = cast<CostOpInterface>(op).getCost();
    ++summary.ops;
    summary.flops = addSat(summary.flops, cost.flops);
    summary.bytesMoved =
        addSat(summary.bytesMoved, addSat(cost.bytesRead, cost.bytesWritten));
    summary.seconds += model.estimateSeconds(op);
  }
  for (const Buffer &buffer : t.buffers) {
    if (buffer.kind == BufferKind::Parameter)
      report.parameterBytes = addSat(report.parameterBytes, buffer.bytes);
    else if (buffer.kind == BufferKind::Input)
      report.inputBytes = addSat(report.inputBytes, buffer.bytes);
    else if (buffer.kind == BufferKind::Gradient)
      report.gradientBytes = addSat(report.gradientBytes, buffer.bytes);
  }
  report.savedActivationBytes = t.savedBytes;
  report.numSavedActivations = t.savedActivations.size();
  report.peakBytes = t.peakBytes;
  report.peakOpIndex = t.peakOp;
  report.peakOp = describeOpAt(t, t.peakOp);
  ScopedPeak scoped = computeScopedPeak(t, scope);
  report.scope = scope;
  report.scopePeakBytes = scoped.bytes;
  report.scopePeakOpIndex = scoped.op;
  report.scopePeakOp = describeOpAt(t, scoped.op);
  if (t.peakOp >= 0) {
    report.peakByKind = t.liveDuringByKind[t.peakOp];
    report.peakWorkspace = t.workspace[t.peakOp];
  } else {
    for (const Buffer &buffer : t.buffers)
      if (buffer.def < 0)
        report.peakByKind[static_cast<size_t>(buffer.kind)] += buffer.bytes;
  }

  // Largest saved activations; ties keep program order.
  std::vector<size_t> saved = t.savedActivations;
  std::stable_sort(saved.begin(), saved.end(), [&](size_t a, size_t b) {
    return t.buffers[a].bytes > t.buffers[b].bytes;
  });
  for (size_t index : ArrayRef<size_t>(saved).take_front(10))
    report.largestSaved.push_back(describeReportedBuffer(t.buffers[index]));

  // The memory plan's figures, when ckpt-plan-memory ran.
  auto arena = func->getAttrOfType<IntegerAttr>(
      CkptDialect::getArenaSizeAttrName());
  auto bound = func->getAttrOfType<IntegerAttr>(
      CkptDialect::getArenaLowerBoundAttrName());
  if (arena && bound) {
    report.arenaBytes = arena.getInt();
    report.arenaLowerBound = bound.getInt();
  }
  // The budget it was planned under, when placement recorded one.
  report.budget = getBudget(func);
  report.offload = summarizeOffload(func, t, model);

  // Timeline downsampled to at most 64 points.
  size_t n = t.liveDuring.size(), points = std::min<size_t>(n, 64);
  for (size_t p = 0; p < points; ++p) {
    size_t begin = p * n / points, end = (p + 1) * n / points;
    int64_t peak = 0;
    for (size_t i = begin; i < end; ++i)
      peak = std::max(peak, t.liveDuring[i]);
    report.timeline.push_back(peak);
  }
  return report;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static const char *kPhaseNames[] = {"forward", "backward", "optimizer"};

/// The arena over its lower bound (1 for an empty arena).
static double arenaRatio(const StepReport &r) {
  return r.arenaLowerBound > 0 ? static_cast<double>(r.arenaBytes) /
                                     static_cast<double>(r.arenaLowerBound)
                               : 1.0;
}

void mlir::ckpt::printStepReportText(const StepReport &r,
                                     llvm::raw_ostream &os) {
  os << "== ckpt report: @" << r.function << "\n";
  os << "cost model: " << r.costModel << "\n\n";
  os << llvm::formatv("{0,-10} {1,6} {2,14} {3,14} {4,12}\n", "phase", "ops",
                      "flops", "bytes moved", "est. time");
  PhaseSummary total;
  for (size_t i = 0; i < r.phases.size(); ++i) {
    const PhaseSummary &p = r.phases[i];
    if (p.ops == 0 && i == 2)
      continue;
    os << llvm::formatv("{0,-10} {1,6} {2,14} {3,14} {4,12}\n", kPhaseNames[i],
                        p.ops, formatFlops(p.flops), formatBytes(p.bytesMoved),
                        formatSeconds(p.seconds));
    total.ops += p.ops;
    total.flops = addSat(total.flops, p.flops);
    total.bytesMoved = addSat(total.bytesMoved, p.bytesMoved);
    total.seconds += p.seconds;
  }
  os << llvm::formatv("{0,-10} {1,6} {2,14} {3,14} {4,12}\n\n", "total",
                      total.ops, formatFlops(total.flops),
                      formatBytes(total.bytesMoved),
                      formatSeconds(total.seconds));
  os << llvm::formatv("{0,-20} {1}\n", "parameters",
                      formatBytes(r.parameterBytes));
  os << llvm::formatv("{0,-20} {1}\n", "gradients",
                      formatBytes(r.gradientBytes));
  os << llvm::formatv("{0,-20} {1}\n", "inputs", formatBytes(r.inputBytes));
  os << llvm::formatv("{0,-20} {1} in {2} buffers\n", "saved activations",
                      formatBytes(r.savedActivationBytes),
                      r.numSavedActivations);
  os << llvm::formatv("{0,-20} {1}", "peak memory", formatBytes(r.peakBytes));
  if (r.peakOpIndex >= 0)
    os << llvm::formatv(" during op #{0} {1} at {2}", r.peakOpIndex,
                        r.peakOp.op, r.peakOp.location);
  else
    os << " at entry";
  os << "\n";
  os << llvm::formatv("{0,-20}", "  at the peak");
  for (size_t k = 0; k < kNumBufferKinds; ++k)
    os << " " << stringifyBufferKind(static_cast<BufferKind>(k)) << " "
       << formatBytes(r.peakByKind[k]) << ",";
  os << " workspace " << formatBytes(r.peakWorkspace) << "\n";
  os << llvm::formatv("{0,-20} {1}: peak {2} ({3} bytes)", "budget scope",
                      stringifyBudgetScope(r.scope),
                      formatBytes(r.scopePeakBytes), r.scopePeakBytes);
  if (r.scopePeakOpIndex >= 0)
    os << llvm::formatv(" during op #{0} {1} at {2}", r.scopePeakOpIndex,
                        r.scopePeakOp.op, r.scopePeakOp.location);
  else
    os << " at entry";
  os << (r.scope == BudgetScope::Step
             ? " (everything the step holds)"
             : " (activations, temporaries and workspace; no parameters, "
               "inputs or gradients)")
     << "\n";
  if (r.budget) {
    os << llvm::formatv("{0,-20} {1} = {2} ({3} bytes) in budget-scope={4}",
                        "planned budget", r.budget->requested,
                        formatBytes(r.budget->bytes), r.budget->bytes,
                        stringifyBudgetScope(r.budget->scope));
    if (r.budget->target)
      os << llvm::formatv(", target {0} ({1} bytes)",
                          formatBytes(*r.budget->target), *r.budget->target);
    os << "\n";
  }
  if (r.hasArena())
    os << llvm::formatv("{0,-20} {1} ({2} bytes), lower bound {3} ({4} "
                        "bytes), ratio {5:f4}\n",
                        "planned arena", formatBytes(r.arenaBytes),
                        r.arenaBytes, formatBytes(r.arenaLowerBound),
                        r.arenaLowerBound, arenaRatio(r));
  if (!r.timeline.empty())
    os << llvm::formatv("{0,-20} {1}  ({2} .. {3})\n", "memory timeline",
                        sparkline(r.timeline),
                        formatBytes(*llvm::min_element(r.timeline)),
                        formatBytes(*llvm::max_element(r.timeline)));
  if (const std::optional<OffloadSummary> &o = r.offload) {
    os << llvm::formatv("{0,-20} {1} values", "offload", o->offloads);
    if (!o->link.empty())
      os << " over " << o->link;
    os << llvm::formatv(": {0} to the host, {1} back in {2} prefetches, host "
                        "peak {3} ({4} bytes)\n",
                        formatBytes(o->bytesToHost),
                        formatBytes(o->bytesToDevice), o->prefetches,
                        formatBytes(o->hostPeakBytes), o->hostPeakBytes);
    if (o->predicted)
      os << llvm::formatv("{0,-20} {1} to the host, {2} back (beside "
                          "compute); exposed {3}\n",
                          "  copy time", formatSeconds(o->toHostSeconds),
                          formatSeconds(o->toDeviceSeconds),
                          formatSeconds(o->exposedSeconds));
  }
  if (!r.largestSaved.empty()) {
    os << "\nlargest saved activations:\n";
    for (const ReportedBuffer &b : r.largestSaved)
      os << llvm::formatv("  {0,12}  {1,-28} {2,-24} {3}\n",
                          formatBytes(b.bytes), b.type, b.op, b.location);
  }
  if (r.offload && !r.offload->largest.empty()) {
    os << "\nlargest offloaded values:\n";
    for (const ReportedBuffer &b : r.offload->largest)
      os << llvm::formatv("  {0,12}  {1,-28} {2,-24} {3}\n",
                          formatBytes(b.bytes), b.type, b.op, b.location);
  }
}

static llvm::json::Object bufferJson(const ReportedBuffer &b) {
  return llvm::json::Object{{"op", b.op},
                            {"location", b.location},
                            {"type", b.type},
                            {"bytes", b.bytes}};
}

void mlir::ckpt::printStepReportJson(const StepReport &r,
                                     llvm::raw_ostream &os) {
  llvm::json::Object phases;
  for (size_t i = 0; i < r.phases.size(); ++i)
    phases[kPhaseNames[i]] =
        llvm::json::Object{{"ops", r.phases[i].ops},
                           {"flops", r.phases[i].flops},
                           {"bytes_moved", r.phases[i].bytesMoved},
                           {"seconds", r.phases[i].seconds}};
  llvm::json::Object atPeak;
  for (size_t k = 0; k < kNumBufferKinds; ++k)
    atPeak[stringifyBufferKind(static_cast<BufferKind>(k))] = r.peakByKind[k];
  atPeak["workspace"] = r.peakWorkspace;
  llvm::json::Object peak{{"bytes", r.peakBytes},
                          {"op_index", r.peakOpIndex},
                          {"op", r.peakOp.op},
                          {"location", r.peakOp.location},
                          {"by_kind", std::move(atPeak)}};
  llvm::json::Object scopePeak{{"bytes", r.scopePeakBytes},
                               {"op_index", r.scopePeakOpIndex},
                               {"op", r.scopePeakOp.op},
                               {"location", r.scopePeakOp.location}};
  llvm::json::Array saved;
  for (const ReportedBuffer &b : r.largestSaved)
    saved.push_back(bufferJson(b));
  llvm::json::Array timeline;
  for (int64_t v : r.timeline)
    timeline.push_back(v);
  llvm::json::Object object{{"function", r.function},
                            {"cost_model", r.costModel},
                            {"phases", std::move(phases)},
                            {"parameter_bytes", r.parameterBytes},
                            {"gradient_bytes", r.gradientBytes},
                            {"input_bytes", r.inputBytes},
                            {"saved_activation_bytes", r.savedActivationBytes},
                            {"saved_activation_count", r.numSavedActivations},
                            {"peak", std::move(peak)},
                            {"budget_scope", stringifyBudgetScope(r.scope)},
                            {"scope_peak", std::move(scopePeak)},
                            {"largest_saved_activations", std::move(saved)},
                            {"timeline", std::move(timeline)}};
  if (r.budget)
    object["budget"] = budgetToJson(*r.budget);
  if (r.hasArena())
    object["arena"] = llvm::json::Object{{"bytes", r.arenaBytes},
                                         {"lower_bound", r.arenaLowerBound},
                                         {"ratio", arenaRatio(r)}};
  if (const std::optional<OffloadSummary> &o = r.offload) {
    llvm::json::Array values;
    for (const ReportedBuffer &b : o->largest)
      values.push_back(bufferJson(b));
    llvm::json::Object offload{{"link", o->link},
                               {"offloads", o->offloads},
                               {"prefetches", o->prefetches},
                               {"bytes_to_host", o->bytesToHost},
                               {"bytes_to_device", o->bytesToDevice},
                               {"host_peak_bytes", o->hostPeakBytes},
                               {"largest_offloaded_values", std::move(values)}};
    if (o->predicted) {
      offload["to_host_seconds"] = o->toHostSeconds;
      offload["to_device_seconds"] = o->toDeviceSeconds;
      offload["exposed_seconds"] = o->exposedSeconds;
    }
    object["offload"] = std::move(offload);
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(object))) << "\n";
}
