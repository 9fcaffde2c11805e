#!/usr/bin/env bash
#===- scripts/gpu/build-static.sh - The self-contained GPU build -----------===#
#
# Builds, in build-static/, libkite.so with MLIR/LLVM linked in statically
# (symbols hidden) and the programs that run on the GPU machine against it:
# the tutorial host programs, the GPU test suite and the runtime benchmarks.
# They need only the NVIDIA driver, libc, libstdc++, zlib, zstd and libxml2
# there. prepare.sh packs them into .gpu/.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export KITE_BUILD_DIR="${KITE_STATIC_BUILD_DIR:-$root/build-static}"
export KITE_CMAKE_ARGS="-DKITE_STATIC_LLVM=ON"
. "$root/scripts/gpu/programs.sh"
# shellcheck disable=SC2086
bash "$root/scripts/build.sh" kite_runtime $KITE_HOST_PROGRAMS \
  KiteRuntimeGPUTests kite-bench-runtime kite-bench "$@"
