#!/usr/bin/env bash
# Compiles the tutorial matmul (dsl-examples/matmul.kite) to PTX variants
# for scripts/gpu/bench_ptx_matmul.py, specialized as the runtime would for
# contiguous row-major f32 operands at 4096^3.
#   usage: scripts/gpu/matmul_variants.sh OUTDIR "BMxBNxBK:WARPS:STAGES[:ROWSxCOLS]" ...
# e.g.  scripts/gpu/matmul_variants.sh .gpu/mm 64x64x32:4:3 128x128x32:8:3:8x8
# ROWSxCOLS sets kite.dot_tile (each thread's register tile of the result).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kitec=${KITEC:-$root/build/bin/kitec}
out=$1; shift
mkdir -p "$out"
spec=(--specialize=stride_ak=1,stride_bn=1,stride_cn=1
      --specialize=a_ptr=div16,b_ptr=div16,c_ptr=div16,M=div16,N=div16,K=div16,stride_am=div16,stride_bk=div16,stride_cm=div16)
for v in "$@"; do
  IFS=: read -r blocks warps stages tile <<<"$v"
  IFS=x read -r bm bn bk <<<"$blocks"
  attrs="kite.num_stages = $stages : i32, kite.num_warps = $warps : i32"
  name="mm_${bm}x${bn}x${bk}w${warps}s${stages}"
  if [[ -n "${tile:-}" ]]; then
    attrs="$attrs, kite.dot_tile = array<i64: ${tile//x/, }>"
    name="${name}t${tile}"
  fi
  "$kitec" "$root/dsl-examples/matmul.kite" -D BLOCK_M="$bm" -D BLOCK_N="$bn" \
      -D BLOCK_K="$bk" --emit=mlir -o - |
    sed -E "s/attributes \{kite.kernel[^}]*\}/attributes {kite.kernel, $attrs}/" |
    "$kitec" -x mlir - "${spec[@]}" -o "$out/$name.ptx"
  echo "$out/$name.ptx"
done
