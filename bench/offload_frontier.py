#!/usr/bin/env python3
"""The budget -> step-time frontier with and without offload (issue 25, item 2).

For each exported training step and each host link asked for, runs
`ckpt-opt --ckpt-pareto="offload=<link> ..."` (the same budgets for every
link) and prints one Markdown table per graph: per budget, the overhead of the
best recompute-only plan and, per link, the overhead of the fastest plan with
keep, recompute or offload (exposed copy time included) and the bytes it
copies to the host. Every figure is ckpt-opt's own CSV, whose offload plans
`remat::evaluateOffloadSchedule` checked; this script also re-checks that no
offload plan is slower than recomputation alone at a budget both reach.

Usage (any Python 3; only ckpt-opt is run):

    python3 bench/offload_frontier.py --ckpt-opt build/bin/ckpt-opt \\
        --links pcie-gen4,pcie-gen5,nvlink-c2c --points 8 \\
        --scope activations GRAPH.json ...

Exit status: 0 when every run succeeded and every check held, 1 otherwise.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time


def frontier(ckpt_opt: str, graph: str, link: str, points: int, scope: str,
             profile: str):
    """(rows of the CSV, seconds) of one ckpt-pareto run."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "frontier.csv")
        options = (f"points={points} budget-scope={scope} profile={profile} "
                   f"offload={link} output={out}")
        start = time.monotonic()
        run = subprocess.run([ckpt_opt, graph, f"--ckpt-pareto={options}",
                              "--emit=none", "--quiet"],
                             capture_output=True, text=True)
        seconds = time.monotonic() - start
        if run.returncode != 0:
            raise RuntimeError(f"{graph} {link}: ckpt-opt failed:\n{run.stderr}")
        with open(out) as f:
            return list(csv.DictReader(f)), seconds


def mib(value: str) -> str:
    return f"{int(value) / 2**20:.1f} MiB"


def percent(value: str) -> str:
    return f"{float(value) * 100:.2f}%"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ckpt-opt", default="build/bin/ckpt-opt")
    parser.add_argument("--links", default="pcie-gen4,pcie-gen5,nvlink-c2c")
    parser.add_argument("--points", type=int, default=8)
    parser.add_argument("--scope", default="activations")
    parser.add_argument("--profile", default="h100-sxm")
    parser.add_argument("graphs", nargs="+")
    args = parser.parse_args()
    links = args.links.split(",")
    ok = True
    for graph in args.graphs:
        runs = {}
        for link in links:
            try:
                runs[link] = frontier(args.ckpt_opt, graph, link, args.points,
                                      args.scope, args.profile)
            except RuntimeError as error:
                print(error, file=sys.stderr)
                ok = False
        if len(runs) != len(links):
            continue
        base = runs[links[0]][0]
        print(f"### {os.path.basename(graph)} (budget scope {args.scope}, "
              f"profile {args.profile})\n")
        header = "| budget | fraction | recompute only |"
        rule = "|---|---|---|"
        for link in links:
            header += f" {link} | to host |"
            rule += "---|---|"
        print(header)
        print(rule)
        for i, row in enumerate(base):
            line = (f"| {mib(row['budget_bytes'])} | "
                    f"{float(row['budget_fraction']):.3f}x | "
                    f"{percent(row['overhead']) if row['plan_peak_bytes'] else 'no plan'} |")
            for link in links:
                other = runs[link][0][i]
                if other["budget_bytes"] != row["budget_bytes"]:
                    print(f"{graph}: budgets differ between links", file=sys.stderr)
                    ok = False
                if not other["offload_peak_bytes"]:
                    line += " no plan | |"
                    continue
                if row["plan_peak_bytes"] and (float(other["offload_overhead"]) >
                                               float(row["overhead"]) + 1e-9):
                    print(f"{graph} {link}: offload slower than recomputation "
                          f"at {row['budget_bytes']}", file=sys.stderr)
                    ok = False
                line += (f" {percent(other['offload_overhead'])} | "
                         f"{mib(other['bytes_to_host'])} |")
            print(line)
        seconds = ", ".join(f"{link} {runs[link][1]:.0f} s" for link in links)
        print(f"\nckpt-opt wall time per run: {seconds}\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
