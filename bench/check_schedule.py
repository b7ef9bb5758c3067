#!/usr/bin/env python3
"""Measures a schedule of a rematerialization benchmark graph independently of ckpt-opt.

A schedule is a text file of node names, one per line, in the order they are computed
(a recomputation repeats a name; `#` starts a comment). Every node's inputs must be in
memory when it runs: a value lives from its computation to its last read before it is
computed again, and the target node's last computation lives to the end. Prints the peak
live bytes (out_cost, or cost_ram for Checkmate's graphs), the no-recompute peak in the
given order, their ratio, and the total cost over the no-recompute cost; exits 1 when
the schedule is invalid or over `--budget` (a fraction of the no-recompute peak).

    /usr/bin/python3 bench/check_schedule.py GRAPH.json SCHEDULE.txt --budget 0.5
"""
import argparse
import json
import sys


def load(path):
    graph = json.load(open(path))
    nodes = {}
    for node in graph["nodes"]:
        key = node.get("id", node.get("name"))
        nodes[key] = (node.get("out_cost", node.get("cost_ram")),
                      node.get("duration", node.get("cost_cpu", 0)))
    deps = {key: [] for key in nodes}
    for link in graph["links"]:
        source = link.get("0", link.get("source"))
        target = link.get("1", link.get("target"))
        deps[target].append(source)
    return graph, nodes, deps


def measure(nodes, deps, target, steps):
    """Peak live bytes and total cost of `steps`; raises ValueError if invalid."""
    latest = {}
    last_read = [-1] * len(steps)
    for t, v in enumerate(steps):
        for u in deps[v]:
            if u not in latest:
                raise ValueError("step %d computes %r before its input %r" % (t, v, u))
            last_read[latest[u]] = t
        latest[v] = t
    if target not in latest:
        raise ValueError("the target %r is never computed" % target)
    last_read[latest[target]] = len(steps)
    freed = [[] for _ in steps]
    for t, end in enumerate(last_read):
        if end < len(steps):
            freed[max(end, t)].append(t)
    live = peak = 0
    cost = 0.0
    for t, v in enumerate(steps):
        live += nodes[v][0]
        cost += nodes[v][1]
        peak = max(peak, live)
        for u in freed[t]:
            live -= nodes[steps[u]][0]
    return peak, cost


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("schedule")
    parser.add_argument("--budget", type=float, default=None)
    args = parser.parse_args()
    graph, nodes, deps = load(args.graph)
    target = graph["graph"]["target_node"]
    names = {str(key): key for key in nodes}
    steps = []
    for number, line in enumerate(open(args.schedule), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line not in names:
            sys.exit("%s:%d: unknown node %r" % (args.schedule, number, line))
        steps.append(names[line])
    try:
        peak, cost = measure(nodes, deps, target, steps)
    except ValueError as error:
        sys.exit("%s: invalid schedule: %s" % (args.schedule, error))
    base_peak, base_cost = measure(nodes, deps, target, graph["graph"]["order"])
    print("steps %d peak %d no-recompute peak %d ratio %.5f cost %.4fx"
          % (len(steps), peak, base_peak, peak / base_peak, cost / base_cost))
    if args.budget is not None and peak > int(args.budget * base_peak):
        print("over the budget of %d bytes" % int(args.budget * base_peak))
        sys.exit(1)


if __name__ == "__main__":
    main()
