#!/usr/bin/env python3
"""The gap between `optimal`'s plan and its proven lower bound (issue 27 item 4).

For every graph and budget: the plan's overhead, the proven bound's overhead
from an older binary (`--old-ckpt-opt`, e.g. main before the segment bound)
and from this one, and the gap (1 + plan) / (1 + bound) - 1, i.e. how much
the plan may cost above the cheapest valid schedule. Corpus graphs
(examples/graphs) are planned with budget-scope=activations; the standard
remat graphs have no parameters or gradients, so the scopes coincide.

  /usr/bin/python3 bench/lower_bound_gap.py --old-ckpt-opt /tmp/ckpt-opt-main

prints a markdown table (and the bound's seconds per cell, from
engine-seconds=bound:...).
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REMAT = os.path.join(ROOT, "..", "shared", "benchmarks", "remat-graphs")
REMAT_GRAPHS = ["vgg16_256_224_224_3_train_nx", "vgg19_256_224_224_3_train_nx",
                "vgg_unet_32_416_608_3_train_nx", "fcn_8_vgg_32_416_608_3_train_nx",
                "segnet_32_416_608_3_train_nx", "mobilenet_512_224_224_3_train_nx",
                "resnet50_256_224_224_3_train_nx",
                "random_layered_n100_w0.27_nlv0.75_ed0.2_scd0.14",
                "random_layered_n250_w0.43_nlv0.75_ed0.2_scd0.14",
                "random_layered_n500_w0.36_nlv0.75_ed0.2_scd0.14",
                "random_layered_n1000_w0.31_nlv0.75_ed0.2_scd0.14"]

PLAN = re.compile(r"strategy=optimal peak=(\d+) \(no-recompute (\d+)\).*? overhead=([0-9.]+)"
                  r".*?engine=([a-z-]+) .*?lower-bound-overhead=([0-9.]+) "
                  r"solve-seconds=([0-9.]+) engine-seconds=(\S+)")
NO_PLAN = re.compile(r"found no plan|no schedule fits|needs at least")


def solve(ckpt_opt, graph, budget, scope, options):
    proc = subprocess.run([ckpt_opt, graph, "--ckpt-place-checkpoints=strategy=optimal "
                           f"budget={budget}x budget-scope={scope} explain=true {options}",
                           "--emit=none"], capture_output=True, text=True)
    match = PLAN.search(proc.stderr)
    if proc.returncode != 0 or not match:
        return {"none": bool(NO_PLAN.search(proc.stderr))}
    engines = dict((name, float(value)) for name, value in
                   (item.split(":") for item in match.group(7).split(",")))
    return {"overhead": float(match.group(3)), "engine": match.group(4),
            "bound": float(match.group(5)), "solve": float(match.group(6)),
            "bound_seconds": engines.get("bound", 0.0),
            "optimal": "status=optimal" in proc.stderr}


def pct(x):
    return f"+{100 * x:.2f}%"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt-opt", default=os.path.join(ROOT, "build", "bin", "ckpt-opt"))
    parser.add_argument("--old-ckpt-opt", default=None,
                        help="binary whose bound is the 'old' column (omitted: no column)")
    parser.add_argument("--budgets", default="0.9,0.8,0.7,0.6,0.5,0.4")
    parser.add_argument("--options", default="time-limit=2",
                        help="further options of ckpt-place-checkpoints")
    parser.add_argument("--graphs", default="",
                        help="comma-separated substrings of the graphs to run")
    args = parser.parse_args()
    graphs = [(p, "activations") for p in sorted(glob.glob(
        os.path.join(ROOT, "examples", "graphs", "*.json")))]
    graphs += [(os.path.join(REMAT, g + ".json"), "step") for g in REMAT_GRAPHS]
    if args.graphs:
        keys = args.graphs.split(",")
        graphs = [g for g in graphs if any(k in os.path.basename(g[0]) for k in keys)]
    budgets = [float(b) for b in args.budgets.split(",")]
    print("| graph | budget | plan | bound (old) | bound | gap | bound s | note |")
    print("|---|---|---|---|---|---|---|---|")
    start = time.time()
    worst = 0.0
    for path, scope in graphs:
        name = os.path.basename(path)[:-5]
        for budget in budgets:
            new = solve(args.ckpt_opt, path, budget, scope, args.options)
            if "overhead" not in new:
                print(f"| {name} | {budget}x | no plan | | | | | "
                      f"{'proven infeasible' if new['none'] else 'failed'} |", flush=True)
                continue
            old = (solve(args.old_ckpt_opt, path, budget, scope, args.options)
                   if args.old_ckpt_opt else {})
            gap = (1 + new["overhead"]) / (1 + new["bound"]) - 1
            worst = max(worst, gap)
            note = ("plan proven optimal (MILP)" if new["optimal"] else
                    "open: no exact optimum at this size; bound relaxed" if gap > 0.05 else "")
            print(f"| {name} | {budget}x | {pct(new['overhead'])} | "
                  f"{pct(old['bound']) if 'bound' in old else ''} | {pct(new['bound'])} | "
                  f"{100 * gap:.1f}% | {new['bound_seconds']:.3f} | {note} |", flush=True)
    print(f"\nworst gap {100 * worst:.1f}%; {time.time() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
