"""ckpt_export.reference: the files an end-to-end test of generated code reads."""

import json
import os
import subprocess
import sys

import pytest
import torch

from ckpt_export import bundle
from ckpt_export.interp import run as interp
from ckpt_export.reference import ReferenceError, build, write_reference

HERE = os.path.dirname(os.path.abspath(__file__))
CKPT_OPT = os.environ.get("CKPT_OPT") or os.path.join(HERE, "..", "..", "build", "bin", "ckpt-opt")


def _files(d):
    return {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))}


@pytest.mark.parametrize("model", ["gpt2", "llama", "resnet", "mlp"])
def test_reference_files_are_consistent(model, tmp_path):
    out = str(tmp_path / model)
    meta = write_reference(model, out, seed=5)
    assert sorted(os.listdir(out)) == sorted(meta["files"])
    assert meta["opaque"] == {}
    g = json.load(open(os.path.join(out, "graph.json")))
    assert not any(n["op"] == "opaque" for n in g["nodes"])
    params = bundle.read(os.path.join(out, "params.ckptb"))
    inputs = bundle.read(os.path.join(out, "inputs.ckptb"))
    ref = bundle.read(os.path.join(out, "reference.ckptb"))
    # Keys: the graph inputs' names, in graph order; the seed input is 1.0.
    assert [t.name for t in params] == [d["name"] for d in g["inputs"] if d["role"] == "param"]
    assert [t.name for t in inputs] == [d["name"] for d in g["inputs"] if d["role"] != "param"]
    decl = {d["name"]: d for d in g["inputs"]}
    for t in params + inputs:
        assert list(t.shape) == decl[t.name]["shape"] and t.dtype == decl[t.name]["dtype"], t.name
    seed = [d for d in g["inputs"] if d["role"] == "seed"]
    assert len(seed) == 1 and meta["loss_seed"]["name"] == seed[0]["name"] == "seed"
    assert bundle.to_torch(next(t for t in inputs if t.name == "seed")).item() == 1.0
    names = {d["id"]: d["name"] for d in g["inputs"]}
    want = ["loss"] + ["grad:" + names[o["grad_of"]] for o in g["outputs"] if o["role"] == "grad"]
    assert [t.name for t in ref] == want
    # The parameters are the model built from the same seed.
    spec = build(model, seed=5)
    ps = dict(spec.model.named_parameters())
    for t in params:
        assert torch.equal(bundle.to_torch(t), ps[t.name].detach()), t.name
    # The graph, run by the reference interpreter on the bundles, gives the
    # reference loss and gradients (float32 rounding aside).
    ins = {t.name: bundle.to_torch(t) for t in params + inputs}
    env = interp(g, ins, seed=1.0)
    refs = {t.name: bundle.to_torch(t) for t in ref}
    for o in g["outputs"]:
        key = "loss" if o["role"] == "loss" else "grad:" + names[o["grad_of"]]
        a, b = env[o["value"]], refs[key]
        assert a.shape == b.shape and a.dtype == b.dtype, key
        assert (a - b).norm() <= 1e-4 * b.norm() + 1e-6, key
    # Deterministic: the same call writes the same bytes.
    again = str(tmp_path / (model + "-again"))
    write_reference(model, again, seed=5)
    assert _files(out) == _files(again)


def test_seed_changes_weights_and_inputs(tmp_path):
    write_reference("mlp", str(tmp_path / "a"), seed=1)
    write_reference("mlp", str(tmp_path / "b"), seed=2)
    for f in ("params.ckptb", "inputs.ckptb", "reference.ckptb"):
        assert _files(str(tmp_path / "a"))[f] != _files(str(tmp_path / "b"))[f]


def test_dropout_writes_no_reference(tmp_path):
    meta = write_reference("gpt2", str(tmp_path), seed=0, dropout=0.1)
    assert "reference.ckptb" not in meta["files"]
    assert not os.path.exists(tmp_path / "reference.ckptb")
    g = json.load(open(tmp_path / "graph.json"))
    drop = [n for n in g["nodes"] if n["op"] == "dropout"]
    assert drop and all(abs(n["attrs"]["p"] - 0.1) < 1e-12 for n in drop)
    assert meta["opaque"] == {}


def test_errors():
    with pytest.raises(ReferenceError, match="no dropout layers"):
        build("llama", dropout=0.1)
    with pytest.raises(ReferenceError, match="unknown model"):
        build("vgg")
    with pytest.raises(ReferenceError, match="dropout must be in"):
        build("gpt2", dropout=1.0)


def test_opaque_graphs_are_refused(tmp_path, monkeypatch):
    # No corpus model has opaque ops any more: unmap ReLU6 (hardtanh, which
    # lowers to ckpt.clamp) to get some.
    from ckpt_export.export import _Lowering
    monkeypatch.delattr(_Lowering, "op_hardtanh_default")
    monkeypatch.delattr(_Lowering, "op_hardtanh_backward_default")
    with pytest.raises(ReferenceError, match="hardtanh"):
        write_reference("mobilenet_v2", str(tmp_path / "m"))
    meta = write_reference("mobilenet_v2", str(tmp_path / "m2"), allow_opaque=True)
    assert set(meta["opaque"]) == {"aten.hardtanh.default", "aten.hardtanh_backward.default"}


def test_cli(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, ".."))
    r = subprocess.run([sys.executable, "-m", "ckpt_export.reference", "--model", "gpt2", "--seed", "3",
                        "--dropout", "0", "--hidden", "48", "--heads", "3", "--out", str(tmp_path)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    meta = json.load(open(tmp_path / "meta.json"))
    assert meta["config"]["hidden"] == 48 and meta["config"]["heads"] == 3 and meta["seed"] == 3
    assert os.path.exists(tmp_path / "reference.ckptb")
    r = subprocess.run([sys.executable, "-m", "ckpt_export.reference", "--model", "llama", "--dropout", "0.1",
                        "--out", str(tmp_path / "x")], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "no dropout layers" in r.stderr


@pytest.mark.skipif(not os.environ.get("CKPT_OPT") and not os.path.exists(CKPT_OPT),
                    reason="ckpt-opt not built")
def test_ckpt_opt_names_arguments_like_the_bundles(tmp_path):
    """ckpt-opt's step arguments carry the bundle keys as their NameLoc."""
    write_reference("llama", str(tmp_path))
    r = subprocess.run([CKPT_OPT, str(tmp_path / "graph.json"), "-mlir-print-debuginfo"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    names = [t.name for t in bundle.read(tmp_path / "params.ckptb") + bundle.read(tmp_path / "inputs.ckptb")]
    for name in names:
        assert f'loc("{name}"' in r.stdout, name
    assert "ckpt.fill" in r.stdout and "ckpt.opaque" not in r.stdout
