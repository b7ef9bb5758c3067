#!/usr/bin/env python3
"""The prepared H200 check of the CUDA backend (issue 8, docs/gpu.md).

Three stages, one subcommand each:

``prepare`` (here, where ckpt-opt and ckpt-run are built; Debian's
``/usr/bin/python3`` with torch 1.13)
    exports the models, plans them with ckpt-opt and writes the generated CUDA
    steps (``--emit=cuda``), the host backend's results and the PyTorch
    reference into a directory (default ``bench/gpu/prepared``) with a
    ``manifest.json``. The GPU machine needs no MLIR: only this directory, the
    runtime sources and nvcc.

``run`` (on the GPU machine, any Python with torch 2.x; ``bench/gpu/run.sh``
builds the runtime and the step binaries first)
    1. correctness: each small step's loss and gradients on the device against
       the host backend and PyTorch autograd on the same weights;
    2. ckpt-opt: peak device memory and median step time of the GPT-2 style
       graph at every prepared strategy and budget;
    3. PyTorch eager on the same model and shapes: no checkpointing,
       ``torch.utils.checkpoint`` on every block, selective activation
       checkpointing (torch >= 2.4) and the compiler's activation memory budget
       (``torch._functorch.config.activation_memory_budget``, torch >= 2.4);
    writes ``results.json`` and the table (``table.md``) under ``--out``.

``table``
    formats a saved ``results.json`` (what CI tests without a GPU).

Tolerances: every graph is f32 and the device runs f32 GEMMs without TF32, so
the device's loss and gradients must match the host backend and PyTorch to a
relative error (``||a - b|| / ||b||`` per tensor) below ``--tol`` (default
1e-4; the orders of the reductions differ, the arithmetic does not). A bf16
step would be judged at 2e-2 (8 bits of mantissa); the exporter writes f32
graphs only, so none is prepared.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

#: The GPT-2 style graph measured for the table (12 layers, GPT-2 small
#: widths; batch and sequence sized for an H200's 141 GB).
PERF_MODEL = dict(layers=12, hidden=768, heads=12, vocab=50257, seq=1024, batch=32)
STRATEGIES = ("optimal", "selective", "full")
#: Strategies that take a budget; the others give one plan whatever the
#: budget and are prepared once (the table says which budgets they meet).
BUDGETED = ("optimal", "greedy")
BUDGETS = ("1.0x", "0.7x", "0.5x", "0.3x")
#: Small models checked for correctness: (model, reference.py overrides).
CORRECTNESS = (("gpt2", dict(layers=2, seq=32, batch=4)), ("llama", {}), ("mlp", {}))
DEFAULT_TOL = 1e-4
#: Offload plans prepared (LINK@BUDGET): an H200 SXM reaches the host over
#: PCIe Gen5 x16.
OFFLOAD = "pcie-gen5@0.3x"
GIB = float(1 << 30)



def _module(name: str):
    """python/ckpt_export/<name>.py loaded on its own: the GPU side needs only
    `bundle` and `models`, which import nothing of the package, whose
    exporter is written against torch 1.13."""
    import importlib.util
    key = "_gpu_check_" + name
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            key, os.path.join(ROOT, "python", "ckpt_export", name + ".py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


class CheckError(Exception):
    """A problem with the arguments or the inputs (exit status 2)."""


def parse_budget(text: str) -> float:
    """`0.5x` -> 0.5; a budget is a positive fraction of the no-recompute peak."""
    m = re.fullmatch(r"([0-9]*\.?[0-9]+)x", text.strip())
    if not m or not 0 < float(m.group(1)) <= 4:
        raise CheckError(f"bad budget {text!r}: expected a fraction like 0.5x in (0, 4]")
    return float(m.group(1))


def parse_list(text: str, allowed: Optional[tuple] = None) -> List[str]:
    items = [s.strip() for s in text.split(",") if s.strip()]
    if not items:
        raise CheckError("empty list")
    if allowed is not None:
        bad = [s for s in items if s not in allowed]
        if bad:
            raise CheckError(f"unknown {bad[0]!r}: expected some of {', '.join(allowed)}")
    return items


def parse_offload(text: str) -> List[tuple]:
    """`pcie-gen5@0.3x,nvlink-c2c@0.2x` -> [(link, budget), ...]."""
    pairs = []
    for item in parse_list(text) if text else []:
        link, sep, budget = item.partition("@")
        if not sep or link not in ("pcie-gen4", "pcie-gen5", "nvlink-c2c"):
            raise CheckError(f"--offload: expected LINK@BUDGET with LINK one of pcie-gen4, "
                             f"pcie-gen5, nvlink-c2c, got '{item}'")
        parse_budget(budget)
        pairs.append((link, budget))
    return pairs


def parse_model(text: str) -> Dict[str, int]:
    """`layers=12,batch=16` overrides of PERF_MODEL."""
    model = dict(PERF_MODEL)
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep or key not in model or not value.isdigit() or int(value) <= 0:
            raise CheckError(f"bad model setting {item!r}: expected one of "
                             f"{', '.join(model)} = a positive integer")
        model[key] = int(value)
    if model["hidden"] % model["heads"]:
        raise CheckError("hidden must be a multiple of heads")
    return model


# ---------------------------------------------------------------------------
# prepare (here)
# ---------------------------------------------------------------------------


def _run(cmd: List[str], timeout: Optional[float] = None, **kw) -> subprocess.CompletedProcess:
    """Runs `cmd`; a missing executable or a timeout is a failed run (status
    127 / 124 and a message on stderr), never an exception."""
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=timeout, **kw)
    except FileNotFoundError:
        return subprocess.CompletedProcess(cmd, 127, "", f"{cmd[0]}: not found (did it link?)")
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, 124, "", f"{cmd[0]}: timed out after {timeout:g} s")


def _pipeline(strategy: str, budget: Optional[str], report: Optional[str] = None,
              offload: Optional[str] = None, scope: str = "step") -> str:
    """Placement and memory plan on the H200 cost model, with the CUDA
    runtime's cuBLASLt scratch counted in the peak, the budget and the arena
    (`device-workspace=cuda`; the host program carries the same reservation
    unused, so both backends run one plan); with `report`, the cost report
    (JSON) of the planned step is written there; with `offload`, a host link
    the plan may copy saved activations over (ckpt-report does not describe
    copies: no report then); `scope`: the budget's scope."""
    opts = [f"strategy={strategy}", "plan-memory", "verify-plan", "profile=h200",
            "device-workspace=cuda", f"budget-scope={scope}"]
    if budget and strategy != "none":
        opts.insert(0, f"budget={budget}")
    if offload:
        opts.append(f"offload={offload}")
        report = None
    text = "builtin.module(ckpt-pipeline{" + " ".join(opts) + "}"
    if report:
        text += ",ckpt-report{json profile=h200 output=" + report + "}"
    return text + ")"


def predicted_seconds(report: Dict[str, Any]) -> float:
    """The cost model's time of the (one) step of a ckpt-report JSON: the sum
    over its phases (recomputation is in them)."""
    functions = report.get("functions") or []
    if len(functions) != 1:
        raise CheckError(f"expected one function in the report, got {len(functions)}")
    return sum(p["seconds"] for p in functions[0]["phases"].values())


#: What placement says of a plan with copies (its summary remark).
OFFLOAD_SUMMARY = re.compile(
    r"offloads (\d+) values over ([a-z0-9-]+): .* step time ([0-9.]+)% over the plain step .*"
    r"the copies take ([0-9.]+) ms to the host and ([0-9.]+) ms back")


def _emit(ckpt_opt: str, graph: str, strategy: str, budget: Optional[str], out: str,
          offload: Optional[str] = None, scope: str = "step") -> Dict[str, Any]:
    report = out + ".report.json"
    r = _run([ckpt_opt, graph,
              "--pass-pipeline=" + _pipeline(strategy, budget, report, offload, scope),
              "--emit=cuda", "-o", out])
    if r.returncode != 0:
        return {"ok": False, "error": (r.stderr.strip().splitlines() or ["failed"])[0]}
    plans = [f for f in os.listdir(out) if f.endswith(".plan.json")]
    with open(os.path.join(out, plans[0])) as f:
        plan = json.load(f)
    e = {"ok": True, "stem": plans[0][: -len(".plan.json")], "arena_bytes": plan["arena_bytes"],
         "planned_peak_bytes": plan["planned_peak_bytes"],
         "recomputed_ops": plan["counts"]["recomputed_ops"]}
    if not offload:
        with open(report) as f:
            e["predicted_seconds"] = predicted_seconds(json.load(f))
        return e
    # The offload model's figures (remat::evaluateOffloadSchedule), from the
    # summary; a plan without copies says nothing of them.
    e["offload"] = offload
    host = plan.get("host") or {}
    e["offloads"] = host.get("offloads", 0)
    e["host_arena_bytes"] = host.get("arena_bytes", 0)
    m = OFFLOAD_SUMMARY.search(r.stderr)
    if m:
        e["predicted_overhead"] = float(m.group(3)) / 100
        e["predicted_to_host_ms"] = float(m.group(4))
        e["predicted_to_device_ms"] = float(m.group(5))
    return e


def prepare(a) -> int:
    from ckpt_export import bundle, models, reference
    from ckpt_export.export import export
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    manifest: Dict[str, Any] = {"version": 1, "correctness": [], "perf": {}}
    for model, overrides in CORRECTNESS:
        d = os.path.join(out, "correct", model)
        meta = reference.write_reference(model, d, seed=0, dropout=0.0, **overrides)
        # Without and with recomputation (full: feasible at any size), and
        # for GPT-2 with copies to the host (the host backend runs the same
        # plan, its copies as memcpy) under 0.4x of the activations (in the
        # whole step, the 32 MiB device scratch leaves a small model no room).
        cases = [("none", None, None), ("full", None, None)]
        if model == "gpt2" and a.offload:
            cases.append(("optimal", "0.4x", a.offload[0][0]))
        for strategy, budget, offload in cases:
            tag = f"{strategy}" + (f"-{budget}" if budget else "") + (
                f"-offload-{offload}" if offload else "")
            step = os.path.join(d, tag)
            scope = "activations" if offload else "step"
            e = _emit(a.ckpt_opt, os.path.join(d, "graph.json"), strategy, budget, step, offload,
                      scope)
            if not e["ok"]:
                raise CheckError(f"{model} {tag}: {e['error']}")
            if offload and not e["offloads"]:
                raise CheckError(f"{model} {tag}: the plan copies nothing; pick another budget")
            host = os.path.join(d, tag + ".host.ckptb")
            # The host backend on the same weights: ckpt-run needs the C++ step.
            cpp = step + ".cpp"
            _emit_cpp = _run([a.ckpt_opt, os.path.join(d, "graph.json"), "--pass-pipeline=" +
                              _pipeline(strategy, budget, None, offload, scope), "--emit=cpp",
                              "-o", cpp])
            if _emit_cpp.returncode != 0:
                raise CheckError(f"{model} {tag}: --emit=cpp failed: {_emit_cpp.stderr.strip()}")
            r = _run([a.ckpt_run, cpp, "--params", os.path.join(d, "params.ckptb"),
                      "--inputs", os.path.join(d, "inputs.ckptb"), "--steps", "1", "--dump", host])
            if r.returncode != 0:
                raise CheckError(f"{model} {tag}: ckpt-run failed: {r.stderr.strip()}")
            shutil.rmtree(cpp)  # the host step and ckpt-run's cache: not needed on the GPU
            # The references must agree before the device is judged by them.
            agree = compare(_bundle_arrays(host), _bundle_arrays(os.path.join(d, "reference.ckptb")))
            if agree["missing"] or agree["worst"] >= DEFAULT_TOL:
                raise CheckError(f"{model} {tag}: the host backend and PyTorch disagree: {agree}")
            manifest["correctness"].append({
                "name": f"{model}-{tag}", "step_dir": os.path.relpath(step, out), "stem": e["stem"],
                "params": os.path.relpath(os.path.join(d, "params.ckptb"), out),
                "inputs": os.path.relpath(os.path.join(d, "inputs.ckptb"), out),
                "host": os.path.relpath(host, out),
                "reference": os.path.relpath(os.path.join(d, "reference.ckptb"), out),
                "host_vs_torch": agree["worst"], "config": meta["config"]})
    # The GPT-2 style graph for the table: graph and inputs only (the weights
    # are drawn on the GPU machine from the same PyTorch model).
    cfg = a.model
    perf = os.path.join(out, "perf")
    os.makedirs(perf, exist_ok=True)
    spec = models.make_gpt2("full", **dict(cfg, dropout=0.0))
    res = export(spec.model, spec.inputs, name="gpt2")
    graph = os.path.join(perf, "graph.json")
    res.dump(graph)
    tensors = reference.input_tensors(spec, res)
    bundle.write_torch(os.path.join(perf, "inputs.ckptb"), tensors["input"])
    cases = []
    specs: List[tuple] = [("none", None)]
    for strategy in a.strategies:
        specs += [(strategy, b) for b in a.budgets] if strategy in BUDGETED else [(strategy, None)]
    specs = [(s, b, None) for s, b in specs] + [("optimal", b, link) for link, b in a.offload]
    for strategy, budget, offload in specs:
        tag = strategy + (f"-{budget}" if budget else "") + (f"-offload-{offload}" if offload else "")
        e = _emit(a.ckpt_opt, graph, strategy, budget, os.path.join(perf, tag), offload)
        e.update({"strategy": strategy + (f"+offload({offload})" if offload else ""),
                  "budget": budget or "-", "tag": tag, "step_dir": os.path.join("perf", tag)})
        if not cases and not e["ok"]:
            raise CheckError(f"the no-recompute step failed: {e['error']}")
        if e["ok"] and "predicted_seconds" in e:
            base = e if not cases else cases[0]
            e["predicted_overhead"] = e["predicted_seconds"] / base["predicted_seconds"] - 1
        cases.append(e)
        print(f"prepared {tag}: " + (f"arena {e['arena_bytes'] / GIB:.2f} GiB, predicted overhead "
                                      f"{e.get('predicted_overhead', float('nan')):.3f}"
                                      if e["ok"] else e["error"]))
    manifest["perf"] = {"model": cfg, "graph": "perf/graph.json", "inputs": "perf/inputs.ckptb",
                        "budgets": a.budgets, "cases": cases}
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{out}/manifest.json: {len(manifest['correctness'])} correctness steps, {len(cases)} perf steps")
    return 0


# ---------------------------------------------------------------------------
# run (on the GPU)
# ---------------------------------------------------------------------------


def rel_error(a, b) -> float:
    import numpy as np
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    err = float(np.linalg.norm(a - b)) / (float(np.linalg.norm(b)) or 1.0)
    return err if math.isfinite(err) else float("inf")


def compare(ours: Dict[str, Any], theirs: Dict[str, Any]) -> Dict[str, Any]:
    """Worst relative error over the tensors both bundles have (numpy arrays
    by name); missing names are listed."""
    common = sorted(set(ours) & set(theirs))
    worst, name = 0.0, ""
    for n in common:
        e = rel_error(ours[n], theirs[n])
        if e >= worst:
            worst, name = e, n
    return {"compared": len(common), "missing": sorted(set(theirs) - set(ours))[:5],
            "worst": worst, "worst_tensor": name}


def _bundle_arrays(path: str) -> Dict[str, Any]:
    bundle = _module("bundle")
    return {t.name: bundle.to_numpy(t) for t in bundle.read(path)}


def run_correctness(a, manifest) -> List[Dict[str, Any]]:
    rows = []
    for c in manifest["correctness"]:
        exe = os.path.join(a.bin, c["name"])
        dump = os.path.join(a.out, c["name"] + ".device.ckptb")
        r = _run([exe, "--params", os.path.join(a.prepared, c["params"]),
                  "--inputs", os.path.join(a.prepared, c["inputs"]), "--warmup", "0", "--steps", "1",
                  "--dump", dump], timeout=a.timeout)
        row = {"name": c["name"], "ok": False}
        if r.returncode != 0:
            row["error"] = r.stderr.strip()[-400:]
        else:
            ours = _bundle_arrays(dump)
            row["vs_host"] = compare(ours, _bundle_arrays(os.path.join(a.prepared, c["host"])))
            row["vs_torch"] = compare(ours, _bundle_arrays(os.path.join(a.prepared, c["reference"])))
            row["ok"] = (row["vs_host"]["worst"] < a.tol and row["vs_torch"]["worst"] < a.tol
                         and not row["vs_torch"]["missing"])
        rows.append(row)
        print(f"correctness {c['name']}: " + ("ok" if row["ok"] else "FAILED") +
              (f" (host {row['vs_host']['worst']:.2e}, torch {row['vs_torch']['worst']:.2e})"
               if "vs_host" in row else f" ({row.get('error', '')})"), flush=True)
    return rows


def _torch_model(cfg):
    import torch
    models = _module("models")
    torch.manual_seed(0)
    return models.GPT2(cfg["layers"], cfg["hidden"], cfg["heads"], cfg["vocab"], max(cfg["seq"], 16), 0.0)


def write_perf_params(path: str, cfg) -> None:
    """The parameters of the PyTorch model (seed 0), named by module path as
    the exporter names graph inputs: ckpt-opt's and PyTorch's runs share them."""
    bundle = _module("bundle")
    model = _torch_model(cfg)
    bundle.write_torch(path, [(n, p.detach()) for n, p in model.named_parameters()])


def run_ckpt_perf(a, manifest, params: str) -> List[Dict[str, Any]]:
    rows = []
    perf = manifest["perf"]
    for c in perf["cases"]:
        row = {"system": "ckpt-opt", "strategy": c["strategy"], "budget": c["budget"]}
        if not c["ok"]:
            row["error"] = c["error"]
            rows.append(row)
            continue
        tag = c["tag"]
        stats = os.path.join(a.out, f"perf-{tag}.stats.json")
        r = _run([os.path.join(a.bin, "perf-" + tag), "--params", params,
                  "--inputs", os.path.join(a.prepared, perf["inputs"]), "--warmup", str(a.warmup),
                  "--steps", str(a.steps), "--stats-json", stats] + (["--tf32"] if a.tf32 else [])
                 + (["--time-copies"] if c.get("offloads") else []),
                 timeout=a.timeout)
        if r.returncode != 0:
            row["error"] = r.stderr.strip()[-400:]
        else:
            with open(stats) as f:
                s = json.load(f)["runtime"]
            row.update({"peak_bytes": s["device_bytes_used"] - s["device_bytes_baseline"],
                        "arena_bytes": c["arena_bytes"], "median_s": s["median_step_seconds"]})
            if "predicted_overhead" in c:
                row["predicted_overhead"] = c["predicted_overhead"]
            if c.get("offloads"):
                # The last step's copies, timed with cudaEvents on their
                # streams, against the link model's time for the same bytes.
                row["copies"] = {
                    "link": c["offload"], "offloads": s.get("offloads"),
                    "bytes_to_host": s.get("bytes_to_host"),
                    "host_peak_bytes": s.get("host_peak_bytes_in_use"),
                    "predicted_to_host_ms": c.get("predicted_to_host_ms"),
                    "predicted_to_device_ms": c.get("predicted_to_device_ms"),
                    "measured_to_host_ms": 1e3 * s.get("to_host_seconds", float("nan")),
                    "measured_to_device_ms": 1e3 * s.get("to_device_seconds", float("nan"))}
        rows.append(row)
        print(f"ckpt-opt {tag}: " + (f"{row['peak_bytes'] / GIB:.2f} GiB, {row['median_s'] * 1e3:.1f} ms"
                                     if "median_s" in row else row["error"]), flush=True)
    return rows


def run_torch_perf(a, manifest) -> List[Dict[str, Any]]:
    import torch
    import torch.utils.checkpoint as cp
    torch.backends.cuda.matmul.allow_tf32 = a.tf32
    cfg = manifest["perf"]["model"]
    rows = []
    variants = [("eager", "none"), ("eager", "checkpoint-every-block")]
    if hasattr(cp, "create_selective_checkpoint_contexts") and hasattr(cp, "CheckpointPolicy"):
        variants.append(("eager", "selective"))
    try:
        import torch._functorch.config as fconfig
        if hasattr(fconfig, "activation_memory_budget") and a.torch_compile:
            variants += [("compile", f"memory-budget={b}") for b in ("1.0", "0.5")]
    except ImportError:
        pass
    g = torch.Generator().manual_seed(1)
    idx = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]), generator=g).cuda()
    tgt = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]), generator=g).cuda()
    for mode, variant in variants:
        row = {"system": f"pytorch-{mode}", "strategy": variant, "budget": "-"}
        try:
            model = _torch_model(cfg).cuda()
            fwd = _torch_forward(model, variant, cp)
            if mode == "compile":
                import torch._functorch.config as fconfig
                fconfig.activation_memory_budget = float(variant.split("=")[1])
                fwd = torch.compile(fwd)
            times = []
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
            for i in range(a.warmup + a.steps):
                t0 = time.perf_counter()
                loss = fwd(idx, tgt)
                loss.backward()
                torch.cuda.synchronize()
                if i >= a.warmup:
                    times.append(time.perf_counter() - t0)
                model.zero_grad(set_to_none=False)
            # Peak of the step, gradients and parameters included (what the
            # ckpt-opt arena holds); the CUDA context is outside both.
            row.update({"peak_bytes": torch.cuda.max_memory_allocated(),
                        "param_bytes": base, "median_s": statistics.median(times)})
            del model, fwd
        except Exception as e:  # one failing variant must not stop the table
            row["error"] = f"{type(e).__name__}: {str(e)[:300]}"
        torch.cuda.empty_cache()
        rows.append(row)
        print(f"pytorch {mode} {variant}: " + (f"{row['peak_bytes'] / GIB:.2f} GiB, "
                                              f"{row['median_s'] * 1e3:.1f} ms" if "median_s" in row
                                              else row["error"]), flush=True)
    return rows


def _torch_forward(model, variant, cp):
    """The GPT-2 forward with `variant` applied to its blocks."""
    import torch.nn.functional as F

    def block_call(block):
        if variant == "none" or variant.startswith("memory-budget"):
            return block
        if variant == "checkpoint-every-block":
            return lambda x, m: cp.checkpoint(block, x, m, use_reentrant=False)
        import functools
        import torch
        # Selective: keep matmul outputs, recompute the cheap rest.
        keep = {torch.ops.aten.mm.default, torch.ops.aten.bmm.default, torch.ops.aten.addmm.default}

        def policy(ctx, op, *args, **kwargs):
            return (cp.CheckpointPolicy.MUST_SAVE if op in keep
                    else cp.CheckpointPolicy.PREFER_RECOMPUTE)
        ctx = functools.partial(cp.create_selective_checkpoint_contexts, policy)
        return lambda x, m: cp.checkpoint(block, x, m, use_reentrant=False, context_fn=ctx)

    blocks = [block_call(b) for b in model.h]

    def forward(idx, targets):
        b, s = idx.shape
        x = model.drop(model.wte(idx) + model.wpe(model.pos[:, :s]))
        mask = model.mask[:, :, :s, :s]
        for blk in blocks:
            x = blk(x, mask)
        x = model.ln_f(x)
        logits = F.linear(x, model.wte.weight)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
    return forward


def run(a) -> int:
    with open(os.path.join(a.prepared, "manifest.json")) as f:
        manifest = json.load(f)
    os.makedirs(a.out, exist_ok=True)
    import torch
    results: Dict[str, Any] = {
        "version": 1, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
        "model": manifest["perf"]["model"], "budgets": manifest["perf"].get("budgets", []),
        "tol": a.tol}

    def save():  # after every stage: a run cut short keeps what it measured
        with open(os.path.join(a.out, "results.json"), "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
            f.write("\n")
    results["rows"] = []
    results["correctness"] = run_correctness(a, manifest)
    save()
    params = os.path.join(a.out, "perf-params.ckptb")
    write_perf_params(params, manifest["perf"]["model"])
    results["rows"] = run_ckpt_perf(a, manifest, params)
    os.remove(params)
    save()
    results["rows"] += run_torch_perf(a, manifest)
    save()
    text = format_table(results)
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(text)
    print(text)
    return 0 if all(c["ok"] for c in results["correctness"]) else 1


# ---------------------------------------------------------------------------
# table (anywhere)
# ---------------------------------------------------------------------------


def _baseline(rows, system: str) -> Optional[Dict[str, Any]]:
    """A system's own no-recompute run: ckpt-opt's `none`, PyTorch eager's
    `none`, the compiler's `memory-budget=1.0`."""
    plain = {"ckpt-opt": "none", "pytorch-eager": "none", "pytorch-compile": "memory-budget=1.0"}
    for r in rows:
        if r["system"] == system and r["strategy"] == plain.get(system) and "median_s" in r:
            return r
    return None


def format_table(results: Dict[str, Any]) -> str:
    """The side-by-side table of a results file, as Markdown."""
    for key in ("device", "model", "rows"):
        if key not in results:
            raise CheckError(f"the results have no {key!r}")
    m = results["model"]
    lines = [f"GPU check on {results['device']} ({results.get('date', '?')}, torch "
             f"{results.get('torch', '?')}): GPT-2 style, {m['layers']} layers, hidden {m['hidden']}, "
             f"batch {m['batch']}, seq {m['seq']}, f32", ""]
    corr = results.get("correctness", [])
    if corr:
        lines += ["| correctness | device vs host | device vs PyTorch | ok |", "|---|---|---|---|"]
        for c in corr:
            if "vs_host" in c:
                lines.append(f"| {c['name']} | {c['vs_host']['worst']:.2e} | "
                             f"{c['vs_torch']['worst']:.2e} | {'yes' if c['ok'] else 'NO'} |")
            else:
                lines.append(f"| {c['name']} | - | - | NO: {c.get('error', '')[:60]} |")
        lines += [f"(worst relative error per tensor, tolerance {results.get('tol', DEFAULT_TOL):g})", ""]
    lines += ["| system | strategy | budget | peak GiB | memory vs own none | median ms | "
              "overhead vs own none | predicted overhead | predicted / measured |",
              "|---|---|---|---|---|---|---|---|---|"]
    budgets = results.get("budgets") or []
    for r in results["rows"]:
        budget = r["budget"]
        base = _baseline(results["rows"], r["system"])
        if budget == "-" and r["system"] == "ckpt-opt" and base and "arena_bytes" in r and budgets:
            # A fixed strategy: the smallest prepared budget its arena meets.
            met = [b for b in budgets if r["arena_bytes"] <= parse_budget(b) * base["arena_bytes"]]
            budget = "- (fits " + (min(met, key=parse_budget) if met else "none") + ")"
        head = f"| {r['system']} | {r['strategy']} | {budget} |"
        if "median_s" not in r:
            lines.append(head + f" - | - | - | - | - | - ({r.get('error', 'not run')[:60]}) |")
            continue
        mem = time_ratio = "-"
        if base:
            mem = f"{r['peak_bytes'] / base['peak_bytes']:.2f}"
            time_ratio = f"{r['median_s'] / base['median_s']:.3f}"
        pred = ratio = "-"
        if "predicted_overhead" in r:
            pred = f"{1 + r['predicted_overhead']:.3f}"
            if time_ratio != "-":
                ratio = f"{(1 + r['predicted_overhead']) / float(time_ratio):.3f}"
        lines.append(head + f" {r['peak_bytes'] / GIB:.2f} | {mem} | {r['median_s'] * 1e3:.1f} | "
                     f"{time_ratio} | {pred} | {ratio} |")
    copies = [r for r in results["rows"] if r.get("copies")]
    if copies:
        lines += ["", "| offload plan | budget | offloads | GiB to host | predicted ms to host | "
                  "measured ms to host | predicted ms back | measured ms back |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in copies:
            c = r["copies"]

            def ms(v):
                return "-" if v is None else f"{v:.2f}"
            lines.append(f"| {r['strategy']} | {r['budget']} | {c['offloads']} | "
                         f"{(c['bytes_to_host'] or 0) / GIB:.2f} | {ms(c['predicted_to_host_ms'])} | "
                         f"{ms(c['measured_to_host_ms'])} | {ms(c['predicted_to_device_ms'])} | "
                         f"{ms(c['measured_to_device_ms'])} |")
        lines += ["(copy times: the link model's, remat::CopyLink, against cudaEvents around each "
                  "copy on its stream, summed over the step)"]
    lines += ["", "peak: ckpt-opt, device memory in use during the step minus before the session "
              "(arena, scratch, bound buffers, cuBLASLt); PyTorch, torch.cuda.max_memory_allocated. "
              "Overheads are time ratios to each system's own no-recompute run; predicted = the cost "
              "model's 1 + overhead of the plan.", ""]
    return "\n".join(lines)


def table(a) -> int:
    try:
        with open(a.results) as f:
            results = json.load(f)
    except (OSError, ValueError) as e:
        raise CheckError(f"cannot read {a.results}: {e}")
    text = format_table(results)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "table.md"), "w") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


def _arg(fn):
    """`fn` as an argparse type: a CheckError becomes a usage error."""
    def convert(text):
        try:
            return fn(text)
        except CheckError as e:
            raise argparse.ArgumentTypeError(str(e))
    convert.__name__ = fn.__name__
    return convert


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="gpu_check.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="generate the steps and references (here)")
    p.add_argument("--ckpt-opt", default=os.path.join(ROOT, "build", "bin", "ckpt-opt"))
    p.add_argument("--ckpt-run", default=os.path.join(ROOT, "build", "bin", "ckpt-run"))
    p.add_argument("--out", default=os.path.join(HERE, "prepared"))
    p.add_argument("--model", default="", type=_arg(parse_model),
                   help="overrides of the measured model, e.g. batch=8,seq=512")
    p.add_argument("--strategies", default=",".join(STRATEGIES),
                   type=_arg(lambda s: parse_list(s, ("optimal", "selective", "full", "sqrt", "greedy"))))
    p.add_argument("--budgets", default=",".join(BUDGETS),
                   type=_arg(lambda s: [b for b in parse_list(s) if parse_budget(b)]))
    p.add_argument("--offload", default=OFFLOAD, type=_arg(parse_offload),
                   help="LINK@BUDGET[,...]: `optimal` with copies over the host link at the budget "
                        "(of the whole step, as the other perf steps), for the perf table (copy "
                        "times measured against the link model); the first link also plans the "
                        "GPT-2 correctness step (at 0.4x of its activations); empty: none")
    r = sub.add_parser("run", help="measure on the GPU (bench/gpu/run.sh)")
    r.add_argument("--prepared", default=os.path.join(HERE, "prepared"))
    r.add_argument("--bin", required=True, help="directory of the step binaries run.sh built")
    r.add_argument("--out", required=True)
    r.add_argument("--warmup", type=int, default=1)
    r.add_argument("--steps", type=int, default=3)
    r.add_argument("--no-tf32", dest="tf32", action="store_false",
                   help="time f32 GEMMs without TF32 in both systems (default: TF32 on in both; the "
                        "correctness checks never use it)")
    r.add_argument("--tol", type=float, default=DEFAULT_TOL)
    r.add_argument("--timeout", type=float, default=150.0,
                   help="seconds each step binary may run (default 150)")
    r.add_argument("--torch-compile", action="store_true",
                   help="also run torch.compile with activation_memory_budget 1.0 and 0.5")
    t = sub.add_parser("table", help="print the table of a saved results.json")
    t.add_argument("results")
    t.add_argument("--out", help="also write OUT/table.md")
    a = ap.parse_args(argv)
    if a.command == "run" and (a.warmup < 0 or a.steps < 1):
        ap.error("--warmup must be >= 0 and --steps >= 1")
    try:
        return {"prepare": prepare, "run": run, "table": table}[a.command](a)
    except CheckError as e:
        print(f"gpu_check.py: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
