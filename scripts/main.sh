#!/usr/bin/env bash
#===- scripts/main.sh - Set up, build and run Kite's main job ---------------===#
#
# The README's first command: installs what is missing, builds Kite,
# compiles every .kite kernel in dsl-examples/ (showing what each stage
# produced) and runs the tutorials' host programs where there is a GPU.
# Outputs land in ${KITE_BUILD_DIR:-build}/examples/.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KITE_BUILD_DIR:-$root/build}"

bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" >/dev/null
out="$build/examples"
mkdir -p "$out"

kitec="$build/bin/kitec"
printf '%-16s %-10s %s\n' "example" "status" "outputs"
for src in "$root"/dsl-examples/*.kite; do
  name="$(basename "$src" .kite)"
  "$kitec" "$src" --emit=mlir -o "$out/$name.mlir"
  if "$kitec" "$src" -o "$out/$name.ptx" --metadata "$out/$name.json" 2> "$out/$name.err"; then
    "$kitec" "$src" --emit=gpu -o "$out/$name.gpu.mlir"
    lines=$(grep -c . "$out/$name.ptx")
    printf '%-16s %-10s %s\n' "$name" "ptx" "$out/$name.ptx ($lines lines), $name.json, $name.mlir, $name.gpu.mlir"
  else
    printf '%-16s %-10s %s\n' "$name" "kite only" "$out/$name.mlir; no PTX yet: $(head -1 "$out/$name.err")"
  fi
done
echo
# The tutorials' host programs (libkite.so): on the GPU when there is one,
# in the Kite interpreter otherwise.
for p in vector_add dropout seeded_dropout matmul softmax layer_norm; do
  echo "== $p"
  "$out/$p"
done
