#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) in build-sanitize/ (the sanitized tree
# of scripts/sanitized-build.sh, clang with ASan+UBSan; the targets link
# -fsanitize=fuzzer), then runs each one on a corpus seeded
# from the examples and test inputs: by default for a fixed number of
# executions from a fixed seed (the same inputs on every run of a fresh
# build, the three targets at once, about 45 s on the 2-core machine; CI), or
# for the given time (longer local fuzzing, from a random seed).
# Usage: scripts/fuzz.sh [seconds-per-target]
# Prints one line per target, `PASS: <target> (N executions in S s)` or
# `FAIL: <target> ...`; exits non-zero on any crash, leak, timeout, out-of-
# memory or sanitizer report (the input that caused it is kept in
# build-sanitize/artifacts/<target>/). The corpus grows across runs in
# build-sanitize/corpus/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-}
build_dir=${CKPT_SANITIZE_BUILD_DIR:-build-sanitize}

# The sanitized tree scripts/sanitize.sh tests (scripts/sanitized-build.sh:
# clang 14, ASan+UBSan and libFuzzer's coverage instrumentation on every ckpt
# source); the fuzz targets link -fsanitize=fuzzer (fuzz/CMakeLists.txt).
CKPT_SANITIZE_BUILD_DIR=$build_dir bash scripts/sanitized-build.sh ckpt-fuzzers

# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs when
# compiled with ASan; our (instrumented) instantiation poisons memory that
# libMLIR.so's uninstrumented instantiation hands out without unpoisoning,
# which reads as use-after-poison inside MLIR. See docs/building.md.
export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1:abort_on_error=0:symbolize=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
if [ -x /usr/lib/llvm-19/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-19/bin/llvm-symbolizer
fi

seed() { # seed <corpus dir> <files...>
  local dir=$1; shift
  mkdir -p "$dir"
  for f in "$@"; do cp -n "$f" "$dir/" 2>/dev/null || true; done
}
seed "$build_dir/corpus/ckpt-fuzz-import" examples/graphs/*.tiny.json \
  test/Import/Inputs/*.json
seed "$build_dir/corpus/ckpt-fuzz-mlir" examples/*.mlir

mkdir -p "$build_dir/corpus/ckpt-fuzz-pipeline"
declare -A dict=([ckpt-fuzz-import]=fuzz/import.dict [ckpt-fuzz-mlir]=fuzz/mlir.dict
                 [ckpt-fuzz-pipeline]=)
# Executions per target in the default, bounded mode (each target's rate
# differs by 10x: the import fuzzer builds and verifies whole steps); a
# time cap guards against a much slower machine.
declare -A runs=([ckpt-fuzz-import]=2500 [ckpt-fuzz-mlir]=25000
                 [ckpt-fuzz-pipeline]=8000)
# The targets run at the same time (each one process; on the 2-core machine
# the three take about as long as the slowest one alone): each writes its
# line to <build>/<target>.result, read back in a fixed order.
fuzz_target() { # fuzz_target <target>: runs it, writes <build>/<target>.result
  local target=$1 artifacts="$build_dir/artifacts/$1" log="$build_dir/$1.log"
  local rc=0 start took execs bound
  mkdir -p "$artifacts"
  if [ -n "$seconds" ]; then
    echo "fuzz: running $target for ${seconds}s"
    bound=(-max_total_time="$seconds")
  else
    echo "fuzz: running $target for ${runs[$target]} executions (seed 1)"
    bound=(-runs="${runs[$target]}" -seed=1 -max_total_time=180)
  fi
  start=$(date +%s)
  "$build_dir/bin/$target" "$build_dir/corpus/$target" \
    ${dict[$target]:+-dict="${dict[$target]}"} "${bound[@]}" -timeout=20 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    >"$log" 2>&1 || rc=$?
  took=$(( $(date +%s) - start ))
  execs=$(awk '/stat::number_of_executed_units:/ { n = $2 } END { print n + 0 }' "$log")
  if [ "$rc" -eq 0 ] && ! grep -qE "ERROR: (Address|Leak|Undefined)Sanitizer|runtime error:|==ERROR: libFuzzer" "$log"; then
    echo "PASS: $target ($execs executions in $took s)" > "$build_dir/$target.result"
  else
    {
      echo "fuzz: $target FAILED (exit $rc); log $log, input in $artifacts/:"
      grep -E "ERROR|SUMMARY|runtime error|Test unit written|^    #[0-9]+ " "$log" | head -60 || true
    } >&2
    echo "FAIL: $target ($execs executions; see $log)" > "$build_dir/$target.result"
  fi
}
targets=(ckpt-fuzz-import ckpt-fuzz-mlir ckpt-fuzz-pipeline)
for target in "${targets[@]}"; do
  rm -f "$build_dir/$target.result"
  fuzz_target "$target" &
done
wait
status=0
summary=()
for target in "${targets[@]}"; do
  line=$(cat "$build_dir/$target.result" 2>/dev/null || echo "FAIL: $target (no result)")
  summary+=("$line")
  case $line in PASS:*) ;; *) status=1 ;; esac
done
printf '%s\n' "${summary[@]}"
exit "$status"
