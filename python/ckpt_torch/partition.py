"""Partition AOTAutograd's joint graph by a ckpt-opt plan.

The plan (``ckpt-opt --ckpt-place-checkpoints=... decisions=FILE``, format
``ckpt-plan-decisions``) says, for each value of the exported step, whether
its forward computation is kept for the backward pass. The exporter records
which ckpt values hold each fx node's result (``ExportResult.fx_values``), so
every forward fx node that the backward reads is either

* **saved**: a primal (parameters and inputs are in memory anyway), a value
  whose storage the plan keeps, or a random op that cannot be replayed; or
* **recomputed**: the backward graph computes it again from saved values,
  following its inputs until it reaches saved ones; so is a value the plan
  has no buffer for (an op the exporter fused into another, as
  ``_log_softmax`` into cross-entropy), which the plan's kept inputs give.

The saved nodes become the forward graph's extra outputs, exactly as in
PyTorch's own partitioners (``_extract_fwd_bwd_modules``), and the backward
graph is reordered so that each recomputation runs just before its first use
(``reordering_to_mimic_autograd_engine``), as the plan's recompute segments do.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set

import torch
import torch.fx

from .random_ops import is_random

# Ops that only rename or alias their input: never worth listing as recomputed.
_ALIASES = {"view", "_unsafe_view", "reshape", "t", "transpose", "permute", "expand", "alias",
            "detach", "squeeze", "unsqueeze", "as_strided", "slice", "select", "getitem",
            "split", "split_with_sizes", "unbind", "clone"}


def op_short_name(node: torch.fx.Node) -> str:
    """``aten.native_dropout.default`` -> ``native_dropout``; getitem -> ``getitem``."""
    t = node.target
    if t is torch.ops.ckpt_torch.seeded_dropout.default:
        return "dropout"
    name = getattr(t, "__name__", str(t))
    if hasattr(t, "_opname"):
        name = t._opname
    return name.split(".")[0]


def is_alias(node: torch.fx.Node) -> bool:
    return op_short_name(node) in _ALIASES


@dataclass
class Partition:
    """What the partition decided, in fx terms."""

    saved: List[torch.fx.Node] = field(default_factory=list)
    recomputed: List[torch.fx.Node] = field(default_factory=list)
    # Saved although the plan recomputes them: random ops without replay.
    forced: List[torch.fx.Node] = field(default_factory=list)


def forward_nodes(joint: torch.fx.GraphModule, num_fwd_outputs: int) -> Set[torch.fx.Node]:
    """The nodes the forward outputs depend on (primals included)."""
    out = next(n for n in joint.graph.nodes if n.op == "output")
    results = list(out.args[0])[:num_fwd_outputs]
    fwd: Set[torch.fx.Node] = set()
    todo = [r for r in results if isinstance(r, torch.fx.Node)]
    while todo:
        n = todo.pop()
        if n not in fwd:
            fwd.add(n)
            todo.extend(n.all_input_nodes)
    # Every element of a forward op's tuple is forward (layer norm's
    # statistics, attention's logsumexp), whether or not the loss reads it.
    for n in joint.graph.nodes:
        if n.target is operator.getitem and n.args[0] in fwd:
            fwd.add(n)
    return fwd


def _plan_index(export, decisions):
    """(ckpt value id -> (node index, output index) in the exported graph,
    (node index, output index) -> the plan's node holding its storage)."""
    where = {o["id"]: (i, j) for i, nd in enumerate(export.graph["nodes"]) for j, o in enumerate(nd["outputs"])}
    storage = {(v["op"], v["result"]): v["node"] for v in decisions["values"]}
    return where, storage


def kept_by_plan(export, decisions) -> Dict[str, Optional[bool]]:
    """fx node name -> whether the plan keeps its storage for the backward
    (True), recomputes or frees it (False); absent when the node has no ckpt
    value of its own. A view of an argument counts as kept."""
    where, storage = _plan_index(export, decisions)
    nodes = decisions["nodes"]
    arguments = {d["id"] for d in export.graph["inputs"]}
    kept: Dict[str, Optional[bool]] = {}
    for name, ids in export.fx_values.items():
        verdicts = []
        for vid in ids:
            if vid is None:
                continue
            if vid in arguments:
                verdicts.append(True)
                continue
            pos = where.get(vid)
            if pos is None or pos not in storage:
                continue  # removed as dead code
            k = storage[pos]
            verdicts.append(True if k < 0 else bool(nodes[k]["saved"]))
        if verdicts:
            kept[name] = all(verdicts)
    return kept


def copies_of_their_input(joint: torch.fx.GraphModule, export) -> Set[str]:
    """fx nodes that copy their input in PyTorch (``clone``) but are the
    same buffer as it in the plan (the exporter lowers them as aliases):
    saving both would hold two buffers for one of the plan's, so the
    partition recomputes the copy from its input."""
    out = set()
    for n in joint.graph.nodes:
        if n.op == "call_function" and n.target is torch.ops.aten.clone.default and n.args \
                and isinstance(n.args[0], torch.fx.Node):
            mine = export.fx_values.get(n.name)
            if mine and mine == export.fx_values.get(n.args[0].name):
                out.add(n.name)
    return out


def _fake_storage(n: torch.fx.Node):
    """The storage of ``n``'s fake tensor (views share their base's), or None
    for a node without one."""
    from torch.multiprocessing.reductions import StorageWeakRef
    v = n.meta.get("val")
    return StorageWeakRef(v.untyped_storage()) if isinstance(v, torch.Tensor) else None


def views_of_copies(joint: torch.fx.GraphModule, copies: Set[str]) -> Dict[str, torch.fx.Node]:
    """The views of the copies named in ``copies`` (nodes whose tensors share
    a copy's storage, as ``matmul`` reads its operand through ``expand`` and
    ``view``): view name -> the copy."""
    by_storage = {_fake_storage(n): n for n in joint.graph.nodes if n.name in copies}
    by_storage.pop(None, None)
    return {n.name: by_storage[_fake_storage(n)] for n in joint.graph.nodes
            if n.op == "call_function" and n.name not in copies and _fake_storage(n) in by_storage}


def choose_saved(joint: torch.fx.GraphModule, num_fwd_outputs: int,
                 kept: Dict[str, Optional[bool]], recompute_copies: Set[str] = frozenset(),
                 save_random: bool = True) -> Partition:
    """Which forward nodes to save (see the module doc); the nodes named in
    ``recompute_copies`` (:func:`copies_of_their_input`) are recomputed from
    their input. ``save_random=False`` (tests only) lets the plan recompute
    random ops, with fresh random numbers."""
    fwd = forward_nodes(joint, num_fwd_outputs)
    part = Partition()
    decided: Dict[torch.fx.Node, bool] = {}  # node -> saved?

    def need(n: torch.fx.Node):
        stack = [n]
        while stack:
            x = stack.pop()
            if x in decided:
                continue
            if x.op == "placeholder" or x.op == "get_attr":
                decided[x] = True
                continue
            verdict = kept.get(x.name)
            parent = x.args[0] if x.target is operator.getitem else None
            if save_random and (is_random(x) or (isinstance(parent, torch.fx.Node) and is_random(parent))):
                # Saved (a tuple's elements, not the tuple).
                decided[x] = True
                if verdict is False:
                    part.forced.append(x)
                continue
            if verdict is True and x.name in recompute_copies:
                decided[x] = False
                stack.extend(x.all_input_nodes)
                continue
            if verdict is True and isinstance(x.meta.get("val"), torch.Tensor):
                decided[x] = True
                continue
            decided[x] = False
            stack.extend(x.all_input_nodes)

    for n in joint.graph.nodes:
        if n in fwd or n.op in ("placeholder", "output"):
            continue
        for a in n.all_input_nodes:
            if a in fwd:
                need(a)
    # A saved view of a copy holds the copy's buffer: where the copy's input
    # is saved too, that is a second buffer for the plan's one, so the view
    # (and the copy under it) is recomputed from the input.
    copy_views = views_of_copies(joint, set(recompute_copies)) if recompute_copies else {}
    if copy_views:
        held = {_fake_storage(n) for n, s in decided.items() if s} - {None}
        for x in [x for x, s in decided.items() if s and x.name in copy_views]:
            copy = copy_views[x.name]
            if _fake_storage(copy.args[0]) not in held:
                continue
            chain = [x]
            while chain:
                y = chain.pop()
                decided[y] = False
                chain.extend(a for a in y.all_input_nodes
                             if (a is copy or a.name in copy_views) and decided.get(a) is not False)
            need(copy.args[0])
    order = {n: i for i, n in enumerate(joint.graph.nodes)}
    part.saved = sorted((n for n, s in decided.items() if s), key=order.__getitem__)
    part.recomputed = sorted((n for n, s in decided.items() if not s), key=order.__getitem__)
    return part


def split(joint: torch.fx.GraphModule, num_fwd_outputs: int, part: Partition):
    """The forward and backward graph modules of the partition."""
    from torch._functorch.partitioners import (_extract_fwd_bwd_modules,
                                               reordering_to_mimic_autograd_engine)
    fw, bw = _extract_fwd_bwd_modules(joint, list(part.saved), saved_sym_nodes=[],
                                      num_fwd_outputs=num_fwd_outputs)
    bw = reordering_to_mimic_autograd_engine(bw)
    return fw, bw


def materialize_recomputation(joint: torch.fx.GraphModule, part: Partition, fwd: Set[torch.fx.Node]):
    """Makes the recomputation explicit: every recomputed forward node gets a
    copy that reads saved values (or other copies), inserted before its first
    reader, and the backward reads the copies. The forward keeps its
    own nodes, so the two graphs never share a recomputed node, and a copy
    may differ from its original where the backward needs it to: a
    training-mode batch norm is recomputed as its twin without running
    statistics (:mod:`ckpt_torch.batchnorm`). Returns the copies."""
    from .batchnorm import NO_STATS, is_training_batch_norm, twin_args
    g = joint.graph
    recomputed = set(part.recomputed)
    order = {n: i for i, n in enumerate(g.nodes)}
    readers = {n: [u for u in n.users if u not in fwd and u.op != "output"] for n in part.recomputed}
    # Each copy goes right before the earliest node that reads it (a backward
    # reader of its original, or the copy of a recomputed user); its other
    # inputs come before its original, hence before that node.
    anchor: Dict[torch.fx.Node, torch.fx.Node] = {}
    for n in reversed(part.recomputed):
        cands = list(readers[n]) + [anchor[m] for m in n.users if m in recomputed and m in anchor]
        if cands:
            anchor[n] = min(cands, key=order.__getitem__)
    copies: Dict[torch.fx.Node, torch.fx.Node] = {}
    for n in part.recomputed:  # graph order: inputs first
        if n not in anchor:
            continue

        def sub(a):
            return copies.get(a, a)
        with g.inserting_before(anchor[n]):
            if is_training_batch_norm(n):
                c = g.call_function(NO_STATS, tuple(torch.fx.node.map_arg(twin_args(n), sub)))
            else:
                c = g.node_copy(n, sub)
        c.meta = dict(n.meta)
        if is_training_batch_norm(n) and isinstance(n.meta.get("val"), (tuple, list)):
            c.meta["val"] = tuple(n.meta["val"][:3])
        c.meta["ckpt_recompute_of"] = n
        copies[n] = c
    for n, users in readers.items():
        for u in users:
            u.replace_input_with(n, copies[n])
    if copies:
        g.lint()
        joint.recompile()
    return list(copies.values())


def compact_partial_views(joint: torch.fx.GraphModule, part: Partition, fwd: Set[torch.fx.Node],
                          recompute_copies: Sequence[torch.fx.Node] = ()) -> List[str]:
    """Saves a contiguous copy instead of a view that keeps a larger buffer
    alive. PyTorch's view of a slice (the query of a fused QKV projection)
    pins the whole buffer; the plan, whose slices and transposes are buffers
    of their own, kept only the part. When no saved value covers the buffer
    and no recomputation reads the view, the forward saves
    ``clone(view)`` (the backward reads the copy), so that what PyTorch holds
    is what the plan counted. Returns the names of the views copied."""
    from torch._guards import detect_fake_mode
    from torch.multiprocessing.reductions import StorageWeakRef
    recomputed = set(part.recomputed) | set(recompute_copies)
    groups: Dict[object, List[torch.fx.Node]] = {}
    for n in part.saved:
        v = n.meta.get("val")
        if n.op == "placeholder" or not isinstance(v, torch.Tensor):
            continue
        groups.setdefault(StorageWeakRef(v.untyped_storage()), []).append(n)
    copied = []
    g = joint.graph
    for nodes in groups.values():
        whole = nodes[0].meta["val"].untyped_storage().nbytes()
        own = [n.meta["val"].numel() * n.meta["val"].element_size() for n in nodes]
        if any(b >= whole for b in own):
            continue
        for n, b in zip(nodes, own):
            if any(u in recomputed for u in n.users):
                continue
            readers = [u for u in n.users if u not in fwd]
            with g.inserting_after(n):
                c = g.call_function(torch.ops.aten.clone.default, (n,),
                                    {"memory_format": torch.contiguous_format})
            mode = detect_fake_mode([n.meta["val"]])
            if mode is not None:
                with mode:
                    c.meta["val"] = n.meta["val"].clone(memory_format=torch.contiguous_format)
            c.meta["nn_module_stack"] = n.meta.get("nn_module_stack")
            c.meta["ckpt_copy_of"] = n
            for u in readers:
                u.replace_input_with(n, c)
            part.saved[part.saved.index(n)] = c
            copied.append(n.name)
    if copied:
        g.lint()
        joint.recompile()
    return copied


@dataclass
class SavedComparison:
    """The plan's saved bytes (ckpt's memory model) against what PyTorch
    holds for the same decisions, item by item (see :func:`compare_saved`)."""

    plan_bytes: int = 0
    # (PyTorch nodes, plan bytes, PyTorch bytes): one PyTorch buffer holds
    # several buffers of the plan (a copy in ckpt is a view in PyTorch).
    shared: List[tuple] = field(default_factory=list)
    # (ckpt values, bytes): kept by the plan, not needed by PyTorch's backward.
    plan_only: List[tuple] = field(default_factory=list)
    # (PyTorch nodes, bytes): saved by PyTorch with no plan buffer behind them.
    torch_only: List[tuple] = field(default_factory=list)
    # (PyTorch nodes, plan bytes, PyTorch bytes): a saved view that keeps a
    # larger buffer alive than the plan counted.
    pinned: List[tuple] = field(default_factory=list)
    # (PyTorch nodes, bytes): a second PyTorch buffer for one plan buffer.
    duplicated: List[tuple] = field(default_factory=list)

    @property
    def explained(self) -> int:
        """Bytes of the plan that PyTorch does not hold, for known reasons."""
        return sum(p - t for _, p, t in self.shared) + sum(b for _, b in self.plan_only)

    @property
    def predicted_torch_bytes(self) -> int:
        """The plan's bytes less the explained items: what PyTorch should
        hold. ``torch_only`` is not added: it is what a measurement above
        this prediction would show."""
        return self.plan_bytes - self.explained


def compare_saved(joint: torch.fx.GraphModule, export, decisions, part: Partition) -> SavedComparison:
    """Matches the saved fx nodes (storages of their fake tensors) with the
    plan's saved nodes through the exporter's value map."""
    from torch.multiprocessing.reductions import StorageWeakRef
    where, storage = _plan_index(export, decisions)
    nodes = decisions["nodes"]
    cmp = SavedComparison(plan_bytes=int(decisions["saved_bytes"]))
    names_of: Dict[int, List[str]] = {}
    for vid, pos in where.items():
        k = storage.get(pos, -1)
        if k >= 0:
            names_of.setdefault(k, []).append(vid)

    def plan_nodes(n: torch.fx.Node) -> Set[int]:
        src = n.meta.get("ckpt_copy_of", n)
        out = set()
        for vid in export.fx_values.get(src.name, []) or []:
            k = storage.get(where.get(vid, (-1, -1)), -1)
            if k >= 0 and nodes[k]["saved"]:
                out.add(k)
        return out

    inputs = {StorageWeakRef(n.meta["val"].untyped_storage()) for n in part.saved
              if n.op == "placeholder" and isinstance(n.meta.get("val"), torch.Tensor)}
    for n in joint.graph.nodes:
        if n.op == "placeholder" and isinstance(n.meta.get("val"), torch.Tensor):
            inputs.add(StorageWeakRef(n.meta["val"].untyped_storage()))
    by_storage: Dict[object, List[torch.fx.Node]] = {}
    for n in part.saved:
        v = n.meta.get("val")
        if n.op in ("placeholder", "get_attr") or not isinstance(v, torch.Tensor):
            continue
        if StorageWeakRef(v.untyped_storage()) in inputs:
            continue  # a view of a parameter or input: in memory anyway
        by_storage.setdefault(StorageWeakRef(v.untyped_storage()), []).append(n)
    covered: Set[int] = set()
    for ns in by_storage.values():
        ks = set().union(*(plan_nodes(n) for n in ns))
        v0 = ns[0].meta["val"]
        held = v0.untyped_storage().nbytes()
        if ks and ks <= covered:
            # the plan's buffer is already held by another PyTorch buffer
            cmp.duplicated.append(([n.name for n in ns], held))
            continue
        ks -= covered
        covered |= ks
        plan_b = sum(nodes[k]["bytes"] for k in ks)
        if not ks:
            cmp.torch_only.append(([n.name for n in ns], held))
        elif plan_b > held:
            cmp.shared.append(([n.name for n in ns], plan_b, held))
        elif plan_b < held:
            cmp.pinned.append(([n.name for n in ns], plan_b, held))
    for k, nd in enumerate(nodes):
        if nd["saved"] and k not in covered:
            cmp.plan_only.append((sorted(names_of.get(k, [f"node{k}"]))[:3], int(nd["bytes"])))
    return cmp
