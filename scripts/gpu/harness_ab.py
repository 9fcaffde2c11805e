"""Times one Kite matmul PTX variant at M,N,K in two harnesses: Triton's do_bench
(all reps queued, 256 MB cache.zero_() before each) and kite-bench's (a
synchronization after each rep, a 256 MB memset before it), with torch.randn
inputs and with uniform [-1, 1) inputs. On the GPU machine:
  python3 .gpu/harness_ab.py M,N,K .gpu/tc/<variant>.ptx"""
import sys
import numpy as np
import torch
import triton
from check_tc import launcher, load, DT

M, N, K = (int(x) for x in sys.argv[1].split(","))
v = load(sys.argv[2])
cache = torch.empty(256 << 20, dtype=torch.int8, device="cuda")


def synced(fn, reps=10, memset=False):
    import cupy as cp
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        fn()
    ms = []
    for r in range(reps):
        if memset:  # as kite-bench: cuMemsetD8 on the whole buffer
            cp.cuda.runtime.memset(cache.data_ptr(), r, cache.numel())
        else:
            cache.fill_(r)
        s.record()
        fn()
        e.record()
        e.synchronize()
        ms.append(s.elapsed_time(e))
    return float(np.median(ms))


import os, time
if os.environ.get("HEAT"):  # seconds of 8192^3 f16 matmuls first (a hot GPU)
    x = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    t0 = time.time()
    while time.time() - t0 < float(os.environ["HEAT"]):
        for _ in range(20):
            torch.matmul(x, x)
        torch.cuda.synchronize()
for data in ("randn", "uniform"):
    if data == "randn":
        a = torch.randn(M, K, device="cuda", dtype=DT[v["dtype"]])
        b = torch.randn(K, N, device="cuda", dtype=DT[v["dtype"]])
    else:
        a = (torch.rand(M, K, device="cuda") * 2 - 1).to(DT[v["dtype"]])
        b = (torch.rand(K, N, device="cuda") * 2 - 1).to(DT[v["dtype"]])
    c = torch.empty(M, N, device="cuda")
    fn = launcher(v, a, b, c)
    fn()
    t1 = triton.testing.do_bench(fn, warmup=10, rep=100, return_mode="median")
    t2 = synced(fn)
    t3 = synced(fn, memset=True)
    f = lambda t: 2 * M * N * K / t / 1e9
    print(f"{v['name']} {M}x{N}x{K} {data}: do_bench {t1 * 1e3:.1f} us ({f(t1):.1f} TFLOP/s), "
          f"synced {t2 * 1e3:.1f} us ({f(t2):.1f}), synced after cudaMemset {t3 * 1e3:.1f} us ({f(t3):.1f})", flush=True)
