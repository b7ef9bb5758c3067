#!/usr/bin/env bash
# Configures (once) and builds the sanitized tree, build-sanitize/, shared by
# scripts/sanitize.sh (lit and unit tests under ASan+UBSan) and
# scripts/fuzz.sh (the libFuzzer targets): one clang 14 build serves both.
# Every ckpt source gets -fsanitize=address,undefined plus libFuzzer's
# coverage instrumentation (fuzzer-no-link: it slows the tests that run here
# too, part of why test/sanitizer-skip.txt exists); the fuzz targets alone
# link -fsanitize=fuzzer
# (fuzz/CMakeLists.txt). The CUDA device runtime is left out
# (-DCKPT_ENABLE_CUDA=OFF): nvcc-compiled code is not instrumented, and the
# normal build compiles it.
# Usage: scripts/sanitized-build.sh [ninja targets...]   (default: everything)
# Environment: CKPT_SANITIZE_BUILD_DIR (default build-sanitize), CKPT_JOBS (2),
# CKPT_SANITIZE_CC / CKPT_SANITIZE_CXX (clang-14 / clang++-14).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${CKPT_SANITIZE_BUILD_DIR:-build-sanitize}
jobs=${CKPT_JOBS:-2}
cc=${CKPT_SANITIZE_CC:-clang-14}
cxx=${CKPT_SANITIZE_CXX:-clang++-14}
source scripts/cmake-common.sh

# -O1 with NDEBUG, like Debian's release LLVM/MLIR libraries: headers whose
# layout depends on NDEBUG (llvm::Statistic, the base of MLIR's pass
# statistics) must agree with libMLIR.so, or pass statistics touch
# uninitialized memory (found by the pipeline fuzzer). -w: clang warns about
# MLIR-generated code; the gcc build is the warning gate (CKPT_WERROR).
san="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer"
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -B "$build_dir" "${ckpt_cmake_args[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_C_FLAGS="$san -w" -DCMAKE_CXX_FLAGS="$san -w" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCKPT_WERROR=OFF -DCKPT_ENABLE_FUZZERS=ON -DCKPT_ENABLE_CUDA=OFF >/dev/null
fi
ninja -C "$build_dir" -j "$jobs" "$@"
