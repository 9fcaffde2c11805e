"""Dumps the PTX and SASS of Triton's tutorial-03 matmul (scripts/gpu/bench_triton.py)
for given configs, to compare with Kite's: python3 dump_triton_matmul.py OUTDIR
DTYPE:BMxBNxBKwWsS ... (run on the GPU machine)."""
import os, re, subprocess, sys
import torch, triton
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_triton

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
kernel = bench_triton.matmul_kernel.fn  # the jit function under @autotune
for v in sys.argv[2:]:
    dtype, cfg = v.split(":")
    bm, bn, bk, w, s = map(int, re.match(r"(\d+)x(\d+)x(\d+)w(\d+)s(\d+)", cfg).groups())
    dt = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    M = N = K = 4096
    a = torch.randn(M, K, device="cuda", dtype=dt)
    b = torch.randn(K, N, device="cuda", dtype=dt)
    c = torch.empty(M, N, device="cuda")
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    h = kernel[grid](a, b, c, M, N, K, K, 1, N, 1, N, 1, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                     GROUP_M=8, IEEE=False, num_warps=w, num_stages=s)
    name = f"triton-{dtype}_{cfg}"
    open(f"{out}/{name}.ptx", "w").write(h.asm["ptx"])
    open(f"{out}/{name}.cubin", "wb").write(h.asm["cubin"])
    sass = subprocess.run(["cuobjdump", "-sass", f"{out}/{name}.cubin"], capture_output=True, text=True).stdout
    open(f"{out}/{name}.sass", "w").write(sass)
    print(name, h.n_regs, "registers", h.metadata.shared, "bytes shared")
