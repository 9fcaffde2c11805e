#!/usr/bin/env bash
# The tutorial matmul (bench/kernels/matmul_tutorial.kite) in each operand
# orientation and each of Triton tutorial 03's Hopper configurations
# without divisibility facts (odd sizes and strides: only the unit inner
# strides known), compiled to a cubin by kitec for CHIP: every case
# compiles, none has its wgmmas serialized by ptxas (C75xx), and a case
# whose cubin spills is never silent (kitec warns, naming the kernel).
# Prints one line a failing case, the spilling cases, and a summary;
# exits non-zero on any failure.
#   usage: odd-orientation-matrix.sh KITEC PTXAS SOURCE CHIP OUTDIR
set -uo pipefail
kitec=$1 ptxas=$2 src=$3 chip=$4 out=$5
mkdir -p "$out"
configs="128x256x64w8s3 64x256x32w4s4 128x128x32w4s4 128x64x32w4s4 64x128x32w4s4 128x32x32w4s4 64x32x32w2s5 32x64x32w2s5"
cases=0 failed=0 spilling=0
for orient in NN NT TN TT; do
  case $orient in
    NN) spec=stride_ak=1,stride_bn=1 ;;
    NT) spec=stride_ak=1,stride_bk=1 ;;
    TN) spec=stride_am=1,stride_bn=1 ;;
    TT) spec=stride_am=1,stride_bk=1 ;;
  esac
  for cfg in $configs; do
    [[ $cfg =~ ^([0-9]+)x([0-9]+)x([0-9]+)w([0-9]+)s([0-9]+)$ ]]
    cubin="$out/$orient.$cfg.cubin"
    cases=$((cases + 1))
    if ! "$kitec" "$src" --chip="$chip" -D BLOCK_M="${BASH_REMATCH[1]}" \
        -D BLOCK_N="${BASH_REMATCH[2]}" -D BLOCK_K="${BASH_REMATCH[3]}" \
        --num-warps="${BASH_REMATCH[4]}" --num-stages="${BASH_REMATCH[5]}" \
        --specialize="$spec,stride_cn=1" --ptxas="$ptxas" --resources \
        --emit=cubin -o "$cubin" 2> "$cubin.log"; then
      echo "FAIL $chip $orient $cfg: kitec: $(head -1 "$cubin.log")"; failed=$((failed + 1)); continue
    fi
    if grep -q 'C75[0-9][0-9]' "$cubin.log"; then
      echo "FAIL $chip $orient $cfg: ptxas serializes wgmmas: $(grep -o 'C75[0-9][0-9][^,]*' "$cubin.log" | head -1)"; failed=$((failed + 1)); continue
    fi
    stack=$(grep -o 'registers a thread, [0-9]* bytes of stack' "$cubin.log" | grep -o '[0-9]* bytes' | grep -o '^[0-9]*')
    if [ "${stack:-x}" = x ]; then
      echo "FAIL $chip $orient $cfg: no --resources line"; failed=$((failed + 1)); continue
    fi
    if [ "$stack" != 0 ]; then
      spilling=$((spilling + 1))
      if grep -q "warning: matmul .* keeps $stack bytes a thread on the stack" "$cubin.log"; then
        echo "spills $chip $orient $cfg: $stack bytes, warned"
      else
        echo "FAIL $chip $orient $cfg: $stack bytes of stack without a warning"; failed=$((failed + 1))
      fi
    fi
  done
done
echo "$chip without facts: $cases cases, $spilling spill (each warned), $failed failed"
[ "$failed" = 0 ]
