#!/usr/bin/env bash
#===- scripts/gpu/bench.sh - The benchmark suite, on the GPU machine ------===#
#
# Run after scripts/gpu/prepare.sh (here), with the device tool:
#   run(command="bash scripts/gpu/bench.sh", carry=[".gpu"])
# In one call on the same GPU: Kite's kernels (kite-bench over the
# self-contained runtime), the same kernels in Triton and cuBLAS and the
# device copy (bench_triton.py), the runtime's launch and compile figures
# (kite-bench-runtime); then one table, bench.json and bandwidth.png in
# $OUT. KITE_BENCH_QUICK=1 runs a small subset; KITE_BENCH_ONLY picks parts
# (any of 1d, rows, math, perceptron, attention, attnbwd, matmul, fp8, runtime,
# orient, library, spellings; default all; matmul includes fp8). KITE_BENCH_BLOCKS=128x64w8,32x64w4s2 runs those
# attention configurations (BMxBNwWARPS[sSTAGES]; forward and backward)
# instead of the built-in lists, KITE_BENCH_DROPOUT=0
# leaves out the attention rows with dropout; KITE_BENCH_HEAD_DIMS=128,
# KITE_BENCH_LENGTHS=4096 and KITE_BENCH_CAUSAL=0 (or 1) keep only those
# attention rows (e.g. one kernel under ncu); KITE_BENCH_PROGRAMS=132
# launches Z = 1 and as many heads as make 132 programs (one wave: the
# time of one program, to fit against the length).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export PYTHONUNBUFFERED=1
out="${OUT:-/tmp/kite-bench}"
mkdir -p "$out"
rt=.gpu/rt
[ -f $rt/lib/libkite.so.xz ] && xz -d -f $rt/lib/libkite.so.xz
quick=""
[ "${KITE_BENCH_QUICK:-0}" = 1 ] && quick="--quick"
export KITE_CACHE_DIR="$(mktemp -d)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
results="$out/results.jsonl"
: > "$results"
echo "== Kite"
$rt/bin/kite-bench "$rt" $quick | tee -a "$results"
echo "== Triton, cuBLAS, device copy"
python3 .gpu/bench_triton.py $quick | tee -a "$results"
if [[ "${KITE_BENCH_ONLY:-runtime}" == *runtime* ]]; then
echo "== runtime"
(cd $rt && ./bin/kite-bench-runtime launch bench/axpby.mlir) | tee -a "$results"
for i in 1 2 3 4 5; do
  d="$(mktemp -d)"
  (cd $rt && CUDA_CACHE_DISABLE=1 KITE_CACHE_DIR="$d" ./bin/kite-bench-runtime compile dsl-examples/seeded_dropout.mlir) | tee -a "$results"
  (cd $rt && CUDA_CACHE_DISABLE=1 KITE_CACHE_DIR="$d" ./bin/kite-bench-runtime compile dsl-examples/seeded_dropout.mlir) | tee -a "$results"
  # The same cold compile without tiers (the optimized code at once), and
  # without tiers with ptxas started only once the PTX is ready.
  d="$(mktemp -d)"
  (cd $rt && CUDA_CACHE_DISABLE=1 KITE_TIERED=0 KITE_CACHE_DIR="$d" ./bin/kite-bench-runtime compile dsl-examples/seeded_dropout.mlir) \
    | sed 's/"kernel": "seeded_dropout"/"kernel": "seeded_dropout, KITE_TIERED=0"/' | tee -a "$results"
  d="$(mktemp -d)"
  (cd $rt && CUDA_CACHE_DISABLE=1 KITE_TIERED=0 KITE_EARLY_PTXAS=0 KITE_CACHE_DIR="$d" ./bin/kite-bench-runtime compile dsl-examples/seeded_dropout.mlir) \
    | sed 's/"kernel": "seeded_dropout"/"kernel": "seeded_dropout, KITE_TIERED=0 KITE_EARLY_PTXAS=0"/' | tee -a "$results"
done
# The tutorial matmul on wgmma (f16), cold: first launch in a new process.
for i in 1 2 3; do
  d="$(mktemp -d)"
  (cd $rt && CUDA_CACHE_DISABLE=1 KITE_CACHE_DIR="$d" ./bin/kite-bench-runtime matmul bench/matmul_f16.kite 1024) | grep '"compile"' | tee -a "$results"
done
fi
echo
python3 .gpu/bench_report.py "$results" "$out"
# The tutorial matmul in every operand orientation (NN, NT, TN, TT) beside
# Triton and cuBLAS: its own table, last.
if [[ "${KITE_BENCH_ONLY:-orient}" == *orient* ]] && [ -f .gpu/orient.tar.xz ]; then
  echo "== operand orientations"
  tar -C .gpu -xJf .gpu/orient.tar.xz
  python3 .gpu/bench_orient.py .gpu/orient | grep -v '^{'
  cp .gpu/orient/orient.json "$out/" 2>/dev/null || true
fi
