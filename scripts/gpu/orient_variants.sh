#!/usr/bin/env bash
#===- scripts/gpu/orient_variants.sh - The tutorial matmul per orientation -===#
#
# Exports bench/kernels/matmul_tutorial.kite (kitec --emit=c) for
# scripts/gpu/bench_orient.py: each operand orientation (NN; NT, B an
# nn.Linear weight: stride_bk = 1; TN, A given K x M: stride_am = 1; TT),
# dtype, size class and block configuration, specialized as Triton's
# launcher (and Kite's runtime) would for such arguments: unit strides = 1,
# pointers and the other integers divisible by 16 where they are.
#   usage: scripts/gpu/orient_variants.sh OUTDIR
# KITE_ORIENT_DTYPES (default "f16 bf16"; also "tf32": f32 operands and
# output, the dot in tf32 as Triton's default; "fp8": e4m3 operands, f16
# output; configurations a dtype cannot fit are reported and skipped),
# KITE_ORIENT_CONFIGS (default the
# tutorial's Hopper configurations, BMxBNxBKwWARPSsSTAGES), KITE_ORIENT_CHIP
# (default sm_90a; sm_80: mma.sync, named mm80_...), KITE_ORIENT_DIVS (default
# "div16 odd": sizes and strides divisible by 16, and not).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kitec=${KITEC:-$root/build/bin/kitec}
out=$1
mkdir -p "$out"
dtypes=${KITE_ORIENT_DTYPES:-"f16 bf16"}
chip=${KITE_ORIENT_CHIP:-sm_90a}
prefix=mm
[ "$chip" = sm_90a ] || prefix="mm${chip#sm_}"
configs=${KITE_ORIENT_CONFIGS:-"128x256x64w8s3 64x256x32w4s4 128x128x32w4s4 128x64x32w4s4 64x128x32w4s4 128x32x32w4s4 64x32x32w2s5 32x64x32w2s5 128x128x64w8s3"}
for dt in $dtypes; do
  case $dt in
    tf32) edit="s/\*f16/*f32/g; s/to(f16)/to(f32)/" ;;
    fp8) edit="s/a_ptr: \*f16, b_ptr: \*f16/a_ptr: *f8e4m3, b_ptr: *f8e4m3/" ;;
    *) edit="s/\*f16/*$dt/g; s/to(f16)/to($dt)/" ;;
  esac
  sed -e "$edit" "$root/bench/kernels/matmul_tutorial.kite" > "$out/mm_$dt.kite"
  for orient in NN NT TN TT; do
    for div in ${KITE_ORIENT_DIVS:-div16 odd}; do
      unit=(stride_cn=1)
      other=(stride_cm)
      [[ $orient == N? ]] && { unit+=(stride_ak=1); other+=(stride_am); }
      [[ $orient == T? ]] && { unit+=(stride_am=1); other+=(stride_ak); }
      [[ $orient == ?N ]] && { unit+=(stride_bn=1); other+=(stride_bk); }
      [[ $orient == ?T ]] && { unit+=(stride_bk=1); other+=(stride_bn); }
      spec="$(IFS=,; echo "${unit[*]}"),a_ptr=div16,b_ptr=div16,c_ptr=div16"
      if [[ $div == div16 ]]; then
        for p in M N K "${other[@]}"; do spec="$spec,$p=div16"; done
      fi
      for cfg in $configs; do
        [[ $cfg =~ ^([0-9]+)x([0-9]+)x([0-9]+)w([0-9]+)s([0-9]+)$ ]]
        name="${prefix}_${dt}_${orient}_${div}_${cfg}"
        "$kitec" "$out/mm_$dt.kite" --chip="$chip" -D BLOCK_M="${BASH_REMATCH[1]}" \
          -D BLOCK_N="${BASH_REMATCH[2]}" -D BLOCK_K="${BASH_REMATCH[3]}" \
          --num-warps="${BASH_REMATCH[4]}" --num-stages="${BASH_REMATCH[5]}" \
          --specialize="$spec" --emit=c -o "$out/$name" \
          2> "$out/$name.log" || { echo "failed: $name"; cat "$out/$name.log"; }
      done
    done
  done
done
ls "$out"/*.c | wc -l
