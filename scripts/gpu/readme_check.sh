#!/usr/bin/env bash
#===- scripts/gpu/readme_check.sh - The README's own-kernel walk-through --===#
#
# Takes the README's `scale.kite` and `main.cpp` as a newcomer would copy
# them, runs the kernel in kite-run (interpreter, and --gpu where a GPU is),
# builds the C++ program against libkite.so and runs it: it must print
# y[0] = 3. Usage: readme_check.sh LIBDIR [KITE_RUN]
#   here:  bash scripts/gpu/readme_check.sh build/lib build/bin/kite-run
#   there: bash scripts/gpu/readme_check.sh .gpu/rt/lib
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
libdir="$(cd "$1" && pwd)"
kiterun="${2:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sed -n '/^```python$/,/^```$/p' "$root/README.md" |
  awk '/^def scale/{p=1; print prev} p&&/^```$/{exit} p{print} {prev=$0}' > "$work/scale.kite"
sed -n '/main.cpp: g++/,/^}$/p' "$root/README.md" > "$work/main.cpp"
grep -q "def scale" "$work/scale.kite" && grep -q "int main" "$work/main.cpp"
cd "$work"
if [ -n "$kiterun" ]; then
  "$root/$kiterun" scale.kite --grid 1 x_ptr=randn:5:1 y_ptr=zeros:5 n=5 a=2 --print y_ptr
fi
g++ -std=c++17 main.cpp -I"$root/include" -L"$libdir" -lkite -Wl,-rpath,"$libdir" -o scale
out="$(./scale 2>&1)" || { echo "readme_check: the program failed: $out"; exit 1; }
echo "$out"
[ "$out" = "y[0] = 3" ] || { echo "readme_check: expected y[0] = 3"; exit 1; }
echo "readme_check: ok"
