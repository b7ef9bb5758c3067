#!/usr/bin/python3
"""Writes deterministic inputs for a generated step, for ckpt-run --inputs.

Usage: /usr/bin/python3 make_inputs.py STEP.plan.json OUT.ckptb [--seed N]
                                       [--int-high K] [--shape NAME=D0xD1...]

Every argument whose role is `input` or `state` gets a tensor of its name,
dtype and shape: floats uniform in [-1, 1), integers uniform in
[0, --int-high) (default 2, valid class indices of any classifier), i1 as
0/1. `--shape` gives input NAME another shape (to test ckpt-run's checks).
Bundle format: runtime/include/ckpt/Runtime/TensorBundle.h.
"""

import argparse
import json
import random
import struct

CODES = {"f32": (0, "f"), "i1": (3, "B"), "i32": (4, "i"), "i64": (5, "q")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plan")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--int-high", type=int, default=2)
    ap.add_argument("--shape", action="append", default=[])
    args = ap.parse_args()
    with open(args.plan) as f:
        plan = json.load(f)
    rng = random.Random(args.seed)
    shapes = {}
    for spec in args.shape:
        name, dims = spec.split("=")
        shapes[name] = [int(d) for d in dims.split("x")] if dims else []
    tensors = []
    for a in plan["arguments"]:
        if a["role"] not in ("input", "state"):
            continue
        a["shape"] = shapes.get(a["name"], a["shape"])
        n = 1
        for d in a["shape"]:
            n *= d
        if a["dtype"] == "f32":
            values = [rng.uniform(-1.0, 1.0) for _ in range(n)]
        elif a["dtype"] == "i1":
            values = [rng.randrange(2) for _ in range(n)]
        else:
            values = [rng.randrange(args.int_high) for _ in range(n)]
        tensors.append((a["name"], a["dtype"], a["shape"], values))
    with open(args.out, "wb") as f:
        f.write(b"CKPTB001")
        f.write(struct.pack("<Q", len(tensors)))
        for name, dtype, shape, values in tensors:
            code, fmt = CODES[dtype]
            encoded = name.encode()
            f.write(struct.pack("<I", len(encoded)))
            f.write(encoded)
            f.write(struct.pack("<BB", code, len(shape)))
            for d in shape:
                f.write(struct.pack("<q", d))
            f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


if __name__ == "__main__":
    main()
