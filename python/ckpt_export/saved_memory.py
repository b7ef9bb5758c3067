"""What PyTorch saves for backward, measured, next to what the exported graph says.

``python -m ckpt_export.saved_memory [--size tiny|full] [--models a,b] [--json F]``
prints one row per model: the bytes PyTorch's autograd saves for backward in
eager mode and ckpt-opt's ``saved_activation_bytes`` (``--ckpt-report=json``)
for the same model exported by this package, with their difference.

PyTorch's side: the forward runs under ``torch.autograd.graph.
saved_tensors_hooks``; every tensor autograd packs is reduced to its storage
(views of one storage count once, as a view is never a buffer) and storages
of parameters, buffers and the step's inputs are left out (they are not
activations: they exist whether or not autograd saves them). Dropout is
switched off in both (``p`` set to 0 on every dropout module and config),
because PyTorch does not save a mask when ``p == 0`` only in some kernels.

Environment: the binary is ``$CKPT_OPT`` or ``build/bin/ckpt-opt``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))


@dataclass
class SavedBytes:
    model: str
    torch_bytes: int
    torch_storages: int
    ckpt_bytes: int
    ckpt_count: int

    @property
    def difference(self) -> float:
        return (self.ckpt_bytes - self.torch_bytes) / self.torch_bytes if self.torch_bytes else 0.0


def _storage_key(t: torch.Tensor) -> Tuple[int, int]:
    st = t.untyped_storage()
    return st.data_ptr(), st.nbytes()


def pytorch_saved_bytes(model: nn.Module, inputs) -> Tuple[int, int]:
    """(bytes, storages) that autograd saves for backward in one eager
    forward of ``model(*inputs)``: unique storages, parameters, buffers and
    inputs excluded."""
    exclude = {_storage_key(t)[0] for t in list(model.parameters()) + list(model.buffers()) + list(inputs)
               if isinstance(t, torch.Tensor)}
    saved: Dict[int, int] = {}
    keep: List[torch.Tensor] = []

    def pack(t):
        ptr, nbytes = _storage_key(t)
        if ptr not in exclude and nbytes > 0:
            saved[ptr] = max(saved.get(ptr, 0), nbytes)
            keep.append(t)  # so that no storage is freed and its address reused
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = model(*inputs)
    del loss
    return sum(saved.values()), len(saved)


def ckpt_saved_bytes(graph_path: str, ckpt_opt: Optional[str] = None) -> Tuple[int, int]:
    """(saved_activation_bytes, saved_activation_count) of ckpt-opt's report."""
    exe = ckpt_opt or os.environ.get("CKPT_OPT") or os.path.join(SRC, "build", "bin", "ckpt-opt")
    r = subprocess.run([exe, graph_path, "--ckpt-report=json", "-o", os.devnull],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"ckpt-opt failed on {graph_path}: {r.stderr[-2000:]}")
    f = json.loads(r.stdout)["functions"][0]
    return int(f["saved_activation_bytes"]), int(f["saved_activation_count"])


def no_dropout(model: nn.Module):
    for m in model.modules():
        if isinstance(m, nn.modules.dropout._DropoutNd):
            m.p = 0.0
        cfg = getattr(m, "config", None)
        for k in ("attention_dropout", "attention_probs_dropout_prob", "attn_pdrop"):
            if cfg is not None and getattr(cfg, k, None):
                setattr(cfg, k, 0.0)
        for k in ("dropout", "attention_dropout", "dropout_p"):
            if isinstance(getattr(m, k, None), float):
                setattr(m, k, 0.0)


def measure(name: str, spec, ckpt_opt: Optional[str] = None) -> SavedBytes:
    from .export import export
    no_dropout(spec.model)
    tb, ts = pytorch_saved_bytes(spec.model, spec.inputs)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "g.json")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            export(spec.model, spec.inputs, path, name=name.replace(":", "_"),
                   input_names=getattr(spec, "input_names", None))
        cb, cc = ckpt_saved_bytes(path, ckpt_opt)
    return SavedBytes(name, tb, ts, cb, cc)


def corpus(size: str):
    """(name, factory) of every corpus model this torch can build."""
    from .models import MODELS
    out = [(n, f) for n, f in MODELS.items()]
    try:
        from .library_models import LIBRARY
        import transformers  # noqa: F401
        out += list(LIBRARY.items())
    except ImportError:
        pass
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m ckpt_export.saved_memory")
    ap.add_argument("--size", choices=["tiny", "full"], default="tiny")
    ap.add_argument("--models", help="comma-separated names (default: the whole corpus)")
    ap.add_argument("--json", help="also write the rows here")
    a = ap.parse_args(argv)
    rows = []
    wanted = a.models.split(",") if a.models else None
    print(f"torch {torch.__version__}, size {a.size}")
    print(f"{'model':24s} {'PyTorch saved B':>16s} {'storages':>8s} {'ckpt-opt saved B':>17s} "
          f"{'values':>6s} {'difference':>10s}")
    for name, make in corpus(a.size):
        if wanted and name not in wanted:
            continue
        torch.manual_seed(0)
        r = measure(name, make(a.size))
        rows.append(r)
        print(f"{name:24s} {r.torch_bytes:16d} {r.torch_storages:8d} {r.ckpt_bytes:17d} {r.ckpt_count:6d} "
              f"{100 * r.difference:+9.2f}%", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump([r.__dict__ for r in rows], f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
