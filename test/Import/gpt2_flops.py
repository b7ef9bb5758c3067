"""Checks the exported GPT-2 graph's FLOPs against the analytic count.

Forward matmul FLOPs, computed from the graph with the ckpt op semantics
(2*M*N*K per matmul, batch_matmul and linear; bias adds excluded), must equal
L*(24*b*s*h^2 + 4*b*s^2*h) + 2*b*s*h*V exactly; the total forward FLOPs that
ckpt-opt's cost interface reports (elementwise, softmax, norms, loss
included) must be within 2% of it.

Usage: gpt2_flops.py CKPT_OPT GRAPH.json LAYERS
"""

import json
import math
import subprocess
import sys


def matmul_flops(node, values):
    shape = lambda v: values[v]
    out = node["outputs"][0]["shape"]
    attrs = node.get("attrs", {})
    if node["op"] == "linear":
        x, w = node["inputs"][0], node["inputs"][1]
        rows = math.prod(shape(x)[:-1])
        return 2 * rows * shape(w)[0] * shape(w)[1]
    lhs = shape(node["inputs"][0])
    k = lhs[-2] if attrs.get("transpose_lhs") else lhs[-1]
    return 2 * math.prod(out) * k


def main():
    ckpt_opt, path, layers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    graph = json.load(open(path))
    values = {d["id"]: d["shape"] for d in graph["inputs"]}
    for node in graph["nodes"]:
        for out in node["outputs"]:
            values[out["id"]] = out["shape"]
    b, s = next(d["shape"] for d in graph["inputs"]
                if d["role"] == "input" and d.get("name") == "targets")
    vocab, h = next(d["shape"] for d in graph["inputs"]
                    if d["role"] == "param" and d.get("name", "").endswith("wte.weight"))
    analytic = layers * (24 * b * s * h * h + 4 * b * s * s * h) + 2 * b * s * h * vocab
    forward_matmuls = sum(matmul_flops(n, values) for n in graph["nodes"]
                          if n["phase"] == "forward"
                          and n["op"] in ("matmul", "batch_matmul", "linear"))
    report = json.loads(subprocess.run(
        [ckpt_opt, path, "--ckpt-report=json"], check=True, capture_output=True,
        text=True).stdout)
    total = report["functions"][0]["phases"]["forward"]["flops"]
    print(f"config: L={layers} b={b} s={s} h={h} V={vocab}")
    print(f"analytic {analytic}, forward matmul {forward_matmuls}: "
          f"{'exact' if forward_matmuls == analytic else 'MISMATCH'}")
    ratio = total / analytic
    print(f"total forward {total} = {ratio:.4f} x analytic: "
          f"{'within 2%' if abs(ratio - 1) <= 0.02 else 'NOT within 2%'}")
    return 0 if forward_matmuls == analytic and abs(ratio - 1) <= 0.02 else 1


if __name__ == "__main__":
    sys.exit(main())
