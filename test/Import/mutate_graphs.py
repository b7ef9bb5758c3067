"""Feeds truncated and mutated copies of graph files to ckpt-opt.

Every run must end either in success or in a reported error (exit code 1 and
an `error:` line): never a crash, a hang, or a silent failure. Mutations are
drawn from a fixed seed, so a failure is reproducible; the failing input is
written next to the report.

Usage: mutate_graphs.py CKPT_OPT WORKDIR FILE... [--cases N]
"""

import argparse
import copy
import json
import random
import subprocess
import sys
from pathlib import Path

SEED = 20261130


def byte_mutations(text, rng, count):
    """Yields (description, text) pairs of truncations and byte edits."""
    for i in range(1, 41):
        cut = len(text) * i // 41
        yield f"truncate at byte {cut}", text[:cut]
    alphabet = ['{', '}', '[', ']', '"', ',', ':', '0', '-1', '1e309', 'null',
                'true', ' ', '\\', '\x00', 'é']
    for _ in range(count):
        pos = rng.randrange(len(text))
        kind = rng.randrange(3)
        if kind == 0:
            yield f"replace byte {pos}", text[:pos] + rng.choice(alphabet) + text[pos + 1:]
        elif kind == 1:
            yield f"delete byte {pos}", text[:pos] + text[pos + 1:]
        else:
            end = min(len(text), pos + rng.randrange(1, 40))
            yield f"duplicate bytes {pos}..{end}", text[:end] + text[pos:end] + text[end:]


def paths(value, prefix=()):
    """Yields every path in a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, prefix + (index,))


def structural_mutations(document, rng, count):
    """Yields (description, text) pairs of semantically broken documents."""
    all_paths = [p for p in paths(document) if p]
    replacements = [None, 0, -1, 2**63, 1.5, "", "f32", "x", [], {}, [0], [-3],
                    True, "relu", "backward", [1, 2, 3]]
    for _ in range(count):
        doc = copy.deepcopy(document)
        path = rng.choice(all_paths)
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        kind = rng.randrange(3)
        if kind == 0:
            value = rng.choice(replacements)
            parent[path[-1]] = value
            what = f"set {path} = {value!r}"
        elif kind == 1:
            if isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent.pop(path[-1])
            what = f"delete {path}"
        else:
            other = rng.choice(all_paths)
            source = doc
            try:
                for key in other:
                    source = source[key]
            except (KeyError, IndexError, TypeError):
                continue
            parent[path[-1]] = copy.deepcopy(source)
            what = f"copy {other} to {path}"
        yield what, json.dumps(doc)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ckpt_opt")
    parser.add_argument("workdir")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--cases", type=int, default=150)
    args = parser.parse_args()

    rng = random.Random(SEED)
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    runs = failures = accepted = 0
    for name in args.files:
        text = Path(name).read_text()
        document = json.loads(text)
        cases = list(byte_mutations(text, rng, args.cases))
        cases += list(structural_mutations(document, rng, args.cases))
        for what, mutated in cases:
            runs += 1
            case = workdir / "case.json"
            case.write_text(mutated, encoding="utf-8", errors="surrogateescape")
            try:
                proc = subprocess.run([args.ckpt_opt, str(case)],
                                      capture_output=True, timeout=20)
            except subprocess.TimeoutExpired:
                proc = None
            ok = proc is not None and (
                proc.returncode == 0 and b"ckpt.step" in proc.stdout or
                proc.returncode == 1 and b"error:" in proc.stderr)
            if proc is not None and proc.returncode == 0:
                accepted += 1
            if not ok:
                failures += 1
                keep = workdir / f"failure-{failures}.json"
                keep.write_text(mutated, encoding="utf-8", errors="surrogateescape")
                status = "timeout" if proc is None else f"exit {proc.returncode}"
                print(f"FAIL {name}: {what}: {status}; input kept as {keep}")
                if proc is not None:
                    print(proc.stderr.decode(errors="replace")[-2000:])
    print(f"{runs} mutated inputs, {accepted} accepted, "
          f"{runs - accepted - failures} rejected with an error, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
