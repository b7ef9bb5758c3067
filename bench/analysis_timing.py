"""Times ckpt-opt's import and analyses (--ckpt-report) on the model corpus and
on generated GPT graphs of growing depth.

For every graph: the median wall time of `ckpt-opt G --ckpt-report=json` over
--runs runs (the whole tool: process start, JSON import, verification, the
memory simulation, the cost model and the report), and the median time of the
report pass alone from MLIR's pass timing. Prints a Markdown table.

Usage (from the repository root):
  /usr/bin/python3 bench/analysis_timing.py [--ckpt-opt build/bin/ckpt-opt] [--runs 5]
"""

import argparse
import datetime
import glob
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from ckpt_graphs import gpt  # noqa: E402


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024


def time_graph(ckpt_opt, path, runs):
    walls, passes = [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(
            [ckpt_opt, path, "--ckpt-report=json", "-mlir-timing",
             "-mlir-timing-display=list"], capture_output=True, text=True,
            check=True)
        walls.append(time.perf_counter() - start)
        match = re.search(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+ReportPass$",
                          proc.stderr, re.M)
        passes.append(float(match.group(1)))
    report = json.loads(proc.stdout)["functions"][0]
    ops = sum(p["ops"] for p in report["phases"].values())
    return ops, statistics.median(walls), statistics.median(passes), report


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt-opt", default=os.path.join(ROOT, "build", "bin", "ckpt-opt"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    print(f"Machine: {machine()}; {datetime.date.today()}; median of {args.runs} runs.\n")
    print("| graph | ops | file | ckpt-opt --ckpt-report (wall) | report pass | peak memory |")
    print("|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "graphs", "*.json"))):
        ops, wall, report_s, report = time_graph(args.ckpt_opt, path, args.runs)
        print(f"| {os.path.basename(path)} | {ops} | {os.path.getsize(path) // 1024} KiB "
              f"| {wall * 1e3:.1f} ms | {report_s * 1e3:.2f} ms "
              f"| {human(report['peak']['bytes'])} |")

    print("\nGenerated GPT graphs (h 768, 12 heads, seq 1024, batch 8, vocab 50257, "
          "bf16, dropout 0.1, fused attention):\n")
    print("| layers | ops | file | ckpt-opt --ckpt-report (wall) | report pass "
          "| report pass per op | saved activations |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for layers in (2, 12, 48, 96):
            path = os.path.join(tmp, f"gpt{layers}.json")
            with open(path, "w") as f:
                json.dump(gpt.build(layers, 768, 12, 1024, 8, vocab=50257), f)
            ops, wall, report_s, report = time_graph(args.ckpt_opt, path, args.runs)
            print(f"| {layers} | {ops} | {os.path.getsize(path) // 1024} KiB "
                  f"| {wall * 1e3:.1f} ms | {report_s * 1e3:.2f} ms "
                  f"| {report_s / ops * 1e6:.2f} us "
                  f"| {human(report['saved_activation_bytes'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
