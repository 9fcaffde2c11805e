#!/usr/bin/env bash
#===- scripts/gpu/prepare.sh - Build what the GPU machine needs ------------===#
#
# The GPU machine has no LLVM: compile here every kernel the GPU tests and
# benchmarks use to PTX (with launch metadata) into .gpu/, which the device
# call carries. Each dsl-example is built twice: as written ("plain") and
# with its pointer parameters declared 16-byte aligned ("aligned", what a
# runtime specializing on cudaMalloc'd pointers would compile), and a third
# time with n also divisible by 16 ("spec16").
#
# Then, with the device tool:  run(command="bash scripts/gpu/run.sh", carry=[".gpu"])
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${KITE_BUILD_DIR:-$root/build}"
out="$root/.gpu"
bash "$root/scripts/build.sh" kitec >/dev/null
rm -rf "$out" && mkdir -p "$out"
kitec="$build/bin/kitec"

compile() { # name source
  "$kitec" "$2" -o "$out/$1.ptx" --metadata "$out/$1.json"
}
for src in "$root"/dsl-examples/*.mlir "$root"/test/GPU/kernels/*.mlir; do
  name="$(basename "$src" .mlir)"
  compile "$name" "$src"
  sed -E 's/(%[a-z_0-9]+: !kite\.ptr<[a-z0-9]+>)([,)])/\1 {kite.divisibility = 16 : i32}\2/g' \
    "$src" > "$out/$name.aligned.mlir"
  compile "$name.aligned" "$out/$name.aligned.mlir"
  # "spec16": also the element count n divisible by 16 (what Triton and Kite's
  # runtime specialize on when the value is), so masks are uniform per vector.
  sed -E 's/(%n: i32)([,)])/\1 {kite.divisibility = 16 : i32}\2/' \
    "$out/$name.aligned.mlir" > "$out/$name.spec16.mlir"
  compile "$name.spec16" "$out/$name.spec16.mlir"
done
cp "$root"/scripts/gpu/*.py "$out/"
ls "$out"
