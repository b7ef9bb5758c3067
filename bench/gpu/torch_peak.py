"""Where PyTorch's measured peak is, tensor by tensor, next to ckpt-opt's
predicted peak (docs/gpu.md, "ckpt_torch on the GPU").

torch_check.py compares ``torch.cuda.max_memory_allocated`` of a step
compiled with ``ckpt_torch`` with the plan's predicted peak. This script
explains a difference: it runs the same step (same models, sizes and
options as torch_check.py) once more under CUDA's allocator history
(``torch.cuda.memory._record_memory_history``), replays the allocations and
frees of that step to find the moment of the peak, and lists every block
live then with the fx node that allocated it (the innermost frame in the
forward or backward graph's generated code) or "before the step"
(parameters, inputs) or "outside the graphs" (autograd's own buffers).
The replayed peak is checked against ``max_memory_allocated``.

    OUT=/some/dir python3 bench/gpu/torch_peak.py gpt2:0.3x resnet50:0.5x

Writes ``peak-<model>-<budget>.json`` (the groups, the 40 largest blocks,
the report) and ``peak.md`` (one table per run) into ``--out``; needs
CKPT_OPT (torch_run.sh's unpacked ckpt-opt) and a CUDA device.
"""

from __future__ import annotations

import argparse
import functools
import json
import linecache
import os
import re
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import torch_check  # noqa: E402  (sets up the import paths and the sizes)
import ckpt_torch  # noqa: E402

GIB = 2 ** 30
_NODE = re.compile(r"^\s*(\w+)\s*=\s*torch\.ops\.(\w+)\.(\w+)")


def _source_lines(filename):
    """The lines of fx-generated code: fx keeps the source in its loader's
    cache (linecache gives nothing for names such as '<eval_with_key>.3
    from x.py:1 in <lambda>')."""
    from torch.fx.graph_module import _loader
    src = _loader.get_source(filename) if hasattr(_loader, "get_source") else None
    return src.splitlines() if src else linecache.getlines(filename)


@functools.lru_cache(maxsize=None)
def _graph_code(filename):
    """(forward or backward, its lines) of one generated graph: the backward
    graph's inputs include the tangents (in its signature, or read from the
    argument list under the boxed convention). Read once per graph, not per
    allocation."""
    lines = _source_lines(filename)
    return ("backward" if any("tangents_" in ln for ln in lines) else "forward"), lines


def _fx_frame(frames):
    """(graph, node, op) of the innermost frame in fx-generated code, or None."""
    for f in frames:  # innermost first
        name = f.get("filename", "")
        if not name.startswith("<eval_with_key>"):
            continue
        graph, lines = _graph_code(name)
        line = f.get("line", 0)
        m = _NODE.match(lines[line - 1]) if 0 < line <= len(lines) else None
        return graph, (m.group(1) if m else "?"), (f"{m.group(2)}.{m.group(3)}" if m else "?")
    return None


def peak_detail(events, start_bytes):
    """Replays ``events`` (one device's allocator trace) from ``start_bytes``
    allocated: (peak bytes, the event index of the peak, the blocks live
    then as (bytes, where))."""
    cur, peak, at = start_bytes, start_bytes, -1
    live, at_peak = {}, {}
    for i, e in enumerate(events):
        action = e.get("action")
        if action == "alloc":
            cur += e["size"]
            live[e["addr"]] = (e["size"], _fx_frame(e.get("frames", [])))
            if cur > peak:
                peak, at, at_peak = cur, i, dict(live)
        elif action == "free_requested":
            if e["addr"] in live:
                cur -= live.pop(e["addr"])[0]
    return peak, at, list(at_peak.values())


def saved_at_backward(events):
    """Bytes per forward-graph node of the blocks still live when the
    backward graph allocates its first block: what the forward saved."""
    live = {}
    for e in events:
        action = e.get("action")
        if action == "alloc":
            where = _fx_frame(e.get("frames", []))
            if where is not None and where[0] == "backward":
                break
            live[e["addr"]] = (e["size"], where)
        elif action == "free_requested":
            live.pop(e["addr"], None)
    out = defaultdict(int)
    for size, where in live.values():
        if where is not None:
            out[f"{where[1]} ({where[2]})"] += size
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def planned_saved(backend):
    """The partition's saved fx nodes: name (op) -> bytes of their fake
    tensors' storages (a view's storage counted with its base)."""
    part = getattr(backend, "last_partition", None)
    out = {}
    for n in getattr(part, "saved", []) or []:
        v = n.meta.get("val")
        if isinstance(v, torch.Tensor):
            out[f"{n.name} ({getattr(n.target, '__name__', n.target)})"] = v.untyped_storage().nbytes()
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def _origin(frames):
    """A short name for where a block was allocated: the first frame (from
    the innermost) in a library workspace or handle (cuBLAS, cuBLASLt,
    cuDNN), else the fx node, else the innermost Python frame."""
    for f in frames:
        name = f.get("name", "")
        if re.search(r"[Ww]orkspace|cublas|Cublas|CUDABlas|cudnn|Cudnn", name):
            return name[:120]
    where = _fx_frame(frames)
    if where is not None:
        return f"{where[0]} graph: {where[1]} ({where[2]})"
    for f in frames:
        if f.get("filename", "").endswith(".py"):
            return f"{os.path.basename(f['filename'])}:{f.get('line')} {f.get('name', '')}"
    return frames[0].get("name", "?")[:120] if frames else "?"


def held_from_warmup(events):
    """Blocks allocated by the warm-up step(s) and still live when the
    measured step starts, as origin -> bytes (parameters and inputs, which
    exist before the history starts, are not among them)."""
    live = {}
    for e in events:
        if e.get("action") == "alloc":
            live[e["addr"]] = (e["size"], _origin(e.get("frames", [])))
        elif e.get("action") == "free_requested":
            live.pop(e["addr"], None)
    out = defaultdict(int)
    for size, origin in live.values():
        out[origin] += size
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def measure(name, budget, runs_before=1):
    spec = torch_check._spec_factory(torch_check.GPU_SIZES)(name)
    model = spec.model
    backend = ckpt_torch.backend(budget, budget_scope="step", profile="h200", objective="time",
                                 exact_engines=False, time_limit=5)
    compiled = torch.compile(model, backend=backend, fullgraph=True)
    device = torch.cuda.current_device()
    tensors = list(model.parameters()) + list(model.buffers()) + [x for x in spec.inputs if torch.is_tensor(x)]
    params_inputs = sum(t.untyped_storage().nbytes() for t in {t.untyped_storage().data_ptr(): t
                                                                 for t in tensors}.values())
    # The history starts before the warm-up, with C++ frames, so that what
    # the warm-up leaves allocated (library workspaces) is named.
    torch.cuda.memory._record_memory_history(max_entries=1_000_000, stacks="all")
    for _ in range(runs_before):  # compile and warm up (cuBLAS, cuDNN handles)
        for p in model.parameters():
            p.grad = None
        compiled(*spec.inputs).backward()
    for p in model.parameters():
        p.grad = None
    torch.cuda.synchronize()
    first = len(torch.cuda.memory._snapshot()["device_traces"][device])
    torch.cuda.reset_peak_memory_stats()
    start = torch.cuda.memory_allocated()
    compiled(*spec.inputs).backward()
    torch.cuda.synchronize()
    snapshot = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    measured = torch.cuda.max_memory_allocated()
    trace = snapshot["device_traces"][device]
    held = held_from_warmup(trace[:first])
    events = trace[first:]
    peak, at, blocks = peak_detail(events, start)
    groups = defaultdict(int)
    nodes = defaultdict(int)
    for size, where in blocks:
        if where is None:
            groups["outside the graphs (autograd, the loss seed)"] += size
        else:
            graph, node, op = where
            groups[f"{graph} graph"] += size
            nodes[(graph, node, op)] += size
    groups["before the step: parameters, buffers, inputs"] = params_inputs
    groups["before the step: left by the warm-up step"] = start - params_inputs
    g = [e for e in backend.report.graphs if e.planned][0]
    peak_event = events[at] if at >= 0 else {}
    return {
        "model": name, "budget": budget, "measured_peak": measured, "replayed_peak": peak,
        "predicted_peak": g.predicted_peak, "predicted_saved": g.predicted_saved,
        "measured_saved": g.measured_saved, "budget_bytes": g.budget_bytes,
        "peak_at": _fx_frame(peak_event.get("frames", [])), "events": len(events),
        "groups": dict(sorted(groups.items(), key=lambda kv: -kv[1])),
        "held_from_warmup": held,
        "largest": [[b, list(w)] for w, b in sorted(nodes.items(), key=lambda kv: -kv[1])[:40]],
        "report": str(backend.report),
        "saved_measured_by_node": saved_at_backward(events),
        "saved_planned_by_node": planned_saved(backend),
    }


def table(r) -> str:
    lines = [f"### {r['model']} at {r['budget']} (budget-scope=step, profile=h200)", "",
             f"measured peak {r['measured_peak'] / GIB:.2f} GiB (replayed {r['replayed_peak'] / GIB:.2f}), "
             f"predicted {r['predicted_peak'] / GIB:.2f} GiB; saved measured "
             f"{(r['measured_saved'] or 0) / GIB:.2f}, predicted {(r['predicted_saved'] or 0) / GIB:.2f} GiB; "
             f"the peak is at {r['peak_at']}", "", "| live at the peak | GiB |", "|---|---|"]
    lines += [f"| {k} | {v / GIB:.3f} |" for k, v in r["groups"].items()]
    held = r.get("held_from_warmup") or {}
    if held:
        lines += ["", "| left by the warm-up step, by origin | MiB |", "|---|---|"]
        lines += [f"| {k} | {v / 2 ** 20:.2f} |" for k, v in held.items()]
    lines += ["", "| graph | node | op | GiB |", "|---|---|---|---|"]
    lines += [f"| {w[0]} | {w[1]} | {w[2]} | {b / GIB:.3f} |" for b, w in r["largest"][:25]]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="model:budget, e.g. gpt2:0.3x")
    ap.add_argument("--out", default=os.environ.get("OUT", os.path.join(HERE, "out-peak")))
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        sys.exit("torch_peak.py: needs a CUDA device (the allocator history is CUDA's)")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    import torch_backend as tb
    tb.DEVICE = "cuda"
    os.makedirs(args.out, exist_ok=True)
    md = []
    for run in args.runs:
        name, budget = run.split(":")
        try:
            r = measure(name, budget)
        except Exception as e:  # noqa: BLE001 - the next run still runs
            print(f"{run}: {type(e).__name__}: {e}", flush=True)
            continue
        with open(os.path.join(args.out, f"peak-{name}-{budget}.json"), "w") as f:
            json.dump(r, f, indent=1)
        md.append(table(r))
        print(md[-1], flush=True)
        torch._dynamo.reset()
        torch.cuda.empty_cache()
    with open(os.path.join(args.out, "peak.md"), "w") as f:
        f.write("\n".join(md))


if __name__ == "__main__":
    main()
