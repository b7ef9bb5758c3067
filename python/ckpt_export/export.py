"""Lower a captured joint aten graph to graph format v1 (docs/graph-format.md).

Phases: a node is ``forward`` when the loss depends on it (it is an ancestor of
the loss in the joint graph); every other node is ``backward``. Backward nodes
that do not depend on the seed (e.g. weight transposes) are scheduled just
before their first use.

Constants: arithmetic with a Python scalar or a 0-d constant (``x * c``,
``x / c``, ``c - x``, ``x + c``; ``.Tensor`` and ``.Scalar`` overloads) becomes
a rank-0 ``fill`` of the tensor's dtype (the scalar rounded as torch rounds it)
and the broadcasting ``add``/``sub``/``mul``/``div``, operands in PyTorch's
order; on the CPU torch 1.13 computes exactly that (a division divides, it
does not multiply by the reciprocal). Constant tensors (``fill.Scalar``,
``full``, ``zeros``/``ones``/``full``/``empty`` ``_like`` and ``new_*``,
``scalar_tensor``, uniform tensor constants) become ``fill`` of their shape, or
of rank 0 when every use is a same-shape elementwise binary op;
``slice_backward`` (step 1) and ``select_backward`` become the gradient
concatenated with zero fills. Values JSON cannot hold (infinities, NaN) and
``alpha != 1`` (fused into torch's kernel) stay opaque.

Clamps: ``hardtanh`` (ReLU6), ``hardtanh_backward`` and ``clamp`` with two
scalar bounds become ``clamp`` / ``clamp_grad`` with f64 ``min`` and ``max``
(bit-exact: the kernels round the bounds as torch does) when both bounds are
finite, ``min <= max`` and the tensors are float of one dtype.

Opaque ops: an aten op outside the ckpt op set becomes ``opaque`` with
``name`` = the aten overload (``aten.erf.default``) and a warning. FLOPs
follow the cost conventions of docs/dialect.md, per *result* element N:

=========================================================  =====================
aten op                                                     flops
=========================================================  =====================
arithmetic the rules above leave opaque (alpha != 1,        N
integer operands), comparisons, where, masked_fill,
reciprocal, abs, erf, sin, cos, bernoulli, pow(t, t)
hardtanh, hardtanh_backward, clamp the rule above leaves    2N
opaque (a missing or infinite bound, min > max, integer
tensors), clamp.Tensor
tensor creation left opaque (arange, non-finite fills,     0 (bytes: the result)
non-uniform constants)
data movement (strided slice_backward, index, gather,      0
index_select, copy, constant_pad_nd, repeat, ...)
nll_loss_forward (unfused)                                  R (+1 for mean)
nll_loss_backward (unfused)                                 R
anything else                                               N (a guess; warned)
=========================================================  =====================

Byte counts of opaque ops are left to the defaults (operand and result sizes),
which are exact for all of the above.
"""

from __future__ import annotations

import json
import math
import operator
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.fx
from ckpt_graphs import format as graph_format

from .capture import Capture, LossModule, capture, torch_version, user_frame


def _portable_path(path):
    """Returns `path` relative to the working directory when it lies below
    it, a library file relative to its ``site-packages`` (or Debian's
    ``dist-packages``: ``transformers/models/gpt2/modeling_gpt2.py``), so
    that exported files do not depend on where a checkout or an environment
    lives; otherwise unchanged."""
    import os
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in path:
            return path.rsplit(marker, 1)[1]
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel

aten = torch.ops.aten

DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
          torch.int64: "i64", torch.int32: "i32", torch.bool: "i1"}
FLOAT = {"f32", "f16", "bf16"}
TORCH_DTYPES = {v: k for k, v in DTYPES.items()}
INT_MAX = 2 ** 62


class ExportError(RuntimeError):
    pass


@dataclass
class ExportResult:
    graph: Dict[str, Any]
    opaque: Counter = field(default_factory=Counter)          # aten name -> count (after DCE)
    opaque_impls: Dict[str, Callable] = field(default_factory=dict)  # node id -> fn(*tensors)
    capture: Optional[Capture] = None
    # fx node name -> the ckpt value ids that hold its result (one per tensor
    # of a tuple; a lazily transposed view: the value it views). Nodes that
    # became no value of their own (fused masks, constants) are absent.
    fx_values: Dict[str, List[Optional[str]]] = field(default_factory=dict)

    @property
    def nodes(self):
        return self.graph["nodes"]

    def dump(self, path):
        graph_format.dump(self.graph, path)


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _opname(target) -> str:
    s = str(target)
    return s if s.startswith("aten.") else getattr(target, "__name__", s)


def _norm_dim(d, rank):
    return d + rank if d < 0 else d


def _pair(v, default=None):
    if v is None or (isinstance(v, (list, tuple)) and len(v) == 0):
        v = default
    if isinstance(v, int):
        return [v, v]
    v = list(v)
    return v * 2 if len(v) == 1 else v


def _named_args(node: torch.fx.Node) -> Dict[str, Any]:
    schema = getattr(node.target, "_schema", None)
    out = {}
    if schema is None:
        for i, a in enumerate(node.args):
            out[i] = a
        return out
    for i, arg in enumerate(schema.arguments):
        if i < len(node.args):
            out[arg.name] = node.args[i]
        elif arg.name in node.kwargs:
            out[arg.name] = node.kwargs[arg.name]
        else:
            out[arg.name] = arg.default_value if arg.has_default_value() else None
    return out


# Ops that only forward their operand.
ALIAS_OPS = {"aten.detach.default", "aten.clone.default", "aten.alias.default",
             "aten.lift_fresh_copy.default", "aten.lift_fresh.default", "aten.contiguous.default",
             "aten._to_copy.default"}
RESHAPE_OPS = {"aten.view.default", "aten._unsafe_view.default", "aten._reshape_alias.default",
               "aten.reshape.default", "aten.unsqueeze.default", "aten.squeeze.default",
               "aten.squeeze.dim", "aten.squeeze.dims", "aten.flatten.using_ints",
               "aten.unflatten.int", "aten.view_copy.default", "aten._unsafe_view_copy.default"}
CREATE_OPS = {"aten.full.default", "aten.zeros.default", "aten.ones.default", "aten.arange.default",
              "aten.arange.start", "aten.arange.start_step", "aten.empty.memory_format",
              "aten.scalar_tensor.default", "aten.fill.Scalar", "aten.empty_like.default",
              "aten.zeros_like.default", "aten.ones_like.default", "aten.full_like.default",
              "aten.new_zeros.default", "aten.new_ones.default", "aten.new_full.default",
              "aten.new_empty.default", "aten.empty_strided.default", "aten.new_empty_strided.default"}
MOVE_OPS = {"aten.slice_backward.default", "aten.select_backward.default", "aten.index.Tensor",
            "aten.gather.default", "aten.index_select.default", "aten.copy.default",
            "aten.constant_pad_nd.default", "aten.repeat.default", "aten.roll.default",
            "aten.flip.default", "aten.slice_scatter.default", "aten.select_scatter.default",
            "aten.index_put.default", "aten.masked_select.default", "aten.diagonal.default"}
UNARY = {"aten.exp.default": "exp", "aten.log.default": "log", "aten.sqrt.default": "sqrt",
         "aten.sin.default": "sin", "aten.cos.default": "cos", "aten.hardswish.default": "hardswish",
         "aten.abs.default": "abs",
         "aten.hardsigmoid.default": "hardsigmoid",
         "aten.rsqrt.default": "rsqrt", "aten.tanh.default": "tanh", "aten.neg.default": "neg",
         "aten.relu.default": "relu", "aten.sigmoid.default": "sigmoid", "aten.silu.default": "silu"}
BINARY = {"add": "add", "sub": "sub", "mul": "mul", "div": "div"}
ACT_GRAD = {"aten.sigmoid_backward.default": "sigmoid_grad", "aten.tanh_backward.default": "tanh_grad",
            "aten.hardswish_backward.default": "hardswish_grad",
            "aten.hardsigmoid_backward.default": "hardsigmoid_grad",
            "aten.silu_backward.default": "silu_grad"}
# Clamps that _lower_clamp cannot map (odd bounds or dtypes) stay opaque.
TWO_FLOP_OPAQUE = {"aten.hardtanh.default", "aten.hardtanh_backward.default", "aten.clamp.default",
                   "aten.clamp.Tensor"}
REDUCE = {"sum": "reduce_sum", "mean": "reduce_mean", "amax": "reduce_max"}


@dataclass
class _LazyPerm:
    """A transpose/permute that PyTorch executes as a view: ``value``
    permuted by ``perm``, made a buffer (``ckpt.transpose``) only when a
    consumer that cannot read it strided needs it (``origin`` gives that
    node its name, phase and location). Matmul operands fold last-two-dims
    transposes into their flags; a permute of a permute composes; one that
    composes to the identity is the value itself (``t(t(x))``, the shape of
    every ``nn.Linear`` weight gradient on torch 2)."""

    value: str
    perm: List[int]
    origin: torch.fx.Node
    materialized: Optional[str] = None


class _Lowering:
    def __init__(self, cap: Capture, name: str, fuse_cross_entropy: bool = True):
        self.cap = cap
        self.fuse_cross_entropy = fuse_cross_entropy
        self.gm = cap.gm
        self.name = name
        self.values: Dict[str, Tuple[List[int], str]] = {}
        self.inputs: List[Dict[str, Any]] = []
        self.nodes: List[Dict[str, Any]] = []
        self.env: Dict[torch.fx.Node, Any] = {}      # fx node -> value id | list | marker
        self.ids = set()
        self.stat_src: Dict[str, str] = {}         # reshaped norm stat -> ckpt stat value
        self.dropout_masks: Dict[torch.fx.Node, Any] = {}
        self.dropout_scaled_ones: Dict[torch.fx.Node, float] = {}  # div node -> p
        self.dropout_stream = 0
        self.ce: Dict[torch.fx.Node, Dict[str, Any]] = {}
        self.opaque_impls: Dict[str, Callable] = {}
        self.cur: Optional[torch.fx.Node] = None
        self.scope_by_trace: Dict[str, str] = {}

    # ---- helpers ------------------------------------------------------
    def fresh(self, base: str) -> str:
        base = base.replace("/", "_")
        if base not in self.ids:
            self.ids.add(base)
            return base
        i = 1
        while f"{base}_{i}" in self.ids:
            i += 1
        self.ids.add(f"{base}_{i}")
        return f"{base}_{i}"

    def meta(self, n: torch.fx.Node) -> Tuple[List[int], str]:
        tm = n.meta.get("tensor_meta")
        if tm is None or not hasattr(tm, "shape"):
            v = n.meta.get("val")
            if isinstance(v, torch.Tensor):
                return [int(d) for d in v.shape], self.dtype(v.dtype, n)
            raise ExportError(f"no shape for {n.name} ({n.target})")
        return [int(d) for d in tm.shape], self.dtype(tm.dtype, n)

    def dtype(self, dt, n=None) -> str:
        if dt not in DTYPES:
            raise ExportError(f"unsupported dtype {dt} at {n.name if n else '?'} ({n.target if n else ''})")
        return DTYPES[dt]

    def shape(self, v: str) -> List[int]:
        return self.values[v][0]

    def vdtype(self, v: str) -> str:
        return self.values[v][1]

    def val(self, a) -> str:
        if not isinstance(a, torch.fx.Node):
            raise ExportError(f"expected a tensor operand, got {a!r}")
        v = self.env.get(a)
        if isinstance(v, _LazyPerm):
            return self._materialize(v)
        if not isinstance(v, str):
            raise ExportError(f"value of {a.name} ({a.target}) is not available here: {v!r}")
        return v

    def _materialize(self, lazy: _LazyPerm) -> str:
        if lazy.materialized is None:
            cur, self.cur = self.cur, lazy.origin
            try:
                shp, dt = self.meta(lazy.origin)
                lazy.materialized = self.emit1("transpose", [lazy.value], shp, dt, {"perm": list(lazy.perm)})
            finally:
                self.cur = cur
        return lazy.materialized

    def emit(self, op: str, inputs: List[Optional[str]], outs: List[Tuple[List[int], str]],
             attrs: Optional[Dict[str, Any]] = None, hint: Optional[str] = None,
             impl: Optional[Callable] = None) -> List[str]:
        n = self.cur
        hint = hint or (n.name if n is not None else op)
        nid = self.fresh(hint)
        out_ids = []
        for i, (shp, dt) in enumerate(outs):
            vid = nid if len(outs) == 1 else self.fresh(f"{nid}.{i}")
            if len(outs) == 1 and vid != nid:  # pragma: no cover
                vid = self.fresh(nid + ".0")
            self.values[vid] = (list(shp), dt)
            out_ids.append(vid)
        node = {"id": nid, "op": op, "phase": self.phase_of(n),
                "inputs": list(inputs),
                "outputs": [{"id": v, "shape": list(s), "dtype": d} for v, (s, d) in zip(out_ids, outs)]}
        # trailing null operands may be omitted
        while node["inputs"] and node["inputs"][-1] is None:
            node["inputs"].pop()
        if attrs:
            node["attrs"] = attrs
        if n is not None:
            loc = self.loc_of(n)
            if loc:
                node["loc"] = {"file": _portable_path(loc[0]), "line": loc[1]}
            sc = self.scope_of(n)
            if sc:
                node["scope"] = sc
        if impl is not None:
            self.opaque_impls[nid] = impl
        node["_fx"] = n.name if n is not None else None
        self.nodes.append(node)
        return out_ids

    def emit1(self, op, inputs, shp, dt, attrs=None, hint=None):
        return self.emit(op, inputs, [(shp, dt)], attrs, hint)[0]

    def phase_of(self, n):
        if n is None:
            return "forward"
        return "forward" if n in self.fwd else "backward"

    def loc_of(self, n):
        return user_frame(n.meta.get("ckpt_stack")) or \
            user_frame(n.meta.get("stack_trace") or getattr(n, "stack_trace", None), innermost_first=True)

    def scope_of(self, n):
        sc = n.meta.get("ckpt_scope") or ""
        pre = self.cap.scope_prefix
        if pre and (sc + ".").startswith(pre):
            sc = sc[len(pre):]
        return sc or None

    def reshape(self, v: str, shp: List[int], hint=None) -> str:
        if self.shape(v) == list(shp):
            return v
        return self.emit1("reshape", [v], list(shp), self.vdtype(v), hint=hint)

    def opaque(self, n: torch.fx.Node, inputs: List[str], outs, flops: int, name=None, impl=None):
        name = name or _opname(n.target)
        if impl is None:
            impl = self._aten_impl(n)
        return self.emit("opaque", inputs, outs, {"name": name, "flops": int(flops)},
                         hint=n.name, impl=impl)

    def _aten_impl(self, n: torch.fx.Node):
        """Re-run the aten op on tensors: for the reference interpreter (tests)."""
        tensor_args = [a for a in n.all_input_nodes]
        target = n.target
        args, kwargs = n.args, n.kwargs
        creation = _opname(target) in CREATE_OPS
        metas = {a: self.meta(a) if "tensor_meta" in a.meta or "val" in a.meta else None
                 for a in tensor_args} if creation else {}

        def fn(*ts):
            if creation:  # inputs were dropped: only their shapes matter
                rev = {DTYPES[k]: k for k in DTYPES}
                sub = {a: torch.zeros(m[0], dtype=rev[m[1]]) for a, m in metas.items() if m}
            else:
                sub = dict(zip(self._opaque_inputs(n), ts))
            a2 = torch.fx.node.map_arg(args, lambda x: sub[x])
            k2 = torch.fx.node.map_arg(kwargs, lambda x: sub[x])
            r = target(*a2, **k2)
            return tuple(r) if isinstance(r, (tuple, list)) else (r,)
        return fn

    def _opaque_inputs(self, n):
        return [a for a in n.all_input_nodes]

    # ---- driver -------------------------------------------------------
    def run(self) -> Dict[str, Any]:
        g = self.gm.graph
        cap = self.cap
        loss = cap.loss
        # forward = ancestors of the loss
        self.fwd = set()
        todo = [loss]
        while todo:
            x = todo.pop()
            if isinstance(x, torch.fx.Node) and x not in self.fwd:
                self.fwd.add(x)
                todo.extend(x.all_input_nodes)
        self._plan_fusions()

        param_ids = {}
        for i, (p, (role, nm)) in enumerate(zip(cap.primal_nodes, cap.primal_roles)):
            shp, dt = self.meta(p)
            if role == "param":
                if cap.grads[i] is None:
                    warnings.warn(f"ckpt_export: parameter {nm} gets no gradient; dropped from the graph")
                    continue
            elif role == "buffer":
                role = "input"
                if not p.users:
                    continue  # BatchNorm running stats etc.: not part of the step's data flow
            vid = self.fresh(p.name)
            self.values[vid] = (shp, dt)
            self.env[p] = vid
            decl = {"id": vid, "role": role, "shape": shp, "dtype": dt, "name": nm}
            self.inputs.append(decl)
            if role == "param":
                param_ids[i] = vid
        t = cap.tangent
        shp, dt = self.meta(t)
        if shp != []:
            raise ExportError(f"the loss must be a scalar, got shape {shp}")
        vid = self.fresh("seed")
        self.values[vid] = (shp, dt)
        self.env[t] = vid
        # Named, so that ckpt-opt's argument (NameLoc) and the code generator
        # bind it like any other input: the harness feeds it 1.0 (d loss / d loss).
        taken = {d.get("name") for d in self.inputs}
        seed_name = next(c for c in ("seed", "loss_seed") + tuple(f"seed{i}" for i in range(1, len(taken) + 2))
                         if c not in taken)
        self.inputs.append({"id": vid, "role": "seed", "shape": [], "dtype": dt, "name": seed_name})
        self.seed_id = vid

        for n in g.nodes:
            if n.op == "get_attr":
                self.cur = n
                self._lower_constant(n)
            if n.op != "call_function":
                continue
            self.cur = n
            self.lower(n)
        self.cur = None

        outputs = [{"value": self.val(loss), "role": "loss"}]
        for i, gnode in enumerate(cap.grads):
            if i not in param_ids:
                continue
            gv = self.val(gnode)
            if gv in {o["id"] for o in self.inputs}:
                raise ExportError(f"gradient of {cap.primal_roles[i][1]} is a graph input")
            outputs.append({"value": gv, "role": "grad", "grad_of": param_ids[i]})
        self._dce([o["value"] for o in outputs])
        self._schedule()
        for nd in self.nodes:
            nd.pop("_fx", None)
        self.fx_values = {}
        for fx_node, v in self.env.items():
            vals = v if isinstance(v, list) else [v]
            # a transposed view made a buffer is that buffer; else the viewed value
            ids = [(x.materialized or x.value) if isinstance(x, _LazyPerm) else x if isinstance(x, str) else None
                   for x in vals]
            # a norm statistic as PyTorch shapes it is read as the ckpt statistic
            ids = [self.stat_src.get(i, i) if i is not None else None for i in ids]
            if any(i is not None for i in ids):
                self.fx_values[fx_node.name] = ids
        return {"format": "ckpt-graph", "version": 1, "name": self.name,
                "inputs": self.inputs, "nodes": self.nodes, "outputs": outputs,
                "producer": {"tool": "ckpt_export", "torch": torch.__version__}}

    # ---- graph-level passes -------------------------------------------
    def _dce(self, roots):
        live = set(roots)
        keep = []
        for nd in reversed(self.nodes):
            if any(o["id"] in live for o in nd["outputs"]):
                keep.append(nd)
                live.update(i for i in nd["inputs"] if i is not None)
        keep.reverse()
        dropped = {nd["id"] for nd in self.nodes} - {nd["id"] for nd in keep}
        for k in dropped:
            self.opaque_impls.pop(k, None)
        self.nodes = keep
        used = set(live)
        # drop non-param inputs nobody reads (e.g. unused buffers)
        self.inputs = [d for d in self.inputs if d["role"] in ("param", "seed") or d["id"] in used]

    def _schedule(self):
        """Keep the fx order, but move backward nodes that do not depend on the
        seed (weight transposes and the like) to just before their first use."""
        producer = {}
        for nd in self.nodes:
            for o in nd["outputs"]:
                producer[o["id"]] = nd["id"]
        seed_dep = {self.seed_id}
        for nd in self.nodes:
            if any(i in seed_dep for i in nd["inputs"] if i is not None):
                seed_dep.update(o["id"] for o in nd["outputs"])
        by_id = {nd["id"]: nd for nd in self.nodes}
        deferred = {}
        out = []

        def place(nd):
            for i in nd["inputs"]:
                p = producer.get(i)
                if p is not None and p in deferred:
                    place(deferred.pop(p))
            out.append(nd)

        for nd in self.nodes:
            if nd["phase"] == "backward" and not any(o["id"] in seed_dep for o in nd["outputs"]):
                deferred[nd["id"]] = nd
            else:
                place(nd)
        for k in list(deferred):
            if k in deferred:
                place(deferred.pop(k))
        assert len(out) == len(by_id)
        self.nodes = out

    # ---- fusion planning ----------------------------------------------
    def _real_users(self, n):
        """Users of ``n`` looking through alias ops (detach, clone...)."""
        res = []
        for u in n.users:
            if _opname(u.target) in ALIAS_OPS and u.op == "call_function" and \
                    _opname(u.target) != "aten._to_copy.default":
                res.extend(self._real_users(u))
            else:
                res.append(u)
        return res

    def _plan_fusions(self):
        g = self.gm.graph
        for n in g.nodes:
            if not self.fuse_cross_entropy:
                break
            if n.op != "call_function" or _opname(n.target) != "aten._log_softmax.default":
                continue
            x = n.args[0]
            dim = n.args[1]
            xs = self.meta(x)[0]
            if len(xs) < 1:
                continue
            # classes last (nll_loss), or per-pixel classes on axis 1 of NCHW (nll_loss2d)
            spatial = len(xs) == 4 and _norm_dim(dim, 4) == 1
            if _norm_dim(dim, len(xs)) != len(xs) - 1 and not spatial:
                continue
            loss_op = "nll_loss2d" if spatial else "nll_loss"
            users = self._real_users(n)
            fwd = [u for u in users if _opname(u.target) == f"aten.{loss_op}_forward.default"]
            bwd = [u for u in users if _opname(u.target) == f"aten.{loss_op}_backward.default"]
            lsb = [u for u in users if _opname(u.target) == "aten._log_softmax_backward_data.default"]
            if len(fwd) != 1 or len(users) != len(fwd) + len(bwd) + len(lsb) or len(bwd) > 1:
                continue
            f = fwd[0]
            fa = _named_args(f)
            if f.args[0] is not n or fa["weight"] is not None or fa["reduction"] not in (1, 2):
                continue
            ok = True
            tw_users = [u for u in f.users if u.args[1] == 1]
            for tu in tw_users:
                if any(uu not in bwd for uu in tu.users):
                    ok = False
            for b in bwd:
                ba = _named_args(b)
                if ba["self"] is not n or ba["target"] is not fa["target"] or ba["weight"] is not None:
                    ok = False
                bu = list(b.users)
                if len(bu) != 1 or bu[0] not in lsb or bu[0].args[0] is not b:
                    ok = False
            for l in lsb:
                if l.args[0] not in bwd:
                    ok = False
            if not ok:
                continue
            info = {"logits": x, "target": fa["target"], "reduction": {1: "mean", 2: "sum"}[fa["reduction"]],
                    "ignore_index": int(fa["ignore_index"]), "fwd": f, "bwd": bwd[0] if bwd else None,
                    "spatial": spatial}
            self.ce[n] = dict(info, role="logsoftmax")
            self.ce[f] = dict(info, role="fwd")
            for b in bwd:
                self.ce[b] = dict(info, role="nllbwd")
            for l in lsb:
                self.ce[l] = dict(info, role="lsbwd", grad=l.args[0].args[0])

        # CPU dropout: mul(x, div(bernoulli_(empty_like(..), keep), keep))
        for n in g.nodes:
            if n.op != "call_function" or _opname(n.target) not in ("aten.div.Scalar", "aten.div.Tensor"):
                continue
            b = n.args[0]
            if not isinstance(b, torch.fx.Node) or _opname(b.target) not in (
                    "aten.bernoulli_.float", "aten.bernoulli.p", "aten.bernoulli.default"):
                continue
            keep = b.args[1] if len(b.args) > 1 else b.kwargs.get("p")
            if not isinstance(keep, float) or not isinstance(n.args[1], (int, float)) or \
                    abs(float(n.args[1]) - keep) > 1e-12:
                continue
            us = list(n.users)
            if not us or any(_opname(u.target) != "aten.mul.Tensor" for u in us):
                continue
            fw = [u for u in us if u in self.fwd]
            if len(fw) != 1:
                continue
            if self.meta(n)[0] != self.meta(fw[0])[0]:
                # a mask that broadcasts (stochastic depth: one draw per
                # sample): dropout of ones, multiplied like any tensor
                self.dropout_scaled_ones[n] = round(1.0 - keep, 12)
                continue
            self.dropout_masks[n] = {"keep": keep, "fwd": fw[0], "mask": None}

    # ---- per-node lowering --------------------------------------------
    def lower(self, n: torch.fx.Node):
        name = _opname(n.target)
        if n.target is operator.getitem:
            src, idx = n.args
            v = self.env.get(src)
            if isinstance(v, (list, tuple)):
                self.env[n] = v[idx]
            else:
                self.env[n] = ("unavailable", src.name, idx)
            return
        if n in self.ce:
            return self._lower_ce(n, self.ce[n])
        if n in self.dropout_scaled_ones:
            shp, dt = self.meta(n)
            ones = self._fill(1.0, shp, dt, hint=n.name + "_ones")
            self.dropout_stream += 1
            y, _ = self.emit("dropout", [ones], [(shp, dt), (shp, "i1")],
                             {"p": self.dropout_scaled_ones[n], "seed": self.dropout_stream, "offset": 0})
            return self._set(n, y)
        if n in self.dropout_masks or (_opname(n.target).startswith("aten.bernoulli")
                                        and all(u in self.dropout_masks or u in self.dropout_scaled_ones
                                                for u in n.users)):
            self.env[n] = ("dropout-mask", n.name)
            return
        if name == "aten.mul.Tensor":
            for a, b in ((n.args[0], n.args[1]), (n.args[1], n.args[0])):
                if isinstance(b, torch.fx.Node) and b in self.dropout_masks:
                    return self._lower_dropout_mul(n, a, self.dropout_masks[b])
        fn = getattr(self, "op_" + name.replace("aten.", "").replace(".", "_"), None)
        if fn is not None:
            r = fn(n, _named_args(n))
            if r is not NotImplemented:
                return
        self._generic(n, name)

    def _set(self, n, v):
        self.env[n] = v

    def _generic(self, n, name):
        if name in ALIAS_OPS:
            src = n.args[0]
            if name == "aten._to_copy.default":
                shp, dt = self.meta(n)
                sv = self.val(src)
                if dt != self.vdtype(sv):  # convert has _to_copy's semantics between all dtypes
                    return self._set(n, self.emit1("convert", [sv], shp, dt))
            return self._set(n, self.env[src])
        if name in RESHAPE_OPS:
            shp, dt = self.meta(n)
            return self._set(n, self.reshape(self.val(n.args[0]), shp))
        if name in UNARY:
            shp, dt = self.meta(n)
            x = self.val(n.args[0])
            integer_ok = UNARY[name] in ("neg", "abs") and dt in ("i32", "i64")  # wrap around as torch
            if (dt in FLOAT or integer_ok) and self.vdtype(x) == dt:
                return self._set(n, self.emit1(UNARY[name], [x], shp, dt))
        if name in ACT_GRAD:
            shp, dt = self.meta(n)
            return self._set(n, self.emit1(ACT_GRAD[name], [self.val(n.args[0]), self.val(n.args[1])], shp, dt))
        op = name.split(".")[1] if name.count(".") >= 2 and not name.endswith("_mode") else ""
        if op in BINARY or op == "rsub":
            return self._binary(n, op, name)
        if op in REDUCE:
            return self._reduce(n, REDUCE[op], name)
        # opaque
        tensors = [a for a in n.all_input_nodes]
        creation = name in CREATE_OPS
        ins = [] if creation else [self.val(a) for a in tensors]
        outs = self._outs_meta(n)
        N = _numel(outs[0][0]) if outs else 0
        if creation or name in MOVE_OPS:
            flops = 0
        elif "scaled_dot_product" in name:
            flops = self._attention_flops(n, name)
        elif name in TWO_FLOP_OPAQUE:
            flops = 2 * N
        else:
            flops = N
        vs = self.opaque(n, ins, outs, flops)
        self._set(n, vs if self._multi(n) else vs[0])

    def _attention_flops(self, n, name):
        """FLOPs of an attention the lowering leaves opaque (a masked one),
        by the cost formula of ``ckpt.attention`` / ``attention_grad``
        (docs/dialect.md) with every (query, key) pair counted."""
        a = _named_args(n)
        qs = self.meta(a["query"])[0]
        ks = self.meta(a["key"])[0]
        vs = self.meta(a["value"])[0]
        B, H, S, D = (qs + [1] * 4)[:4] if len(qs) == 4 else (1, 1, qs[-2], qs[-1])
        P = S * ks[-2]
        Dv = vs[-1]
        if "backward" in name:
            return B * H * (6 * P * D + 4 * P * Dv + 6 * P + 2 * S * Dv)
        return B * H * (2 * P * D + 2 * P * Dv + 5 * P + S * Dv)

    def _multi(self, n):
        tm = n.meta.get("tensor_meta")
        if tm is not None and hasattr(tm, "shape"):
            return False
        v = n.meta.get("val")
        if isinstance(v, torch.Tensor):
            return False
        return True

    def _outs_meta(self, n):
        if not self._multi(n):
            return [self.meta(n)]
        # multi-output: shapes from getitem users; an unread element gets shape [0]
        k = 0
        got = {}
        for u in n.users:
            if u.target is operator.getitem:
                got[u.args[1]] = self.meta(u)
                k = max(k, u.args[1] + 1)
        schema = getattr(n.target, "_schema", None)
        if schema is not None:
            k = max(k, len(schema.returns))
        return [got.get(i, ([0], "f32")) for i in range(k)]

    def _binary(self, n, op, name):
        """add/sub/mul/div/rsub of two tensors or of a tensor and a scalar.

        A Python scalar (or a 0-d constant) becomes a rank-0 ``fill`` of the
        tensor's dtype: on the CPU, torch 1.13 rounds a wrapped scalar to the
        tensor's dtype and then runs the same elementwise kernel as for two
        tensors (``x / c`` divides, it does not multiply by ``1/c``), so
        ``op(x, fill(c))`` is bit-identical (tests/test_export.py checks it).
        ``alpha != 1`` stays opaque: torch fuses ``alpha * y`` into the kernel.
        """
        shp, dt = self.meta(n)
        a, b = n.args[0], n.args[1]
        alpha = n.kwargs.get("alpha", n.args[2] if len(n.args) > 2 else 1)
        ta, tb = isinstance(a, torch.fx.Node), isinstance(b, torch.fx.Node)
        ins = [self.val(x) for x in (a, b) if isinstance(x, torch.fx.Node)]
        ckpt_op = "sub" if op == "rsub" else BINARY[op]
        if ta and not tb and alpha == 1 and dt in ("i32", "i64") and self.meta(a) == (shp, dt) and \
                isinstance(b, int) and not isinstance(b, bool) and \
                ((op in ("add", "sub") and b == 0) or (op == "mul" and b == 1)):
            return self._set(n, self.env[a])  # exact integer identities (position ids + 0)
        integer_ok = dt in ("i32", "i64") and ckpt_op in ("add", "sub", "mul")  # wrap around as torch
        if alpha != 1 or (dt not in FLOAT and not integer_ok):
            return self._set(n, self.opaque(n, ins, [(shp, dt)], _numel(shp))[0])
        if ta and tb:
            va, vb = self.val(a), self.val(b)
            # A 0-d operand of another float dtype does not take part in type
            # promotion: torch casts it to the result dtype (round to nearest
            # even), which is what `convert` does.
            for v in (va, vb):
                if self.vdtype(v) != dt and self.vdtype(v) in FLOAT and self.shape(v) == [] and \
                        shp != []:
                    conv = self.emit1("convert", [v], [], dt, hint=n.name + "_c")
                    va, vb = (conv, vb) if v is va else (va, conv)
            if self.vdtype(va) == self.vdtype(vb) == dt:
                lhs, rhs = (vb, va) if op == "rsub" else (va, vb)
                return self._set(n, self.emit1(ckpt_op, [lhs, rhs], shp, dt))
            return self._set(n, self.opaque(n, ins, [(shp, dt)], _numel(shp))[0])
        if ta and isinstance(b, (int, float)) and not isinstance(b, bool):
            va = self.val(a)
            if self.vdtype(va) != dt:
                return self._set(n, self.opaque(n, ins, [(shp, dt)], _numel(shp))[0])
            # Exact identities only: x*1, x/1 and x-0 return x bit for bit
            # (x+0 does not: -0 + 0 is +0).
            identity = (op in ("mul", "div") and b == 1) or (op == "sub" and b == 0)
            if identity and self.shape(va) == shp:
                return self._set(n, va)
            c = self._scalar_fill(b, dt, hint=n.name + "_c")
            if c is None:
                return self._set(n, self.opaque(n, ins, [(shp, dt)], _numel(shp))[0])
            lhs, rhs = (c, va) if op == "rsub" else (va, c)
            return self._set(n, self.emit1(ckpt_op, [lhs, rhs], shp, dt))
        return self._set(n, self.opaque(n, ins, [(shp, dt)], _numel(shp))[0])

    # ---- constants ------------------------------------------------------
    @staticmethod
    def _rounded(value, dt):
        """`value` rounded to dtype `dt` exactly as torch rounds a scalar
        (``torch.tensor(value, dtype=...)``), as a Python number (a float
        may round to an infinity); None when it has no ckpt form: NaN, for an
        integer dtype a value that is not integral or out of range, for
        ``i1`` anything but 0 and 1 (false and true)."""
        if dt == "i1":
            return float(value) if isinstance(value, (bool, int, float)) and value in (0, 1) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        if dt in FLOAT:
            r = float(torch.tensor(value, dtype=TORCH_DTYPES[dt]).item())
            return None if math.isnan(r) else r
        if dt in ("i32", "i64"):
            if not math.isfinite(float(value)) or float(value) != int(value):
                return None
            bits = 31 if dt == "i32" else 63
            v = int(value)
            return float(v) if -(2 ** bits) <= v < 2 ** bits and float(v) == v else None
        return None

    def _fill(self, value, shp, dt, hint=None):
        """A ``fill`` of `shp` and `dt` with `value` (already rounded);
        JSON spells infinities as strings."""
        if isinstance(value, float) and math.isinf(value):
            value = "inf" if value > 0 else "-inf"
        return self.emit1("fill", [], list(shp), dt, {"value": value}, hint=hint)

    def _scalar_fill(self, value, dt, hint=None):
        """A rank-0 ``fill`` of `value` rounded to `dt`, or None if it has no
        exact ckpt form."""
        r = self._rounded(value, dt)
        return None if r is None else self._fill(r, [], dt, hint=hint)

    def _only_broadcast_operand(self, n, shp, dt):
        """True when every user of `n` is a plain elementwise binary op of two
        tensors whose other operand already has the result's shape and dtype:
        then a rank-0 constant broadcasts to the same values, and the full-size
        tensor need not exist."""
        def root(x):  # through detach / clone / alias
            while isinstance(x, torch.fx.Node) and x.op == "call_function" and \
                    _opname(x.target) in ALIAS_OPS and _opname(x.target) != "aten._to_copy.default":
                x = x.args[0]
            return x

        users = self._real_users(n)
        if not users:
            return False
        for u in users:
            if u.op != "call_function" or _opname(u.target) not in (
                    "aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor", "aten.div.Tensor",
                    "aten.rsub.Tensor"):
                return False
            if len(u.args) != 2 or u.kwargs or not all(isinstance(x, torch.fx.Node) for x in u.args):
                return False
            others = [x for x in u.args if root(x) is not n]
            if len(others) != 1:
                return False
            try:
                if self.meta(others[0]) != (list(shp), dt) or self.meta(u) != (list(shp), dt):
                    return False
            except ExportError:
                return False
        return True

    def _constant(self, n, value):
        """Lowers an op creating a tensor of the node's shape and dtype filled
        with `value` (``fill.Scalar``, ``full``, ``zeros_like`` ...)."""
        shp, dt = self.meta(n)
        r = self._rounded(value, dt)
        if r is None:
            return NotImplemented
        if self._only_broadcast_operand(n, shp, dt):
            shp = []
        return self._set(n, self._fill(r, shp, dt))

    def _lower_constant(self, n):
        """A tensor constant of the traced code (``torch.tensor(0.5)`` in a
        forward): a ``fill`` when all its elements are equal, else an opaque
        op producing it."""
        t = getattr(self.gm, n.target, None)
        if not isinstance(t, torch.Tensor):
            return
        t = t.detach()
        dt = self.dtype(t.dtype, n)
        shp = [int(d) for d in t.shape]
        try:  # a fake or meta tensor has no values to read
            flat = t.reshape(-1)
            uniform = t.numel() > 0 and bool((flat == flat[0]).all())
            first = flat[0].item() if uniform else None
        except Exception:  # noqa: BLE001 - any failure means "no known value"
            uniform, first = False, None
        if uniform:
            r = self._rounded(first, dt)
            if r is not None and r == first:
                return self._set(n, self._fill(r, shp, dt))
        value = t.clone()
        self._set(n, self.opaque(n, [], [(shp, dt)], 0, name="constant", impl=lambda: (value.clone(),))[0])

    def op_fill_Scalar(self, n, a):
        return self._constant(n, a["value"])

    def op_full_default(self, n, a):
        return self._constant(n, a["fill_value"])

    def op_full_like_default(self, n, a):
        return self._constant(n, a["fill_value"])

    def op_new_full_default(self, n, a):
        return self._constant(n, a["fill_value"])

    def op_scalar_tensor_default(self, n, a):
        return self._constant(n, a["s"])

    def _zeros(self, n, a):
        return self._constant(n, 0)

    def _ones(self, n, a):
        return self._constant(n, 1)

    # The contents of an uninitialized tensor are unspecified: zeros are one
    # valid choice (and the value is normally overwritten or never read).
    op_zeros_default = op_zeros_like_default = op_new_zeros_default = _zeros
    op_empty_like_default = op_empty_memory_format = op_new_empty_default = _zeros
    op_ones_default = op_ones_like_default = op_new_ones_default = _ones

    def _scatter_into_zeros(self, n, g, sizes, dim, start, end):
        """The tensor of `sizes` that is `g` in [start, end) along `dim` and
        zero elsewhere: `concat(zeros, g, zeros)` (zeros are exact)."""
        dt = self.vdtype(g)
        parts = []
        if start > 0:
            s = list(sizes)
            s[dim] = start
            parts.append(self._fill(0.0 if dt in FLOAT else 0, s, dt, hint=n.name + "_lo"))
        parts.append(g)
        if end < sizes[dim]:
            s = list(sizes)
            s[dim] = sizes[dim] - end
            parts.append(self._fill(0.0 if dt in FLOAT else 0, s, dt, hint=n.name + "_hi"))
        if len(parts) == 1:
            return self._set(n, g)
        return self._set(n, self.emit1("concat", parts, list(sizes), dt, {"axis": dim}))

    def op_slice_backward_default(self, n, a):
        shp, dt = self.meta(n)
        g = self.val(a["grad_output"])
        sizes = [int(d) for d in a["input_sizes"]]
        if a["step"] != 1 or dt not in FLOAT | {"i32", "i64"} or self.vdtype(g) != dt or sizes != shp:
            return NotImplemented
        dim = _norm_dim(a["dim"], len(sizes))
        size = sizes[dim]
        # torch's slice clamping (start/end may be negative or out of range)
        start, end = a["start"], a["end"]
        start = 0 if start is None else (start + size if start < 0 else start)
        end = size if end is None else (end + size if end < 0 else end)
        start = max(0, min(start, size))
        end = max(start, min(end, size))
        if self.shape(g)[dim] != end - start:
            return NotImplemented
        return self._scatter_into_zeros(n, g, sizes, dim, start, end)

    def _replace_range(self, n, base, part, dim, start, end):
        """`base` with [start, end) along `dim` replaced by `part`:
        ``concat(base[:start], part, base[end:])`` (exact data movement)."""
        bs = self.shape(base)
        dt = self.vdtype(base)
        pieces = []
        if start > 0:
            s = list(bs)
            s[dim] = start
            pieces.append(self._slice(base, dim, 0, 1, s, hint=n.name + "_lo"))
        pieces.append(part)
        if end < bs[dim]:
            s = list(bs)
            s[dim] = bs[dim] - end
            pieces.append(self._slice(base, dim, end, 1, s, hint=n.name + "_hi"))
        if len(pieces) == 1:
            return self._set(n, part)
        self._set(n, self.emit1("concat", pieces, list(bs), dt, {"axis": dim}))

    def op_slice_scatter_default(self, n, a):
        shp, dt = self.meta(n)
        base, src = self.val(a["self"]), self.val(a["src"])
        dim = _norm_dim(a["dim"], len(shp))
        size = shp[dim]
        start = a["start"] if a["start"] is not None else 0
        end = a["end"] if a["end"] is not None else size
        start = max(0, min(start + size if start < 0 else start, size))
        end = max(start, min(end + size if end < 0 else end, size))
        if (a.get("step") or 1) != 1 or self.vdtype(src) != dt or self.shape(src)[dim] != end - start:
            return NotImplemented
        return self._replace_range(n, base, src, dim, start, end)

    def op_select_scatter_default(self, n, a):
        shp, dt = self.meta(n)
        base, src = self.val(a["self"]), self.val(a["src"])
        dim = _norm_dim(a["dim"], len(shp))
        index = a["index"] + (shp[dim] if a["index"] < 0 else 0)
        if self.vdtype(src) != dt:
            return NotImplemented
        s = list(shp)
        s[dim] = 1
        part = self.reshape(src, s, hint=n.name + "_src")
        return self._replace_range(n, base, part, dim, index, index + 1)

    def op_select_backward_default(self, n, a):
        shp, dt = self.meta(n)
        g = self.val(a["grad_output"])
        sizes = [int(d) for d in a["input_sizes"]]
        if dt not in FLOAT | {"i32", "i64"} or self.vdtype(g) != dt or sizes != shp:
            return NotImplemented
        dim = _norm_dim(a["dim"], len(sizes))
        index = a["index"] + (sizes[dim] if a["index"] < 0 else 0)
        s = list(sizes)
        s[dim] = 1
        g1 = self.reshape(g, s, hint=n.name + "_in")
        return self._scatter_into_zeros(n, g1, sizes, dim, index, index + 1)

    def _reduce(self, n, op, name):
        shp, dt = self.meta(n)
        x = self.val(n.args[0])
        xs = self.shape(x)
        a = _named_args(n)
        dims = a.get("dim")
        if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
            dims = list(range(len(xs)))
        if isinstance(dims, int):
            dims = [dims]
        keep = bool(a.get("keepdim") or False)
        if self.vdtype(x) != dt or dt not in FLOAT or a.get("dtype") not in (None,):
            ins = [x]
            return self._set(n, self.opaque(n, ins, [(shp, dt)], _numel(xs))[0])
        axes = sorted({_norm_dim(d, len(xs)) for d in dims})
        attrs = {"axes": axes}
        if keep:
            attrs["keep_dims"] = True
        return self._set(n, self.emit1(op, [x], shp, dt, attrs))

    # ---- masks, position ids -------------------------------------------
    def _arange(self, n, start, end, step):
        shp, dt = self.meta(n)
        vals = [start, step]
        if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in vals):
            return NotImplemented
        if dt not in FLOAT and any(float(v) != int(v) for v in vals):
            return NotImplemented
        conv = int if dt not in FLOAT else (lambda v: v)
        self._set(n, self.emit1("iota", [], shp, dt, {"start": conv(start), "step": conv(step)}))

    def op_arange_default(self, n, a):
        return self._arange(n, 0, a["end"], 1)

    def op_arange_start(self, n, a):
        return self._arange(n, a["start"], a["end"], 1)

    def op_arange_start_step(self, n, a):
        return self._arange(n, a["start"], a["end"], a["step"])

    def _operand(self, x, dt, hint):
        """A tensor operand, or a Python scalar as a rank-0 fill of `dt`
        (None when it has no exact form)."""
        if isinstance(x, torch.fx.Node):
            return self.val(x)
        return self._scalar_fill(x, dt, hint=hint)

    def _compare(self, n, pred):
        a = n.args
        lhs = a[0]
        ldt = self.meta(lhs)[1]
        l = self.val(lhs)
        r = self._operand(a[1], ldt, n.name + "_c")
        if r is None or self.vdtype(r) != ldt:
            return NotImplemented
        shp, dt = self.meta(n)
        self._set(n, self.emit1("compare", [l, r], shp, "i1", {"predicate": pred}))

    def _where(self, n, cond, on_true, on_false):
        shp, dt = self.meta(n)
        c = self.val(cond)
        t = self._operand(on_true, dt, n.name + "_t")
        f = self._operand(on_false, dt, n.name + "_f")
        if self.vdtype(c) != "i1" or t is None or f is None or self.vdtype(t) != dt or self.vdtype(f) != dt:
            return NotImplemented
        self._set(n, self.emit1("select", [c, t, f], shp, dt))

    def _extremum(self, n, op):
        shp, dt = self.meta(n)
        l, r = self.val(n.args[0]), self.val(n.args[1])
        if self.vdtype(l) != dt or self.vdtype(r) != dt or dt == "i1":
            return NotImplemented
        self._set(n, self.emit1(op, [l, r], shp, dt))

    def op_minimum_default(self, n, a):
        return self._extremum(n, "minimum")

    def op_maximum_default(self, n, a):
        return self._extremum(n, "maximum")

    def op_where_self(self, n, a):
        return self._where(n, a["condition"], a["self"], a["other"])

    def op_masked_fill_Scalar(self, n, a):
        return self._where(n, a["mask"], a["value"], a["self"])

    def op_masked_fill_Tensor(self, n, a):
        return self._where(n, a["mask"], a["value"], a["self"])

    def _logical(self, n, op):
        shp, dt = self.meta(n)
        xs = [self.val(x) for x in n.args[: 1 if op == "logical_not" else 2]]
        if dt != "i1" or any(self.vdtype(x) != "i1" for x in xs):
            return NotImplemented
        self._set(n, self.emit1(op, xs, shp, dt))

    def op_bitwise_not_default(self, n, a):
        return self._logical(n, "logical_not")

    op_logical_not_default = op_bitwise_not_default

    def op_bitwise_and_Tensor(self, n, a):
        return self._logical(n, "logical_and")

    op_logical_and_default = op_bitwise_and_Tensor

    def op_bitwise_or_Tensor(self, n, a):
        return self._logical(n, "logical_or")

    op_logical_or_default = op_bitwise_or_Tensor

    def _triangle(self, n, a, op):
        shp, dt = self.meta(n)
        attrs = {"diagonal": int(a["diagonal"])} if a.get("diagonal") else None
        self._set(n, self.emit1(op, [self.val(a["self"])], shp, dt, attrs))

    def op_tril_default(self, n, a):
        return self._triangle(n, a, "tril")

    def op_triu_default(self, n, a):
        return self._triangle(n, a, "triu")

    def op_constant_pad_nd_default(self, n, a):
        shp, dt = self.meta(n)
        x = self.val(a["self"])
        r = len(shp)
        pad = list(a["pad"])
        low, high = [0] * r, [0] * r
        for i in range(len(pad) // 2):  # pairs from the last dimension backwards
            low[r - 1 - i], high[r - 1 - i] = pad[2 * i], pad[2 * i + 1]
        value = a.get("value") or 0
        if any(p < 0 for p in low + high) or self._rounded(value, dt) is None:
            return NotImplemented
        v = self._rounded(value, dt)
        if isinstance(v, float) and math.isinf(v):
            return NotImplemented  # the pad op's f64 value has no JSON infinity
        self._set(n, self.emit1("pad", [x], shp, dt, {"low": low, "high": high, "value": v}))

    def _full_arange_axis(self, idx, size):
        """When index tensor `idx` is ``arange(size)`` (through views) laid
        along one axis of its shape, that axis; else None."""
        shp = self.meta(idx)[0]
        axes = [i for i, d in enumerate(shp) if d != 1]
        if len(axes) > 1 or (axes and shp[axes[0]] != size):
            return None
        x = idx
        while isinstance(x, torch.fx.Node) and x.op == "call_function" and (
                _opname(x.target) in RESHAPE_OPS or
                (_opname(x.target) in ALIAS_OPS and _opname(x.target) != "aten._to_copy.default")):
            x = x.args[0]
        if not isinstance(x, torch.fx.Node) or x.op != "call_function":
            return None
        nm, xa = _opname(x.target), _named_args(x)
        if nm == "aten.add.Tensor" and xa.get("other") == 0 and isinstance(xa.get("self"), torch.fx.Node):
            x = xa["self"]  # position ids: arange + 0
            nm, xa = _opname(x.target), _named_args(x)
        start, step = xa.get("start", 0), xa.get("step", 1)
        if nm not in ("aten.arange.default", "aten.arange.start", "aten.arange.start_step") or \
                start not in (0, None) or step not in (1, None) or self.meta(x)[0] != [size]:
            return None
        return axes[0] if axes else len(shp) - 1

    def op_index_Tensor(self, n, a):
        """``x[i0, i1, ...]`` where every index tensor is ``arange`` of its
        dimension's full size, laid along its own axis (transformers'
        padding masks: ``mask[batch_idx, None, None, kv_idx]``): the elements
        of x in order, reshaped onto those axes and broadcast -- no gather."""
        shp, dt = self.meta(n)
        x = self.val(a["self"])
        xs = self.shape(x)
        idx = list(a["indices"])
        if len(idx) != len(xs) or any(i is None for i in idx):
            return NotImplemented
        axes = [self._full_arange_axis(i, d) for i, d in zip(idx, xs)]
        if any(ax is None for ax in axes) or axes != sorted(set(axes)) or \
                any(len(self.meta(i)[0]) != len(shp) for i in idx):
            return NotImplemented
        placed = [1] * len(shp)
        for ax, d in zip(axes, xs):
            placed[ax] = d
        v = self.reshape(x, placed, hint=n.name + "_r")
        if placed != shp:
            v = self.emit1("broadcast", [v], shp, dt)
        self._set(n, v)

    def op_gather_default(self, n, a):
        shp, dt = self.meta(n)
        if a.get("sparse_grad"):
            return NotImplemented
        x, idx = self.val(a["self"]), self.val(a["index"])
        if self.vdtype(idx) != "i64":
            return NotImplemented
        self._set(n, self.emit1("gather", [x, idx], shp, dt, {"dim": _norm_dim(a["dim"], len(shp))}))

    # ---- matmuls ------------------------------------------------------
    def _mm_operand(self, a: torch.fx.Node, rank: int):
        """Operand of a matmul with transposes of the last two dims folded into a flag."""
        want = self.meta(a)[0]
        flag = False
        n = a
        while isinstance(n, torch.fx.Node) and n.op == "call_function" and n.target is not operator.getitem:
            nm = _opname(n.target)
            src = n.args[0] if n.args else None
            if not isinstance(src, torch.fx.Node):
                break
            if nm in ALIAS_OPS and nm != "aten._to_copy.default":
                n = src
                continue
            ss, ns = self.meta(src)[0], self.meta(n)[0]
            if nm == "aten.expand.default" and ss == ns:
                n = src
                continue
            if nm in RESHAPE_OPS and len(ss) >= 2 and len(ns) >= 2 and ss[-2:] == ns[-2:]:
                n = src
                continue
            if self._is_last2_transpose(n):
                flag = not flag
                n = src
                continue
            break
        v = self.val(n)
        need = list(want[:-2]) + (list(want[-2:][::-1]) if flag else list(want[-2:]))
        v = self.reshape(v, need, hint=f"{self.cur.name}_in")
        return v, flag

    def _is_last2_transpose(self, n):
        nm = _opname(n.target)
        shp = self.meta(n)[0]
        r = len(shp)
        if r < 2:
            return False
        if nm == "aten.t.default":
            return r == 2
        if nm == "aten.transpose.int":
            d0, d1 = sorted((_norm_dim(n.args[1], r), _norm_dim(n.args[2], r)))
            return (d0, d1) == (r - 2, r - 1)
        if nm == "aten.permute.default":
            p = [_norm_dim(d, r) for d in n.args[1]]
            return p == list(range(r - 2)) + [r - 1, r - 2]
        return False

    def op_mm_default(self, n, a):
        shp, dt = self.meta(n)
        l, tl = self._mm_operand(n.args[0], 2)
        r, tr = self._mm_operand(n.args[1], 2)
        attrs = {}
        if tl:
            attrs["transpose_lhs"] = True
        if tr:
            attrs["transpose_rhs"] = True
        self._set(n, self.emit1("matmul", [l, r], shp, dt, attrs or None))

    def op_bmm_default(self, n, a):
        shp, dt = self.meta(n)
        l, tl = self._mm_operand(n.args[0], 3)
        r, tr = self._mm_operand(n.args[1], 3)
        attrs = {}
        if tl:
            attrs["transpose_lhs"] = True
        if tr:
            attrs["transpose_rhs"] = True
        self._set(n, self.emit1("batch_matmul", [l, r], shp, dt, attrs or None))

    def op_addmm_default(self, n, a):
        shp, dt = self.meta(n)
        if a.get("beta", 1) != 1 or a.get("alpha", 1) != 1:
            return NotImplemented
        bias = self.val(a["self"])
        l, tl = self._mm_operand(a["mat1"], 2)
        r, tr = self._mm_operand(a["mat2"], 2)
        if not tl and tr and self.shape(bias) == [shp[1]]:
            return self._set(n, self.emit1("linear", [l, r, bias], shp, dt))
        attrs = {}
        if tl:
            attrs["transpose_lhs"] = True
        if tr:
            attrs["transpose_rhs"] = True
        mm = self.emit1("matmul", [l, r], shp, dt, attrs or None, hint=n.name + "_mm")
        self._set(n, self.emit1("add", [mm, bias], shp, dt))

    # ---- layout ---------------------------------------------------------
    def _transpose(self, n, perm):
        src = self.env.get(n.args[0])
        if isinstance(src, _LazyPerm):  # a view of a view: compose
            perm = [src.perm[p] for p in perm]
            x = src.value
        else:
            x = self.val(n.args[0])
        if perm == list(range(len(perm))):
            return self._set(n, x)
        self._set(n, _LazyPerm(x, list(perm), n))

    def op_t_default(self, n, a):
        r = len(self.meta(n)[0])
        return self._transpose(n, [1, 0] if r == 2 else list(range(r)))

    def op_transpose_int(self, n, a):
        r = len(self.meta(n)[0])
        p = list(range(r))
        d0, d1 = _norm_dim(n.args[1], r), _norm_dim(n.args[2], r)
        p[d0], p[d1] = p[d1], p[d0]
        return self._transpose(n, p)

    def op_permute_default(self, n, a):
        r = len(self.meta(n)[0])
        return self._transpose(n, [_norm_dim(d, r) for d in n.args[1]])

    def op_copy_default(self, n, a):
        """``copy(dst, src)`` (a functionalized ``dst.copy_(src)``): the
        values of ``src``, broadcast to ``dst``'s shape and converted to its
        dtype; ``dst``'s own values are never read."""
        shp, dt = self.meta(n)
        src = self.env.get(a["src"])
        if isinstance(src, _LazyPerm) and dt == self.vdtype(src.value):
            if self.meta(a["src"])[0] == shp:
                return self._set(n, src)  # still a view: PyTorch copies into dst, we need not
        v = self.val(a["src"])
        if self.vdtype(v) != dt:
            if dt not in FLOAT or self.vdtype(v) not in FLOAT:
                return NotImplemented
            v = self.emit1("convert", [v], self.shape(v), dt, hint=n.name + "_cvt")
        if self.shape(v) != shp:
            v = self.emit1("broadcast", [v], shp, dt)
        self._set(n, v)

    def op_expand_default(self, n, a):
        shp, dt = self.meta(n)
        x = self.val(n.args[0])
        if self.shape(x) == shp:
            return self._set(n, x)
        self._set(n, self.emit1("broadcast", [x], shp, dt))

    def _slice(self, x, dim, start, step, shp, hint=None):
        xs = self.shape(x)
        if shp == xs:
            return x
        starts = [0] * len(xs)
        steps = [1] * len(xs)
        starts[dim] = start
        steps[dim] = step
        return self.emit1("slice", [x], shp, self.vdtype(x), {"starts": starts, "steps": steps}, hint=hint)

    def op_slice_Tensor(self, n, a):
        shp, dt = self.meta(n)
        x = self.val(a["self"])
        xs = self.shape(x)
        dim = _norm_dim(a["dim"], len(xs))
        start = a["start"] if a["start"] is not None else 0
        if start < 0:
            start += xs[dim]
        start = max(0, min(start, xs[dim]))
        self._set(n, self._slice(x, dim, start, a["step"] or 1, shp))

    def op_select_int(self, n, a):
        shp, dt = self.meta(n)
        x = self.val(a["self"])
        xs = self.shape(x)
        dim = _norm_dim(a["dim"], len(xs))
        idx = a["index"] + (xs[dim] if a["index"] < 0 else 0)
        s = list(xs)
        s[dim] = 1
        v = self._slice(x, dim, idx, 1, s, hint=n.name + "_slice")
        self._set(n, self.reshape(v, shp))

    def _split(self, n, sizes, dim):
        x = self.val(n.args[0])
        xs = self.shape(x)
        dim = _norm_dim(dim, len(xs))
        outs, start = [], 0
        for i, sz in enumerate(sizes):
            s = list(xs)
            s[dim] = sz
            outs.append(self._slice(x, dim, start, 1, s, hint=f"{n.name}_{i}"))
            start += sz
        self._set(n, outs)

    def op_split_Tensor(self, n, a):
        xs = self.meta(a["self"])[0]
        dim = _norm_dim(a["dim"], len(xs))
        sz = a["split_size"]
        sizes = [min(sz, xs[dim] - i) for i in range(0, xs[dim], sz)]
        self._split(n, sizes, dim)

    def op_split_with_sizes_default(self, n, a):
        self._split(n, list(a["split_sizes"]), a["dim"])

    def op_cat_default(self, n, a):
        shp, dt = self.meta(n)
        ts = [t for t in a["tensors"] if self.meta(t)[0] != [0]]
        vs = [self.val(t) for t in ts]
        if len(vs) == 1:
            return self._set(n, vs[0])
        self._set(n, self.emit1("concat", vs, shp, dt, {"axis": _norm_dim(a["dim"], len(shp))}))

    def op_stack_default(self, n, a):
        shp, dt = self.meta(n)
        dim = _norm_dim(a["dim"], len(shp))
        vs = []
        for t in a["tensors"]:
            s = list(self.meta(t)[0])
            s.insert(dim, 1)
            vs.append(self.reshape(self.val(t), s, hint=n.name + "_in"))
        self._set(n, self.emit1("concat", vs, shp, dt, {"axis": dim}))

    # ---- activations, softmax -----------------------------------------
    def op_gelu_default(self, n, a):
        shp, dt = self.meta(n)
        appr = "tanh" if a.get("approximate") == "tanh" else "erf"
        self._set(n, self.emit1("gelu", [self.val(a["self"])], shp, dt, {"approximation": appr}))

    def op_gelu_backward_default(self, n, a):
        shp, dt = self.meta(n)
        appr = "tanh" if a.get("approximate") == "tanh" else "erf"
        self._set(n, self.emit1("gelu_grad", [self.val(a["grad_output"]), self.val(a["self"])], shp, dt,
                                {"approximation": appr}))

    def op_threshold_backward_default(self, n, a):
        if a["threshold"] != 0:
            return NotImplemented
        shp, dt = self.meta(n)
        self._set(n, self.emit1("relu_grad", [self.val(a["grad_output"]), self.val(a["self"])], shp, dt))

    @staticmethod
    def _clamp_bounds(lo, hi):
        """``{"min": lo, "max": hi}`` for ``ckpt.clamp``/``clamp_grad``, or
        None when the bounds have no exact ckpt form: a missing, boolean,
        tensor or non-finite bound (JSON has no infinities), an integer a
        double does not hold exactly (torch converts it to the dtype
        directly), or ``lo > hi`` (torch then returns ``hi`` everywhere)."""
        for v in (lo, hi):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or \
                    not math.isfinite(v) or float(v) != v:
                return None
        if lo > hi:
            return None
        return {"min": float(lo), "max": float(hi)}

    def _lower_clamp(self, n, tensors, lo, hi):
        """``clamp`` of ``tensors = [x]`` or ``clamp_grad`` of
        ``[grad_output, self]`` when the bounds and dtypes allow it, else
        NotImplemented (the node stays opaque)."""
        shp, dt = self.meta(n)
        attrs = self._clamp_bounds(lo, hi)
        vs = [self.val(t) for t in tensors]
        if attrs is None or dt not in FLOAT or any(self.vdtype(v) != dt for v in vs):
            return NotImplemented
        self._set(n, self.emit1("clamp" if len(vs) == 1 else "clamp_grad", vs, shp, dt, attrs))

    def op_hardtanh_default(self, n, a):
        return self._lower_clamp(n, [a["self"]], a["min_val"], a["max_val"])

    def op_hardtanh_backward_default(self, n, a):
        return self._lower_clamp(n, [a["grad_output"], a["self"]], a["min_val"], a["max_val"])

    def op_clamp_default(self, n, a):
        return self._lower_clamp(n, [a["self"]], a["min"], a["max"])

    def op__safe_softmax_default(self, n, a):
        """torch 2's softmax inside attention: a row whose every input is
        -inf gives 0 there and NaN in ``ckpt.softmax`` (docs/exporter.md);
        masks that leave each query one key (causal, padding with at least
        one real token) never make such a row."""
        if a.get("dtype") is not None:
            return NotImplemented
        return self.op__softmax_default(n, a)

    def op__softmax_default(self, n, a):
        shp, dt = self.meta(n)
        self._set(n, self.emit1("softmax", [self.val(a["self"])], shp, dt,
                                {"axis": _norm_dim(a["dim"], len(shp))}))

    def op__softmax_backward_data_default(self, n, a):
        shp, dt = self.meta(n)
        self._set(n, self.emit1("softmax_grad", [self.val(a["grad_output"]), self.val(a["output"])], shp, dt,
                                {"axis": _norm_dim(a["dim"], len(shp))}))

    def op__log_softmax_default(self, n, a):
        shp, dt = self.meta(n)
        self._set(n, self.emit1("log_softmax", [self.val(a["self"])], shp, dt,
                                {"axis": _norm_dim(a["dim"], len(shp))}))

    def op__log_softmax_backward_data_default(self, n, a):
        shp, dt = self.meta(n)
        self._set(n, self.emit1("log_softmax_grad", [self.val(a["grad_output"]), self.val(a["output"])],
                                shp, dt, {"axis": _norm_dim(a["dim"], len(shp))}))

    def op_pow_Tensor_Scalar(self, n, a):
        shp, dt = self.meta(n)
        x = self.val(a["self"])
        e = a["exponent"]
        if not isinstance(e, (int, float)) or dt not in FLOAT or self.vdtype(x) != dt:
            return NotImplemented
        if e == 1:
            return self._set(n, x)
        self._set(n, self.emit1("pow", [x], shp, dt, {"exponent": float(e)}))

    # ---- losses ---------------------------------------------------------
    def op_nll_loss_forward_default(self, n, a):
        tshape = self.meta(a["target"])[0]
        R = _numel(tshape)
        outs = self._outs_meta(n)
        flops = R + (1 if a["reduction"] == 1 else 0)
        vs = self.opaque(n, [self.val(a["self"]), self.val(a["target"])] +
                         ([self.val(a["weight"])] if a["weight"] is not None else []), outs, flops)
        self._set(n, vs)

    def op_nll_loss_backward_default(self, n, a):
        shp, dt = self.meta(n)
        R = _numel(self.meta(a["target"])[0])
        ins = [self.val(x) for x in n.all_input_nodes]
        self._set(n, self.opaque(n, ins, [(shp, dt)], R)[0])

    def _lower_ce(self, n, info):
        role = info["role"]
        if role in ("logsoftmax", "nllbwd"):
            self.env[n] = ("fused-cross-entropy", n.name)
            return
        if info["spatial"]:
            return self._lower_ce_spatial(n, info)
        logits = self.val(info["logits"])
        target = self.val(info["target"])
        attrs = {"reduction": info["reduction"]}
        if info["ignore_index"] != -100:
            attrs["ignore_index"] = info["ignore_index"]
        if role == "fwd":
            ls, ldt = self.values[logits]
            tshape = self.meta(info["target"])[0]
            loss_shape = [] if info["reduction"] != "none" else tshape
            loss, lse = self.emit("cross_entropy", [logits, target], [(loss_shape, ldt), (tshape, "f32")],
                                  dict(attrs))
            info_f = self.ce[n]
            info_f["lse"] = lse
            self.ce[info["fwd"]]["lse"] = lse
            # total_weight (getitem 1) is only read by the fused backward
            self.env[n] = [loss, ("fused-total-weight", n.name)]
            return
        # lsbwd: the log-softmax backward becomes cross_entropy_grad
        shp, dt = self.meta(n)
        lse = self.ce[info["fwd"]]["lse"]
        g = self.val(info["grad"])
        self._set(n, self.emit1("cross_entropy_grad", [g, logits, target, lse], shp, dt, dict(attrs)))

    def _lower_ce_spatial(self, n, info):
        """Per-pixel cross-entropy (``log_softmax`` over axis 1 of NCHW
        logits + ``nll_loss2d``): ``cross_entropy`` over the rows of the
        logits permuted to NHWC, and its gradient permuted back. Unlike
        PyTorch, which reads the NCHW tensor strided, the permuted logits
        and gradient are buffers (docs/exporter.md)."""
        role = info["role"]
        N, C, H, W = self.meta(info["logits"])[0]
        rows = [N * H * W]
        if role == "fwd":
            logits = self.val(info["logits"])
            dt = self.vdtype(logits)
            perm = self.emit1("transpose", [logits], [N, H, W, C], dt, {"perm": [0, 2, 3, 1]},
                              hint=n.name + "_nhwc")
            flat = self.reshape(perm, rows + [C], hint=n.name + "_rows")
            target = self.reshape(self.val(info["target"]), rows, hint=n.name + "_target")
            attrs = {"reduction": info["reduction"]}
            if info["ignore_index"] != -100:
                attrs["ignore_index"] = info["ignore_index"]
            loss, lse = self.emit("cross_entropy", [flat, target], [([], dt), (rows, "f32")], dict(attrs))
            self.ce[info["fwd"]].update(lse=lse, rows=flat, rows_target=target, attrs=attrs)
            self.env[n] = [loss, ("fused-total-weight", n.name)]
            return
        fwd = self.ce[info["fwd"]]
        shp, dt = self.meta(n)
        g = self.emit1("cross_entropy_grad", [self.val(info["grad"]), fwd["rows"], fwd["rows_target"],
                                              fwd["lse"]], rows + [C], dt, dict(fwd["attrs"]),
                       hint=n.name + "_rows")
        g = self.reshape(g, [N, H, W, C], hint=n.name + "_nhwc")
        self._set(n, self.emit1("transpose", [g], [N, C, H, W], dt, {"perm": [0, 3, 1, 2]}))

    # ---- dropout --------------------------------------------------------
    def _lower_dropout_mul(self, n, x, info):
        shp, dt = self.meta(n)
        p = round(1.0 - info["keep"], 12)
        xv = self.val(x)
        if n in self.fwd and info["mask"] is None and n is info["fwd"]:
            if self.shape(xv) != shp:
                raise ExportError(f"dropout mask broadcast at {n.name}")
            self.dropout_stream += 1
            y, mask = self.emit("dropout", [xv], [(shp, dt), (shp, "i1")],
                                {"p": p, "seed": self.dropout_stream, "offset": 0})
            info["mask"] = mask
            info["p"] = p
            return self._set(n, y)
        if info["mask"] is None:
            raise ExportError(f"dropout gradient {n.name} before its forward")
        self._set(n, self.emit1("dropout_grad", [xv, info["mask"]], shp, dt, {"p": info["p"]}))

    def op_native_dropout_default(self, n, a):
        shp, dt = self.meta(a["input"])
        self.dropout_stream += 1
        y, mask = self.emit("dropout", [self.val(a["input"])], [(shp, dt), (shp, "i1")],
                            {"p": float(a["p"]), "seed": self.dropout_stream, "offset": 0})
        self._set(n, [y, mask])

    def op_native_dropout_backward_default(self, n, a):
        shp, dt = self.meta(n)
        p = round(1.0 - 1.0 / float(a["scale"]), 12)
        self._set(n, self.emit1("dropout_grad", [self.val(a["grad_output"]), self.val(a["mask"])], shp, dt,
                                {"p": p}))

    # ---- normalization --------------------------------------------------
    def op_native_layer_norm_default(self, n, a):
        x = self.val(a["input"])
        xs, dt = self.values[x]
        axis = len(xs) - len(a["normalized_shape"])
        stat = xs[:axis]
        w = self.val(a["weight"]) if a["weight"] is not None else None
        b = self.val(a["bias"]) if a["bias"] is not None else None
        y, mean, rstd = self.emit("layer_norm", [x, w, b], [(xs, dt), (stat, "f32"), (stat, "f32")],
                                  {"axis": axis, "epsilon": float(a["eps"])})
        outs = [y]
        for i, s in ((1, mean), (2, rstd)):
            fx_shape = stat + [1] * (len(xs) - axis)
            r = self.reshape(s, fx_shape, hint=f"{n.name}_stat{i}")
            self.stat_src[r] = s
            outs.append(r)
        self._set(n, outs)

    def op_native_layer_norm_backward_default(self, n, a):
        x = self.val(a["input"])
        xs, dt = self.values[x]
        axis = len(xs) - len(a["normalized_shape"])
        stat = xs[:axis]
        mean = self.stat_src.get(self.val(a["mean"])) or self.reshape(self.val(a["mean"]), stat)
        rstd = self.stat_src.get(self.val(a["rstd"])) or self.reshape(self.val(a["rstd"]), stat)
        mask = list(a["output_mask"])
        w = self.val(a["weight"]) if a["weight"] is not None else None
        k = 2 if mask[2] else (1 if mask[1] else 0)
        if k and w is None:
            return NotImplemented
        pshape = xs[axis:]
        outs = [(xs, dt)] + [(pshape, dt)] * k
        vs = self.emit("layer_norm_grad", [self.val(a["grad_out"]), x, mean, rstd, w], outs, {"axis": axis})
        res = [vs[0], vs[1] if k >= 1 else None, vs[2] if k >= 2 else None]
        if k == 2 and not mask[1]:
            res[1] = None
        self._set(n, res)

    def op_native_batch_norm_default(self, n, a):
        if not a["training"]:
            return NotImplemented
        x = self.val(a["input"])
        xs, dt = self.values[x]
        C = [xs[1]]
        w = self.val(a["weight"]) if a["weight"] is not None else None
        b = self.val(a["bias"]) if a["bias"] is not None else None
        y, mean, rstd = self.emit("batch_norm", [x, w, b], [(xs, dt), (C, "f32"), (C, "f32")],
                                  {"epsilon": float(a["eps"])})
        self._set(n, [y, mean, rstd])

    def op__native_batch_norm_legit_functional_default(self, n, a):
        """torch 2's functional training batch norm: (y, mean, rstd) as
        ``native_batch_norm``, plus the updated running statistics, which
        only feed the buffer mutations (not part of the exported step)."""
        if self.op_native_batch_norm_default(n, a) is NotImplemented:
            return NotImplemented
        self.env[n] = list(self.env[n]) + [("running-stat", n.name, i) for i in (3, 4)]

    def op_native_batch_norm_backward_default(self, n, a):
        if not a["train"]:
            return NotImplemented
        x = self.val(a["input"])
        xs, dt = self.values[x]
        mask = list(a["output_mask"])
        w = self.val(a["weight"]) if a["weight"] is not None else None
        k = 2 if mask[2] else (1 if mask[1] else 0)
        if k and w is None:
            return NotImplemented
        outs = [(xs, dt)] + [([xs[1]], dt)] * k
        vs = self.emit("batch_norm_grad", [self.val(a["grad_out"]), x, self.val(a["save_mean"]),
                                           self.val(a["save_invstd"]), w], outs)
        res = [vs[0] if mask[0] else None, vs[1] if k >= 1 and mask[1] else None, vs[2] if k >= 2 else None]
        self._set(n, res)

    # ---- embedding --------------------------------------------------------
    def op_embedding_default(self, n, a):
        shp, dt = self.meta(n)
        self._set(n, self.emit1("embedding", [self.val(a["weight"]), self.val(a["indices"])], shp, dt))

    def op_embedding_dense_backward_default(self, n, a):
        if a["scale_grad_by_freq"]:
            return NotImplemented
        shp, dt = self.meta(n)
        pad = a["padding_idx"]
        attrs = {"padding_idx": int(pad)} if pad not in (-1, None) else None
        self._set(n, self.emit1("embedding_grad", [self.val(a["grad_output"]), self.val(a["indices"])], shp, dt,
                                attrs))

    def op_mse_loss_default(self, n, a):
        red = {1: "mean", 2: "sum"}.get(a["reduction"])
        shp, dt = self.meta(n)
        if red is None:
            return NotImplemented
        self._set(n, self.emit1("mse_loss", [self.val(a["self"]), self.val(a["target"])], shp, dt,
                                {"reduction": red}))

    def op_mse_loss_backward_default(self, n, a):
        red = {1: "mean", 2: "sum"}.get(a["reduction"])
        shp, dt = self.meta(n)
        if red is None:
            return NotImplemented
        self._set(n, self.emit1("mse_loss_grad", [self.val(a["grad_output"]), self.val(a["self"]),
                                                  self.val(a["target"])], shp, dt, {"reduction": red}))

    # ---- convolution and pooling ------------------------------------------
    def _conv_attrs(self, a):
        attrs = {"strides": _pair(a["stride"]), "padding": _pair(a["padding"]),
                 "dilation": _pair(a["dilation"])}
        if a["groups"] != 1:
            attrs["groups"] = int(a["groups"])
        return attrs

    def op_convolution_default(self, n, a):
        shp, dt = self.meta(n)
        x = self.val(a["input"])
        if len(self.shape(x)) != 4 or any(a["output_padding"] or [0]):
            return NotImplemented
        w = self.val(a["weight"])
        b = self.val(a["bias"]) if a["bias"] is not None else None
        attrs = self._conv_attrs(a)
        if not a["transposed"]:
            return self._set(n, self.emit1("conv2d", [x, w, b], shp, dt, attrs))
        # conv_transpose2d(x, w) is exactly the input gradient of conv2d(., w)
        y = self.emit1("conv2d_grad_input", [x, w], shp, dt, attrs, hint=n.name + ("_nobias" if b else ""))
        if b is not None:
            rb = self.reshape(b, [shp[1], 1, 1], hint=n.name + "_bias")
            y = self.emit1("add", [y, rb], shp, dt)
        self._set(n, y)

    def op_convolution_backward_default(self, n, a):
        g = self.val(a["grad_output"])
        x = self.val(a["input"])
        w = self.val(a["weight"])
        if len(self.shape(x)) != 4 or any(a["output_padding"] or [0]):
            return NotImplemented
        dt = self.vdtype(g)
        attrs = self._conv_attrs(a)
        mask = list(a["output_mask"])
        res = [None, None, None]
        if mask[0]:
            if a["transposed"]:
                res[0] = self.emit1("conv2d", [g, w], self.shape(x), dt, dict(attrs), hint=n.name + "_dx")
            else:
                res[0] = self.emit1("conv2d_grad_input", [g, w], self.shape(x), dt, dict(attrs),
                                    hint=n.name + "_dx")
        if mask[1]:
            if a["transposed"]:
                res[1] = self.emit1("conv2d_grad_weight", [x, g], self.shape(w), dt, dict(attrs),
                                    hint=n.name + "_dw")
            else:
                res[1] = self.emit1("conv2d_grad_weight", [g, x], self.shape(w), dt, dict(attrs),
                                    hint=n.name + "_dw")
        if mask[2]:
            res[2] = self.emit1("reduce_sum", [g], [self.shape(g)[1]], dt, {"axes": [0, 2, 3]},
                                hint=n.name + "_db")
        self._set(n, res)

    def _pool_attrs(self, a):
        k = _pair(a["kernel_size"])
        return {"kernel": k, "strides": _pair(a["stride"], k), "padding": _pair(a["padding"], [0, 0])}

    def op_max_pool2d_with_indices_default(self, n, a):
        if a["ceil_mode"] or _pair(a["dilation"], [1, 1]) != [1, 1]:
            return NotImplemented
        x = self.val(a["self"])
        outs = self._outs_meta(n)
        yshape = outs[0][0]
        dt = self.vdtype(x)
        y, idx = self.emit("max_pool2d", [x], [(yshape, dt), (yshape, "i64")], self._pool_attrs(a))
        self._set(n, [y, idx])

    def op_max_pool2d_with_indices_backward_default(self, n, a):
        if a["ceil_mode"] or _pair(a["dilation"], [1, 1]) != [1, 1]:
            return NotImplemented
        shp, dt = self.meta(n)
        self._set(n, self.emit1("max_pool2d_grad", [self.val(a["grad_output"]), self.val(a["indices"])],
                                shp, dt, self._pool_attrs(a)))

    def op_avg_pool2d_default(self, n, a):
        if a["ceil_mode"] or a["divisor_override"] is not None:
            return NotImplemented
        shp, dt = self.meta(n)
        attrs = self._pool_attrs(a)
        if a["count_include_pad"]:
            attrs["count_include_pad"] = True
        self._set(n, self.emit1("avg_pool2d", [self.val(a["self"])], shp, dt, attrs))

    def op_avg_pool2d_backward_default(self, n, a):
        if a["ceil_mode"] or a["divisor_override"] is not None:
            return NotImplemented
        shp, dt = self.meta(n)
        attrs = self._pool_attrs(a)
        if a["count_include_pad"]:
            attrs["count_include_pad"] = True
        self._set(n, self.emit1("avg_pool2d_grad", [self.val(a["grad_output"])], shp, dt, attrs))

    def op__adaptive_avg_pool2d_default(self, n, a):
        shp, dt = self.meta(n)
        if list(shp[-2:]) != [1, 1]:
            return NotImplemented
        x = self.val(a["self"])
        r = len(shp)
        self._set(n, self.emit1("reduce_mean", [x], shp, dt, {"axes": [r - 2, r - 1], "keep_dims": True}))

    # ---- fused attention (torch >= 2; untested on torch 1.13) --------------
    def _sdpa(self, n, a, with_dropout_seed=True):
        if a.get("attn_bias") is not None:
            return NotImplemented  # stays opaque, with attention's FLOPs (_attention_flops)
        mask = self._attention_mask(a)
        if mask is NotImplemented:
            return NotImplemented
        q, k, v = (self.val(a[x]) for x in ("query", "key", "value"))
        qs, dt = self.values[q]
        D = qs[-1]
        scale = a.get("scale")
        attrs = {"scale": float(scale) if scale is not None else 1.0 / math.sqrt(D)}
        if a.get("is_causal"):
            attrs["causal"] = True
        p = float(a.get("dropout_p") or 0.0)
        if p:
            self.dropout_stream += 1
            attrs.update({"dropout_p": p, "seed": self.dropout_stream, "offset": 0})
        out_shape = qs[:-1] + [self.shape(v)[-1]]
        o, lse = self.emit("attention", [q, k, v] + ([mask] if mask else []),
                           [(out_shape, dt), (qs[:-1], "f32")], attrs)
        self.sdpa_attrs = getattr(self, "sdpa_attrs", {})
        self.sdpa_attrs[n] = attrs
        outs = self._outs_meta(n)
        self._set(n, [o, lse] + [("sdpa-aux", n.name, i) for i in range(2, len(outs))])

    def op__scaled_dot_product_flash_attention_default(self, n, a):
        return self._sdpa(n, a)

    def op__scaled_dot_product_efficient_attention_default(self, n, a):
        return self._sdpa(n, a)

    def op__scaled_dot_product_flash_attention_for_cpu_default(self, n, a):
        return self._sdpa(n, a)

    def op__scaled_dot_product_flash_attention_for_cpu_backward_default(self, n, a):
        return self._sdpa_bwd(n, a)

    def _attention_mask(self, a):
        """The value of SDPA's ``attn_mask`` (an additive float bias of the
        query's dtype or an i1 keep-mask, broadcasting to [B, H, S, Skv]) for
        ``ckpt.attention``'s optional mask operand; None without one;
        NotImplemented for a mask that needs a gradient (ckpt.attention_grad
        returns none for it), which leaves the op opaque."""
        m = a.get("attn_mask")
        if m is None:
            return None
        if m.meta.get("val") is not None and getattr(m.meta["val"], "requires_grad", False):
            return NotImplemented
        v = self.val(m)
        qdt = self.meta(a["query"])[1]
        if self.vdtype(v) not in ("i1", qdt):
            return NotImplemented
        return v

    def _sdpa_bwd(self, n, a):
        fwd = None
        out_node = a.get("out")
        # torch 2 reads the forward's output through a detach
        while isinstance(out_node, torch.fx.Node) and out_node.op == "call_function" and \
                _opname(out_node.target) in ALIAS_OPS and _opname(out_node.target) != "aten._to_copy.default":
            out_node = out_node.args[0]
        if isinstance(out_node, torch.fx.Node) and out_node.target is operator.getitem:
            fwd = out_node.args[0]
        attrs = dict(getattr(self, "sdpa_attrs", {}).get(fwd, {}))
        if not attrs:
            return NotImplemented
        q, k, v = (self.val(a[x]) for x in ("query", "key", "value"))
        lse = self.val(a["logsumexp"])
        outs = [(self.shape(q), self.vdtype(q)), (self.shape(k), self.vdtype(k)), (self.shape(v), self.vdtype(v))]
        mask = self._attention_mask(a)
        if mask is NotImplemented:
            return NotImplemented
        vs = self.emit("attention_grad", [self.val(a["grad_out"]), q, k, v, self.val(a["out"]), lse] +
                       ([mask] if mask else []), outs, attrs)
        self._set(n, vs)

    def op__scaled_dot_product_flash_attention_backward_default(self, n, a):
        return self._sdpa_bwd(n, a)

    def op__scaled_dot_product_efficient_attention_backward_default(self, n, a):
        return self._sdpa_bwd(n, a)


# aten.{eq,ne,lt,le,gt,ge}.{Scalar,Tensor} -> ckpt.compare with that predicate
for _pred in ("eq", "ne", "lt", "le", "gt", "ge"):
    def _lower_compare(self, n, a, _pred=_pred):
        return self._compare(n, _pred)
    setattr(_Lowering, f"op_{_pred}_Scalar", _lower_compare)
    setattr(_Lowering, f"op_{_pred}_Tensor", _lower_compare)
del _pred


def lower(cap: Capture, name: str = "step", fuse_cross_entropy: bool = True) -> ExportResult:
    """The ckpt graph of a captured step. ``fuse_cross_entropy`` lowers
    ``log_softmax`` + ``nll_loss`` and their backward as one
    ``cross_entropy`` / ``cross_entropy_grad`` (this project's fused kernels);
    False keeps PyTorch's four ops, whose backward holds the log-softmax,
    its gradient and the logits' gradient at once (what ckpt_torch runs)."""
    low = _Lowering(cap, name, fuse_cross_entropy)
    graph = low.run()
    opaque = Counter(nd["attrs"]["name"] for nd in graph["nodes"] if nd["op"] == "opaque")
    for nm, cnt in sorted(opaque.items()):
        warnings.warn(f"ckpt_export: {cnt} x {nm} has no ckpt equivalent; exported as an opaque op",
                      stacklevel=3)
    return ExportResult(graph, opaque, low.opaque_impls, cap, low.fx_values)


def export(model: torch.nn.Module, example_inputs: Sequence[torch.Tensor], path: Optional[str] = None,
           loss_fn: Optional[Callable] = None, targets: Sequence[torch.Tensor] = (), name: Optional[str] = None,
           fake: bool = True, input_names: Optional[List[str]] = None) -> ExportResult:
    """Export one training step of ``model`` as graph format v1.

    Without ``loss_fn``, ``model(*example_inputs)`` must return the scalar
    loss. With it, the loss is ``loss_fn(model(*example_inputs), *targets)``
    and ``targets`` become graph inputs as well. ``fake=True`` traces with
    fake tensors (nothing is computed); set it to False to trace on the real
    tensors. Writes JSON to ``path`` when given; returns the
    :class:`ExportResult`.
    """
    inputs = tuple(example_inputs)
    if loss_fn is not None:
        mod = LossModule(model, loss_fn, len(inputs))
        inputs = inputs + tuple(targets)
        prefix = "model."
    else:
        mod = model
        # a loss wrapper around a library model (library_models.HFLoss, ...)
        # names parameters and scopes as the wrapped model does
        prefix = getattr(model, "export_prefix", "")
    if input_names is None:
        import inspect
        try:
            params = [p for p in inspect.signature(model.forward).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            input_names = [p.name for p in params][: len(example_inputs)]
            input_names += [f"target{i}" for i in range(len(inputs) - len(input_names))]
        except (TypeError, ValueError):
            input_names = None
        if input_names is not None and len(input_names) != len(inputs):
            input_names = None
    try:
        cap = capture(mod, inputs, fake=fake, input_names=input_names)
    except Exception as e:
        if not fake or torch_version() >= (2, 1):
            raise ExportError(str(e)) from e
        warnings.warn(f"ckpt_export: fake-tensor capture failed ({type(e).__name__}: {e}); "
                      "retrying on real tensors")
        cap = capture(mod, inputs, fake=False, input_names=input_names)
    if prefix:
        cap.strip_prefix(prefix)
    res = lower(cap, name or type(model).__name__)
    if path:
        res.dump(path)
    return res
