"""Reference data for end-to-end tests of generated training steps.

For a small corpus model with deterministic weights this writes, into one
directory:

``graph.json``
    the exported training step (graph format v1).
``params.ckptb``
    every parameter of the graph, keyed by its graph input ``name`` (the
    module path, ``h.0.attn.c_attn.weight``): what ckpt-opt puts in the
    argument's ``NameLoc`` and the code generator binds by.
``inputs.ckptb``
    every other graph input, keyed by its ``name``: the model's forward
    arguments (``idx``, ``targets``, ``img``, ``x``, ``target``), constant
    buffers (``pos``, ``mask``, ``cos``, ``sin``) and the loss-gradient seed
    (``seed``: the ``seed``-role input, d loss / d loss, always 1.0).
``reference.ckptb`` (only with dropout 0)
    PyTorch autograd on the same weights and inputs: ``loss`` and
    ``grad:<param name>`` for every parameter the graph has a gradient for.
``meta.json``
    model, configuration, seed, dropout, the naming convention, the graph's
    input ids with their names and roles, and the files written.

Bundles are the tensor-bundle format of :mod:`ckpt_export.bundle`, tensors in
graph input (or output) order. The same model, configuration and seed give
byte-identical files.

Command line (Debian's interpreter, from the repository's ``python/``
directory or with it on PYTHONPATH)::

    /usr/bin/python3 -m ckpt_export.reference --model gpt2 --seed 0 --dropout 0 --out DIR
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from typing import Any, Dict, List, Optional

import torch

from . import bundle
from .export import ExportResult, export
from .models import MODELS, ModelSpec

#: Corpus model behind each accepted name.
ALIASES = {"gpt2": "gpt2", "llama": "llama", "resnet": "resnet50", "resnet50": "resnet50",
           "mlp": "mlp32", "mlp32": "mlp32", "bert": "bert", "unet": "unet",
           "mobilenet_v2": "mobilenet_v2"}

#: The small configurations (overrides of the corpus' tiny ones).
SMALL: Dict[str, Dict[str, Any]] = {
    "gpt2": dict(layers=2, hidden=32, heads=4, seq=16, batch=2, vocab=97),
    "llama": dict(layers=2, hidden=32, heads=4, inter=88, seq=16, batch=2, vocab=101),
    # one bottleneck block per stage (4 in all), batch norm in training mode
    "resnet50": dict(batch=2, res=16, classes=10),
    "mlp32": dict(layers=4, hidden=16, batch=4, classes=10),
    "bert": dict(layers=2, hidden=32, heads=4, inter=64, seq=16, batch=2, vocab=89),
    "unet": dict(batch=2, res=16, classes=3),
    "mobilenet_v2": dict(batch=2, res=32, classes=10),
}

#: Models with a dropout probability in their configuration.
HAS_DROPOUT = {"gpt2", "bert"}

SEED_VALUE = 1.0


class ReferenceError(RuntimeError):
    pass


def build(model: str, seed: int = 0, dropout: float = 0.0, **overrides) -> ModelSpec:
    """The small configuration of `model` (overridable), weights drawn from
    ``torch.manual_seed(seed)``, example inputs from a generator seeded
    ``seed + 1``."""
    if model not in ALIASES:
        raise ReferenceError(f"unknown model {model!r} (expected one of {', '.join(sorted(ALIASES))})")
    name = ALIASES[model]
    if not 0.0 <= dropout < 1.0:
        raise ReferenceError(f"dropout must be in [0, 1), got {dropout}")
    cfg = dict(SMALL[name])
    cfg.update({k: v for k, v in overrides.items() if v is not None})
    if name in HAS_DROPOUT:
        cfg["dropout"] = float(dropout)
    elif dropout:
        raise ReferenceError(f"{model} has no dropout layers; use --dropout 0")
    spec = MODELS[name]("tiny", seed=seed, **cfg)
    spec.model.train()
    return spec


def _graph_inputs(res: ExportResult) -> List[Dict[str, Any]]:
    return res.graph["inputs"]


def input_tensors(spec: ModelSpec, res: ExportResult) -> Dict[str, Dict[str, torch.Tensor]]:
    """The tensors of every graph input by role (``param`` / ``input``),
    keyed by their graph ``name``, in graph order; the seed input is in
    ``input`` as 1.0."""
    params = dict(spec.model.named_parameters())
    buffers = dict(spec.model.named_buffers())
    args = dict(zip(res.capture.input_names, spec.inputs))
    out: Dict[str, Dict[str, torch.Tensor]] = {"param": {}, "input": {}}
    dtypes = {v: k for k, v in {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
                                torch.int64: "i64", torch.int32: "i32", torch.bool: "i1"}.items()}
    seen = set()
    for d in _graph_inputs(res):
        name = d.get("name")
        if not name:
            raise ReferenceError(f"graph input {d['id']} has no name")
        if name in seen:
            raise ReferenceError(f"two graph inputs are named {name!r}")
        seen.add(name)
        if d["role"] == "seed":
            t = torch.tensor(SEED_VALUE, dtype=dtypes[d["dtype"]])
        elif d["role"] == "param":
            t = params[name]
        elif name in buffers:
            t = buffers[name]
        elif name in args:
            t = args[name]
        else:
            raise ReferenceError(f"no tensor for graph input {d['id']} ({name!r})")
        t = t.detach()
        if list(t.shape) != d["shape"] or t.dtype != dtypes[d["dtype"]]:
            raise ReferenceError(f"graph input {name!r} is declared {d['shape']} {d['dtype']}, "
                                 f"the model has {list(t.shape)} {t.dtype}")
        out["param" if d["role"] == "param" else "input"][name] = t
    return out


def autograd_reference(spec: ModelSpec, res: ExportResult) -> Dict[str, torch.Tensor]:
    """``loss`` and ``grad:<name>`` for every gradient the graph returns, from
    eager PyTorch autograd on the spec's weights and inputs."""
    model = spec.model
    model.zero_grad(set_to_none=True)
    loss = model(*spec.inputs)
    loss.backward()
    params = dict(model.named_parameters())
    names = {d["id"]: d["name"] for d in _graph_inputs(res)}
    out = {"loss": loss.detach().clone()}
    for o in res.graph["outputs"]:
        if o["role"] == "grad":
            name = names[o["grad_of"]]
            g = params[name].grad
            if g is None:
                raise ReferenceError(f"autograd gives no gradient for {name!r}")
            out["grad:" + name] = g.detach().clone()
    model.zero_grad(set_to_none=True)
    return out


def float64_reference(spec: ModelSpec, res: ExportResult) -> Dict[str, torch.Tensor]:
    """Like ``autograd_reference`` but computed in float64 on a copy of the
    model (weights, buffers and float inputs widened exactly), then rounded to
    float32: the "exact" answer both fp32 programs are judged against."""
    import copy
    model = copy.deepcopy(spec.model).double()
    inputs = [x.double() if x.is_floating_point() else x for x in spec.inputs]
    wide = ModelSpec(**{**spec.__dict__, "model": model, "inputs": inputs})
    return {k: v.float() for k, v in autograd_reference(wide, res).items()}


def write_reference(model: str, out_dir: str, seed: int = 0, dropout: float = 0.0,
                    allow_opaque: bool = False, **overrides) -> Dict[str, Any]:
    """Writes graph.json, params.ckptb, inputs.ckptb, reference.ckptb (dropout
    0 only) and meta.json into `out_dir`; returns the metadata."""
    spec = build(model, seed, dropout, **overrides)
    os.makedirs(out_dir, exist_ok=True)
    # The state the reference is computed from, captured before anything runs.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = export(spec.model, spec.inputs, name=spec.name)
    if res.opaque and not allow_opaque:
        raise ReferenceError(f"{model}: the graph has opaque ops the code generator cannot run: "
                             f"{dict(sorted(res.opaque.items()))}")
    res.dump(os.path.join(out_dir, "graph.json"))
    tensors = input_tensors(spec, res)
    bundle.write_torch(os.path.join(out_dir, "params.ckptb"), tensors["param"])
    bundle.write_torch(os.path.join(out_dir, "inputs.ckptb"), tensors["input"])
    files = ["graph.json", "params.ckptb", "inputs.ckptb"]
    if dropout == 0.0:
        ref = autograd_reference(spec, res)
        bundle.write_torch(os.path.join(out_dir, "reference.ckptb"), ref)
        files.append("reference.ckptb")
        bundle.write_torch(os.path.join(out_dir, "reference64.ckptb"), float64_reference(spec, res))
        files.append("reference64.ckptb")
    seed_input = next(d for d in res.graph["inputs"] if d["role"] == "seed")
    meta = {
        "model": spec.name,
        "config": {k: v for k, v in sorted(spec.config.items())},
        "seed": seed,
        "dropout": dropout,
        "torch": torch.__version__,
        "files": files + ["meta.json"],
        "naming": {
            "params.ckptb": "graph input name of every param (the module path)",
            "inputs.ckptb": "graph input name of every input and of the seed",
            "reference.ckptb": "'loss' and 'grad:<param name>'",
            "reference64.ckptb": "the same computed in float64, rounded to float32",
        },
        "loss_seed": {"name": seed_input["name"], "id": seed_input["id"], "value": SEED_VALUE},
        "inputs": [{"id": d["id"], "name": d["name"], "role": d["role"], "shape": d["shape"],
                    "dtype": d["dtype"]} for d in res.graph["inputs"]],
        "opaque": dict(sorted(res.opaque.items())),
    }
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    return meta


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m ckpt_export.reference",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, choices=sorted(ALIASES))
    ap.add_argument("--seed", type=int, default=0, help="weights and inputs seed (default 0)")
    ap.add_argument("--dropout", type=float, default=0.0,
                    help="dropout probability (GPT-2, BERT); the autograd reference is written only for 0")
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--allow-opaque", action="store_true",
                    help="write the files even if the graph has opaque ops")
    for k in ("batch", "seq", "layers", "hidden", "heads", "vocab", "inter", "res", "classes"):
        ap.add_argument("--" + k, type=int, help="override the small configuration's " + k)
    a = ap.parse_args(argv)
    ov = {k: getattr(a, k) for k in ("batch", "seq", "layers", "hidden", "heads", "vocab", "inter", "res",
                                      "classes")}
    try:
        meta = write_reference(a.model, a.out, a.seed, a.dropout, a.allow_opaque, **ov)
    except ReferenceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{a.out}: {meta['model']} {', '.join(meta['files'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
