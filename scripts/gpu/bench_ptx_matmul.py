#!/usr/bin/env python3
"""Times f32 matmul PTX variants at 4096^3 on the GPU machine (experiments).

Usage: python3 bench_ptx_matmul.py DIR
Every DIR/*.ptx is the tutorial matmul kernel compiled by kitec (e.g. with
--specialize and -D block sizes). Its name gives the launch configuration:
..._<BM>x<BN>x<BK>w<WARPS>... (default 128x128x32w8), and the first line
of the PTX the dynamic shared memory ("// kite.dynamic_shared_memory ...").
Prints TFLOP/s, the ratio to cuBLAS (TF32 off) and the error against a
float64 reference, for each variant.
"""
import glob
import re
import sys

import cupy as cp
import numpy as np
import torch

torch.backends.cuda.matmul.allow_tf32 = False
M = N = K = 4096
a = torch.randn(M, K, device="cuda")
b = torch.randn(K, N, device="cuda")
ref = a.double() @ b.double()


def bench(fn, reps=20):
    for _ in range(3):
        fn()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return float(np.median(times))


flops = 2 * M * N * K
cublas = flops / bench(lambda: torch.matmul(a, b)) / 1e9
print(f"cuBLAS {cublas:.1f} TFLOP/s")
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
    t = bench(lambda: f((grid,), (32 * warps,), args, shared_mem=smem))
    err = ((c.double() - ref).norm() / ref.norm()).item()
    tf = flops / t / 1e9
    print(f"{path.split('/')[-1]:40s} {tf:6.1f} TFLOP/s  {tf / cublas:.2f}x cuBLAS"
          f"  error {err:.1e}")
