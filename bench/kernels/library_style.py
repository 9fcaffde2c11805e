"""Row kernels written as Triton libraries write them (the style of
Liger-Kernel's ops): unannotated parameters typed at launch, a @triton.jit
helper, constexpr modes, a cross entropy that writes its gradient in place.

The same file runs in Triton (scripts/gpu/bench_triton.py imports it) and in
Kite (bench/BenchLibrary.cpp: kite::compileFile, typed from the launch's
arguments), so bench.sh's "library" rows compare one source.
"""
import triton
import triton.language as tl

try:
    from triton.language.extra.libdevice import rsqrt
except ModuleNotFoundError:
    from triton.language.extra.cuda.libdevice import rsqrt

_MODE_LLAMA: tl.constexpr = tl.constexpr(0)
_MODE_GEMMA: tl.constexpr = tl.constexpr(1)


@triton.jit
def _rms_norm_fwd(Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, RSTD_ptr,
                  n_cols, eps, offset, casting_mode: tl.constexpr,
                  BLOCK_SIZE: tl.constexpr):
    """y = x / rms(x) * (offset + w), rms over the row in f32."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X_ptr + row * X_row_stride + cols, mask=mask, other=0)
    x_dtype = x.dtype
    w = tl.load(W_ptr + cols, mask=mask, other=0)
    x = x.to(tl.float32)
    if casting_mode == _MODE_GEMMA:
        w = w.to(tl.float32)
    mean_square = tl.sum(x * x, axis=0) / n_cols
    rstd = rsqrt(mean_square + eps)
    tl.store(RSTD_ptr + row, rstd)
    x = x * rstd
    if casting_mode == _MODE_LLAMA:
        x = x.to(x_dtype)
    y = x * (offset + w)
    tl.store(Y_ptr + row * Y_row_stride + cols, y.to(x_dtype), mask=mask)


@triton.jit
def silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def _swiglu_fwd(a_ptr, b_ptr, c_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    """c = silu(a) * b, silu in f32."""
    program_id = tl.program_id(0).to(tl.int64)
    a_ptr += program_id * stride
    b_ptr += program_id * stride
    c_ptr += program_id * stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    a_row = tl.load(a_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    b_row = tl.load(b_ptr + col_offsets, mask=mask, other=0)
    c_row = silu(a_row).cast(b_row.dtype) * b_row
    tl.store(c_ptr + col_offsets, c_row, mask=mask)


@triton.jit
def _cross_entropy_fwd(X_ptr, X_stride, Y_ptr, loss_ptr, n_cols, n_non_ignore,
                       ignore_index, reduction: tl.constexpr,
                       BLOCK_SIZE: tl.constexpr):
    """loss = logsumexp(x) - x[y] for each row; the row's gradient
    (softmax(x) - onehot(y), / n_non_ignore for 'mean') written over x."""
    program_id = tl.program_id(0).to(tl.int64)
    Y_ptr += program_id
    y = tl.load(Y_ptr)
    X_ptr += program_id * X_stride
    if y == ignore_index:
        for i in range(0, n_cols, BLOCK_SIZE):
            offs = i + tl.arange(0, BLOCK_SIZE)
            tl.store(X_ptr + offs, 0.0, mask=offs < n_cols)
        return
    loss_ptr += program_id
    # Online softmax: the running max and sum of exponentials.
    m = float("-inf")
    d = 0.0
    ori_x_y = tl.load(X_ptr + y).cast(tl.float32)
    for i in range(0, n_cols, BLOCK_SIZE):
        offs = i + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X_ptr + offs, mask=offs < n_cols,
                    other=float("-inf")).cast(tl.float32)
        block_max = tl.max(x)
        m_new = tl.maximum(m, block_max)
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new))
        m = m_new
    lse = m + tl.log(d)
    for i in range(0, n_cols, BLOCK_SIZE):
        offs = i + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X_ptr + offs, mask=offs < n_cols,
                    other=float("-inf")).cast(tl.float32)
        g = tl.exp(x - lse)
        g = tl.where(offs == y, g - 1.0, g)
        if reduction == "mean":
            g = g / n_non_ignore
        tl.store(X_ptr + offs, g, mask=offs < n_cols)
    loss = lse - ori_x_y
    if reduction == "mean":
        loss = loss / n_non_ignore
    tl.store(loss_ptr, loss)
