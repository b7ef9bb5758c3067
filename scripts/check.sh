#!/usr/bin/env bash
# README command 2: install what is missing, build everything, and run every
# test: the lit regression tests and GoogleTest unit tests (in parallel), then
# the Python exporter's tests (pytest, Debian's interpreter and torch). Ends
# with one line `N passed, N failed` over both; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
/usr/bin/python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv build/test 2>&1 | tee "$log" || status=$?

count() { # count <lit result label>
  awk -v label="$1" '$1 == label":" { n = $2 } END { print n + 0 }' "$log"
}
passed=$(( $(count Passed) + $(count Expectedly) ))
failed=$(( $(count Failed) + $(count Unresolved) + $(count Timed) + $(count Unexpectedly) ))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1 # lit failed without a per-test count (e.g. no tests discovered)
fi

pystatus=0
(cd python && CKPT_OPT="$PWD/../build/bin/ckpt-opt" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests) 2>&1 | tee "$log" || pystatus=$?
pycount() { # pycount <word>: N from pytest's summary line "N passed, M failed"
  tail -n 1 "$log" | grep -oE "[0-9]+ $1" | grep -oE "[0-9]+" || echo 0
}
pypassed=$(pycount passed)
pyfailed=$(( $(pycount failed) + $(pycount error) + $(pycount errors) ))
if [ "$pystatus" -ne 0 ] && [ "$pyfailed" -eq 0 ]; then
  pyfailed=1 # pytest failed without a count (e.g. exit 5: no tests collected)
fi

echo "$((passed + pypassed)) passed, $((failed + pyfailed)) failed"
[ "$status" -eq 0 ] && [ "$pystatus" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$pyfailed" -eq 0 ]
