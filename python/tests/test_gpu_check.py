"""Tests of the non-GPU parts of bench/gpu/gpu_check.py (docs/gpu.md): the
argument handling, the table from a saved results file, the error
comparison, and run.sh's refusal without a prepared directory. The GPU run
itself is not exercised here (no device in CI)."""

import argparse
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "bench", "gpu", "gpu_check.py")
SAVED = os.path.join(ROOT, "bench", "gpu", "testdata", "results.json")

spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
gpu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpu_check)


def load_saved():
    with open(SAVED) as f:
        return json.load(f)


def table_rows(text):
    return [line for line in text.splitlines() if line.startswith("| ")]


def test_table_from_saved_results(tmp_path, capsys):
    assert gpu_check.main(["table", SAVED, "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    with open(tmp_path / "table.md") as f:
        assert f.read() == printed
    assert "NVIDIA H200 (saved example" in printed
    assert "12 layers, hidden 768, batch 16, seq 1024, f32" in printed
    rows = {tuple(c.strip() for c in r.strip("|").split("|")[:3]): r for r in table_rows(printed)}
    # ckpt-opt's own no-recompute run is its baseline: ratios 1.
    none = rows[("ckpt-opt", "none", "1.0x")]
    assert "| 40.00 | 1.00 | 500.0 | 1.000 | 1.000 | 1.000 |" in none
    # 0.5x: half the memory, 1.2x the time, predicted 1.15 -> 1.15 / 1.2.
    opt = rows[("ckpt-opt", "optimal", "0.5x")]
    assert "| 20.00 | 0.50 | 600.0 | 1.200 | 1.150 | 0.958 |" in opt
    # PyTorch against its own eager run, with no prediction.
    ckpt = rows[("pytorch-eager", "checkpoint-every-block", "-")]
    assert "| 10.00 | 0.33 | 520.0 | 1.300 | - | - |" in ckpt
    # A failed cell says why.
    assert "no plan within the budget" in rows[("ckpt-opt", "optimal", "0.3x")]
    # Fixed strategies: the smallest budget their arena meets (of the none
    # arena 40e9: 11e9 <= 0.3x; 40e9 + 1 meets none).
    assert "| ckpt-opt | full | - (fits 0.3x) | 10.00 | 0.25 | 700.0 | 1.400 | 1.300 | 0.929 |" in printed
    assert "| ckpt-opt | selective | - (fits none) |" in printed
    # Correctness: errors and the verdict.
    assert "| gpt2-none | 3.10e-06 | 4.20e-06 | yes |" in printed
    assert "| gpt2-optimal-0.5x | - | - | NO: ckpt-run-cuda: CUDA error |" in printed
    assert "tolerance 0.0001" in printed


def test_table_without_a_baseline_prints_dashes():
    results = load_saved()
    results["rows"] = [r for r in results["rows"] if r["strategy"] != "none"]
    text = gpu_check.format_table(results)
    opt = next(r for r in table_rows(text) if "| optimal |" in r)
    assert "| 20.00 | - | 600.0 | - | 1.150 | - |" in opt


def test_table_rejects_incomplete_results(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"device": "x", "rows": []}))
    assert gpu_check.main(["table", str(bad)]) == 2
    assert "the results have no 'model'" in capsys.readouterr().err
    assert gpu_check.main(["table", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_arguments():
    assert gpu_check.parse_budget("0.5x") == 0.5
    for bad in ("0.5", "x", "0x", "5x", "-1x"):
        with pytest.raises(gpu_check.CheckError):
            gpu_check.parse_budget(bad)
    model = gpu_check.parse_model("batch=8,seq=512")
    assert model == dict(gpu_check.PERF_MODEL, batch=8, seq=512)
    assert gpu_check.parse_model("") == gpu_check.PERF_MODEL
    for bad in ("batch=0", "depth=3", "batch", "heads=5"):
        with pytest.raises(gpu_check.CheckError):
            gpu_check.parse_model(bad)
    assert gpu_check.parse_list("full, optimal", ("full", "optimal")) == ["full", "optimal"]
    with pytest.raises(gpu_check.CheckError):
        gpu_check.parse_list("chain", ("full", "optimal"))


@pytest.mark.parametrize("argv,message", [
    (["prepare", "--budgets", "0.5"], "bad budget '0.5'"),
    (["prepare", "--strategies", "chain"], "unknown 'chain'"),
    (["prepare", "--model", "batch=0"], "bad model setting 'batch=0'"),
    (["run", "--out", "x"], "--bin"),
    (["run", "--bin", "b", "--out", "x", "--steps", "0"], "--steps >= 1"),
    ([], "required"),
])
def test_usage_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        gpu_check.main(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_compare_reports_the_worst_tensor_and_missing_ones():
    ours = {"loss": np.array([1.0]), "grad:a": np.array([1.0, 2.0]), "extra": np.array([0.0])}
    theirs = {"loss": np.array([1.0]), "grad:a": np.array([1.0, 2.2]), "grad:b": np.array([3.0])}
    c = gpu_check.compare(ours, theirs)
    assert c["compared"] == 2 and c["missing"] == ["grad:b"]
    assert c["worst_tensor"] == "grad:a"
    assert c["worst"] == pytest.approx(0.2 / np.linalg.norm([1.0, 2.2]))
    assert gpu_check.rel_error([0.0], [0.0]) == 0.0
    assert gpu_check.rel_error([np.nan], [1.0]) == float("inf")


def test_run_sh_needs_a_prepared_directory(tmp_path):
    # A copy of bench/gpu without prepared/: run.sh stops before building.
    root = tmp_path / "tree"
    (root / "bench" / "gpu").mkdir(parents=True)
    for name in ("run.sh", "gpu_check.py"):
        with open(os.path.join(ROOT, "bench", "gpu", name)) as f:
            (root / "bench" / "gpu" / name).write_text(f.read())
    r = subprocess.run(["bash", str(root / "bench" / "gpu" / "run.sh")], capture_output=True, text=True,
                       env=dict(os.environ, OUT=str(tmp_path / "out")))
    assert r.returncode == 2
    assert "run bash bench/gpu/prepare.sh here first" in r.stderr
    assert not (tmp_path / "out").exists()


def test_gpu_side_modules_load_without_the_package(tmp_path):
    # The GPU machine's torch 2.x never imports the exporter: bundle and models
    # load from their files, and the PyTorch model's weights round-trip
    # through a bundle under the names the exporter gives graph inputs.
    cfg = dict(layers=1, hidden=8, heads=2, vocab=11, seq=4, batch=1)
    path = tmp_path / "params.ckptb"
    gpu_check.write_perf_params(str(path), cfg)
    arrays = gpu_check._bundle_arrays(str(path))
    assert "wte.weight" in arrays and "h.0.attn.c_attn.weight" in arrays
    assert arrays["wte.weight"].shape == (11, 8)
    model = gpu_check._torch_model(cfg)
    assert np.array_equal(arrays["wte.weight"], model.wte.weight.detach().numpy())


def _fake_runner(path, body):
    """A stand-in for a linked step binary (a Python script)."""
    path.write_text("#!" + sys.executable + "\nimport json, shutil, sys\n"
                    "args = dict(zip(sys.argv[1::2], sys.argv[2::2]))\n" + body)
    path.chmod(0o755)


def test_run_plumbing_with_stand_in_binaries(tmp_path):
    # run_correctness and run_ckpt_perf with binaries that copy a bundle and
    # write stats: the commands they build, the comparison and the rows.
    bundle = gpu_check._module("bundle")
    prep, bins, out = tmp_path / "prep", tmp_path / "bin", tmp_path / "out"
    for d in (prep, bins, out):
        d.mkdir()
    t = lambda name, values: bundle.BundleTensor(name, "f32", (len(values),),
                                                 np.asarray(values, np.float32).tobytes())
    bundle.write(str(prep / "host.ckptb"), [t("loss", [2.0]), t("grad:w", [1.0, 2.0])])
    bundle.write(str(prep / "ref.ckptb"), [t("loss", [2.0]), t("grad:w", [1.0, 2.5])])
    for name in ("p.ckptb", "i.ckptb"):
        (prep / name).write_bytes(b"")
    manifest = {"correctness": [{"name": "m-none", "params": "p.ckptb", "inputs": "i.ckptb",
                                 "host": "host.ckptb", "reference": "ref.ckptb"}],
                "perf": {"inputs": "i.ckptb", "cases": [
                    {"ok": True, "tag": "none", "strategy": "none", "budget": "-", "arena_bytes": 100,
                     "predicted_overhead": 0.0},
                    {"ok": False, "tag": "optimal-0.3x", "strategy": "optimal", "budget": "0.3x",
                     "error": "no plan"}]}}
    _fake_runner(bins / "m-none", f"shutil.copy({str(prep / 'host.ckptb')!r}, args['--dump'])\n")
    _fake_runner(bins / "perf-none",
                 "assert args['--steps'] == '3' and '--tf32' in sys.argv\n"
                 "json.dump({'runtime': {'device_bytes_used': 900, 'device_bytes_baseline': 100,"
                 " 'median_step_seconds': 0.25}}, open(args['--stats-json'], 'w'))\n")
    a = argparse.Namespace(prepared=str(prep), bin=str(bins), out=str(out), tol=0.3, warmup=1,
                           steps=3, tf32=True, timeout=60)
    rows = gpu_check.run_correctness(a, manifest)
    assert rows[0]["ok"] and rows[0]["vs_host"]["worst"] == 0.0
    assert rows[0]["vs_torch"]["worst_tensor"] == "grad:w"
    a.tol = 1e-4  # the PyTorch gradient differs by 0.5 / |(1, 2.5)|: now a failure
    assert not gpu_check.run_correctness(a, manifest)[0]["ok"]
    perf = gpu_check.run_ckpt_perf(a, manifest, str(prep / "p.ckptb"))
    assert perf[0] == {"system": "ckpt-opt", "strategy": "none", "budget": "-", "peak_bytes": 800,
                       "arena_bytes": 100, "median_s": 0.25, "predicted_overhead": 0.0}
    assert perf[1]["error"] == "no plan"
    # A missing binary (a step that did not link) is a row with an error.
    (bins / "perf-none").unlink()
    assert "not found" in gpu_check.run_ckpt_perf(a, manifest, "p")[0]["error"]


@pytest.mark.parametrize("variant", ["none", "checkpoint-every-block"])
def test_torch_forward_variants_compute_the_model(variant):
    # The PyTorch side's forward (with checkpointing applied per block) is the
    # exported model's forward: same loss and gradients, on the CPU here.
    import torch
    import torch.utils.checkpoint as cp
    cfg = dict(layers=2, hidden=8, heads=2, vocab=13, seq=6, batch=2)
    g = torch.Generator().manual_seed(3)
    idx = torch.randint(0, 13, (2, 6), generator=g)
    tgt = torch.randint(0, 13, (2, 6), generator=g)
    ref = gpu_check._torch_model(cfg)
    ref(idx, tgt).backward()
    model = gpu_check._torch_model(cfg)
    loss = gpu_check._torch_forward(model, variant, cp)(idx, tgt)
    loss.backward()
    assert torch.allclose(loss, ref(idx, tgt))
    for (n, p), (_, q) in zip(model.named_parameters(), ref.named_parameters()):
        assert torch.allclose(p.grad, q.grad, atol=1e-6), n


def test_offload_arguments_and_summary():
    assert gpu_check.parse_offload("pcie-gen5@0.3x, nvlink-c2c@0.2x") == [
        ("pcie-gen5", "0.3x"), ("nvlink-c2c", "0.2x")]
    assert gpu_check.parse_offload("") == []
    for bad in ("pcie-gen5", "pcie-gen9@0.3x", "nvlink-c2c@0.3"):
        with pytest.raises(gpu_check.CheckError):
            gpu_check.parse_offload(bad)
    # What placement prints of a plan with copies (PlaceCheckpoints.cpp).
    line = ("ckpt-opt: ckpt-place-checkpoints: @gpt2: budget 1.00 GiB (1073741824 bytes) in "
            "budget-scope=step; device peak 1.00 GiB (1073741000 bytes, 0.300x of the no-recompute "
            "peak); offloads 12 values over pcie-gen5: 1.50 GiB to the host and 1.50 GiB back, host "
            "peak 1.50 GiB (1610612736 bytes); recomputes 3 ops; step time 4.5% over the plain step "
            "(4.0% recomputation, 0.5% exposed copies); the copies take 30.250 ms to the host and "
            "29.125 ms back")
    m = gpu_check.OFFLOAD_SUMMARY.search(line)
    assert m and m.group(1) == "12" and m.group(2) == "pcie-gen5"
    assert (float(m.group(3)), float(m.group(4)), float(m.group(5))) == (4.5, 30.25, 29.125)


def test_table_lists_copy_times_of_offload_plans():
    results = load_saved()
    row = next(r for r in results["rows"] if r["strategy"] == "optimal" and r["budget"] == "0.5x")
    offload = dict(row, strategy="optimal+offload(pcie-gen5)", budget="0.3x")
    offload["copies"] = {"link": "pcie-gen5", "offloads": 12, "bytes_to_host": 3 << 30,
                         "host_peak_bytes": 3 << 30, "predicted_to_host_ms": 60.5,
                         "predicted_to_device_ms": 58.25, "measured_to_host_ms": 70.0,
                         "measured_to_device_ms": None}
    results["rows"].append(offload)
    text = gpu_check.format_table(results)
    assert ("| optimal+offload(pcie-gen5) | 0.3x | 12 | 3.00 | 60.50 | 70.00 | 58.25 | - |"
            in text)
