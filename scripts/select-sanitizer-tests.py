#!/usr/bin/env python3
"""Chooses the lit tests the sanitized run needs: those that reach code no
cheaper test of that run reaches.

Usage: scripts/select-sanitizer-tests.py [--build DIR] [--jobs N] [--work DIR]
                                         [--output FILE]

In the coverage build (scripts/coverage-build.sh: clang 14, -O0, LLVM's
source-based coverage) it runs, as the sanitized run would (lit
`--param as-sanitizer-run=1`, the tests of test/sanitizer-skip.txt left out):

  * the GoogleTest unit tests, all of them together (the sanitized run always
    runs every unit test it does not skip);
  * each lit file test on its own, with one raw profile per process.

It reads the source lines each one executes (llvm-cov export, the project's
own written files only: lib/, include/, tools/, runtime/; not the code
mlir-tblgen generates into the build directory), then picks lit tests
greedily, most newly covered lines per second of its own run first, until the unit tests and the picked tests cover
every line that the unit tests and all candidates cover together; a last pass
drops any picked test whose lines the others cover. What is left out is
written to FILE (default test/sanitizer-covered.txt), one
`lit <path> -- <why>` line per test, which scripts/sanitize.sh leaves to the
normal build's run (every test runs there first; scripts/check.sh).

Coverage is of lines, not of values: a left-out test may feed other data
through the same lines. That is the trade: the normal run keeps it, and the
sanitizers see every line the whole suite reaches. Rerun this after changing
tests or adding code (about 10 minutes on 2 cores: 3 for the coverage
build, 7 for the tests at -O0). Needs llvm-profdata-14 and llvm-cov-14
(Debian's llvm-14, not installed for CI: `apt-get install llvm-14`).
Written for Debian's /usr/bin/python3 (standard library only).
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIT = "/usr/lib/llvm-19/build/utils/lit/lit.py"
PROFDATA = "llvm-profdata-14"
COV = "llvm-cov-14"


def read_entries(path):
    """(kind, name) of each `lit`/`gtest` line of a skip list."""
    entries = []
    if not os.path.exists(path):
        return entries
    with open(path) as f:
        for line in f:
            words = line.split()
            if words and words[0] in ("lit", "gtest"):
                entries.append((words[0], words[1]))
    return entries


def lit_command(extra):
    """lit, configured as the sanitized run is (the `sanitizer` feature)."""
    return ["/usr/bin/python3", LIT, "--param", "as-sanitizer-run=1", *extra]


def candidates(build, skipped, scratch):
    """The lit file tests of the main suite, minus the skipped ones."""
    # lit's configuration runs instrumented tools: their profiles go to the
    # scratch directory, not the working directory.
    env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(scratch, "%p.profraw"))
    out = subprocess.run(lit_command(["--show-tests", os.path.join(build, "test")]),
                         capture_output=True, text=True, check=True, env=env).stdout
    tests = []
    for line in out.splitlines():
        m = re.match(r"\s*CKPT :: (\S+)$", line)
        if m and m.group(1) not in skipped:
            tests.append(m.group(1))
    return sorted(tests)


def run_profiled(cmd, profile_dir, env_extra=None):
    """Runs cmd with one raw profile per process in profile_dir; returns
    (exit status, seconds, output)."""
    shutil.rmtree(profile_dir, ignore_errors=True)
    os.makedirs(profile_dir)
    env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(profile_dir, "%p.profraw"))
    env.update(env_extra or {})
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    return proc.returncode, time.monotonic() - start, proc.stdout + proc.stderr


def covered_lines(profile_dir, objects):
    """The set of (file, line) executed, over the project's own files."""
    raws = sorted(os.path.join(profile_dir, f) for f in os.listdir(profile_dir)
                  if f.endswith(".profraw"))
    if not raws:
        return set()
    merged = os.path.join(profile_dir, "merged.profdata")
    # -failure-mode=all: a process a test kills or starves of disk (the
    # output-file tests limit file sizes) leaves a corrupt profile; the others
    # still count.
    merge = subprocess.run([PROFDATA, "merge", "-sparse", "-failure-mode=all", "-o", merged,
                            *raws], capture_output=True, text=True)
    if merge.returncode != 0:
        return set()
    args = [COV, "export", "-format=lcov", "-skip-expansions", "-instr-profile", merged,
            objects[0]]
    for o in objects[1:]:
        args += ["-object", o]
    text = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    lines, keep, source = set(), False, ""
    for row in text.splitlines():
        if row.startswith("SF:"):
            source = os.path.relpath(os.path.realpath(row[3:]), ROOT)
            # The project's own written sources: not the unit tests' (their
            # binaries run whole in the sanitized run), not what a build
            # directory holds (mlir-tblgen's output), not outside the tree.
            keep = (not source.startswith(("..", "build", "unittests" + os.sep)))
        elif keep and row.startswith("DA:"):
            number, count = row[3:].split(",")[:2]
            if int(count) > 0:
                lines.add((source, int(number)))
    for raw in raws:
        os.unlink(raw)
    return lines


def select(base, coverage, seconds):
    """Greedy weighted set cover of the lines, then a reverse-delete pass.
    Returns the picked tests in the order picked."""
    universe = set(base).union(*coverage.values()) if coverage else set(base)
    covered, picked = set(base), []
    while covered != universe:
        best = max(sorted(coverage), key=lambda t: len(coverage[t] - covered) / max(seconds[t], 0.05))
        if not coverage[best] - covered:
            break
        picked.append(best)
        covered |= coverage[best]
    for t in sorted(picked, key=lambda t: -seconds[t]):
        rest = set(base).union(*(coverage[o] for o in picked if o != t))
        if coverage[t] <= rest:
            picked.remove(t)
    return picked, universe


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build-coverage"))
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("CKPT_JOBS", "2")))
    ap.add_argument("--work", default=None, help="profiles (default <build>/test-coverage)")
    ap.add_argument("--output", default=os.path.join(ROOT, "test", "sanitizer-covered.txt"))
    a = ap.parse_args(argv)
    build = os.path.abspath(a.build)
    work = os.path.abspath(a.work or os.path.join(build, "test-coverage"))
    for tool in (PROFDATA, COV):
        if not shutil.which(tool):
            sys.exit(f"select-sanitizer-tests: {tool} not found (Debian's llvm-14)")
    if not os.path.exists(os.path.join(build, "bin", "ckpt-opt")):
        sys.exit(f"select-sanitizer-tests: no {build}/bin/ckpt-opt: run scripts/coverage-build.sh")

    skip = read_entries(os.path.join(ROOT, "test", "sanitizer-skip.txt"))
    lit_skip = {name for kind, name in skip if kind == "lit"}
    gtest_skip = [name for kind, name in skip if kind == "gtest"]
    unit_env = {"CKPT_GTEST_FILTER": "-" + ":".join(gtest_skip)} if gtest_skip else {}
    tools = [os.path.join(build, "bin", t) for t in ("ckpt-opt", "ckpt-run")]

    # The unit tests: every GoogleTest binary, the skipped cases filtered out.
    unit_bins = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(build, "unittests"))
                       for f in fs if f.endswith("Tests") and os.access(os.path.join(d, f), os.X_OK))
    status, secs, out = run_profiled(
        lit_command(["-q", "-j", str(a.jobs), os.path.join(build, "test", "Unit")]),
        os.path.join(work, "unit"), unit_env)
    if status != 0:
        sys.exit(f"select-sanitizer-tests: the unit tests failed in the coverage build:\n{out[-3000:]}")
    base = covered_lines(os.path.join(work, "unit"), unit_bins + tools)
    print(f"unit tests: {len(base)} lines in {secs:.0f} s", flush=True)

    tests = candidates(build, lit_skip, os.path.join(work, "discovery"))

    def one(test):
        d = os.path.join(work, "lit", test.replace("/", "__"))
        status, secs, out = run_profiled(
            lit_command(["-q", os.path.join(build, "test", test)]), d)
        if status != 0:
            return test, None, secs, out
        return test, covered_lines(d, tools), secs, out

    coverage, seconds, failed = {}, {}, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for test, lines, secs, out in pool.map(one, tests):
            if lines is None:
                failed.append((test, out))
                continue
            if not lines:
                continue  # unsupported here, so in the sanitized run too (or runs no tool of ours)
            coverage[test], seconds[test] = lines, secs
            print(f"{test}: {len(lines)} lines in {secs:.1f} s", flush=True)
    if failed:
        for test, out in failed:
            print(f"FAIL {test}:\n{out[-2000:]}", file=sys.stderr)
        sys.exit(f"select-sanitizer-tests: {len(failed)} test(s) failed in the coverage build")

    picked, universe = select(base, coverage, seconds)
    # The measurements, for a closer look (which lines, which test).
    with open(os.path.join(work, "coverage.json"), "w") as f:
        json.dump({"unit": sorted(base), "seconds": seconds,
                   "lit": {t: sorted(coverage[t]) for t in sorted(coverage)}}, f)
    # What each kept test alone reaches (no other test, unit or lit): where a
    # cheaper test could take over from an expensive one.
    for t in sorted(picked, key=lambda t: -seconds[t]):
        others = set(base).union(*(coverage[o] for o in coverage if o != t))
        only = sorted(coverage[t] - others)
        files = sorted({src for src, _ in only})
        print(f"kept {t} ({seconds[t]:.1f} s): {len(only)} lines no other test reaches, in "
              + ", ".join(files[:6]) + (" ..." if len(files) > 6 else ""))
    left = sorted(set(coverage) - set(picked))
    day = time.strftime("%Y-%m-%d", time.gmtime())
    total = sum(seconds.values())
    kept = sum(seconds[t] for t in picked)
    header = [
        "# Generated by scripts/select-sanitizer-tests.py (do not edit; rerun it after",
        "# changing tests or code). Lit tests the sanitized run (scripts/sanitize.sh)",
        "# leaves to the normal build's run (scripts/check.sh): the unit tests and",
        "# the lit tests it keeps execute every source line these do.",
        f"# Measured {day} in the coverage build: {len(universe)} lines reached by",
        f"# the unit tests ({len(base)}) and {len(coverage)} lit tests ({total:.0f} s);",
        f"# {len(picked)} lit tests ({kept:.0f} s) reach them all.",
    ]
    body = [f"lit {t} -- its {len(coverage[t])} lines are reached by the kept tests "
            f"({seconds[t]:.1f} s at -O0 with coverage)" for t in left]
    tmp = a.output + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(header + body) + "\n")
    os.replace(tmp, a.output)
    print(f"{len(universe)} lines; kept {len(picked)} of {len(coverage)} lit tests "
          f"({kept:.0f} of {total:.0f} s); wrote {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
