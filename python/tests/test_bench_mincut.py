"""Tests of the light parts of bench/pytorch_mincut.py: FLOP and byte counting
on small FX graphs, one tiny capture, parsing of ckpt-opt's output (with a
stand-in executable), the budget search, the table and the arguments. The
benchmark itself (real models, the real ckpt-opt) is not run here."""

import importlib.util
import json
import os
import stat
import sys

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import pytorch_mincut as bench  # noqa: E402


def flops_by_op(gm):
    return {bench.op_name(n): bench.node_flops(n) for n in gm.graph.nodes if n.op == "call_function"}


# ----------------------------------------------------------------------------- FLOPs


def test_node_flops_matmuls_and_elementwise():
    def f(a, w, bias, x, y):
        h = torch.relu(torch.addmm(bias, a, w))            # [4,3]x[3,5] + bias
        m = torch.mm(h, h.t())                              # [4,5]x[5,4]
        return h.sum(), m, torch.bmm(x, y.transpose(1, 2))  # [2,4,6]x[2,6,7]

    gm = make_fx(f)(torch.randn(4, 3), torch.randn(3, 5), torch.randn(5), torch.randn(2, 4, 6),
                    torch.randn(2, 7, 6))
    got = flops_by_op(gm)
    assert got["addmm"] == 2 * 4 * 5 * 3 + 4 * 5
    assert got["relu"] == 4 * 5             # elementwise: numel
    assert got["sum"] == 4 * 5              # reduction: numel of its input
    assert got["mm"] == 2 * 4 * 4 * 5
    assert got["bmm"] == 2 * 2 * 4 * 7 * 6
    assert got["t"] == got["transpose"] == 0
    assert bench.graph_flops(gm) == sum(got.values())


def test_node_flops_convolutions():
    x, w, b = torch.randn(2, 3, 8, 8), torch.randn(4, 3, 3, 3), torch.randn(4)

    def f(x, w, b):
        return torch.nn.functional.conv2d(x, w, b, padding=1)

    got = flops_by_op(make_fx(f)(x, w, b))
    out = 2 * 4 * 8 * 8
    assert got["convolution"] == 2 * out * 3 * 3 * 3 + out

    # transposed: every input element meets C_out/groups x kernel weights
    wt = torch.randn(3, 5, 2, 2)
    got = flops_by_op(make_fx(lambda x, w: torch.nn.functional.conv_transpose2d(x, w, stride=2))(x, wt))
    assert got["convolution"] == 2 * x.numel() * 5 * 2 * 2

    def grad(go, x, w):
        return torch.ops.aten.convolution_backward(go, x, w, [4], [1, 1], [1, 1], [1, 1], False,
                                                   [0, 0], 1, [True, True, True])

    got = flops_by_op(make_fx(grad)(torch.randn(2, 4, 8, 8), x, w))
    assert got["convolution_backward"] == 2 * (2 * out * 27) + out


# ----------------------------------------------------------------------------- saved bytes


def test_storage_root_and_saved_bytes():
    def f(p, x):
        y = torch.relu(x)                  # 4x6 f32: 96 bytes
        a, b = torch.split(y, 3, dim=1)    # views of y
        return p.t(), y.view(24), a, b, torch.exp(x).sum()

    gm = make_fx(f)(torch.randn(3, 2), torch.randn(4, 6))
    outs = list(gm.graph.nodes)[-1].args[0]
    roots = [bench.storage_root(o).name for o in outs]
    assert roots[0] == "p_1"                       # a view of an input
    assert roots[1] == roots[2] == roots[3] == "relu"
    assert bench.saved_bytes(outs[:4]) == (96, 1)  # the input counts zero, relu once
    assert bench.saved_bytes(outs) == (100, 2)     # + the f32 scalar
    assert bench.nbytes(outs[4]) == 4


@pytest.mark.skipif(tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 1),
                    reason="bench/pytorch_mincut.py measures torch 1.13's functorch partitioner")
def test_capture_tiny_mlp():
    from functorch.compile import default_partition
    from ckpt_export.models import MODELS

    spec = MODELS["mlp32"]("tiny")  # 32 layers of width 16, batch 4, 10 classes
    p = bench.capture_partition(spec.model, spec.inputs, default_partition)
    assert p.num_fwd_outputs == 1
    stats = bench.analyze(p)
    # 32 ReLU outputs (4x16 f32), the log-softmax (4x10 f32), nll's total weight (f32)
    assert stats.saved_bytes == 32 * 4 * 16 * 4 + 4 * 10 * 4 + 4
    assert stats.saved_storages == 34
    assert stats.recomputed_ops == 0 and stats.recomputed_flops == 0
    assert stats.fw_flops > 0 and stats.bw_flops > stats.fw_flops
    names = bench.forward_node_names(p.joint, p.num_fwd_outputs)
    assert all(n.name in names for n in p.fw.graph.nodes if n.op == "call_function"
               and bench.op_name(n) in ("addmm", "relu"))
    if importlib.util.find_spec("networkx") is not None:
        from functorch.compile import min_cut_rematerialization_partition
        cut = bench.analyze(bench.capture_partition(spec.model, spec.inputs,
                                                    min_cut_rematerialization_partition))
        assert cut.saved_bytes <= stats.saved_bytes


# ----------------------------------------------------------------------------- ckpt-opt output

IR = """\
    %result_24, %mean_25, %rstd_26 = ckpt.layer_norm fwd %150 weight %arg50 bias %arg51 axis 2 eps 1.000000e-05 {ckpt.recompute} : (tensor<4x128x256xf32>, tensor<256xf32>, tensor<256xf32>) -> (tensor<4x128x256xf32>, tensor<4x128xf32>, tensor<4x128xf32>)
    %228 = ckpt.gelu fwd tanh %108 {ckpt.recompute} : tensor<4x128x1024xf32>
    %229 = ckpt.gelu fwd tanh %109 : tensor<4x128x1024xf32>
    %73 = ckpt.conv2d fwd %13, %arg21 {ckpt.recompute, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<8x32x8x8xf32>, tensor<512x32x1x1xf32>) -> tensor<8x512x8x8xf32>
    %4 = ckpt.linear fwd %3, %arg4, %arg5 {ckpt.recompute} : (tensor<512x256xf32>, tensor<768x256xf32>, tensor<768xf32>) -> tensor<512x768xf32>
    %17 = ckpt.batch_matmul fwd %15, %16 {ckpt.recompute, transpose_lhs} : tensor<16x64x128xf32>, tensor<16x64x32xf32> -> tensor<16x128x32xf32>
    %18 = ckpt.reshape %17 {ckpt.recompute} : tensor<16x128x32xf32> -> tensor<2048x32xf32>
"""


def test_recomputed_ckpt_ops_and_their_fx_flops():
    ops = bench.recomputed_ckpt_ops(IR)
    assert [o[0] for o in ops] == ["layer_norm", "gelu", "conv2d", "linear", "batch_matmul", "reshape"]
    assert ops[1][1] == ops[1][2] == [(4, 128, 1024)]
    assert ops[4][3] is True and ops[3][3] is False
    flops = [bench.ckpt_op_fx_flops(*o) for o in ops]
    assert flops == [
        4 * 128 * 256,                        # largest element count
        4 * 128 * 1024,
        2 * (8 * 512 * 8 * 8) * 32,           # 2 x outputs x C_in x 1 x 1
        2 * 512 * 768 * 256 + 512 * 768,      # 2MNK + bias
        2 * 16 * 128 * 32 * 64,               # K = lhs[-2] when transposed
        0,
    ]


def fake_ckpt_opt(tmp_path, stderr, stdout="", rc=0):
    path = tmp_path / "ckpt-opt"
    (tmp_path / "err.txt").write_text(stderr)
    (tmp_path / "out.txt").write_text(stdout)
    path.write_text(f"#!/bin/sh\ncat '{tmp_path}/out.txt'\ncat '{tmp_path}/err.txt' >&2\nexit {rc}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_run_ckpt_parses_remark_and_report(tmp_path):
    report = {"version": 1, "functions": [{
        "parameter_bytes": 1000, "input_bytes": 24, "saved_activation_bytes": 5000,
        "saved_activation_count": 7,
        "phases": {"forward": {"flops": 300, "ops": 10}, "backward": {"flops": 600, "ops": 20},
                   "optimizer": {"flops": 0, "ops": 0}}}]}
    exe = fake_ckpt_opt(tmp_path, "g.json:1:1: remark: checkpoint plan: strategy=greedy peak=9000 "
                        "(no-recompute 9900) budget=8024 recomputed-ops=3 overhead=0.0123 (flops)\n",
                        json.dumps(report))
    plan, err = bench.run_ckpt(exe, "g.json", "greedy", 0.7)
    assert err == ""
    assert plan == bench.Plan(0.7, 7000, 9000, 5000, 7, 900, 0.0123, 3, 30)

    exe = fake_ckpt_opt(tmp_path, "error: strategy 'greedy' found no plan within the budget\n", rc=1)
    plan, err = bench.run_ckpt(exe, "g.json", "greedy", 0.1)
    assert plan is None and "no plan" in err


def test_pick_strategy_falls_back_to_greedy(tmp_path):
    exe = fake_ckpt_opt(tmp_path, "error: ckpt-place-checkpoints: unknown strategy 'optimal' "
                        "(expected none, full, sqrt, selective, greedy or exact)\n", rc=1)
    used, note = bench.pick_strategy(exe, "g.json", "optimal")
    assert used == "greedy" and "optimal" in note
    exe = fake_ckpt_opt(tmp_path, "error: found no plan within the budget\n", rc=1)
    assert bench.pick_strategy(exe, "g.json", "optimal") == ("optimal", None)


# ----------------------------------------------------------------------------- budget search


def synthetic_plan(f):
    """Saved bytes grow with the budget, recompute cost falls; no plan below 0.25."""
    if f < 0.25:
        return None
    return bench.Plan(f, int(f * 1000), int(f * 1000), int(f * 1000), 1, int(2000 - 1000 * f), 0.0, 1, 1)


def test_search_budget_bisects_to_the_cheapest_fitting_plan():
    best, tried = bench.search_budget(synthetic_plan, 555, iterations=6)
    assert [p.fraction for p in tried[:5]] == [0.9, 0.8, 0.7, 0.6, 0.5]
    assert len(tried) == 5 + 6
    assert best.saved_bytes <= 555 and 0.55 - 0.1 / 64 <= best.fraction <= 0.555
    assert best.flops == min(p.flops for p in tried if p.saved_bytes <= 555)


def test_search_budget_without_a_fitting_plan():
    best, tried = bench.search_budget(synthetic_plan, 100, iterations=6)
    assert best is None
    assert [p.fraction for p in tried] == [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
    best, tried = bench.search_budget(lambda f: None, 100)
    assert best is None and tried == []


# ----------------------------------------------------------------------------- output and arguments


def test_formatting_helpers():
    assert bench.fmt_bytes(512) == "512 B"
    assert bench.fmt_bytes(1536) == "1.50 KiB"
    assert bench.fmt_bytes(40 * 2 ** 20) == "40.0 MiB"
    assert bench.fmt_bytes(200 * 2 ** 20) == "200 MiB"
    assert bench.fmt_bytes(None) == "-"
    assert bench.fmt_flops(1.5e9) == "1.50 G" and bench.fmt_flops(999) == "999"
    assert bench.fmt_percent(0.0123) == "1.23%" and bench.fmt_percent(0) == "0.00%"
    assert bench.fmt_percent(3.5e-5) == "0.0035%"


def row(compiler="nvfuser", best=True):
    plan = {"fraction": 0.8125, "budget_bytes": 3 * 2 ** 20, "saved_bytes": 2 * 2 ** 20,
            "recomputed_ops": 4, "recompute_flops": 2_000_000, "recompute_fraction": 0.02,
            "recompute_flops_fx_count": 1_000_000, "recompute_fraction_fx_count": 0.01}
    return {"model": "gpt2", "min_cut_compiler": compiler, "joint_ops": 100, "ckpt_ops": 80,
            "default_partition": {"saved_bytes": 4 * 2 ** 20},
            "min_cut": {"saved_bytes": 2 * 2 ** 20 + 1024, "recomputed_ops": 3,
                        "recomputed_flops": 1_500_000},
            "min_cut_recompute_fraction": 0.015,
            "ckpt": {"best": plan if best else None, "target_saved_bytes": 2 * 2 ** 20 + 1024,
                     "base": {"saved_bytes": 4 * 2 ** 20 + 2048}}}


def test_format_table():
    lines = bench.format_table([row()]).splitlines()
    assert len(lines) == 3
    assert lines[0].count("|") == len(bench.COLUMNS) + 1
    assert lines[1] == "|" + "---|" * len(bench.COLUMNS)
    assert lines[2] == ("| gpt2 | 100 / 80 | 4.00 MiB | 2.00 MiB | 3 / 1.50 M (1.50%) | "
                        "0.8125x (3.00 MiB) | 2.00 MiB | "
                        "4 ops: 2.00 M (2.00%); FX count 1.00 M (1.00%) |")
    lines = bench.format_table([row("nvfuser", best=False), row("inductor")]).splitlines()
    assert lines[2].startswith("| gpt2 (nvfuser) |")
    assert "| - | no plan (no recompute: 4.00 MiB, 2.00 MiB over) | - |" in lines[2]
    assert lines[3].startswith("| gpt2 (inductor) |")


def test_parse_args_default_binary(tmp_path, monkeypatch):
    (tmp_path / "build" / "bin").mkdir(parents=True)
    exe = fake_ckpt_opt(tmp_path / "build" / "bin", "")
    monkeypatch.setattr(bench, "ROOT", str(tmp_path))
    assert bench.parse_args([]).ckpt_opt == exe


def test_parse_args(tmp_path):
    exe = fake_ckpt_opt(tmp_path, "")
    a = bench.parse_args(["--ckpt-opt", exe])
    assert a.models == list(bench.MODELS) and a.strategy == "optimal"
    assert a.mincut_compiler == ["nvfuser", "inductor"] and a.iterations == 6 and a.json is None
    a = bench.parse_args(["--ckpt-opt", exe, "--models", "gpt2, mlp", "--mincut-compiler", "inductor",
                          "--strategy", "greedy", "--json", "x.json"])
    assert a.models == ["gpt2", "mlp"] and a.mincut_compiler == ["inductor"]
    assert a.strategy == "greedy" and a.json == "x.json"
    for bad in (["--models", "nope"], ["--models", ","], ["--mincut-compiler", "xla"],
                ["--iterations", "-1"], ["--ckpt-opt", str(tmp_path / "missing")]):
        with pytest.raises(SystemExit):
            bench.parse_args((["--ckpt-opt", exe] if "--ckpt-opt" not in bad else []) + bad)
