#!/usr/bin/env bash
# README command 2: install what is missing, build everything, and run every
# test, each once: first the unit and lit tests in one clang build with
# ASan+UBSan (scripts/sanitize.sh; test/sanitizer-skip.txt and
# test/sanitizer-covered.txt name the tests it leaves to the normal
# build, and why), then each libFuzzer target of that same build for a fixed
# number of executions from a fixed seed (or for CKPT_FUZZ_SECONDS seconds
# each when set; scripts/fuzz.sh), then the normal build and its lit run:
# every lit test and GoogleTest case the sanitized run did not run
# (scripts/ran-under-sanitizers.py reads its results), then the Python
# exporter's tests (pytest on two workers, Debian's interpreter and torch
# 1.13, then the pinned PyTorch 2 environment of scripts/install-torch.sh).
# Ends with one line `N passed, N failed` over all of them (each fuzz target
# counts as one test); exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage's wall time, printed as it ends and again at the end (the
# stage table of docs/building.md comes from these lines).
stages=()
stage_start=$(date +%s)
stage() { # stage <name>: the stage that just ended
  local now; now=$(date +%s)
  stages+=("stage: $1 $((now - stage_start)) s")
  echo "${stages[-1]}"
  stage_start=$now
}

bash scripts/install-deps.sh
stage install

log=$(mktemp)
sanresults=
trap 'rm -f "$log" ${sanresults:+"$sanresults"}' EXIT
count() { # count <lit result label> [log]: "Passed: N" or, padded, "Passed     : N"
  awk -v label="$1" '{ line = $0; sub(/^ +/, "", line); sub(/ +:/, ":", line);
    split(line, f, " "); if (f[1] == label":") n = f[2] } END { print n + 0 }' "${2:-$log}"
}

# The unit and lit tests built with ASan+UBSan; a sanitizer report that no
# test caught (e.g. under `not ckpt-opt`) counts as one more failure each.
# lit's results say which tests ran there.
sanresults=$(mktemp)
sanstatus=0
CKPT_SANITIZE_RESULTS=$sanresults bash scripts/sanitize.sh 2>&1 | tee "$log" || sanstatus=$?
sanpassed=$(( $(count Passed) + $(count Expectedly) ))
sanfailed=$(( $(count Failed) + $(count Unresolved) + $(count Timed) + $(count Unexpectedly) \
  + $(awk '$1 == "Sanitizer" && $2 == "reports:" { n = $3 } END { print n + 0 }' "$log") ))
if [ "$sanstatus" -ne 0 ] && [ "$sanfailed" -eq 0 ]; then
  sanfailed=1 # the build or lit failed without a per-test count
fi
stage sanitizers

# Fuzzing, bounded: one test per target.
fuzzstatus=0
bash scripts/fuzz.sh ${CKPT_FUZZ_SECONDS:+"$CKPT_FUZZ_SECONDS"} 2>&1 | tee "$log" || fuzzstatus=$?
fuzzpassed=$(grep -c '^PASS: ckpt-fuzz-' "$log" || true)
fuzzfailed=$(grep -c '^FAIL: ckpt-fuzz-' "$log" || true)
if [ "$fuzzstatus" -ne 0 ] && [ "$fuzzfailed" -eq 0 ]; then
  fuzzfailed=1 # the fuzz build failed before any target ran
fi
stage fuzz

bash scripts/build.sh
stage build

# Every lit test and unit-test case the sanitized run did not run (left out
# by its lists, or unsupported there: the CUDA tests). Without its results
# (its build failed) everything runs here.
ran=()
gtest_ran=
if [ -s "$sanresults" ]; then
  expr=$(/usr/bin/python3 scripts/ran-under-sanitizers.py "$sanresults") || expr=
  [ -n "$expr" ] && ran=(--filter-out "$expr")
  gtest_ran=$(/usr/bin/python3 scripts/ran-under-sanitizers.py --gtest "$sanresults") || gtest_ran=
fi
status=0
CKPT_GTEST_FILTER=$gtest_ran /usr/bin/python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "${ran[@]}" \
  build/test 2>&1 | tee "$log" || status=$?
passed=$(( $(count Passed) + $(count Expectedly) ))
failed=$(( $(count Failed) + $(count Unresolved) + $(count Timed) + $(count Unexpectedly) ))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1 # lit failed without a per-test count (e.g. no tests discovered)
fi
stage lit

# pytest runs on CKPT_JOBS workers (pytest-xdist), one test at a time to a
# worker, except test_export.py's tests of one model, which share the file's
# cached export (--dist loadgroup; python/tests/conftest.py groups them), one
# intra-op thread each (two workers on two cores; OMP_NUM_THREADS).
jobs=${CKPT_JOBS:-2}
pytest_args=(-q -p no:cacheprovider -n "$jobs" --dist loadgroup)
pystatus=0
(cd python && CKPT_OPT="$PWD/../build/bin/ckpt-opt" OMP_NUM_THREADS=1 \
  /usr/bin/python3 -m pytest "${pytest_args[@]}" tests) 2>&1 | tee "$log" || pystatus=$?
pycount() { # pycount <word>: N from pytest's summary line "N passed, M failed"
  tail -n 1 "$log" | grep -oE "[0-9]+ $1" | grep -oE "[0-9]+" || echo 0
}
pypassed=$(pycount passed)
pyfailed=$(( $(pycount failed) + $(pycount error) + $(pycount errors) ))
if [ "$pystatus" -ne 0 ] && [ "$pyfailed" -eq 0 ]; then
  pyfailed=1 # pytest failed without a count (e.g. exit 5: no tests collected)
fi
stage pytest-torch1

# The exporter's tests again with the pinned PyTorch 2 stack (scripts/
# install-torch.sh), which adds the transformers/torchvision corpus.
torch_python=$(bash scripts/install-torch.sh)
pt2status=0
(cd python && CKPT_OPT="$PWD/../build/bin/ckpt-opt" OMP_NUM_THREADS=1 \
  "$torch_python" -m pytest "${pytest_args[@]}" tests) 2>&1 | tee "$log" || pt2status=$?
pypassed=$(( pypassed + $(pycount passed) ))
pt2failed=$(( $(pycount failed) + $(pycount error) + $(pycount errors) ))
if [ "$pt2status" -ne 0 ] && [ "$pt2failed" -eq 0 ]; then
  pt2failed=1
fi
pyfailed=$(( pyfailed + pt2failed ))
if [ "$pt2status" -ne 0 ]; then pystatus=$pt2status; fi
stage pytest-torch2

printf '%s\n' "${stages[@]}"

echo "$((passed + pypassed + sanpassed + fuzzpassed)) passed, $((failed + pyfailed + sanfailed + fuzzfailed)) failed"
[ "$status" -eq 0 ] && [ "$pystatus" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$pyfailed" -eq 0 ] &&
  [ "$sanstatus" -eq 0 ] && [ "$sanfailed" -eq 0 ] && [ "$fuzzstatus" -eq 0 ] && [ "$fuzzfailed" -eq 0 ]
