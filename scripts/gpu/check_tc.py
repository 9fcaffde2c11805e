#!/usr/bin/env python3
"""Checks and times tensor-core matmul PTX variants on the GPU machine.

Usage: python3 check_tc.py DIR   (DIR from scripts/gpu/tc_variants.sh)
       python3 check_tc.py --once A.ptx ...   (one launch each at 4096^3, for ncu)
Each DIR/<dtype>-<chip>_<BM>x<BN>x<BK>w<W>s<S>_<spec|plain>.ptx is the
tutorial matmul (f16/bf16 inputs, or f32 ones multiplied as tf32; f32 C)
compiled by kitec for chip (sm_90a: wgmma for f16/bf16; sm_80: mma.sync). For each: the relative
error against a float64 reference on a set of shapes (spec variants only on
shapes their specialization holds for: sizes divisible by 16), with a bound
like Triton's tests; then, for spec variants, TFLOP/s at the benchmark shapes
beside Triton's tutorial kernel (autotuned, same dtype) and cuBLAS
(torch.matmul), timed alike (do_bench medians, rounds over all). A table last.
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_triton import matmul_kernel  # noqa: E402

DT = {"f16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32}
# Relative Frobenius error bounds (Triton's tests use similar tolerances):
# tf32 keeps 10 mantissa bits like f16, truncating the operands.
BOUND = {"f16": 2e-3, "bf16": 1e-2, "tf32": 4e-3}
CHECK = [(16, 16, 16), (37, 29, 45), (1000, 1000, 1000), (4095, 4097, 1023),
         (128, 256, 64), (1024, 1024, 1024), (333, 257, 100)]
TIME = [(1024, 1024, 1024), (4096, 4096, 4096), (8192, 8192, 8192),
        (4096, 4096, 512)]
if os.environ.get("TC_QUICK"):
    TIME = [(4096, 4096, 4096)]
if os.environ.get("TC_TIME"):  # e.g. TC_TIME="4096,4096,512 1024,1024,1024"
    TIME = [tuple(int(x) for x in t.split(",")) for t in os.environ["TC_TIME"].split()]
if os.environ.get("TC_NO_TIMING"):
    TIME = []


def load(path):
    text = open(path).read()
    name = os.path.basename(path)[:-4]
    m = re.match(r"(tf32|b?f16)-(sm_\w+?)_(\d+)x(\d+)x(\d+)w(\d+)s(\d+)_(spec|plain)", name)
    dtype, chip, bm, bn, bk, w, s, kind = m.groups()
    bm, bn, w = int(bm), int(bn), int(w)
    ms = re.search(r"// kite.dynamic_shared_memory \w+ (\d+)", text)
    smem = int(ms.group(1)) if ms else 0
    f = cp.RawModule(path=path).get_function("matmul")
    if smem:
        f.max_dynamic_shared_size_bytes = smem
    return dict(name=name, dtype=dtype, bm=bm, bn=bn, w=w, kind=kind, f=f,
                smem=smem, regs=f.num_regs)


def launcher(v, a, b, c, transposed=False):
    M, K = a.shape
    N = b.shape[1]
    grid = ((M + v["bm"] - 1) // v["bm"]) * ((N + v["bn"] - 1) // v["bn"])
    args = (cp.uint64(a.data_ptr()), cp.uint64(b.data_ptr()),
            cp.uint64(c.data_ptr()),
            *[np.int32(x) for x in (M, N, K, a.stride(0), a.stride(1),
                                    b.stride(0), b.stride(1), c.stride(0),
                                    c.stride(1))])
    return lambda: v["f"]((grid,), (32 * v["w"],), args, shared_mem=v["smem"])


def once(paths):
    """Launches each variant once at ONCE_SHAPE (default 4096,4096,4096; for
    ncu and compute-sanitizer) and checks the result."""
    M, N, K = (int(x) for x in os.environ.get("ONCE_SHAPE", "4096,4096,4096").split(","))
    bad = 0
    for path in paths:
        v = load(path)
        a = torch.randn(M, K, device="cuda", dtype=DT[v["dtype"]])
        b = torch.randn(K, N, device="cuda", dtype=DT[v["dtype"]])
        c = torch.empty(M, N, device="cuda")
        launcher(v, a, b, c)()
        torch.cuda.synchronize()
        ref = a.double() @ b.double()
        err = ((c.double() - ref).norm() / ref.norm()).item()
        bad += err > BOUND[v["dtype"]]
        print(f"{v['name']} {M}x{N}x{K}: error {err:.1e}")
    sys.exit(1 if bad else 0)


def main():
    if sys.argv[1] == "--once":
        return once(sys.argv[2:])
    variants = [load(p) for p in sorted(glob.glob(sys.argv[1] + "/*.ptx"))]
    torch.manual_seed(0)
    failures = 0
    print("== correctness (relative Frobenius error vs float64)")
    for v in variants:
        tdt = DT[v["dtype"]]
        bound = BOUND[v["dtype"]]
        for (M, N, K) in CHECK:
            for transposed in (False, True):
                if v["kind"] == "spec" and (M % 16 or N % 16 or K % 16 or transposed):
                    continue
                a = torch.randn(M, K, device="cuda", dtype=tdt)
                if transposed:
                    b = torch.randn(N, K, device="cuda", dtype=tdt).t()
                else:
                    b = torch.randn(K, N, device="cuda", dtype=tdt)
                c = torch.full((M, N), float("nan"), device="cuda")
                launcher(v, a, b, c)()
                torch.cuda.synchronize()
                ref = a.double() @ b.double()
                err = ((c.double() - ref).norm() / ref.norm()).item()
                ok = err <= bound
                extra = ""
                if v["dtype"] == "tf32":
                    # The interpreter's model: operands truncated to tf32
                    # (low 13 bits dropped), products summed in f32.
                    trunc = lambda x: (x.contiguous().view(torch.int32) & -8192).view(torch.float32).double()
                    ref_t = trunc(a) @ trunc(b)
                    err_t = ((c.double() - ref_t).norm() / ref_t.norm()).item()
                    ok = ok and err_t <= 1e-5
                    extra = f" (vs truncated operands {err_t:.1e})"
                failures += not ok
                print(f"{v['name']:32s} {M}x{N}x{K}{'T' if transposed else ' '} "
                      f"error {err:.1e}{extra} {'ok' if ok else 'FAIL'}", flush=True)
    print("== timing (TFLOP/s, do_bench median of rounds)")
    rows = []
    for (M, N, K) in TIME:
        for dtype in sorted({v["dtype"] for v in variants}):
            tdt = DT[dtype]
            a = torch.randn(M, K, device="cuda", dtype=tdt)
            b = torch.randn(K, N, device="cuda", dtype=tdt)
            # cuBLAS in the variant's precision (tf32 for f32 inputs).
            torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
            runs = {"cuBLAS": lambda: torch.matmul(a, b)}
            ct = torch.empty(M, N, device="cuda")
            grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
            runs["Triton"] = lambda: matmul_kernel[grid](a, b, ct, M, N, K, K, 1, N, 1, N, 1, IEEE=False)
            runs["Triton"]()
            print(f"Triton's pick for {dtype} {M}x{N}x{K}: {matmul_kernel.best_config}", flush=True)
            for v in variants:
                if v["dtype"] == dtype and v["kind"] == "spec":
                    c = torch.empty(M, N, device="cuda")
                    runs[v["name"]] = launcher(v, a, b, c)
            times = {k: [] for k in runs}
            for _ in range(int(os.environ.get("ROUNDS", "3"))):
                for k, fn in runs.items():
                    times[k].append(triton.testing.do_bench(fn, warmup=10, rep=100,
                                                            return_mode="median"))
            tf = {k: 2 * M * N * K / float(np.median(t)) / 1e9 for k, t in times.items()}
            for k in runs:
                if k in ("cuBLAS", "Triton"):
                    continue
                rows.append((f"{M}x{N}x{K}", k, tf[k], tf["Triton"], tf["cuBLAS"]))
            rows.append((f"{M}x{N}x{K}", f"{dtype} Triton / cuBLAS", tf["Triton"], tf["Triton"], tf["cuBLAS"]))
    print(f"{'shape':16s} {'variant':34s} {'TFLOP/s':>8s} {'xTriton':>8s} {'xcuBLAS':>8s}")
    for shape, k, t, tt, tc in rows:
        print(f"{shape:16s} {k:34s} {t:8.1f} {t / tt:8.3f} {t / tc:8.3f}")
    for v in variants:
        print(f"{v['name']}: {v['regs']} registers, {v['smem']} bytes dynamic shared memory")
    print("FAILURES:", failures)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
