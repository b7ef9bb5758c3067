"""The backend's report: what was decided, predicted and measured, per graph."""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import torch
import torch.fx

from .partition import is_alias, op_short_name

# Ops that make constants: recomputing them is not worth a line.
_CONSTANTS = {"lift_fresh_copy", "lift_fresh", "scalar_tensor", "full", "zeros", "ones", "empty", "arange",
              "full_like", "zeros_like", "ones_like", "empty_like"}

_DYNAMO_ROOT = re.compile(r"^L\[['\"](?:self|fn|mod|model)['\"]\]\.?")


def module_path(raw: str) -> str:
    """Dynamo's module path (``L['self'].transformer.h[0]._modules['attn']``)
    as a user writes it (``transformer.h.0.attn``)."""
    s = _DYNAMO_ROOT.sub("", raw)
    s = re.sub(r"\._modules\[['\"]([^'\"]+)['\"]\]", r".\1", s)
    s = re.sub(r"\[['\"]([^'\"]+)['\"]\]", r".\1", s)
    s = re.sub(r"\[(\d+)\]", r".\1", s)
    return s.strip(".")


def node_scope(node: torch.fx.Node) -> str:
    stack = node.meta.get("nn_module_stack") or node.meta.get("fwd_nn_module_stack")
    if not stack:
        return ""
    raw = list(stack.values())[-1]
    return module_path(raw[0] if isinstance(raw, tuple) else str(raw))


def tensor_bytes(node: torch.fx.Node) -> int:
    v = node.meta.get("val")
    if isinstance(v, torch.Tensor):
        return v.numel() * v.element_size()
    if isinstance(v, (list, tuple)):
        return sum(t.numel() * t.element_size() for t in v if isinstance(t, torch.Tensor))
    return 0


def format_bytes(n: Optional[float]) -> str:
    if n is None:
        return "-"
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return f"{n:.2f} TiB"


def _ranges(nums: List[int]) -> str:
    nums = sorted(set(nums))
    parts, start, prev = [], nums[0], nums[0]
    for x in nums[1:] + [None]:
        if x is not None and x == prev + 1:
            prev = x
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if x is not None:
            start = prev = x
    return ",".join(parts)


def group_by_scope(nodes: List[torch.fx.Node]) -> List[Tuple[str, List[str], int]]:
    """Recomputed ops grouped by module scope, repeated blocks folded:
    ``[("transformer.h.0-11.attn", ["softmax", "dropout"], bytes), ...]``
    sorted by bytes (largest first). Aliases (views, getitem) are left out."""
    per_scope: "OrderedDict[str, Dict[str, object]]" = OrderedDict()
    for n in nodes:
        if n.op != "call_function" or is_alias(n) or op_short_name(n) in _CONSTANTS:
            continue
        sc = node_scope(n) or "(top level)"
        e = per_scope.setdefault(sc, {"ops": [], "bytes": 0})
        op = op_short_name(n).lstrip("_")
        if op not in e["ops"]:
            e["ops"].append(op)
        e["bytes"] += tensor_bytes(n)
    # fold "a.0.b", "a.1.b", ... with the same ops into "a.0-1.b"
    folded: "OrderedDict[Tuple[str, Tuple[str, ...]], Dict[str, object]]" = OrderedDict()
    for sc, e in per_scope.items():
        parts = sc.split(".")
        idx = next((i for i, p in enumerate(parts) if p.isdigit()), None)
        if idx is None:
            key, num = (sc, tuple(e["ops"])), None
        else:
            key, num = (".".join(parts[:idx] + ["{}"] + parts[idx + 1:]), tuple(e["ops"])), int(parts[idx])
        f = folded.setdefault(key, {"nums": [], "bytes": 0})
        if num is not None:
            f["nums"].append(num)
        f["bytes"] += e["bytes"]
    rows = []
    for (pattern, ops), f in folded.items():
        scope = pattern.replace("{}", _ranges(f["nums"])) if f["nums"] else pattern
        rows.append((scope, list(ops), int(f["bytes"])))
    rows.sort(key=lambda r: (-r[2], r[0]))
    return rows


@dataclass
class GraphPlan:
    """One compiled graph: the plan that partitioned it, or why none did."""

    index: int
    ops: int = 0
    planned: bool = False
    reason: str = ""                    # why PyTorch's default partition was used instead
    budget: str = ""
    budget_bytes: Optional[int] = None
    scope: str = ""
    strategy: str = ""
    engine: str = ""
    no_recompute_peak: Optional[int] = None
    predicted_peak: Optional[int] = None
    plan_saved: Optional[int] = None        # the plan's saved bytes, in ckpt's memory model
    predicted_saved: Optional[int] = None   # the same less the explained items: what PyTorch should hold
    comparison: Optional[object] = None     # partition.SavedComparison
    overhead: Optional[float] = None
    objective: str = ""
    recomputed: List[Tuple[str, List[str], int]] = field(default_factory=list)
    forced: List[str] = field(default_factory=list)
    saved_values: int = 0
    measured_saved: Optional[int] = None
    steps: int = 0

    def lines(self) -> List[str]:
        head = f"graph {self.index} ({self.ops} ops)"
        if not self.planned:
            return [f"{head}: not planned, PyTorch's default partition (no recomputation): {self.reason}"]
        budget = f"{self.budget} = {format_bytes(self.budget_bytes)}" if self.budget_bytes not in (None, -1) \
            else "none"
        out = [f"{head}: budget {budget} (scope {self.scope}), strategy {self.strategy}"
               + (f", {self.engine}" if self.engine else ""),
               f"  predicted peak {format_bytes(self.predicted_peak)} "
               f"(no recomputation: {format_bytes(self.no_recompute_peak)}), "
               f"overhead +{100 * (self.overhead or 0):.1f}% ({self.objective})",
               f"  saved for backward: plan {format_bytes(self.plan_saved)}{self._explained()}, "
               f"predicted for PyTorch {format_bytes(self.predicted_saved)}, measured "
               + (f"{format_bytes(self.measured_saved)} ({self._agreement()})" if self.measured_saved is not None
                  else "- (no training step run yet)")
               + f"; {self.saved_values} tensors"]
        if not self.recomputed:
            out.append("  recomputes nothing")
        else:
            out.append("  recomputed in the backward pass (by module, largest first):")
            for scope, ops, nbytes in self.recomputed:
                out.append(f"    {scope}: {', '.join(ops)} ({format_bytes(nbytes)})")
        if self.forced:
            out.append(f"  saved although the plan recomputes them (random ops without replay): "
                       f"{', '.join(self.forced)}")
        return out

    def _explained(self) -> str:
        c = self.comparison
        if c is None:
            return ""
        parts = []
        if c.shared:
            parts.append(f"{format_bytes(sum(p - t for _, p, t in c.shared))} are copies in the plan and views in "
                         f"PyTorch ({', '.join(ns[0] for ns, _, _ in c.shared[:4])}"
                         f"{', ...' if len(c.shared) > 4 else ''})")
        if c.plan_only:
            parts.append(f"{format_bytes(sum(b for _, b in c.plan_only))} PyTorch's backward does not read "
                         f"({', '.join(ns[0] for ns, _ in c.plan_only[:4])}{', ...' if len(c.plan_only) > 4 else ''})")
        if c.torch_only:
            parts.append(f"PyTorch also saves {format_bytes(sum(b for _, b in c.torch_only))} the plan has no "
                         f"buffer for ({', '.join(ns[0] for ns, _ in c.torch_only[:4])})")
        if c.pinned:
            parts.append(f"views pin {format_bytes(sum(t - p for _, p, t in c.pinned))} more than the plan counts "
                         f"({', '.join(ns[0] for ns, _, _ in c.pinned[:4])})")
        return f" ({'; '.join(parts)})" if parts else ""

    def _agreement(self) -> str:
        if not self.predicted_saved:
            return "no prediction"
        d = (self.measured_saved - self.predicted_saved) / self.predicted_saved
        return f"{100 * d:+.2f}% vs predicted"


@dataclass
class Report:
    """``backend.report``: one entry per graph the backend compiled."""

    graphs: List[GraphPlan] = field(default_factory=list)

    def __str__(self) -> str:
        if not self.graphs:
            return "ckpt_torch: nothing compiled yet (call the compiled model once)"
        lines = ["ckpt_torch plan report"]
        for g in self.graphs:
            lines.extend(g.lines())
        return "\n".join(lines)

    __repr__ = __str__
