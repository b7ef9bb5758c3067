"""Runs one ckpt op on the host runtime, for tests against PyTorch.

A helper module for tests (not a test file itself). ``run_op`` writes a
one-node training step in the graph format (docs/graph-format.md) around the
op, plans and emits it as C++ with ``ckpt-opt --emit=cpp``, compiles and runs
it with ``ckpt-run`` and returns the op's results as ``torch.Tensor``s,
bit for bit as the host kernel wrote them::

    import op_check
    op_check.require_tools()             # pytest.skip unless the tools exist
    (y,) = op_check.run_op("hardswish", [x], [(x.shape, "f32")])
    op_check.assert_bitwise_equal(y, torch.nn.functional.hardswish(x))

The step built around the op:

* every present operand is a graph input of role ``input`` named ``in<i>``
  (``<i>`` its operand position); ``None`` marks an absent optional operand
  (``null`` in the node's ``inputs``);
* every result of the op is a step output of role ``output``, in order;
* a step needs exactly one loss (a scalar float): it is the negation of one
  extra scalar f32 input, unrelated to the op, so ops of any result type or
  phase can be checked;
* the phase is ``backward`` for ops named ``*_grad``, ``optimizer`` for
  ``*_update`` and ``forward`` otherwise, unless given.

The step is planned with ``ckpt-pipeline{strategy=none plan-memory}``: no
recomputation, so the results are those of one call of the op's kernel.

Tools: ``CKPT_OPT`` (default ``build/bin/ckpt-opt`` of this checkout),
``CKPT_RUN`` (default ``ckpt-run`` next to ``ckpt-opt``) and the C++ compiler
ckpt-run uses (``CXX``, default ``c++``). ``require_tools`` skips the calling
test when one is missing; ``run_op`` raises ``OpCheckError`` with the
tool's output when a step fails to import, plan, compile or run.

Run with Debian's interpreter (``/usr/bin/python3``: torch 1.13, numpy).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import torch

from ckpt_export import bundle

HERE = os.path.dirname(os.path.abspath(__file__))
_DEFAULT_OPT = os.path.join(HERE, "..", "..", "build", "bin", "ckpt-opt")

#: Graph dtype name of each torch dtype the format has.
_DTYPE_NAMES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
                torch.bool: "i1", torch.int32: "i32", torch.int64: "i64"}

TensorLike = Union[torch.Tensor, np.ndarray]
#: An expected result: its shape and dtype (a graph dtype name or a torch dtype).
OutputSpec = Tuple[Sequence[int], Union[str, torch.dtype]]


class OpCheckError(RuntimeError):
    """A step that ckpt-opt or ckpt-run refused or failed to run; the message
    holds the command and its output."""


def ckpt_opt_path() -> str:
    """The ckpt-opt binary: ``$CKPT_OPT`` or this checkout's build."""
    return os.path.abspath(os.environ.get("CKPT_OPT") or _DEFAULT_OPT)


def ckpt_run_path() -> str:
    """The ckpt-run binary: ``$CKPT_RUN`` or the one next to ckpt-opt."""
    return os.path.abspath(os.environ.get("CKPT_RUN")
                           or os.path.join(os.path.dirname(ckpt_opt_path()), "ckpt-run"))


def missing_tools() -> List[str]:
    """What ``run_op`` needs and does not find (empty when it can run)."""
    missing = []
    for what, path in (("ckpt-opt", ckpt_opt_path()), ("ckpt-run", ckpt_run_path())):
        if not os.access(path, os.X_OK):
            missing.append(f"{what} ({path})")
    cxx = os.environ.get("CXX") or "c++"
    if not shutil.which(cxx):
        missing.append(f"a C++ compiler ({cxx})")
    return missing


def require_tools() -> None:
    """Skips the calling pytest test unless ckpt-opt, ckpt-run and a C++
    compiler are available."""
    missing = missing_tools()
    if missing:
        import pytest
        pytest.skip("op_check needs " + ", ".join(missing))


def default_phase(op: str) -> str:
    """The phase ``run_op`` gives `op` unless told: backward for ``*_grad``,
    optimizer for ``*_update``, forward otherwise."""
    if op.endswith("_grad"):
        return "backward"
    if op.endswith("_update"):
        return "optimizer"
    return "forward"


def _as_torch(t: TensorLike) -> torch.Tensor:
    if isinstance(t, np.ndarray):
        t = torch.from_numpy(np.ascontiguousarray(t))
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"expected a torch.Tensor or numpy array, got {type(t).__name__}")
    if t.dtype not in _DTYPE_NAMES:
        raise TypeError(f"dtype {t.dtype} has no graph-format dtype")
    return t.detach().cpu().contiguous()


def _dtype_name(dtype: Union[str, torch.dtype]) -> str:
    if isinstance(dtype, torch.dtype):
        if dtype not in _DTYPE_NAMES:
            raise TypeError(f"dtype {dtype} has no graph-format dtype")
        return _DTYPE_NAMES[dtype]
    if dtype not in bundle.DTYPES:
        raise TypeError(f"unknown graph dtype {dtype!r}")
    return dtype


def graph_for(op: str, inputs: Sequence[Optional[TensorLike]], outputs: Sequence[OutputSpec],
              attrs: Optional[Mapping[str, Any]] = None, *,
              phase: Optional[str] = None) -> dict:
    """The graph document of the one-op step ``run_op`` runs (see the module
    docstring); attribute values are written as given (JSON-encodable)."""
    decls, operands = [], []
    for i, t in enumerate(inputs):
        if t is None:
            operands.append(None)
            continue
        t = _as_torch(t)
        decls.append({"id": f"in{i}", "role": "input", "shape": list(t.shape),
                      "dtype": _DTYPE_NAMES[t.dtype], "name": f"in{i}"})
        operands.append(f"in{i}")
    decls.append({"id": "loss_in", "role": "input", "shape": [], "dtype": "f32",
                  "name": "loss_in"})
    node = {"id": op, "op": op, "phase": phase or default_phase(op), "inputs": operands,
            "outputs": [{"id": f"out{i}", "shape": [int(d) for d in shape],
                         "dtype": _dtype_name(dtype)}
                        for i, (shape, dtype) in enumerate(outputs)]}
    if attrs:
        node["attrs"] = dict(attrs)
    loss = {"id": "loss", "op": "neg", "phase": "forward", "inputs": ["loss_in"],
            "outputs": [{"id": "loss", "shape": [], "dtype": "f32"}]}
    return {
        "format": "ckpt-graph", "version": 1, "name": "op_check",
        "producer": {"name": "python/tests/op_check.py"},
        "inputs": decls,
        "nodes": [loss, node],
        "outputs": [{"value": f"out{i}", "role": "output"} for i in range(len(outputs))]
                   + [{"value": "loss", "role": "loss"}],
    }


def _run(cmd: Sequence[str]) -> None:
    r = subprocess.run(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise OpCheckError(f"exit status {r.returncode}: {' '.join(cmd)}\n{r.stdout}")


def run_op(op: str, inputs: Sequence[Optional[TensorLike]], outputs: Sequence[OutputSpec],
           attrs: Optional[Mapping[str, Any]] = None, *, phase: Optional[str] = None,
           work_dir: Optional[str] = None, threads: int = 1) -> List[torch.Tensor]:
    """Runs `op` once on the host runtime and returns its results.

    `inputs` are the op's operands in order (torch tensors or numpy arrays;
    ``None`` for an absent optional operand); `outputs` the shape and dtype
    of each result; `attrs` the node's attributes as the graph format writes
    them (e.g. ``{"reduction": "mean"}``). The results come back as CPU
    tensors of the declared dtypes, bit for bit as the kernel wrote them.
    `work_dir` keeps the graph, bundles and generated step (a temporary
    directory otherwise); `threads` is ckpt-run's thread count.
    """
    if work_dir is None:
        with tempfile.TemporaryDirectory(prefix="op_check.") as tmp:
            return run_op(op, inputs, outputs, attrs, phase=phase, work_dir=tmp, threads=threads)
    os.makedirs(work_dir, exist_ok=True)
    graph = graph_for(op, inputs, outputs, attrs, phase=phase)
    graph_path = os.path.join(work_dir, "graph.json")
    with open(graph_path, "w") as f:
        json.dump(graph, f, indent=1)
    tensors = [(f"in{i}", _as_torch(t)) for i, t in enumerate(inputs) if t is not None]
    tensors.append(("loss_in", torch.tensor(0.0)))
    inputs_path = os.path.join(work_dir, "inputs.ckptb")
    bundle.write_torch(inputs_path, tensors)
    step_dir = os.path.join(work_dir, "step")
    _run([ckpt_opt_path(), graph_path,
          "--pass-pipeline=builtin.module(ckpt-pipeline{strategy=none plan-memory})",
          "--emit=cpp", "-o", step_dir])
    dump = os.path.join(work_dir, "results.ckptb")
    _run([ckpt_run_path(), step_dir, "--inputs", inputs_path, "--threads", str(threads),
          "--dump", dump])
    results = {t.name: t for t in bundle.read(dump)}
    out = []
    for i in range(len(outputs)):
        name = f"output:{i}"
        if name not in results:
            raise OpCheckError(f"ckpt-run's dump has no {name!r} (has {sorted(results)})")
        out.append(bundle.to_torch(results[name]))
    return out


def assert_bitwise_equal(actual: torch.Tensor, expected: torch.Tensor, what: str = "") -> None:
    """Asserts equal dtype, shape and bits (NaNs compare by their bits; -0 and
    +0 differ), naming the first differing element."""
    prefix = f"{what}: " if what else ""
    assert actual.dtype == expected.dtype, f"{prefix}dtype {actual.dtype} != {expected.dtype}"
    assert tuple(actual.shape) == tuple(expected.shape), \
        f"{prefix}shape {tuple(actual.shape)} != {tuple(expected.shape)}"
    a = bundle.from_torch("a", actual).data
    e = bundle.from_torch("e", expected.contiguous()).data
    if a == e:
        return
    size = bundle.DTYPES[_DTYPE_NAMES[actual.dtype]][1]
    first = next(i for i in range(0, len(a), size) if a[i:i + size] != e[i:i + size]) // size
    flat_a, flat_e = actual.reshape(-1), expected.reshape(-1)
    count = sum(a[i:i + size] != e[i:i + size] for i in range(0, len(a), size))
    raise AssertionError(f"{prefix}{count} of {actual.numel()} elements differ; first at flat "
                         f"index {first}: {flat_a[first].item()!r} != {flat_e[first].item()!r}")


def assert_close(actual: torch.Tensor, expected: torch.Tensor, *, rtol: float, atol: float,
                 what: str = "") -> None:
    """Asserts equal dtype and shape and ``|a - e| <= atol + rtol * |e|``
    elementwise (NaN where the other is NaN), naming the worst element."""
    prefix = f"{what}: " if what else ""
    assert actual.dtype == expected.dtype, f"{prefix}dtype {actual.dtype} != {expected.dtype}"
    assert tuple(actual.shape) == tuple(expected.shape), \
        f"{prefix}shape {tuple(actual.shape)} != {tuple(expected.shape)}"
    a, e = actual.double().reshape(-1), expected.double().reshape(-1)
    if a.numel() == 0:
        return
    nan_ok = torch.isnan(a) == torch.isnan(e)
    err = torch.where(torch.isnan(e), torch.zeros_like(e), (a - e).abs())
    bound = atol + rtol * e.abs()
    # Equal values pass (infinities included); NaN errors fail.
    bad = ~nan_ok | ((a != e) & ~torch.isnan(e) & ~(err <= bound))
    if bad.any():
        worst = int(torch.argmax(torch.where(bad, torch.nan_to_num(err - bound, nan=float('inf')), torch.full_like(err, -1.0))))
        raise AssertionError(f"{prefix}{int(bad.sum())} of {a.numel()} elements out of tolerance "
                             f"(rtol {rtol:g}, atol {atol:g}); worst at flat index {worst}: "
                             f"{a[worst].item()!r} vs {e[worst].item()!r}")
