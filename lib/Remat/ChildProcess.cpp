//===- ChildProcess.cpp - Run work in a child killed at a deadline --------===//
//
// The child writes its result to a pipe and exits with _exit (no
// destructors, no atexit handlers of the parent's program); the parent reads
// the pipe while it waits, so a large result cannot block the child, and
// polls with the time left until the deadline.
//
//===----------------------------------------------------------------------===//

#include "ChildProcess.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#if defined(__unix__) || defined(__APPLE__)
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#define CKPT_HAVE_FORK 1
#endif
#ifdef __linux__
#include <sys/prctl.h>
#endif

using namespace mlir::ckpt::remat::detail;

bool mlir::ckpt::remat::detail::childProcessesAvailable() {
#ifdef CKPT_HAVE_FORK
  return true;
#else
  return false;
#endif
}

#ifdef CKPT_HAVE_FORK
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Writes all of `bytes` to `fd`; false on an error.
bool writeAll(int fd, const std::string &bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t wrote = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote <= 0)
      return false;
    done += static_cast<size_t>(wrote);
  }
  return true;
}

/// The body of the child: never returns.
[[noreturn]] void runChild(int fd, const std::function<std::string()> &work) {
  int code = writeAll(fd, work()) ? 0 : 3;
  std::fflush(nullptr);
  ::close(fd);
  ::_exit(code);
}

/// Describes a wait status that is not a normal exit with status 0.
std::string describeEnding(int status) {
  if (WIFSIGNALED(status)) {
    int signal = WTERMSIG(status);
    const char *name = ::strsignal(signal);
    return "killed by signal " + std::to_string(signal) +
           (name ? std::string(" (") + name + ")" : std::string());
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 3)
    return "could not write its result";
  return "exited with status " + std::to_string(code);
}

/// Waits for `pid`, retrying on EINTR; returns its wait status.
int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

} // namespace
#endif

ChildRun mlir::ckpt::remat::detail::runInChildProcess(
    double deadlineSeconds, const std::function<std::string()> &work,
    const ChildProgress &progress) {
  ChildRun run;
#ifndef CKPT_HAVE_FORK
  auto start = std::chrono::steady_clock::now();
  run.output = work();
  run.ending = ChildRun::Ending::Finished;
  run.seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  return run;
#else
  const Clock::time_point start = Clock::now();
  int fds[2];
  if (::pipe(fds) != 0) {
    run.failure = std::string("pipe: ") + std::strerror(errno);
    return run;
  }
  ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  ::fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  std::fflush(nullptr);
  [[maybe_unused]] const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    run.failure = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return run;
  }
  if (pid == 0) {
    ::close(fds[0]);
#ifdef __linux__
    // The child dies with its parent: a parent killed (SIGTERM, SIGINT,
    // SIGKILL) before the deadline must not leave a solver running on a
    // core until its own time limit. If the parent is already gone (it died
    // between fork and prctl), stop at once.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(4);
#endif
    runChild(fds[1], work);
  }
  ::close(fds[1]);
  bool killed = false;
  char buffer[1 << 16];
  double nextTick = progress.everySeconds;
  while (true) {
    double now = secondsSince(start);
    double left = deadlineSeconds - now;
    if (left <= 0) {
      killed = true;
      break;
    }
    if (progress.onTick && now >= nextTick) {
      progress.onTick(now);
      while (nextTick <= now)
        nextTick += progress.everySeconds;
    }
    double wait = left;
    if (progress.onTick)
      wait = std::min(wait, std::max(nextTick - now, 0.001));
    struct pollfd poller = {fds[0], POLLIN, 0};
    int waitMs = static_cast<int>(std::min(std::ceil(wait * 1000), 6e7));
    int ready = ::poll(&poller, 1, waitMs);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready < 0) {
      run.failure = std::string("poll: ") + std::strerror(errno);
      killed = true;
      break;
    }
    if (ready == 0)
      continue; // The loop head decides whether the deadline has passed
                // or progress is due.
    ssize_t got = ::read(fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break; // End of file: the child has finished writing (or died).
    run.output.append(buffer, static_cast<size_t>(got));
  }
  ::close(fds[0]);
  if (killed)
    ::kill(pid, SIGKILL);
  int status = reap(pid);
  run.seconds = secondsSince(start);
  if (killed) {
    run.output.clear();
    run.ending = run.failure.empty() ? ChildRun::Ending::Killed
                                     : ChildRun::Ending::Failed;
    return run;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    run.ending = ChildRun::Ending::Finished;
    return run;
  }
  run.output.clear();
  run.failure = describeEnding(status);
  return run;
#endif
}
