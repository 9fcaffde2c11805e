"""GPU checks and benchmarks of Kite's 1-D kernels, run on the GPU machine.

Loads the PTX that scripts/gpu/prepare.sh built (no LLVM is needed there)
with CuPy, and in the same run:
  * checks vector_add, dropout and seeded_dropout against exact host
    references and against Triton's tutorial kernels, on random inputs with
    outputs poisoned (NaN) before launch, for ragged sizes;
  * checks kite.randint/rand against the known answers of
    ../shared/notes/random.md and against Triton's tl.randint/tl.rand;
  * times every kernel against a device copy and Triton (median of many runs,
    CUDA events via triton.testing.do_bench) and prints one table.
Exit status 1 if any check fails.
"""
import json
import os
import sys

import cupy as cp
import numpy as np
import torch
import triton
import triton.language as tl

from triton_kernels import add_kernel as t_add, dropout_kernel as t_dropout, seeded_kernel as t_seeded

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'}  {name}  {detail}")
    if not ok:
        failures.append(name)


def load(name):
    meta = json.load(open(os.path.join(HERE, name + ".json")))
    module = cp.RawModule(path=os.path.join(HERE, name + ".ptx"))
    kernels = {k["name"]: (module.get_function(k["name"]), k["threads"])
               for k in meta["kernels"]}
    return kernels


def launch(kernel, grid, *args):
    fn, threads = kernel
    fn((grid,), (threads,), args)


def ptr(t):
    return cp.asarray(t)  # CuPy view of a torch tensor (shares memory)


# --- Triton tutorial kernels (the references: triton_kernels.py) ------------
@triton.jit
def t_rand(seed, off_ptr, out_i, out_f, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    off = tl.load(off_ptr + r)
    tl.store(out_i + r, tl.randint(seed, off))
    tl.store(out_f + r, tl.rand(seed, off))


def cdiv(a, b):
    return (a + b - 1) // b


def main():
    variant = os.environ.get("KITE_VARIANT", "aligned")
    sizes = [1, 1000, 1024, 1025, 4096 + 16, (1 << 20) + 3, 1 << 24]
    gen = torch.Generator(device="cuda").manual_seed(0)
    for v in ["plain", "aligned", "spec16"]:
        suffix = "" if v == "plain" else "." + v
        add = load("vector_add" + suffix)["vector_add"]
        drop = load("dropout" + suffix)["dropout"]
        seeded = load("seeded_dropout" + suffix)["seeded_dropout"]
        for n in sizes:
            if v == "spec16" and n % 16:
                continue  # compiled for n divisible by 16 only
            x = torch.randn(n, device="cuda", generator=gen)
            y = torch.randn(n, device="cuda", generator=gen)
            out = torch.full((n + 64,), float("nan"), device="cuda")
            launch(add, cdiv(n, 1024), ptr(x), ptr(y), ptr(out), np.int32(n))
            torch.cuda.synchronize()
            check(f"{v} vector_add n={n}", torch.equal(out[:n], x + y) and torch.isnan(out[n:]).all().item())

            keep = (torch.rand(n, device="cuda", generator=gen) > 0.5).to(torch.int32)
            p = np.float32(0.5)
            out.fill_(float("nan"))
            launch(drop, cdiv(n, 1024), ptr(x), ptr(keep), ptr(out), np.int32(n), p)
            ref = torch.empty(n, device="cuda")
            t_dropout[(cdiv(n, 1024),)](x, keep, ref, n, 0.5, BLOCK=1024)
            torch.cuda.synchronize()
            host = torch.where(keep != 0, x / (1 - 0.5), torch.zeros_like(x))
            check(f"{v} dropout n={n}", torch.equal(out[:n], ref) and torch.allclose(out[:n], host) and torch.isnan(out[n:]).all().item())

            for seed in [123, 512, -1]:
                out.fill_(float("nan"))
                launch(seeded, cdiv(n, 1024), ptr(x), ptr(out), np.int32(n), np.float32(0.3), np.int32(seed))
                t_seeded[(cdiv(n, 1024),)](x, ref, n, 0.3, seed, BLOCK=1024)
                torch.cuda.synchronize()
                check(f"{v} seeded_dropout n={n} seed={seed} (bit-exact vs Triton)",
                      torch.equal(out[:n].view(torch.int32), ref.view(torch.int32)) and torch.isnan(out[n:]).all().item())

    # Random numbers: known answers and Triton's stream.
    kr = load("rand_test.aligned")
    known = {  # seed -> [(offset, randint word, rand bits)]
        0: [(0, 0x6627e8d5, 0x3f4c4fd1), (1, 0xf8e4cca4, 0x3d63666a), (1024, 0xed8385b7, 0x3e13e3d1)],
        42: [(0, 0x9ceaf053, 0x3f462a1e), (1, 0xfcdb2127, 0x3cc937b5), (1024, 0x090f01d4, 0x3d90f01c)],
        123: [(0, 0x11237cdc, 0x3e091be6), (1, 0xa3c0144e, 0x3f387fd6), (1024, 0x2f9196b0, 0x3ebe465a)],
        -1: [(0, 0x72a47709, 0x3f6548ed), (1, 0x19fed511, 0x3e4ff6a8), (1024, 0x0c2d0cf3, 0x3dc2d0ce)],
        512: [(0, 0x38c86f57, 0x3ee321bc), (1, 0x13f010b0, 0x3e1f8085), (1024, 0xa9631b93, 0x3f2d39c8)],
    }
    offs = torch.randint(0, 2**31 - 1, (1024,), dtype=torch.int32, device="cuda", generator=gen)
    offs[:3] = torch.tensor([0, 1, 1024], dtype=torch.int32)
    oi = torch.empty(1024, dtype=torch.int32, device="cuda")
    of = torch.empty(1024, dtype=torch.float32, device="cuda")
    ti, tf = torch.empty_like(oi), torch.empty_like(of)
    for seed, rows in known.items():
        launch(kr["rand_i32"], 1, np.int32(seed), ptr(offs), ptr(oi), ptr(of))
        t_rand[(1,)](seed, offs, ti, tf, BLOCK=1024)
        torch.cuda.synchronize()
        words = oi.cpu().numpy().view(np.uint32)
        bits = of.cpu().numpy().view(np.uint32)
        ok = all(words[i] == w and bits[i] == b for i, (_, w, b) in enumerate(rows))
        check(f"rand known answers seed={seed}", ok, f"got {words[0]:08x}->{bits[0]:08x}")
        check(f"randint/rand == Triton seed={seed} (1024 offsets)", torch.equal(oi, ti) and torch.equal(of.view(torch.int32), tf.view(torch.int32)))
    # int64 seed 0xffffffff (key k0 = 0xffffffff, k1 = 0) with int64 offsets.
    offs64 = torch.tensor([0, 1, 1024] + [5] * 1021, dtype=torch.int64, device="cuda")
    launch(kr["rand_i64"], 1, np.int64(0xFFFFFFFF), ptr(offs64), ptr(oi), ptr(of))
    torch.cuda.synchronize()
    words = oi.cpu().numpy().view(np.uint32)
    bits = of.cpu().numpy().view(np.uint32)
    rows = [(0xf60ba7e1, 0x3d9f4581), (0x87c8813c, 0x3f706efd), (0x2bddf193, 0x3eaf77c5)]
    check("rand known answers seed=0xffffffff (i64)", all(words[i] == w and bits[i] == b for i, (w, b) in enumerate(rows)),
          f"got {words[0]:08x}->{bits[0]:08x}")

    # Benchmarks.
    from triton.testing import do_bench
    # Specialized like Triton's launches of the same sizes: pointers 16-byte
    # aligned, n divisible by 16 (every size below is).
    add = load("vector_add.spec16")["vector_add"]
    drop = load("dropout.spec16")["dropout"]
    seeded = load("seeded_dropout.spec16")["seeded_dropout"]
    seeded_any = load("seeded_dropout.aligned")["seeded_dropout"]  # any n
    rows = []
    results = []
    for log2 in [20, 24, 26, 28]:
        n = 1 << log2
        x = torch.randn(n, device="cuda")
        y = torch.randn(n, device="cuda")
        out = torch.empty(n, device="cuda")
        keep = (torch.rand(n, device="cuda") > 0.5).to(torch.int32)
        g = cdiv(n, 1024)
        t_copy = do_bench(lambda: out.copy_(x), warmup=50, rep=300, return_mode="median") * 1e3
        copy_bw = 8 * n / t_copy / 1e3
        cases = [
            ("vector_add", 12, lambda: launch(add, g, ptr(x), ptr(y), ptr(out), np.int32(n)),
             lambda: t_add[(g,)](x, y, out, n, BLOCK=1024)),
            ("dropout", 12, lambda: launch(drop, g, ptr(x), ptr(keep), ptr(out), np.int32(n), np.float32(0.5)),
             lambda: t_dropout[(g,)](x, keep, out, n, 0.5, BLOCK=1024)),
            ("seeded_dropout", 8, lambda: launch(seeded, g, ptr(x), ptr(out), np.int32(n), np.float32(0.5), np.int32(123)),
             lambda: t_seeded[(g,)](x, out, n, 0.5, 123, BLOCK=1024)),
            ("seeded (any n)", 8, lambda: launch(seeded_any, g, ptr(x), ptr(out), np.int32(n), np.float32(0.5), np.int32(123)),
             lambda: t_seeded[(g,)](x, out, n, 0.5, 123, BLOCK=1024)),
        ]
        for name, bytes_per, kfn, tfn in cases:
            tk = do_bench(kfn, warmup=50, rep=300, return_mode="median") * 1e3
            tt = do_bench(tfn, warmup=50, rep=300, return_mode="median") * 1e3
            bk, bt = bytes_per * n / tk / 1e3, bytes_per * n / tt / 1e3
            rows.append((name, log2, tk, bk, bk / copy_bw, tt, bt, tt / tk, t_copy, copy_bw))
            results.append(dict(kernel=name, log2n=log2, kite_us=tk, kite_GBps=bk, copy_GBps=copy_bw,
                                triton_us=tt, triton_GBps=bt))
    out_dir = os.environ.get("OUT", HERE)
    json.dump(results, open(os.path.join(out_dir, "bench_1d.json"), "w"), indent=1)
    print()
    print(f"GPU: {torch.cuda.get_device_name()}   Triton {triton.__version__}")
    print(f"{'kernel':16} {'n':>5} {'kite us':>9} {'kite GB/s':>10} {'%copy':>6} {'triton us':>10} {'triton GB/s':>11} {'kite speedup':>12} {'copy GB/s':>9}")
    for name, log2, tk, bk, frac, tt, bt, sp, tc, cbw in rows:
        print(f"{name:16} 2^{log2:<3} {tk:9.1f} {bk:10.0f} {100*frac:5.1f}% {tt:10.1f} {bt:11.0f} {sp:11.2f}x {cbw:9.0f}")
    print(f"\n{len(failures)} check(s) failed" if failures else "\nall checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
