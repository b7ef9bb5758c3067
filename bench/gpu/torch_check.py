"""The prepared GPU check of the torch.compile backend (docs/gpu.md,
"ckpt_torch on the GPU").

On a GPU machine with a copy of this working tree (bench/gpu/prepared-torch/
made here by ``bash bench/gpu/torch_prepare.sh``: ckpt-opt and the shared
libraries it needs) and a Python with torch >= 2 and CUDA:

    OUT=/some/dir bash bench/gpu/torch_run.sh

For a GPT-2 (the project's nanoGPT layout, ckpt_export.models: 12 layers,
hidden 768, vocab 50257, seq 1024) and a ResNet-50 (torchvision, 224x224),
sized to fill a large part of an H200, one training step (forward +
backward) through ``torch.compile`` with PyTorch's kernels for:

* ``none``: PyTorch's default partition (no recomputation);
* ``budget 0.5``: PyTorch's memory-budget partitioner;
* ``ckpt/block``: ``torch.utils.checkpoint`` on every block;
* ``ckpt-opt`` at three budgets (``budget_scope=step``, ``profile=h200``,
  ``exact_engines=False``).

Per run: the measured peak (``torch.cuda.max_memory_allocated``, parameters
and inputs included, as the step scope counts), ckpt-opt's predicted peak and
their ratio, the bytes allocated as the measured step starts (parameters,
inputs, and what the warm-up step left: PyTorch's library workspaces;
torch_peak.py names them), the saved bytes (measured) and the median step
time. On the GPU each method runs in a Python process of its own
(``--row``; ``--in-process`` runs them all in this one): measured on the
H200, checkpointing every block under torch.compile leaves 0.64 GiB of
GPT-2's block parameters and gradients allocated after its model is gone,
to the end of the process, which counted in every later row's peak. Writes
``results.json`` and ``table.md`` under ``--out``. ``--smoke`` runs tiny
sizes on the CPU (no peak measurement; budgets in the activations scope, as
the tiny models' parameters make step-scope fractions infeasible): what CI
checks of this script.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402

import torch_backend as tb  # noqa: E402  (bench/torch_backend.py)
from ckpt_export.models import MODELS  # noqa: E402

GPU_SIZES = {
    "gpt2": dict(size="full", batch=16, seq=1024, dropout=0.0),
    "resnet50": dict(size="full", batch=192, res=224),
}
SMOKE_SIZES = {
    "gpt2": dict(size="tiny", dropout=0.0),
    "resnet50": dict(size="tiny"),
}


def _spec_factory(sizes):
    def spec(name, size=None):
        kw = dict(sizes[name])
        spec = MODELS[name](**kw)
        tb.no_dropout(spec.model)
        if tb.DEVICE != "cpu":
            spec.model.to(tb.DEVICE)
            spec.inputs = tuple(x.to(tb.DEVICE) for x in spec.inputs)
        return spec
    return spec


def _setup(smoke: bool) -> None:
    tb.DEVICE = "cpu" if smoke else "cuda"
    tb._spec = _spec_factory(SMOKE_SIZES if smoke else GPU_SIZES)
    if not smoke:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False


def measure_row(name, method, budget, runs, smoke) -> dict:
    """One method on one model: the row of the table (or its error)."""
    t0 = time.time()
    row = {"model": name, "method": method, "budget": budget}
    try:
        r = tb.run_method(name, method, runs, budget=budget,
                          budget_scope="activations" if smoke else "step",
                          profile="h200", objective="time", exact_engines=False)
        row.update(saved=r["saved"], peak=r["peak"], start=r["start"], seconds=r["seconds"])
        if method == "ckpt-opt":
            g = [e for e in r["backend"].report.graphs if e.planned][0]
            row.update(predicted_peak=g.predicted_peak, predicted_saved=g.predicted_saved,
                       budget_bytes=g.budget_bytes, overhead=g.overhead)
    except Exception as e:  # noqa: BLE001 - a row says what failed
        text = [ln for ln in str(e).splitlines() if ln.strip()]
        why = next((ln for ln in text if " error: " in ln),
                   next((ln for ln in text if "Error:" in ln), text[-1] if text else ""))
        row["error"] = f"{type(e).__name__}: {why.strip()[:240]}"
    row["wall"] = time.time() - t0
    return row


def _row_in_child(name, method, budget, runs) -> dict:
    """measure_row in a fresh Python process: what one method leaves
    allocated in PyTorch (measured on the H200: checkpoint per block under
    torch.compile keeps 0.64 GiB of GPT-2's block parameters and gradients
    after its model is gone, to the end of the process) cannot count in the
    next method's peak."""
    cmd = [sys.executable, os.path.abspath(__file__), "--row", name, method, budget or "", "--runs", str(runs)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"model": name, "method": method, "budget": budget,
                "error": f"the measuring process exited with {proc.returncode}: {tail[:240]}"}
    return json.loads(lines[-1])


def run(args) -> dict:
    _setup(args.smoke)
    results = {"machine": (torch.cuda.get_device_name() if not args.smoke else platform.processor() or "cpu"),
               "torch": torch.__version__, "smoke": args.smoke, "rows": []}
    isolate = not args.smoke and not args.in_process
    for name in args.models.split(","):
        methods = [("none", None), ("budget 0.5", None), ("ckpt/block", None)] + \
                  [("ckpt-opt", b) for b in args.budgets.split(",")]
        for method, budget in methods:
            if isolate:
                row = _row_in_child(name, method, budget, args.runs)
            else:
                row = measure_row(name, method, budget, args.runs, args.smoke)
                gc.collect()
            results["rows"].append(row)
            print(json.dumps(row), flush=True)
    return results


def table(results) -> str:
    gib = 2 ** 30
    lines = [f"{results['machine']}, torch {results['torch']}"
             + (" (smoke run on the CPU: no peaks)" if results.get("smoke") else ""), "",
             "| model | method | budget | saved GiB | allocated at the step's start GiB | peak GiB (measured) | "
             "predicted peak GiB | measured / predicted | step s |", "|---|---|---|---|---|---|---|---|---|"]
    for r in results["rows"]:
        if "error" in r:
            lines.append(f"| {r['model']} | {r['method']} | {r.get('budget') or ''} | {r['error']} | | | | | |")
            continue
        peak = f"{r['peak'] / gib:.2f}" if r.get("peak") else "-"
        pred = f"{r['predicted_peak'] / gib:.2f}" if r.get("predicted_peak") else ""
        ratio = f"{r['peak'] / r['predicted_peak']:.3f}" if r.get("peak") and r.get("predicted_peak") else ""
        start = f"{r['start'] / gib:.3f}" if r.get("start") is not None else "-"
        lines.append(f"| {r['model']} | {r['method']} | {r.get('budget') or ''} | {r['saved'] / gib:.3f} | "
                     f"{start} | {peak} | {pred} | {ratio} | {r['seconds']:.3f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "out-torch"))
    ap.add_argument("--models", default="gpt2,resnet50")
    ap.add_argument("--budgets", default="0.8x,0.5x,0.3x")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--smoke", action="store_true", help="tiny sizes on the CPU (no GPU needed)")
    ap.add_argument("--in-process", action="store_true",
                    help="every method in this process (the default on the GPU: one process each)")
    ap.add_argument("--row", nargs=3, metavar=("MODEL", "METHOD", "BUDGET"),
                    help="measure one row in this process and print it as JSON (what each child does)")
    args = ap.parse_args(argv)
    if not args.smoke and not torch.cuda.is_available():
        print("torch_check.py: no CUDA device (use --smoke to check the script on the CPU)", file=sys.stderr)
        return 2
    if args.row:
        _setup(args.smoke)
        name, method, budget = args.row
        print(json.dumps(measure_row(name, method, budget or None, args.runs, args.smoke)), flush=True)
        return 0
    results = run(args)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    text = table(results)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
