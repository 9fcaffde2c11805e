#!/usr/bin/env bash
#===- scripts/setup.sh - Install Kite's build dependencies ------------------===#
#
# Installs whatever is missing among the Debian packages Kite builds against
# (LLVM/MLIR 22, lit tools, ninja, ccache, zstd, GoogleTest), plus any
# packages given as arguments. Idempotent: when everything is present it
# only checks and returns in well under a second.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libzstd-dev zlib1g-dev libxml2-dev ninja-build ccache cmake g++
  googletest libgtest-dev
  "$@" # extra packages for optional jobs (scripts/fuzz.sh: clang-22 ...)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all dependencies present"
else
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -x /usr/local/cuda/bin/ptxas ]; then
  echo "setup: note: no CUDA toolkit at /usr/local/cuda; ptxas checks will be skipped" >&2
fi
