"""``ckpt_torch.backend``: ckpt-opt's plans inside ``torch.compile``.

For each graph Dynamo hands it, the backend runs AOTAutograd with its own
``partition_fn``: the joint forward+backward graph is exported to the ckpt
graph format (the same lowering as ``python -m ckpt_export``), planned by
ckpt-opt under the budget, and split into PyTorch forward and backward graphs
by the plan (:mod:`ckpt_torch.partition`). The graphs run with PyTorch's
kernels, as FX graphs (``compiler="eager"``, default) or through Inductor
(``compiler="inductor"``); autograd, optimizers and distributed wrappers are
PyTorch's. Dropout is replayed with the same random numbers
(:mod:`ckpt_torch.random_ops`).

A graph that the planner cannot take (no single scalar loss, e.g. after a
graph break; symbolic shapes; an op the exporter does not know) is
partitioned by PyTorch's default partitioner (no recomputation), and the
report says why.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import torch
import torch.fx

from ckpt_export.saved_memory import storage_key

from .partition import (choose_saved, compact_partial_views, compare_saved, copies_of_their_input, forward_nodes,
                        kept_by_plan,
                        materialize_recomputation, split)
from .planner import PlanError, PlannerOptions, plan
from .batchnorm import drop_running_stat_operands
from .random_ops import seed_dropouts
from .report import GraphPlan, Report, group_by_scope, module_path, op_short_name


def _skip_logging_in_dynamo():
    """Logging calls inside forward (transformers' ``logger.warning_once``)
    are skipped by Dynamo instead of breaking the graph (the same setting as
    ``ckpt_export``'s capture)."""
    import torch._dynamo
    cfg = torch._dynamo.config
    for f in (getattr(logging.Logger, "warning_once", None), logging.Logger.warning,
              logging.Logger.info, logging.Logger.debug):
        if f is not None:
            cfg.ignore_logging_functions.add(f)


def boxed_eager(gm: torch.fx.GraphModule) -> Callable[[List[Any]], Any]:
    """``gm`` run op by op with PyTorch's kernels, in AOTAutograd's boxed
    calling convention: the generated code takes the argument list and
    clears it, so that each input is freed after its last use, as Inductor's
    code frees it. ``functorch.compile.make_boxed_func`` (the ``aot_eager``
    backend's) keeps the list, and with it every tensor the forward saved,
    until the whole backward graph has run, so recomputation saved nothing
    in the backward's peak (docs/gpu.md, "ckpt_torch on the GPU")."""
    codegen = getattr(torch.fx.graph, "_BoxedCodeGen", None)
    if codegen is None:  # older PyTorch: arguments live to the end
        from functorch.compile import make_boxed_func
        return make_boxed_func(gm.forward)
    graph = torch.fx.Graph()
    graph.output(graph.graph_copy(gm.graph, {}))
    graph.set_codegen(codegen())
    run = torch.fx.GraphModule(gm, graph).forward  # ``gm`` keeps its own calling convention

    def call(args: List[Any]) -> Any:
        return run(args)
    call._boxed_call = True  # type: ignore[attr-defined]
    return call


def saved_bytes(saved: Sequence[Any], exclude: Sequence[Any]) -> int:
    """Bytes of the distinct storages of the tensors in ``saved`` that are
    not storages of ``exclude`` (the graph's inputs: parameters and data,
    which are in memory anyway)."""
    skip = {storage_key(t) for t in exclude if isinstance(t, torch.Tensor)}
    seen = set()
    total = 0
    for t in saved:
        if not isinstance(t, torch.Tensor):
            continue
        k = storage_key(t)
        if k in skip or k in seen:
            continue
        seen.add(k)
        total += k[2]
    return total


class CkptBackend:
    """A ``torch.compile`` backend that partitions every training graph by a
    ckpt-opt plan under ``budget``. See :func:`backend`."""

    def __init__(self, budget: str = "", *, budget_scope: str = "activations", strategy: str = "optimal",
                 objective: str = "time", profile: str = "h100-sxm", time_limit: float = 10.0,
                 exact_engines: Union[bool, str] = "enumeration", compiler: str = "eager", ckpt_opt: Optional[str] = None,
                 static_shapes: bool = True, whole_graph_ddp: bool = True, replay_random: bool = True):
        if compiler not in ("eager", "inductor"):
            raise ValueError(f"ckpt_torch.backend: compiler={compiler!r} (expected 'eager' or 'inductor')")
        if isinstance(budget, bool) or not isinstance(budget, (str, int)):
            raise ValueError(f"ckpt_torch.backend: budget={budget!r}: expected a string such as '0.5x', "
                             "'8GiB' or 'min', or an int number of bytes")
        if isinstance(budget, int):  # bytes; a bare number in a string is refused by ckpt-opt
            budget = f"{budget}B"
        self.options = PlannerOptions(budget=budget, budget_scope=budget_scope, strategy=strategy,
                                      objective=objective, profile=profile, time_limit=time_limit,
                                      exact_engines=exact_engines)
        self.compiler = compiler
        self.ckpt_opt = ckpt_opt
        # Tests only: False recomputes random ops with fresh random numbers
        # (what a partitioner without replay does), to show that the
        # gradient tests detect it.
        self.replay_random = replay_random
        self.report = Report()
        _skip_logging_in_dynamo()
        import torch._dynamo
        if whole_graph_ddp:
            # DistributedDataParallel's graph splitting (one graph per bucket)
            # would leave graphs without a loss, which the planner cannot
            # take; with one graph the gradients are all-reduced after the
            # backward pass, by DDP's own hooks.
            torch._dynamo.config.optimize_ddp = False
        if static_shapes:
            # A new shape recompiles a static graph (which the planner needs)
            # instead of a symbolic one.
            torch._dynamo.config.automatic_dynamic_shapes = False

    # ---- torch.compile entry point --------------------------------------
    def __call__(self, gm: torch.fx.GraphModule, example_inputs: List[Any]):
        from torch._dynamo.backends.common import aot_autograd
        entry = GraphPlan(index=len(self.report.graphs),
                          ops=sum(1 for n in gm.graph.nodes if n.op == "call_function"))
        self.report.graphs.append(entry)
        examples = list(example_inputs)
        names = self._input_names(gm, examples)

        state: Dict[str, int] = {}

        def partition_fn(joint, joint_inputs, *, num_fwd_outputs, **kw):
            state["num_fwd_outputs"] = num_fwd_outputs
            return self._partition(entry, joint, joint_inputs, num_fwd_outputs, examples, names, kw)

        fw, bw = self._compilers(entry, state)
        inner = self._inference_compiler()

        def inference_compiler(g, inputs):
            entry.reason = "no backward pass (an inference graph, e.g. under torch.no_grad): nothing to plan"
            return inner(g, inputs)
        return aot_autograd(fw_compiler=fw, bw_compiler=bw, inference_compiler=inference_compiler,
                            partition_fn=partition_fn)(gm, example_inputs)

    def _inference_compiler(self):
        if self.compiler == "inductor":
            return _inductor_compiler
        return lambda g, _inputs: boxed_eager(g)

    def _compilers(self, entry: GraphPlan, state: Dict[str, int]):
        """The forward compiler measures, at every call, the bytes of the
        tensors the forward saves for the backward: its outputs after the
        first ``num_fwd_outputs``, except storages of its inputs."""
        inner = self._inference_compiler()

        def fw_compiler(g: torch.fx.GraphModule, inputs):
            run = inner(g, inputs)
            n_out = state.get("num_fwd_outputs", 0)

            def forward(args):
                exclude = list(args)
                outs = run(args)
                if entry.planned:
                    entry.measured_saved = saved_bytes(list(outs)[n_out:], exclude)
                    entry.steps += 1
                return outs
            forward._boxed_call = True  # type: ignore[attr-defined]
            return forward

        def bw_compiler(g: torch.fx.GraphModule, inputs):
            return inner(g, inputs)

        return fw_compiler, bw_compiler

    # ---- the partition ---------------------------------------------------
    @staticmethod
    def _input_names(gm, examples):
        names = []
        for n in gm.graph.nodes:
            if n.op != "placeholder":
                continue
            src = None
            ga = n.meta.get("grapharg")
            if ga is not None and getattr(ga, "source", None) is not None:
                try:
                    src = module_path(ga.source.name())
                except Exception:  # noqa: BLE001 - a name only
                    src = None
            names.append(src or n.name)
        return names[: len(examples)] + [f"input{i}" for i in range(len(names), len(examples))]

    def _partition(self, entry: GraphPlan, joint, joint_inputs, num_fwd_outputs, examples, names, kw):
        from torch._functorch.partitioners import default_partition
        from torch._subclasses.fake_tensor import unset_fake_temporarily
        try:
            with unset_fake_temporarily():  # AOTAutograd partitions under its fake mode
                export, capture = self._export(joint, examples, names)
        except _NotPlannable as e:
            entry.reason = str(e)
            warnings.warn(f"ckpt_torch: graph {entry.index} not planned: {e}")
            return default_partition(joint, joint_inputs, num_fwd_outputs=num_fwd_outputs, **kw)
        decisions = plan(export.graph, self.options, self.ckpt_opt)
        kept = kept_by_plan(export, decisions)
        if self.replay_random:
            seed_dropouts(joint)
        drop_running_stat_operands(joint)
        part = choose_saved(joint, num_fwd_outputs, kept, copies_of_their_input(joint, export),
                            save_random=self.replay_random)
        fwd = forward_nodes(joint, num_fwd_outputs)
        copies = materialize_recomputation(joint, part, fwd)
        compact_partial_views(joint, part, fwd, copies)
        fw, bw = split(joint, num_fwd_outputs, part)
        entry.planned = True
        entry.budget = decisions.get("budget_resolved_from") or decisions["budget"] or "none"
        entry.budget_bytes = decisions["budget_bytes"]
        entry.scope = decisions["budget_scope"]
        entry.strategy = decisions["strategy"]
        entry.engine = decisions.get("engine", "")
        entry.objective = decisions["objective"]
        entry.no_recompute_peak = decisions["no_recompute_peak_bytes"]
        entry.predicted_peak = decisions["peak_bytes"]
        entry.plan_saved = decisions["saved_bytes"]
        entry.comparison = compare_saved(joint, export, decisions, part)
        entry.predicted_saved = entry.comparison.predicted_torch_bytes
        entry.overhead = decisions["overhead"]
        entry.recomputed = group_by_scope(part.recomputed)
        entry.forced = [f"{n.name} ({op_short_name(n)})" for n in part.forced]
        entry.saved_values = len(part.saved)
        # the last partition and joint graph, for inspection (bench, debugging)
        self.last_partition = part
        self.last_joint = joint
        return fw, bw

    def _export(self, joint, examples, names):
        from ckpt_export.capture import Capture
        from ckpt_export.export import ExportError, lower
        from ckpt_export.capture_torch2 import JointGraphError, read_joint_signature
        g = joint.graph
        try:
            sig = read_joint_signature(joint)
        except JointGraphError as e:
            raise _NotPlannable(str(e)) from e
        primals, tangents, loss, grad_of = sig.primals, sig.tangents, sig.loss, sig.grad_of
        for n in g.nodes:
            v = n.meta.get("val")
            if isinstance(v, torch.Tensor) and any(not isinstance(s, int) for s in v.shape):
                raise _NotPlannable("the graph has symbolic shapes (compile with dynamic=False)")
        roles = []
        for _, idx in primals:
            x = examples[idx]
            if isinstance(x, torch.nn.Parameter) and x.requires_grad:
                roles.append(("param", names[idx]))
            else:
                roles.append(("input", names[idx]))
        for n in g.nodes:
            if n.op == "call_function":
                from .report import node_scope
                sc = node_scope(n)
                if sc:
                    n.meta["ckpt_scope"] = sc
                if n.meta.get("stack_trace"):
                    n.meta["ckpt_stack"] = n.meta["stack_trace"]
        cap = Capture(gm=joint, param_names=[nm for r, nm in roles if r == "param"], buffer_names=[],
                      input_names=[nm for r, nm in roles if r == "input"], primal_roles=roles, loss=loss,
                      grads=[grad_of.get(idx) for _, idx in primals], tangent=tangents[0],
                      primal_nodes=[n for n, _ in primals])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # PyTorch's kernels run the loss: its four ops, not the fused
                # cross-entropy of ckpt-opt's own runtime.
                export = lower(cap, "step", fuse_cross_entropy=False)
        except (ExportError, NotImplementedError, KeyError, ValueError) as e:
            raise _NotPlannable(f"the exporter cannot lower it: {e}") from e
        return export, cap


def _inductor_compiler(g: torch.fx.GraphModule, inputs):
    """Inductor on a partitioned graph: the graph is first decomposed with
    Inductor's table (the planner reads the graph before decomposition, in
    the ops the exporter maps), then compiled."""
    from torch._guards import detect_fake_mode
    from torch._inductor.compile_fx import compile_fx_inner
    from torch._inductor.decomposition import select_decomp_table
    from torch.fx.experimental.proxy_tensor import make_fx
    mode = detect_fake_mode(inputs)
    with mode if mode is not None else _nullcontext():
        decomposed = make_fx(g, decomposition_table=select_decomp_table())(*inputs)
    return compile_fx_inner(decomposed, inputs)


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


class _NotPlannable(Exception):
    pass


def backend(budget: str = "", **options) -> CkptBackend:
    """A ``torch.compile`` backend that plans activation memory with ckpt-opt.

    ``budget``: bytes with a unit (``"8GiB"``, ``"512MiB"``; an ``int`` is
    bytes), a fraction of the no-recompute peak (``"0.5x"``; a bare number
    in a string is refused), ``"min"`` (the smallest budget the
    planner finds a plan for) or ``""`` (no budget: save everything, no
    recomputation). Options (as ``ckpt-place-checkpoints``'s):
    ``budget_scope`` (``"activations"``, default: saved activations and the
    backward's temporaries, as PyTorch users count activation memory; or
    ``"step"``), ``strategy`` (``"optimal"``), ``objective`` (``"time"`` or
    ``"flops"``), ``profile`` (``"h100-sxm"``, ``"h200"``, ...),
    ``time_limit``, ``exact_engines``; and ``compiler`` (``"eager"``: run the
    FX graphs; ``"inductor"``), ``ckpt_opt`` (the binary's path),
    ``static_shapes`` (default True: a new input shape recompiles a static
    graph).

    ``backend.report`` says, for every compiled graph, what was decided,
    predicted and, after a step, measured.
    """
    return CkptBackend(budget, **options)
