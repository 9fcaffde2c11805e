#!/usr/bin/env python3
"""Times f32 matmul PTX variants at 4096^3 on the GPU machine (experiments).

Usage: python3 bench_ptx_matmul.py DIR
Every DIR/*.ptx is the tutorial matmul kernel compiled by kitec (e.g. with
--specialize and -D block sizes). Its name gives the launch configuration:
..._<BM>x<BN>x<BK>w<WARPS>... (default 128x128x32w8), and the first line
of the PTX the dynamic shared memory ("// kite.dynamic_shared_memory ...").
Prints TFLOP/s, the ratios to Triton's tutorial kernel (autotuned, IEEE
f32) and to cuBLAS (TF32 off), timed alike in the same process (median of
ROUNDS rounds over all of them, default 3), and the error against a
float64 reference, for each variant.
"""
import glob
import os
import re
import sys

import cupy as cp
import numpy as np
import torch
import triton
import triton.testing

torch.backends.cuda.matmul.allow_tf32 = False
M = N = K = 4096
a = torch.randn(M, K, device="cuda")
b = torch.randn(K, N, device="cuda")
ref = a.double() @ b.double()


def bench(fn):
    """Median milliseconds, with Triton's own protocol (L2 flushed before
    each run), so that every implementation is timed alike."""
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


flops = 2 * M * N * K
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_triton import matmul_kernel  # noqa: E402  (the tutorial kernel, autotuned)


def triton_run():
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    ct = torch.empty(M, N, device="cuda")
    return lambda: matmul_kernel[grid](a, b, ct, M, N, K, K, 1, N, 1, N, 1, IEEE=True)


runs = {"cuBLAS": lambda: torch.matmul(a, b), "Triton": triton_run()}
outputs = {}
for path in sorted(glob.glob(sys.argv[1] + "/*.ptx")):
    text = open(path).read()
    m = re.search(r"(\d+)x(\d+)x(\d+)w(\d+)", path)
    bm, bn, bk, warps = map(int, m.groups()) if m else (128, 128, 32, 8)
    ms = re.search(r"// kite.dynamic_shared_memory \w+ (\d+)", text)
    smem = int(ms.group(1)) if ms else 0
    f = cp.RawModule(path=path).get_function("matmul")
    if smem:
        f.max_dynamic_shared_size_bytes = smem
    c = torch.full((M, N), float("nan"), device="cuda")
    grid = ((M + bm - 1) // bm) * ((N + bn - 1) // bn)
    args = (cp.uint64(a.data_ptr()), cp.uint64(b.data_ptr()),
            cp.uint64(c.data_ptr()),
            *[np.int32(x) for x in (M, N, K, K, 1, N, 1, N, 1)])
    name = path.split("/")[-1]
    runs[name] = (lambda f=f, grid=grid, warps=warps, args=args, smem=smem:
                  f((grid,), (32 * warps,), args, shared_mem=smem))
    outputs[name] = c
runs["Triton"]()  # autotune outside the timing
# Rounds over all variants, so that clock drift hits each alike; the
# figure is the median of the rounds.
rounds = int(os.environ.get("ROUNDS", "3"))
times = {k: [] for k in runs}
for _ in range(rounds):
    for k, fn in runs.items():
        times[k].append(bench(fn))
tf = {k: flops / float(np.median(v)) / 1e9 for k, v in times.items()}
print(f"cuBLAS {tf['cuBLAS']:.1f} TFLOP/s, Triton {tf['Triton']:.1f} TFLOP/s")
for name, c in outputs.items():
    err = ((c.double() - ref).norm() / ref.norm()).item()
    print(f"{name:40s} {tf[name]:6.1f} TFLOP/s  {tf[name] / tf['Triton']:.3f}x Triton"
          f"  {tf[name] / tf['cuBLAS']:.2f}x cuBLAS  error {err:.1e}")
