#!/usr/bin/env bash
# The GPU check of the torch.compile backend (docs/gpu.md), one call on the
# GPU machine: unpacks the ckpt-opt made by torch_prepare.sh and runs
# torch_check.py with the first Python that has torch >= 2 with CUDA
# (PYTHON= overrides). Results (results.json, table.md) go to $OUT.
# Usage: OUT=/some/dir bash bench/gpu/torch_run.sh [torch_check.py options]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/bench/gpu/out-torch}
packed=$root/bench/gpu/prepared-torch/ckpt-opt.tar.xz
if [ ! -f "$packed" ]; then
  echo "torch_run.sh: no $packed: run bash bench/gpu/torch_prepare.sh here first" >&2
  exit 2
fi
. "$root/bench/gpu/find_python.sh"
if [ -z "$python" ]; then
  echo "torch_run.sh: no Python with torch >= 2 and CUDA found (set PYTHON)" >&2
  exit 2
fi
mkdir -p "$out"
tar -C "$out" -xJf "$packed"
export CKPT_OPT=$out/ckpt-opt/ckpt-opt.sh
"$CKPT_OPT" --version >/dev/null
exec "$python" "$root/bench/gpu/torch_check.py" --out "$out" "$@"
