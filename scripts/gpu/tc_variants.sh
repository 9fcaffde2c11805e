#!/usr/bin/env bash
#===- scripts/gpu/tc_variants.sh - Tensor-core matmul PTX variants ---------===#
#
# Compiles the tutorial matmul (f16/bf16 inputs, or f32 inputs multiplied as
# tf32; f32 output) with kitec into .gpu/tc/ under names check_tc.py reads:
#   <dtype>-<chip>_<BM>x<BN>x<BK>w<WARPS>s<STAGES>_<spec|plain>.ptx
# A variant is DTYPE[@CHIP]:CONFIG (chip default $KITE_TC_CHIP or sm_90a):
# f16/bf16 on sm_90a take wgmma, on sm_80 mma.sync; tf32 takes mma.sync.
# "spec": specialized as the runtime would for 16-byte aligned pointers,
# sizes and strides divisible by 16 and unit inner strides (cp.async +
# tensor-core path); "plain": no specialization (odd shapes and strides).
# Then, with the device tool: run(command="python3 .gpu/check_tc.py .gpu/tc", carry=[".gpu"])
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${KITE_BUILD_DIR:-$root/build}"
out="$root/.gpu/tc"
mkdir -p "$out"
rm -f "$out"/*.ptx
kitec="$build/bin/kitec"
chip="${KITE_TC_CHIP:-sm_90a}"
spec="--specialize=a_ptr=div16,b_ptr=div16,c_ptr=div16,M=div16,N=div16,K=div16,stride_am=div16,stride_ak=1,stride_bk=div16,stride_bn=1,stride_cm=div16,stride_cn=1"
variants="${KITE_TC_VARIANTS:-f16:128x256x64w8s3 bf16:128x256x64w8s3 f16:128x128x64w8s4 f16:128x128x64w4s4 f16:64x128x64w4s4}"
for v in $variants; do
  dtype="${v%%:*}"; cfg="${v#*:}"
  vchip="$chip"
  if [[ "$dtype" == *@* ]]; then vchip="${dtype#*@}"; dtype="${dtype%@*}"; fi
  [[ "$cfg" =~ ([0-9]+)x([0-9]+)x([0-9]+)w([0-9]+)s([0-9]+) ]]
  bm=${BASH_REMATCH[1]} bn=${BASH_REMATCH[2]} bk=${BASH_REMATCH[3]} w=${BASH_REMATCH[4]} s=${BASH_REMATCH[5]}
  src="$out/matmul_$dtype.kite"
  if [ "$dtype" = tf32 ]; then
    sed -E 's/input_precision="ieee"/input_precision="tf32"/' "$root/dsl-examples/matmul.kite"
  else
    sed -E "s/a_ptr: \*f32, b_ptr: \*f32/a_ptr: *$dtype, b_ptr: *$dtype/" "$root/dsl-examples/matmul.kite"
  fi | sed -E "s/@kernel\(num_warps=[0-9]+, num_stages=[0-9]+\)/@kernel(num_warps=$w, num_stages=$s)/" > "$src"
  for kind in spec plain; do
    extra=""
    [ $kind = spec ] && extra="$spec"
    "$kitec" "$src" --chip="$vchip" $extra -D BLOCK_M=$bm -D BLOCK_N=$bn -D BLOCK_K=$bk \
      -o "$out/${dtype}-${vchip}_${cfg}_${kind}.ptx"
  done
done
cp "$root"/scripts/gpu/check_tc.py "$root"/scripts/gpu/bench_triton.py "$root"/scripts/gpu/triton_kernels.py "$root/.gpu/"
ls "$out"
