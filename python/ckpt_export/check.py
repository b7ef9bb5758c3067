"""Structural checks of a graph-format-v1 document (mirrors what the importer checks
that a JSON Schema cannot express) and FLOP counting from the ckpt op semantics."""

from __future__ import annotations

import json
import os
from typing import List

SCHEMA_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "graph-format.schema.json")


def schema():
    with open(SCHEMA_PATH) as f:
        return json.load(f)


def structural_errors(g) -> List[str]:
    errs = []
    defined = {}
    phase_of = {}
    node_ids = set()
    for i, d in enumerate(g["inputs"]):
        if d["id"] in defined:
            errs.append(f"inputs[{i}]: duplicate value id {d['id']}")
        defined[d["id"]] = d
        phase_of[d["id"]] = "seed" if d["role"] == "seed" else "input"
    for k, nd in enumerate(g["nodes"]):
        if "id" in nd:
            if nd["id"] in node_ids:
                errs.append(f"nodes[{k}]: duplicate node id {nd['id']}")
            node_ids.add(nd["id"])
        for j, v in enumerate(nd["inputs"]):
            if v is None:
                continue
            if v not in defined:
                errs.append(f"nodes[{k}].inputs[{j}]: use of undefined value {v!r}")
            elif nd["phase"] == "forward" and phase_of[v] in ("backward", "optimizer", "seed"):
                errs.append(f"nodes[{k}] ({nd['id']}): forward op uses {phase_of[v]} value {v}")
            elif nd["phase"] == "backward" and phase_of[v] == "optimizer":
                errs.append(f"nodes[{k}]: backward op uses optimizer value {v}")
        for o in nd["outputs"]:
            if o["id"] in defined:
                errs.append(f"nodes[{k}]: duplicate value id {o['id']}")
            defined[o["id"]] = o
            phase_of[o["id"]] = nd["phase"]
    losses = [o for o in g["outputs"] if o["role"] == "loss"]
    if len(losses) != 1:
        errs.append(f"{len(losses)} loss outputs")
    else:
        lv = defined.get(losses[0]["value"])
        if lv is None or lv["shape"] != [] or lv["dtype"] not in ("f32", "f16", "bf16"):
            errs.append("loss is not a scalar float")
    params = {d["id"]: d for d in g["inputs"] if d["role"] == "param"}
    seen = set()
    for o in g["outputs"]:
        if o["value"] not in defined:
            errs.append(f"output {o['value']} undefined")
            continue
        if o["role"] == "grad":
            p = params.get(o.get("grad_of"))
            if p is None:
                errs.append(f"grad_of {o.get('grad_of')} is not a param")
                continue
            if o["grad_of"] in seen:
                errs.append(f"two gradients for {o['grad_of']}")
            seen.add(o["grad_of"])
            v = defined[o["value"]]
            if v["shape"] != p["shape"] or v["dtype"] != p["dtype"]:
                errs.append(f"gradient of {o['grad_of']} has {v['shape']} {v['dtype']}, param {p['shape']}")
    for pid in params:
        if pid not in seen:
            errs.append(f"param {pid} ({params[pid].get('name')}) has no gradient")
    if sum(d["role"] == "seed" for d in g["inputs"]) != 1:
        errs.append("expected exactly one seed input")
    return errs


def _vol(s):
    n = 1
    for d in s:
        n *= d
    return n


def matmul_flops(g, phase="forward"):
    """2*M*N*K summed over matmul / batch_matmul / linear (bias excluded) of one phase."""
    shapes = {d["id"]: d["shape"] for d in g["inputs"]}
    for nd in g["nodes"]:
        for o in nd["outputs"]:
            shapes[o["id"]] = o["shape"]
    total = 0
    for nd in g["nodes"]:
        if nd["phase"] != phase:
            continue
        a = nd.get("attrs", {})
        if nd["op"] in ("matmul", "batch_matmul"):
            lhs = shapes[nd["inputs"][0]]
            K = lhs[-2] if a.get("transpose_lhs") else lhs[-1]
            total += 2 * _vol(nd["outputs"][0]["shape"]) * K
        elif nd["op"] == "linear":
            x, w = shapes[nd["inputs"][0]], shapes[nd["inputs"][1]]
            total += 2 * _vol(x[:-1]) * w[0] * w[1]
    return total
