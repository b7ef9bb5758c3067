"""Compares checkpointing strategies side by side on the same graphs.

For each graph and budget (a fraction of the no-recompute peak), runs
`ckpt-opt --ckpt-place-checkpoints` with every strategy and prints the peak
(as re-measured on the rewritten IR by the pass), the recomputation overhead
(extra estimated time over the no-recompute step, roofline on an H100 SXM)
and the wall time of the whole tool; "-" marks a plan that does not fit.
Baselines ignore the budget; they are shown where their plan fits it.

Usage (from the repository root):
  /usr/bin/python3 bench/strategies.py [--ckpt-opt build/bin/ckpt-opt]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from ckpt_graphs import format as graph_format  # noqa: E402
from ckpt_graphs import gpt  # noqa: E402

PLAN = re.compile(r"strategy=\w+ peak=(\d+) \(no-recompute (\d+)\).*? overhead=([0-9.]+)")
BOUND = re.compile(r"lower-bound-overhead=([0-9.]+)")
STRATEGIES = ("full", "sqrt", "selective", "greedy", "optimal")
BUDGETED = ("greedy", "optimal")
BUDGETS = (0.8, 0.6, 0.5, 0.4, 0.3)


def run(ckpt_opt, graph, strategy, budget):
    options = f"strategy={strategy} explain=true"
    if budget is not None:
        options += f" budget={budget}x"
    start = time.perf_counter()
    proc = subprocess.run([ckpt_opt, graph, f"--ckpt-place-checkpoints={options}",
                           "-o", "/dev/null"], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        # A crash is a bug, never a cell without a plan.
        sys.exit(f"ckpt-opt crashed (exit status {proc.returncode}) on {graph}, "
                 f"{options}:\n{proc.stderr[-3000:]}")
    match = PLAN.search(proc.stderr)
    if proc.returncode != 0 or not match:
        return None
    bound = BOUND.search(proc.stderr)
    return (int(match.group(1)), int(match.group(2)), float(match.group(3)), seconds,
            float(bound.group(1)) if bound else None)


def table(ckpt_opt, name, graph):
    base = run(ckpt_opt, graph, "none", None)
    print(f"\n**{name}**: no-recompute peak {base[1] / 2**20:.1f} MiB\n")
    print("| budget | " + " | ".join(STRATEGIES) + " |")
    print("|---|" + "---|" * len(STRATEGIES))
    for budget in BUDGETS:
        cells = []
        for strategy in STRATEGIES:
            result = run(ckpt_opt, graph, strategy,
                         budget if strategy in BUDGETED else None)
            if result is None or result[0] > budget * base[1]:
                cells.append("-")
            elif result[4] is not None:
                cells.append(f"+{result[2] * 100:.1f}% (bound +{result[4] * 100:.1f}%, "
                             f"{result[3] * 1e3:.0f} ms)")
            else:
                cells.append(f"+{result[2] * 100:.1f}% ({result[3] * 1e3:.0f} ms)")
        print(f"| {budget}x | " + " | ".join(cells) + " |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt-opt", default=os.path.join(ROOT, "build", "bin", "ckpt-opt"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for attention in ("unfused", "fused"):
            path = os.path.join(tmp, f"gpt12-{attention}.json")
            graph_format.dump(gpt.build(12, 768, 12, 1024, 8, vocab=50257,
                                        attention=attention), path)
            table(args.ckpt_opt, f"GPT 12 layers, h 768, seq 1024, batch 8, bf16, "
                  f"{attention} attention", path)
    for model in ("resnet50", "unet", "bert"):
        table(args.ckpt_opt, f"{model}.full (exported)",
              os.path.join(ROOT, "examples", "graphs", f"{model}.full.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
