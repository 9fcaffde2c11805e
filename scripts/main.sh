#!/usr/bin/env bash
#===- scripts/main.sh - Set up, build and run Kite's main job ---------------===#
#
# The README's first command: installs what is missing, builds Kite and
# compiles every kernel in dsl-examples/, showing what each stage produced.
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

opt="$build/bin/kite-opt"
printf '%-28s %-10s %s\n' "example" "status" "output"
for src in "$root"/dsl-examples/*.mlir; do
  name="$(basename "$src" .mlir)"
  if [ -x "$build/bin/kite-opt" ] && "$opt" --help | grep -q -- '--kite-to-ptx'; then
    "$opt" "$src" --kite-to-ptx -o "$out/$name.ptx.mlir"
    printf '%-28s %-10s %s\n' "$name" "ptx" "$out/$name.ptx.mlir"
  else
    "$opt" "$src" -canonicalize -cse -o "$out/$name.mlir"
    printf '%-28s %-10s %s\n' "$name" "verified" "$out/$name.mlir"
  fi
done
