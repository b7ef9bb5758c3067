#!/usr/bin/env python3
"""Plans, emits, compiles and links the CUDA step of corpus graphs (no GPU).

Usage: compile_corpus.py --ckpt-opt BIN --nvcc NVCC --nvcc-flags FLAGS
           --link-libs LIBS --runner SRC --work DIR [--jobs N] [--step-flags FLAGS]
           --config NAME=PIPELINE [--config ...] GRAPH.json...

For every graph and every configuration (a `ckpt-pipeline{...}` option string):
runs `ckpt-opt --emit=cuda`, compiles the generated `.cu` (with --step-flags
too), links it with the runner (tools/ckpt-run-cuda) into an executable, runs
`--describe` (which reads the program without touching a device), and checks
what it prints against the plan JSON the code generator wrote: ops,
recomputed ops, segments, device arena, planned peak, where the device
scratch is, and the argument and result counts. Prints one line per graph
and configuration and exits 1 if any step fails. Written for Debian's
/usr/bin/python3 (standard library only).
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kw)


def check_describe(text, plan):
    """Returns a list of mismatches between `--describe` output and the plan."""
    problems = []
    counts = plan["counts"]
    m = re.search(r"^step @(\S+): (\d+) ops, (\d+) recomputed in (\d+) segments$",
                  text, re.M)
    if not m:
        return ["no 'step @' line"]
    got = (m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)))
    want = (plan["function"], counts["ops"], counts["recomputed_ops"], counts["segments"])
    if got != want:
        problems.append(f"step line {got} != plan {want}")
    m = re.search(r"^device arena (\d+) bytes, planned peak (\d+) bytes, alignment (\d+)$",
                  text, re.M)
    scratch = plan["device_scratch"]
    if not m or (int(m.group(1)), int(m.group(2)), int(m.group(3))) != (
            scratch["device_arena_bytes"], plan["planned_peak_bytes"], plan["alignment"]):
        problems.append("device arena line does not match the plan")
    m = re.search(r"^device scratch (\d+) bytes at arena offset (\d+)$", text, re.M)
    if not m or (int(m.group(1)), int(m.group(2))) != (scratch["bytes"], scratch["offset"]):
        problems.append("device scratch line does not match the plan")
    host = plan.get("host")
    m = re.search(r"^host arena (\d+) bytes, planned host peak (\d+) bytes, (\d+) offloads$",
                  text, re.M)
    if host and (not m or (int(m.group(1)), int(m.group(2)), int(m.group(3))) != (
            host["arena_bytes"], host["planned_peak_bytes"], host["offloads"])):
        problems.append("host arena line does not match the plan")
    if not host and m:
        problems.append("a host arena line, but the plan offloads nothing")
    if "run present" not in text:
        problems.append("no device run function")
    args = len(re.findall(r"^argument \d+: ", text, re.M))
    results = len(re.findall(r"^result \d+: ", text, re.M))
    if (args, results) != (counts["arguments"], counts["results"]):
        problems.append(f"{args} arguments / {results} results, plan has "
                        f"{counts['arguments']} / {counts['results']}")
    return problems


def check_step(a, runner, graph, stem, name, options):
    """Emits, compiles, links and describes one step; returns its line."""
    label = f"{stem} [{name}]"
    out = os.path.join(a.work, f"{stem}.{name}")
    emitted = run([a.ckpt_opt, graph,
                   f"--pass-pipeline=builtin.module(ckpt-pipeline{{{options}}})",
                   "--emit=cuda", "-o", out])
    if emitted.returncode != 0:
        return (f"FAIL {label}: ckpt-opt --emit=cuda exited {emitted.returncode}:\n"
                f"{emitted.stdout[-2000:]}")
    sources = sorted(f for f in os.listdir(out) if f.endswith(".cu"))
    plans = sorted(f for f in os.listdir(out) if f.endswith(".plan.json"))
    if len(sources) != 1 or len(plans) != 1:
        return f"FAIL {label}: expected one .cu and one .plan.json, got {sorted(os.listdir(out))}"
    exe = os.path.join(out, "run")
    step = os.path.join(out, "step.o")
    compiled = run([a.nvcc, *shlex.split(a.nvcc_flags), *shlex.split(a.step_flags),
                    "-I" + out, "-c", os.path.join(out, sources[0]), "-o", step])
    if compiled.returncode == 0:
        compiled = run([a.nvcc, *shlex.split(a.nvcc_flags), step, runner,
                        *shlex.split(a.link_libs), "-o", exe])
    if compiled.returncode != 0:
        return f"FAIL {label}: nvcc exited {compiled.returncode}:\n{compiled.stdout[-3000:]}"
    described = run([exe, "--describe"])
    with open(os.path.join(out, plans[0])) as f:
        plan = json.load(f)
    problems = ([f"--describe exited {described.returncode}"]
                if described.returncode != 0 else check_describe(described.stdout, plan))
    if problems:
        return f"FAIL {label}: " + "; ".join(problems) + "\n" + described.stdout[-1500:]
    counts = plan["counts"]
    scratch = plan["device_scratch"]
    host = plan.get("host")
    copies = (f", {host['offloads']} offloads, host arena {host['arena_bytes']} B"
              if host else "")
    return (f"ok {label}: {counts['ops']} ops, {counts['recomputed_ops']} recomputed in "
            f"{counts['segments']} segments, device arena {scratch['device_arena_bytes']} B, "
            f"scratch {'in the plan' if scratch['planned'] else 'after the arena'}{copies}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ckpt-opt", required=True)
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--nvcc-flags", required=True, help="one shell-quoted string")
    ap.add_argument("--link-libs", required=True, help="one shell-quoted string")
    ap.add_argument("--step-flags", default="",
                    help="more nvcc flags for the generated step only (one shell-quoted "
                         "string), e.g. '-x c++' to compile it as the host code it is")
    ap.add_argument("--runner", required=True, help="tools/ckpt-run-cuda/ckpt-run-cuda.cpp")
    ap.add_argument("--work", required=True, help="scratch directory (created)")
    ap.add_argument("--config", action="append", required=True,
                    help="NAME=OPTIONS of ckpt-pipeline, e.g. full='strategy=full plan-memory'")
    ap.add_argument("--jobs", type=int, default=1, help="steps checked at a time")
    ap.add_argument("graphs", nargs="+")
    a = ap.parse_args(argv)

    configs = []
    for c in a.config:
        name, sep, options = c.partition("=")
        if not sep or not name or not options:
            ap.error(f"--config: expected NAME=OPTIONS, got '{c}'")
        configs.append((name, options))
    os.makedirs(a.work, exist_ok=True)
    # The runner is the same for every step: compiled once, linked into each.
    runner = os.path.join(a.work, "runner.o")
    compiled = run([a.nvcc, *shlex.split(a.nvcc_flags), "-c", a.runner, "-o", runner])
    if compiled.returncode != 0:
        print(f"FAIL runner: nvcc exited {compiled.returncode}:\n{compiled.stdout[-3000:]}")
        return 1
    steps = []
    for graph in a.graphs:
        stem = os.path.basename(graph)
        if stem.endswith(".json"):
            stem = stem[: -len(".json")]
        steps += [(graph, stem, name, options) for name, options in configs]
    # Steps are independent (each its own directory): --jobs of them at a
    # time; the lines come out in the order of the arguments.
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(lambda step: check_step(a, runner, *step), steps))
    for line in results:
        print(line)
    failures = sum(1 for line in results if line.startswith("FAIL"))
    total = len(a.graphs) * len(configs)
    print(f"{total - failures} of {total} steps compiled, linked and described")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
