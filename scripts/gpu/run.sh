#!/usr/bin/env bash
#===- scripts/gpu/run.sh - Run the GPU checks and benchmarks ---------------===#
#
# Runs on the GPU machine over the files scripts/gpu/prepare.sh left in .gpu/
# (carried by the device call): checks correctness, prints the benchmark
# table last. Exit status non-zero on any failed check.
#
#===-----------------------------------------------------------------------===#
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for f in .gpu/*.ptx; do
  /usr/local/cuda/bin/ptxas -arch=sm_90 "$f" -o /dev/null || { echo "ptxas failed on $f"; exit 1; }
done
python3 .gpu/check_1d.py 2>&1 | tee "${OUT:-/tmp}/check_1d.log"
