"""Capture the joint forward+backward graph with PyTorch 2's own machinery.

``torch.compile(model, backend=..., fullgraph=True)`` runs TorchDynamo, whose
front end traces model code that plain AOTAutograd tracing cannot (the
data-dependent checks of transformers' attention-mask code, logging calls) and
lifts parameters and buffers into graph inputs by identity, so tied weights
appear once. Our backend hands Dynamo's graph to AOTAutograd
(``aot_autograd``) with a ``partition_fn`` that receives the functionalized
joint graph before any partitioning and stops there by raising: nothing of the
model is ever computed (Dynamo traces with fake tensors).

The joint graph describes itself (``torch._functorch._aot_autograd.
descriptors``): every placeholder carries ``meta['desc']``, ``PlainAOTInput(idx
= i)`` for the backend's i-th example input or ``TangentAOTInput`` for the
incoming gradient of an output; the output node's ``meta['desc']`` names each
result: ``InputMutationAOTOutput`` (BatchNorm's running statistics, which the
exported step ignores: they are not part of the training computation's data
flow), ``PlainAOTOutput(idx=0)`` (the loss) and ``GradAOTOutput(grad_of=
PlainAOTInput(idx=k))``. Example inputs are matched to the model's parameters,
buffers and the caller's inputs by identity.

Module scopes come from ``meta['nn_module_stack']`` (forward nodes) and
``meta['fwd_nn_module_stack']`` (backward nodes: the scope of the forward op
they differentiate), whose keys are ``id(module)``; source locations from
``meta['stack_trace']``, which Dynamo fills for backward nodes too.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import torch
import torch.fx
import torch.nn as nn

from .capture import Capture, _Captured


def _desc_name(d) -> str:
    return type(d).__name__ if d is not None else ""


@contextlib.contextmanager
def _dynamo_settings():
    """Dynamo settings for a capture: logging calls inside forward (as in
    transformers' ``logger.warning_once``) are skipped instead of breaking the
    graph, and the caches start and end empty so that one capture never sees
    another's compiled code."""
    import torch._dynamo
    cfg = torch._dynamo.config
    skip = [f for f in (getattr(logging.Logger, "warning_once", None), logging.Logger.warning,
                        logging.Logger.info, logging.Logger.debug) if f is not None]
    old = set(cfg.ignore_logging_functions)
    cfg.ignore_logging_functions.update(skip)
    torch._dynamo.reset()
    try:
        yield
    finally:
        cfg.ignore_logging_functions.clear()
        cfg.ignore_logging_functions.update(old)
        torch._dynamo.reset()


class JointGraphError(RuntimeError):
    """The joint graph is not one training step that returns a scalar loss."""


@dataclass
class JointSignature:
    """What the joint graph's placeholders and outputs are."""

    primals: List[Tuple[torch.fx.Node, int]]  # (placeholder, index among the example inputs)
    tangents: List[torch.fx.Node]
    loss: torch.fx.Node
    grad_of: Dict[int, torch.fx.Node]         # example input index -> its gradient


def read_joint_signature(joint: torch.fx.GraphModule) -> JointSignature:
    """Reads the descriptors of AOTAutograd's joint graph (see the module
    doc); raises JointGraphError unless it is one step with one scalar
    floating-point loss and plain tensor inputs."""
    g = joint.graph
    primals, tangents = [], []
    for n in g.nodes:
        if n.op != "placeholder":
            continue
        d = n.meta.get("desc")
        if _desc_name(d) == "PlainAOTInput":
            primals.append((n, d.idx))
        elif _desc_name(d).startswith("Tangent"):
            tangents.append(n)
        else:
            raise JointGraphError(f"graph input {n.name} is {_desc_name(d) or 'undescribed'} ({d!r}): only plain "
                                  "tensors (no tensor subclasses or opaque objects) can be exported")
    out_node = next(n for n in g.nodes if n.op == "output")
    results = list(out_node.args[0])
    descs = out_node.meta.get("desc") or []
    if len(descs) != len(results):
        raise JointGraphError("the joint graph's outputs are not described (unsupported torch version?)")
    plain = [r for r, d in zip(results, descs) if _desc_name(d) == "PlainAOTOutput"]
    if len(plain) != 1 or len(tangents) != 1:
        raise JointGraphError(f"the graph returns {len(plain)} outputs with {len(tangents)} incoming gradients; "
                              "a training step must return one scalar loss (a graph break splits the model: "
                              "compile with fullgraph=True to see where)")
    loss = plain[0]
    val = loss.meta.get("val")
    if isinstance(val, torch.Tensor) and (val.dim() != 0 or not val.dtype.is_floating_point):
        raise JointGraphError("the graph's output is not a scalar floating-point loss")
    grad_of = {d.grad_of.idx: r for r, d in zip(results, descs)
               if _desc_name(d) == "GradAOTOutput" and r is not None}
    return JointSignature(primals, tangents, loss, grad_of)


def _innermost(stack) -> Optional[int]:
    """The module id (a key of an nn_module_stack) of the innermost module."""
    if not stack:
        return None
    key = list(stack.keys())[-1]
    try:
        return int(key)
    except (TypeError, ValueError):
        return None


def capture_torch2(model: nn.Module, inputs: Sequence[torch.Tensor],
                   input_names: Optional[List[str]] = None) -> Capture:
    """Trace ``model(*inputs)`` (which must return the scalar loss) into the
    joint graph with ``torch.compile`` + AOTAutograd; see the module doc."""
    import torch._dynamo
    from torch._dynamo.backends.common import aot_autograd

    got: Dict[str, object] = {}

    def partition_fn(joint, joint_inputs, **kw):
        got["joint"] = joint
        raise _Captured()

    def backend(gm, example_inputs):
        got["examples"] = list(example_inputs)
        return aot_autograd(fw_compiler=lambda g, i: g, bw_compiler=lambda g, i: g,
                            partition_fn=partition_fn)(gm, example_inputs)

    if input_names is None:
        input_names = [f"input{i}" for i in range(len(inputs))]
    with _dynamo_settings():
        compiled = torch.compile(model, backend=backend, fullgraph=True, dynamic=False)
        try:
            compiled(*inputs)
        except Exception as e:  # noqa: BLE001 - Dynamo wraps our stop signal
            if "joint" not in got:
                raise RuntimeError(f"torch.compile could not trace the model: {type(e).__name__}: "
                                   f"{str(e).splitlines()[0] if str(e) else ''}") from e
    if "joint" not in got:
        raise RuntimeError("AOTAutograd did not produce a joint graph (does forward return a tensor "
                           "that requires grad?)")
    joint: torch.fx.GraphModule = got["joint"]  # type: ignore[assignment]
    examples: List[torch.Tensor] = got["examples"]  # type: ignore[assignment]

    # What each example input is: by identity with the model's tensors.
    by_id: Dict[int, Tuple[str, str]] = {}
    for i, x in enumerate(inputs):
        by_id.setdefault(id(x), ("input", input_names[i]))
    for nm, b in model.named_buffers():
        by_id.setdefault(id(b), ("buffer", nm))
    for nm, p in model.named_parameters():
        by_id[id(p)] = ("param", nm)
    example_roles: List[Tuple[str, str]] = []
    for i, x in enumerate(examples):
        role = by_id.get(id(x))
        if role is None:  # a tensor Dynamo lifted from elsewhere (a global constant)
            role = ("input", f"constant{i}")
        example_roles.append(role)

    g = joint.graph
    sig = read_joint_signature(joint)
    primals, tangents, loss, grad_of = sig.primals, sig.tangents, sig.loss, sig.grad_of

    # Annotate nodes the way the lowering reads them (ckpt_scope, ckpt_stack).
    names = {id(m): nm for nm, m in model.named_modules(remove_duplicate=False)}
    for n in g.nodes:
        if n.op != "call_function":
            continue
        fwd = n.meta.get("nn_module_stack")
        mid = _innermost(fwd) if fwd else _innermost(n.meta.get("fwd_nn_module_stack"))
        if mid is not None and mid in names and names[mid]:
            n.meta["ckpt_scope"] = names[mid]
        if n.meta.get("stack_trace"):
            n.meta["ckpt_stack"] = n.meta["stack_trace"]

    roles = [example_roles[idx] for _, idx in primals]
    grads = [grad_of.get(idx) for _, idx in primals]
    return Capture(gm=joint,
                   param_names=[nm for r, nm in roles if r == "param"],
                   buffer_names=[nm for r, nm in roles if r == "buffer"],
                   input_names=list(input_names),
                   primal_roles=roles, loss=loss, grads=grads, tangent=tangents[0],
                   primal_nodes=[n for n, _ in primals])
