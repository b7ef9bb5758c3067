//===- OffloadSchedule.cpp - Reference semantics of offload schedules ----===//

#include "ckpt/Remat/OffloadSchedule.h"

#include <algorithm>
#include <limits>

using namespace mlir::ckpt::remat;

double CopyLink::copySeconds(int64_t bytes, bool toDevice) const {
  double rate =
      toDevice ? hostToDeviceBytesPerSecond : deviceToHostBytesPerSecond;
  return latencySeconds + double(bytes) / rate;
}

OffloadSchedule OffloadSchedule::fromSchedule(const Schedule &schedule) {
  OffloadSchedule result;
  result.steps.reserve(schedule.order.size());
  for (int32_t node : schedule.order)
    result.steps.push_back({StepKind::Compute, node});
  return result;
}

namespace {

/// One device buffer: a computation's output or a prefetch's copy.
struct DeviceBuffer {
  int32_t node = 0;
  int64_t bytes = 0;
  int64_t created = 0;
  /// The last step reading it (or offloading it); `created` when unread.
  int64_t lastRead = 0;
  /// When its contents exist (a computation's end, a prefetch's arrival).
  double ready = 0;
  /// When the copy offloading it ends (-inf: never offloaded).
  double offloadEnd = -std::numeric_limits<double>::infinity();
};

} // namespace

OffloadEvaluation
mlir::ckpt::remat::evaluateOffloadSchedule(const Problem &problem,
                                           const OffloadSchedule &schedule,
                                           const CopyLink &link) {
  OffloadEvaluation eval;
  const size_t n = problem.nodes.size();
  const std::vector<OffloadStep> &steps = schedule.steps;
  auto fail = [&](size_t step, const std::string &why) {
    eval.error = "step " + std::to_string(step) + ": " + why;
    return eval;
  };
  auto nodeName = [&](int32_t id) {
    return "node " + std::to_string(id) + " (" + problem.nodes[id].name + ")";
  };
  if (!(link.hostToDeviceBytesPerSecond > 0) ||
      !(link.deviceToHostBytesPerSecond > 0) || !(link.latencySeconds >= 0))
    return fail(0, "the link needs positive bandwidths and a latency >= 0");

  // Pass 1: the clock, the bindings of reads and the copies.
  std::vector<DeviceBuffer> buffers;
  std::vector<int64_t> latest(n, -1); // node -> its latest device buffer
  std::vector<int64_t> bufferOfStep(steps.size(), -1); // creating steps
  std::vector<int64_t> hostFrom(n, -1);                // node -> offload step
  std::vector<int64_t> hostUntil(n, -1); // node -> last prefetch step
  std::vector<double> hostReady(n, 0);
  std::vector<double> offloadEndOfStep(steps.size(), 0);
  double clock = 0, toHostFree = 0, toDeviceFree = 0;
  // A new device buffer of `node`, created by `step`, whose contents exist
  // from `ready`; later reads of `node` bind to it.
  auto createBuffer = [&](size_t step, int32_t node, double ready) {
    DeviceBuffer buffer;
    buffer.node = node;
    buffer.bytes = problem.nodes[node].bytes;
    buffer.created = buffer.lastRead = static_cast<int64_t>(step);
    buffer.ready = ready;
    latest[node] = bufferOfStep[step] = static_cast<int64_t>(buffers.size());
    buffers.push_back(buffer);
  };
  int32_t nextFirst = 0;
  int32_t lastComputed = -1; // node of the previous step if it computed
  eval.issueSeconds.reserve(steps.size());
  for (size_t step = 0; step < steps.size(); ++step) {
    const OffloadStep &s = steps[step];
    if (s.node < 0 || static_cast<size_t>(s.node) >= n)
      return fail(step, "node " + std::to_string(s.node) + " does not exist");
    const Node &node = problem.nodes[s.node];
    if (s.kind == StepKind::Compute && node.primary >= 0 &&
        !(lastComputed == node.primary ||
          (lastComputed >= 0 &&
           problem.nodes[lastComputed].primary == node.primary)))
      return fail(step, "projection " + nodeName(s.node) +
                            " does not follow a computation of its primary");
    int32_t computed = -1;
    switch (s.kind) {
    case StepKind::Compute: {
      if (s.node == nextFirst) {
        ++nextFirst;
      } else if (s.node > nextFirst) {
        return fail(step, "first computation of " + nodeName(s.node) +
                              " out of order; node " +
                              std::to_string(nextFirst) + " comes first");
      } else if (!node.recomputable) {
        return fail(step, nodeName(s.node) + " is not recomputable");
      }
      double start = clock;
      for (int32_t dep : node.deps) {
        if (latest[dep] < 0)
          return fail(step, nodeName(s.node) + " reads node " +
                                std::to_string(dep) +
                                ", which is not on the device");
        DeviceBuffer &read = buffers[latest[dep]];
        read.lastRead = static_cast<int64_t>(step);
        start = std::max(start, read.ready);
      }
      eval.exposedCopySeconds += start - clock;
      eval.issueSeconds.push_back(start);
      clock = start + node.cost;
      eval.computeSeconds += node.cost;
      createBuffer(step, s.node, clock);
      computed = s.node;
      break;
    }
    case StepKind::Offload: {
      if (latest[s.node] < 0)
        return fail(step, "offload of " + nodeName(s.node) +
                              ", which is not on the device");
      if (hostFrom[s.node] >= 0)
        return fail(step, nodeName(s.node) + " is offloaded twice");
      if (node.isOutput)
        return fail(step, "offload of " + nodeName(s.node) +
                              ", an output (it stays on the device)");
      eval.issueSeconds.push_back(clock);
      DeviceBuffer &source = buffers[latest[s.node]];
      source.lastRead = static_cast<int64_t>(step);
      double start = std::max({clock, toHostFree, source.ready});
      double seconds = link.copySeconds(node.bytes, /*toDevice=*/false);
      eval.toHostSeconds += seconds;
      toHostFree = start + seconds;
      source.offloadEnd = std::max(source.offloadEnd, toHostFree);
      hostReady[s.node] = toHostFree;
      offloadEndOfStep[step] = toHostFree;
      hostFrom[s.node] = hostUntil[s.node] = static_cast<int64_t>(step);
      ++eval.offloads;
      eval.bytesToHost += node.bytes;
      break;
    }
    case StepKind::Prefetch: {
      if (hostFrom[s.node] < 0)
        return fail(step, "prefetch of " + nodeName(s.node) +
                              ", which has not been offloaded");
      eval.issueSeconds.push_back(clock);
      double start = std::max({clock, toDeviceFree, hostReady[s.node]});
      double seconds = link.copySeconds(node.bytes, /*toDevice=*/true);
      eval.toDeviceSeconds += seconds;
      toDeviceFree = start + seconds;
      createBuffer(step, s.node, toDeviceFree);
      hostUntil[s.node] = static_cast<int64_t>(step);
      ++eval.prefetches;
      eval.bytesToDevice += node.bytes;
      break;
    }
    }
    lastComputed = computed;
  }
  if (static_cast<size_t>(nextFirst) != n)
    return fail(steps.size(), nodeName(nextFirst) + " is never computed");
  eval.recomputeSeconds = eval.computeSeconds - problem.baseCost();
  eval.totalSeconds = std::max({clock, toHostFree, toDeviceFree});

  // Pass 2: lifetimes on the device. An offloaded buffer lives through the
  // last step issued before its copy ends; an output's latest buffer to the
  // end.
  const int64_t end = static_cast<int64_t>(steps.size());
  // Steps issued strictly before a copy's end still see its source.
  auto lastIssuedBefore = [&](double seconds) -> int64_t {
    auto it = std::lower_bound(eval.issueSeconds.begin(),
                               eval.issueSeconds.end(), seconds);
    return (it - eval.issueSeconds.begin()) - 1;
  };
  eval.copyHeldThrough.assign(steps.size(), -1);
  for (size_t step = 0; step < steps.size(); ++step)
    if (steps[step].kind == StepKind::Offload)
      eval.copyHeldThrough[step] =
          std::max<int64_t>(step, lastIssuedBefore(offloadEndOfStep[step]));
  for (size_t id = 0; id < n; ++id)
    if (problem.nodes[id].isOutput)
      buffers[latest[id]].lastRead = end;
  std::vector<int64_t> freedAfter(steps.size() + 1, 0);
  for (DeviceBuffer &buffer : buffers) {
    int64_t until = buffer.lastRead;
    if (buffer.offloadEnd > -std::numeric_limits<double>::infinity()) {
      until = std::max(until, lastIssuedBefore(buffer.offloadEnd));
    }
    if (until < end)
      freedAfter[until] += buffer.bytes;
  }
  int64_t live = problem.fixedBytes;
  eval.devicePeakBytes = problem.fixedBytes;
  eval.liveBytes.reserve(steps.size());
  std::vector<int64_t> hostFreedAfter(steps.size() + 1, 0);
  for (size_t id = 0; id < n; ++id)
    if (hostFrom[id] >= 0)
      hostFreedAfter[hostUntil[id]] += problem.nodes[id].bytes;
  int64_t hostLive = 0;
  for (size_t step = 0; step < steps.size(); ++step) {
    const OffloadStep &s = steps[step];
    int64_t during = live;
    if (bufferOfStep[step] >= 0) {
      live += buffers[bufferOfStep[step]].bytes;
      during = live;
      if (s.kind == StepKind::Compute)
        during += problem.nodes[s.node].workspace;
    }
    if (s.kind == StepKind::Offload)
      hostLive += problem.nodes[s.node].bytes;
    eval.hostPeakBytes = std::max(eval.hostPeakBytes, hostLive);
    eval.liveBytes.push_back(during);
    if (during > eval.devicePeakBytes) {
      eval.devicePeakBytes = during;
      eval.peakStep = static_cast<int64_t>(step);
    }
    live -= freedAfter[step];
    hostLive -= hostFreedAfter[step];
  }
  return eval;
}
