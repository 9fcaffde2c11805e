#!/usr/bin/env bash
#===- scripts/ptx-snapshot.sh - The PTX of every example, for comparisons -===#
#
# Compiles every kernel source of dsl-examples/ and bench/kernels/ (as
# written, and with --specialize=auto: every pointer and integer divisible
# by 16) for sm_90a and sm_80 into OUTDIR, one .ptx a case (sources that
# need constexpr values they lack are listed in OUTDIR/skipped.txt). Two
# snapshots compared with `diff -r` show whether a change (a refactoring,
# a moved pass) altered any generated code:
#   bash scripts/ptx-snapshot.sh /tmp/before; ...; bash scripts/ptx-snapshot.sh /tmp/after
#   diff -r /tmp/before /tmp/after
#
#===-----------------------------------------------------------------------===#
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kitec="${KITEC:-$root/build/bin/kitec}"
out="$1"
mkdir -p "$out"
: > "$out/skipped.txt"
for src in "$root"/dsl-examples/*.kite "$root"/dsl-examples/*.mlir \
           "$root"/bench/kernels/*.kite "$root"/bench/kernels/*.mlir; do
  name="$(basename "$src")"
  for chip in sm_90a sm_80; do
    for spec in plain auto; do
      args=(--chip="$chip")
      [ "$spec" = auto ] && args+=(--specialize=auto)
      if ! "$kitec" "$src" "${args[@]}" -o "$out/$name.$chip.$spec.ptx" \
           2> "$out/$name.$chip.$spec.err"; then
        echo "$name $chip $spec: $(head -1 "$out/$name.$chip.$spec.err")" >> "$out/skipped.txt"
        rm -f "$out/$name.$chip.$spec.ptx"
      fi
      rm -f "$out/$name.$chip.$spec.err"
    done
  done
done
echo "$(ls "$out"/*.ptx | wc -l) PTX files, $(wc -l < "$out/skipped.txt") skipped"
