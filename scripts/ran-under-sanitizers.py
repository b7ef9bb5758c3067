#!/usr/bin/env python3
"""Names the tests the sanitized run ran, for the normal build's run to leave out.

Usage: ran-under-sanitizers.py [--gtest] RESULTS.json

RESULTS.json is the file lit writes with `-o` (scripts/sanitize.sh with
CKPT_SANITIZE_RESULTS set). A test the sanitized run ran -- passed or not --
need not run again in the normal build (scripts/check.sh); one it left out
(test/sanitizer-skip.txt, test/sanitizer-covered.txt) or found unsupported
(the CUDA tests: that build has no device runtime) still must.

Prints a lit --filter-out expression for the main suite's tests
("CKPT :: <path>"), or with --gtest a negative GoogleTest filter
("-Suite.Case:...") for the unit tests' cases ("CKPT-Unit :: <dir>/./<binary>/
<Suite>/<Case>"), which lit runs in shards it cannot filter by case
(test/Unit/lit.cfg.py passes CKPT_GTEST_FILTER on as GTEST_FILTER). Prints
nothing when no such test ran. Written for Debian's /usr/bin/python3
(standard library only).
"""

import json
import re
import sys

NOT_RUN = {"UNSUPPORTED", "SKIPPED", "EXCLUDED"}


def main(argv):
    args = argv[1:]
    gtest = bool(args) and args[0] == "--gtest"
    if gtest:
        args = args[1:]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        with open(args[0]) as f:
            tests = json.load(f)["tests"]
        ran = [t["name"] for t in tests if t["code"] not in NOT_RUN]
        lit_tests = sorted(n.split(" :: ", 1)[1] for n in ran if n.startswith("CKPT :: "))
        # Cases, not shards ("<binary>/<index>/<count>": a shard that ran no
        # case is reported as itself).
        cases = sorted({".".join(n.split("/")[-2:]) for n in ran
                        if n.startswith("CKPT-Unit :: ") and n.count("/") >= 4
                        and not n.split("/")[-1].isdigit()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print(f"ran-under-sanitizers: {args[0]}: not lit's JSON results: {e!r}",
              file=sys.stderr)
        return 1
    if gtest and cases:
        print("-" + ":".join(cases))
    elif not gtest and lit_tests:
        print("^CKPT :: (" + "|".join(re.escape(p) for p in lit_tests) + ")$")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
