#!/usr/bin/env bash
#===- scripts/gpu/ab_tuned.sh - Kite beside Triton, cuBLAS and torch, interleaved -===#
#
# The autotuned matmul rows (f32 exact, tf32, f16, bf16 at 1024^3, 4096^3,
# 8192^3 and 4096x4096x512) of Kite (kite-bench, bench/kernels/matmul_*_tuned.kite)
# and of Triton's tutorial 03 and cuBLAS (bench_triton.py), ROUNDS times each in turn
# (Kite, Triton, Kite, ...: both see the same GPU states), each a fresh
# process with a fresh kernel cache (Kite tunes again every round); then
# one line per row: each side's median, and Kite/Triton and Kite/cuBLAS
# of the medians with the lowest and highest per-round ratios. On the GPU machine after
# scripts/gpu/prepare.sh:
#   run(command="bash scripts/gpu/ab_tuned.sh 3", carry=[".gpu"])
# With a second argument "persistent": tutorial 09's f16/bf16 forms
# instead (kite-bench's persistent rows, dsl-examples/persistent_matmul.kite
# and the autotuned persistent kernel), beside Triton's tutorial 09 with
# descriptors and cuBLAS, one line per Kite form:
#   run(command="bash scripts/gpu/ab_tuned.sh 3 persistent", carry=[".gpu"])
# With "attention": the attention forward's forms (kite-bench's attention
# rows: pointers, TMA, TMA + producer warpgroup, persistent) beside
# Triton's tutorial 06 and torch's scaled_dot_product_attention, one line
# per Kite form and shape; KITE_BENCH_HEAD_DIMS, KITE_BENCH_BLOCKS,
# KITE_BENCH_LENGTHS and KITE_BENCH_CAUSAL narrow it as for bench.sh
# (default: head dim 128 on 128x64 blocks of 8 warps):
#   run(command="bash scripts/gpu/ab_tuned.sh 3 attention", carry=[".gpu"])
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
rounds="${1:-3}"
mode="${2:-tuned}"
case "$mode" in tuned|persistent|attention) ;; *) echo "ab_tuned.sh: mode is tuned, persistent or attention, got '$mode'" >&2; exit 2 ;; esac
rt=.gpu/rt
[ -f $rt/lib/libkite.so.xz ] && xz -d -f $rt/lib/libkite.so.xz
out="${OUT:-/tmp/kite-ab-tuned}"
mkdir -p "$out"
: > "$out/tuned.jsonl"
export KITE_BENCH_ONLY=$mode PYTHONUNBUFFERED=1
if [ "$mode" = attention ]; then
  export KITE_BENCH_HEAD_DIMS="${KITE_BENCH_HEAD_DIMS:-128}"
  export KITE_BENCH_BLOCKS="${KITE_BENCH_BLOCKS:-128x64w8}"
  export KITE_BENCH_TUNED=0 KITE_BENCH_DROPOUT=0
fi
# KITE_AB_SECONDS (default 420): no new round after that long (the
# device tool's 600 s a command).
for r in $(seq "$rounds"); do
  if [ "$r" -gt 1 ] && [ "$SECONDS" -gt "${KITE_AB_SECONDS:-420}" ]; then
    echo "ab_tuned.sh: $((r - 1)) rounds in ${SECONDS} s; no more" >&2
    break
  fi
  KITE_CACHE_DIR="$(mktemp -d)" $rt/bin/kite-bench "$rt" | grep '^{' |
    sed "s/^{/{\"round\": $r, /" >> "$out/tuned.jsonl"
  python3 .gpu/bench_triton.py | grep '^{' | sed "s/^{/{\"round\": $r, /" >> "$out/tuned.jsonl"
done
python3 - "$out/tuned.jsonl" "$mode" <<'PY'
import json, statistics, sys
if sys.argv[2] == "attention":
    # One line per Kite form and shape: medians, Kite/Triton and
    # Kite/torch of the medians with the per-round range.
    kite, others = {}, {}
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r.get("kernel") != "attention" or r.get("dropout"):
            continue
        shape = (r["HEAD_DIM"], r["causal"], r["Z"], r["H"], r["N_CTX"])
        if r["impl"] == "kite":
            kite.setdefault(shape + (r.get("blocks", ""),), {})[r["round"]] = r["tflops"]
        elif r["impl"] in ("triton", "torch"):
            others.setdefault(shape, {}).setdefault(r["impl"], {})[r["round"]] = r["tflops"]
    print(f"{'attention':40s} {'size':>12s} {'Kite':>9s} {'Triton':>9s} {'torch':>9s} "
          f"{'Kite/Triton':>12s} {'per round':>12s} {'Kite/torch':>11s} {'per round':>12s}")
    for (D, causal, Z, H, N, form), k in sorted(kite.items()):
        sides = others.get((D, causal, Z, H, N), {})
        mk = statistics.median(k.values())
        name = f"d{D}{' causal' if causal else ''} {form}"
        line = f"{name:40s} {f'{Z}x{H}x{N}':>12s} {mk:8.1f}T "
        for impl in ("triton", "torch"):
            v = sides.get(impl, {})
            line += f"{statistics.median(v.values()):8.1f}T " if v else f"{'-':>9s} "
        for impl in ("triton", "torch"):
            v = sides.get(impl, {})
            ratios = [k[r] / v[r] for r in k if r in v]
            if ratios:
                line += f"{mk / statistics.median(v.values()):11.2f}x " \
                        f"{min(ratios):5.2f}-{max(ratios):.2f}x "
        print(line)
    sys.exit(0)
persistent = sys.argv[2] == "persistent"
anchor = "triton_persistent_tma" if persistent else "triton"
runs, others = {}, {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("kernel") != "matmul":
        continue
    shape = (r["dtype"], r["M"], r["N"], r["K"])
    if r["impl"] == "kite":
        # Tuned mode: one Kite kernel a dtype (its "tuned" rows); persistent
        # mode: each form its own line.
        if persistent != ("persistent" in r.get("blocks", "")):
            continue
        form = r.get("blocks", "") if persistent else ""
        runs.setdefault(shape + (form,), {})[r["round"]] = r["tflops"]
    elif r["impl"] in (anchor, "cublas"):
        side = "triton" if r["impl"] == anchor else "cublas"
        others.setdefault(shape, {}).setdefault(side, {})[r["round"]] = r["tflops"]
title = "matmul persistent" if persistent else "matmul tuned"
width = 46 if persistent else 12
print(f"{title:{width}s} {'size':>16s} {'Kite':>9s} {'Triton':>9s} {'cuBLAS':>9s} "
      f"{'Kite/Triton':>12s} {'per round':>12s} {'Kite/cuBLAS':>12s} {'per round':>12s}")
for (dtype, M, N, K, form), k in runs.items():
    sides = others.get((dtype, M, N, K), {})
    t, c = sides.get("triton", {}), sides.get("cublas", {})
    if not t and not c:
        continue
    mk = statistics.median(k.values())
    mt = statistics.median(t.values()) if t else float("nan")
    name = f"{dtype} {form}".strip()
    line = f"{name:{width}s} {f'{M}x{N}x{K}':>16s} {mk:8.1f}T {mt:8.1f}T "
    line += f"{statistics.median(c.values()):8.1f}T " if c else f"{'':9s} "
    for other in (t, c):
        ratios = [k[r] / other[r] for r in k if r in other]
        if ratios:
            line += f"{mk / statistics.median(other.values()):11.2f}x " \
                    f"{min(ratios):5.2f}-{max(ratios):.2f}x "
        else:
            line += f"{'-':>12s} {'-':>11s} "
    print(line)
PY
