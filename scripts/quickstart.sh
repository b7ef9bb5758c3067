#!/usr/bin/env bash
# README command 1: install what is missing, build, and run ckpt-opt's main
# job on a bundled example: the exported ResNet-50 training step (batch 8,
# 224x224) -- its cost report, the budget -> overhead frontier, then
# the pipeline: checkpoint placement with the `optimal` strategy under 50% of
# its no-recompute peak memory (a budget no baseline and not greedy meets),
# every buffer planned into one arena whose size is checked against the
# budget (re-solving with a tighter target if fragmentation pushes it over),
# re-checked and reported again. Then the whole way down on a small model:
# GPT-2 (2 layers) exported from PyTorch, planned at 60% of its activation
# peak, emitted as C++ (--emit=cpp) and run for 5 SGD steps on the host
# runtime (ckpt-run), with the runtime's own accounting next to the plan's.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh ckpt-opt ckpt-run
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


work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo
echo "== python3 -m ckpt_export.reference --model gpt2 (2 layers, sequence 32, batch 4)"
(cd python && /usr/bin/python3 -m ckpt_export.reference --model gpt2 --seq 32 --batch 4 \
  --dropout 0.1 --out "$work")
pipeline='builtin.module(ckpt-pipeline{budget=0.6x budget-scope=activations strategy=optimal plan-memory=true verify-plan=true})'
echo
echo "== ckpt-opt graph.json --pass-pipeline='$pipeline' --emit=cpp -o step/"
./build/bin/ckpt-opt "$work/graph.json" --pass-pipeline="$pipeline" --emit=cpp -o "$work/step"
ls "$work/step"
echo
echo "== ckpt-run step/ --params params.ckptb --inputs inputs.ckptb --steps 5 --lr 0.05"
./build/bin/ckpt-run "$work/step" --params "$work/params.ckptb" --inputs "$work/inputs.ckptb" \
  --steps 5 --lr 0.05
