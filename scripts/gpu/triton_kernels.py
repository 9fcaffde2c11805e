"""Triton's tutorial kernels (01 vector add, 04 dropout and seeded dropout):
the references check_1d.py compares Kite against and bench_triton.py times."""
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def dropout_kernel(x_ptr, keep_ptr, out_ptr, n, p, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    keep = tl.load(keep_ptr + offs, mask=m)
    tl.store(out_ptr + offs, tl.where(keep != 0, x / (1 - p), 0.0), mask=m)


@triton.jit
def seeded_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=m)
