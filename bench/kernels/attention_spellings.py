"""Tutorial 06's attention forward as users write it: K read through
pointers in either order (a [HEAD_DIM, BLOCK_N] block, or [BLOCK_N,
HEAD_DIM] and tl.trans), a mask on every iteration, tl.exp or tl.exp2."""
import triton
import triton.language as tl


@triton.jit
def attn_fwd_spelled(Q, K, V, Out, sm_scale,
                     stride_qz, stride_qh, stride_qm, stride_qk,
                     stride_kz, stride_kh, stride_kn, stride_kk,
                     stride_vz, stride_vh, stride_vn, stride_vk,
                     stride_oz, stride_oh, stride_om, stride_ok,
                     H, N_CTX,
                     HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, K_TRANSPOSED_PTRS: tl.constexpr,
                     USE_EXP2: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_off = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_off = off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_off = off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_off = off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + q_off + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk,
                mask=offs_m[:, None] < N_CTX, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, N_CTX, BLOCK_N):
        cols = start_n + offs_n
        if K_TRANSPOSED_PTRS:
            k = tl.load(K + k_off + cols[None, :] * stride_kn + offs_d[:, None] * stride_kk,
                        mask=cols[None, :] < N_CTX, other=0.0)
            qk = tl.dot(q, k)
        else:
            k = tl.load(K + k_off + cols[:, None] * stride_kn + offs_d[None, :] * stride_kk,
                        mask=cols[:, None] < N_CTX, other=0.0)
            qk = tl.dot(q, tl.trans(k))
        qk = tl.where(cols[None, :] < N_CTX, qk * sm_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        if USE_EXP2:
            p = tl.exp2(qk - m_ij[:, None])
            alpha = tl.exp2(m_i - m_ij)
        else:
            p = tl.exp(qk - m_ij[:, None])
            alpha = tl.exp(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + v_off + cols[:, None] * stride_vn + offs_d[None, :] * stride_vk,
                    mask=cols[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + o_off + offs_m[:, None] * stride_om + offs_d[None, :] * stride_ok,
             acc.to(tl.float16), mask=offs_m[:, None] < N_CTX)
