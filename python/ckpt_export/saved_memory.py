"""What PyTorch saves for backward, measured, next to what the exported graph says.

``python -m ckpt_export.saved_memory [--size tiny|full] [--models a,b] [--json F] [--detail]``
prints one row per model: the bytes PyTorch's autograd saves for backward in
eager mode and ckpt-opt's ``saved_activation_bytes`` (``--ckpt-report=json``)
for the same model exported by this package, with their difference, the
export's opaque ops and what ``strategy=optimal`` does at 0.5x of the
activation scope (the plan's predicted overhead, or the tool's floor).

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
    opaque: int = 0
    plan: str = ""  # what `optimal` does at 0.5x in budget-scope=activations
    lse_bytes: int = 0  # the fused cross-entropies' saved row log-sum-exps

    @property
    def difference(self) -> float:
        return (self.ckpt_bytes - self.torch_bytes) / self.torch_bytes if self.torch_bytes else 0.0


def cross_entropy_lse_bytes(graph) -> int:
    """Bytes of the f32 row log-sum-exp every ``cross_entropy`` keeps for its
    gradient, which PyTorch's log_softmax + nll_loss does not have (it keeps
    the log-probabilities, the size of the logits, where ckpt keeps the
    logits): the one difference of the saved bytes on models without
    attention (docs/exporter.md)."""
    total = 0
    for n in graph["nodes"]:
        if n["op"] == "cross_entropy" and len(n["outputs"]) > 1:
            o = n["outputs"][1]
            b = _BYTES[o["dtype"]]
            for d in o["shape"]:
                b *= d
            total += b
    return total


def storage_key(t: torch.Tensor) -> Tuple[torch.device, int, int]:
    """(device, address, bytes) of the storage under ``t``: a view shares
    its base's, so tensors with one key are one buffer in memory. Also the
    torch.compile backend's measure of saved bytes (ckpt_torch)."""
    st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage().untyped()  # torch 1.13
    return t.device, st.data_ptr(), st.nbytes()


def pytorch_saved_bytes(model: nn.Module, inputs, detail: Optional[list] = None) -> Tuple[int, int]:
    """(bytes, storages) that autograd saves for backward in one eager
    forward of ``model(*inputs)``: unique storages, parameters, buffers and
    inputs excluded. With `detail`, appends (storage bytes, dtype, shape,
    autograd node) per storage."""
    exclude = {storage_key(t)[:2] for t in list(model.parameters()) + list(model.buffers()) + list(inputs)
               if isinstance(t, torch.Tensor)}
    saved: Dict[tuple, int] = {}
    keep: List[torch.Tensor] = []

    def pack(t):
        device, address, nbytes = storage_key(t)
        key = (device, address)
        if key not in exclude and nbytes > 0:
            if key not in saved:
                where[key] = (_DTYPE_NAMES.get(t.dtype, str(t.dtype)), list(t.shape),
                              t.grad_fn.name() if t.grad_fn is not None else "leaf/output")
            saved[key] = max(saved.get(key, 0), nbytes)
            keep.append(t)  # so that no storage is freed and its address reused
        return t

    where: Dict[tuple, tuple] = {}
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = model(*inputs)
    del loss
    if detail is not None:
        detail.extend((saved[p],) + where[p] for p in saved)
    return sum(saved.values()), len(saved)


_DTYPE_NAMES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.int64: "i64",
                torch.int32: "i32", torch.bool: "i1"}
_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i1": 1}


def graph_saved_values(graph) -> list:
    """(bytes, dtype, shape, op) of every forward value a backward node reads
    (through reshapes, which are views): the exported graph's saved
    activations, computed independently of ckpt-opt, for --detail."""
    prod = {}
    for n in graph["nodes"]:
        for o in n["outputs"]:
            prod[o["id"]] = (n, o)
    out = {}
    for n in graph["nodes"]:
        if n["phase"] != "backward":
            continue
        for i in n["inputs"]:
            while i in prod and prod[i][0]["op"] == "reshape":
                i = prod[i][0]["inputs"][0]
            if i in prod and prod[i][0]["phase"] == "forward" and i not in out:
                o = prod[i][1]
                nbytes = _BYTES[o["dtype"]]
                for d in o["shape"]:
                    nbytes *= d
                out[i] = (nbytes, o["dtype"], o["shape"], prod[i][0]["op"])
    return list(out.values())


def ckpt_saved_bytes(graph_path: str, ckpt_opt: Optional[str] = None) -> Tuple[int, int]:
    """(saved_activation_bytes, saved_activation_count) of ckpt-opt's report."""
    exe = ckpt_opt or os.environ.get("CKPT_OPT") or os.path.join(SRC, "build", "bin", "ckpt-opt")
    r = subprocess.run([exe, graph_path, "--ckpt-report=json", "-o", os.devnull],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"ckpt-opt failed on {graph_path}: {r.stderr[-2000:]}")
    f = json.loads(r.stdout)["functions"][0]
    return int(f["saved_activation_bytes"]), int(f["saved_activation_count"])


def plan_at_half(graph_path: str, ckpt_opt: Optional[str] = None, budget: str = "0.5x") -> str:
    """`strategy=optimal` at `budget` of the activation scope: "+x.x%"
    (the plan's predicted overhead) or "floor F (f)" from the tool's own
    message when no plan exists."""
    import re
    exe = ckpt_opt or os.environ.get("CKPT_OPT") or os.path.join(SRC, "build", "bin", "ckpt-opt")
    r = subprocess.run([exe, graph_path, f"--ckpt-place-checkpoints=strategy=optimal budget={budget} "
                        "budget-scope=activations explain=true", "--emit=none"],
                       capture_output=True, text=True, timeout=600)
    if r.returncode == 0:
        m = re.search(r"overhead=([0-9.]+)", r.stderr)
        return f"+{100 * float(m.group(1)):.1f}%" if m else "plan"
    m = re.search(r"every plan needs at least ([^;\n]*?)(?: in this scope|$)", r.stderr, re.M)
    return f"no plan; floor {m.group(1)}" if m else "error: " + r.stderr.strip().splitlines()[0][:120]


def no_dropout(model: nn.Module):
    for m in model.modules():
        if isinstance(m, nn.modules.dropout._DropoutNd) or type(m).__name__ == "StochasticDepth":
            m.p = 0.0
        cfg = getattr(m, "config", None)
        for k in ("attention_dropout", "attention_probs_dropout_prob", "attn_pdrop"):
            if cfg is not None and getattr(cfg, k, None):
                setattr(cfg, k, 0.0)
        for k in ("dropout", "attention_dropout", "dropout_p"):
            if isinstance(getattr(m, k, None), float):
                setattr(m, k, 0.0)


def measure(name: str, spec, ckpt_opt: Optional[str] = None, detail: bool = False) -> SavedBytes:
    from .export import export
    no_dropout(spec.model)
    torch_items: list = []
    tb, ts = pytorch_saved_bytes(spec.model, spec.inputs, torch_items)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "g.json")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = export(spec.model, spec.inputs, path, name=name.replace(":", "_"),
                         input_names=getattr(spec, "input_names", None))
        cb, cc = ckpt_saved_bytes(path, ckpt_opt)
        plan = plan_at_half(path, ckpt_opt)
    if detail:  # what differs, by (bytes, dtype): the items docs/exporter.md explains
        from collections import Counter
        ckpt_items = graph_saved_values(res.graph)
        t = Counter((b, dt) for b, dt, _, _ in torch_items)
        c = Counter((b, dt) for b, dt, _, _ in ckpt_items)
        for key in sorted(set(t) | set(c), key=lambda k: (-k[0], k[1])):
            if t[key] != c[key]:
                print(f"  {key[0]:>10d} B {key[1]:4s}  PyTorch x{t[key]} "
                      f"{sorted({(g, tuple(sh)) for b, dt, sh, g in torch_items if (b, dt) == key})}  "
                      f"ckpt x{c[key]} "
                      f"{sorted({(op, tuple(sh)) for b, dt, sh, op in ckpt_items if (b, dt) == key})}")
    return SavedBytes(name, tb, ts, cb, cc, sum(res.opaque.values()), plan, cross_entropy_lse_bytes(res.graph))


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
    ap.add_argument("--detail", action="store_true",
                    help="list the saved buffers that differ, by size and dtype, on each side")
    a = ap.parse_args(argv)
    rows = []
    wanted = a.models.split(",") if a.models else None
    print(f"torch {torch.__version__}, size {a.size}")
    if a.detail:
        print("(detail rows follow each model: storage bytes, dtype, count and origin on each side)")
    print(f"{'model':24s} {'PyTorch saved B':>16s} {'storages':>8s} {'ckpt-opt saved B':>17s} "
          f"{'values':>6s} {'difference':>10s} {'opaque':>6s}  optimal at 0.5x (activations)")
    for name, make in corpus(a.size):
        if wanted and name not in wanted:
            continue
        torch.manual_seed(0)
        r = measure(name, make(a.size), detail=a.detail)
        rows.append(r)
        print(f"{name:24s} {r.torch_bytes:16d} {r.torch_storages:8d} {r.ckpt_bytes:17d} {r.ckpt_count:6d} "
              f"{100 * r.difference:+9.2f}% {r.opaque:6d}  {r.plan}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump([r.__dict__ for r in rows], f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
