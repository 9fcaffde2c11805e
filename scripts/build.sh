#!/usr/bin/env bash
#===- scripts/build.sh - Configure and build Kite ---------------------------===#
#
# Configures (once) and builds Kite into ${KITE_BUILD_DIR:-build} with ninja
# and ccache. Extra arguments are passed to `ninja` (targets).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KITE_BUILD_DIR:-$root/build}"
jobs="${KITE_JOBS:-$(nproc)}"

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE="${KITE_BUILD_TYPE:-Release}" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ ${KITE_CMAKE_ARGS:-}
fi
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
ninja -C "$build" -j "$jobs" "$@"
