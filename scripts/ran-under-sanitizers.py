#!/usr/bin/env python3
"""Prints a lit --filter-out expression for the lit tests the sanitized run ran.

Usage: ran-under-sanitizers.py RESULTS.json

RESULTS.json is the file lit writes with `-o` (scripts/sanitize.sh with
CKPT_SANITIZE_RESULTS set). A test the sanitized run ran -- passed or not --
need not run again in the normal build (scripts/check.sh); one it left out
(test/sanitizer-skip.txt, test/sanitizer-covered.txt) or found unsupported
(the CUDA tests: that build has no device runtime) still must. Only the main
suite's tests ("CKPT :: <path>") are named: GoogleTest cases run in shards
whose cases lit cannot filter, so the normal build runs all of them again.
Prints nothing when there is no such test. Written for Debian's
/usr/bin/python3 (standard library only).
"""

import json
import re
import sys

NOT_RUN = {"UNSUPPORTED", "SKIPPED", "EXCLUDED"}


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            tests = json.load(f)["tests"]
        ran = sorted(t["name"].split(" :: ", 1)[1] for t in tests
                     if t["name"].startswith("CKPT :: ") and t["code"] not in NOT_RUN)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print(f"ran-under-sanitizers: {argv[1]}: not lit's JSON results: {e!r}",
              file=sys.stderr)
        return 1
    if ran:
        print("^CKPT :: (" + "|".join(re.escape(p) for p in ran) + ")$")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
