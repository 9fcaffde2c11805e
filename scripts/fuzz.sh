#!/usr/bin/env bash
#===- scripts/fuzz.sh - Coverage-guided fuzzing of the Kite frontend ------===#
#
# Builds unittests/Frontend/FrontendFuzzer.cpp with clang's libFuzzer and
# AddressSanitizer (the frontend sources compiled in, instrumented) and
# runs it for SECONDS (default 60) from the seed corpus (dsl-examples and
# test/Frontend). Installs clang-22 and its runtime if missing. Crashing
# inputs are left as build/fuzz/crash-*.
#
#   bash scripts/fuzz.sh [SECONDS]
#
# ctest runs the same target briefly with its own mutation driver
# (FrontendFuzzShort); this script is the deeper, coverage-guided run.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KITE_BUILD_DIR:-$root/build}"
secs="${1:-60}"
bash "$root/scripts/setup.sh" clang-22 libclang-rt-22-dev >/dev/null
bash "$root/scripts/build.sh" KiteRegistration >/dev/null
out="$build/fuzz"
mkdir -p "$out/corpus"
cp "$root"/dsl-examples/*.kite "$root"/test/Frontend/*.kite "$out/corpus/"
# Definitions as the project build uses them (LLVM's -D flags).
defs="$(llvm-config-22 --cppflags 2>/dev/null | tr ' ' '\n' | grep '^-D' | tr '\n' ' ')"
clang++-22 -std=c++17 -O1 -g -fsanitize=fuzzer,address -DKITE_LIBFUZZER $defs \
  -I"$root/include" -I"$build/include" -isystem /usr/lib/llvm-22/include \
  "$root"/lib/Frontend/*.cpp \
  "$root/unittests/Frontend/FrontendFuzzer.cpp" \
  "$build/lib/Registration/libKiteRegistration.a" \
  "$build/lib/Pipeline/libKitePipeline.a" \
  "$build/lib/Conversion/KiteToGPU/libKiteToGPU.a" \
  "$build/lib/Analysis/libKiteAnalysis.a" \
  "$build/lib/Dialect/Kite/IR/libKiteDialect.a" \
  -L/usr/lib/llvm-22/lib -Wl,-rpath,/usr/lib/llvm-22/lib -lMLIR -lLLVM \
  -o "$out/kite-frontend-libfuzzer"
cd "$out"
./kite-frontend-libfuzzer -max_total_time="$secs" -max_len=8192 \
  -rss_limit_mb=4096 -print_final_stats=1 corpus 2>&1 | tail -15
