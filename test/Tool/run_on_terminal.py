"""Runs a command with its stderr on a pseudo-terminal (as a user at a
terminal sees it) and its stdout discarded, then prints what the terminal
showed, with carriage returns dropped, and the exit status.
Usage: run_on_terminal.py command [args...]"""

import os
import pty
import subprocess
import sys


def main():
    leader, follower = pty.openpty()
    process = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the command closed the terminal's other end
            break
        if not chunk:
            break
        shown += chunk
    status = process.wait()
    os.close(leader)
    sys.stdout.write(shown.decode("utf-8", "replace").replace("\r", ""))
    print(f"exit status {status}")


if __name__ == "__main__":
    main()
