#!/usr/bin/env bash
#===- scripts/gpu/ncu_source.sh - Per-instruction stall samples of a variant =#
#
# On the GPU machine: ncu's source page (SASS, warp-state samples per
# instruction) for one launch of a Kite PTX variant at M,N,K, sorted by
# samples; the top lines and the K loop's instruction count.
#   bash .gpu/ncu_source.sh M,N,K .gpu/tc/<variant>.ptx [lines]
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
csv="${OUT:-/tmp}/ncu_source.$$.csv"
TRITON_CONFIG="${TRITON_CONFIG:-128x128x32w4s4}" ncu --profile-from-start off --clock-control none --set full \
  --import-source no --page source --print-source sass --csv -k regex:'^matmul$' \
  python3 "$here/profile_tc.py" "$1" "$2" > "$csv" 2>&1 || { tail -20 "$csv"; exit 1; }
python3 - "$csv" "${3:-40}" <<'PY'
import csv, sys
lines = [l for l in open(sys.argv[1]) if l.startswith('"')]
rows = list(csv.reader(lines))
h = rows[0]
def col(name):
    for i, c in enumerate(h):
        if c == name: return i
    raise SystemExit(f"no column {name}: {h}")
src = col("Source"); addr = col("Address")
samp = col("Warp Stall Sampling (All Samples)")
body = rows[1:]
total = sum(float(r[samp] or 0) for r in body)
print(f"{len(body)} SASS instructions, {total:.0f} samples")
for r in sorted(body, key=lambda r: -float(r[samp] or 0))[:int(sys.argv[2])]:
    print(f"{r[addr]:>8} {float(r[samp] or 0) / total * 100:5.1f}%  {r[src]}")
PY
