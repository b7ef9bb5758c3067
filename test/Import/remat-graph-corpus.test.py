"""Driver of remat-graph-corpus.test: checks every file of the folder."""
import glob
import json
import os
import re
import subprocess
import sys

folder, tmp, tool = sys.argv[1:4]
files = sorted(glob.glob(os.path.join(folder, "*.json")))
assert len(files) == 18, f"expected the 18 published graphs, found {len(files)}"
for path in files:
    name = os.path.basename(path)
    data = json.load(open(path))
    nodes = data["nodes"]
    want_cost = sum(n.get("cost_cpu", n.get("duration", 0)) for n in nodes)
    want_bwd = sum(1 for n in nodes if n.get("backward"))
    ir = subprocess.run([tool, path], check=True, capture_output=True,
                        text=True).stdout
    costs = [int(c) for c in re.findall(r"compute_cost = (\d+) : i64", ir)]
    bwd = len(re.findall(r"ckpt\.opaque bwd", ir))
    assert len(costs) == len(nodes), (name, len(costs), len(nodes))
    assert sum(costs) == want_cost, (name, sum(costs), want_cost)
    assert bwd == want_bwd, (name, bwd, want_bwd)
    mlir = os.path.join(tmp, name + ".mlir")
    open(mlir, "w").write(ir)
    placed = subprocess.run(
        [tool, mlir, "--ckpt-place-checkpoints=strategy=none"], check=True,
        capture_output=True, text=True).stdout
    again = subprocess.run([tool, mlir], check=True, capture_output=True,
                           text=True).stdout
    assert placed == again, f"{name}: strategy=none changed the IR"
    report = subprocess.run([tool, mlir, "--ckpt-report"], check=True,
                            capture_output=True, text=True).stdout
    assert f"ckpt report" in report and f" {len(nodes)} " in report, name
    print(f"ok {name}: {len(nodes)} ops, total cost {want_cost}")
print(f"{len(files)} graphs imported")
