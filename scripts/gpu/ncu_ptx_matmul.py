#!/usr/bin/env python3
"""Launches each given f32 matmul PTX (named as for bench_ptx_matmul.py)
once at 4096^3, for profiling under ncu:
  ncu --metrics ... python3 scripts/gpu/ncu_ptx_matmul.py A.ptx B.ptx"""
import re
import sys

import cupy as cp
import numpy as np

M = N = K = 4096
a = cp.random.randn(M, K, dtype=cp.float32)
b = cp.random.randn(K, N, dtype=cp.float32)
c = cp.empty((M, N), dtype=cp.float32)
for path in sys.argv[1:]:
    text = open(path).read()
    bm, bn, bk, warps = map(int, re.search(r"(\d+)x(\d+)x(\d+)w(\d+)", path).groups())
    ms = re.search(r"// kite.dynamic_shared_memory \w+ (\d+)", text)
    smem = int(ms.group(1)) if ms else 0
    f = cp.RawModule(path=path).get_function("matmul")
    if smem:
        f.max_dynamic_shared_size_bytes = smem
    grid = ((M + bm - 1) // bm) * ((N + bn - 1) // bn)
    f((grid,), (32 * warps,), (a, b, c, *[np.int32(x) for x in (M, N, K, K, 1, N, 1, N, 1)]),
      shared_mem=smem)
    cp.cuda.runtime.deviceSynchronize()
    print(path, "ok")
