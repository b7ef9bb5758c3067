//===- OffloadSchedule.h - Keep, recompute or offload: the semantics -*- C++
//-*-//
//
// A schedule that, beside computing nodes (recomputations included), copies
// a node's device buffer to host memory (offload) and back (prefetch), and
// `evaluateOffloadSchedule`, its reference semantics: the compute stream
// runs the computations in order; the copies run on their own streams, one
// per direction, overlapping compute; a reader waits for the prefetch it
// reads; an offloaded buffer stays on the device until its copy is done.
// Device peak, host peak, bytes moved and the compute stream's stalls are
// measured here, never taken from the solver that built the schedule.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_REMAT_OFFLOADSCHEDULE_H
#define CKPT_REMAT_OFFLOADSCHEDULE_H

#include "ckpt/Remat/RematProblem.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::ckpt::remat {

/// The host link as the offload model sees it. Node costs must be seconds
/// (the time objective) for copies and computations to share a clock.
struct CopyLink {
  /// Sustained bytes per second, host to device and device to host.
  double hostToDeviceBytesPerSecond = 0;
  double deviceToHostBytesPerSecond = 0;
  /// Fixed seconds added to every copy (issue overhead).
  double latencySeconds = 0;

  /// Seconds to copy `bytes` in one direction.
  double copySeconds(int64_t bytes, bool toDevice) const;
};

/// What one step of an offload schedule does.
enum class StepKind {
  /// Compute the node (first computation or recomputation).
  Compute,
  /// Copy the node's latest device buffer to a host buffer.
  Offload,
  /// Copy the node's host buffer into a new device buffer; later reads bind
  /// to it.
  Prefetch,
};

/// One step.
struct OffloadStep {
  StepKind kind = StepKind::Compute;
  int32_t node = 0;
};

/// A sequence of steps. Its Compute steps obey the rules of `Schedule`
/// (first computations in the problem's order, non-recomputable nodes
/// once, a projection right after its primary's computation); each node is
/// offloaded at most once, and prefetched only after its offload.
struct OffloadSchedule {
  std::vector<OffloadStep> steps;

  /// The schedule that runs `schedule`'s computations and copies nothing.
  static OffloadSchedule fromSchedule(const Schedule &schedule);
};

/// What an offload schedule costs.
struct OffloadEvaluation {
  /// Empty if the schedule is valid; otherwise why not ("step N: ...").
  std::string error;
  /// Peak device bytes: fixed bytes, the device buffers live while a step
  /// is issued, and a computation's workspace; the step where it first
  /// occurs (-1: none).
  int64_t devicePeakBytes = 0;
  int64_t peakStep = -1;
  /// Peak bytes of host buffers (an offload's buffer lives from its copy
  /// to its last prefetch).
  int64_t hostPeakBytes = 0;
  /// Sum of the costs of the computations (recomputations included).
  double computeSeconds = 0;
  /// `computeSeconds` minus the problem's base cost.
  double recomputeSeconds = 0;
  /// Seconds the compute stream waits for prefetches.
  double exposedCopySeconds = 0;
  /// When every stream is done: computations, stalls and any copy still
  /// running at the end.
  double totalSeconds = 0;
  /// The copies' own time each way (their sum; they overlap compute).
  double toHostSeconds = 0;
  double toDeviceSeconds = 0;
  /// Copies and bytes moved each way.
  int64_t offloads = 0;
  int64_t prefetches = 0;
  int64_t bytesToHost = 0;
  int64_t bytesToDevice = 0;
  /// Device bytes live while each step is issued (workspace included).
  std::vector<int64_t> liveBytes;
  /// When each step is issued on the compute stream's clock (a
  /// computation: when it starts, after any stall).
  std::vector<double> issueSeconds;
  /// For each Offload step, the last step issued before its copy ends (at
  /// least the offload step itself): the source's device buffer is held
  /// through it, and the compute stream waits for the copy right after it
  /// (`ckpt.offload_wait`), which by then costs no time. -1 for the other
  /// steps.
  std::vector<int64_t> copyHeldThrough;

  bool valid() const { return error.empty(); }
};

/// Evaluates `schedule` on `problem` with copies over `link`. Device
/// buffers: a computation's lives from its step through the last step that
/// reads it (an output's latest to the end); a prefetch's from its step;
/// an offloaded buffer at least through the last step issued before its
/// copy ends (the runtime frees it only after the copy's event).
OffloadEvaluation evaluateOffloadSchedule(const Problem &problem,
                                          const OffloadSchedule &schedule,
                                          const CopyLink &link);

} // namespace mlir::ckpt::remat

#endif // CKPT_REMAT_OFFLOADSCHEDULE_H
