//===- OffloadReport.cpp - What a step's copies to host memory do ---------===//
//
// The offload part of `ckpt-report`: the values a step placed with
// `offload=<link>` copies to host memory, the bytes each way and the host
// peak, and, for the link the placement recorded, the copies' time and the
// compute stream's waits for them, simulated on the IR's op order: compute
// ops one after another at the cost model's times; a `ckpt.offload` on the
// device-to-host stream once that stream is free; a `ckpt.prefetch` on the
// host-to-device stream once that stream is free and its copy out is done;
// the first reader of a prefetched value, and a `ckpt.offload_wait`, wait for
// their copy. The placement's offload model (remat::evaluateOffloadSchedule)
// predicts the same on its own problem; this reads only the IR.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/LinkProfile.h"
#include "ckpt/Analysis/StepReport.h"

#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"

using namespace mlir;
using namespace mlir::ckpt;

std::optional<OffloadSummary>
mlir::ckpt::summarizeOffload(func::FuncOp func, const MemoryTimeline &t,
                             const CostModel &model) {
  if (t.hostBuffers.empty())
    return std::nullopt;
  OffloadSummary summary;
  summary.hostPeakBytes = t.hostPeakBytes;
  if (auto link = func->getAttrOfType<StringAttr>(
          CkptDialect::getOffloadLinkAttrName()))
    summary.link = link.getValue().str();
  std::vector<ReportedBuffer> offloaded;
  for (Operation *op : t.ops) {
    if (auto offload = dyn_cast<OffloadOp>(op)) {
      ++summary.offloads;
      const Buffer &source = t.buffers[t.bufferOf.lookup(offload.getInput())];
      summary.bytesToHost = addSat(summary.bytesToHost, source.bytes);
      offloaded.push_back(describeReportedBuffer(source));
    } else if (auto prefetch = dyn_cast<PrefetchOp>(op)) {
      ++summary.prefetches;
      summary.bytesToDevice =
          addSat(summary.bytesToDevice,
                 getTensorBytes(prefetch.getResult().getType()));
    }
  }
  std::stable_sort(offloaded.begin(), offloaded.end(),
                   [](const ReportedBuffer &a, const ReportedBuffer &b) {
                     return a.bytes > b.bytes;
                   });
  offloaded.resize(std::min<size_t>(offloaded.size(), 10));
  summary.largest = std::move(offloaded);

  std::optional<LinkProfile> link = getBuiltinLink(summary.link);
  if (!link)
    return summary;
  // The simulation: when each copy out ends (per host value), when each
  // prefetched device buffer is there (per timeline buffer).
  summary.predicted = true;
  double clock = 0, toHostFree = 0, toDeviceFree = 0;
  llvm::DenseMap<Value, double> copiedOut;
  llvm::DenseMap<size_t, double> arrives;
  for (Operation *op : t.ops) {
    if (auto offload = dyn_cast<OffloadOp>(op)) {
      int64_t bytes = getTensorBytes(offload.getType());
      double seconds = link->link.copySeconds(bytes, /*toDevice=*/false);
      toHostFree = std::max(clock, toHostFree) + seconds;
      summary.toHostSeconds += seconds;
      copiedOut[offload.getResult()] = toHostFree;
      continue;
    }
    if (auto prefetch = dyn_cast<PrefetchOp>(op)) {
      int64_t bytes = getTensorBytes(prefetch.getType());
      double seconds = link->link.copySeconds(bytes, /*toDevice=*/true);
      toDeviceFree = std::max({clock, toDeviceFree,
                               copiedOut.lookup(prefetch.getHost())}) +
                     seconds;
      summary.toDeviceSeconds += seconds;
      arrives[t.bufferOf.lookup(prefetch.getResult())] = toDeviceFree;
      continue;
    }
    double start = clock;
    if (auto wait = dyn_cast<OffloadWaitOp>(op)) {
      start = std::max(start, copiedOut.lookup(wait.getHost()));
    } else {
      for (Value operand : op->getOperands()) {
        auto it = arrives.find(t.bufferOf.lookup(operand));
        if (it != arrives.end())
          start = std::max(start, it->second);
      }
    }
    summary.exposedSeconds += start - clock;
    clock = start + model.estimateSeconds(op);
  }
  return summary;
}
