#!/usr/bin/env bash
# Compiles the tutorial matmul (bench/kernels/matmul_tutorial.kite) for each
# operand orientation (NN, NT: B an nn.Linear weight, TN: A given K x M, TT)
# and each of Triton tutorial 03's Hopper configurations, specialized as a
# launch with 16-byte-divisible sizes and strides would be, for CHIP; checks
# with ptxas that none spills, that no operand is loaded into registers
# (every load is a cp.async or TMA copy) and, on sm_90a, that each wgmma
# reads A and B in the orientation of their memory (imm-trans-a 1: A
# M-major; imm-trans-b 1: B N-major). Prints one line a failing case and a
# summary; exits non-zero on any failure.
#   usage: orientation-matrix.sh KITEC PTXAS SOURCE CHIP OUTDIR
set -uo pipefail
kitec=$1 ptxas=$2 src=$3 chip=$4 out=$5
mkdir -p "$out"
configs="128x256x64w8s3 64x256x32w4s4 128x128x32w4s4 128x64x32w4s4 64x128x32w4s4 128x32x32w4s4 64x32x32w2s5 32x64x32w2s5"
cases=0 failed=0
for orient in NN NT TN TT; do
  case $orient in
    NN) spec=stride_ak=1,stride_bn=1,stride_am=div16,stride_bk=div16; bits="0,  1" ;;
    NT) spec=stride_ak=1,stride_bk=1,stride_am=div16,stride_bn=div16; bits="0,  0" ;;
    TN) spec=stride_am=1,stride_bn=1,stride_ak=div16,stride_bk=div16; bits="1,  1" ;;
    TT) spec=stride_am=1,stride_bk=1,stride_ak=div16,stride_bn=div16; bits="1,  0" ;;
  esac
  spec=$spec,stride_cn=1,stride_cm=div16,a_ptr=div16,b_ptr=div16,c_ptr=div16,M=div16,N=div16,K=div16
  for cfg in $configs; do
    [[ $cfg =~ ^([0-9]+)x([0-9]+)x([0-9]+)w([0-9]+)s([0-9]+)$ ]]
    ptx="$out/$orient.$cfg.ptx"
    cases=$((cases + 1))
    if ! "$kitec" "$src" --chip="$chip" -D BLOCK_M="${BASH_REMATCH[1]}" \
        -D BLOCK_N="${BASH_REMATCH[2]}" -D BLOCK_K="${BASH_REMATCH[3]}" \
        --num-warps="${BASH_REMATCH[4]}" --num-stages="${BASH_REMATCH[5]}" \
        --specialize="$spec" -o "$ptx" 2> "$ptx.log"; then
      echo "FAIL $chip $orient $cfg: kitec: $(head -1 "$ptx.log")"; failed=$((failed + 1)); continue
    fi
    info=$("$ptxas" -arch="$chip" -v "$ptx" -o /dev/null 2>&1)
    spill=$(grep -o '[0-9]* bytes spill stores' <<<"$info" | grep -o '^[0-9]*')
    loads=$(grep -c 'ld\.global' "$ptx")
    copies=$(grep -c 'cp\.async' "$ptx")
    why=""
    [ "${spill:-x}" = 0 ] || why="$why spills ${spill:-?} bytes;"
    [ "$loads" = 0 ] || why="$why $loads ld.global;"
    [ "$copies" -gt 0 ] || why="$why no cp.async/TMA copies;"
    if [ "$chip" = sm_90a ] && grep -q wgmma.mma_async "$ptx" &&
        grep -A1 wgmma.mma_async "$ptx" | grep -o 'p, 1,  1, [01],  [01];' | grep -qv "p, 1,  1, $bits;"; then
      why="$why wgmma transpose bits are not $bits;"
    fi
    if [ -n "$why" ]; then
      echo "FAIL $chip $orient $cfg:$why"; failed=$((failed + 1))
    fi
  done
done
echo "$chip: $cases cases, $failed failed"
[ "$failed" = 0 ]
