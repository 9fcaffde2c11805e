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

# Tutorial 07: libdevice's asin, within a few ulp of float64 torch.asin and
# of Triton's libdevice.asin (the same __nv_asinf, compiled by two LLVMs:
# measured up to 3 ulp apart on 40% of the elements, both within 1.3e-7
# of float64).
try:
    import triton
    import triton.language as tl
    from triton.language.extra import libdevice

    @triton.jit
    def triton_asin(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(y_ptr + offs, libdevice.asin(tl.load(x_ptr + offs, mask=m)), mask=m)
except Exception as e:  # a Triton without libdevice there
    print(f"(Triton's libdevice.asin unavailable: {e})")
    triton_asin = None
for n in (1, 1000, 98432, (1 << 20) + 3):
    x = torch.rand(n, device=cuda) * 2 - 1
    got = torch.ops.kite.asin(x)
    err = (got.double() - torch.asin(x.double())).abs().max().item()
    ok = err < 4e-7
    detail = f"(max error {err:.1e} from float64"
    if triton_asin is not None:
        ref = torch.empty_like(x)
        triton_asin[(triton.cdiv(n, 1024),)](x, ref, n, BLOCK=1024)
        # Same-sign floats: the distance of their bit patterns is in ulp.
        ulp = (got.view(torch.int32).long() - ref.view(torch.int32).long()).abs()
        ok &= ulp.max().item() <= 4
        detail += (f"; from Triton: {int((ulp > 0).sum().item())} elements differ, "
                   f"by at most {ulp.max().item()} ulp")
    check(f"asin n={n}", ok, detail + ")")
for n in (1, 781, (1 << 20) + 1):
    x = torch.randn(n, device=cuda) * 8
    err = (torch.ops.kite.sigmoid(x).double() - torch.sigmoid(x.double())).abs().max().item()
    check(f"sigmoid n={n}", err < 1e-6, f"(max error {err:.1e} from float64)")
for M, N, K in ((16, 16, 16), (100, 70, 33), (1000, 1000, 1000), (4096, 4096, 4096)):
    x = torch.randn(M, K, device=cuda, dtype=torch.float16)
    w = (torch.randn(K, N, device=cuda) / K ** 0.5).half()
    b = torch.randn(N, device=cuda) * 0.5
    ref = torch.sigmoid(x.double() @ w.double() + b.double())
    err = (torch.ops.kite.perceptron(x, w, b).double() - ref).abs().max().item()
    check(f"perceptron {M}x{N}x{K}", err < 1e-3, f"(max error {err:.1e} from float64)")
for rows, cols in ((1, 1), (3, 3), (29, 781), (64, 1024), (7, 16383)):
    x = torch.randn(rows, cols, device=cuda) * 4
    err = (torch.ops.kite.softmax(x).double() - torch.softmax(x.double(), dim=1)).abs().max().item()
    check(f"softmax {rows}x{cols}", err < 1e-6, f"(max error {err:.1e} from float64)")
for rows, cols in ((1, 1), (3, 3), (29, 781), (64, 4096), (5, 16384), (3, 40000)):
    x = (1.5 + torch.randn(rows, cols, device=cuda)).half()
    w = (0.5 + torch.rand(cols, device=cuda)).half()
    b = (0.1 * torch.randn(cols, device=cuda)).half()
    ref = torch.nn.functional.layer_norm(x.double(), (cols,), w.double(), b.double(), 1e-5)
    err = (torch.ops.kite.layer_norm(x, w, b, 1e-5).double() - ref).abs().max().item()
    torch_err = (torch.nn.functional.layer_norm(x, (cols,), w, b, 1e-5).double() - ref).abs().max().item()
    check(f"layer_norm {rows}x{cols}", err < 1e-2 and err <= 2 * torch_err + 2e-3,
          f"(max error {err:.1e} from float64; torch's f16 layer_norm {torch_err:.1e})")

x = torch.rand(16, device=cuda)
expect_error("add rejects CPU tensors", lambda: torch.ops.kite.add(x.cpu(), x.cpu()),
             ["CUDA tensor"])
expect_error("layer_norm checks w's length",
             lambda: torch.ops.kite.layer_norm(torch.rand(2, 8, device=cuda).half(),
                                               torch.rand(7, device=cuda).half(),
                                               torch.rand(8, device=cuda).half()),
             ["w and b need 8 elements"])
expect_error("softmax rejects 1-D", lambda: torch.ops.kite.softmax(x), ["2-D x"])
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
expect_error("asin rejects f16", lambda: torch.ops.kite.asin(x.half()), ["must be Float"])
expect_error("perceptron rejects a bias of the wrong length",
             lambda: torch.ops.kite.perceptron(m, m, torch.rand(32, device=cuda)),
             ["b has 32 elements"])
print("torch ops:", "all passed" if failures == 0 else f"{failures} FAILED")
sys.exit(1 if failures else 0)
