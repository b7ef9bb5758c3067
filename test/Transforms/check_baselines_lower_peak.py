"""Checks that each baseline strategy lowers the peak of every graph given:
`full` (checkpoint every block) and `sqrt` (Chen's sqrt(N) on the forward
cut points) must each plan a peak below the no-recompute peak, in the budget
scope given, as the pass's own re-check of the rewritten IR measures it.
Prints one line per graph and strategy; exits 1 if any baseline lowers
nothing or the tool fails.

Usage: check_baselines_lower_peak.py CKPT_OPT SCOPE GRAPH... [--strategies=A,B]
(`--strategies` replaces full,sqrt, e.g. to show that `none` fails the check).
"""

import os
import re
import subprocess
import sys

PLAN = re.compile(r"checkpoint plan: strategy=(\w+) peak=(\d+) \(no-recompute (\d+)\) "
                  r"budget=\w+ recomputed-ops=(\d+)")


def mib(count):
    return f"{count / 2**20:.2f} MiB"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--strategies=")]
    strategies = ("full", "sqrt")
    for a in sys.argv[1:]:
        if a.startswith("--strategies="):
            strategies = tuple(a.split("=", 1)[1].split(","))
    ckpt_opt, scope, graphs = args[0], args[1], args[2:]
    failures = 0
    for graph in graphs:
        for strategy in strategies:
            options = f"strategy={strategy} budget-scope={scope} explain=true"
            proc = subprocess.run([ckpt_opt, graph, f"--ckpt-place-checkpoints={options}",
                                   "-o", "/dev/null"], capture_output=True, text=True)
            match = PLAN.search(proc.stderr)
            name = os.path.basename(graph)
            if proc.returncode != 0 or not match:
                failures += 1
                print(f"FAIL {strategy} {name}: ckpt-opt exited with {proc.returncode}:\n"
                      f"{proc.stderr[-2000:]}")
                continue
            _, peak, reference, recomputed = match.groups()
            peak, reference = int(peak), int(reference)
            verdict = "lowers" if peak < reference else "FAIL: does not lower"
            failures += peak >= reference
            print(f"{verdict} {strategy} {name}: {mib(reference)} -> {mib(peak)} "
                  f"({peak / reference:.3f}x, {recomputed} ops recomputed)")
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
