#!/usr/bin/env python3
"""Memory floors with and without the chunked loss head (issue 25, item 1).

For each exported training step it asks ckpt-opt for the proven floor -- the
smallest memory any plan needs, "every plan needs at least N bytes" -- once
as exported and once after `ckpt-chunk-loss-head{chunks=K}` for each K
given, and prints a Markdown table: the floor in bytes and as a fraction of
the step's no-recompute peak (as exported), in the budget scope asked for.
Where ckpt-opt leaves a head as it is, the table says why (the pass's own
remark).

Usage (any Python 3; only ckpt-opt is run):

    python3 bench/loss_head_floors.py --ckpt-opt build/bin/ckpt-opt \\
        --chunks 0,4,16 --scope activations GRAPH.json ...

Exit status: 0 when every graph gave a floor in every column, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

FLOOR = re.compile(r"every plan needs at least [^(]*\((\d+) bytes")
PEAK = re.compile(r"at the no-recompute peak in budget-scope=\w+, [^(]*\((\d+) bytes\)")
CHUNKED = re.compile(r"remark: loss head chunked: (.*)")
LEFT = re.compile(r"remark: loss head left as it is: (.*)")


def floor_of(ckpt_opt: str, graph: str, scope: str, chunks: int):
    """(floor bytes or None, no-recompute peak or None, head note)."""
    # chunks=0: the pass picks the count (in the same scope).
    head = (f"func.func(ckpt-chunk-loss-head{{chunks={chunks} budget-scope={scope} "
            f"explain=true}}), " if chunks != 1 else "")
    pipeline = (f"builtin.module({head}func.func(ckpt-place-checkpoints{{strategy=optimal "
                f"budget=0.0001x budget-scope={scope}}}))")
    r = subprocess.run([ckpt_opt, graph, "--pass-pipeline=" + pipeline, "--emit=none"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    m = FLOOR.search(r.stderr)
    note = ""
    if chunks != 1:
        left = LEFT.search(r.stderr)
        chosen = CHUNKED.search(r.stderr)
        if chunks == 0 and chosen:
            note = "auto: " + chosen.group(1).split(";")[0]
        if left:
            note = "left as is: " + left.group(1)
        if not chosen and not note:
            note = "no cross_entropy"
    peak = PEAK.search(r.stderr)
    return (int(m.group(1)) if m else None, int(peak.group(1)) if peak else None, note,
            r.stderr if not m else "")


def mib(n: int) -> str:
    return f"{n / 2**20:,.1f} MiB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--ckpt-opt", required=True)
    ap.add_argument("--chunks", default="0", help="comma-separated chunk counts (0: the pass picks)")
    ap.add_argument("--scope", default="activations", choices=["activations", "step"])
    args = ap.parse_args()
    counts = [int(c) for c in args.chunks.split(",")]
    header = ["graph", f"floor as exported ({args.scope})"] + [
        f"floor, {c} chunks" if c else "floor, chunks=0 (auto)" for c in counts] + ["head"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    ok = True
    for graph in args.graphs:
        name = os.path.splitext(os.path.basename(graph))[0]
        base, peak, _, err = floor_of(args.ckpt_opt, graph, args.scope, 1)
        if base is None:
            print(f"| {name} | no floor: {err.strip().splitlines()[0] if err else '?'} |")
            ok = False
            continue
        # Fractions are of the no-recompute peak of the step as exported
        # (the chunked step's own differs a little).
        frac = f", {base / peak:.3f}x" if peak else ""
        cells = [f"{base:,} B ({mib(base)}{frac})"]
        notes = set()
        for c in counts:
            bytes_, _, note, err = floor_of(args.ckpt_opt, graph, args.scope, c)
            if note:
                notes.add(note)
            if bytes_ is None:
                cells.append("no floor")
                ok = False
                continue
            frac = f", {bytes_ / peak:.3f}x" if peak else ""
            cells.append(f"{bytes_:,} B ({mib(bytes_)}{frac})")
        print(f"| {name} | " + " | ".join(cells) + " | " +
              ("; ".join(sorted(notes)) or "chunked") + " |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
