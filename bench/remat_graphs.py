#!/usr/bin/python3
"""The standard rematerialization benchmark graphs, solved cell by cell.

For every Checkmate training graph (`*_train_nx.json`) and every random
layered graph (`random_layered_*.json`) of the remat-graphs folder
(../shared/benchmarks/remat-graphs, README there), and budgets 0.9, 0.8, 0.7,
0.6 and 0.5 of the no-recompute peak in the given order (budget-scope=step:
everything live; these graphs have no arguments, so it equals the activation
peak), runs three engines through `ckpt-opt --ckpt-place-checkpoints`:

  optimal   strategy=optimal: every engine; on graphs of <= 100 nodes also the
            exact ones (enumeration, the MILP started from the best plan,
            `--optimal-time-limit` seconds)
  scalable  strategy=optimal exact-engines=false: the scalable engines alone
            (segment chain, generic, greedy, baselines)
  exact     strategy=exact: Checkmate's MILP with CBC, `--time-limit` seconds
            (CBC runs in a child process that ckpt-opt stops 25% past the
            limit, at least 5 s: its root heuristics ignore the limit on
            large models; a model over 8 million matrix entries is not
            built: "too large"). As a last resort every ckpt-opt run is
            killed after `--kill-after` seconds and counted as a timeout.

Every plan is checked independently of the solvers: the rewritten IR is
written out and read again by a second ckpt-opt run whose `--ckpt-report`
(the liveness-based memory timeline) gives the verified peak, which must be
within the budget; the total cost is recounted from the `compute_cost` of
every op of the rewritten IR (recomputations included).

Columns: overhead = total cost / no-recompute cost; gap = optimal's cost over
its proven lower bound (LowerBound.h, and the MILP's bound where it ran);
MILP = the exact engine's status (optimal = proven, feasible = time limit
reached with a plan, timeout = time limit without a plan, too large = model
not built); peak = verified
peak / budget; seconds = the solver's own time (`solve-seconds`). A cell
without a plan says "infeasible" when the proven memory floor is above the
budget, else "no plan"; the floor (a proven lower bound on every plan's
peak) and the smallest budget at which the scalable engine found a plan are
listed per graph: first the floor itself is tried (a plan there proves it is
the smallest feasible budget), then bisection and a few probes below its
result.

Usage (from the repository root):
  /usr/bin/python3 bench/remat_graphs.py --ckpt-opt build/bin/ckpt-opt \
      [--time-limit 60] [--optimal-time-limit 10] [--budgets 0.9,0.8,...]
      [--graphs vgg16,random_layered_n100] [--output remat_graphs]
      [--check-agreement 0.01]
Writes OUTPUT.csv and OUTPUT.json; prints a markdown table.
"""

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGETS = (0.9, 0.8, 0.7, 0.6, 0.5)
PLAN = re.compile(r"strategy=(\w+) peak=(\d+) \(no-recompute (\d+)\) budget=(\d+) "
                  r"recomputed-ops=(\d+) overhead=([0-9.]+) \(\w+\)(.*)")
FLOOR = re.compile(r"no plan can use less than [^(]*\((\d+) bytes\)")
BUDGET_BYTES = re.compile(r"budget of [^(]*\((\d+) bytes\)")
COST = re.compile(r"compute_cost = (\d+)")


def default_graph_dir():
    shared = os.environ.get("CKPT_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
    return os.path.join(shared, "benchmarks", "remat-graphs")


def load_graph(path):
    """Nodes, edges and the no-recompute cost of a remat-graph file."""
    with open(path) as f:
        data = json.load(f)
    nodes = data["nodes"]
    cost = sum(n.get("cost_cpu", n.get("duration", 0)) for n in nodes)
    return len(nodes), len(data["links"]), cost


def field(rest, name):
    match = re.search(name + r"=(\S+)", rest)
    return match.group(1) if match else None


def solve(args, graph, engine, budget, tmp):
    """Runs one engine on one cell; returns a dict describing the outcome."""
    options = {"optimal": "strategy=optimal time-limit=%g" % args.optimal_time_limit,
               "scalable": "strategy=optimal exact-engines=false",
               "exact": "strategy=exact time-limit=%g" % args.time_limit}[engine]
    out = os.path.join(tmp, "plan.mlir")
    if os.path.exists(out):
        os.remove(out)
    # A float is a fraction of the no-recompute peak, an int a byte count.
    limit = "%dB" % budget if isinstance(budget, int) else "%gx" % budget
    cmd = [args.ckpt_opt, graph, "--ckpt-place-checkpoints=%s budget=%s explain=true"
           % (options, limit), "-o", out]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=args.kill_after)
    except subprocess.TimeoutExpired:
        return {"engine": engine, "plan": False, "milp": "timeout",
                "killed": True, "wall_seconds": args.kill_after}
    wall = time.monotonic() - start
    if proc.returncode not in (0, 1):
        # A crash (a signal, or an exit status ckpt-opt never uses) is a bug,
        # not a cell without a plan: it must never read as "infeasible".
        how = ("signal %d" % -proc.returncode if proc.returncode < 0
               else "exit status %d" % proc.returncode)
        sys.exit("ckpt-opt crashed (%s) on %s, engine %s, budget %s:\n%s\n%s"
                 % (how, graph, engine, limit, " ".join(cmd), proc.stderr[-3000:]))
    cell = {"engine": engine, "wall_seconds": round(wall, 3)}
    match = PLAN.search(proc.stderr)
    if proc.returncode != 0 or not match:
        floor = FLOOR.search(proc.stderr)
        limit = BUDGET_BYTES.search(proc.stderr)
        cell["plan"] = False
        cell["floor"] = int(floor.group(1)) if floor else None
        cell["budget"] = int(limit.group(1)) if limit else None
        cell["infeasible"] = bool(floor and limit and
                                  int(floor.group(1)) > int(limit.group(1)))
        cell["error"] = proc.stderr.strip().splitlines()[0][:300] if proc.stderr else ""
        if "the exact engine found no plan: model too large" in proc.stderr:
            cell["milp"] = "too large"
        elif "the exact engine found no plan" in proc.stderr:
            cell["milp"] = "timeout"
            cell["stopped"] = "CBC overran its time limit" in proc.stderr
        return cell
    rest = match.group(7)
    cell.update(plan=True, solver_peak=int(match.group(2)),
                no_recompute_peak=int(match.group(3)), budget=int(match.group(4)),
                recomputed_ops=int(match.group(5)),
                seconds=float(field(rest, "solve-seconds") or "nan"))
    if engine == "exact":
        cell["milp"] = field(rest, "engine")  # optimal / feasible
    else:
        cell["engine_used"] = field(rest, "engine")
        cell["status"] = field(rest, "status")
        cell["lower_bound_overhead"] = float(field(rest, "lower-bound-overhead"))
    # Independent check: read the rewritten IR again and measure it.
    with open(out) as f:
        text = f.read()
    cell["total_cost"] = sum(int(c) for c in COST.findall(text))
    report = subprocess.run([args.ckpt_opt, out, "--ckpt-report=json", "--emit=none"],
                            capture_output=True, text=True)
    if report.returncode != 0:
        sys.exit("ckpt-report failed on %s:\n%s" % (out, report.stderr))
    functions = json.loads(report.stdout)["functions"]
    cell["verified_peak"] = max(fn["peak"]["bytes"] for fn in functions)
    if cell["verified_peak"] > cell["budget"]:
        sys.exit("%s %s %gx: verified peak %d over the budget %d"
                 % (graph, engine, budget, cell["verified_peak"], cell["budget"]))
    return cell


def smallest_budget_found(args, graph, lo, hi, tmp, floor_bytes):
    """The smallest budget fraction in [lo, hi] at which the scalable engine
    finds a plan (hi must be one where it does), and whether it is proven
    the smallest feasible one. First the budget of exactly `floor_bytes`, the
    proven floor (lo): a plan there settles it. Otherwise bisection, then
    `--scan-steps` probes 0.01x apart below its result: the engine's success
    is not monotone in the budget, so a plan may exist below the bisection's
    answer."""
    if solve(args, graph, "scalable", int(floor_bytes), tmp)["plan"]:
        return lo, True
    floor = lo
    for _ in range(args.bisection_steps):
        mid = (lo + hi) / 2
        if solve(args, graph, "scalable", mid, tmp)["plan"]:
            hi = mid
        else:
            lo = mid
    best = hi
    for k in range(1, args.scan_steps + 1):
        probe = round(hi - 0.01 * k, 4)
        if probe <= floor:
            break
        if solve(args, graph, "scalable", probe, tmp)["plan"]:
            best = probe
    return best, False


def fmt_overhead(cell, base):
    if not cell["plan"]:
        if cell.get("infeasible"):
            return "infeasible"
        if cell.get("milp") in ("timeout", "too large"):
            return cell["milp"]
        return "no plan"
    return "%.4f" % (cell["total_cost"] / base)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ckpt-opt", default=os.path.join(ROOT, "build", "bin", "ckpt-opt"))
    parser.add_argument("--graph-dir", default=default_graph_dir())
    parser.add_argument("--graphs", default="",
                        help="comma-separated name prefixes (default: every train graph "
                             "and every random layered graph)")
    parser.add_argument("--budgets", default=",".join(str(b) for b in BUDGETS))
    parser.add_argument("--time-limit", type=float, default=60,
                        help="CBC limit per cell for strategy=exact (seconds)")
    parser.add_argument("--optimal-time-limit", type=float, default=10,
                        help="limit of the MILP inside strategy=optimal (<= 100 nodes)")
    parser.add_argument("--engines", default="optimal,scalable,exact")
    parser.add_argument("--max-exact-nodes", type=int, default=None,
                        help="largest graph the exact engine runs on (default: every "
                             "graph; the engine refuses models over 8 million entries)")
    parser.add_argument("--kill-after", type=float, default=None,
                        help="wall-clock seconds after which a ckpt-opt run is killed "
                             "(default: 3 x time limit + 120)")
    parser.add_argument("--bisection-steps", type=int, default=6,
                        help="steps of the search for the smallest budget found (0: skip)")
    parser.add_argument("--scan-steps", type=int, default=4,
                        help="budgets 0.01x apart probed below the bisection's result")
    parser.add_argument("--output", default="remat_graphs",
                        help="prefix of the .csv and .json files written")
    parser.add_argument("--check-agreement", type=float, default=None,
                        help="fail unless the scalable engine's total cost is within this "
                             "fraction of the MILP's on every cell the MILP proves optimal")
    args = parser.parse_args()
    if args.kill_after is None:
        args.kill_after = 3 * max(args.time_limit, args.optimal_time_limit) + 120

    names = sorted(f for f in os.listdir(args.graph_dir)
                   if f.endswith("_train_nx.json") or f.startswith("random_layered_"))
    names.sort(key=lambda f: (f.startswith("random"), load_graph(
        os.path.join(args.graph_dir, f))[0]))
    if args.graphs:
        prefixes = args.graphs.split(",")
        names = [f for f in names
                 if any(f[:-len(".json")] == p or f.startswith(p + "_") for p in prefixes)]
    if not names:
        sys.exit("no graph matches --graphs")
    budgets = [float(b) for b in args.budgets.split(",")]
    engines = args.engines.split(",")
    tmp = tempfile.mkdtemp(prefix="remat-graphs-")

    rows, graphs = [], []
    for name in names:
        path = os.path.join(args.graph_dir, name)
        nodes, edges, base = load_graph(path)
        label = name.replace("_nx.json", "").replace(".json", "")
        info = {"graph": label, "nodes": nodes, "edges": edges, "base_cost": base}
        lowest_plan = None
        for budget in budgets:
            row = {"graph": label, "nodes": nodes, "edges": edges, "budget": budget}
            for engine in engines:
                if engine == "exact" and args.max_exact_nodes is not None \
                        and nodes > args.max_exact_nodes:
                    row[engine] = {"engine": engine, "plan": False, "skipped":
                                   "more than %d nodes" % args.max_exact_nodes}
                    continue
                row[engine] = solve(args, path, engine, budget, tmp)
                cell = row[engine]
                if cell["plan"] and cell.get("total_cost") is not None:
                    cell["overhead"] = cell["total_cost"] / base
                if not cell["plan"] and cell.get("floor"):
                    info["floor"] = cell["floor"]
                if cell["plan"] and "no_recompute_peak" in cell:
                    info["no_recompute_peak"] = cell["no_recompute_peak"]
            # A proven floor above the budget makes every engine's cell infeasible.
            floor = max([row[e].get("floor") or 0 for e in engines] + [0])
            budget_bytes = next((row[e].get("budget") for e in engines
                                 if row[e].get("budget")), None)
            for engine in engines:
                cell = row[engine]
                if not cell.get("plan") and not cell.get("skipped") and budget_bytes \
                        and floor > budget_bytes:
                    cell["infeasible"] = True
                    if not cell.get("killed"):
                        cell.pop("milp", None)
            scal = row.get("scalable", {})
            if scal.get("plan"):
                lowest_plan = budget if lowest_plan is None else min(lowest_plan, budget)
            rows.append(row)
            print("  %s %gx done" % (label, budget), file=sys.stderr, flush=True)
        # The floor and the smallest budget the scalable engine meets.
        if "floor" in info and "no_recompute_peak" in info and lowest_plan is not None \
                and args.bisection_steps > 0:
            lo = info["floor"] / info["no_recompute_peak"]
            found, proven = smallest_budget_found(args, path, lo, lowest_plan, tmp,
                                                  info["floor"])
            info["smallest_budget_found"] = round(found, 4)
            info["smallest_budget_proven"] = proven
        if "floor" in info and "no_recompute_peak" in info:
            info["floor_fraction"] = round(info["floor"] / info["no_recompute_peak"], 4)
        graphs.append(info)

    # Markdown table.
    head = ["graph", "nodes", "edges", "budget"]
    for engine in engines:
        head.append("%s overhead" % engine)
    if "optimal" in engines:
        head.append("optimal gap")
    if "exact" in engines:
        head.append("MILP")
    head.append("verified peak / budget")
    for engine in engines:
        head.append("%s s" % engine)
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    base_of = {g["graph"]: g["base_cost"] for g in graphs}
    flat = []
    for row in rows:
        base = base_of[row["graph"]]
        cells = [row["graph"], str(row["nodes"]), str(row["edges"]), "%gx" % row["budget"]]
        record = {k: row[k] for k in ("graph", "nodes", "edges", "budget")}
        for engine in engines:
            cell = row[engine]
            text = "n/a" if cell.get("skipped") else fmt_overhead(cell, base)
            cells.append(text)
            record["%s_overhead" % engine] = cell.get("overhead")
            record["%s_seconds" % engine] = cell.get("seconds")
            record["%s_verified_peak" % engine] = cell.get("verified_peak")
            record["%s_engine" % engine] = cell.get("engine_used")
        if "optimal" in engines:
            opt = row["optimal"]
            if opt.get("plan"):
                lb = 1 + opt["lower_bound_overhead"]
                # The bound is printed with 4 decimals: clamp rounding noise.
                gap = max(0.0, opt["overhead"] / lb - 1)
                cells.append("%.2f%%" % (100 * gap))
                record["optimal_gap"] = gap
            else:
                cells.append("")
        if "exact" in engines:
            ex = row["exact"]
            status = ("n/a" if ex.get("skipped") else
                      "infeasible" if ex.get("infeasible") else
                      ex.get("milp") or "no plan")
            cells.append(status)
            record["milp_status"] = status
        peaks = []
        for engine in engines:
            cell = row[engine]
            if cell.get("plan"):
                peaks.append("%.3f" % (cell["verified_peak"] / cell["budget"]))
        cells.append(" / ".join(peaks) if peaks else "")
        for engine in engines:
            cell = row[engine]
            cells.append("%.2f" % cell["seconds"] if cell.get("plan") else "")
        print("| " + " | ".join(cells) + " |")
        record["budget_bytes"] = next((row[e].get("budget") for e in engines
                                       if row[e].get("budget")), None)
        flat.append(record)
    print()
    for g in graphs:
        if "floor_fraction" in g:
            if g.get("smallest_budget_proven"):
                found = ("; a plan meets it exactly, so it is the smallest feasible "
                         "budget (scalable engine)")
            elif "smallest_budget_found" in g:
                found = ("; smallest budget with a plan found (scalable engine, bisection "
                         "and a scan below): %.4fx" % g["smallest_budget_found"])
            else:
                found = ""
            print("- %s: proven floor %.4fx of the no-recompute peak%s" % (
                g["graph"], g["floor_fraction"], found))

    with open(args.output + ".csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=sorted({k for r in flat for k in r}))
        writer.writeheader()
        writer.writerows(flat)
    with open(args.output + ".json", "w") as f:
        json.dump({"time_limit": args.time_limit,
                   "optimal_time_limit": args.optimal_time_limit,
                   "graphs": graphs, "cells": rows}, f, indent=1, sort_keys=True)

    if args.check_agreement is not None:
        checked, bad = 0, []
        for row in rows:
            ex, sc = row.get("exact", {}), row.get("scalable", {})
            if ex.get("milp") != "optimal":
                continue
            checked += 1
            if not sc.get("plan") or sc["total_cost"] > ex["total_cost"] * (1 + args.check_agreement):
                bad.append("%s %gx: scalable %s vs MILP %d" % (
                    row["graph"], row["budget"], sc.get("total_cost"), ex["total_cost"]))
        print("agreement: %d MILP-proven cells, %d outside %.2f%%" % (
            checked, len(bad), 100 * args.check_agreement))
        for line in bad:
            print("  " + line)
        if bad:
            sys.exit(1)


if __name__ == "__main__":
    main()
