#!/usr/bin/env bash
# README command 1: install what is missing, build, and run ckpt-opt's main
# job on a bundled example: the exported ResNet-50 training step (batch 8,
# 224x224) -- its cost report, then checkpoint placement under 70% of its
# no-recompute peak memory, re-checked and reported again.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh ckpt-opt
example=examples/graphs/resnet50.full.json
echo "== ckpt-opt $example --ckpt-report"
./build/bin/ckpt-opt "$example" --ckpt-report
placement='--ckpt-place-checkpoints=strategy=greedy budget=0.7x explain=true'
echo
echo "== ckpt-opt $example \"$placement\" --ckpt-report"
./build/bin/ckpt-opt "$example" "$placement" --ckpt-report 2>&1 | grep -v '^{"id"\|^"outputs":\[$\|^ *\^$'
