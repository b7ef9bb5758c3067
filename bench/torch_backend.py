"""ckpt_torch against what PyTorch users use instead, at equal saved bytes.

Run with the PyTorch 2 environment (scripts/install-torch.sh), on the CPU:

    /opt/ckpt-opt/torch-venv/bin/python bench/torch_backend.py [--models hf:gpt2,...] [--runs 5]

For each model of the corpus (python/ckpt_export/library_models.py, at a
small size set below) every method trains the same step through
``torch.compile`` with PyTorch's kernels:

* ``none``: PyTorch's default partition (no recomputation): the reference;
* ``budget r``: PyTorch's memory-budget partitioner
  (``torch._functorch.config.activation_memory_budget = r``);
* ``ckpt/block``: ``torch.utils.checkpoint`` around every repeated block;
* ``SAC``: selective activation checkpointing per block with the policy
  "save matmuls, convolutions and attention, recompute the rest";
* ``ckpt-opt``: ``ckpt_torch.backend`` (``objective=flops``) with the largest
  budget whose plan saves no more than the method it is compared with
  (bisection on the budget in bytes).

Columns: saved bytes (measured: the tensors the forward graph returns for
the backward, distinct storages, parameters and inputs left out),
recomputed FLOPs (the step's FLOPs, forward and backward graphs as compiled,
counted by PyTorch's ``FlopCounterMode`` on fake tensors, less the reference's:
matmuls, convolutions and attention; PyTorch counts pointwise ops as 0) and
the step's wall time (forward + backward, median of ``--runs`` after one
warm-up). Prints a Markdown table (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from typing import Callable, Dict, List, Optional, Tuple

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
warnings.simplefilter("ignore")

import ckpt_torch  # noqa: E402
from ckpt_export.library_models import LIBRARY  # noqa: E402
from ckpt_export.saved_memory import no_dropout  # noqa: E402

# Small but not toy sizes: each compile + plan takes seconds on 2 cores.
SIZES: Dict[str, dict] = {
    "hf:gpt2": dict(batch=4, seq=128, layers=4, hidden=128, heads=4, vocab=2000),
    "hf:bert": dict(batch=4, seq=128, layers=4, hidden=128, heads=4, vocab=2000, inter=512),
    "hf:llama": dict(batch=4, seq=128, layers=4, hidden=128, heads=4, vocab=2000, inter=344),
    "tv:resnet18": dict(batch=8, res=64),
}
BUDGETS = (0.8, 0.5, 0.3)


def _blocks(model: nn.Module) -> List[nn.Module]:
    """The repeated blocks: the children of the longest ModuleList or
    Sequential of modules of one type (transformer layers, ResNet stages'
    blocks, flattened)."""
    best: List[nn.Module] = []
    for m in model.modules():
        if isinstance(m, (nn.ModuleList, nn.Sequential)):
            kids = list(m.children())
            if len(kids) >= 2 and len({type(k) for k in kids}) == 1 and len(kids) > len(best) \
                    and not isinstance(kids[0], (nn.ReLU, nn.Dropout)):
                best = kids
    if not best:  # one block per stage: the residual blocks themselves
        best = [m for m in model.modules() if type(m).__name__ in ("Bottleneck", "BasicBlock")]
    if not best:
        raise RuntimeError(f"no repeated blocks in {type(model).__name__}")
    if isinstance(best[0], nn.Sequential):  # ResNet: layer1..layer4 of blocks
        best = [b for s in best for b in s.children()]
    return best


def _sac_policy():
    from torch.utils.checkpoint import CheckpointPolicy
    keep = {torch.ops.aten.mm.default, torch.ops.aten.addmm.default, torch.ops.aten.bmm.default,
            torch.ops.aten.convolution.default, torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default,
            torch.ops.aten._scaled_dot_product_efficient_attention.default,
            torch.ops.aten._scaled_dot_product_flash_attention.default}

    def policy(ctx, op, *args, **kwargs):
        return CheckpointPolicy.MUST_SAVE if op in keep else CheckpointPolicy.PREFER_RECOMPUTE
    return policy


def _wrap_blocks(model: nn.Module, selective: bool):
    """torch.utils.checkpoint around every block (non-reentrant); with
    ``selective``, SAC with the matmul-saving policy."""
    import functools
    from torch.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts
    for block in _blocks(model):
        inner = block.forward

        def fwd(*a, _inner=inner, **k):
            kw = dict(use_reentrant=False)
            if selective:
                kw["context_fn"] = functools.partial(create_selective_checkpoint_contexts, _sac_policy())
            return checkpoint(_inner, *a, **kw, **k)
        block.forward = fwd


class Measuring:
    """An AOTAutograd backend with a given partitioner that records the
    saved bytes of each forward call and the compiled graphs. Its graphs run
    as ckpt_torch's eager ones do (ckpt_torch.boxed_eager: each input freed
    after its last use), so peaks compare partitions, not calling
    conventions."""

    def __init__(self, partition_fn):
        self.partition_fn = partition_fn
        self.saved_by_graph: Dict[int, int] = {}
        self.graphs: List[Tuple[torch.fx.GraphModule, torch.fx.GraphModule]] = []

    def __call__(self, gm, example_inputs):
        from torch._dynamo.backends.common import aot_autograd
        state: Dict[str, object] = {}
        index = len(self.saved_by_graph)
        self.saved_by_graph[index] = 0

        def pf(joint, joint_inputs, *, num_fwd_outputs, **kw):
            state["n"] = num_fwd_outputs
            fw, bw = self.partition_fn(joint, joint_inputs, num_fwd_outputs=num_fwd_outputs, **kw)
            self.graphs.append((fw, bw))
            return fw, bw

        def fw_compiler(g, _):
            run = ckpt_torch.boxed_eager(g)

            def forward(args):
                exclude = list(args)
                outs = run(args)
                self.saved_by_graph[index] = ckpt_torch.saved_bytes(list(outs)[state["n"]:], exclude)
                return outs
            forward._boxed_call = True
            return forward
        return aot_autograd(fw_compiler=fw_compiler, bw_compiler=lambda g, _: ckpt_torch.boxed_eager(g),
                            partition_fn=pf)(gm, example_inputs)


def graph_flops(gm: torch.fx.GraphModule) -> int:
    """FLOPs of one run of ``gm`` as PyTorch's FlopCounterMode counts them,
    executed on the fake tensors of its placeholders' metadata."""
    from torch._guards import detect_fake_mode
    from torch.utils.flop_counter import FlopCounterMode
    vals = [n.meta.get("val") for n in gm.graph.nodes if n.op == "placeholder"]
    mode = detect_fake_mode([v for v in vals if isinstance(v, torch.Tensor)])
    with mode, FlopCounterMode(display=False) as counter:
        gm(*vals)
    return counter.get_total_flops()


DEVICE = "cpu"


def _spec(name, size=None):
    spec = LIBRARY[name]("tiny", **(size or SIZES[name]))
    no_dropout(spec.model)
    if DEVICE != "cpu":
        spec.model.to(DEVICE)
        spec.inputs = tuple(x.to(DEVICE) for x in spec.inputs)
    return spec


PEAKS: Dict[int, int] = {}
STARTS: Dict[int, int] = {}


def _timed_steps(model, compiled, inputs, runs) -> float:
    """Median seconds of ``runs`` steps after one warm-up (0: the warm-up
    only). On CUDA also records the last step's peak allocated bytes
    (``torch.cuda.max_memory_allocated``, parameters and inputs included) in
    ``PEAKS[id(model)]``, and the bytes allocated as it starts (parameters,
    inputs, and what earlier steps left: library workspaces) in
    ``STARTS[id(model)]``."""
    cuda = DEVICE != "cpu"
    times = [0.0]
    for i in range(runs + 1):
        for p in model.parameters():
            p.grad = None
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            STARTS[id(model)] = torch.cuda.memory_allocated()
        t0 = time.perf_counter()
        compiled(*inputs).backward()
        if cuda:
            torch.cuda.synchronize()
            PEAKS[id(model)] = torch.cuda.max_memory_allocated()
        if i:
            times.append(time.perf_counter() - t0)
    return statistics.median(times[1:] or times)


# Why a row can show ckpt-opt recomputing more of what PyTorch's counter counts.
MORE_FLOPS = ("more recomputed FLOPs: ckpt-opt minimizes recomputation under a peak budget, with every op's "
              "FLOPs (pointwise included, which this counter leaves out), not under a saved-bytes limit")


def run_method(name, method, runs, budget=None, size=None, **ckpt_options) -> dict:
    """One method on a fresh model: saved bytes, step FLOPs, median time
    (and on CUDA the measured peak)."""
    from torch._functorch import config as fconfig
    from torch._functorch.partitioners import default_partition, min_cut_rematerialization_partition
    torch._dynamo.reset()
    torch.manual_seed(0)
    spec = _spec(name, size)
    model = spec.model
    old_budget = fconfig.activation_memory_budget
    try:
        if method == "ckpt-opt":
            options = dict(objective="flops", time_limit=5)
            options.update(ckpt_options)
            backend = ckpt_torch.backend(budget, **options)
        elif method == "none":
            backend = Measuring(default_partition)
        else:
            if method.startswith("budget"):
                fconfig.activation_memory_budget = float(method.split()[1])
            elif method in ("ckpt/block", "SAC"):
                # transformers' output capturing writes to an object from
                # inside the blocks; PyTorch then asks for this setting
                torch._dynamo.config.skip_fwd_side_effects_in_bwd_under_checkpoint = True
                _wrap_blocks(model, selective=method == "SAC")
            backend = Measuring(min_cut_rematerialization_partition)
        compiled = torch.compile(model, backend=backend, fullgraph=True)
        seconds = _timed_steps(model, compiled, spec.inputs, runs)
    finally:
        fconfig.activation_memory_budget = old_budget
    if method == "ckpt-opt":
        g = [e for e in backend.report.graphs if e.planned][0]
        saved, graphs = g.measured_saved, [(backend.last_fw, backend.last_bw)]
    else:
        if len(backend.graphs) != 1:
            raise RuntimeError(f"{len(backend.graphs)} training graphs (a graph break)")
        saved, graphs = sum(backend.saved_by_graph.values()), backend.graphs
    flops = sum(graph_flops(fw) + graph_flops(bw) for fw, bw in graphs)
    return dict(saved=saved, flops=flops, seconds=seconds, backend=backend, peak=PEAKS.pop(id(model), None),
                start=STARTS.pop(id(model), None))


def ckpt_at_most(name, saved_limit, hi, runs) -> Tuple[Optional[dict], Optional[dict]]:
    """ckpt-opt with the largest budget (bytes) whose plan saves at most
    ``saved_limit`` bytes: bisection up to ``hi`` from a budget of
    ``saved_limit`` itself or, when that has no plan, from the smallest
    feasible one (``min``). Returns (that run, None), or (None, the ``min``
    run) when even the smallest plan saves more."""
    def attempt(budget):
        try:
            return run_method(name, "ckpt-opt", 0, budget=budget if isinstance(budget, str) else f"{budget}B")
        except Exception:  # noqa: BLE001 - no plan within this budget
            return None
    first = attempt(saved_limit)  # the saved bytes are part of the peak
    if first is not None and first["saved"] <= saved_limit:
        lo = saved_limit
    else:
        smallest = attempt("min")
        if smallest is None or smallest["saved"] > saved_limit:
            return None, smallest
        lo = smallest["backend"].report.graphs[0].budget_bytes
    best = lo
    for _ in range(7):
        mid = (lo + hi) // 2
        r = attempt(mid)
        if r is not None and r["saved"] <= saved_limit:
            best, lo = mid, mid
        else:
            hi = mid
    final = run_method(name, "ckpt-opt", runs, budget=f"{int(best)}B")
    final["budget"] = int(best)
    return final, None


def _keep_graphs():
    """ckpt_torch's backend keeps its last graphs for the FLOP count."""
    orig = ckpt_torch.CkptBackend._partition
    if getattr(orig, "_keeps_graphs", False):
        return

    def keep_graphs(self, *a, **k):
        fw, bw = orig(self, *a, **k)
        self.last_fw, self.last_bw = fw, bw
        return fw, bw
    keep_graphs._keeps_graphs = True
    ckpt_torch.CkptBackend._partition = keep_graphs


_keep_graphs()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(SIZES))
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    # Every method traces the same graphs: transformers' logging calls are
    # skipped instead of breaking the graph (what ckpt_torch.backend sets).
    import transformers.utils.logging  # noqa: F401 - defines Logger.warning_once
    from ckpt_torch.dynamo_backend import _skip_logging_in_dynamo
    _skip_logging_in_dynamo()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads; CPU, fp32")
    print()
    print("| model | method | saved | ckpt-opt saved | recomputed GFLOP | ckpt-opt recomputed GFLOP "
          "| step s | ckpt-opt step s | note |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        ref = run_method(name, "none", args.runs)
        peak0 = ckpt_torch.backend("", time_limit=5)
        torch._dynamo.reset()
        spec = _spec(name)
        torch.compile(spec.model, backend=peak0)(*spec.inputs).backward()
        hi = peak0.report.graphs[0].no_recompute_peak
        print(f"| {name} | none (reference) | {ref['saved'] / 2**20:.2f} MiB | | 0 | | {ref['seconds']:.3f} | | |")
        methods = [f"budget {r}" for r in BUDGETS] + ["ckpt/block", "SAC"]
        for m in methods:
            try:
                b = run_method(name, m, args.runs)
            except Exception as e:  # noqa: BLE001
                why = str(e).strip().splitlines()[-1][:120] if str(e).strip() else ""
                # ckpt-opt at the same fraction (of its own no-recompute peak), for the record
                c, cols = None, " | | | | "
                if m.startswith("budget"):
                    try:
                        c = run_method(name, "ckpt-opt", args.runs, budget=m.split()[1] + "x")
                        cols = (f"{c['saved'] / 2**20:.2f} MiB (at {m.split()[1]}x) | | "
                                f"{(c['flops'] - ref['flops']) / 1e9:.3f} | | {c['seconds']:.3f}")
                    except Exception:  # noqa: BLE001 - below ckpt-opt's floor
                        cols = f"no plan at {m.split()[1]}x (below the floor) | | | | "
                print(f"| {name} | {m} | failed: {type(e).__name__}: {why} | {cols} | |")
                continue
            c, smallest = ckpt_at_most(name, b["saved"], hi, args.runs)
            bf = (b["flops"] - ref["flops"]) / 1e9
            if c is None:
                why = (f"ckpt-opt's smallest plan saves {smallest['saved'] / 2**20:.2f} MiB "
                       f"({(smallest['flops'] - ref['flops']) / 1e9:.3f} GFLOP recomputed)"
                       if smallest else "ckpt-opt found no plan")
                print(f"| {name} | {m} | {b['saved'] / 2**20:.2f} MiB | - | {bf:.3f} | | "
                      f"{b['seconds']:.3f} | | {why} |")
                continue
            cf = (c["flops"] - ref["flops"]) / 1e9
            note = "" if cf <= bf + 1e-9 else MORE_FLOPS
            print(f"| {name} | {m} | {b['saved'] / 2**20:.2f} MiB | {c['saved'] / 2**20:.2f} MiB | {bf:.3f} | "
                  f"{cf:.3f} | {b['seconds']:.3f} | {c['seconds']:.3f} | {note} |", flush=True)


if __name__ == "__main__":
    main()
