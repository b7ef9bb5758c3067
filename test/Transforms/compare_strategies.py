"""Checks that a budget-driven strategy (`greedy` by default) never costs
more than a baseline strategy (full, sqrt, selective) whose plan fits the
same budget -- nor, with `--strategy=optimal`, more than `greedy` -- and that
every plan that is accepted fits its budget.

Usage: compare_strategies.py [--strategy=S] CKPT_OPT GRAPH BUDGET...
"""

import re
import subprocess
import sys

PLAN = re.compile(r"checkpoint plan: strategy=(\w+) peak=(\d+) \(no-recompute (\d+)\) "
                  r"budget=(\w+) recomputed-ops=(\d+) overhead=([0-9.]+)")
# What placement says when no plan fits the budget (a budgeted strategy, or a
# baseline whose plan is over it).
NO_PLAN = re.compile(r"error: ckpt-place-checkpoints: (strategy '\w+' found no plan within the budget"
                     r"|the '\w+' plan needs .* at its peak, over the budget)")


def plan(ckpt_opt, graph, strategy, budget=None):
    options = f"strategy={strategy} explain=true" + (f" budget={budget}" if budget else "")
    proc = subprocess.run([ckpt_opt, graph, f"--ckpt-place-checkpoints={options}",
                           "-o", "/dev/null"], capture_output=True, text=True)
    match = PLAN.search(proc.stderr)
    if proc.returncode == 0 and match:
        _, peak, _, limit, _, overhead = match.groups()
    elif proc.returncode == 1 and NO_PLAN.search(proc.stderr):
        return None  # no plan within the budget: the tool says so
    else:
        # A crash, an unknown exit status or an error of another kind is a
        # failure of this check, never a budget without a plan.
        raise SystemExit(f"FAIL: {strategy} at {budget}: ckpt-opt exited with {proc.returncode} "
                         f"without a plan or a no-plan error:\n{proc.stderr[-2000:]}")
    if limit != "none" and int(peak) > int(limit):
        raise SystemExit(f"FAIL: {strategy} at {budget}: peak {peak} > budget {limit}")
    return int(peak), float(overhead)


def main():
    args = sys.argv[1:]
    strategy = "greedy"
    if args and args[0].startswith("--strategy="):
        strategy = args.pop(0).split("=", 1)[1]
    ckpt_opt, graph, budgets = args[0], args[1], args[2:]
    baselines = {s: plan(ckpt_opt, graph, s) for s in ("full", "sqrt", "selective")}
    failures = 0
    for budget in budgets:
        greedy = plan(ckpt_opt, graph, strategy, budget)
        if strategy != "greedy":
            heuristic = plan(ckpt_opt, graph, "greedy", budget)
            if heuristic is not None and (greedy is None or greedy[1] > heuristic[1] + 1e-9):
                failures += 1
                print(f"FAIL budget {budget}: {strategy} {greedy} costs more than greedy {heuristic}")
        limit_fits = []
        for name, result in baselines.items():
            if result is None:
                continue
            fits = plan(ckpt_opt, graph, name, budget) is not None
            if fits:
                limit_fits.append((name, result[1]))
                if greedy is None or greedy[1] > result[1] + 1e-9:
                    failures += 1
                    print(f"FAIL budget {budget}: {strategy} {greedy} costs more than {name} {result}")
        shown = "infeasible" if greedy is None else f"overhead {greedy[1]:.4f}"
        print(f"budget {budget}: {strategy} {shown}; fitting baselines: "
              + ", ".join(f"{n} {o:.4f}" for n, o in limit_fits))
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
