#!/usr/bin/env bash
#===- scripts/gpu/ab_env.sh - Kite's benchmark with and without a setting -===#
#
# An A/B of one environment setting on Kite's own kernels, on the GPU
# machine after scripts/gpu/prepare.sh: kite-bench runs ROUNDS times with
# the setting and ROUNDS times without, interleaved (A B A B ...), each in a
# fresh kernel cache; then one line per row: the median of each side and
# B/A. KITE_BENCH_ONLY picks the parts as for bench.sh (default rows).
#   KITE_BENCH_ONLY=rows bash scripts/gpu/ab_env.sh KITE_OCCUPANCY=0 3
# e.g. run(command="bash scripts/gpu/ab_env.sh KITE_OCCUPANCY=0", carry=[".gpu"])
# Two versions of a kernel's source: put the other one under a directory
# at the same relative path (.gpu/old/dsl-examples/attention.kite) and
#   KITE_BENCH_ONLY=attention bash scripts/gpu/ab_env.sh KITE_BENCH_SOURCES=.gpu/old 1
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
setting="${1:?usage: ab_env.sh VAR=VALUE [ROUNDS]}"
rounds="${2:-3}"
[[ "$setting" == *=* ]] || { echo "ab_env.sh: the setting must be VAR=VALUE" >&2; exit 2; }
export KITE_BENCH_ONLY="${KITE_BENCH_ONLY:-rows}"
rt=.gpu/rt
[ -f $rt/lib/libkite.so.xz ] && xz -d -f $rt/lib/libkite.so.xz
out="${OUT:-/tmp/kite-ab}"
mkdir -p "$out"
: > "$out/a.jsonl"
: > "$out/b.jsonl"
for r in $(seq "$rounds"); do
  KITE_CACHE_DIR="$(mktemp -d)" $rt/bin/kite-bench "$rt" | grep '^{' >> "$out/a.jsonl"
  env "$setting" KITE_CACHE_DIR="$(mktemp -d)" $rt/bin/kite-bench "$rt" | grep '^{' >> "$out/b.jsonl"
done
python3 - "$out/a.jsonl" "$out/b.jsonl" "$setting" <<'PY'
import json, statistics, sys
def rows(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        # Everything but the measurements names the row.
        measured = {"us", "GBps", "copy_GBps", "tflops", "gflops", "tune_ms", "impl", "choice"}
        key = tuple(sorted((k, str(v)) for k, v in r.items() if k not in measured))
        value = r.get("GBps") or r.get("tflops") or r.get("gflops")
        if value is None and "us" in r:
            value = 1e3 / r["us"]  # launches per ms
        if value is not None:
            out.setdefault(key, []).append(float(value))
    return out
a, b = rows(sys.argv[1]), rows(sys.argv[2])
print(f"{'kernel':40s} {'size':>16s} {'A':>10s} {'B':>10s}   B/A   (B: {sys.argv[3]})")
for key in a:
    if key in b:
        ma, mb = statistics.median(a[key]), statistics.median(b[key])
        d = dict(key)
        name = " ".join(v for k, v in key if k not in ("rows", "cols", "M", "N", "K", "n", "kernel"))
        size = "x".join(d[k] for k in ("rows", "cols") if k in d) or \
            "x".join(d[k] for k in ("M", "N", "K") if k in d) or d.get("n", "")
        print(f"{(d['kernel'] + ' ' + name).strip():40s} {size:>16s} {ma:10.1f} {mb:10.1f} {mb / ma:6.3f}")
PY
