#!/usr/bin/env bash
# Builds build-sanitize/ (scripts/sanitized-build.sh: clang 14,
# -fsanitize=address,undefined -fno-sanitize-recover=all, shared with the
# fuzz targets) and runs the unit tests and the lit tests under it, except
# those listed in test/sanitizer-skip.txt, each with the reason the normal
# build's run (scripts/check.sh runs it after this one, on every test this
# run did not run) is where it belongs, and the unit-test cases and lit
# tests of test/sanitizer-covered.txt, whose every source line the kept
# tests reach (scripts/select-sanitizer-tests.py measures it). Any
# sanitizer report fails the run, including one from a command a test
# expects to fail (`not ckpt-opt`): reports go to files under
# build-sanitize/sanitizer-logs/, which must stay empty.
# Ends with lit's summary and `Sanitizer reports: N`; exits non-zero on any
# failure or report.
# Usage: scripts/sanitize.sh [--all]   (--all: the skipped tests too)
# Environment: CKPT_SANITIZE_RESULTS (a file for lit's JSON results),
# CKPT_SANITIZE_BUILD_DIR (build-sanitize), CKPT_JOBS (2).
set -euo pipefail
cd "$(dirname "$0")/.."

all=0
case "${1:-}" in
  --all) all=1 ;;
  "") ;;
  *) echo "usage: scripts/sanitize.sh [--all]" >&2; exit 2 ;;
esac

build_dir=${CKPT_SANITIZE_BUILD_DIR:-build-sanitize}
jobs=${CKPT_JOBS:-2}
CKPT_SANITIZE_BUILD_DIR=$build_dir bash scripts/sanitized-build.sh

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

# Left to the normal build's run: test/sanitizer-skip.txt (by hand, each with
# its reason) and test/sanitizer-covered.txt (tests whose every source line
# the kept tests reach; written by scripts/select-sanitizer-tests.py).
# Entries: `lit <path under test/>` or `gtest <Suite.Test>`, then
# `-- <reason>`. Lit tests become one --filter-out expression; GoogleTest
# cases a negative GTEST_FILTER (test/Unit/lit.cfg.py passes it on).
lists=()
for list in test/sanitizer-skip.txt test/sanitizer-covered.txt; do
  [ -f "$list" ] && lists+=("$list")
done
filter=()
# Every entry must name a test that exists: a renamed test would otherwise
# quietly run again, or a stale entry hide nothing.
for list in "${lists[@]}"; do
  while read -r kind name _; do
    case "$kind" in
      lit) [ -f "test/$name" ] || { echo "sanitize: $list: no lit test test/$name" >&2; exit 2; } ;;
      gtest)
        grep -rqE "TEST(_F)?\\(${name%%.*}, ${name#*.}\\)" unittests ||
          { echo "sanitize: $list: no GoogleTest case $name in unittests/" >&2; exit 2; } ;;
      '#'*|'') ;;
      *) echo "sanitize: $list: unknown kind '$kind' (lit or gtest)" >&2; exit 2 ;;
    esac
  done < "$list"
done
if [ "$all" -eq 0 ]; then
  lit_skip=$(awk '$1 == "lit" { gsub(/[.]/, "[.]", $2); printf "%s%s", sep, $2; sep = "|" }' \
    "${lists[@]}")
  gtest_skip=$(awk '$1 == "gtest" { printf "%s%s", sep, $2; sep = ":" }' "${lists[@]}")
  [ -n "$lit_skip" ] && filter=(--filter-out "($lit_skip)\$")
  [ -n "$gtest_skip" ] && export CKPT_GTEST_FILTER="-$gtest_skip"
  echo "sanitize: leaving $(cat "${lists[@]}" | grep -cE '^(lit|gtest) ') tests to the normal build's run (${lists[*]})"
fi

# CKPT_SANITIZE_RESULTS: a file for lit's JSON results (scripts/check.sh
# leaves the tests this run ran out of the normal build's run).
results=()
[ -n "${CKPT_SANITIZE_RESULTS:-}" ] && results=(-o "$CKPT_SANITIZE_RESULTS")
status=0
/usr/bin/python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv -j "$jobs" "${filter[@]}" \
  "${results[@]}" "$build_dir/test" || status=$?

reports=$(find "$logs" -type f | wc -l)
if [ "$reports" -ne 0 ]; then
  echo "sanitize: $reports sanitizer report(s):" >&2
  for f in "$logs"/*; do echo "--- $f" >&2; head -50 "$f" >&2; done
  status=1
fi
echo "Sanitizer reports: $reports"
exit "$status"
