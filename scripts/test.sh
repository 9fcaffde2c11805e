#!/usr/bin/env bash
#===- scripts/test.sh - Set up, build and run the whole Kite test suite ----===#
#
# The README's test command: installs what is missing, builds everything and
# runs the lit suite and the unit tests, printing each runner's summary.
# Exits non-zero on any failure. GPU tests skip themselves without a GPU.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KITE_BUILD_DIR:-$root/build}"

bash "$root/scripts/setup.sh"
start=$(date +%s)
bash "$root/scripts/build.sh"
echo "build: $(( $(date +%s) - start )) s"

status=0
echo "== lit =="
/usr/lib/llvm-22/bin/lit -sv "$build/test" || status=1
echo "== unit tests =="
ctest --test-dir "$build" --output-on-failure --no-tests=error || status=1
echo "== fuzzing (libFuzzer + ASan: the frontend, the kite dialect and kite-run's argument specs, 20 s each) =="
bash "$root/scripts/fuzz.sh" "${KITE_FUZZ_SECONDS:-20}" || status=1

if [ $status -ne 0 ]; then
  echo "TESTS FAILED"
else
  echo "ALL TESTS PASSED"
fi
exit $status
