#!/usr/bin/env python3
"""The tutorial matmul in every operand orientation, beside Triton and cuBLAS.

Usage: python3 bench_orient.py DIR   (DIR from scripts/gpu/orient_variants.sh)
Environment: KITE_ORIENT_QUICK=1 (4096^3 and 4095^3 only), KITE_ORIENT_SHAPES=odd
or div16, KITE_ORIENT_ONLY=f16,bf16 (dtypes; also tf32, fp8). A side that
cannot run a case (Triton's dot on fp8 in some layout, cuBLAS's fp8 outside
NT) shows 0.
Each DIR/mm_<dtype>_<orient>_<div>_<BM>x<BN>x<BK>w<W>s<S>.c is Kite's export
of bench/kernels/matmul_tutorial.kite (C only, the driver through dlopen);
it is built here into a shared library and launched through ctypes. For
each dtype, orientation (NN; NT: B an nn.Linear weight, N x K; TN: A given
K x M; TT) and shape, Kite's best configuration (autotuned over the same
configurations) is timed beside Triton's tutorial kernel autotuned over the
tutorial's Hopper configurations and cuBLAS (torch.matmul on the same
views), with Triton's do_bench (medians), in one process; the outputs are
checked against cuBLAS. Prints one table; writes DIR/orient.json.
"""
import ctypes
import glob
import json
import os
import re
import subprocess
import sys

import torch
import triton
import triton.language as tl
import triton.testing

DIR = sys.argv[1]
# Operand dtype and output dtype per Kite dtype name: tf32 is f32 data with
# the dot in tf32 (Triton's default; cuBLAS with TF32 allowed), fp8 is e4m3
# data with an f16 output (cuBLAS: torch._scaled_mm, which takes only A
# row-major and B column-major: the NT rows).
DT = {"f16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32,
      "fp8": torch.float8_e4m3fn}
OUT = {"tf32": torch.float32, "fp8": torch.float16}
torch.backends.cuda.matmul.allow_tf32 = True


def tutorial_configs():
    c = triton.Config
    return [c({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
            c({"BLOCK_M": 64, "BLOCK_N": 256, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
            c({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
            c({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
            c({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
            c({"BLOCK_M": 128, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
            c({"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=5, num_warps=2),
            c({"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=5, num_warps=2),
            c({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8)]


@triton.autotune(configs=tutorial_configs(), key=["M", "N", "K", "sam", "sak", "sbk", "sbn"])
@triton.jit
def tutorial_matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                    GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * sam + offs_k[None, :] * sak)
    b_ptrs = b_ptr + (offs_k[:, None] * sbk + offs_bn[None, :] * sbn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * sak
        b_ptrs += BLOCK_K * sbk
    c = acc.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + scm * offs_cm[:, None] + scn * offs_cn[None, :], c,
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def operands(orient, M, N, K, dt):
    torch.manual_seed(0)
    a = (torch.randn(M, K, device="cuda").to(dt) if orient[0] == "N"
         else torch.randn(K, M, device="cuda").to(dt).T)
    b = (torch.randn(K, N, device="cuda").to(dt) if orient[1] == "N"
         else torch.randn(N, K, device="cuda").to(dt).T)
    return a, b


def cublas(a, b, dt):
    """cuBLAS on the same views, or None where it takes no such operands."""
    if dt != "fp8":
        return lambda: torch.matmul(a, b)
    if not (a.stride(1) == 1 and b.stride(0) == 1):
        return None
    one = torch.ones((), device="cuda")
    return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16)


# The exports, built into shared libraries.
# KITE_ORIENT_ONLY=f16 (dtypes, comma-separated) keeps those dtypes (the
# others are not even built: cc on every export takes minutes);
# KITE_ORIENT_SHAPES=odd (or div16) those shapes.
only = os.environ.get("KITE_ORIENT_ONLY", "").split(",") if os.environ.get("KITE_ORIENT_ONLY") else None
only_div = os.environ.get("KITE_ORIENT_SHAPES")
variants = {}  # (dt, orient, div) -> [(name, lib, bm, bn, warps)]
for c in sorted(glob.glob(os.path.join(DIR, "mm*.c"))):
    name = os.path.basename(c)[:-2]
    m = re.match(r"mm(\d*)_(\w+?)_(\w\w)_(div16|odd)_(\d+)x(\d+)x(\d+)w(\d+)s(\d+)$", name)
    if not m:
        continue
    if only and m.group(2) not in only or only_div and m.group(4) != only_div:
        continue
    so = os.path.join(DIR, name + ".so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", c, "-o", so, "-ldl"], check=True)
    lib = ctypes.CDLL(so)
    if getattr(lib, name + "_load")() != 0:
        err = getattr(lib, name + "_error")
        err.restype = ctypes.c_char_p
        print(f"{name}: load failed: {err().decode()}")
        continue
    launch = getattr(lib, name + "_launch")
    launch.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 3 + [ctypes.c_uint64] * 3 + [ctypes.c_int32] * 9
    chip, dt, orient, div, bm, bn, bk, w, s = m.groups()
    variants.setdefault((dt + ("@sm" + chip if chip else ""), orient, div), []).append(
        (name, launch, int(bm), int(bn)))

shapes = [("div16", 4096, 4096, 4096), ("div16", 8192, 8192, 8192), ("div16", 1024, 1024, 1024),
          ("div16", 16, 8192, 8192), ("div16", 64, 8192, 8192), ("odd", 4095, 4095, 4095)]
if os.environ.get("KITE_ORIENT_QUICK") == "1":
    shapes = [s for s in shapes if s[1] in (4096, 4095)]
if only_div:
    shapes = [s for s in shapes if s[0] == only_div]
rows = []
wrong = []
for (dt, orient, div), vs in sorted(variants.items()):
    for sdiv, M, N, K in shapes:
        if sdiv != div:
            continue
        base = dt.split("@")[0]
        a, b = operands(orient, M, N, K, DT[base])
        ref = (a.double() @ b.double()).float()
        out_dt = OUT.get(base, a.dtype)
        c = torch.empty(M, N, device="cuda", dtype=out_dt)
        stream = torch.cuda.current_stream().cuda_stream
        best = None
        for name, launch, bm, bn in vs:
            grid = ((M + bm - 1) // bm) * ((N + bn - 1) // bn)
            args = (stream, grid, 1, 1, a.data_ptr(), b.data_ptr(), c.data_ptr(), M, N, K,
                    a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
            c.fill_(float("nan"))
            if launch(*args) != 0:
                print(f"{name}: launch failed")
                continue
            torch.cuda.synchronize()
            err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
            ok = err < 1e-2
            ms = bench(lambda: launch(*args))
            if not ok:
                print(f"{name} {M}x{N}x{K}: WRONG (max rel error {err:.2e})")
                wrong.append(f"{name} {M}x{N}x{K}")
                continue
            if best is None or ms < best[0]:
                best = (ms, name)
        ct = torch.empty(M, N, device="cuda", dtype=out_dt)
        tgrid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
        trun = lambda: tutorial_matmul[tgrid](a, b, ct, M, N, K, a.stride(0), a.stride(1),
                                              b.stride(0), b.stride(1), ct.stride(0), ct.stride(1))
        try:
            trun()
            t_ms = bench(trun)
        except Exception as e:  # Triton may not take this dtype and layout
            print(f"triton {dt} {orient} {M}x{N}x{K}: {str(e).splitlines()[0][:120]}")
            t_ms = float("inf")
        cb = cublas(a, b, base)
        try:
            cb_ms = bench(cb) if cb else float("inf")
        except RuntimeError as e:  # _scaled_mm wants sizes divisible by 16
            print(f"cublas {dt} {orient} {M}x{N}x{K}: {str(e).splitlines()[0][:120]}")
            cb_ms = float("inf")
        fl = 2.0 * M * N * K / 1e9
        row = {"dtype": dt, "orient": orient, "shape": f"{M}x{N}x{K}",
               "kite": fl / best[0] if best else 0.0, "kite_config": best[1].split("_")[-1] if best else "-",
               "triton": fl / t_ms, "cublas": fl / cb_ms}
        rows.append(row)
        print(json.dumps(row), flush=True)
json.dump(rows, open(os.path.join(DIR, "orient.json"), "w"), indent=1)


def ratio(x, y):
    return f"{x / y:.2f}" if y else "-"

print()
print(f"{'dtype':9} {'orient':6} {'shape':16} {'Kite':>7} {'Triton':>7} {'cuBLAS':>7} {'K/T':>6} {'K/cB':>6}  Kite config")
for r in rows:
    print(f"{r['dtype']:9} {r['orient']:6} {r['shape']:16} {r['kite']:7.1f} {r['triton']:7.1f} {r['cublas']:7.1f}"
          f" {ratio(r['kite'], r['triton']):>6} {ratio(r['kite'], r['cublas']):>6}  {r['kite_config']}")
if wrong:
    print(f"{len(wrong)} WRONG results: " + ", ".join(wrong))
    sys.exit(1)
print("every result within 1e-2 (max abs error / max abs value) of float64")
