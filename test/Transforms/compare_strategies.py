"""Checks that the budget-driven `greedy` strategy never costs more than a
baseline strategy (full, sqrt, selective) whose plan fits the same budget,
and that every plan that is accepted fits its budget.

Usage: compare_strategies.py CKPT_OPT GRAPH BUDGET...
"""

import re
import subprocess
import sys

PLAN = re.compile(r"checkpoint plan: strategy=(\w+) peak=(\d+) \(no-recompute (\d+)\) "
                  r"budget=(\w+) recomputed-ops=(\d+) overhead=([0-9.]+)")


def plan(ckpt_opt, graph, strategy, budget=None):
    options = f"strategy={strategy} explain=true" + (f" budget={budget}" if budget else "")
    proc = subprocess.run([ckpt_opt, graph, f"--ckpt-place-checkpoints={options}",
                           "-o", "/dev/null"], capture_output=True, text=True)
    match = PLAN.search(proc.stderr)
    if proc.returncode != 0 or not match:
        return None
    _, peak, _, limit, _, overhead = match.groups()
    if limit != "none" and int(peak) > int(limit):
        raise SystemExit(f"FAIL: {strategy} at {budget}: peak {peak} > budget {limit}")
    return int(peak), float(overhead)


def main():
    ckpt_opt, graph, budgets = sys.argv[1], sys.argv[2], sys.argv[3:]
    baselines = {s: plan(ckpt_opt, graph, s) for s in ("full", "sqrt", "selective")}
    failures = 0
    for budget in budgets:
        greedy = plan(ckpt_opt, graph, "greedy", budget)
        limit_fits = []
        for name, result in baselines.items():
            if result is None:
                continue
            fits = plan(ckpt_opt, graph, name, budget) is not None
            if fits:
                limit_fits.append((name, result[1]))
                if greedy is None or greedy[1] > result[1] + 1e-9:
                    failures += 1
                    print(f"FAIL budget {budget}: greedy {greedy} costs more than {name} {result}")
        shown = "infeasible" if greedy is None else f"overhead {greedy[1]:.4f}"
        print(f"budget {budget}: greedy {shown}; fitting baselines: "
              + ", ".join(f"{n} {o:.4f}" for n, o in limit_fits))
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
