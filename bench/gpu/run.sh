#!/usr/bin/env bash
# The prepared H200 check (docs/gpu.md): one call on a fresh GPU machine with
# a copy of this working tree, bench/gpu/prepared/ included (made here by
# bench/gpu/prepare.sh). Needs nvcc and a Python with torch 2.x and numpy;
# no network, no MLIR. Builds the device and host runtimes with nvcc, links
# every prepared step with tools/ckpt-run-cuda, then runs gpu_check.py: the
# correctness checks, ckpt-opt's steps and PyTorch's variants, and writes
# results.json and table.md into $OUT (default bench/gpu/out).
#
# Usage: OUT=/some/dir bash bench/gpu/run.sh [gpu_check.py run options]
#   ARCH (default 90), JOBS (default: all cores), PYTHON (default: the first
#   of python3, python, /opt/conda/bin/python, /usr/bin/python3 with torch
#   2.x and CUDA) override the defaults; BUILD_ONLY=1 stops after linking
#   (what can be checked without a GPU).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/bench/gpu/out}
arch=${ARCH:-90}
jobs=${JOBS:-$(nproc)}
prepared=$root/bench/gpu/prepared
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
start=$(date +%s)
log() { echo "[run.sh $(( $(date +%s) - start ))s] $*"; }

if [ ! -f "$prepared/manifest.json" ]; then
  echo "run.sh: no $prepared/manifest.json: run bash bench/gpu/prepare.sh here first" >&2
  exit 2
fi
python=${PYTHON:-}
if [ -z "$python" ] && [ -n "${BUILD_ONLY:-}" ]; then
  python=/usr/bin/python3
fi
if [ -z "$python" ]; then
  NEED_MODULES=numpy
  . "$root/bench/gpu/find_python.sh"
fi
if [ -z "$python" ]; then
  echo "run.sh: no Python with torch >= 2 and CUDA found (set PYTHON)" >&2
  exit 2
fi
log "python: $python, nvcc: $nvcc, sm_$arch, $jobs jobs"
mkdir -p "$out"
build=$out/build
mkdir -p "$build/obj" "$build/bin"

# 1. The runtimes (-O3, sm_$arch): the device runtime and, of the host
# runtime, what it and the runner use (arena ledger, attributes, bundles,
# Philox). The host kernels (OpenBLAS, which a GPU image may lack) are not needed.
flags=(-std=c++17 "-gencode=arch=compute_$arch,code=sm_$arch" -Xcompiler=-fexceptions,-frtti
       -I"$root/runtime/include" -I"$root/runtime/lib" -I"$root/runtime/cuda/include"
       -I"$root/runtime/cuda/lib")
sources=("$root"/runtime/lib/{ArenaLedger,Attrs,KernelChecks,TensorBundle,Philox}.cpp "$root"/runtime/cuda/lib/*.cpp
         "$root"/runtime/cuda/lib/*.cu)
printf '%s\n' "${sources[@]}" | xargs -P "$jobs" -I{} sh -c \
  'f="$1"; shift; "$@" -O3 -c "$f" -o "$0/obj/$(basename "$f").o"' \
  "$build" {} "$nvcc" "${flags[@]}"
rm -f "$build/libckpt.a"
ar rcs "$build/libckpt.a" "$build"/obj/*.cpp.o "$build"/obj/*.cu.o
log "runtime built"

# 2. One binary per prepared step: the step and tools/ckpt-run-cuda.
"$nvcc" "${flags[@]}" -O2 -c "$root/tools/ckpt-run-cuda/ckpt-run-cuda.cpp" -o "$build/obj/runner.o"
"$python" - "$prepared/manifest.json" > "$build/steps.txt" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for c in m["correctness"]:
    print(c["name"], c["step_dir"], c["stem"])
for c in m["perf"]["cases"]:
    if c["ok"]:
        print(f"perf-{c['tag']}", c["step_dir"], c["stem"])
PY
export nvcc build prepared
cat "$build/steps.txt" | xargs -P "$jobs" -L 1 sh -c \
  '"$nvcc" -std=c++17 -O1 -arch=sm_'"$arch"' -Xcompiler=-fexceptions,-frtti \
     -I"'"$root"'/runtime/include" -I"'"$root"'/runtime/cuda/include" -I"$prepared/$1" \
     "$prepared/$1/$2.cu" "$build/obj/runner.o" "$build/libckpt.a" \
     -lcublasLt -lpthread -o "$build/bin/$0"' ||
  log "some steps did not link: their rows will say so"
log "$(wc -l < "$build/steps.txt") steps linked"
if [ -n "${BUILD_ONLY:-}" ]; then
  exit 0
fi

# 3. Measure and compare.
cd "$root/python"
status=0
"$python" "$root/bench/gpu/gpu_check.py" run --prepared "$prepared" --bin "$build/bin" \
  --out "$out" "$@" || status=$?
log "done: $out/table.md"
exit $status
