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

With --sweep, instead checks every cell of the acceptance grid: each
examples/graphs/*.full.json and *.tiny.json graph (or --graphs), strategies
none, full, sqrt, selective and optimal, budgets 0.9x .. 0.4x in both
budget scopes (step and activations); cells where placement finds no plan
are skipped. The packing problem of a baseline strategy (none, full, sqrt,
selective) does not depend on the budget (the budget only decides whether
the plan fits), so each is planned once and counted for every budget it
fits. Lists every cell whose arena / lower bound exceeds --max-ratio
(default 1.02) and exits 1 if there is one. --dump DIR keeps each plan's
JSON (its buffers are the whole packing problem).

Usage (from the repository root):
  /usr/bin/python3 bench/memory_plan.py [--ckpt-opt build/bin/ckpt-opt]
      [--graphs a.json ...] [--no-gpt96]
  /usr/bin/python3 bench/memory_plan.py --sweep [--jobs 2] [--dump DIR]
      [--graphs a.json ...] [--budgets 0.9x 0.5x] [--scopes step]
"""

import argparse
import concurrent.futures
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


SWEEP_STRATEGIES = ("none", "full", "sqrt", "selective", "optimal")
SWEEP_BUDGETS = ("0.9x", "0.8x", "0.7x", "0.6x", "0.5x", "0.4x")
SWEEP_SCOPES = ("step", "activations")


def sweep_cell(ckpt_opt, graph, strategy, budget, scope, dump, time_limit):
    """Places and plans one cell; returns (plan or None, error line)."""
    place = f"strategy={strategy}"
    if budget:
        place += f" budget={budget} budget-scope={scope} time-limit={time_limit}"
    with tempfile.TemporaryDirectory(prefix="memory-plan-") as tmp:
        out = os.path.join(tmp, "plan.json")
        proc = subprocess.run(
            [ckpt_opt, graph, f"--ckpt-place-checkpoints={place}",
             f"--ckpt-plan-memory=verify=true output={out}", "--emit=none"],
            capture_output=True, text=True)
        if proc.returncode != 0:
            lines = proc.stderr.strip().splitlines()
            return None, lines[0] if lines else f"exit {proc.returncode}"
        with open(out) as f:
            text = f.read()
    if dump:
        name = "{}.{}{}.json".format(
            os.path.basename(graph).replace(".json", ""), strategy,
            f".{budget}.{scope}" if budget else "")
        with open(os.path.join(dump, name), "w") as f:
            f.write(text)
    return json.loads(text)["functions"][0], None


def run_sweep(args):
    graphs = args.graphs or sorted(
        glob.glob(os.path.join(ROOT, "examples/graphs/*.full.json")) +
        glob.glob(os.path.join(ROOT, "examples/graphs/*.tiny.json")))
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
    # One job per distinct packing problem: baselines once (no budget),
    # optimal per budget and scope.
    jobs = []
    for graph in graphs:
        for strategy in args.strategies:
            if strategy == "optimal":
                for scope in args.scopes:
                    for budget in args.budgets:
                        jobs.append((graph, strategy, budget, scope))
            else:
                jobs.append((graph, strategy, None, None))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(
            lambda j: sweep_cell(args.ckpt_opt, *j, args.dump, args.time_limit),
            jobs))
    cells = skipped = failed = 0
    worst, worst_cell, seconds = 1.0, "-", 0.0
    bad = []
    for (graph, strategy, budget, scope), (result, error) in zip(jobs, results):
        name = os.path.basename(graph).replace(".json", "")
        if result is None:
            if "found no plan" in error or "over the budget" in error:
                skipped += 1
                continue
            print(f"FAIL {name} {strategy} {budget or ''} {scope or ''}: {error}")
            failed += 1
            continue
        seconds = max(seconds, result["plan_seconds"])
        if budget:
            labels = [f"{strategy} {budget} {scope}"]
        else:
            # A baseline plan is the same at every budget; count each budget
            # cell it fits as one cell (fits: the baseline's own peak).
            labels = [f"{strategy} (any budget)"]
        ratio = result["ratio"]
        cells += 1
        if ratio > worst:
            worst, worst_cell = ratio, f"{name} {labels[0]}"
        if ratio > args.max_ratio:
            bad.append((ratio, f"{name} {labels[0]}", result))
    for ratio, cell, result in sorted(bad, key=lambda b: -b[0]):
        print(f"OVER {cell}: ratio {ratio:.4f} arena {result['arena_bytes']} "
              f"lower bound {result['lower_bound_bytes']} "
              f"buffers {len(result['buffers'])} method {result['method']}")
    print(f"{cells} plans checked ({skipped} cells without a placement), "
          f"{len(bad)} over {args.max_ratio}, worst ratio {worst:.4f} "
          f"({worst_cell}), slowest plan {seconds * 1e3:.1f} ms")
    return 1 if bad or failed else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt-opt", default=os.path.join(ROOT, "build/bin/ckpt-opt"))
    parser.add_argument("--graphs", nargs="*")
    parser.add_argument("--no-gpt96", action="store_true")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--strategies", nargs="*", default=SWEEP_STRATEGIES)
    parser.add_argument("--budgets", nargs="*", default=SWEEP_BUDGETS)
    parser.add_argument("--scopes", nargs="*", default=SWEEP_SCOPES)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--dump")
    parser.add_argument("--max-ratio", type=float, default=1.02)
    parser.add_argument("--time-limit", type=float, default=10)
    args = parser.parse_args()
    if args.sweep:
        return run_sweep(args)
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
