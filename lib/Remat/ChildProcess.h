//===- ChildProcess.h - Run work in a child killed at a deadline -*- C++ -*-===//
//
// Internal to CkptRemat: runs a computation in a forked child process and
// hands back the bytes it returns, killing the child if it is still running
// at a deadline. The exact MILP engine uses it so that CBC, which checks its
// own time limit only between steps of its search (its root heuristics have
// run minutes past a 60 s limit on a 250-node graph), cannot overrun the
// caller's limit; a crash inside CBC then ends the child, not the caller.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_LIB_REMAT_CHILDPROCESS_H
#define CKPT_LIB_REMAT_CHILDPROCESS_H

#include <functional>
#include <string>

namespace mlir::ckpt::remat::detail {

/// How a `runInChildProcess` call ended.
struct ChildRun {
  enum class Ending {
    /// The child returned `output` and exited normally.
    Finished,
    /// The deadline passed first; the child was killed.
    Killed,
    /// The child could not be started, or ended without finishing (a crash,
    /// a signal from elsewhere, e.g. the kernel's out-of-memory killer).
    Failed,
  };
  Ending ending = Ending::Failed;
  /// What `work` returned (Finished only).
  std::string output;
  /// Why the run failed (Failed only), e.g. "killed by signal 9 (Killed)".
  std::string failure;
  /// Wall-clock seconds from the start until the child ended or was killed.
  double seconds = 0;
};

/// Whether `runInChildProcess` can isolate work on this platform (POSIX
/// fork); where it cannot, it runs `work` in this process.
bool childProcessesAvailable();

/// Progress while a child runs: `onTick` is called with the seconds since
/// the start about every `everySeconds` (from the waiting parent; never when
/// `onTick` is empty or fork is unavailable).
struct ChildProgress {
  std::function<void(double elapsedSeconds)> onTick;
  double everySeconds = 5;
};

/// Runs `work` in a forked child process and returns what it returned. The
/// child is killed with SIGKILL if it has not finished `deadlineSeconds`
/// after the start. The child sees a copy of this process's memory; nothing
/// it changes reaches the caller except the returned bytes. Buffered C stdio
/// output is flushed before the fork and again when the child finishes, so
/// a child's log appears once.
///
/// Where fork is unavailable, `work` runs in this process without a
/// deadline and the result says Finished.
ChildRun runInChildProcess(double deadlineSeconds,
                           const std::function<std::string()> &work,
                           const ChildProgress &progress = {});

} // namespace mlir::ckpt::remat::detail

#endif // CKPT_LIB_REMAT_CHILDPROCESS_H
