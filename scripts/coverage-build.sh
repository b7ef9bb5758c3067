#!/usr/bin/env bash
# Configures (once) and builds build-coverage/: clang 14 at -O0 with LLVM's
# source-based coverage (-fprofile-instr-generate -fcoverage-mapping), CUDA
# and the fuzzers off. scripts/select-sanitizer-tests.py runs the tests in
# it, one profile per test, to choose the lit tests the sanitized run needs.
# Usage: scripts/coverage-build.sh [ninja targets...]
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${CKPT_COVERAGE_BUILD_DIR:-build-coverage}
jobs=${CKPT_JOBS:-2}
source scripts/cmake-common.sh

cov="-fprofile-instr-generate -fcoverage-mapping"
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -B "$build_dir" "${ckpt_cmake_args[@]}" \
    -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_C_FLAGS="$cov -w" -DCMAKE_CXX_FLAGS="$cov -w" \
    -DCMAKE_C_FLAGS_DEBUG="-O0 -DNDEBUG" -DCMAKE_CXX_FLAGS_DEBUG="-O0 -DNDEBUG" \
    -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fprofile-instr-generate" \
    -DCKPT_WERROR=OFF -DCKPT_ENABLE_CUDA=OFF >/dev/null
fi
ninja -C "$build_dir" -j "$jobs" "$@"
