#!/usr/bin/env bash
#===- scripts/fuzz.sh - Coverage-guided fuzzing with libFuzzer ------------===#
#
# Builds the fuzz targets with clang's libFuzzer and AddressSanitizer (the
# code under test compiled in, instrumented) and runs each for SECONDS
# (default 60) from its seed corpus. Installs clang-22 and its runtime if
# missing. Crashing inputs are left as build/fuzz/<target>/crash-*.
#   frontend: unittests/Frontend/FrontendFuzzer.cpp over .kite sources
#             (import and verify; a quarter of what verifies also through
#             the pipeline up to the LLVM dialect, parameters specialized
#             as divisible by 16; seeds: dsl-examples, test/Frontend, bench/kernels;
#             dictionary: unittests/Frontend/frontend.dict);
#             lib/Frontend instrumented;
#   dialect:  unittests/Fuzz/DialectFuzzer.cpp over kite-dialect IR (parse,
#             verify, interpret, lower to PTX; seeds: the dialect's tests and
#             the examples' .mlir); the dialect and the interpreter
#             instrumented;
#   argspec:  unittests/Fuzz/ArgSpecFuzzer.cpp over kite-run's argument
#             specs (seeds: unittests/Fuzz/argspecs.seeds, one a line);
#             tools/kite-run/ArgSpecs.cpp instrumented.
#
#   bash scripts/fuzz.sh [SECONDS] [frontend|dialect|argspec|all]   (default all)
#
# ctest runs each target briefly with their own mutation driver
# (FrontendFuzzShort, DialectFuzzShort, ArgSpecFuzzShort); this script is the deeper,
# coverage-guided run.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KITE_BUILD_DIR:-$root/build}"
secs="${1:-60}"
which="${2:-all}"
case "$which" in frontend|dialect|argspec|all) ;; *)
  echo "fuzz.sh: unknown target '$which' (frontend, dialect, argspec or all)" >&2; exit 2;;
esac
bash "$root/scripts/setup.sh" clang-22 libclang-rt-22-dev >/dev/null
bash "$root/scripts/build.sh" KiteRegistration KiteInterpreter KiteSupport kite_runtime >/dev/null
# Definitions as the project build uses them (LLVM's -D flags).
defs="$(llvm-config-22 --cppflags 2>/dev/null | tr ' ' '\n' | grep '^-D' | tr '\n' ' ')"
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer,address -DKITE_LIBFUZZER $defs
       -I"$root/include" -I"$build/include" -isystem /usr/lib/llvm-22/include)
libs=("$build/lib/Registration/libKiteRegistration.a"
      "$build/lib/Pipeline/libKitePipeline.a"
      "$build/lib/Dialect/Kite/Transforms/libKiteTransforms.a"
      "$build/lib/Conversion/KiteToGPU/libKiteToGPU.a"
      "$build/lib/Analysis/libKiteAnalysis.a"
      "$build/lib/Dialect/Kite/IR/libKiteDialect.a"
      "$build/lib/Support/libKiteSupport.a"
      -L/usr/lib/llvm-22/lib -Wl,-rpath,/usr/lib/llvm-22/lib -lMLIR -lLLVM)
status=0
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons the rest of a new
# slab and unpoisons what it hands out only where its header is compiled
# with ASan. MLIR's uniquer allocators are shared by the instrumented Kite
# code (a new kite type's storage can start a slab) and the uninstrumented
# libMLIR.so (whose allocations then land in poisoned memory): a false
# use-after-poison in RankedTensorType::get. Heap errors are still caught.
run() { # name, binary, corpus dir, [libFuzzer options...]
  echo "-- $1 (libFuzzer + ASan, $secs s)"
  (cd "$(dirname "$2")" &&
   ASAN_OPTIONS="allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
   "$2" -max_total_time="$secs" -max_len=8192 -rss_limit_mb=4096 \
        -print_final_stats=1 "${@:4}" "$3" 2>&1 | tail -25) || status=1
}
if [ "$which" = all ] || [ "$which" = frontend ]; then
  out="$build/fuzz"
  mkdir -p "$out/corpus"
  cp "$root"/dsl-examples/*.kite "$root"/test/Frontend/*.kite \
     "$root"/bench/kernels/*.kite "$out/corpus/"
  clang++-22 "${flags[@]}" "$root"/lib/Frontend/*.cpp \
    "$root/unittests/Frontend/FrontendFuzzer.cpp" "${libs[@]}" \
    -o "$out/kite-frontend-libfuzzer"
  run frontend "$out/kite-frontend-libfuzzer" corpus \
    -dict="$root/unittests/Frontend/frontend.dict"
fi
if [ "$which" = all ] || [ "$which" = dialect ]; then
  out="$build/fuzz/dialect"
  mkdir -p "$out/corpus"
  cp "$root"/dsl-examples/*.mlir "$root"/test/Dialect/Kite/*.mlir \
     "$root"/test/GPU/kernels/*.mlir "$out/corpus/"
  clang++-22 "${flags[@]}" "$root"/lib/Dialect/Kite/IR/*.cpp \
    "$root"/lib/Interpreter/*.cpp "$root/unittests/Fuzz/DialectFuzzer.cpp" \
    "$build/lib/Frontend/libKiteFrontend.a" "${libs[@]}" \
    -o "$out/kite-dialect-libfuzzer"
  run dialect "$out/kite-dialect-libfuzzer" corpus
fi
if [ "$which" = all ] || [ "$which" = argspec ]; then
  out="$build/fuzz/argspec"
  mkdir -p "$out/corpus"
  # One seed a file (libFuzzer's corpus is a directory of inputs).
  n=0
  while IFS= read -r line; do
    printf '%s' "$line" > "$out/corpus/seed$n"; n=$((n + 1))
  done < "$root/unittests/Fuzz/argspecs.seeds"
  clang++-22 -std=c++17 -O1 -g -fsanitize=fuzzer,address -DKITE_LIBFUZZER \
    -I"$root/include" -I"$root/tools/kite-run" \
    "$root/tools/kite-run/ArgSpecs.cpp" "$root/unittests/Fuzz/ArgSpecFuzzer.cpp" \
    "$build/lib/Support/libKiteSupport.a" -L"$build/lib" -lkite \
    -Wl,-rpath,"$build/lib" -o "$out/kite-argspec-libfuzzer"
  run argspec "$out/kite-argspec-libfuzzer" corpus
fi
exit $status
