#!/usr/bin/env python3
"""End-to-end check of generated training steps (issue 7's acceptance).

For one model it exports a small graph with deterministic weights
(python/ckpt_export/reference.py), plans it with ckpt-opt under several
strategies and budgets, emits C++ (--emit=cpp), runs each program with
ckpt-run and checks:

  * bit-identical loss and gradients with and without recomputation
    (the no-recompute program is `strategy=none`);
  * with dropout off, the no-recompute program's loss and gradients match
    PyTorch autograd on the same weights and inputs (relative error of each
    tensor, ||ours - torch|| / ||torch||, below --torch-tol);
  * the runtime's own accounting: measured peak of arena bytes in use equals
    the plan's peak, arena size equals the planner's, recomputed ops equal the
    plan's count;
  * optionally (--train-steps) that SGD training decreases the loss,
    identically with and without recomputation;
  * optionally (--chunk-loss-head N) every program with the loss head split
    into N row chunks (ckpt-chunk-loss-head) before planning: then the
    checks above hold for the chunked step, against the unchunked
    no-recompute step the loss and every gradient are within --chunk-tol
    (relative; the pieces' sums add in another order, and a BLAS rounds a
    product of fewer rows differently), and the proven memory floor
    (budget-scope=activations) is lower.

Run with Debian's interpreter: /usr/bin/python3 (torch 1.13 and numpy).
Exit status 0 only if every check holds; one line per check on stdout.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "python"))

import numpy as np  # noqa: E402

from ckpt_export import bundle  # noqa: E402

class Checker:
    def __init__(self):
        self.failures = 0

    def check(self, ok: bool, what: str):
        print(("PASS: " if ok else "FAIL: ") + what, flush=True)
        if not ok:
            self.failures += 1


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def export(args, dropout: float, out: str):
    cmd = [sys.executable, "-m", "ckpt_export.reference", "--model", args.model,
           "--seed", str(args.seed), "--dropout", str(dropout), "--out", out]
    for item in filter(None, args.config.split(",")):
        key, _, value = item.partition("=")
        cmd += ["--" + key, value]
    r = run(cmd, cwd=os.path.join(SRC, "python"))
    if r.returncode != 0:
        sys.exit(f"export failed: {' '.join(cmd)}\n{r.stderr}")


TIME_LIMIT = 60.0


def pipeline(strategy: str, budget: str | None, chunks: int = 0,
             offload: str | None = None) -> str:
    # Chunking is this script's choice (--chunk-loss-head), never the
    # pipeline's: a step chunked at some budgets only would not be
    # bit-identical to the unchunked no-recompute step.
    opts = [f"strategy={strategy}", "plan-memory", "verify-plan", "budget-scope=activations",
            f"time-limit={TIME_LIMIT:g}", "chunk-when-infeasible=false"]
    if offload:
        opts.append(f"offload={offload}")
    if budget:
        opts.insert(0, f"budget={budget}")
    head = f"func.func(ckpt-chunk-loss-head{{chunks={chunks}}}), " if chunks else ""
    return "builtin.module(" + head + "ckpt-pipeline{" + " ".join(opts) + "})"


def emit(args, graph: str, strategy: str, budget: str | None, out: str, chunks: int | None = None,
         offload: str | None = None):
    """Plans and emits; returns (ok, stderr). `chunks`: None takes --chunk-loss-head;
    `offload`: a host link to plan copies over."""
    chunks = args.chunk_loss_head if chunks is None else chunks
    r = run([args.ckpt_opt, graph,
             "--pass-pipeline=" + pipeline(strategy, budget, chunks, offload),
             "--emit=cpp", "-o", out])
    return r.returncode == 0, r.stderr


def proven_floor(args, graph: str, chunks: int) -> int | None:
    """The floor ckpt-opt proves in budget-scope=activations, in bytes."""
    r = run([args.ckpt_opt, graph, "--emit=none",
             f"--ckpt-pipeline=chunk-loss-head={chunks or 1} budget=0.001x "
             "budget-scope=activations chunk-when-infeasible=false"])
    m = re.search(r"every plan needs at least [^(]*\((\d+) bytes", r.stderr)
    return int(m.group(1)) if m else None


def run_step(args, step_dir: str, work: str, tag: str, steps: int = 1, lr: float | None = None):
    dump = os.path.join(work, tag + ".result.ckptb")
    stats = os.path.join(work, tag + ".stats.json")
    # One compile cache for every step of the run: a fixed strategy planned at
    # several budgets often emits byte-identical steps (ckpt-run --cache-dir).
    cmd = [args.ckpt_run, step_dir, "--cache-dir", os.path.join(args.work, "step-cache"),
           "--params", os.path.join(work, "params.ckptb"),
           "--inputs", os.path.join(work, "inputs.ckptb"), "--seed", "7", "--steps", str(steps),
           "--threads", "2", "--dump", dump, "--stats-json", stats]
    if lr is not None:
        cmd += ["--lr", str(lr)]
    r = run(cmd)
    if r.returncode != 0:
        return None, None, r.stdout + r.stderr
    with open(stats) as f:
        return bundle.read(dump), json.load(f), r.stdout


def run_against_base(c, args, step_dir: str, work: str, tag: str, what: str, base):
    """Runs one step and checks that its loss and gradients are bit-identical
    to `base` (the no-recompute step's, by name); returns its stats, or None
    if it did not run."""
    res, stats, out = run_step(args, step_dir, work, tag)
    c.check(res is not None, f"{what}: runs")
    if res is None:
        print(out)
        return None
    res = by_name(res)
    same = set(res) == set(base) and all(
        res[n].data == base[n].data for n in base if not n.startswith("param:"))
    c.check(same, f"{what}: loss and every gradient bit-identical to no-recompute")
    return stats


def rel(a, b) -> float:
    """||a - b|| / ||b|| (inf when not finite)."""
    a = np.asarray(bundle.to_numpy(a), dtype=np.float64)
    b = np.asarray(bundle.to_numpy(b), dtype=np.float64)
    err = float(np.linalg.norm(a - b)) / (float(np.linalg.norm(b)) or 1.0)
    return err if math.isfinite(err) else float("inf")


def by_name(tensors):
    return {t.name: t for t in tensors}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--ckpt-opt", required=True)
    ap.add_argument("--ckpt-run", required=True)
    ap.add_argument("--work", required=True, help="scratch directory (created)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--config", default="",
                    help="model size overrides for the exporter, e.g. batch=64,hidden=64")
    ap.add_argument("--dropout", type=float, default=0.0,
                    help="dropout p of the recomputation checks (0: none)")
    ap.add_argument("--strategies", default="optimal,full,selective")
    ap.add_argument("--budgets", default="1.0x,0.6x,0.4x,floor")
    ap.add_argument("--torch-tol", type=float, default=1e-5)
    ap.add_argument("--floor-steps", type=int, default=7,
                    help="bisection steps of the smallest-budget search (precision 2^-N)")
    ap.add_argument("--time-limit", type=float, default=2.0,
                    help="time limit of the exact engine inside `optimal`, seconds (the checks "
                         "hold for any plan; this keeps the budget search quick)")
    ap.add_argument("--train-steps", type=int, default=0)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--chunk-loss-head", type=int, default=0,
                    help="split the loss head into this many row chunks before planning (0: no)")
    ap.add_argument("--offload", default="",
                    help="host links (comma-separated) to plan `optimal` with offload over, at "
                         "--offload-budgets")
    ap.add_argument("--offload-budgets", default="0.6x")
    ap.add_argument("--offload-below-floor", action="store_true",
                    help="with --offload, also at the largest budget the keep/recompute floor "
                         "search found infeasible (needs `optimal` and `floor` among the "
                         "strategies and budgets), where a plan must exist")
    ap.add_argument("--chunk-tol", type=float, default=1e-6,
                    help="relative error allowed in the loss and each gradient of the chunked "
                         "no-recompute step against the unchunked one")
    args = ap.parse_args()
    global TIME_LIMIT
    TIME_LIMIT = args.time_limit
    c = Checker()
    os.makedirs(args.work, exist_ok=True)

    # 1. Recomputation is exact: every strategy and budget against `none`.
    work = os.path.join(args.work, "p%g" % args.dropout)
    export(args, args.dropout, work)
    graph = os.path.join(work, "graph.json")
    base_dir = os.path.join(work, "none")
    ok, err = emit(args, graph, "none", None, base_dir)
    if not ok:
        print(err, file=sys.stderr)
        return 1
    base, base_stats, out = run_step(args, base_dir, work, "none")
    if base is None:
        print(out, file=sys.stderr)
        return 1
    base = by_name(base)
    recomputed_somewhere = False
    if args.chunk_loss_head:
        # The chunked no-recompute step against the unchunked one.
        plain_dir = os.path.join(work, "none-unchunked")
        ok, err = emit(args, graph, "none", None, plain_dir, chunks=0)
        plain, _, out = run_step(args, plain_dir, work, "none-unchunked") if ok else (None, None, err)
        c.check(plain is not None, f"{args.model}: the unchunked step runs")
        if plain is not None:
            plain = by_name(plain)
            results = sorted(n for n in plain if not n.startswith("param:"))
            identical = [n for n in results if n in base and plain[n].data == base[n].data]
            worst = max((rel(base[n], plain[n]), n) for n in results if n in base)
            c.check(set(plain) == set(base) and worst[0] <= args.chunk_tol,
                    f"{args.model} chunks={args.chunk_loss_head}: loss and {len(results) - 1} "
                    f"gradients within {args.chunk_tol:g} (relative) of the unchunked step, worst "
                    f"{worst[0]:.3g} ({worst[1]}); {len(identical)} bit-identical")
        floors = [proven_floor(args, graph, k) for k in (0, args.chunk_loss_head)]
        c.check(None not in floors and floors[1] < floors[0],
                f"{args.model}: proven floor (activations) {floors[0]} bytes unchunked > "
                f"{floors[1]} with chunks={args.chunk_loss_head}")
    # The largest fraction each strategy's floor search found infeasible.
    infeasible_below = {}
    for strategy in args.strategies.split(","):
        for budget in args.budgets.split(","):
            tag = f"{strategy}-{budget}"
            if budget == "floor":
                # The smallest budget the strategy meets, to 2^-floor_steps of
                # the no-recompute peak: bisection over fractions, from the first
                # of 1x, 1.5x, 2x, 4x that fits (a fixed strategy's plan may
                # peak above the no-recompute one).
                # The plan checked is the one the bisection found at its
                # smallest feasible budget, kept as emitted: solving that
                # budget again could differ, since `optimal`'s exact engine
                # works under a wall-clock limit and finds less on a loaded
                # machine.
                step_dir = os.path.join(work, f"{strategy}-floor")
                try_dir = step_dir + ".try"

                def keep_try():
                    shutil.rmtree(step_dir, ignore_errors=True)
                    os.rename(try_dir, step_dir)

                lo, hi = 0.0, None
                infeasible_below[strategy] = None
                for upper in (1.0, 1.5, 2.0, 4.0):
                    if emit(args, graph, strategy, f"{upper:.6f}x", try_dir)[0]:
                        hi = upper
                        keep_try()
                        break
                    lo = upper
                if hi is None:
                    c.check(False, f"{args.model} {strategy}: fits some budget up to 4x")
                    continue
                for _ in range(args.floor_steps):
                    mid = (lo + hi) / 2
                    ok, err = emit(args, graph, strategy, f"{mid:.6f}x", try_dir)
                    if ok:
                        keep_try()
                    lo, hi = (lo, mid) if ok else (mid, hi)
                tag = f"{strategy}-floor({hi:.4f}x)"
                infeasible_below[strategy] = lo if lo > 0 else None
                c.check(os.path.isdir(step_dir),
                        f"{args.model} {tag}: the smallest budget found is feasible")
            else:
                step_dir = os.path.join(work, tag)
                ok, err = emit(args, graph, strategy, budget, step_dir)
                if not ok:
                    # Only the budget may make a fixed strategy infeasible.
                    c.check("no plan" in err or "exceeds the budget" in err or "does not fit" in err,
                            f"{args.model} {tag}: infeasible with a clear error")
                    print("  note: " + err.strip().splitlines()[0])
                    continue
            stats = run_against_base(c, args, step_dir, work, tag.split("(")[0],
                                     f"{args.model} {tag}", base)
            if stats is None:
                continue
            c.check(stats["runtime"]["peak_bytes_in_use"] == stats["plan"]["planned_peak_bytes"],
                    f"{args.model} {tag}: measured peak {stats['runtime']['peak_bytes_in_use']} == "
                    f"plan's {stats['plan']['planned_peak_bytes']}")
            c.check(stats["runtime"]["arena_bytes"] == stats["plan"]["arena_bytes"],
                    f"{args.model} {tag}: arena {stats['runtime']['arena_bytes']} == planner's")
            c.check(stats["runtime"]["recomputed_ops"] == stats["plan"]["recomputed_ops"],
                    f"{args.model} {tag}: recomputed ops {stats['runtime']['recomputed_ops']} == "
                    f"plan's {stats['plan']['recomputed_ops']}")
            recomputed_somewhere |= stats["runtime"]["recomputed_ops"] > 0
    c.check(recomputed_somewhere, f"{args.model}: some plan recomputes (the checks above bite)")

    # 1b. Offload is exact too: the copies' step against `none`, with the
    # runtime's accounting of both arenas equal to the plan.
    for link in filter(None, args.offload.split(",")):
        budgets = [b for b in args.offload_budgets.split(",") if b]
        below = infeasible_below.get("optimal") if args.offload_below_floor else None
        if below:
            budgets.append(f"{below:.6f}x")
        copied = False
        for budget in budgets:
            tag = f"optimal-offload-{link}-{budget}"
            step_dir = os.path.join(work, tag)
            ok, err = emit(args, graph, "optimal", budget, step_dir, offload=link)
            what = (f"{args.model} {tag}" + (" (below the keep/recompute floor)"
                                              if budget != budgets[0] and below else ""))
            c.check(ok, f"{what}: planned")
            if not ok:
                print("  note: " + err.strip().splitlines()[0])
                continue
            stats = run_against_base(c, args, step_dir, work, tag, what, base)
            if stats is None:
                continue
            rt, plan = stats["runtime"], stats["plan"]
            c.check(rt["peak_bytes_in_use"] == plan["planned_peak_bytes"] and
                    rt["arena_bytes"] == plan["arena_bytes"],
                    f"{what}: device peak {rt['peak_bytes_in_use']} == plan's "
                    f"{plan['planned_peak_bytes']}, arena {rt['arena_bytes']} == planner's")
            c.check(rt["host_peak_bytes_in_use"] == plan["planned_host_peak_bytes"] and
                    rt["host_arena_bytes"] == plan["host_arena_bytes"],
                    f"{what}: host peak {rt['host_peak_bytes_in_use']} == plan's "
                    f"{plan['planned_host_peak_bytes']}, host arena {rt['host_arena_bytes']}")
            c.check(rt["offloads"] == plan["offloads"] and rt["prefetches"] >= rt["offloads"]
                    and rt["bytes_to_device"] >= rt["bytes_to_host"],
                    f"{what}: {rt['offloads']} offloads ({rt['bytes_to_host']} bytes) == plan's, "
                    f"{rt['prefetches']} prefetches ({rt['bytes_to_device']} bytes)")
            copied |= rt["offloads"] > 0
        c.check(copied, f"{args.model} {link}: some plan offloads (the checks above bite)")

    # 2. Against PyTorch autograd, dropout off.
    work0 = os.path.join(args.work, "p0")
    export(args, 0.0, work0)
    ok, err = emit(args, os.path.join(work0, "graph.json"), "none", None,
                   os.path.join(work0, "none"))
    res0, _, out = run_step(args, os.path.join(work0, "none"), work0, "none") if ok else (None, None, err)
    c.check(res0 is not None, f"{args.model} p=0: runs")
    if res0 is not None:
        ours = by_name(res0)
        ref = by_name(bundle.read(os.path.join(work0, "reference.ckptb")))
        exact = by_name(bundle.read(os.path.join(work0, "reference64.ckptb")))

        worst = (0.0, "", 0.0, 0.0)
        missing = sorted(set(ref) - set(ours))
        c.check(not missing, f"{args.model}: every PyTorch gradient is among ours {missing[:3]}")
        for name in sorted(set(ref) & set(ours)):
            err = rel(ours[name], ref[name])
            if err >= worst[0]:
                worst = (err, name, rel(ours[name], exact[name]), rel(ref[name], exact[name]))
        c.check(worst[0] < args.torch_tol,
                f"{args.model}: {len(ref)} tensors match PyTorch autograd, worst relative "
                f"error {worst[0]:.3g} ({worst[1]}) < {args.torch_tol:g}; against float64 "
                f"there: ours {worst[2]:.3g}, PyTorch fp32 {worst[3]:.3g}")

    # 3. Training: the loss decreases, identically with recomputation.
    if args.train_steps:
        traces = {}
        for strategy, step_dir in (("none", base_dir), ("optimal", os.path.join(work, "optimal-floor"))):
            res, stats, out = run_step(args, step_dir, work, f"train-{strategy}",
                                       steps=args.train_steps, lr=args.lr)
            if res is None:
                c.check(False, f"{args.model} training with {strategy}: runs\n{out}")
                continue
            traces[strategy] = (stats["runtime"]["losses"], by_name(res))
        if len(traces) == 2:
            losses = traces["none"][0]
            c.check(len(losses) == args.train_steps and losses[-1] < 0.9 * losses[0],
                    f"{args.model}: {args.train_steps} SGD steps, loss {losses[0]:.5f} -> {losses[-1]:.5f}")
            same = traces["none"][0] == traces["optimal"][0] and all(
                traces["none"][1][n].data == traces["optimal"][1][n].data for n in traces["none"][1])
            c.check(same, f"{args.model}: loss trace and final parameters bit-identical with "
                          f"recomputation")
    print(f"{args.model}: {c.failures} failure(s)")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
