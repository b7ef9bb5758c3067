"""Plans every examples/graphs/*.json graph under strategies none and full
with verify=true and checks arena / lower bound <= 1.02.

Usage: check_corpus_plans.py CKPT_OPT GRAPH_DIR
"""

import glob
import json
import os
import subprocess
import sys
import tempfile


def main():
    ckpt_opt, graph_dir = sys.argv[1], sys.argv[2]
    out = os.path.join(tempfile.mkdtemp(), "plan.json")
    worst, count, failed = 1.0, 0, 0
    for graph in sorted(glob.glob(os.path.join(graph_dir, "*.json"))):
        for strategy in ("none", "full"):
            proc = subprocess.run(
                [ckpt_opt, graph, f"--ckpt-place-checkpoints=strategy={strategy}",
                 f"--ckpt-plan-memory=verify=true output={out}", "-o", "/dev/null"],
                capture_output=True, text=True)
            name = f"{os.path.basename(graph)} {strategy}"
            if proc.returncode != 0:
                print(f"FAIL {name}: {proc.stderr.strip()[:200]}")
                failed += 1
                continue
            with open(out) as f:
                ratio = json.load(f)["functions"][0]["ratio"]
            count += 1
            worst = max(worst, ratio)
            if ratio > 1.02:
                print(f"FAIL {name}: ratio {ratio:.4f}")
                failed += 1
    print(f"{count} plans checked, worst ratio {worst:.4f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
