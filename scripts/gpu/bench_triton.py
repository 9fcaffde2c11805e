"""The same kernels in Triton (its tutorial code) and cuBLAS, and the device
copy, measured like kite-bench: inputs never zeros, the L2 flushed before
every run (triton.testing.do_bench), CUDA events, the median. One JSON line
per measurement. Usage: python3 bench_triton.py [--quick]"""
import json
import os
import math
import sys

import torch
import triton
import time

import triton.language as tl
from triton.language.extra import libdevice
from triton.testing import do_bench

from triton_kernels import (add_kernel, dropout_kernel, seeded_kernel, softmax_kernel,
                            layer_norm_fwd_kernel, layer_norm_fwd_onepass_kernel,
                            layer_norm_bwd_dx_fused_kernel,
                            layer_norm_bwd_dwdb_kernel)

quick = "--quick" in sys.argv
# KITE_BENCH_ONLY=1d,rows,math,perceptron,attention,matmul,fp8 (any of them):
# only those parts ("matmul" includes the fp8 rows).
only = __import__("os").environ.get("KITE_BENCH_ONLY",
                                    "1d,rows,math,perceptron,attention,attnbwd,matmul,library,"
                                    "spellings")
torch.backends.cuda.matmul.allow_tf32 = False


# Triton tutorial 03 (grouped ordering, masked K tail), autotuned over four
# of the tutorial's CUDA configurations (compile time); f32 inputs use IEEE
# products (no TF32).
def configs():
    out = []
    for bm, bn, bk, st, w in [(128, 256, 64, 3, 8), (128, 128, 32, 4, 4),
                              (64, 128, 32, 4, 4), (128, 128, 32, 3, 8)]:
        out.append(triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8},
                                 num_stages=st, num_warps=w))
    return out


@triton.jit
def grouped_pid(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    """The tutorial's grouped program order: (pid_m, pid_n) of this program."""
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_in_group = GROUP_M * num_pid_n
    group = pid // num_in_group
    first_m = group * GROUP_M
    gsize = min(num_pid_m - first_m, GROUP_M)
    return first_m + ((pid % num_in_group) % gsize), (pid % num_in_group) // gsize


@triton.autotune(configs=configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr, IEEE: tl.constexpr):
    pid_m, pid_n = grouped_pid(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * sam + offs_k[None, :] * sak
    b_ptrs = b_ptr + offs_k[:, None] * sbk + offs_bn[None, :] * sbn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        if IEEE:
            acc = tl.dot(a, b, acc, input_precision="ieee")
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * sak
        b_ptrs += BLOCK_K * sbk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + scm * offs_cm[:, None] + scn * offs_cn[None, :], acc,
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


# The same with A and B read through in-kernel tensor descriptors (TMA on
# Hopper; Triton's tutorial 09 without persistence): the anchor of Kite's
# "TMA" rows.
# Triton tutorial 09 (persistent matmul, f16 in and out), its two forms with
# the tutorial's fp16 configuration (128x256x64, 8 warps, 3 stages): the
# anchors of Kite's "persistent" rows (dsl-examples/persistent_matmul.kite).
@triton.jit
def _persistent_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_M: tl.constexpr):
    group_id = tile_id // num_pid_in_group
    first_m = group_id * GROUP_M
    gsize = min(num_pid_m - first_m, GROUP_M)
    return first_m + (tile_id % gsize), (tile_id % num_pid_in_group) // gsize


@triton.jit
def matmul_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                             BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                             NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_M * num_pid_n
    offs_k_for_mask = tl.arange(0, BLOCK_K)
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _persistent_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_M)
        offs_am = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_bn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn < N, offs_bn, 0)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_M), BLOCK_M)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_N), BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_K + tl.arange(0, BLOCK_K)
            a = tl.load(a_ptr + offs_am[:, None] * sam + offs_k[None, :] * sak,
                        mask=offs_k_for_mask[None, :] < K - ki * BLOCK_K, other=0.0)
            b = tl.load(b_ptr + offs_k[:, None] * sbk + offs_bn[None, :] * sbn,
                        mask=offs_k_for_mask[:, None] < K - ki * BLOCK_K, other=0.0)
            acc = tl.dot(a, b, acc)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        tl.store(c_ptr + scm * offs_cm[:, None] + scn * offs_cn[None, :], acc.to(c_ptr.dtype.element_ty),
                 mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def matmul_descriptor_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                        BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                                        NUM_SMS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    start_pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _persistent_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_M)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([pid_m * BLOCK_M, ki * BLOCK_K])
            b = b_desc.load([ki * BLOCK_K, pid_n * BLOCK_N])
            acc = tl.dot(a, b, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_ptr.dtype.element_ty))


# fp8 (e4m3) with per-tensor scales and a bf16 C, B given N x K: the two
# forms of Kite's dsl-examples/fp8_matmul.kite, written the same way, with
# tutorial 09's fp8 configuration (128x256x128, 8 warps).
@triton.jit
def matmul_fp8_kernel(a_ptr, b_ptr, c_ptr, sa_ptr, sb_ptr, M, N, K, sam, sbn, scm,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      GROUP_M: tl.constexpr):
    pid_m, pid_n = grouped_pid(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * sam + offs_k[None, :]
    b_ptrs = b_ptr + offs_bn[:, None] * sbn + offs_k[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b.T, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    c = (acc * (tl.load(sa_ptr) * tl.load(sb_ptr))).to(tl.bfloat16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + scm * offs_cm[:, None] + offs_cn[None, :], c,
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def matmul_fp8_descriptor_persistent_kernel(a_ptr, b_ptr, c_ptr, sa_ptr, sb_ptr, M, N, K,
                                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                            BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                                            NUM_SMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1],
                                       block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    scale = tl.load(sa_ptr) * tl.load(sb_ptr)
    start_pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True,
                            warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _persistent_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_M)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([pid_m * BLOCK_M, ki * BLOCK_K])
            b = b_desc.load([pid_n * BLOCK_N, ki * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], (acc * scale).to(tl.bfloat16))


# Tutorial 06's attention forward, the same algorithm as Kite's
# dsl-examples/attention.kite (without its N_CTX masks: the benchmark's
# lengths are multiples of the blocks), autotuned over a few of the
# tutorial's configurations.
@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, start_m, qk_scale, stride_kn, stride_vn,
                    offs_m, offs_n, N_CTX, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    STAGE: tl.constexpr):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
    else:
        lo, hi = 0, N_CTX
    k_ptrs += lo * stride_kn
    v_ptrs += lo * stride_vn
    for start_n in range(lo, hi, BLOCK_N):
        k = tl.load(k_ptrs)
        qk = tl.dot(q, k.T)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
        k_ptrs += BLOCK_N * stride_kn
        v_ptrs += BLOCK_N * stride_vn
    return acc, l_i, m_i


@triton.autotune(configs=[triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_warps=w, num_stages=s)
                          for bm, bn, w, s in ((64, 64, 4, 3), (128, 64, 8, 3),
                                               (128, 128, 8, 3), (128, 64, 4, 4))],
                 key=["N_CTX", "HEAD_DIM", "STAGE"])
@triton.jit
def attn_fwd_kernel(Q, K, V, Out, M, sm_scale, sqz, sqh, sqm, skz, skh, skn, svz, svh, svn,
                    soz, soh, som, H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = Q + off_z * sqz + off_h * sqh + offs_m[:, None] * sqm + offs_d[None, :]
    k_ptrs = K + off_z * skz + off_h * skh + offs_n[:, None] * skn + offs_d[None, :]
    v_ptrs = V + off_z * svz + off_h * svh + offs_n[:, None] * svn + offs_d[None, :]
    o_ptrs = Out + off_z * soz + off_h * soh + offs_m[:, None] * som + offs_d[None, :]
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(q_ptrs)
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, start_m, qk_scale,
                                        skn, svn, offs_m, offs_n, N_CTX, BLOCK_M, BLOCK_N,
                                        4 - STAGE)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, start_m, qk_scale,
                                        skn, svn, offs_m, offs_n, N_CTX, BLOCK_M, BLOCK_N, 2)
    # M for the backward (as the tutorial's forward; Kite's stores it too).
    tl.store(M + off_hz * N_CTX + offs_m, m_i + tl.math.log2(l_i))
    acc = acc / l_i[:, None]
    tl.store(o_ptrs, acc.to(tl.float16))


# Tutorial 06's backward: Delta = rowsum(O * dO), then one kernel for dK/dV
# (BLOCK_N1 rows of K and V a program) and dQ (BLOCK_M2 rows of Q), with K
# pre-scaled by sm_scale / ln 2 by the caller, its blocks and warps (32,
# 128, 128, 32; 4 warps, 5 stages). Kite's attention_bwd.kite is the same
# algorithm.
@triton.jit
def attn_bwd_preprocess(O, DO, Delta, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    off_n = tl.arange(0, HEAD_DIM)
    o = tl.load(O + off_hz * HEAD_DIM * N_CTX + off_m[:, None] * HEAD_DIM + off_n[None, :])
    do = tl.load(DO + off_hz * HEAD_DIM * N_CTX + off_m[:, None] * HEAD_DIM + off_n[None, :]).to(tl.float32)
    tl.store(Delta + off_hz * N_CTX + off_m, tl.sum(o * do, axis=1))


@triton.jit
def _bwd_dkdv(dk, dv, Q, k, v, DO, M, D, stride_tok, N_CTX, BLOCK_M1: tl.constexpr,
              BLOCK_N1: tl.constexpr, HEAD_DIM: tl.constexpr, start_n, start_m, num_steps,
              MASK: tl.constexpr):
    offs_m = start_m + tl.arange(0, BLOCK_M1)
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    offs_k = tl.arange(0, HEAD_DIM)
    qT_ptrs = Q + offs_m[None, :] * stride_tok + offs_k[:, None]
    do_ptrs = DO + offs_m[:, None] * stride_tok + offs_k[None, :]
    curr_m = start_m
    for blk_idx in range(num_steps):
        qT = tl.load(qT_ptrs)
        offs_m = curr_m + tl.arange(0, BLOCK_M1)
        m = tl.load(M + offs_m)
        qkT = tl.dot(k, qT)
        pT = tl.math.exp2(qkT - m[None, :])
        if MASK:
            pT = tl.where(offs_m[None, :] >= offs_n[:, None], pT, 0.0)
        do = tl.load(do_ptrs)
        dv += tl.dot(pT.to(tl.float16), do)
        Di = tl.load(D + offs_m)
        dpT = tl.dot(v, tl.trans(do)).to(tl.float32)
        dsT = (pT * (dpT - Di[None, :])).to(tl.float16)
        dk += tl.dot(dsT, tl.trans(qT))
        curr_m += BLOCK_M1
        qT_ptrs += BLOCK_M1 * stride_tok
        do_ptrs += BLOCK_M1 * stride_tok
    return dk, dv


@triton.jit
def _bwd_dq(dq, q, K, V, do, m, D, stride_tok, N_CTX, BLOCK_M2: tl.constexpr,
            BLOCK_N2: tl.constexpr, HEAD_DIM: tl.constexpr, start_m, start_n, num_steps,
            MASK: tl.constexpr):
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    offs_n = start_n + tl.arange(0, BLOCK_N2)
    offs_k = tl.arange(0, HEAD_DIM)
    kT_ptrs = K + offs_n[None, :] * stride_tok + offs_k[:, None]
    vT_ptrs = V + offs_n[None, :] * stride_tok + offs_k[:, None]
    Di = tl.load(D + offs_m)
    curr_n = start_n
    for blk_idx in range(num_steps):
        kT = tl.load(kT_ptrs)
        vT = tl.load(vT_ptrs)
        qk = tl.dot(q, kT)
        p = tl.math.exp2(qk - m)
        if MASK:
            offs_n = curr_n + tl.arange(0, BLOCK_N2)
            p = tl.where(offs_m[:, None] >= offs_n[None, :], p, 0.0)
        dp = tl.dot(do, vT).to(tl.float32)
        ds = (p * (dp - Di[:, None])).to(tl.float16)
        dq += tl.dot(ds, tl.trans(kT))
        curr_n += BLOCK_N2
        kT_ptrs += BLOCK_N2 * stride_tok
        vT_ptrs += BLOCK_N2 * stride_tok
    return dq


@triton.jit
def attn_bwd_kernel(Q, K, V, sm_scale, DO, DQ, DK, DV, M, D, stride_z, stride_h, stride_tok,
                    H, N_CTX, BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr,
                    BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr,
                    BLK_SLICE_FACTOR: tl.constexpr, HEAD_DIM: tl.constexpr,
                    CAUSAL: tl.constexpr):
    LN2: tl.constexpr = 0.6931471824645996
    bhid = tl.program_id(1)
    off_chz = (bhid * N_CTX).to(tl.int64)
    adj = (stride_h * (bhid % H) + stride_z * (bhid // H)).to(tl.int64)
    pid = tl.program_id(0)
    Q += adj
    K += adj
    V += adj
    DO += adj
    DQ += adj
    DK += adj
    DV += adj
    M += off_chz
    D += off_chz
    offs_k = tl.arange(0, HEAD_DIM)
    start_n = pid * BLOCK_N1
    start_m = 0
    MASK_BLOCK_M1: tl.constexpr = BLOCK_M1 // BLK_SLICE_FACTOR
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    k = tl.load(K + offs_n[:, None] * stride_tok + offs_k[None, :])
    v = tl.load(V + offs_n[:, None] * stride_tok + offs_k[None, :])
    if CAUSAL:
        start_m = start_n
        num_steps = BLOCK_N1 // MASK_BLOCK_M1
        dk, dv = _bwd_dkdv(dk, dv, Q, k, v, DO, M, D, stride_tok, N_CTX, MASK_BLOCK_M1,
                           BLOCK_N1, HEAD_DIM, start_n, start_m, num_steps, MASK=True)
        start_m += num_steps * MASK_BLOCK_M1
    num_steps = (N_CTX - start_m) // BLOCK_M1
    dk, dv = _bwd_dkdv(dk, dv, Q, k, v, DO, M, D, stride_tok, N_CTX, BLOCK_M1, BLOCK_N1,
                       HEAD_DIM, start_n, start_m, num_steps, MASK=False)
    tl.store(DV + offs_n[:, None] * stride_tok + offs_k[None, :], dv)
    dk *= sm_scale
    tl.store(DK + offs_n[:, None] * stride_tok + offs_k[None, :], dk)
    start_m = pid * BLOCK_M2
    end_n = N_CTX
    MASK_BLOCK_N2: tl.constexpr = BLOCK_N2 // BLK_SLICE_FACTOR
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    q = tl.load(Q + offs_m[:, None] * stride_tok + offs_k[None, :])
    dq = tl.zeros([BLOCK_M2, HEAD_DIM], dtype=tl.float32)
    do = tl.load(DO + offs_m[:, None] * stride_tok + offs_k[None, :])
    m = tl.load(M + offs_m)[:, None]
    if CAUSAL:
        end_n = start_m + BLOCK_M2
        num_steps = BLOCK_M2 // MASK_BLOCK_N2
        dq = _bwd_dq(dq, q, K, V, do, m, D, stride_tok, N_CTX, BLOCK_M2, MASK_BLOCK_N2,
                     HEAD_DIM, start_m, end_n - num_steps * MASK_BLOCK_N2, num_steps, MASK=True)
        end_n -= num_steps * MASK_BLOCK_N2
    num_steps = end_n // BLOCK_N2
    dq = _bwd_dq(dq, q, K, V, do, m, D, stride_tok, N_CTX, BLOCK_M2, BLOCK_N2, HEAD_DIM,
                 start_m, end_n - num_steps * BLOCK_N2, num_steps, MASK=False)
    dq *= LN2
    tl.store(DQ + offs_m[:, None] * stride_tok + offs_k[None, :], dq)


def attention():
    """Triton's attention forward (as Kite's) and torch's scaled_dot_product_attention."""
    Z, H = 4, 32
    # As kite-bench: KITE_BENCH_HEAD_DIMS, KITE_BENCH_LENGTHS, KITE_BENCH_CAUSAL
    # (comma-separated) pick rows.
    def env_ints(name, default):
        v = os.environ.get(name)
        return tuple(int(x) for x in v.split(",")) if v else default
    for D in env_ints("KITE_BENCH_HEAD_DIMS", (64, 128)):
        for causal in (bool(c) for c in env_ints("KITE_BENCH_CAUSAL", (0, 1))):
            for N in env_ints("KITE_BENCH_LENGTHS", (1024,) if quick else (1024, 4096, 16384)):
                q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16)
                           for _ in range(3))
                o = torch.empty_like(q)
                m = torch.empty((Z, H, N), device="cuda", dtype=torch.float32)
                scale = 1 / math.sqrt(D)
                grid = lambda meta: (triton.cdiv(N, meta["BLOCK_M"]), Z * H)
                forms = (
                    ("triton", lambda: attn_fwd_kernel[grid](
                        q, k, v, o, m, scale, *q.stride()[:3], *k.stride()[:3], *v.stride()[:3],
                        *o.stride()[:3], H, N, HEAD_DIM=D, STAGE=3 if causal else 1)),
                    ("torch", lambda: torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, is_causal=causal, scale=scale)),
                    # torch's flash attention with dropout (p = 0.1), beside
                    # Kite's DROPOUT rows.
                    ("torch_dropout", lambda: torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, is_causal=causal, scale=scale, dropout_p=0.1)))
                flops = 4.0 * Z * H * N * N * D * (0.5 if causal else 1)
                for impl, fn in forms:
                    try:
                        fn()
                        torch.cuda.synchronize(); time.sleep(0.3)
                        ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
                        emit(impl=impl, kernel="attention", Z=Z, H=H, N_CTX=N, HEAD_DIM=D,
                             causal=causal, us=ms * 1e3, tflops=flops / ms / 1e9)
                    except Exception as e:
                        print(f"{impl} attention skipped: {e}", file=sys.stderr)


def attention_bwd():
    """Triton's tutorial-06 backward (preprocess + dQ/dK/dV kernel) and
    torch's scaled_dot_product_attention backward."""
    Z, H = 4, 32
    for D in (64, 128):
        for causal in (False, True):
            for N in ((1024,) if quick else (1024, 4096, 16384)):
                q, k, v, do = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16)
                               for _ in range(4))
                o = torch.empty_like(q)
                m = torch.empty((Z, H, N), device="cuda", dtype=torch.float32)
                scale = 1 / math.sqrt(D)
                attn_fwd_kernel[lambda meta: (triton.cdiv(N, meta["BLOCK_M"]), Z * H)](
                    q, k, v, o, m, scale, *q.stride()[:3], *k.stride()[:3], *v.stride()[:3],
                    *o.stride()[:3], H, N, HEAD_DIM=D, STAGE=3 if causal else 1)
                arg_k = k * (scale * 1.4426950408889634)  # the tutorial's caller
                delta = torch.empty_like(m)
                dq, dk, dv = (torch.empty_like(q) for _ in range(3))

                def triton_bwd():
                    attn_bwd_preprocess[(N // 128, Z * H)](o, do, delta, N, BLOCK_M=128,
                                                           HEAD_DIM=D)
                    attn_bwd_kernel[(N // 128, Z * H)](
                        q, arg_k, v, scale, do, dq, dk, dv, m, delta, q.stride(0),
                        q.stride(1), q.stride(2), H, N, BLOCK_M1=32, BLOCK_N1=128,
                        BLOCK_M2=128, BLOCK_N2=32, BLK_SLICE_FACTOR=2, HEAD_DIM=D,
                        CAUSAL=causal, num_warps=4, num_stages=5)

                qt, kt, vt = (t.detach().clone().requires_grad_() for t in (q, k, v))
                ot = torch.nn.functional.scaled_dot_product_attention(
                    qt, kt, vt, is_causal=causal, scale=scale)
                forms = (("triton", triton_bwd),
                         ("torch", lambda: torch.autograd.grad(ot, (qt, kt, vt), do,
                                                               retain_graph=True)))
                flops = 10.0 * Z * H * N * N * D * (0.5 if causal else 1)
                for impl, fn in forms:
                    try:
                        fn()
                        torch.cuda.synchronize(); time.sleep(0.3)
                        ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
                        emit(impl=impl, kernel="attention_bwd", Z=Z, H=H, N_CTX=N, HEAD_DIM=D,
                             causal=causal, us=ms * 1e3, tflops=flops / ms / 1e9)
                    except Exception as e:
                        print(f"{impl} attention_bwd skipped: {e}", file=sys.stderr)
                del ot, qt, kt, vt


def fp8_matmuls(shapes):
    """Triton's fp8 kernels (as Kite's) and cuBLAS's torch._scaled_mm, C in bf16."""
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    triton.set_allocator(lambda size, align, stream:
                         torch.empty(size, device="cuda", dtype=torch.int8))
    one = torch.ones((), device="cuda", dtype=torch.float32)
    for M, N, K in shapes:
        a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        tiles = triton.cdiv(M, 128) * triton.cdiv(N, 256)
        meta = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=128, GROUP_M=8, num_warps=8)
        forms = (
            ("triton", lambda: matmul_fp8_kernel[(tiles,)](
                a, b, c, one, one, M, N, K, K, K, N, num_stages=3, **meta)),
            ("triton_persistent_tma", lambda: matmul_fp8_descriptor_persistent_kernel[
                (min(sms, tiles),)](a, b, c, one, one, M, N, K, NUM_SMS=sms,
                                   WARP_SPECIALIZE=False, num_stages=3, **meta)),
            ("triton_persistent_tma_ws", lambda: matmul_fp8_descriptor_persistent_kernel[
                (min(sms, tiles),)](a, b, c, one, one, M, N, K, NUM_SMS=sms,
                                   WARP_SPECIALIZE=True, num_stages=3, **meta)),
            ("cublas", lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                                                out_dtype=torch.bfloat16)))
        for impl, fn in forms:
            try:
                fn()
                torch.cuda.synchronize(); time.sleep(0.3)
                ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
                emit(impl=impl, kernel="matmul", dtype="fp8", M=M, N=N, K=K,
                     us=ms * 1e3, tflops=2 * M * N * K / ms / 1e9)
            except Exception as e:
                print(f"{impl} fp8 matmul skipped: {e}", file=sys.stderr)


@triton.autotune(configs=configs(), key=["M", "N", "K"])
@triton.jit
def matmul_tma_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sbk, scm, scn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      GROUP_M: tl.constexpr):
    pid_m, pid_n = grouped_pid(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[sam, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[sbk, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + scm * offs_cm[:, None] + scn * offs_cn[None, :], acc,
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


# The same with A, B and C passed as host TensorDescriptors (Triton's
# TensorDescriptor.from_tensor), one configuration (128x256x64, 8 warps, 2
# stages: 3 do not fit Triton's shared memory beside C's store): the anchor of Kite's "host desc" rows
# (bench/kernels/matmul_*_host_desc.kite).
@triton.jit
def matmul_host_desc_kernel(a_desc, b_desc, c_desc, M, N, K,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                            BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid_m, pid_n = grouped_pid(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc)


# Tutorial 07 (libdevice asin) and an elementwise sigmoid, as
# dsl-examples/libdevice.kite and sigmoid.kite.
@triton.jit
def asin_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    tl.store(y_ptr + offs, libdevice.asin(tl.load(x_ptr + offs, mask=m)), mask=m)


@triton.jit
def sigmoid_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    tl.store(y_ptr + offs, tl.sigmoid(tl.load(x_ptr + offs, mask=m)), mask=m)


# SELU with the branch in a scalar function (tl.map_elementwise, where this
# Triton has it; else tl.where), as bench/kernels/selu.kite.
@triton.jit
def selu_scalar(x):
    if x > 0:
        return 1.0507009873554805 * x
    else:
        return 1.0507009873554805 * 1.6732632423543772 * (tl.exp(x) - 1.0)


@triton.jit
def selu_map_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    tl.store(y_ptr + offs, tl.map_elementwise(selu_scalar, tl.load(x_ptr + offs, mask=m)),
             mask=m)


@triton.jit
def selu_where_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.where(x > 0, 1.0507009873554805 * x,
                 1.0507009873554805 * 1.6732632423543772 * (tl.exp(x) - 1.0))
    tl.store(y_ptr + offs, y, mask=m)


def selu_triton(x, y, n, g):
    """Triton's map_elementwise kernel where this Triton has it."""
    if hasattr(tl, "map_elementwise"):
        try:
            selu_map_kernel[g](x, y, n, BLOCK_SIZE=1024)
            return lambda: selu_map_kernel[g](x, y, n, BLOCK_SIZE=1024)
        except Exception as e:  # an older Triton's frontend
            print(f"# triton map_elementwise failed ({type(e).__name__}); tl.where instead",
                  file=sys.stderr)
    return lambda: selu_where_kernel[g](x, y, n, BLOCK_SIZE=1024)


def elementwise_math():
    sizes = [(24, 0)] if quick else [(20, 0), (24, 0), (26, 0), (24, 1)]
    for lg, extra in sizes:
        n = (1 << lg) + extra
        x = torch.rand(n, device="cuda") * 2 - 1
        y = torch.empty_like(x)
        g = (triton.cdiv(n, 1024),)
        for name, tfn, ref in (("asin", lambda: asin_kernel[g](x, y, n, BLOCK_SIZE=1024),
                                lambda: torch.asin(x)),
                               ("sigmoid", lambda: sigmoid_kernel[g](x, y, n, BLOCK_SIZE=1024),
                                lambda: torch.sigmoid(x)),
                               ("selu (map_elementwise)", selu_triton(x, y, n, g),
                                lambda: torch.nn.functional.selu(x))):
            for impl, fn in (("triton", tfn), ("torch", ref)):
                ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
                emit(impl=impl, kernel=name, log2n=lg, extra=extra, us=ms * 1e3,
                     GBps=8 * n / ms / 1e6)


# A histogram, as dsl-examples/histogram.kite (tl.histogram per block, one
# relaxed atomic_add a bin), beside torch.bincount.
@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, NUM_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    counts = tl.histogram(tl.load(x_ptr + offs, mask=mask, other=0), NUM_BINS, mask=mask)
    bins = tl.arange(0, NUM_BINS)
    tl.atomic_add(hist_ptr + bins, counts, mask=counts > 0, sem="relaxed")


def histograms():
    for lg in ([24] if quick else [20, 24, 26]):
        n = 1 << lg
        x = torch.randint(0, 256, (n,), device="cuda", dtype=torch.int32)
        h = torch.zeros(256, device="cuda", dtype=torch.int32)
        g = (triton.cdiv(n, 8192),)
        tfn = lambda: histogram_kernel[g](x, h, n, NUM_BINS=256, BLOCK=8192, num_warps=4)
        h.zero_()
        tfn()
        assert torch.equal(h, torch.bincount(x, minlength=256).to(torch.int32)), "histogram"
        for impl, fn in (("triton", tfn), ("torch", lambda: torch.bincount(x, minlength=256))):
            ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
            emit(impl=impl, kernel="histogram", log2n=lg, extra=0, us=ms * 1e3,
                 GBps=4 * n / ms / 1e6)


# Rows sorted and their k largest, as bench/kernels/sort.kite (tl.sort,
# tl.topk where this Triton has it), beside torch.sort / torch.topk (values
# and indices: torch has no values-only form).
@triton.jit
def sort_rows_kernel(x_ptr, y_ptr, M, N: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    offs = rows[:, None] * N + tl.arange(0, N)[None, :]
    mask = rows[:, None] < M
    tl.store(y_ptr + offs, tl.sort(tl.load(x_ptr + offs, mask=mask, other=0.0)), mask=mask)


@triton.jit
def topk_rows_kernel(x_ptr, y_ptr, M, N: tl.constexpr, K: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    mask = rows[:, None] < M
    x = tl.load(x_ptr + rows[:, None] * N + tl.arange(0, N)[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows[:, None] * K + tl.arange(0, K)[None, :], tl.topk(x, K), mask=mask)


@triton.jit
def softmax_builtin_kernel(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(y_ptr + offs, tl.softmax(tl.load(x_ptr + offs)))


def fastest(name, candidates):
    """The fastest of `candidates` ((config, launch) pairs) by do_bench's
    median: (ms, config), or None. One that fails to compile or launch is
    reported on stderr and skipped."""
    best = None
    for config, fn in candidates:
        try:
            fn()
        except Exception as e:
            print(f"# {name} {config}: {type(e).__name__}", file=sys.stderr)
            continue
        ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
        if best is None or ms < best[0]:
            best = (ms, config)
    return best


# Tutorial 03's matmul on mxfp8 through tl.dot_scaled, as
# bench/kernels/matmul_mxfp8.kite (Triton's emulation on Hopper: operands
# upcast to bf16), beside torch's bf16 matmul of the dequantized operands.
@triton.jit
def matmul_mxfp8_kernel(a_ptr, a_scale, b_ptr, b_scale, c_ptr, M, N, K,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid_m, pid_n = grouped_pid(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    offs_s = tl.arange(0, BLOCK_K // 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptr + offs_m[:, None] * K + (k * BLOCK_K + offs_k)[None, :])
        b = tl.load(b_ptr + (k * BLOCK_K + offs_k)[:, None] * N + offs_n[None, :])
        sa = tl.load(a_scale + offs_m[:, None] * (K // 32) + (k * (BLOCK_K // 32) + offs_s)[None, :])
        sb = tl.load(b_scale + offs_n[:, None] * (K // 32) + (k * (BLOCK_K // 32) + offs_s)[None, :])
        acc = tl.dot_scaled(a, sa, "e4m3", b, sb, "e4m3", acc)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.bfloat16))


def mxfp8():
    if not hasattr(tl, "dot_scaled"):
        return
    for size in (2048, 4096):
        M = N = K = size
        a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn).view(torch.uint8)
        b = torch.randn(K, N, device="cuda").to(torch.float8_e4m3fn).view(torch.uint8)
        sa = torch.randint(120, 134, (M, K // 32), device="cuda", dtype=torch.uint8)
        sb = torch.randint(120, 134, (N, K // 32), device="cuda", dtype=torch.uint8)
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        g = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
        best = fastest("mxfp8", (
            (f"128x128x{bk} w{warps}",
             lambda bk=bk, warps=warps: matmul_mxfp8_kernel[g](
                 a, sa, b, sb, c, M, N, K, BLOCK_M=128, BLOCK_N=128, BLOCK_K=bk,
                 GROUP_M=8, num_warps=warps, num_stages=3))
            for bk in (32, 64, 128) for warps in (4, 8)))
        ad = (a.view(torch.float8_e4m3fn).float() *
              torch.exp2(sa.float() - 127).repeat_interleave(32, 1)).bfloat16()
        bd = (b.view(torch.float8_e4m3fn).float() *
              torch.exp2(sb.float() - 127).repeat_interleave(32, 1).t()).bfloat16()
        ref = ad.float() @ bd.float()
        err = ((c.float() - ref).abs() / (ref.abs() + ref.abs().mean())).max().item()
        if err > 2e-2:
            print(f"# mxfp8 {size}: Triton's result differs from the dequantized "
                  f"product by {err:.3g} (relative)", file=sys.stderr)
        if best:
            emit(impl="triton", kernel="mxfp8 dot_scaled", M=M, N=N, K=K, config=best[1],
                 us=best[0] * 1e3, tflops=2 * M * N * K / best[0] / 1e9)
        ms = do_bench(lambda: ad @ bd, warmup=25, rep=100, return_mode="median")
        emit(impl="torch", kernel="mxfp8 dot_scaled", M=M, N=N, K=K, us=ms * 1e3,
             tflops=2 * M * N * K / ms / 1e9)


# Tutorial 03's matmul with int8 weights (W8A16), as
# bench/kernels/matmul_w8a16.kite: B converted to f16 in the K loop,
# per-column scales on C; beside torch's f16 matmul of the dequantized B.
@triton.jit
def matmul_w8a16_kernel(a_ptr, b_ptr, scale_ptr, c_ptr, M, N, K,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid_m, pid_n = grouped_pid(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptr + offs_m[:, None] * K + (k * BLOCK_K + offs_k)[None, :])
        b = tl.load(b_ptr + (k * BLOCK_K + offs_k)[:, None] * N + offs_n[None, :])
        acc = tl.dot(a, b.to(tl.float16), acc)
    scale = tl.load(scale_ptr + offs_n).to(tl.float32)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], (acc * scale[None, :]).to(tl.float16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def w8a16():
    for size in (2048, 4096, 8192):
        M = N = K = size
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randint(-128, 128, (K, N), device="cuda", dtype=torch.int8)
        scale = torch.rand(N, device="cuda", dtype=torch.float16) * 0.02
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        # Kite's three configurations and two more of tutorial 03's.
        best = fastest("w8a16", (
            (f"{bm}x{bn}x{bk} w{warps} s{stages}",
             lambda bm=bm, bn=bn, bk=bk, warps=warps, stages=stages: matmul_w8a16_kernel[
                 (triton.cdiv(M, bm) * triton.cdiv(N, bn),)](
                 a, b, scale, c, M, N, K, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
                 num_warps=warps, num_stages=stages))
            for bm, bn, bk, warps, stages in ((128, 128, 64, 4, 3), (128, 256, 64, 8, 3),
                                              (128, 128, 128, 8, 3), (128, 256, 32, 4, 4),
                                              (128, 128, 32, 4, 4))))
        bd = b.half() * scale[None, :]
        ref = (a.float() @ b.float()) * scale.float()[None, :]
        err = ((c.float() - ref).abs() / (ref.abs() + ref.abs().mean())).max().item()
        if err > 2e-2:
            print(f"# w8a16 {size}: Triton's result differs from the reference "
                  f"by {err:.3g} (relative)", file=sys.stderr)
        if best:
            emit(impl="triton", kernel="w8a16 matmul", M=M, N=N, K=K, config=best[1],
                 us=best[0] * 1e3, tflops=2 * M * N * K / best[0] / 1e9)
        ms = do_bench(lambda: a @ bd, warmup=25, rep=100, return_mode="median")
        emit(impl="torch", kernel="w8a16 matmul", M=M, N=N, K=K, us=ms * 1e3,
             tflops=2 * M * N * K / ms / 1e9)


def softmax_builtin():
    """tl.softmax over rows, one a program, beside torch.softmax."""
    for n in (1024, 4096):
        M = 4096
        x = torch.randn(M, n, device="cuda")
        y = torch.empty_like(x)
        fn = lambda: softmax_builtin_kernel[(M,)](x, y, N=n, num_warps=4)
        fn()
        torch.testing.assert_close(y, torch.softmax(x, dim=1))
        for impl, f in (("triton", fn), ("torch", lambda: torch.softmax(x, dim=1))):
            ms = do_bench(f, warmup=25, rep=200, return_mode="median")
            emit(impl=impl, kernel="softmax builtin", rows=M, cols=n, k=0, us=ms * 1e3,
                 GBps=8 * M * n / ms / 1e6)


def sorts():
    for n, k, rows in ((128, 8, 32), (1024, 16, 4)):
        M = (1 << 23) // n
        x = torch.randn(M, n, device="cuda")
        y = torch.empty_like(x)
        g = (triton.cdiv(M, rows),)
        sort_rows_kernel[g](x, y, M, N=n, ROWS=rows, num_warps=4)
        assert torch.equal(y, torch.sort(x, dim=1).values), "sort"
        cases = [("sort", n, 8 * M * n, lambda: sort_rows_kernel[g](x, y, M, N=n, ROWS=rows,
                                                                   num_warps=4),
                  lambda: torch.sort(x, dim=1))]
        if hasattr(tl, "topk"):
            topk_rows_kernel[g](x, y, M, N=n, K=k, ROWS=rows, num_warps=4)
            assert torch.equal(y.view(-1)[:M * k].view(M, k),
                               torch.topk(x, k, dim=1).values), "topk"
            cases.append(("topk", k, 4 * M * (n + k),
                          lambda: topk_rows_kernel[g](x, y, M, N=n, K=k, ROWS=rows, num_warps=4),
                          lambda: torch.topk(x, k, dim=1)))
        for name, kk, nbytes, tfn, ref in cases:
            for impl, fn in (("triton", tfn), ("torch", ref)):
                ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
                emit(impl=impl, kernel=name, rows=M, cols=n, k=kk, us=ms * 1e3,
                     GBps=nbytes / ms / 1e6)


# Tutorial 04's exercises, as dsl-examples/dropout_exercises.kite.
@triton.jit
def seeded_dropout_rows_kernel(x_ptr, out_ptr, seeds_ptr, n_cols, stride_x, stride_out, p,
                               BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    seed = tl.load(seeds_ptr + row)
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask)
    keep = tl.rand(seed, cols) > p
    tl.store(out_ptr + row * stride_out + cols, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def sparse_jl_kernel(x_ptr, y_ptr, n, d, k, seed, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
                     BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    outs = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_K), tl.float32)
    for d0 in range(0, d, BLOCK_D):
        ds = d0 + tl.arange(0, BLOCK_D)
        x = tl.load(x_ptr + rows[:, None] * d + ds[None, :],
                    mask=(rows[:, None] < n) & (ds[None, :] < d), other=0.0)
        u = tl.rand(seed, ds[:, None] * k + outs[None, :])
        r = tl.where(u < 1.0 / 6.0, -1.0, tl.where(u > 5.0 / 6.0, 1.0, 0.0))
        r = tl.where((ds[:, None] < d) & (outs[None, :] < k), r, 0.0)
        acc = tl.dot(x, r, acc, input_precision="ieee")
    y = acc * (1.7320508075688772 / tl.sqrt(k.to(tl.float32)))
    tl.store(y_ptr + rows[:, None] * k + outs[None, :], y,
             mask=(rows[:, None] < n) & (outs[None, :] < k))


def dropout_exercises():
    rows, cols, k = 4096, 4096, 256
    x = torch.randn(rows, cols, device="cuda")
    y = torch.empty_like(x)
    seeds = torch.arange(17, 17 + rows, device="cuda", dtype=torch.int32)
    fn = lambda: seeded_dropout_rows_kernel[(rows, triton.cdiv(cols, 1024))](
        x, y, seeds, cols, cols, cols, 0.3, BLOCK=1024)
    ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
    emit(impl="triton", kernel="seeded_dropout_rows", rows=rows, cols=cols, us=ms * 1e3,
         GBps=8 * rows * cols / ms / 1e6)
    out = torch.empty(rows, k, device="cuda")
    fn = lambda: sparse_jl_kernel[(triton.cdiv(rows, 32), triton.cdiv(k, 32))](
        x, out, rows, cols, k, 99, BLOCK_M=32, BLOCK_K=32, BLOCK_D=32, num_warps=4)
    ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
    emit(impl="triton", kernel="sparse_jl", rows=rows, cols=cols, k=k, us=ms * 1e3,
         gflops=2 * rows * cols * k / ms / 1e6)


# The perceptron layer (dsl-examples/perceptron.kite): the tutorial matmul
# with a bias and sigmoid epilogue, autotuned over the same five configurations.
@triton.autotune(configs=[triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk},
                                        num_stages=st, num_warps=w)
                          for bm, bn, bk, st, w in [(128, 256, 64, 3, 8), (128, 128, 32, 4, 4),
                                                    (64, 128, 32, 4, 4), (64, 128, 64, 4, 4),
                                                    (256, 128, 64, 3, 8)]],
                 key=["M", "N", "K"])
@triton.jit
def perceptron_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, sxm, swk, sym,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m, pid_n = grouped_pid(M, N, BLOCK_M, BLOCK_N, 8)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * sxm + offs_k[None, :]
    w_ptrs = w_ptr + offs_k[:, None] * swk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        x = tl.load(x_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        w = tl.load(w_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(x, w, acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K * swk
    y = tl.sigmoid(acc + tl.load(b_ptr + offs_n)[None, :]).to(tl.float16)
    offs_ym = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_yn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(y_ptr + offs_ym[:, None] * sym + offs_yn[None, :], y,
             mask=(offs_ym[:, None] < M) & (offs_yn[None, :] < N))


def perceptron():
    shapes = [(4096, 4096, 4096)] if quick else [(1024, 1024, 1024), (4096, 4096, 4096),
                                                 (8192, 8192, 8192)]
    for M, N, K in shapes:
        x = torch.randn(M, K, device="cuda", dtype=torch.float16)
        w = (torch.randn(K, N, device="cuda") / K ** 0.5).half()
        b = torch.randn(N, device="cuda")
        y = torch.empty(M, N, device="cuda", dtype=torch.float16)
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
        fn = lambda: perceptron_kernel[grid](x, w, b, y, M, N, K, K, N, N)
        fn()
        ref = torch.sigmoid(x.float() @ w.float() + b)
        assert (y.float() - ref).abs().max().item() < 2e-3
        b16 = b.half()
        # torch: cuBLAS with the bias (addmm), then the sigmoid.
        tfn = lambda: torch.sigmoid(torch.addmm(b16, x, w))
        for impl, f in (("triton", fn), ("torch", tfn)):
            torch.cuda.synchronize(); time.sleep(0.3)
            ms = do_bench(f, warmup=25, rep=100, return_mode="median")
            emit(impl=impl, kernel="perceptron", M=M, N=N, K=K, us=ms * 1e3,
                 tflops=2 * M * N * K / ms / 1e9)


def emit(**kw):
    print(json.dumps(kw), flush=True)


def attention_spellings():
    """bench/kernels/attention_spellings.py (tutorial 06's forward as users
    write it: K^T through pointers or tl.trans, masks every iteration, exp
    or exp2), the source Kite's "spellings" rows compile, run by Triton with
    the same blocks (128x64 on 8 warps, 3 stages), beside Triton's tutorial
    kernel (autotuned) and torch's scaled_dot_product_attention; each
    spelling's output checked against torch."""
    import os
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "rt", "bench"))
    import attention_spellings as sp
    Z, H = 4, 32
    for D in (64, 128):
        for N in ((1024,) if quick else (1024, 4096)):
            q, k, v = (torch.randn(Z, H, N, D, device="cuda", dtype=torch.float16)
                       for _ in range(3))
            o = torch.empty_like(q)
            m = torch.empty((Z, H, N), device="cuda", dtype=torch.float32)
            scale = 1 / math.sqrt(D)
            ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)
            flops = 4.0 * Z * H * N * N * D
            forms = []
            for transposed in (1, 0):
                for exp2 in (0, 1):
                    name = ("K^T pointers" if transposed else "tl.trans(k)") + \
                        (", exp2" if exp2 else ", exp")
                    # exp2 takes the scale in base 2, as a user switching to
                    # exp2 writes it.
                    s = scale * 1.4426950408889634 if exp2 else scale
                    fn = (lambda t=transposed, e=exp2, s=s: sp.attn_fwd_spelled[
                        (triton.cdiv(N, 128), Z * H)](
                        q, k, v, o, s, *q.stride(), *k.stride(), *v.stride(), *o.stride(),
                        H, N, HEAD_DIM=D, BLOCK_M=128, BLOCK_N=64, K_TRANSPOSED_PTRS=t,
                        USE_EXP2=e, num_warps=8, num_stages=3))
                    forms.append((name, fn, True))
            grid = lambda meta: (triton.cdiv(N, meta["BLOCK_M"]), Z * H)
            forms.append(("tutorial (autotuned)", lambda: attn_fwd_kernel[grid](
                q, k, v, o, m, scale, *q.stride()[:3], *k.stride()[:3], *v.stride()[:3],
                *o.stride()[:3], H, N, HEAD_DIM=D, STAGE=1), False))
            forms.append(("sdpa", lambda: torch.nn.functional.scaled_dot_product_attention(
                q, k, v, scale=scale), False))
            for name, fn, check in forms:
                try:
                    o.zero_()
                    fn()
                    torch.cuda.synchronize()
                    if check:
                        err = (o.float() - ref.float()).abs().max().item()
                        assert err < 2e-2, f"{name}: max |diff| {err} from torch"
                    time.sleep(0.3)
                    ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
                    emit(impl="torch" if name == "sdpa" else "triton",
                         kernel="attention (spelled)", spelling=name, Z=Z, H=H, N_CTX=N,
                         HEAD_DIM=D, us=ms * 1e3, tflops=flops / ms / 1e9)
                except Exception as e:
                    print(f"attention (spelled) {name} skipped: {e}", file=sys.stderr)


def library_rows():
    """bench/kernels/library_style.py (the file Kite's "library" rows
    compile) run by Triton with the library's launch settings, beside
    torch; the outputs checked against torch in float32."""
    import os
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "rt", "bench"))
    import library_style as lib

    def settings(cols):
        block = triton.next_power_of_2(cols)
        warps = 32 if block >= 32768 else 16 if block >= 8192 else 8 if block >= 2048 else 4
        return block, warps

    rows = 4096
    for cols in ([4096] if quick else [2048, 4096, 8192]):
        block, warps = settings(cols)
        x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(cols, device="cuda", dtype=torch.bfloat16)
        y = torch.empty_like(x)
        rstd = torch.empty(rows, device="cuda", dtype=torch.float32)
        fn = lambda: lib._rms_norm_fwd[(rows,)](y, y.stride(0), x, x.stride(0), w, rstd, cols,
                                                 1e-6, 0.0, casting_mode=0, BLOCK_SIZE=block,
                                                 num_warps=warps)
        fn()
        xf = x.float()
        ref = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(torch.bfloat16) * w
        assert torch.allclose(y.float(), ref.float(), atol=5e-2, rtol=2e-2)
        ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
        emit(impl="triton", kernel="rms_norm (library)", rows=rows, cols=cols, us=ms * 1e3,
             GBps=4 * rows * cols / ms / 1e6)
        tfn = lambda: (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6)).to(torch.bfloat16) * w
        ms = do_bench(tfn, warmup=25, rep=200, return_mode="median")
        emit(impl="torch", kernel="rms_norm (library)", rows=rows, cols=cols, us=ms * 1e3,
             GBps=4 * rows * cols / ms / 1e6)
    for cols in ([4096] if quick else [4096, 11008, 14336]):
        block, warps = settings(cols)
        a = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
        c = torch.empty_like(a)
        fn = lambda: lib._swiglu_fwd[(rows,)](a, b, c, c.stride(0), cols, BLOCK_SIZE=block,
                                               num_warps=warps)
        fn()
        ref = torch.nn.functional.silu(a.float()).to(torch.bfloat16) * b
        assert torch.allclose(c.float(), ref.float(), atol=5e-2, rtol=2e-2)
        ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
        emit(impl="triton", kernel="swiglu (library)", rows=rows, cols=cols, us=ms * 1e3,
             GBps=6 * rows * cols / ms / 1e6)
        tfn = lambda: torch.nn.functional.silu(a) * b
        ms = do_bench(tfn, warmup=25, rep=200, return_mode="median")
        emit(impl="torch", kernel="swiglu (library)", rows=rows, cols=cols, us=ms * 1e3,
             GBps=6 * rows * cols / ms / 1e6)
    for tokens, classes in ([(4096, 32000)] if quick else [(4096, 32000), (2048, 128256)]):
        x = torch.randn(tokens, classes, device="cuda", dtype=torch.bfloat16)
        x0 = x.clone()
        y = torch.randint(0, classes, (tokens,), device="cuda", dtype=torch.int64)
        loss = torch.empty(tokens, device="cuda", dtype=torch.float32)
        block = min(32768, triton.next_power_of_2(classes))
        fn = lambda: lib._cross_entropy_fwd[(tokens,)](x, x.stride(0), y, loss, classes, tokens,
                                                        -100, reduction="mean",
                                                        BLOCK_SIZE=block, num_warps=32)
        fn()
        ref = torch.nn.functional.cross_entropy(x0.float(), y, reduction="none") / tokens
        assert torch.allclose(loss, ref, atol=1e-5, rtol=1e-3)
        ms = do_bench(fn, warmup=10, rep=100, return_mode="median")
        emit(impl="triton", kernel="cross_entropy (library)", rows=tokens, cols=classes,
             us=ms * 1e3, GBps=4 * tokens * classes / ms / 1e6)
        # torch: the loss and its gradient (what the kernel computes).
        xg = x0.float().requires_grad_(True)
        def tfn():
            l = torch.nn.functional.cross_entropy(xg, y)
            l.backward()
        ms = do_bench(tfn, warmup=10, rep=100, return_mode="median")
        emit(impl="torch", kernel="cross_entropy (library)", rows=tokens, cols=classes,
             us=ms * 1e3, GBps=4 * tokens * classes / ms / 1e6)


def softmax_programs(y, x, block, num_warps, num_stages):
    """The tutorial's persistent grid: SMs x occupancy (registers, shared
    memory) of the compiled kernel; None where this Triton cannot say."""
    try:
        props = triton.runtime.driver.active.utils.get_device_properties(x.device.index)
        kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), x.shape[0], x.shape[1],
                                       BLOCK_SIZE=block, num_stages=num_stages,
                                       num_warps=num_warps, grid=(1,))
        kernel._init_handles()
        occupancy = props["max_num_regs"] // (kernel.n_regs * props["warpSize"] * num_warps)
        smem = kernel.metadata.shared
        if smem:
            occupancy = min(occupancy, props["max_shared_mem"] // smem)
        return max(1, props["multiprocessor_count"] * occupancy)
    except Exception as e:  # an API of another Triton version
        print(f"# softmax occupancy unavailable: {e}", file=sys.stderr)
        return None


def rows_reductions():
    """Softmax (f32) and layer norm forward (f16) over 4096 rows: Triton's
    tutorial kernels (softmax: the tutorial's persistent grid and one
    program per row, the faster reported) and torch."""
    rows = 4096
    widths = [1024, 4096] if quick else [256, 512, 781, 1024, 2048, 4096, 8192, 16384]
    for cols in widths:
        x = torch.randn(rows, cols, device="cuda")
        y = torch.empty_like(x)
        block = triton.next_power_of_2(cols)
        num_warps, num_stages = 8, 4
        grids = [rows]
        persistent = softmax_programs(y, x, block, num_warps, num_stages)
        if persistent:
            grids.append(min(persistent, rows))
        best = None
        for g in grids:
            fn = lambda g=g: softmax_kernel[(g, 1, 1)](y, x, x.stride(0), y.stride(0), rows, cols,
                                                       BLOCK_SIZE=block, num_stages=num_stages,
                                                       num_warps=num_warps)
            fn()
            ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
            best = ms if best is None else min(best, ms)
        assert torch.allclose(y, torch.softmax(x, dim=1), atol=1e-6)
        emit(impl="triton", kernel="softmax", rows=rows, cols=cols, us=best * 1e3,
             GBps=8 * rows * cols / best / 1e6)
        ms = do_bench(lambda: torch.softmax(x, dim=1), warmup=25, rep=200, return_mode="median")
        emit(impl="torch", kernel="softmax", rows=rows, cols=cols, us=ms * 1e3,
             GBps=8 * rows * cols / ms / 1e6)

        xh = (-2.3 + 0.5 * torch.randn(rows, cols, device="cuda")).half()
        w = torch.rand(cols, device="cuda").half()
        b = torch.rand(cols, device="cuda").half()
        yh = torch.empty_like(xh)
        mean = torch.empty(rows, device="cuda")
        rstd = torch.empty(rows, device="cuda")
        lblock = min(65536 // 2, triton.next_power_of_2(cols))
        lwarps = min(max(lblock // 256, 1), 8)
        fn = lambda: layer_norm_fwd_kernel[(rows,)](xh, yh, w, b, mean, rstd, xh.stride(0), cols,
                                                    1e-5, BLOCK_SIZE=lblock, num_warps=lwarps)
        fn()
        ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
        emit(impl="triton", kernel="layer_norm", rows=rows, cols=cols, us=ms * 1e3,
             GBps=4 * rows * cols / ms / 1e6)
        # The same with dsl-examples/layer_norm.kite's one-pass form (a row
        # that fits in the block read once), Kite's kernel in Triton.
        fn = lambda: layer_norm_fwd_onepass_kernel[(rows,)](xh, yh, w, b, mean, rstd,
                                                            xh.stride(0), cols, 1e-5,
                                                            BLOCK_SIZE=lblock, num_warps=lwarps)
        fn()
        ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
        assert torch.allclose(yh, torch.nn.functional.layer_norm(xh, (cols,), w, b, 1e-5),
                              atol=2e-2, rtol=0)
        emit(impl="triton_1pass", kernel="layer_norm", rows=rows, cols=cols, us=ms * 1e3,
             GBps=4 * rows * cols / ms / 1e6)
        ref = lambda: torch.nn.functional.layer_norm(xh, (cols,), w, b, 1e-5)
        ms = do_bench(ref, warmup=25, rep=200, return_mode="median")
        emit(impl="torch", kernel="layer_norm", rows=rows, cols=cols, us=ms * 1e3,
             GBps=4 * rows * cols / ms / 1e6)

        # Layer norm backward, the tutorial's two kernels with its block,
        # warps and lock groups, the forward's mean and rstd (above); timed
        # with the locks' reset. GB/s: x and dy read, dx written.
        dy = (0.1 * torch.randn(rows, cols, device="cuda")).half()
        dx = torch.empty_like(xh)
        group = 64
        if cols <= 8192: group = 96
        if cols <= 4096: group = 128
        if cols <= 1024: group = 256
        pdw = torch.empty((group, cols), device="cuda", dtype=torch.float16)
        pdb = torch.empty_like(pdw)
        locks = torch.zeros(2 * group, device="cuda", dtype=torch.int32)
        fdw = torch.empty(cols, device="cuda", dtype=torch.float16)
        fdb = torch.empty_like(fdw)

        def bwd():
            locks.zero_()
            layer_norm_bwd_dx_fused_kernel[(rows,)](dx, dy, pdw, pdb, xh, w, mean, rstd, locks,
                                                    xh.stride(0), cols, GROUP_SIZE_M=group,
                                                    BLOCK_SIZE_N=lblock, num_warps=lwarps)
            layer_norm_bwd_dwdb_kernel[(triton.cdiv(cols, 128),)](pdw, pdb, fdw, fdb,
                                                                  min(group, rows), cols,
                                                                  BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)
        bwd()
        ms = do_bench(bwd, warmup=25, rep=200, return_mode="median")
        emit(impl="triton", kernel="layer_norm_bwd", rows=rows, cols=cols, us=ms * 1e3,
             GBps=6 * rows * cols / ms / 1e6)
        xg = xh.detach().clone().requires_grad_(True)
        wg = w.detach().clone().requires_grad_(True)
        bg = b.detach().clone().requires_grad_(True)
        yg = torch.nn.functional.layer_norm(xg, (cols,), wg, bg, 1e-5)
        ms = do_bench(lambda: yg.backward(dy, retain_graph=True), warmup=25, rep=200,
                      return_mode="median", grad_to_none=[xg, wg, bg])
        emit(impl="torch", kernel="layer_norm_bwd", rows=rows, cols=cols, us=ms * 1e3,
             GBps=6 * rows * cols / ms / 1e6)


def main():
    # (log2 n, extra): n = 2^log2n + extra, as kite_bench.cpp
    logs = [] if "1d" not in only else [(20, 0), (24, 0)] if quick else \
        [(20, 0), (22, 0), (24, 0), (26, 0), (28, 0), (24, 1), (26, 1)]
    for lg, extra in logs:
        n = (1 << lg) + extra
        x = torch.randn(n, device="cuda")
        y = torch.randn(n, device="cuda")
        keep = (torch.rand(n, device="cuda") > 0.5).to(torch.int32)
        out = torch.empty(n, device="cuda")
        g = (triton.cdiv(n, 1024),)
        cases = [
            ("vector_add", 12, lambda: add_kernel[g](x, y, out, n, BLOCK=1024)),
            ("dropout", 12, lambda: dropout_kernel[g](x, keep, out, n, 0.5, BLOCK=1024)),
            ("seeded_dropout", 8, lambda: seeded_kernel[g](x, out, n, 0.5, 123, BLOCK=1024)),
        ]
        ms = do_bench(lambda: out.copy_(x), warmup=25, rep=200, return_mode="median")
        emit(impl="torch", kernel="copy", log2n=lg, extra=extra, us=ms * 1e3, GBps=8 * n / ms / 1e6)
        for name, bpe, fn in cases:
            ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
            emit(impl="triton", kernel=name, log2n=lg, extra=extra, us=ms * 1e3,
                 GBps=bpe * n / ms / 1e6)
    if "rows" in only:
        rows_reductions()
    if "library" in only:
        library_rows()
    if "spellings" in only:
        attention_spellings()
    if "math" in only:
        elementwise_math()
        histograms()
        sorts()
        softmax_builtin()
        mxfp8()
        w8a16()
        dropout_exercises()
    else:
        if "mxfp8" in only.split(","):
            mxfp8()
        if "w8a16" in only.split(","):
            w8a16()
    if "perceptron" in only:
        perceptron()
    if "attention" in only:
        attention()
    if "attnbwd" in only:
        attention_bwd()
    fp8_only = "fp8" in only.split(",") and "matmul" not in only
    # "tuned": only the tutorial matmul and cuBLAS rows that Kite's tuned
    # kernels are measured against (scripts/gpu/ab_tuned.sh).
    tuned_only = "tuned" in only and "matmul" not in only
    # "persistent": only tutorial 09's f16/bf16 rows and cuBLAS, beside
    # Kite's persistent forms (scripts/gpu/ab_tuned.sh persistent).
    persistent_only = "persistent" in only and "matmul" not in only and not tuned_only
    shapes = [] if "matmul" not in only and not fp8_only and not tuned_only \
        and not persistent_only else [(1024, 1024, 1024)] if quick else [
        (1024, 1024, 1024), (4096, 4096, 4096), (8192, 8192, 8192), (4096, 4096, 512)]
    for dtype, tdt in () if fp8_only else (("f16", torch.float16), ("bf16", torch.bfloat16)) \
            if persistent_only else (("f32", torch.float32), ("tf32", torch.float32),
                                     ("f16", torch.float16), ("bf16", torch.bfloat16)):
        # tf32: f32 inputs on the tensor cores (Triton's default for f32,
        # cuBLAS with TF32 allowed); f32: exact products on both sides.
        torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
        for M, N, K in shapes:
            a = torch.randn(M, K, device="cuda", dtype=tdt)
            b = torch.randn(K, N, device="cuda", dtype=tdt)
            c = torch.empty(M, N, device="cuda", dtype=torch.float32)
            grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
            fn = lambda: matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1),
                                             b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                                             IEEE=dtype == "f32")
            if not persistent_only:
                fn()
                # 300 ms idle before each measurement, as kite-bench's
                # matmul rows: right after heavy runs (8192^3) the GPU runs
                # the next kernels slower for a few hundred ms.
                torch.cuda.synchronize(); time.sleep(0.3)
                ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
                emit(impl="triton", kernel="matmul", dtype=dtype, M=M, N=N, K=K,
                     us=ms * 1e3, tflops=2 * M * N * K / ms / 1e9)
            if dtype in ("f16", "bf16") and not tuned_only and not persistent_only:
                try:
                    # In-kernel descriptors need a global scratch allocator.
                    triton.set_allocator(lambda size, align, stream:
                                         torch.empty(size, device="cuda", dtype=torch.int8))
                    tfn = lambda: matmul_tma_kernel[grid](a, b, c, M, N, K, a.stride(0),
                                                          b.stride(0), c.stride(0), c.stride(1))
                    tfn()
                    torch.cuda.synchronize(); time.sleep(0.3)
                    ms = do_bench(tfn, warmup=25, rep=100, return_mode="median")
                    emit(impl="triton_tma", kernel="matmul", dtype=dtype, M=M, N=N, K=K,
                         us=ms * 1e3, tflops=2 * M * N * K / ms / 1e9)
                except Exception as e:  # an older Triton: no TMA row
                    print(f"triton TMA matmul skipped: {e}", file=sys.stderr)
                try:
                    from triton.tools.tensor_descriptor import TensorDescriptor
                    ad = TensorDescriptor.from_tensor(a, [128, 64])
                    bd = TensorDescriptor.from_tensor(b, [64, 256])
                    cd = TensorDescriptor.from_tensor(c, [128, 256])
                    hgrid = (triton.cdiv(M, 128) * triton.cdiv(N, 256),)
                    # 2 stages: with 3 Triton asks 278552 bytes of shared
                    # memory (the f32 C tile's store staging beside the
                    # slots), over the H100's 232448.
                    hfn = lambda: matmul_host_desc_kernel[hgrid](
                        ad, bd, cd, M, N, K, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64,
                        GROUP_M=8, num_warps=8, num_stages=2)
                    hfn()
                    torch.cuda.synchronize(); time.sleep(0.3)
                    ms = do_bench(hfn, warmup=25, rep=100, return_mode="median")
                    emit(impl="triton_host_desc", kernel="matmul", dtype=dtype, M=M, N=N,
                         K=K, us=ms * 1e3, tflops=2 * M * N * K / ms / 1e9)
                except Exception as e:  # an older Triton: no host descriptors
                    print(f"triton host-descriptor matmul skipped: {e}", file=sys.stderr)
            if dtype in ("f16", "bf16") and not tuned_only:
                # Tutorial 09: output in the input's type, a grid of
                # min(#SMs, tiles).
                sms = torch.cuda.get_device_properties("cuda").multi_processor_count
                # In-kernel descriptors need a global scratch allocator.
                triton.set_allocator(lambda size, align, stream:
                                     torch.empty(size, device="cuda", dtype=torch.int8))
                c16 = torch.empty(M, N, device="cuda", dtype=a.dtype)
                pgrid = (min(sms, triton.cdiv(M, 128) * triton.cdiv(N, 256)),)
                meta = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8, NUM_SMS=sms,
                            num_warps=8, num_stages=3)
                forms = (("triton_persistent", lambda: matmul_persistent_kernel[pgrid](
                              a, b, c16, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                              b.stride(1), c16.stride(0), c16.stride(1), **meta)),
                         ("triton_persistent_tma", lambda: matmul_descriptor_persistent_kernel[pgrid](
                              a, b, c16, M, N, K, **meta)))
                for impl, pfn in forms:
                    try:
                        pfn()
                        torch.cuda.synchronize(); time.sleep(0.3)
                        ms = do_bench(pfn, warmup=25, rep=100, return_mode="median")
                        emit(impl=impl, kernel="matmul", dtype=dtype, M=M, N=N, K=K,
                             us=ms * 1e3, tflops=2 * M * N * K / ms / 1e9)
                    except Exception as e:
                        print(f"{impl} matmul skipped: {e}", file=sys.stderr)
            torch.cuda.synchronize(); time.sleep(0.3)
            ms = do_bench(lambda: torch.matmul(a, b), warmup=25, rep=100, return_mode="median")
            emit(impl="cublas", kernel="matmul", dtype=dtype, M=M, N=N, K=K, us=ms * 1e3,
                 tflops=2 * M * N * K / ms / 1e9)

    if shapes and not tuned_only and not persistent_only:
        fp8_matmuls(shapes + ([] if quick else [(8192, 8192, 4096)]))


if __name__ == "__main__":
    main()
