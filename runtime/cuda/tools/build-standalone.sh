#!/usr/bin/env bash
# Builds the CUDA device runtime, the host runtime and the two device tools
# (ckpt-cuda-kernel-check, ckpt-cuda-smoke) with nvcc alone: no CMake, no
# MLIR/LLVM. For GPU machines that have CUDA but not the compiler's
# dependencies. Needs OpenBLAS's cblas.h and libopenblas (the host kernels
# that the kernel check compares with use them).
#
# Usage: runtime/cuda/tools/build-standalone.sh OUTDIR [ARCH [JOBS]]
#   ARCH: compute capability without the dot (default 90), JOBS: parallel
#   compiles (default: all cores). NVCC overrides the compiler.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:?usage: build-standalone.sh OUTDIR [ARCH [JOBS]]}
arch=${2:-90}
jobs=${3:-$(nproc)}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

blas_inc=
for d in /usr/include/x86_64-linux-gnu/openblas-pthread \
         /usr/include/aarch64-linux-gnu/openblas-pthread /usr/include/openblas \
         /usr/include; do
  if [ -f "$d/cblas.h" ]; then blas_inc=$d; break; fi
done
if [ -z "$blas_inc" ]; then
  echo "build-standalone.sh: cblas.h not found (install libopenblas-dev)" >&2
  exit 1
fi

mkdir -p "$out/obj"
flags=(-O3 -std=c++17 "-gencode=arch=compute_$arch,code=sm_$arch"
       -Xcompiler=-fexceptions,-frtti,-Wall,-Wextra
       -I"$root/runtime/include" -I"$root/runtime/lib"
       -I"$root/runtime/cuda/include" -I"$root/runtime/cuda/lib" -I"$blas_inc")
sources=("$root"/runtime/lib/*.cpp "$root"/runtime/cuda/lib/*.cpp
         "$root"/runtime/cuda/lib/*.cu
         "$root/runtime/cuda/tools/ckpt-cuda-kernel-check.cpp"
         "$root/runtime/cuda/tools/ckpt-cuda-smoke.cpp")
printf '%s\n' "${sources[@]}" | xargs -P "$jobs" -I{} sh -c \
  'f="$1"; shift; o="$0/obj/$(echo "$f" | tr / _).o"; "$@" -c "$f" -o "$o"' \
  "$out" {} "$nvcc" "${flags[@]}"

objects=()
for f in "${sources[@]}"; do
  case "$f" in
    */tools/*) ;;
    *) objects+=("$out/obj/$(echo "$f" | tr / _).o") ;;
  esac
done
for tool in ckpt-cuda-kernel-check ckpt-cuda-smoke; do
  "$nvcc" "-gencode=arch=compute_$arch,code=sm_$arch" -o "$out/$tool" \
    "$out/obj/$(echo "$root/runtime/cuda/tools/$tool.cpp" | tr / _).o" \
    "${objects[@]}" -lcublasLt -lopenblas -lpthread
done
echo "built $out/ckpt-cuda-kernel-check and $out/ckpt-cuda-smoke (sm_$arch)"
