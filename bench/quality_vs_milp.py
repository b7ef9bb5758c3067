"""Quality of the scalable engine against the exact MILP, cell by cell.

For small graphs (where Checkmate's MILP can prove optimality) and budgets
0.8x..0.3x of the no-recompute activation peak (`budget-scope=activations`),
runs `strategy=exact` (CBC, `--time-limit` seconds), `strategy=chain` (the
segment-chain engine alone), the scalable engines together (`strategy=optimal
exact-engines=false`) and `strategy=optimal`, and prints the overheads
(estimated recomputation time over the step, roofline H100 SXM), whether the
MILP proved optimality, and the scalable engines' total step cost relative to
the MILP's (the acceptance figure: within 1% where the MILP is proven).

Usage (from the repository root):
  /usr/bin/python3 bench/quality_vs_milp.py [--time-limit 600] [--ckpt-opt ...]
      [--graphs gpt1,gpt2,resnet50,unet] [--budgets 0.8,0.6,0.5,0.4,0.3]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from ckpt_graphs import format as graph_format  # noqa: E402
from ckpt_graphs import gpt  # noqa: E402

PLAN = re.compile(r"strategy=(\w+) peak=(\d+) \(no-recompute (\d+)\) budget=(\d+) "
                  r"recomputed-ops=\d+ overhead=([0-9.]+) \(\w+\)(.*)")
BUDGETS = (0.8, 0.6, 0.5, 0.4, 0.3)


def run(ckpt_opt, graph, strategy, budget, time_limit=10, extra=""):
    options = (f"strategy={strategy} budget={budget}x budget-scope=activations "
               f"time-limit={time_limit} explain=true {extra}").strip()
    proc = subprocess.run([ckpt_opt, graph, f"--ckpt-place-checkpoints={options}",
                           "--emit=none"], capture_output=True, text=True)
    match = PLAN.search(proc.stderr)
    if proc.returncode != 0 or not match:
        return None
    peak, limit, overhead, rest = (int(match.group(2)), int(match.group(4)),
                                   float(match.group(5)), match.group(6))
    assert peak <= limit, (strategy, budget, peak, limit)
    return {"overhead": overhead, "proven": "engine=optimal" in rest or
            "status=optimal" in rest}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt-opt", default=os.path.join(ROOT, "build", "bin", "ckpt-opt"))
    parser.add_argument("--time-limit", type=float, default=600,
                        help="MILP limit per cell (strategy=exact)")
    parser.add_argument("--optimal-time-limit", type=float, default=10,
                        help="limit of the MILP inside strategy=optimal (<= 100 nodes)")
    parser.add_argument("--graphs", default="gpt1,gpt2,resnet50,unet",
                        help="subset of gpt1, gpt2, resnet50, unet")
    parser.add_argument("--budgets", default=",".join(str(b) for b in BUDGETS))
    args = parser.parse_args()
    wanted = args.graphs.split(",")
    budgets = [float(b) for b in args.budgets.split(",")]
    graphs = []
    tmp = tempfile.mkdtemp()
    for layers in (1, 2):
        if f"gpt{layers}" not in wanted:
            continue
        path = os.path.join(tmp, f"gpt{layers}-small.json")
        graph_format.dump(gpt.build(layers, 64, 2, 32, 2, attention="unfused"), path)
        graphs.append((f"GPT {layers} layer(s), h 64, seq 32 (generated)", path))
    for model in ("resnet50", "unet"):
        if model not in wanted:
            continue
        graphs.append((f"{model}.tiny", os.path.join(ROOT, "examples", "graphs",
                                                     f"{model}.tiny.json")))
    print(f"MILP time limit {args.time_limit:g} s per cell; overheads are extra step time; "
          "'total' compares whole-step costs (1 + overhead)\n")
    print("| graph | budget | MILP | proven | chain | scalable | scalable total vs MILP | optimal |")
    print("|---|---|---|---|---|---|---|---|")
    for name, path in graphs:
        for budget in budgets:
            milp = run(args.ckpt_opt, path, "exact", budget, args.time_limit)
            chain = run(args.ckpt_opt, path, "chain", budget)
            scalable = run(args.ckpt_opt, path, "optimal", budget, extra="exact-engines=false")
            best = run(args.ckpt_opt, path, "optimal", budget, args.optimal_time_limit)

            def show(result):
                return "-" if result is None else f"+{result['overhead'] * 100:.2f}%"

            ratio = "-"
            if milp and scalable:
                ratio = f"{((1 + scalable['overhead']) / (1 + milp['overhead']) - 1) * 100:+.2f}%"
            print(f"| {name} | {budget}x | {show(milp)} | "
                  f"{'yes' if milp and milp['proven'] else 'no'} | {show(chain)} | "
                  f"{show(scalable)} | {ratio} | {show(best)} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
