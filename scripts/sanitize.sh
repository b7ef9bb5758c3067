#!/usr/bin/env bash
# Builds everything (ckpt-opt, libraries, unit tests) in build-asan/ with gcc and
# -fsanitize=address,undefined -fno-sanitize-recover=all, then runs the lit
# suite (regression + unit tests) against it. Any sanitizer report fails the
# run, including one from a command a test expects to fail (`not ckpt-opt`):
# reports go to files under build-asan/sanitizer-logs/, which must stay empty.
# Ends with lit's summary; exits non-zero on any failure or report.
# The CUDA device runtime is left out (-DCKPT_ENABLE_CUDA=OFF): nvcc-compiled
# code is not instrumented, and the normal build already compiles it.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${CKPT_ASAN_BUILD_DIR:-build-asan}
jobs=${CKPT_JOBS:-2}
# -O1 with NDEBUG, like Debian's release LLVM/MLIR libraries: headers whose
# layout depends on NDEBUG (llvm::Statistic, the base of MLIR's pass
# statistics) must agree with libMLIR.so, or pass statistics touch
# uninitialized memory (found by the pipeline fuzzer).
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -G Ninja -B "$build_dir" \
    -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-19/build/utils/lit/lit.py \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCKPT_ENABLE_CUDA=OFF >/dev/null
fi
ninja -C "$build_dir" -j "$jobs"

logs="$PWD/$build_dir/sanitizer-logs"
rm -rf "$logs" && mkdir -p "$logs"
# allow_user_poisoning=0 is the one suppression: LLVM's BumpPtrAllocator, an
# inline template, poisons its slabs in our ASan-compiled instantiations while
# libMLIR.so's uninstrumented instantiation hands that memory out without
# unpoisoning it -- a false use-after-poison inside MLIR (docs/building.md).
# abort_on_error: a report kills the process (a crash, not exit 1) as well.
# Leak suppressions, only for leaks inside third-party libraries we do not
# build: CoinUtils' presolve (used by CBC, lib/Remat's exact engine) leaks a
# 1-byte new[] in presolve_dupmajor on every solve.
cat > "$build_dir/lsan.supp" <<'SUPP'
leak:libCoinUtils.so
SUPP
export LSAN_OPTIONS="suppressions=$PWD/$build_dir/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1:abort_on_error=1:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1:log_path=$logs/ubsan"
if [ -x /usr/lib/llvm-19/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-19/bin/llvm-symbolizer
fi

status=0
/usr/bin/python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv -j "$jobs" "$build_dir/test" || status=$?

reports=$(find "$logs" -type f | wc -l)
if [ "$reports" -ne 0 ]; then
  echo "sanitize: $reports sanitizer report(s):" >&2
  for f in "$logs"/*; do echo "--- $f" >&2; head -50 "$f" >&2; done
  status=1
fi
echo "Sanitizer reports: $reports"
exit "$status"
