"""Prints the op count, phase counts and total compute_cost of imported IR.

Usage: ckpt-opt graph.json | remat_graph_totals.py
"""
import re
import sys

ops = fwd = bwd = total = 0
for line in sys.stdin:
    match = re.search(r"ckpt\.opaque (fwd|bwd) .*compute_cost = (\d+) : i64", line)
    if match:
        ops += 1
        fwd += match.group(1) == "fwd"
        bwd += match.group(1) == "bwd"
        total += int(match.group(2))
print(f"ops={ops} fwd={fwd} bwd={bwd} total_cost={total}")
