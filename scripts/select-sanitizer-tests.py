#!/usr/bin/env python3
"""Chooses the tests the sanitized run needs: those that reach code no
cheaper test of that run reaches.

Usage: scripts/select-sanitizer-tests.py [--build DIR] [--jobs N] [--work DIR]
                                         [--times RESULTS.json]...
                                         [--normal-times RESULTS.json]...
                                         [--output FILE]

In the coverage build (scripts/coverage-build.sh: clang 14, -O0, LLVM's
source-based coverage) it runs, as the sanitized run would (lit
`--param as-sanitizer-run=1`, the tests of test/sanitizer-skip.txt left out),
each test on its own with one raw profile per process: every GoogleTest case
of the unit-test binaries and every lit file test. It reads the source lines
each one executes (llvm-cov export, the project's own written files only:
lib/, include/, tools/, runtime/; not the tests' own sources, not the code
mlir-tblgen generates into the build directory), then picks tests greedily,
most newly covered lines per second of cost first, until the picked tests
cover every line that all of them cover together; a last pass drops any
picked test whose lines the others cover, costliest first.

A test's cost is what keeping it adds to CI: every test runs once, in the
sanitized run or else in the normal build's, so keeping one costs its time
under the sanitizers less its time in the normal build (an end-to-end test
whose time is the host compiler's costs about nothing; a solver property
test ten times its normal time). The times come from lit's JSON results
(`lit -o FILE`): `--times` of sanitized runs (scripts/sanitize.sh with
CKPT_SANITIZE_RESULTS set), `--normal-times` of normal-build runs; each may
be given more than once, a later file's time of a test replacing an earlier
one's. A test without a sanitized time costs its time here; one without a
normal time, its whole sanitized time.

What is left out is written to FILE (default test/sanitizer-covered.txt), one
`lit <path> -- <why>` or `gtest <Suite.Case> -- <why>` line per test, which
scripts/sanitize.sh leaves to the normal build's run (scripts/check.sh runs
there every test the sanitized run did not).

Coverage is of lines, not of values: a left-out test may feed other data
through the same lines (a property test's thousand random instances, where a
kept test runs ten). That is the trade: the normal run keeps it, and the
sanitizers see every line the whole suite reaches. Rerun this after changing
tests or adding code (about 10 minutes on 2 cores: 2-3 for the coverage
build, 6-7 for the tests one by one at -O0). Needs llvm-profdata-14 and llvm-cov-14
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


def gtest_cases(binaries, skipped, scratch):
    """(binary, "Suite.Case") of every GoogleTest case, minus the skipped."""
    # Listing runs instrumented binaries: their profiles go to the scratch
    # directory, not the working directory.
    env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(scratch, "%p.profraw"))
    cases = []
    for binary in binaries:
        out = subprocess.run([binary, "--gtest_list_tests"], capture_output=True, text=True,
                             check=True, env=env).stdout
        suite = ""
        for line in out.splitlines():
            if not line.startswith(" "):
                suite = line.split()[0] if line.strip() else ""
            elif suite:
                name = suite + line.split()[0]
                if name not in skipped:
                    cases.append((binary, name))
    return cases


def lit_seconds(path):
    """{test: seconds} from lit's JSON results: lit tests by path, GoogleTest
    cases as "gtest:Suite.Case"."""
    with open(path) as f:
        tests = json.load(f)["tests"]
    seconds = {}
    for t in tests:
        name, elapsed = t["name"], t.get("elapsed")
        if elapsed is None or t["code"] in ("UNSUPPORTED", "SKIPPED", "EXCLUDED"):
            continue
        if name.startswith("CKPT :: "):
            seconds[name.split(" :: ", 1)[1]] = elapsed
        elif name.startswith("CKPT-Unit :: ") and not name.split("/")[-1].isdigit():
            seconds["gtest:" + ".".join(name.split("/")[-2:])] = elapsed
    return seconds


def keep_cost(test, here, sanitized, normal):
    """(seconds that keeping `test` in the sanitized run adds to CI, how they
    were measured): its sanitized time less its normal time, or what is
    known; `here` is its time in the coverage build."""
    if test not in sanitized:
        return here, f"{here:.1f} s at -O0 with coverage"
    if test not in normal:
        return sanitized[test], f"{sanitized[test]:.1f} s in the sanitized run"
    return (max(sanitized[test] - normal[test], 0.0),
            f"{sanitized[test]:.1f} s in the sanitized run, {normal[test]:.1f} s in the normal one")


def select(coverage, seconds):
    """Greedy weighted set cover of the lines, then a reverse-delete pass.
    Returns the picked tests in the order picked, and every line."""
    universe = set().union(*coverage.values()) if coverage else set()
    covered, picked = set(), []
    gain = {t: len(coverage[t]) for t in coverage}
    while covered != universe:
        # Lazy greedy: a test's gain only shrinks, so its last computed value
        # bounds it; recompute only the best until it stays best.
        while True:
            best = max(sorted(gain), key=lambda t: gain[t] / max(seconds[t], 0.05))
            fresh = len(coverage[best] - covered)
            if fresh == gain[best]:
                break
            gain[best] = fresh
        if not fresh:
            break
        picked.append(best)
        covered |= coverage[best]
        del gain[best]
    # Reverse delete, most expensive first: a test goes when every line it
    # reaches is reached by another picked test.
    count = {}
    for t in picked:
        for line in coverage[t]:
            count[line] = count.get(line, 0) + 1
    for t in sorted(picked, key=lambda t: (-seconds[t], t)):
        if all(count[line] > 1 for line in coverage[t]):
            picked.remove(t)
            for line in coverage[t]:
                count[line] -= 1
    return picked, universe


def label(test):
    """`lit <path>` or `gtest <Suite.Case>`: a line of the output's kind."""
    return "gtest " + test[len("gtest:"):] if test.startswith("gtest:") else "lit " + test


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build-coverage"))
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("CKPT_JOBS", "2")))
    ap.add_argument("--work", default=None, help="profiles (default <build>/test-coverage)")
    ap.add_argument("--times", action="append", default=[],
                    help="lit's JSON results of a sanitized run (repeatable)")
    ap.add_argument("--normal-times", action="append", default=[],
                    help="lit's JSON results of a normal-build run (repeatable)")
    ap.add_argument("--output", default=os.path.join(ROOT, "test", "sanitizer-covered.txt"))
    a = ap.parse_args(argv)
    build = os.path.abspath(a.build)
    work = os.path.abspath(a.work or os.path.join(build, "test-coverage"))
    for tool in (PROFDATA, COV):
        if not shutil.which(tool):
            sys.exit(f"select-sanitizer-tests: {tool} not found (Debian's llvm-14)")
    if not os.path.exists(os.path.join(build, "bin", "ckpt-opt")):
        sys.exit(f"select-sanitizer-tests: no {build}/bin/ckpt-opt: run scripts/coverage-build.sh")
    sanitized, normal = {}, {}
    for paths, times in ((a.times, sanitized), (a.normal_times, normal)):
        for path in paths:
            try:
                times.update(lit_seconds(path))
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
                sys.exit(f"select-sanitizer-tests: {path}: not lit's JSON results: {e!r}")


    skip = read_entries(os.path.join(ROOT, "test", "sanitizer-skip.txt"))
    lit_skip = {name for kind, name in skip if kind == "lit"}
    gtest_skip = {name for kind, name in skip if kind == "gtest"}
    tools = [os.path.join(build, "bin", t) for t in ("ckpt-opt", "ckpt-run")]
    unit_bins = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(build, "unittests"))
                       for f in fs if f.endswith("Tests") and os.access(os.path.join(d, f), os.X_OK))

    def one(test):
        """(test, lines or None on failure, seconds, output)"""
        d = os.path.join(work, "runs", test.replace("/", "__").replace(":", "_"))
        if test.startswith("gtest:"):
            binary, case = cases[test]
            status, secs, out = run_profiled([binary, f"--gtest_filter={case}"], d,
                                             {"GTEST_COLOR": "no"})
            objects = [binary]
        else:
            status, secs, out = run_profiled(lit_command(["-q", os.path.join(build, "test", test)]), d)
            objects = tools
        if status != 0:
            return test, None, secs, out
        return test, covered_lines(d, objects), secs, out

    discovery = os.path.join(work, "discovery")
    cases = {"gtest:" + name: (binary, name)
             for binary, name in gtest_cases(unit_bins, gtest_skip, discovery)}
    tests = sorted(cases) + candidates(build, lit_skip, discovery)
    coverage, seconds, how, failed = {}, {}, {}, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for test, lines, secs, out in pool.map(one, tests):
            if lines is None:
                failed.append((test, out))
                continue
            if not lines:
                continue  # unsupported here, so in the sanitized run too (or runs no tool of ours)
            coverage[test] = lines
            seconds[test], how[test] = keep_cost(test, secs, sanitized, normal)
            print(f"{label(test)}: {len(lines)} lines, costs {seconds[test]:.1f} s ({how[test]})",
                  flush=True)
    if failed:
        for test, out in failed:
            print(f"FAIL {label(test)}:\n{out[-2000:]}", file=sys.stderr)
        sys.exit(f"select-sanitizer-tests: {len(failed)} test(s) failed in the coverage build")

    picked, universe = select(coverage, seconds)
    # The measurements, for a closer look (which lines, which test).
    with open(os.path.join(work, "coverage.json"), "w") as f:
        json.dump({"cost_seconds": seconds, "tests": {t: sorted(coverage[t]) for t in sorted(coverage)}}, f)
    # What each kept test alone reaches (no other test): where a cheaper test
    # could take over from an expensive one.
    reached_by = {}
    for t in coverage:
        for line in coverage[t]:
            reached_by[line] = reached_by.get(line, 0) + 1
    for t in sorted(picked, key=lambda t: (-seconds[t], t)):
        only = sorted(line for line in coverage[t] if reached_by[line] == 1)
        files = sorted({src for src, _ in only})
        print(f"kept {label(t)} (cost {seconds[t]:.1f} s): {len(only)} lines no other test reaches"
              + (", in " + ", ".join(files[:6]) + (" ..." if len(files) > 6 else "") if files else ""))
    left = sorted(set(coverage) - set(picked), key=lambda t: (not t.startswith("gtest:"), t))
    day = time.strftime("%Y-%m-%d", time.gmtime())
    total = sum(seconds.values())
    kept = sum(seconds[t] for t in picked)
    header = [
        "# Generated by scripts/select-sanitizer-tests.py (do not edit; rerun it after",
        "# changing tests or code). Tests the sanitized run (scripts/sanitize.sh)",
        "# leaves to the normal build's run (scripts/check.sh): the tests it keeps",
        "# execute every source line these do.",
        f"# Measured {day} in the coverage build: {len(universe)} lines reached by",
        f"# {len(coverage)} tests; {len(picked)} of them reach them all, at a",
        f"# cost of {kept:.0f} s (time under the sanitizers beyond the normal",
        f"# build's; all of them would cost {total:.0f} s).",
    ]
    body = [f"{label(t)} -- its {len(coverage[t])} lines are reached by the kept tests "
            f"(cost {seconds[t]:.1f} s: {how[t]})"
            for t in left]
    tmp = a.output + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(header + body) + "\n")
    os.replace(tmp, a.output)
    print(f"{len(universe)} lines; kept {len(picked)} of {len(coverage)} tests "
          f"(cost {kept:.0f} of {total:.0f} s); wrote {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
