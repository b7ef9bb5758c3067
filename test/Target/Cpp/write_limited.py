"""Runs a command whose writes fail past a file-size limit, as on a full disk:
RLIMIT_FSIZE set to the given bytes and SIGXFSZ ignored (both inherited
across exec), so write() fails with EFBIG instead of the process being
killed. Usage: write_limited.py bytes command [args...]"""

import os
import resource
import signal
import sys

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
os.execvp(sys.argv[2], sys.argv[2:])
