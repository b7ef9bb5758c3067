"""Starts ckpt-opt on a long exact solve, kills it while CBC's child process
runs, and checks that the child dies with it.

Usage: kill_during_solve.py SIGNAL CKPT-OPT ARGS...
Waits until ckpt-opt has a child process (the exact engine forks one per
solve), sends SIGNAL (TERM, INT or KILL) to ckpt-opt, waits for it, and then
gives the child 5 s to be gone. Prints "child gone after SIGnnn" or what is
wrong, and exits non-zero on a problem.
"""
import os
import signal
import subprocess
import sys
import time


def children(pid):
    """Process ids whose parent is `pid` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except OSError:
        return False


def main():
    sig = getattr(signal, "SIG" + sys.argv[1])
    # lit's workers ignore SIGINT, and an ignored signal stays ignored
    # across exec: give ckpt-opt the default dispositions a shell would.
    def default_signals():
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_DFL)
    proc = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=default_signals)
    deadline = time.monotonic() + 120
    kids = []
    while not kids and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        kids = children(proc.pid)
    if not kids:
        proc.kill()
        sys.exit("ckpt-opt started no child process (exit status %s)" % proc.poll())
    time.sleep(0.5)  # inside the solve
    proc.send_signal(sig)
    proc.wait(timeout=60)
    gone_by = time.monotonic() + 5
    while any(alive(k) for k in kids) and time.monotonic() < gone_by:
        time.sleep(0.05)
    left = [k for k in kids if alive(k)]
    if left:
        for k in left:
            os.kill(k, signal.SIGKILL)
        sys.exit("child process %s still running 5 s after ckpt-opt got SIG%s" % (left, sys.argv[1]))
    print("child gone after SIG%s" % sys.argv[1])


if __name__ == "__main__":
    main()
