#!/usr/bin/env bash
#===- scripts/gpu/run.sh - Run the GPU checks and benchmarks ---------------===#
#
# Runs on the GPU machine over the files scripts/gpu/prepare.sh left in .gpu/
# (carried by the device call): checks correctness, prints the benchmark
# table last. Exit status non-zero on any failed check.
#
#===-----------------------------------------------------------------------===#
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for f in .gpu/*.ptx; do
  /usr/local/cuda/bin/ptxas -arch=sm_90 "$f" -o /dev/null || { echo "ptxas failed on $f"; exit 1; }
done
# KITE_GPU_PARTS (default: ptx tests programs bench) picks parts; "sanitize"
# (compute-sanitizer over the host programs and the tensor-core kernels) is
# asked for by name.
parts="${KITE_GPU_PARTS:-ptx tests programs bench}"
want() { [[ " $parts " == *" $1 "* ]]; }
status=0
if want ptx; then
  python3 .gpu/check_1d.py 2>&1 | tee "${OUT:-/tmp}/check_1d.log" || status=1
fi

if [ -d .gpu/rt ]; then
  # The self-contained runtime: nothing of LLVM on this machine.
  rt=.gpu/rt
  [ -f $rt/lib/libkite.so.xz ] && xz -d -f $rt/lib/libkite.so.xz
  echo "== libkite.so needs:"; ldd $rt/lib/libkite.so | awk '{print "   ", $1}'
  export KITE_CACHE_DIR="$(mktemp -d)"
  if want tests; then
    # In KITE_GPU_TEST_SHARDS processes at once (default 4; gtest's
    # sharding): the suite's time is mostly compiles, which the GPU
    # machine's cores run side by side; no test asserts a time. Each
    # shard's log is kept; a summary of each, and the failures, follow.
    shards="${KITE_GPU_TEST_SHARDS:-4}"
    echo "== GPU test suite ($shards shards)"
    log="${OUT:-/tmp}/gpu_tests"
    pids=()
    for ((i = 0; i < shards; i++)); do
      (cd $rt && KITE_CACHE_DIR="$(mktemp -d)" GTEST_TOTAL_SHARDS=$shards \
         GTEST_SHARD_INDEX=$i ./unittests/KiteRuntimeGPUTests > "$log.$i.log" 2>&1) &
      pids+=($!)
    done
    for ((i = 0; i < shards; i++)); do
      wait "${pids[$i]}" || status=1
      grep -E '^\[  (PASSED|FAILED)  \]|tests ran' "$log.$i.log" | sed "s/^/shard $i: /"
    done
    cat "$log".*.log > "$log.log"
    grep -E '^\[  FAILED  \]|Failure$' "$log.log" | sort -u | head -40
  fi
  if want programs; then
    echo "== host programs"
    . scripts/gpu/programs.sh
    for p in $KITE_HOST_PROGRAMS; do
      (cd $rt && ./examples/$p) || status=1
    done
  fi
  if want programs; then
    echo "== PyTorch operators (dsl-examples/torch)"
    bash scripts/gpu/torch_op.sh "$rt/lib" || status=1
  fi
  if want programs; then
    echo "== the README's own kernel, as a newcomer copies it"
    bash scripts/gpu/readme_check.sh "$rt/lib" || status=1
  fi
  if want programs && [ -d .gpu/aot ]; then
    echo "== ahead-of-time C export (kitec --emit=c) with a C consumer"
    cc -std=c99 -O2 -I.gpu/aot .gpu/aot/vector_add.c .gpu/aot/vector_add_aot.c -ldl \
      -o .gpu/aot/consumer && ./.gpu/aot/consumer || status=1
  fi
  if want sanitize; then
    # compute-sanitizer (not in the default parts: slow): memcheck,
    # racecheck, synccheck and initcheck over every host program at small
    # sizes and over the tensor-core kernel forms (wgmma with cp.async, TMA,
    # TMA with a producer warp; the GPU test on two small shapes); a table of
    # the errors each reports, last.
    cs=/usr/local/cuda/bin/compute-sanitizer
    echo "== compute-sanitizer"
    table="$(printf '%-34s %9s %9s %9s %9s' program memcheck racecheck synccheck initcheck)"
    for spec in "vector_add" "dropout" "seeded_dropout" "matmul 256 256 128" \
                "softmax 64 781" "layer_norm 64 1024" "layer_norm_bwd 64 1024" \
                "matmul_autotune 256 256 128" "tensor-core forms" "cluster forms" \
                "ping-pong forms" "attention forms"; do
      row="$(printf '%-34s' "$spec")"
      for tool in memcheck racecheck synccheck initcheck; do
        log="${OUT:-/tmp}/${tool}.log"
        # The kernel forms: a GPU test at small sizes (KITE_TEST_QUICK=1).
        case "$spec" in
          "tensor-core forms") filter=GPU.DescriptorMatmulWithTma ;;
          # 2-program clusters: TMA multicast, slots released across the
          # cluster.
          "cluster forms") filter=GPU.PersistentMatmulInClusters ;;
          # Two consumer groups taking turns (named barriers, each group's
          # scratch), alone and in clusters.
          "ping-pong forms") filter=GPU.PersistentMatmulPingPong ;;
          # The attention forward's forms: the cp.async ring (wgmma and
          # mma.sync, with dropout), TMA with and without the producer
          # warpgroup, persistent, 128x128 with the extra slot.
          "attention forms")
            filter='GPU.AttentionAgreesWithFloat64:GPU.AttentionWithDescriptorsOnTma' ;;
          *) filter="" ;;
        esac
        if [ -n "$filter" ]; then
          (cd $rt && KITE_TEST_QUICK=1 $cs --tool $tool --error-exitcode 1 \
             ./unittests/KiteRuntimeGPUTests --gtest_filter="$filter" > "$log" 2>&1)
        else
          (cd $rt && $cs --tool $tool --error-exitcode 1 ./examples/$spec > "$log" 2>&1)
        fi
        rc=$?
        # "ERROR SUMMARY: N errors" (racecheck: "N hazards displayed (E errors").
        n="$(grep -oE 'ERROR SUMMARY: [0-9]+|\(([0-9]+) errors' "$log" | grep -oE '[0-9]+' | tail -1)"
        [ -z "$n" ] && n="?"
        if [ $rc != 0 ] || [ "$n" != 0 ]; then
          status=1; echo "$tool FAILED on $spec:"; tail -20 "$log"
        fi
        row="$row$(printf ' %9s' "$n")"
      done
      table="$table"$'\n'"$row"
    done
    echo "$table" | tee "${OUT:-/tmp}/sanitizer.txt"
  fi
  want bench || exit $status
  echo "== runtime benchmarks"
  bench="$rt/bin/kite-bench-runtime"
  (cd $rt && ./bin/kite-bench-runtime launch bench/axpby.mlir) | tee "${OUT:-/tmp}/bench_runtime.jsonl" || status=1
  # Cold: empty Kite cache and the driver's own JIT cache off; then warm: a
  # new process over the same Kite cache.
  for i in 1 2 3 4 5; do
    cold="$(mktemp -d)"
    (cd $rt && CUDA_CACHE_DISABLE=1 KITE_CACHE_DIR="$cold" ./bin/kite-bench-runtime compile dsl-examples/seeded_dropout.mlir) | tee -a "${OUT:-/tmp}/bench_runtime.jsonl"
    (cd $rt && CUDA_CACHE_DISABLE=1 KITE_CACHE_DIR="$cold" ./bin/kite-bench-runtime compile dsl-examples/seeded_dropout.mlir) | tee -a "${OUT:-/tmp}/bench_runtime.jsonl"
  done
  (cd $rt && ./bin/kite-bench-runtime interpret dsl-examples/seeded_dropout.kite) | tee -a "${OUT:-/tmp}/bench_runtime.jsonl"
  for s in 1024 4096; do
    (cd $rt && ./bin/kite-bench-runtime matmul dsl-examples/matmul.kite $s) | tee -a "${OUT:-/tmp}/bench_runtime.jsonl"
    (cd $rt && ./bin/kite-bench-runtime matmul bench/matmul_f16.kite $s) | tee -a "${OUT:-/tmp}/bench_runtime.jsonl"
  done
  python3 - <<'PY' | tee -a "${OUT:-/tmp}/bench_runtime.jsonl"
import json, torch
from triton.testing import do_bench
torch.backends.cuda.matmul.allow_tf32 = False
for s in (1024, 4096):
    for name, dt in (("f32", torch.float32), ("f16", torch.float16)):
        a = torch.randn(s, s, device="cuda", dtype=dt); b = torch.randn(s, s, device="cuda", dtype=dt)
        ms = do_bench(lambda: torch.matmul(a, b), warmup=25, rep=200, return_mode="median")
        print(json.dumps({"bench": "cublas", "dtype": name, "size": s, "tflops": 2 * s**3 / ms / 1e9}))
PY
  python3 - "${OUT:-/tmp}/bench_runtime.jsonl" <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
launch = [r for r in rows if r["bench"] == "launch"]
cold = [r["ms"] for r in rows if r["bench"] == "compile" and r["outcome"] == "compiled"]
warm = [r["ms"] for r in rows if r["bench"] == "compile" and r["outcome"] == "disk"]
print()
print(f"{'runtime measure':42} {'value':>10}  target")
for r in launch:
    print(f"{'launch, raw cuLaunchKernel (us)':42} {r['raw_us']:10.2f}")
    print(f"{'launch, kite::Kernel::launch (us)':42} {r['kite_us']:10.2f}")
    print(f"{'launch ratio kite/raw':42} {r['ratio']:10.3f}  <= 1.15")
if cold: print(f"{'cold compile seeded_dropout, median ms':42} {statistics.median(cold):10.1f}  <= 100  (max {max(cold):.1f})")
c = [r for r in rows if r["bench"] == "compile" and r["outcome"] == "compiled"]
if c:
    for k in ["parse_ms", "to_ptx_ms", "load_ms"]:
        print(f"{'  of which ' + k + ', median':42} {statistics.median(r[k] for r in c):10.1f}")
if warm: print(f"{'warm disk hit, new process, median ms':42} {statistics.median(warm):10.1f}  <= 5")
cublas = {(r["dtype"], r["size"]): r["tflops"] for r in rows if r["bench"] == "cublas"}
for r in rows:
    if r["bench"] == "matmul":
        dt = "f32" if r["dtype"] == "f32" else "f16"
        ref = cublas.get((dt, r["size"]))
        label = f"matmul {r['dtype']} {r['size']}^3, TFLOP/s"
        print(f"{label:42} {r['tflops']:10.1f}  cuBLAS {ref:.1f} ({r['tflops']/ref:.2f}x)" if ref else f"{label:42} {r['tflops']:10.1f}")
for r in rows:
    if r["bench"] == "interpret":
        print(f"{'interpreter, seeded dropout 2^20, ms':42} {r['ms']:10.1f}  <= 1000 (one core)")
PY
fi
exit $status
