#!/usr/bin/env bash
# README command 1: install what is missing, build, and run ckpt-opt's main
# job on a bundled example: the exported ResNet-50 training step (batch 8,
# 224x224) -- its cost report, the budget -> overhead frontier, then
# the pipeline: checkpoint placement with the `optimal` strategy under 50% of
# its no-recompute peak memory (a budget no baseline and not greedy meets),
# every buffer planned into one arena whose size is checked against the
# budget (re-solving with a tighter target if fragmentation pushes it over),
# re-checked and reported again.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh ckpt-opt
example=examples/graphs/resnet50.full.json
echo "== ckpt-opt $example --ckpt-report"
./build/bin/ckpt-opt "$example" --ckpt-report
echo
echo "== ckpt-opt $example --ckpt-pareto=points=8"
./build/bin/ckpt-opt "$example" --ckpt-pareto=points=8 --emit=none
pipeline='--ckpt-pipeline=budget=0.5x strategy=optimal plan-memory=true verify-plan=true'
echo
echo "== ckpt-opt $example \"$pipeline\" --ckpt-report"
./build/bin/ckpt-opt "$example" "$pipeline" --ckpt-report --emit=none 2>&1 |
  grep -v '^{"id"\|^"outputs":\[$\|^ *\^$'

