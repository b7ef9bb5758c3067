"""Regenerate the corpus: ``python3 -m ckpt_export.make_corpus OUTDIR [--size tiny|full|both] [--models a,b]``.

Writes ``OUTDIR/<model>.<size>.json`` for every model of :data:`ckpt_export.models.MODELS`
and prints export time, node counts per phase, opaque ops and file size.
The committed corpus lives in ``examples/graphs/``; regenerate it from the
repository root (source locations are written relative to the working
directory) with ``PYTHONPATH=python /usr/bin/python3 -m ckpt_export.make_corpus
examples/graphs --size both``.
"""

import argparse
import os
import sys
import time
import warnings
from collections import Counter

from .export import export
from .models import MODELS


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m ckpt_export.make_corpus")
    ap.add_argument("outdir")
    ap.add_argument("--size", choices=["tiny", "full", "both"], default="tiny")
    ap.add_argument("--models", default=",".join(MODELS))
    a = ap.parse_args(argv)
    os.makedirs(a.outdir, exist_ok=True)
    sizes = ["tiny", "full"] if a.size == "both" else [a.size]
    for size in sizes:
        for name in a.models.split(","):
            spec = MODELS[name](size)
            path = os.path.join(a.outdir, f"{name}.{size}.json")
            t0 = time.time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = export(spec.model, spec.inputs, path, name=f"{name}_{size}")
            dt = time.time() - t0
            ph = Counter(n["phase"] for n in res.graph["nodes"])
            print(f"{name:13s} {size:4s} {dt:6.1f}s nodes={len(res.graph['nodes']):5d} "
                  f"fwd={ph['forward']:5d} bwd={ph['backward']:5d} "
                  f"size={os.path.getsize(path) / 1e6:6.2f}MB opaque={dict(res.opaque)}", flush=True)
            del spec, res


if __name__ == "__main__":
    sys.exit(main())
