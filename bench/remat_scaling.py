"""How the `optimal` engines scale: solve time against graph size.

Generates GPT training graphs (h 768, 12 heads, seq 1024, batch 8, bf16,
unfused attention by default, vocab 50257) from 2 up to `--max-layers` layers (1,600
layers are about 100,000 ops), places checkpoints with `strategy=optimal`
at `--budget` of the no-recompute peak, and prints, per graph, the ops, the
wall time of the whole tool and of each engine as the pass reports them
(`explain`): the proven lower bound, the segment-chain DP (the scalable
engine) and the greedy search (skipped above 10,000 nodes), with the median of
`--runs` runs. The overhead found and its proven bound are shown too.

Usage (from the repository root):
  /usr/bin/python3 bench/remat_scaling.py [--ckpt-opt build/bin/ckpt-opt]
      [--layers 2,12,48,96,384,1600] [--budget 0.5] [--runs 3]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from ckpt_graphs import format as graph_format  # noqa: E402
from ckpt_graphs import gpt  # noqa: E402

PLAN = re.compile(r"strategy=optimal peak=(\d+) \(no-recompute (\d+)\).*? overhead=([0-9.]+)"
                  r".*?engine=([a-z-]+) .*?lower-bound-overhead=([0-9.]+) "
                  r"solve-seconds=([0-9.]+) engine-seconds=(\S+)")


def solve(ckpt_opt, graph, budget):
    start = time.perf_counter()
    proc = subprocess.run([ckpt_opt, graph, "--ckpt-place-checkpoints=strategy=optimal "
                           f"budget={budget}x explain=true", "--emit=none"],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    match = PLAN.search(proc.stderr)
    if proc.returncode != 0 or not match:
        return None
    engines = dict((name + "-seconds", float(value)) for name, value in
                   (item.split(":") for item in match.group(7).split(",")))
    return {"wall": wall, "overhead": float(match.group(3)), "engine": match.group(4),
            "bound": float(match.group(5)), "solve": float(match.group(6)), **engines}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt-opt", default=os.path.join(ROOT, "build", "bin", "ckpt-opt"))
    parser.add_argument("--layers", default="2,12,48,96,384,1600")
    parser.add_argument("--budget", type=float, default=0.5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--attention", default="unfused", choices=("fused", "unfused"))
    args = parser.parse_args()
    print(f"budget {args.budget}x of the no-recompute peak (whole step); median of "
          f"{args.runs} runs; seconds\n")
    print("| layers | ops | tool wall | solve (all engines) | bound | segment-chain | greedy "
          "| segment-chain per op | overhead | proven bound | engine |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for layers in (int(x) for x in args.layers.split(",")):
            path = os.path.join(tmp, f"gpt{layers}.json")
            document = gpt.build(layers, 768, 12, 1024, 8, vocab=50257, attention=args.attention)
            graph_format.dump(document, path)
            ops = len(document["nodes"]) if "nodes" in document else sum(
                1 for _ in open(path) if '"op"' in _)
            runs = [solve(args.ckpt_opt, path, args.budget) for _ in range(args.runs)]
            if any(r is None for r in runs):
                print(f"| {layers} | {ops} | no plan | | | | | | | | |")
                continue

            def med(key):
                values = [r.get(key) for r in runs if r.get(key) is not None]
                return statistics.median(values) if values else None

            greedy = med("greedy-seconds")
            chain = med("segment-chain-seconds")
            print(f"| {layers} | {ops} | {med('wall'):.2f} | {med('solve'):.3f} | "
                  f"{med('bound-seconds'):.3f} | {chain:.3f} | "
                  f"{'-' if greedy is None else f'{greedy:.3f}'} | "
                  f"{chain / ops * 1e6:.1f} us | +{runs[0]['overhead'] * 100:.1f}% | "
                  f"+{runs[0]['bound'] * 100:.1f}% | {runs[0]['engine']} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
