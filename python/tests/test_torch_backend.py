"""ckpt_torch: ckpt-opt's plans inside torch.compile, with PyTorch's kernels.

Runs with the pinned PyTorch 2 environment (scripts/install-torch.sh);
skipped with Debian's torch 1.13. Every test trains with real tensors on the
CPU (fp32): gradients with a plan are bit-identical to the same compiled
graph without recomputation, and equal to eager PyTorch within 1e-6; the
bytes the forward saves, measured, are what the plan predicts (within 1%)
and within the budget."""

import copy
import json
import os
import subprocess
import sys
import warnings

import pytest
import torch

pytest.importorskip("transformers")
pytest.importorskip("torchvision")

from ckpt_export.capture import torch_version  # noqa: E402
from ckpt_export.library_models import LIBRARY  # noqa: E402
from ckpt_export.saved_memory import no_dropout  # noqa: E402

pytestmark = [pytest.mark.skipif(torch_version() < (2, 1), reason="the torch.compile backend needs PyTorch 2"),
              pytest.mark.filterwarnings("ignore")]

CKPT_OPT = os.environ.get("CKPT_OPT") or os.path.join(
    os.path.dirname(__file__), "..", "..", "build", "bin", "ckpt-opt")
needs_ckpt_opt = pytest.mark.skipif(not os.path.exists(CKPT_OPT), reason="ckpt-opt is not built")

import ckpt_torch  # noqa: E402


def _model(name, dropout=0.0):
    kw = {"dropout": dropout} if name.startswith("hf:") else {}
    spec = LIBRARY[name]("tiny", **kw)
    if not dropout:
        no_dropout(spec.model)
    return spec


def _step(spec, budget, trace=None, **options):
    """One training step; returns (loss, grads, backend). A fresh compile,
    or with ``trace`` (a _OneTrace) the graph Dynamo traced once, compiled
    for this step's backend."""
    if trace is None:
        torch._dynamo.reset()
    for p in spec.model.parameters():
        p.grad = None
    torch.manual_seed(1234)
    if budget is None:
        backend, loss = None, spec.model(*spec.inputs)
    else:
        if budget == "pytorch":  # the same torch.compile graph, PyTorch's partition: no recomputation
            from functorch.compile import make_boxed_func
            from torch._dynamo.backends.common import aot_autograd
            from torch._functorch.partitioners import default_partition
            nop = lambda g, _: make_boxed_func(g.forward)  # noqa: E731
            backend = None
            compile_with = aot_autograd(fw_compiler=nop, bw_compiler=nop, partition_fn=default_partition)
        else:
            backend = compile_with = ckpt_torch.backend(budget, ckpt_opt=CKPT_OPT, time_limit=5, **options)
        if trace is None:
            loss = torch.compile(spec.model, backend=compile_with)(*spec.inputs)
        else:
            loss = trace.run(compile_with, spec.inputs)
    loss.backward()
    grads = {k: p.grad.clone() for k, p in spec.model.named_parameters() if p.grad is not None}
    return loss.detach(), grads, backend


class _OneTrace:
    """A model traced by Dynamo once and compiled by several backends, as
    torch.compile calls a backend: with Dynamo's graphs and example inputs.
    The first ``run`` compiles the model through torch.compile (Dynamo
    traces it: one graph, or several where the model's code breaks the
    graph); each later ``run`` gives those same graphs, in the order Dynamo
    made them, to another backend and runs the model again: Dynamo's guards
    still hold, so it does not trace again. Dynamo's tracing is about half
    of a compile of the corpus models; the plans, partitions and runs are
    each backend's own."""

    def __init__(self, model):
        torch._dynamo.reset()
        # The backend's Dynamo settings (logging calls skipped instead of
        # breaking the graph, static shapes) hold for the one trace, as for
        # a user who makes the backend before calling torch.compile.
        ckpt_torch.backend("", ckpt_opt=CKPT_OPT)
        self.graphs, self.compiled, self.current = [], [], None
        self.callable = torch.compile(model, backend=self._capture)

    def _capture(self, gm, example_inputs):
        index = len(self.graphs)
        self.graphs.append((gm, list(example_inputs)))
        self.compiled.append(self.current(gm, list(example_inputs)))
        return lambda *args: self.compiled[index](*args)

    def run(self, backend, inputs):
        self.current = backend
        traced = len(self.graphs)
        self.compiled = [backend(gm, list(example)) for gm, example in self.graphs]
        result = self.callable(*inputs)
        assert not traced or len(self.graphs) == traced, "Dynamo traced the model again"
        return result


def _rel(a, b):
    return ((a - b).abs().max() / b.abs().max().clamp_min(1e-30)).item()


@needs_ckpt_opt
@pytest.mark.parametrize("name", sorted(LIBRARY))
def test_library_model_at_three_budgets(name):
    """The README snippet on every corpus model at 0.8x, 0.5x and the
    smallest feasible budget."""
    spec = _model(name)
    _, eager, _ = _step(spec, None)
    trace = _OneTrace(spec.model)  # Dynamo traces once; each backend compiles its graph
    _, unplanned, _ = _step(spec, "pytorch", trace)
    _, unbudgeted, base = _step(spec, "", trace)
    # Without a budget the plan recomputes nothing (the loss is planned as
    # PyTorch runs it: log_softmax and nll_loss, not ckpt-opt's fused
    # cross-entropy), and saves what it predicts.
    e = base.report.graphs[0]
    assert e.planned and not e.recomputed, str(base.report)
    assert abs(e.measured_saved - e.predicted_saved) <= 0.01 * e.predicted_saved, str(base.report)
    assert all(torch.equal(unbudgeted[k], unplanned[k]) for k in unplanned)
    for budget in ("0.8x", "0.5x", "min"):
        _, grads, backend = _step(spec, budget, trace)
        g = backend.report.graphs
        assert len(g) == 1 and g[0].planned, str(backend.report)
        e = g[0]
        assert e.recomputed, f"{name} at {budget}: nothing recomputed"
        # gradients: bit-identical to the same graph without recomputation,
        # equal to eager PyTorch within 1e-6 relative
        assert grads.keys() == unplanned.keys() == eager.keys()
        for k in grads:
            assert torch.equal(grads[k], unplanned[k]), f"{name} {budget}: {k} differs from no recomputation"
            assert _rel(grads[k], eager[k]) <= 1e-6, f"{name} {budget}: {k} vs eager"
        # memory: measured saved bytes within the budget and the prediction
        assert e.measured_saved is not None and e.steps == 1
        assert e.measured_saved <= e.budget_bytes, (e.measured_saved, e.budget_bytes)
        assert abs(e.measured_saved - e.predicted_saved) <= 0.01 * e.predicted_saved, str(backend.report)
        # and the plan saves less than no recomputation does
        assert e.measured_saved < base.report.graphs[0].measured_saved
        text = str(backend.report)
        assert "recomputed in the backward pass (by module" in text and "measured" in text


@needs_ckpt_opt
def test_dropout_is_replayed_with_the_same_random_numbers():
    """GPT-2 with dropout 0.1: the plan recomputes dropouts, and gradients
    are bit-identical to no recomputation under the same seed. With fresh
    random numbers in the recomputation (replay_random=False, what a
    partitioner without replay does) the same comparison fails."""
    spec = _model("hf:gpt2", dropout=0.1)
    _, unplanned, _ = _step(spec, "")
    _, grads, backend = _step(spec, "0.5x")
    ops = {op for _, group, _ in backend.report.graphs[0].recomputed for op in group}
    assert "dropout" in ops, str(backend.report)
    assert all(torch.equal(grads[k], unplanned[k]) for k in grads)
    _, fresh, fresh_backend = _step(spec, "0.5x", replay_random=False)
    ops = {op for _, group, _ in fresh_backend.report.graphs[0].recomputed for op in group}
    assert "native_dropout" in ops, str(fresh_backend.report)
    assert not all(torch.equal(fresh[k], unplanned[k]) for k in fresh), \
        "recomputing dropout with fresh random numbers went unnoticed"


class _CopiedAttention(torch.nn.Module):
    """Attention whose probabilities are copied before ``att @ v`` (what a
    dropout of p=0 in training is in the graph: a ``clone``): the softmax's
    backward reads the probabilities, the matmul's reads the copy through
    ``expand`` and ``view``."""

    def __init__(self):
        super().__init__()
        self.q, self.v = torch.nn.Linear(16, 16), torch.nn.Linear(16, 16)

    def forward(self, x):
        att = torch.softmax(self.q(x) @ x.transpose(-2, -1), dim=-1).clone()
        return (att @ self.v(x)).square().sum()


@needs_ckpt_opt
def test_a_saved_view_of_a_copy_holds_no_second_buffer():
    """The exporter lowers ``clone`` as an alias (one buffer in the plan);
    PyTorch's clone is a second buffer, so the partition recomputes a copy
    the backward reads, also through views (measured on the H200, GPT-2
    saved 9 GiB more than predicted before: one attention matrix per
    layer). Measured equals predicted, gradients equal eager's."""
    torch.manual_seed(0)
    model, x = _CopiedAttention(), torch.randn(4, 32, 16)
    model(x).backward()
    eager = {k: p.grad.clone() for k, p in model.named_parameters()}
    for budget in ("", "0.9x"):
        torch._dynamo.reset()
        model.zero_grad(set_to_none=True)
        backend = ckpt_torch.backend(budget, ckpt_opt=CKPT_OPT, time_limit=5)
        torch.compile(model, backend=backend)(x).backward()
        e = backend.report.graphs[0]
        assert e.planned and e.measured_saved == e.predicted_saved, str(backend.report)
        for k, p in model.named_parameters():
            assert _rel(p.grad, eager[k]) <= 1e-6, (budget, k)


_PROBE = {}


def _probe(x):
    """Records whether the tensor behind _PROBE["ref"] is still alive."""
    _PROBE["alive"] = _PROBE["ref"]() is not None
    return x


def test_eager_graphs_free_their_inputs_early():
    """ckpt_torch.boxed_eager: the graph takes its argument list and clears
    it, so a saved tensor is freed at its last use in the backward graph
    (functorch's make_boxed_func keeps the list, and with it every saved
    tensor, until the graph returns)."""
    import weakref
    g = torch.fx.Graph()
    saved, grad = g.placeholder("saved"), g.placeholder("grad")
    first = g.call_function(torch.ops.aten.mul.Tensor, (saved, grad))
    probed = g.call_function(_probe, (first,))  # ``saved`` is dead by then
    g.output(g.call_function(torch.ops.aten.add.Tensor, (probed, 1)))
    args = [torch.ones(4), torch.full((4,), 2.0)]
    _PROBE.clear()
    _PROBE["ref"] = weakref.ref(args[0])
    out = ckpt_torch.boxed_eager(torch.fx.GraphModule(torch.nn.Module(), g))(args)
    assert args == [] and torch.equal(out, torch.full((4,), 3.0))
    assert _PROBE["alive"] is False, "the saved input lived to the end of the graph"


@needs_ckpt_opt
def test_adamw_accumulation_and_no_grad_evaluation():
    """Two optimizer steps of AdamW over two accumulated micro-batches each,
    then a torch.no_grad evaluation: parameters and evaluation losses are
    bit-identical with and without recomputation (dropout on, same seed)."""
    results = []
    for budget in ("", "0.5x"):
        torch._dynamo.reset()
        spec = _model("hf:gpt2", dropout=0.1)
        model = spec.model
        backend = ckpt_torch.backend(budget, ckpt_opt=CKPT_OPT, time_limit=5)
        compiled = torch.compile(model, backend=backend)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        ids = spec.inputs[0]
        torch.manual_seed(7)
        for _ in range(2):
            opt.zero_grad()
            for micro in (ids[:1], ids[1:]):
                (compiled(micro, micro.clone()) / 2).backward()
            opt.step()
        with torch.no_grad():
            model.eval()
            evaluation = compiled(ids, ids.clone())
            model.train()
        results.append(([p.detach().clone() for p in model.parameters()], evaluation, backend))
    (p0, e0, _), (p1, e1, b1) = results
    assert all(torch.equal(a, b) for a, b in zip(p0, p1))
    assert torch.equal(e0, e1)
    planned = [g for g in b1.report.graphs if g.planned]
    assert planned and planned[0].recomputed and planned[0].steps == 4
    assert any("no backward pass" in g.reason for g in b1.report.graphs)


@needs_ckpt_opt
def test_new_shapes_recompile_and_are_planned():
    spec = _model("hf:gpt2")
    torch._dynamo.reset()
    backend = ckpt_torch.backend("0.5x", ckpt_opt=CKPT_OPT, time_limit=5)
    compiled = torch.compile(spec.model, backend=backend)
    ids = spec.inputs[0]
    for seq in (16, 8):
        x = ids[:, :seq]
        compiled(x, x.clone()).backward()
    assert len(backend.report.graphs) == 2 and all(g.planned for g in backend.report.graphs)
    assert backend.report.graphs[1].predicted_saved < backend.report.graphs[0].predicted_saved


@needs_ckpt_opt
def test_an_impossible_budget_is_a_clear_error():
    spec = _model("hf:gpt2")
    torch._dynamo.reset()
    backend = ckpt_torch.backend("1KiB", ckpt_opt=CKPT_OPT)
    with pytest.raises(Exception) as err:
        torch.compile(spec.model, backend=backend)(*spec.inputs)
    assert "found no plan within the budget of 1.00 KiB" in str(err.value)


@needs_ckpt_opt
def test_ddp_with_two_cpu_processes():
    """DistributedDataParallel over gloo, 2 processes started by torchrun:
    each rank plans its own graph; parameters after two AdamW steps are
    bit-identical to the same run without recomputation and across ranks."""
    script = os.path.join(os.path.dirname(__file__), "ddp_train.py")
    env = dict(os.environ, CKPT_OPT=os.path.abspath(CKPT_OPT), OMP_NUM_THREADS="1",
               PYTHONPATH=os.path.join(os.path.dirname(__file__), "..") + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
                           script], capture_output=True, text=True, timeout=600, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "ddp: ranks agree, planned equals unplanned" in out, out[-4000:]


@needs_ckpt_opt
def test_inductor_compiles_the_partitioned_graphs():
    """compiler="inductor": the same partition, compiled by Inductor (its
    fusions may change the last bits: within 1e-5 of eager)."""
    spec = _model("hf:gpt2")
    _, eager, _ = _step(spec, None)
    _, grads, backend = _step(spec, "0.5x", compiler="inductor")
    e = backend.report.graphs[0]
    assert e.planned and e.recomputed
    assert abs(e.measured_saved - e.predicted_saved) <= 0.01 * e.predicted_saved
    for k in grads:
        assert _rel(grads[k], eager[k]) <= 1e-5, k


@needs_ckpt_opt
def test_gpu_check_script_smoke(tmp_path):
    """bench/gpu/torch_check.py --smoke: the prepared GPU check's code path
    on the CPU at tiny sizes (the GPU run itself needs a device)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, CKPT_OPT=os.path.abspath(CKPT_OPT))
    proc = subprocess.run([sys.executable, os.path.join(root, "bench", "gpu", "torch_check.py"), "--smoke",
                           "--models", "gpt2", "--budgets", "0.5x", "--runs", "1", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = (tmp_path / "table.md").read_text()
    rows = [ln for ln in text.splitlines() if ln.startswith("| gpt2 |")]
    assert [r.split("|")[2].strip() for r in rows] == ["none", "budget 0.5", "ckpt/block", "ckpt-opt"], text
    assert "Error" not in text, text
    # one row in a process of its own (how the GPU run isolates each method)
    proc = subprocess.run([sys.executable, os.path.join(root, "bench", "gpu", "torch_check.py"), "--smoke",
                           "--row", "gpt2", "none", "", "--runs", "0"],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    row = json.loads(proc.stdout.splitlines()[-1])
    assert row["model"] == "gpt2" and row["method"] == "none" and row["saved"] > 0 and "error" not in row, row
    # without a device the real check refuses
    if not torch.cuda.is_available():
        proc = subprocess.run([sys.executable, os.path.join(root, "bench", "gpu", "torch_check.py"),
                               "--out", str(tmp_path)], capture_output=True, text=True, timeout=120, env=env)
        assert proc.returncode == 2 and "no CUDA device" in proc.stderr


def test_peak_replay_names_the_nodes_live_at_the_peak():
    """bench/gpu/torch_peak.py (run on the GPU): replaying an allocator trace
    finds the peak, the blocks live then and the fx node of each (forward or
    backward graph, boxed or not), and what the forward left for the
    backward."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.path.insert(0, os.path.join(root, "bench", "gpu"))
    import torch_peak

    def graph(names):
        g = torch.fx.Graph()
        xs = [g.placeholder(n) for n in names]
        y = g.call_function(torch.ops.aten.mul.Tensor, (xs[0], xs[-1]))
        g.output(g.call_function(torch.ops.aten.add.Tensor, (y, 1)))
        return torch.fx.GraphModule(torch.nn.Module(), g)

    from torch.fx.graph_module import _loader
    fw = graph(["primals_1"])
    bw = graph(["saved", "tangents_1"])
    ckpt_torch.boxed_eager(bw)  # boxed code is labeled by its tangents too
    boxed = [k for k, src in _loader.eval_cache.items() if "args_list" in src and "tangents_1" in src][-1]

    def frame(gm_or_name, op):
        name = gm_or_name if isinstance(gm_or_name, str) else gm_or_name.forward.__code__.co_filename
        lines = torch_peak._source_lines(name)
        return [{"filename": "runner.py", "line": 1},
                {"filename": name, "line": next(i + 1 for i, ln in enumerate(lines) if f"aten.{op}" in ln)}]

    events = [{"action": "alloc", "addr": 1, "size": 100, "frames": frame(fw, "mul")},
              {"action": "alloc", "addr": 2, "size": 10, "frames": frame(fw, "add")},
              {"action": "free_requested", "addr": 2, "size": 10},
              {"action": "alloc", "addr": 3, "size": 50, "frames": frame(boxed, "mul")},
              {"action": "alloc", "addr": 4, "size": 7, "frames": []},
              {"action": "free_requested", "addr": 1, "size": 100},
              {"action": "alloc", "addr": 5, "size": 60, "frames": frame(bw, "add")}]
    peak, at, live = torch_peak.peak_detail(events, 1000)
    assert (peak, at) == (1157, 4)
    assert sorted(live, key=lambda b: b[0]) == [(7, None), (50, ("backward", "mul_tensor", "aten.mul")),
                                                (100, ("forward", "mul_tensor", "aten.mul"))]
    assert torch_peak.saved_at_backward(events) == {"mul_tensor (aten.mul)": 100}
    # What a warm-up step leaves allocated, by origin: a library workspace
    # by its C++ frame, a graph's block by its node.
    warm = [{"action": "alloc", "addr": 8, "size": 32,
             "frames": [{"name": "c10::cuda::CUDACachingAllocator::raw_alloc", "filename": "alloc.cpp", "line": 1},
                        {"name": "at::cuda::getCUDABlasLtWorkspace()", "filename": "CUDABlas.cpp", "line": 9}]},
            {"action": "alloc", "addr": 9, "size": 5, "frames": frame(fw, "add")},
            {"action": "free_requested", "addr": 9, "size": 5},
            {"action": "alloc", "addr": 10, "size": 6, "frames": frame(bw, "add")}]
    assert torch_peak.held_from_warmup(warm) == {"at::cuda::getCUDABlasLtWorkspace()": 32,
                                                 "backward graph: add_tensor (aten.add)": 6}
