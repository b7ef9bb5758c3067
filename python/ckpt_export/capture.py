"""Capture the joint forward+backward aten graph of a training step.

Why ``aot_module`` with a ``partition_fn`` hook (and not ``make_fx`` of a
function that calls ``torch.autograd.grad``):

* AOTAutograd builds exactly the joint graph that a training compiler sees:
  functionalized, with the incoming loss gradient as an explicit placeholder
  (``tangents_1`` -> our ``seed`` input) and the parameter gradients as graph
  outputs, in the same flattening order (parameters, buffers, inputs).
* It propagates forward source locations to the backward nodes (with anomaly
  mode on, each autograd node remembers the forward stack that created it).
* The hook receives the joint graph *before* partitioning, so we stop there by
  raising: with fake tensors (``config.use_fake_tensor``) nothing is computed
  at all, which makes exporting a full-size model a matter of seconds.

On torch >= 2.1, :func:`ckpt_export.capture_torch2.capture_torch2` captures
the same joint graph through ``torch.compile`` (see that module); both paths
return a :class:`Capture` that says, for each primal placeholder, what it is.

Module scopes come from module forward hooks: forward nodes get the module on
top of the hook stack when they are created; every autograd node created inside
a module is tagged with its scope and a pre-hook publishes that scope while the
backward pass runs it, so backward nodes inherit the scope of the forward op
they differentiate.
"""

from __future__ import annotations

import contextlib
import os
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch
import torch.fx
import torch.nn as nn

_LIB_DIRS = tuple(os.path.dirname(m.__file__) + os.sep for m in (torch,) if getattr(m, "__file__", None))
try:  # functorch ships separately on torch 1.13
    import functorch as _functorch  # noqa
    _LIB_DIRS += (os.path.dirname(_functorch.__file__) + os.sep,)
except Exception:  # pragma: no cover
    pass
_THIS_PKG = os.path.dirname(os.path.abspath(__file__)) + os.sep
_OWN_FILES = tuple(os.path.join(_THIS_PKG, f) for f in ("capture.py", "export.py", "__main__.py"))


@dataclass
class Capture:
    """The joint graph plus what is needed to interpret its placeholders."""

    gm: torch.fx.GraphModule
    param_names: List[str]           # the parameters' names, in placeholder order
    buffer_names: List[str]          # the buffers' names, in placeholder order
    input_names: List[str]           # the data inputs' names, in the caller's order
    scope_prefix: str = ""           # stripped from module paths (wrapper modules)
    # One entry per primal placeholder (``primal_nodes``), in graph order:
    # (``"param"`` | ``"buffer"`` | ``"input"``, name), and the gradient node
    # the joint graph returns for it (None if none).
    primal_roles: List[Tuple[str, str]] = field(default_factory=list)
    primal_nodes: List[torch.fx.Node] = field(default_factory=list)
    grads: List[Optional[torch.fx.Node]] = field(default_factory=list)
    loss: Optional[torch.fx.Node] = None      # the node computing the loss
    tangent: Optional[torch.fx.Node] = None   # the incoming d loss / d loss

    def execute(self, model: nn.Module, inputs: Sequence[torch.Tensor]):
        """Runs the joint graph on real tensors: the model's parameters and
        buffers and ``inputs`` (in ``input_names`` order), with d loss / d loss
        = 1. Returns ``(loss, {parameter name: gradient})``; parameter names
        as ``model.named_parameters()`` gives them (``model`` is the module
        that was captured, or the one inside its wrapper when the names had
        a prefix stripped)."""
        tensors = {("param", nm): p.detach() for nm, p in model.named_parameters()}
        tensors.update({("buffer", nm): b for nm, b in model.named_buffers()})
        tensors.update({("input", nm): x for nm, x in zip(self.input_names, inputs)})
        primals = [tensors[r] for r in self.primal_roles]
        outs = self.gm(primals, [torch.tensor(1.0)])
        flat = []
        for o in outs:
            flat.extend(o if isinstance(o, (list, tuple)) else [o])
        out_node = next(n for n in self.gm.graph.nodes if n.op == "output")
        results = []
        for o in out_node.args[0]:
            results.extend(o if isinstance(o, (list, tuple)) else [o])
        pos = {}
        for i, r in enumerate(results):
            if isinstance(r, torch.fx.Node):
                pos.setdefault(r, i)
        grads = {nm: flat[pos[g]] for (role, nm), g in zip(self.primal_roles, self.grads)
                 if role == "param" and g is not None}
        return flat[pos[self.loss]], grads

    def strip_prefix(self, prefix: str):
        """Drops `prefix` (a wrapper module's attribute path) from names and scopes."""
        def strip(nm):
            return nm[len(prefix):] if nm.startswith(prefix) else nm
        self.scope_prefix = prefix
        self.param_names = [strip(p) for p in self.param_names]
        self.buffer_names = [strip(p) for p in self.buffer_names]
        self.primal_roles = [(r, strip(nm) if r != "input" else nm) for r, nm in self.primal_roles]


class _Captured(Exception):
    pass


class LossModule(nn.Module):
    """Wraps ``model`` and ``loss_fn(output, *targets)`` into one module returning the loss."""

    def __init__(self, model: nn.Module, loss_fn, n_model_inputs: int):
        super().__init__()
        self.model = model
        self.loss_fn = loss_fn
        self.n = n_model_inputs

    def forward(self, *args):
        return self.loss_fn(self.model(*args[: self.n]), *args[self.n:])


def user_frame(stack_trace: Optional[str], innermost_first: bool = False) -> Optional[Tuple[str, int]]:
    """The innermost frame of ``stack_trace`` that is user code (not torch, not us).

    ``traceback.format_stack`` lists frames outermost first; the stack traces
    that AOTAutograd puts on backward nodes list them innermost first."""
    if not stack_trace:
        return None
    best = None
    for line in stack_trace.splitlines():
        line = line.strip()
        if not line.startswith('File "'):
            continue
        try:
            fname = line[6:line.index('"', 6)]
            lineno = int(line.split(", line ", 1)[1].split(",", 1)[0])
        except (ValueError, IndexError):
            continue
        if fname.startswith(_LIB_DIRS) or fname in _OWN_FILES or fname.startswith("<"):
            continue
        if os.path.basename(fname) == "module.py" and "torch" in fname:
            continue
        if innermost_first:
            return (fname, lineno)
        best = (fname, lineno)  # frames are outermost first: keep the last one
    return best


class _ScopeTracker:
    """Forward hooks that tag FX nodes and autograd nodes with module paths."""

    def __init__(self, root: nn.Module, strip_prefix: str = ""):
        self.stack: List[str] = []
        self.bwd_scope: Optional[str] = None
        self.handles = []
        self.tagged = set()
        for name, mod in root.named_modules():
            if strip_prefix and name.startswith(strip_prefix):
                name = name[len(strip_prefix):]
            elif strip_prefix and name + "." == strip_prefix:
                name = ""
            self.handles.append(mod.register_forward_pre_hook(self._pre(name)))
            self.handles.append(mod.register_forward_hook(self._post(name)))

    def _pre(self, name):
        def hook(mod, args):
            self.stack.append(name)
        return hook

    def _post(self, name):
        def hook(mod, args, out):
            if self.stack:
                self.stack.pop()
            outs = out if isinstance(out, (tuple, list)) else (out,)
            self._tag([o.grad_fn for o in outs if isinstance(o, torch.Tensor) and o.grad_fn is not None],
                      name)
        return hook

    def _tag(self, roots, name):
        todo = list(roots)
        while todo:
            fn = todo.pop()
            if fn is None or fn in self.tagged:
                continue
            self.tagged.add(fn)
            if type(fn).__name__ == "AccumulateGrad":
                continue

            def pre(grad_outputs, _n=name):
                self.bwd_scope = _n
            try:
                fn.register_prehook(pre)
            except Exception:  # pragma: no cover
                pass
            todo.extend(f for f, _ in fn.next_functions)

    def current(self) -> Optional[str]:
        if self.stack:
            return self.stack[-1]
        return self.bwd_scope

    def remove(self):
        for h in self.handles:
            h.remove()


@contextlib.contextmanager
def _patched_create_node(tracker: _ScopeTracker):
    orig = torch.fx.Graph.create_node

    orig_run_node = torch.fx.Interpreter.run_node
    interp_stack: List[torch.fx.Node] = []

    # AOTAutograd (with functionalization) traces the joint graph once with the
    # model and then re-traces that graph through an fx Interpreter: nodes made
    # during the re-trace inherit the annotations of the node being interpreted.
    def run_node(self, n):
        interp_stack.append(n)
        try:
            return orig_run_node(self, n)
        finally:
            interp_stack.pop()

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        node = orig(self, op, target, args, kwargs, name, type_expr)
        if op == "call_function" and interp_stack:
            src = interp_stack[-1]
            for k in ("ckpt_scope", "ckpt_stack"):
                if k in src.meta:
                    node.meta[k] = src.meta[k]
        elif op == "call_function":
            sc = tracker.current()
            if sc is not None:
                node.meta["ckpt_scope"] = sc
            if tracker.stack:  # forward: the live Python stack is the user's
                node.meta["ckpt_stack"] = "".join(traceback.format_stack()[:-1])
        return node

    torch.fx.Graph.create_node = create_node
    torch.fx.Interpreter.run_node = run_node
    try:
        yield
    finally:
        torch.fx.Graph.create_node = orig
        torch.fx.Interpreter.run_node = orig_run_node


def capture(model: nn.Module, inputs: Sequence[torch.Tensor], fake: bool = True,
            input_names: Optional[List[str]] = None) -> Capture:
    """Trace ``model(*inputs)`` (which must return the scalar loss) into a joint graph."""
    if torch_version() >= (2, 1):
        if not fake:
            warnings.warn("ckpt_export: fake=False (--real) changes nothing on torch 2: the capture "
                          "goes through torch.compile, which traces with fake tensors either way")
        from .capture_torch2 import capture_torch2
        return capture_torch2(model, inputs, input_names)
    from functorch.compile import aot_module, config

    got: List[torch.fx.GraphModule] = []

    def partition_fn(joint, joint_inputs, **kw):
        got.append(joint)
        raise _Captured()

    params = [n for n, _ in model.named_parameters()]
    buffers = [n for n, _ in model.named_buffers()]
    if input_names is None:
        input_names = [f"input{i}" for i in range(len(inputs))]
    saved_buffers = {k: v.detach().clone() for k, v in model.state_dict(keep_vars=True).items()
                     if isinstance(v, torch.Tensor) and not isinstance(v, nn.Parameter)} if not fake else {}
    tracker = _ScopeTracker(model)
    old_fake = config.use_fake_tensor
    config.use_fake_tensor = fake
    try:
        compiled = aot_module(model, fw_compiler=lambda g, i: g, bw_compiler=lambda g, i: g,
                              partition_fn=partition_fn)
        with _patched_create_node(tracker), torch.autograd.set_detect_anomaly(True, check_nan=False):
            try:
                compiled(*inputs)
            except _Captured:
                pass
    finally:
        config.use_fake_tensor = old_fake
        tracker.remove()
        if saved_buffers:
            with torch.no_grad():
                sd = model.state_dict(keep_vars=True)
                for k, v in saved_buffers.items():
                    sd[k].copy_(v)
    if not got:
        raise RuntimeError("AOTAutograd did not produce a joint graph (does forward return a tensor "
                           "that requires grad?)")
    return _with_signature(Capture(got[0], params, buffers, list(input_names)))


def torch_version() -> Tuple[int, int]:
    """(major, minor) of the running torch."""
    return tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])  # type: ignore


def _with_signature(cap: Capture) -> Capture:
    """Fills the per-primal fields of a torch 1.13 capture, whose joint graph
    takes (parameters, buffers, inputs) in that order and returns
    ``((loss,), grads of every primal)``."""
    g = cap.gm.graph
    placeholders = [n for n in g.nodes if n.op == "placeholder"]
    out_node = next(n for n in g.nodes if n.op == "output")
    outs = out_node.args[0]
    if isinstance(outs, (tuple, list)) and len(outs) == 2 and isinstance(outs[0], (tuple, list)):
        outs = list(outs[0]) + list(outs[1])
    outs = list(outs)
    primals = [p for p in placeholders if not p.name.startswith("tangents")]
    tangents = [p for p in placeholders if p.name.startswith("tangents")]
    np_, nb, ni = len(cap.param_names), len(cap.buffer_names), len(cap.input_names)
    if len(primals) != np_ + nb + ni or len(tangents) != 1 or len(outs) < len(primals) + 1:
        raise RuntimeError(f"unexpected joint graph signature: {len(primals)} primals "
                           f"(expected {np_}+{nb}+{ni}), {len(tangents)} tangents; "
                           "the model must return exactly one scalar loss")
    cap.primal_roles = ([("param", p) for p in cap.param_names] + [("buffer", b) for b in cap.buffer_names]
                        + [("input", i) for i in cap.input_names])
    cap.primal_nodes = primals
    cap.grads = list(outs[len(outs) - len(primals):])
    cap.loss = outs[0]
    cap.tangent = tangents[0]
    return cap

