#!/usr/bin/env bash
# README command 2: install what is missing, build everything, and run every
# test (lit regression tests and GoogleTest unit tests, in parallel). Ends
# with one line `N passed, N failed`; exits non-zero on any failure.
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
echo "$passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
