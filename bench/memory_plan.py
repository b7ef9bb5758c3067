"""Memory-plan quality and speed: arena size over its lower bound.

For each graph (examples/graphs/*.full.json and generated GPTs of 12 and 96
layers) and each checkpoint plan (strategies none, full, selective; optimal
at 1.0x, 0.7x and 0.5x of the no-recompute peak with budget-scope=
activations), runs `ckpt-opt --ckpt-place-checkpoints=... --ckpt-plan-memory=
"verify=true output=..."` and prints, per row, the arena, the lower bound
(peak of aligned bytes live at once), their ratio for the default portfolio
and for TFLite-style greedy-by-size alone, and the planning time (the
planner only, from the plan's JSON). Every plan is checked by the independent
checker (verify=true). Exits 1 if a ratio exceeds 1.02.

Usage (from the repository root):
  /usr/bin/python3 bench/memory_plan.py [--ckpt-opt build/bin/ckpt-opt]
      [--graphs a.json ...] [--no-gpt96]
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from ckpt_graphs import format as graph_format  # noqa: E402
from ckpt_graphs import gpt  # noqa: E402

PLANS = (("none", None), ("full", None), ("selective", None),
         ("optimal", "1.0x"), ("optimal", "0.7x"), ("optimal", "0.5x"))


def plan(ckpt_opt, graph, strategy, budget, algorithm, workdir):
    place = f"strategy={strategy}"
    if budget:
        place += f" budget={budget} budget-scope=activations time-limit=10"
    out = os.path.join(workdir, "plan.json")
    proc = subprocess.run(
        [ckpt_opt, graph, f"--ckpt-place-checkpoints={place}",
         f"--ckpt-plan-memory=verify=true algorithm={algorithm} output={out}",
         "-o", "/dev/null"], capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip().splitlines()[:1]
    with open(out) as f:
        return json.load(f)["functions"][0], None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt-opt", default=os.path.join(ROOT, "build/bin/ckpt-opt"))
    parser.add_argument("--graphs", nargs="*")
    parser.add_argument("--no-gpt96", action="store_true")
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="memory-plan-")
    graphs = [(os.path.basename(g).replace(".full.json", ""), g)
              for g in (args.graphs or sorted(glob.glob(
                  os.path.join(ROOT, "examples/graphs/*.full.json"))))]
    for layers in (12,) if args.no_gpt96 else (12, 96):
        path = os.path.join(workdir, f"gpt{layers}.json")
        graph_format.dump(gpt.build(layers, 768, 12, 1024, 8, vocab=50257,
                                    attention="unfused"), path)
        graphs.append((f"gpt-{layers}L (unfused)", path))

    print("| graph | plan | buffers | lower bound | arena | arena / LB | "
          "greedy-by-size / LB | method | plan time |")
    print("|---|---|---|---|---|---|---|---|---|")
    worst = 1.0
    for name, graph in graphs:
        for strategy, budget in PLANS:
            label = strategy + (f" {budget}" if budget else "")
            best, error = plan(args.ckpt_opt, graph, strategy, budget,
                               "portfolio", workdir)
            if best is None:
                why = ("no placement fits" if "no plan" in " ".join(error)
                       else "failed")
                print(f"| {name} | {label} | - | - | - | - | - | {why} | - |")
                continue
            greedy, _ = plan(args.ckpt_opt, graph, strategy, budget,
                             "greedy-by-size", workdir)
            worst = max(worst, best["ratio"])
            print(f"| {name} | {label} | {len(best['buffers'])} | "
                  f"{best['lower_bound_bytes'] / 2**20:.1f} MiB | "
                  f"{best['arena_bytes'] / 2**20:.1f} MiB | "
                  f"{best['ratio']:.4f} | "
                  f"{greedy['ratio']:.4f} | {best['method']} | "
                  f"{best['plan_seconds'] * 1e3:.1f} ms |", flush=True)
    print(f"\nworst arena / lower bound: {worst:.4f}")
    return 0 if worst <= 1.02 else 1


if __name__ == "__main__":
    sys.exit(main())
