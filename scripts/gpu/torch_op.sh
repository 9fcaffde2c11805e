#!/usr/bin/env bash
#===- scripts/gpu/torch_op.sh - Build and test the Kite torch operators -----===#
#
# Builds dsl-examples/torch/kite_torch_ops.cpp (a PyTorch C++ extension
# registering Kite kernels as torch.ops.kite.*) against libkite.so and the
# installed torch, then runs its Python test against torch. Needs PyTorch
# and a GPU: without them it says so and exits 77 (ctest: skipped).
#   scripts/gpu/torch_op.sh [LIBKITE_DIR]   (default: .gpu/rt/lib, else build/lib)
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
if ! python3 -c "import torch" 2>/dev/null; then
  echo "skipped: PyTorch is not installed here (the torch op example is built and run on the GPU machine by scripts/gpu/run.sh)"
  exit 77
fi
if ! python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"; then
  echo "skipped: no GPU (torch.cuda.is_available() is false)"
  exit 77
fi
libdir="${1:-}"
[ -z "$libdir" ] && { [ -f .gpu/rt/lib/libkite.so ] && libdir=.gpu/rt/lib || libdir=build/lib; }
libdir="$(cd "$libdir" && pwd)"
out="${OUT:-$(mktemp -d)}"
read -r abi torchlib <<<"$(python3 -c "import torch, os; print(int(torch._C._GLIBCXX_USE_CXX11_ABI), os.path.join(os.path.dirname(torch.__file__), 'lib'))")"
incs="$(python3 -c "import torch.utils.cpp_extension as c; print(' '.join('-I' + p for p in c.include_paths()))")"
cuda="${CUDA_HOME:-/usr/local/cuda}"
echo "== building the Kite torch operators (torch C++ ABI $abi)"
g++ -std=c++17 -O2 -shared -fPIC -D_GLIBCXX_USE_CXX11_ABI="$abi" $incs -I"$cuda/include" \
  -Iinclude dsl-examples/torch/kite_torch_ops.cpp \
  -L"$libdir" -lkite -L"$torchlib" -ltorch -ltorch_cpu -ltorch_cuda -lc10 -lc10_cuda \
  -Wl,-rpath,"$libdir" -Wl,-rpath,"$torchlib" -o "$out/libkite_torch_ops.so"
KITE_EXAMPLES_DIR="$PWD/dsl-examples" python3 dsl-examples/torch/test_kite_torch.py "$out/libkite_torch_ops.so"
