"""Checks a `decisions=` document of ckpt-place-checkpoints against the graph
it plans and, independently, against `ckpt-report=json` of the rewritten IR.

Usage: check_decisions.py DECISIONS GRAPH REPORT
Prints `ok saved=<bytes> recomputed-nodes=<n>` or fails with the reason."""

import json
import sys

dec = json.load(open(sys.argv[1]))
graph = json.load(open(sys.argv[2]))
report = json.load(open(sys.argv[3]))["functions"][0]

assert dec["format"] == "ckpt-plan-decisions" and dec["version"] == 1, dec.get("format")
# One value per output of every JSON node, in order.
want = [(i, j) for i, nd in enumerate(graph["nodes"]) for j, _ in enumerate(nd["outputs"])]
got = [(v["op"], v["result"]) for v in dec["values"]]
assert got == want, "values do not follow the graph's nodes"
nodes = dec["nodes"]
assert all(-1 <= v["node"] < len(nodes) for v in dec["values"])
# Saved bytes are the sum over saved nodes, all forward and computed once first.
saved = sum(n["bytes"] for n in nodes if n["saved"])
assert saved == dec["saved_bytes"], (saved, dec["saved_bytes"])
assert all(n["forward"] and n["computations"] >= 1 for n in nodes if n["saved"])
assert all(n["computations"] == 1 for n in nodes if not n["forward"]), "a backward node recomputed"
# The independent simulation of the rewritten IR: its saved activations are
# the plan's plus the loss (a forward output live to the end, which the
# decisions do not count as saved for the backward).
loss_bytes = 4
assert report["saved_activation_bytes"] == saved + loss_bytes, (report["saved_activation_bytes"], saved)
if dec["budget_bytes"] >= 0:
    assert dec["peak_bytes"] <= dec["budget_bytes"], (dec["peak_bytes"], dec["budget_bytes"])
recomputed = sum(1 for n in nodes if n["computations"] > 1)
assert (recomputed > 0) == (dec["recomputed_ops"] > 0)
print(f"ok saved={saved} recomputed-nodes={recomputed}")
