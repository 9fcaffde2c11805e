#!/usr/bin/env python3
"""Profiles tensor-core matmul variants beside Triton's tutorial kernel.

Usage (GPU machine, under ncu --profile-from-start off):
  ncu --profile-from-start off --section SpeedOfLight ... \
      python3 .gpu/profile_tc.py M,N,K .gpu/tc/<variant>.ptx ...
Triton's kernel is autotuned first (outside the profiled range); then one
launch of each Kite variant and one of Triton's chosen config run inside
cudaProfilerStart/Stop, so ncu sees exactly those.
"""
import os
import re
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

    # TRITON_CONFIG=BMxBNxBKwWsS: that config of Triton's kernel instead of
    # its autotuner's pick.
    fixed = os.environ.get("TRITON_CONFIG")

    def triton_run():
        if fixed:
            bm, bn, bk, w, s = map(int, re.match(r"(\d+)x(\d+)x(\d+)w(\d+)s(\d+)", fixed).groups())
            grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
            matmul_kernel.fn[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                   b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn,
                                   BLOCK_K=bk, GROUP_M=8, IEEE=False, num_warps=w, num_stages=s)
            return
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                            b.stride(1), c.stride(0), c.stride(1), IEEE=False)
    import triton
    globals()["triton"] = triton
    triton_run()
    torch.cuda.synchronize()
    print("triton config:", fixed or matmul_kernel.best_config, flush=True)
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
