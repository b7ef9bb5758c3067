#!/usr/bin/env bash
# README command 1: install what is missing, build, and run ckpt-opt on a
# bundled example (a two-layer MLP training step), printing its verified IR
# and the exact cost of each phase.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh ckpt-opt
example=examples/mlp.mlir
echo "== ckpt-opt $example --ckpt-print-costs=\"per-op=false summary=true\""
./build/bin/ckpt-opt "$example" --mlir-print-op-on-diagnostic=false \
  '--ckpt-print-costs=per-op=false summary=true'
