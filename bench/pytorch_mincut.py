"""Compares PyTorch's min-cut rematerialization partitioner with ckpt-opt.

For each model (from python/ckpt_export/models.py, at a reduced size) this
benchmark captures one training step with `functorch.compile.aot_module`
(PyTorch 1.13, fake tensors: nothing is computed), partitioned once by
`default_partition` and once by `min_cut_rematerialization_partition` per
value of its `compiler` argument (`nvfuser`, its default, lets it recompute
pointwise ops and reductions only; `inductor` also views), and measures on the
resulting forward/backward FX graphs what each partition saves for the
backward pass and what the backward pass recomputes. It then exports the same
model with the project's exporter (`ckpt_export`), runs
`ckpt-opt --ckpt-place-checkpoints` at budgets found by bisection, and shows
the cheapest ckpt-opt plan that saves no more than min-cut does.

What is counted
---------------

* **Saved, FX side**: the values the partitioned forward graph returns for the
  backward graph (its outputs after the user outputs, i.e. after the loss), in
  bytes of their storage: a view (`view`, `t`, `transpose`, `slice`, a
  `getitem` of `split`, `detach`, ...) is followed to the tensor it aliases,
  each storage counts once, and storages that are graph inputs (parameters,
  buffers, data) count zero: they are in memory anyway. All partitions start
  from the same joint graph (dead code removed, `fx_graph_cse` applied, as the
  min-cut partitioner does itself).
* **Recomputed, FX side**: `call_function` nodes of the backward graph that are
  forward nodes of the joint graph (ancestors of the loss: functorch's own
  classification), `getitem` excluded, with their FLOPs by :func:`node_flops`
  (matmuls and convolutions 2MNK-style, views and data movement 0, any other
  op the largest element count it reads or writes). "% of step": of the FLOPs
  of the default partition's forward plus backward graph.
* **Saved, ckpt-opt side**: `saved_activation_bytes` of `--ckpt-report=json`
  on the rewritten step: forward-op buffers (views are not buffers) defined
  before the first backward op and still read at or after it; arguments
  (parameters, buffers, data) are not counted; recomputed values are defined
  in the backward part, so they are not saved either. Without recomputation
  this is the FX default partition's figure plus 4 bytes per token/row: the
  exported `cross_entropy` keeps its f32 log-sum-exp next to the logits where
  the FX graph keeps the `log_softmax` output alone.
* **Recompute FLOPs, ckpt-opt side**: the rewritten step's FLOPs minus the
  no-recompute step's (both from the report, ckpt-opt's per-op conventions,
  docs/dialect.md; equal up to rounding to `overhead` x base FLOPs of the
  `--explain` remark, `objective=flops`), as % of the latter; then the "FX
  count": the ops the rewritten IR marks `ckpt.recompute`, counted by
  :func:`ckpt_op_fx_flops` with the FX side's conventions, as % of the FX
  step: this is the figure to compare with min-cut's column (the two FLOP
  conventions agree on matmuls and convolutions only).
* **Budget search**: `budget=Fx budget-scope=activations objective=flops`; F is
  a fraction of the no-recompute peak less the arguments. F goes down a 0.1
  grid until a plan saves at most min-cut's bytes, then bisects between that
  point and the grid point above it. Of every plan tried, the one with the
  fewest recompute FLOPs (ckpt-opt's count) among those saving at most
  min-cut's bytes is shown; "no plan" when none does. The strategy is
  `--strategy` (default `optimal`); when the binary does not know it, `greedy`
  is used and a note is printed.

Dropout is disabled in the transformers: on the CPU PyTorch's dropout mask is
an fp32 tensor in the FX graph while the exporter emits a 1-byte mask, which
would skew the saved bytes. All tensors are f32. The min-cut partitioner needs
`networkx` (Debian: python3-networkx). The whole run takes about 40 s on two
cores.

Usage (from the repository root, Debian's interpreter with torch 1.13):
  /usr/bin/python3 bench/pytorch_mincut.py [--ckpt-opt build/bin/ckpt-opt]
      [--strategy optimal] [--models mlp,gpt2,bert,llama,resnet50]
      [--mincut-compiler nvfuser,inductor] [--iterations 6] [--json out.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import operator
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402
import torch.fx  # noqa: E402

# label -> (corpus model, "full" architecture with these overrides); sized so
# that the whole run takes well under a minute on two cores. Dropout is off
# (see the module docstring).
MODELS: Dict[str, Tuple[str, Dict[str, object]]] = {
    "mlp": ("mlp32", dict(layers=32, hidden=256, batch=512, classes=100)),
    "gpt2": ("gpt2", dict(layers=6, hidden=384, heads=6, seq=256, batch=4, vocab=2000, dropout=0.0)),
    "bert": ("bert", dict(layers=6, hidden=384, heads=6, inter=1536, seq=256, batch=4, vocab=2000,
                          dropout=0.0)),
    "llama": ("llama", dict(layers=6, hidden=384, heads=6, inter=1024, seq=256, batch=4, vocab=2000)),
    "resnet50": ("resnet50", dict(batch=8, res=96, classes=100)),
}

GRID = (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1)

# --------------------------------------------------------------------------
# FX side: FLOPs and bytes of nodes
# --------------------------------------------------------------------------

# Ops whose result aliases their first operand (no new storage, no FLOPs).
VIEW_OPS = {
    "view", "_unsafe_view", "_reshape_alias", "reshape", "t", "transpose", "permute", "expand",
    "slice", "select", "unsqueeze", "squeeze", "alias", "detach", "as_strided", "split",
    "split_with_sizes", "unbind", "chunk", "view_as", "expand_as", "unfold", "diagonal",
}
# Ops that create or move data without arithmetic (0 FLOPs).
ZERO_FLOP_OPS = VIEW_OPS | {
    "clone", "copy", "_to_copy", "contiguous", "lift_fresh_copy", "cat", "stack", "full", "zeros",
    "ones", "empty", "arange", "scalar_tensor", "full_like", "zeros_like", "ones_like", "empty_like",
    "new_zeros", "new_ones", "new_full", "new_empty", "new_empty_strided", "empty_strided", "fill",
    "slice_backward", "select_backward", "index", "index_select", "gather", "embedding",
    "constant_pad_nd", "repeat", "roll", "flip", "slice_scatter", "select_scatter",
}


def op_name(node: torch.fx.Node) -> str:
    """The aten overload packet name of a call (`aten.mm.default` -> `mm`),
    `getitem` for tuple projections, "" for anything else."""
    if node.op != "call_function":
        return ""
    if node.target is operator.getitem:
        return "getitem"
    packet = getattr(node.target, "_overloadpacket", None)
    if packet is not None:
        return packet.__name__
    return getattr(node.target, "__name__", str(node.target))


def _tensors(value) -> List[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


def shapes_of(node) -> List[Tuple[Tuple[int, ...], torch.dtype]]:
    """(shape, dtype) of every tensor a node produces, from `tensor_meta` or
    the fake tensor in `val` (multi-output ops have no `tensor_meta`)."""
    if not isinstance(node, torch.fx.Node):
        return []
    tm = node.meta.get("tensor_meta")
    if tm is not None and hasattr(tm, "shape"):
        return [(tuple(int(d) for d in tm.shape), tm.dtype)]
    return [(tuple(int(d) for d in t.shape), t.dtype) for t in _tensors(node.meta.get("val"))]


def numel(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def nbytes(node) -> int:
    """Bytes of the tensor(s) a node produces."""
    return sum(numel(s) * torch.empty((), dtype=dt).element_size() for s, dt in shapes_of(node))


def _shape(arg) -> Tuple[int, ...]:
    shapes = shapes_of(arg)
    return shapes[0][0] if shapes else ()


def _conv_flops(out_shape, weight_shape, transposed, in_shape) -> int:
    """2 x multiply-adds of a convolution: each output element of a direct
    convolution accumulates weight[0].numel() products; a transposed one
    scatters each input element over weight[0].numel() outputs."""
    per = numel(weight_shape[1:])
    return 2 * per * (numel(in_shape) if transposed else numel(out_shape))


def node_flops(node: torch.fx.Node) -> int:
    """FLOPs of one FX node, by a simple documented convention:

    * `mm` [M,K]x[K,N]: 2MNK; `addmm`: 2MNK + MN (bias); `bmm`: 2BMNK;
    * `convolution`: 2 x output elements x (C_in/groups x kernel size), + one
      per output element with a bias; `convolution_backward`: the same count
      for each of grad_input and grad_weight requested, + the grad_output
      elements for grad_bias;
    * views, `getitem`, tensor creation and pure data movement: 0;
    * any other op: the largest element count among its tensor inputs and
      outputs (elementwise ops: numel of the result; reductions: of the input).
    """
    name = op_name(node)
    if not name or name == "getitem" or name in ZERO_FLOP_OPS:
        return 0
    args = node.args
    if name == "mm":
        (m, k), (_, n) = _shape(args[0]), _shape(args[1])
        return 2 * m * n * k
    if name == "addmm":
        (m, k), (_, n) = _shape(args[1]), _shape(args[2])
        return 2 * m * n * k + m * n
    if name == "bmm":
        (b, m, k), (_, _, n) = _shape(args[0]), _shape(args[1])
        return 2 * b * m * n * k
    if name == "convolution":
        x, w, bias, transposed = args[0], args[1], args[2], args[6]
        out = _shape(node)
        return _conv_flops(out, _shape(w), transposed, _shape(x)) + (numel(out) if bias is not None else 0)
    if name == "convolution_backward":
        grad_out, x, w, transposed, mask = args[0], args[1], args[2], args[7], args[10]
        # grad_out has the forward output's shape
        one = _conv_flops(_shape(grad_out), _shape(w), transposed, _shape(x))
        return one * (int(bool(mask[0])) + int(bool(mask[1]))) + (numel(_shape(grad_out)) if mask[2] else 0)
    sizes = [numel(s) for s, _ in shapes_of(node)]
    sizes += [numel(s) for a in node.all_input_nodes for s, _ in shapes_of(a)]
    return max(sizes, default=0)


def graph_flops(gm: torch.fx.GraphModule) -> int:
    return sum(node_flops(n) for n in gm.graph.nodes)


def storage_root(node: torch.fx.Node) -> torch.fx.Node:
    """The node whose storage `node` aliases: follows view ops, and `getitem`
    of the ops that return views (`split`, `unbind`, ...), to their operand."""
    while node.op == "call_function":
        name = op_name(node)
        if name == "getitem":
            parent = node.args[0]
            if isinstance(parent, torch.fx.Node) and op_name(parent) in VIEW_OPS:
                node = parent.args[0]
                continue
            return node
        if name in VIEW_OPS and isinstance(node.args[0], torch.fx.Node):
            node = node.args[0]
            continue
        return node
    return node


# --------------------------------------------------------------------------
# FX side: capture and partition analysis
# --------------------------------------------------------------------------


class _Stop(Exception):
    """Raised by the forward compiler: the graphs are recorded, nothing runs."""


@dataclass
class Partitioned:
    joint: torch.fx.GraphModule     # the joint graph after DCE + CSE
    fw: torch.fx.GraphModule
    bw: torch.fx.GraphModule
    num_fwd_outputs: int            # user outputs (the loss) at the head of fw's outputs


def capture_partition(model: torch.nn.Module, inputs: Sequence[torch.Tensor],
                      partition: Callable) -> Partitioned:
    """Traces `model(*inputs)` (returning the loss) with `aot_module` on fake
    tensors and partitions its joint graph with `partition`. The joint graph
    first gets the dead-code elimination and `fx_graph_cse` that the min-cut
    partitioner applies itself, so both partitions start from the same graph.
    The forward compiler records the forward graph and stops the compilation
    (the backward graph is what the partitioner returned; functorch 1.13
    compiles it lazily, at the first backward)."""
    from functorch.compile import aot_module, config
    from functorch._src.compile_utils import fx_graph_cse

    got: Dict[str, object] = {}

    def partition_fn(joint, joint_inputs, **kw):
        joint.graph.eliminate_dead_code()
        joint.recompile()
        joint.graph = fx_graph_cse(joint.graph)
        fw, bw = partition(joint, joint_inputs, **kw)
        got.update(joint=joint, bw=bw,
                   num_fwd_outputs=joint._out_spec.children_specs[0].num_leaves)
        return fw, bw

    def fw_compiler(gm, example_inputs):
        got["fw"] = gm
        raise _Stop()

    old_fake = config.use_fake_tensor
    config.use_fake_tensor = True
    try:
        compiled = aot_module(model, fw_compiler=fw_compiler, bw_compiler=lambda g, i: g,
                              partition_fn=partition_fn)
        try:
            compiled(*inputs)
        except _Stop:
            pass
    finally:
        config.use_fake_tensor = old_fake
    if "fw" not in got:
        raise RuntimeError("aot_module produced no forward graph (does forward return the loss?)")
    return Partitioned(got["joint"], got["fw"], got["bw"], got["num_fwd_outputs"])


def forward_node_names(joint: torch.fx.GraphModule, num_fwd_outputs: int) -> set:
    """Names of the joint graph's forward nodes: the ancestors of the user
    outputs (functorch's `required_fw_nodes`), placeholders excluded."""
    out = next(n for n in joint.graph.nodes if n.op == "output")
    flat = out.args[0] if isinstance(out.args[0], (list, tuple)) else [out.args[0]]
    worklist = [n for n in flat[:num_fwd_outputs] if isinstance(n, torch.fx.Node)]
    seen = set()
    while worklist:
        n = worklist.pop()
        if n in seen:
            continue
        seen.add(n)
        worklist.extend(n.all_input_nodes)
    return {n.name for n in seen if n.op == "call_function"}


def saved_values(p: Partitioned) -> List[torch.fx.Node]:
    """The forward graph's outputs that are handed to the backward graph."""
    out = next(n for n in p.fw.graph.nodes if n.op == "output")
    flat = out.args[0] if isinstance(out.args[0], (list, tuple)) else [out.args[0]]
    return [n for n in flat[p.num_fwd_outputs:] if isinstance(n, torch.fx.Node)]


def saved_bytes(values: Sequence[torch.fx.Node]) -> Tuple[int, int]:
    """(bytes, storages) of saved values: each storage root once, roots that
    are graph inputs (placeholders) not counted."""
    roots = {}
    for v in values:
        r = storage_root(v)
        if r.op != "placeholder":
            roots[r.name] = r
    return sum(nbytes(r) for r in roots.values()), len(roots)


def count_ops(gm: torch.fx.GraphModule) -> int:
    """call_function nodes, tuple projections (`getitem`) excluded."""
    return sum(1 for n in gm.graph.nodes if n.op == "call_function" and op_name(n) != "getitem")


@dataclass
class PartitionStats:
    saved_bytes: int
    saved_storages: int
    saved_values: int
    fw_ops: int
    bw_ops: int
    fw_flops: int
    bw_flops: int
    recomputed_ops: int
    recomputed_flops: int
    recomputed_by_op: Dict[str, int] = field(default_factory=dict)


def analyze(p: Partitioned) -> PartitionStats:
    fwd = forward_node_names(p.joint, p.num_fwd_outputs)
    values = saved_values(p)
    sbytes, storages = saved_bytes(values)
    recomputed = [n for n in p.bw.graph.nodes
                  if n.op == "call_function" and n.name in fwd and op_name(n) != "getitem"]
    by_op: Dict[str, int] = {}
    for n in recomputed:
        by_op[op_name(n)] = by_op.get(op_name(n), 0) + 1
    return PartitionStats(sbytes, storages, len(values), count_ops(p.fw), count_ops(p.bw),
                          graph_flops(p.fw), graph_flops(p.bw), len(recomputed),
                          sum(node_flops(n) for n in recomputed), dict(sorted(by_op.items())))


# --------------------------------------------------------------------------
# ckpt-opt side
# --------------------------------------------------------------------------

REMARK = re.compile(r"strategy=(\w+) peak=(\d+) \(no-recompute (\d+)\) budget=(\S+) "
                    r"recomputed-ops=(\d+) overhead=([0-9.]+)")


@dataclass
class Plan:
    fraction: Optional[float]       # budget, a fraction (activations scope); None: no budget
    budget_bytes: Optional[int]     # the same in bytes, arguments excluded
    peak: int                       # peak of the rewritten step, arguments included
    saved_bytes: int                # the report's saved_activation_bytes
    saved_count: int
    flops: int                      # total FLOPs of the rewritten step (ckpt-opt's count)
    overhead: float                 # from the remark: extra cost / no-recompute cost
    recomputed_ops: int
    ops: int


def run_ckpt(ckpt_opt: str, graph: str, strategy: str, fraction: Optional[float],
             ir_path: str = "/dev/null") -> Tuple[Optional[Plan], str]:
    """Places checkpoints (`strategy=none` when `fraction` is None) and reports
    the rewritten step as JSON; writes the rewritten IR to `ir_path`. Returns
    the plan, or None and the tool's error output when there is none."""
    if fraction is None:
        options = "strategy=none"
    else:
        options = f"strategy={strategy} budget={fraction:.6g}x"
    options += " budget-scope=activations objective=flops explain=true"
    proc = subprocess.run([ckpt_opt, graph, f"--ckpt-place-checkpoints={options}",
                           "--ckpt-report=json=true", "-o", ir_path],
                          capture_output=True, text=True)
    match = REMARK.search(proc.stderr)
    if proc.returncode != 0 or not match:
        return None, proc.stderr.strip()
    report = json.loads(proc.stdout)["functions"][0]
    args = report["parameter_bytes"] + report["input_bytes"]
    budget = None if match.group(4) == "none" else int(match.group(4)) - args
    phases = report["phases"].values()
    return Plan(fraction, budget, int(match.group(2)), report["saved_activation_bytes"],
                report["saved_activation_count"], sum(p["flops"] for p in phases),
                float(match.group(6)), int(match.group(5)), sum(p["ops"] for p in phases)), ""


class CkptRunner:
    """ckpt-opt on one graph with one strategy; plans memoized by budget."""

    def __init__(self, ckpt_opt: str, graph: str, strategy: str):
        self.ckpt_opt, self.graph, self.strategy = ckpt_opt, graph, strategy
        self.plans: Dict[Optional[float], Optional[Plan]] = {}

    def plan(self, fraction: Optional[float]) -> Optional[Plan]:
        if fraction not in self.plans:
            self.plans[fraction] = run_ckpt(self.ckpt_opt, self.graph, self.strategy, fraction)[0]
        return self.plans[fraction]

    def rewritten_ir(self, fraction: Optional[float]) -> str:
        """The IR of the plan at `fraction` (planned again, written to a file)."""
        path = self.graph + ".mlir"
        plan, err = run_ckpt(self.ckpt_opt, self.graph, self.strategy, fraction, path)
        if plan is None:
            raise RuntimeError(f"{self.ckpt_opt} failed on {self.graph}:\n{err}")
        with open(path) as f:
            return f.read()


def pick_strategy(ckpt_opt: str, graph: str, wanted: str) -> Tuple[str, Optional[str]]:
    """`wanted`, or `greedy` with a note when the binary rejects the name."""
    _, err = run_ckpt(ckpt_opt, graph, wanted, 0.99)
    if "unknown strategy" in err:
        return "greedy", (f"note: {ckpt_opt} does not know strategy '{wanted}'; "
                          f"using 'greedy' instead")
    return wanted, None


def search_budget(evaluate: Callable[[float], Optional[Plan]], target: int,
                  iterations: int = 6) -> Tuple[Optional[Plan], List[Plan]]:
    """Finds the cheapest plan whose saved bytes are <= `target`.

    `evaluate(F)` plans at budget F (a fraction; None when there is no plan).
    F walks down GRID until a plan saves <= target, then bisects `iterations`
    times between that F and the grid point above it (1.0 above the first).
    Returns the plan with the least FLOPs (ties: the larger budget) among all
    plans tried that save <= target, or None; and every plan tried, in order."""
    tried: List[Plan] = []

    def fits(f: float) -> bool:
        plan = evaluate(f)
        if plan is not None:
            tried.append(plan)
        return plan is not None and plan.saved_bytes <= target

    hi, lo = 1.0, None
    for f in GRID:
        if fits(f):
            lo = f
            break
        hi = f
    if lo is not None:
        for _ in range(iterations):
            mid = round((lo + hi) / 2, 6)
            if fits(mid):
                lo = mid
            else:
                hi = mid
    good = [p for p in tried if p.saved_bytes <= target]
    best = min(good, key=lambda p: (p.flops, -p.fraction)) if good else None
    return best, tried


# The recomputed ops of ckpt-opt's plan counted with node_flops' conventions,
# so that they compare with min-cut's column: parsed from the rewritten IR,
# where every recomputation carries the unit attribute `ckpt.recompute`.
RECOMPUTE_ATTR = re.compile(r"[{,]\s*ckpt\.recompute\s*[,}]")
CKPT_OP = re.compile(r"=\s*ckpt\.(\w+)")
TENSOR_TYPE = re.compile(r"tensor<([^>]*)>")
# ckpt ops without arithmetic (views, data movement), 0 FLOPs as in ZERO_FLOP_OPS.
CKPT_ZERO_FLOP_OPS = {"reshape", "transpose", "broadcast", "slice", "concat", "embedding", "convert", "fill"}


def _mlir_shape(spec: str) -> Tuple[int, ...]:
    """'4x128xf32' -> (4, 128); 'f32' -> ()."""
    return tuple(int(d) for d in spec.split("x")[:-1])


def recomputed_ckpt_ops(ir: str) -> List[Tuple[str, List[Tuple[int, ...]], List[Tuple[int, ...]], bool]]:
    """(op, operand shapes, result shapes, transpose_lhs) of every op the
    rewritten IR marks `ckpt.recompute`, in order."""
    ops = []
    for line in ir.splitlines():
        if not RECOMPUTE_ATTR.search(line):
            continue
        name = CKPT_OP.search(line)
        signature = line.rsplit(" : ", 1)[-1]
        operands, _, results = signature.partition("->")
        operand_shapes = [_mlir_shape(t) for t in TENSOR_TYPE.findall(operands)]
        result_shapes = [_mlir_shape(t) for t in TENSOR_TYPE.findall(results)] or operand_shapes
        ops.append((name.group(1) if name else "?", operand_shapes, result_shapes,
                    "transpose_lhs" in line))
    return ops


def ckpt_op_fx_flops(name: str, operands: List[Tuple[int, ...]], results: List[Tuple[int, ...]],
                     transpose_lhs: bool = False) -> int:
    """FLOPs of one ckpt op with node_flops' conventions: 2MNK for `linear`
    (+ one per output with a bias), `matmul` and `batch_matmul`; 2 x outputs x
    weight[0] elements for `conv2d`; 0 for views and data movement; else the
    largest element count among operands and results."""
    out = numel(results[0]) if results else 0
    if name == "linear":
        return 2 * out * operands[0][-1] + (out if len(operands) > 2 else 0)
    if name in ("matmul", "batch_matmul"):
        lhs = operands[0]
        return 2 * out * (lhs[-2] if transpose_lhs else lhs[-1])
    if name == "conv2d":
        return 2 * out * numel(operands[1][1:]) + (out if len(operands) > 2 else 0)
    if name in CKPT_ZERO_FLOP_OPS:
        return 0
    return max((numel(s) for s in operands + results), default=0)


# --------------------------------------------------------------------------
# One model
# --------------------------------------------------------------------------


def make_spec(label: str):
    from ckpt_export.models import MODELS as CORPUS
    name, overrides = MODELS[label]
    return CORPUS[name]("full", **overrides)


def bench_model(label: str, ckpt_opt: str, strategy: str, compilers: Sequence[str], tmp: str,
                iterations: int = 6) -> List[Dict[str, object]]:
    """One result row per min-cut variant (`compiler` argument) of one model."""
    from functorch.compile import default_partition, min_cut_rematerialization_partition
    from ckpt_export import export

    t0 = time.perf_counter()
    spec = make_spec(label)
    default = analyze(capture_partition(spec.model, spec.inputs, default_partition))
    step_flops = default.fw_flops + default.bw_flops

    graph = os.path.join(tmp, f"{label}.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exported = export(spec.model, spec.inputs, graph, name=label)
    base, err = run_ckpt(ckpt_opt, graph, strategy, None)
    if base is None:
        raise RuntimeError(f"{ckpt_opt} failed on {graph}:\n{err}")
    used, note = pick_strategy(ckpt_opt, graph, strategy)
    runner = CkptRunner(ckpt_opt, graph, used)

    def plan_dict(p: Optional[Plan]):
        if p is None:
            return None
        d = asdict(p)
        d["recompute_flops"] = p.flops - base.flops
        d["recompute_fraction"] = (p.flops - base.flops) / base.flops if base.flops else 0.0
        return d

    rows = []
    for compiler in compilers:
        def mincut(joint, joint_inputs, _compiler=compiler, **kw):
            return min_cut_rematerialization_partition(joint, joint_inputs, compiler=_compiler, **kw)

        cut_graphs = capture_partition(spec.model, spec.inputs, mincut)
        cut = analyze(cut_graphs)
        if base.saved_bytes <= cut.saved_bytes:  # no recomputation needed
            best, tried = base, []
        else:
            best, tried = search_budget(runner.plan, cut.saved_bytes, iterations)
        fx_ops = recomputed_ckpt_ops(runner.rewritten_ir(best.fraction)) if best else []
        fx_flops = sum(ckpt_op_fx_flops(*op) for op in fx_ops)
        best_d = plan_dict(best)
        if best_d is not None:
            best_d["recompute_flops_fx_count"] = fx_flops
            best_d["recompute_fraction_fx_count"] = fx_flops / step_flops if step_flops else 0.0
            by_op: Dict[str, int] = {}
            for op in fx_ops:
                by_op[op[0]] = by_op.get(op[0], 0) + 1
            best_d["recomputed_by_op"] = dict(sorted(by_op.items()))
        rows.append({
            "model": label,
            "corpus_model": MODELS[label][0],
            "config": dict(spec.config),
            "min_cut_compiler": compiler,
            "joint_ops": count_ops(cut_graphs.joint),
            "ckpt_ops": base.ops,
            "step_flops_fx_count": step_flops,
            "default_partition": asdict(default),
            "min_cut": asdict(cut),
            "min_cut_recompute_fraction": cut.recomputed_flops / step_flops if step_flops else 0.0,
            "ckpt": {
                "strategy": used,
                "note": note,
                "target_saved_bytes": cut.saved_bytes,
                "base": plan_dict(base),
                "best": best_d,
                "tried": [plan_dict(p) for p in tried],
                "opaque_ops": dict(sorted(exported.opaque.items())),
            },
        })
    seconds = time.perf_counter() - t0
    for r in rows:
        r["model_seconds"] = seconds
    return rows


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def fmt_bytes(n: Optional[int]) -> str:
    """Binary units, about three significant digits: 1536 -> '1.50 KiB'."""
    if n is None:
        return "-"
    value, unit = float(n), "B"
    for next_unit in ("KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024:
            break
        value, unit = value / 1024, next_unit
    if unit == "B":
        return f"{int(value)} B"
    digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2
    return f"{value:.{digits}f} {unit}"


def fmt_flops(n: float) -> str:
    """Decimal units: 1.5e9 -> '1.50 G'."""
    for scale, unit in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= scale:
            return f"{n / scale:.2f} {unit}"
    return str(int(n))


def fmt_percent(fraction: float) -> str:
    """0.0123 -> '1.23%'; below 0.1%, four decimals: 3.5e-5 -> '0.0035%'."""
    percent = 100 * fraction
    return f"{percent:.2f}%" if percent == 0 or abs(percent) >= 0.1 else f"{percent:.4f}%"


COLUMNS = ("model", "ops", "default partition saved", "min-cut saved",
           "min-cut recomputed ops / FLOPs (% of step)", "ckpt-opt budget", "ckpt-opt saved",
           "ckpt-opt recompute FLOPs (% of step)")


def table_row(r: Dict[str, object], show_compiler: bool = True) -> List[str]:
    m = r["min_cut"]
    ckpt = r["ckpt"]
    best = ckpt["best"]
    cells = [
        f"{r['model']} ({r['min_cut_compiler']})" if show_compiler else r["model"],
        f"{r['joint_ops']} / {r['ckpt_ops']}",
        fmt_bytes(r["default_partition"]["saved_bytes"]),
        fmt_bytes(m["saved_bytes"]),
        f"{m['recomputed_ops']} / {fmt_flops(m['recomputed_flops'])} "
        f"({fmt_percent(r['min_cut_recompute_fraction'])})",
    ]
    if best is None:
        over = ckpt["base"]["saved_bytes"] - ckpt["target_saved_bytes"]
        cells += ["-", f"no plan (no recompute: {fmt_bytes(ckpt['base']['saved_bytes'])}, "
                       f"{fmt_bytes(over)} over)", "-"]
    else:
        budget = "none" if best["fraction"] is None else (
            f"{best['fraction']:.4g}x ({fmt_bytes(best['budget_bytes'])})")
        cells += [budget, fmt_bytes(best["saved_bytes"]),
                  f"{best['recomputed_ops']} ops: {fmt_flops(best['recompute_flops'])} "
                  f"({fmt_percent(best['recompute_fraction'])}); FX count "
                  f"{fmt_flops(best['recompute_flops_fx_count'])} "
                  f"({fmt_percent(best['recompute_fraction_fx_count'])})"]
    return cells


def format_table(rows: Sequence[Dict[str, object]]) -> str:
    """The markdown table; the model cell names the min-cut variant when the
    rows use more than one."""
    show = len({r["min_cut_compiler"] for r in rows}) > 1
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(table_row(r, show)) + " |" for r in rows]
    return "\n".join(lines)


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Details: the module docstring of bench/pytorch_mincut.py.")
    parser.add_argument("--ckpt-opt", default=os.path.join(ROOT, "build", "bin", "ckpt-opt"),
                        help="the ckpt-opt binary (default: build/bin/ckpt-opt)")
    parser.add_argument("--strategy", default="optimal",
                        help="ckpt-opt placement strategy (default optimal; greedy when the "
                             "binary does not know it)")
    parser.add_argument("--models", default=",".join(MODELS),
                        help=f"comma-separated subset of {','.join(MODELS)} (default: all)")
    parser.add_argument("--mincut-compiler", default="nvfuser,inductor",
                        help="comma-separated values of the min-cut partitioner's `compiler` "
                             "argument, which selects the ops it may recompute: nvfuser (its "
                             "default) and/or inductor (default: both)")
    parser.add_argument("--iterations", type=int, default=6,
                        help="bisection steps after the 0.1 grid (default 6)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in args.models if m not in MODELS]
    if unknown or not args.models:
        parser.error(f"--models: unknown model(s) {', '.join(unknown) or '(none given)'}; "
                     f"choose from {', '.join(MODELS)}")
    args.mincut_compiler = [c.strip() for c in args.mincut_compiler.split(",") if c.strip()]
    bad = [c for c in args.mincut_compiler if c not in ("nvfuser", "inductor")]
    if bad or not args.mincut_compiler:
        parser.error(f"--mincut-compiler: expected nvfuser and/or inductor, got "
                     f"{', '.join(bad) or '(nothing)'}")
    if args.iterations < 0:
        parser.error("--iterations must be >= 0")
    if not (os.path.isfile(args.ckpt_opt) and os.access(args.ckpt_opt, os.X_OK)):
        parser.error(f"--ckpt-opt: {args.ckpt_opt} is not an executable file")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    if importlib.util.find_spec("networkx") is None:  # the min-cut partitioner imports it
        print("error: the min-cut partitioner needs networkx (apt-get install python3-networkx)",
              file=sys.stderr)
        return 2
    warnings.filterwarnings("ignore", message="Your compiler for AOTAutograd")
    start = time.perf_counter()
    rows: List[Dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for label in args.models:
            model_rows = bench_model(label, args.ckpt_opt, args.strategy, args.mincut_compiler,
                                     tmp, args.iterations)
            print(f"{label}: {model_rows[0]['model_seconds']:.1f} s", file=sys.stderr)
            rows += model_rows
    for note in sorted({r["ckpt"]["note"] for r in rows if r["ckpt"]["note"]}):
        print(note)
    print(f"min-cut: min_cut_rematerialization_partition(compiler=...) on torch {torch.__version__}; "
          f"ckpt-opt: strategy={rows[0]['ckpt']['strategy']} objective=flops "
          f"budget-scope=activations. ops: FX joint graph / ckpt graph. ckpt-opt FLOPs: its own "
          f"count, then the recomputed ops with the FX-side count.\n")
    print(format_table(rows))
    total = time.perf_counter() - start
    print(f"\n{len(args.models)} models in {total:.1f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "ckpt_opt": args.ckpt_opt,
                       "strategy_requested": args.strategy, "seconds": total, "results": rows},
                      f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
