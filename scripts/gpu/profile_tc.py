#!/usr/bin/env python3
"""Profiles tensor-core matmul variants beside Triton's tutorial kernel.

Usage (GPU machine, under ncu --profile-from-start off):
  ncu --profile-from-start off --section SpeedOfLight ... \
      python3 .gpu/profile_tc.py M,N,K .gpu/tc/<variant>.ptx ...
Triton's kernel is autotuned first (outside the profiled range); then one
launch of each Kite variant and one of Triton's chosen config run inside
cudaProfilerStart/Stop, so ncu sees exactly those.
"""
import sys

import torch

from check_tc import DT, launcher, load
from bench_triton import matmul_kernel


def main():
    M, N, K = (int(x) for x in sys.argv[1].split(","))
    variants = [load(p) for p in sys.argv[2:]]
    dtype = variants[0]["dtype"] if variants else "f16"
    a = torch.randn(M, K, device="cuda", dtype=DT[dtype])
    b = torch.randn(K, N, device="cuda", dtype=DT[dtype])
    c = torch.empty(M, N, device="cuda")

    def triton_run():
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                            b.stride(1), c.stride(0), c.stride(1), IEEE=False)
    import triton
    globals()["triton"] = triton
    triton_run()
    torch.cuda.synchronize()
    print("triton config:", matmul_kernel.best_config, flush=True)
    runs = [launcher(v, a, b, c) for v in variants]
    for r in runs:
        r()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for r in runs:
        r()
    triton_run()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main()
