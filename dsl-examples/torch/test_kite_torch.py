"""Tests of the Kite torch operators (kite_torch_ops.cpp) against torch.

Run by scripts/gpu/torch_op.sh on the GPU machine:
    python3 test_kite_torch.py LIBRARY
"""
import sys

import torch

torch.ops.load_library(sys.argv[1])
failures = 0


def check(name, ok, detail=""):
    global failures
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name} {detail}")


def expect_error(name, fn, words):
    try:
        fn()
    except RuntimeError as e:
        msg = str(e).splitlines()[0]
        check(name, all(w in msg for w in words), f"({msg})")
        return
    check(name, False, "(no error)")


cuda = torch.device("cuda")
for n in (1, 1000, 98432, 1 << 20):
    x = torch.rand(n, device=cuda)
    y = torch.rand(n, device=cuda)
    check(f"add n={n}", torch.equal(torch.ops.kite.add(x, y), x + y))

# On a side stream: the op launches on the current stream.
s = torch.cuda.Stream()
with torch.cuda.stream(s):
    x = torch.rand(1 << 20, device=cuda)
    y = torch.rand(1 << 20, device=cuda)
    z = torch.ops.kite.add(x, y)
s.synchronize()
check("add on a side stream", torch.equal(z, x + y))

for M, N, K in ((16, 16, 16), (37, 29, 45), (1000, 1000, 1000), (4096, 4096, 512)):
    a = torch.randn(M, K, device=cuda, dtype=torch.float16)
    b = torch.randn(K, N, device=cuda, dtype=torch.float16)
    ref = a.double() @ b.double()
    got = torch.ops.kite.matmul(a, b).double()
    err = ((got - ref).abs().max() / ref.abs().max()).item()
    check(f"matmul {M}x{N}x{K}", err < 2e-3, f"(relative error {err:.1e})")

x = torch.rand(16, device=cuda)
expect_error("add rejects CPU tensors", lambda: torch.ops.kite.add(x.cpu(), x.cpu()),
             ["CUDA tensor"])
expect_error("add rejects f64", lambda: torch.ops.kite.add(x.double(), x.double()),
             ["must be Float"])
expect_error("add rejects mismatched shapes",
             lambda: torch.ops.kite.add(x, torch.rand(8, device=cuda)), ["same shape"])
m = torch.randn(64, 64, device=cuda, dtype=torch.float16)
expect_error("matmul rejects non-contiguous", lambda: torch.ops.kite.matmul(m.t(), m),
             ["contiguous"])
expect_error("matmul rejects f32", lambda: torch.ops.kite.matmul(m.float(), m.float()),
             ["must be Half"])
expect_error("matmul rejects inner mismatch",
             lambda: torch.ops.kite.matmul(m, torch.randn(32, 64, device=cuda,
                                                          dtype=torch.float16)),
             ["inner dimensions"])
print("torch ops:", "all passed" if failures == 0 else f"{failures} FAILED")
sys.exit(1 if failures else 0)
