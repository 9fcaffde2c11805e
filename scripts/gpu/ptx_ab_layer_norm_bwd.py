"""A/B of PTX variants of layer norm backward's dx kernel
(dsl-examples/layer_norm_bwd.kite, _layer_norm_bwd_dx_fused, 8 warps, 96 lock
groups) beside Triton's tutorial-05 kernel, timed alike (the locks' reset
and the kernel, do_bench median), each checked against a float32 reference.
Variants are DIR/<tag><cols>.ptx for cols in 8192 and 16384, made here with
  kitec dsl-examples/layer_norm_bwd.kite --kernel=_layer_norm_bwd_dx_fused \\
    --chip=sm_90a -D BLOCK_SIZE_N=<cols> -D GROUP_SIZE_M=96 --num-warps=8 \\
    --specialize=DX=div16,DY=div16,X=div16,W=div16,stride=div16,N=div16 -o DIR/<tag><cols>.ptx
(e.g. one with a `.maxnreg 128` line after `.maxntid` to see what occupancy
buys). On the GPU machine: python3 .gpu/ptx_ab_layer_norm_bwd.py DIR"""
import glob, os, sys
import cupy as cp
import torch
from triton.testing import do_bench
from triton_kernels import layer_norm_bwd_dx_fused_kernel

d = sys.argv[1]
rows, group = 4096, 96
for cols in (8192, 16384):
    torch.manual_seed(0)
    x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
    dy = 0.1 * torch.randn_like(x)
    w = torch.randn(cols, device="cuda", dtype=torch.float16)
    xf = x.float()
    mean = xf.mean(1)
    rstd = 1 / torch.sqrt(xf.var(1, unbiased=False) + 1e-5)
    xhat = (xf - mean[:, None]) * rstd[:, None]
    wdy = w.float() * dy.float()
    ref = (wdy - (xhat * (xhat * wdy).mean(1, keepdim=True) + wdy.mean(1, keepdim=True))) * rstd[:, None]
    pdw = torch.empty((group, cols), device="cuda", dtype=torch.float16)
    pdb = torch.empty_like(pdw)
    locks = torch.zeros(2 * group, device="cuda", dtype=torch.int32)
    dx = torch.empty_like(x)

    def triton_dx():
        locks.zero_()
        layer_norm_bwd_dx_fused_kernel[(rows,)](dx, dy, pdw, pdb, x, w, mean, rstd, locks,
                                                x.stride(0), cols, GROUP_SIZE_M=group,
                                                BLOCK_SIZE_N=cols, num_warps=8)
    triton_dx()
    torch.cuda.synchronize()
    err = (dx.float() - ref).abs().max().item()
    ms = do_bench(triton_dx, warmup=25, rep=300, return_mode="median")
    print(f"{cols:6d} {'triton':16s} {6 * rows * cols / ms / 1e6:7.0f} GB/s  err {err:.1e}")
    for ptx in sorted(glob.glob(f"{d}/*{cols}.ptx")):
        k = cp.RawModule(path=ptx).get_function("_layer_norm_bwd_dx_fused")
        args = tuple(cp.uint64(t.data_ptr()) for t in (dx, dy, pdw, pdb, x, w, mean, rstd, locks)) + \
            (cp.int32(cols), cp.int32(cols))

        def kite_dx():
            locks.zero_()
            k((rows,), (256,), args)
        dx.zero_()
        kite_dx()
        torch.cuda.synchronize()
        err = (dx.float() - ref).abs().max().item()
        ms = do_bench(kite_dx, warmup=25, rep=300, return_mode="median")
        print(f"{cols:6d} {os.path.basename(ptx):16s} {6 * rows * cols / ms / 1e6:7.0f} GB/s  "
              f"err {err:.1e}  {k.num_regs} registers")
