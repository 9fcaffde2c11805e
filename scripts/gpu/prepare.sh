#!/usr/bin/env bash
#===- scripts/gpu/prepare.sh - Build what the GPU machine needs ------------===#
#
# The GPU machine has no LLVM: compile here every kernel the GPU tests and
# benchmarks use to PTX (with launch metadata) into .gpu/, which the device
# call carries. Each dsl-example is built twice: as written ("plain") and
# with its pointer parameters declared 16-byte aligned ("aligned", what a
# runtime specializing on cudaMalloc'd pointers would compile), and a third
# time with n also divisible by 16 ("spec16").
#
# Then, with the device tool:  run(command="bash scripts/gpu/run.sh", carry=[".gpu"])
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${KITE_BUILD_DIR:-$root/build}"
out="$root/.gpu"
bash "$root/scripts/build.sh" kitec >/dev/null
rm -rf "$out" && mkdir -p "$out"
kitec="$build/bin/kitec"

compile() { # name source
  "$kitec" "$2" -o "$out/$1.ptx" --metadata "$out/$1.json"
}
for src in "$root"/dsl-examples/{vector_add,dropout,seeded_dropout}.mlir \
           "$root"/test/GPU/kernels/*.mlir; do
  name="$(basename "$src" .mlir)"
  compile "$name" "$src"
  sed -E 's/(!kite\.ptr<[a-z0-9]+>) \{/\1 {kite.divisibility = 16 : i32, /g' \
    "$src" > "$out/$name.aligned.mlir"
  compile "$name.aligned" "$out/$name.aligned.mlir"
  # "spec16": also the element count n divisible by 16 (what Triton and Kite's
  # runtime specialize on when the value is), so masks are uniform per vector.
  sed -E 's/i32 \{kite.name = "n"\}/i32 {kite.divisibility = 16 : i32, kite.name = "n"}/' \
    "$out/$name.aligned.mlir" > "$out/$name.spec16.mlir"
  compile "$name.spec16" "$out/$name.spec16.mlir"
done
cp "$root"/scripts/gpu/*.py "$out/"

# The runtime, self-contained (MLIR/LLVM inside libkite.so), with the host
# programs, the GPU test suite and the runtime benchmarks.
if [ "${KITE_SKIP_RUNTIME:-0}" != 1 ]; then
  static="${KITE_STATIC_BUILD_DIR:-$root/build-static}"
  bash "$root/scripts/gpu/build-static.sh" >/dev/null
  rt="$out/rt"
  mkdir -p "$rt/lib" "$rt/bin" "$rt/examples" "$rt/unittests" "$rt/dsl-examples" "$rt/bench"
  strip --strip-unneeded -o "$rt/lib/libkite.so" "$static/lib/libkite.so"
  # Self-contained means no LLVM/MLIR shared library behind it (naming an
  # MLIR CMake target in a LINK list pulls libLLVM.so in unnoticed).
  if readelf -d "$rt/lib/libkite.so" | grep NEEDED | grep -Eq 'LLVM|MLIR'; then
    echo "prepare.sh: libkite.so depends on a shared LLVM/MLIR library:" >&2
    readelf -d "$rt/lib/libkite.so" | grep NEEDED >&2
    exit 1
  fi
  . "$root/scripts/gpu/programs.sh"
  for p in $KITE_HOST_PROGRAMS; do
    strip -o "$rt/examples/$p" "$static/examples/$p"
  done
  strip -o "$rt/unittests/KiteRuntimeGPUTests" "$static/unittests/KiteRuntimeGPUTests"
  strip -o "$rt/bin/kite-bench-runtime" "$static/bin/kite-bench-runtime"
  strip -o "$rt/bin/kite-bench" "$static/bin/kite-bench"
  cp "$root"/dsl-examples/*.mlir "$root"/dsl-examples/*.kite "$rt/dsl-examples/"
  cp "$root"/bench/kernels/*.mlir "$root"/bench/kernels/*.kite \
     "$root"/bench/kernels/*.py "$rt/bench/"
  xz -T0 -3 -f "$rt/lib/libkite.so" # carried compressed; run.sh unpacks
fi
# Ahead-of-time export (kitec --emit=c) and a C consumer, built and run
# there by run.sh (no Kite, no CUDA headers needed).
mkdir -p "$out/aot"
"$kitec" "$root/dsl-examples/vector_add.kite" --emit=c --chip=sm_80,sm_90a \
  --specialize=x_ptr=div16,y_ptr=div16,output_ptr=div16,n=div16 -o "$out/aot/vector_add"
cp "$root/dsl-examples/vector_add_aot.c" "$out/aot/"
# The tutorial matmul in every operand orientation (bench.sh's "orient"
# part: scripts/gpu/bench_orient.py), exported to C, carried compressed.
if [ "${KITE_SKIP_ORIENT:-0}" != 1 ]; then
  tmp="$(mktemp -d)"
  KITEC="$kitec" KITE_ORIENT_DTYPES="${KITE_ORIENT_DTYPES:-f16 bf16 tf32 fp8}" \
    bash "$root/scripts/gpu/orient_variants.sh" "$tmp/orient" >/dev/null
  rm -f "$tmp"/orient/*.log
  tar -C "$tmp" -cJf "$out/orient.tar.xz" orient
  rm -rf "$tmp"
fi
du -sh "$out"
ls "$out"
