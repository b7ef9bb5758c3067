#!/usr/bin/env bash
# Prepares the H200 check (docs/gpu.md, "The prepared GPU check"): run HERE,
# where ckpt-opt and ckpt-run are built. Exports the correctness models and
# the GPT-2 style graph, plans them at every strategy and budget, writes the
# CUDA steps (--emit=cuda), the host backend's results and the PyTorch
# reference into bench/gpu/prepared/ with a manifest. The GPU machine then
# needs no MLIR: bash bench/gpu/run.sh.
#
# Usage: bash bench/gpu/prepare.sh [BUILD_DIR] [gpu_check.py prepare options]
#   e.g. bash bench/gpu/prepare.sh build --model batch=8,seq=1024
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
case "$build" in /*) ;; *) build=$root/$build ;; esac
for tool in ckpt-opt ckpt-run; do
  if [ ! -x "$build/bin/$tool" ]; then
    echo "prepare.sh: $build/bin/$tool is not built (bash scripts/build.sh ckpt-opt ckpt-run)" >&2
    exit 1
  fi
done
rm -rf "$root/bench/gpu/prepared"
# Debian's interpreter: the exporter and the reference need its torch 1.13.
cd "$root/python"
exec /usr/bin/python3 "$root/bench/gpu/gpu_check.py" prepare \
  --ckpt-opt "$build/bin/ckpt-opt" --ckpt-run "$build/bin/ckpt-run" \
  --out "$root/bench/gpu/prepared" "$@"
