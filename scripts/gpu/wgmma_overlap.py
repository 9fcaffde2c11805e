#!/usr/bin/env python3
"""Does a running wgmma let its warpgroup's ALU work proceed? (H100, sm_90a)

A micro-benchmark for the attention forward's question (docs/performance.md,
"Attention forward"): while `p @ v` runs on the tensor cores, can the same
warps compute the next block's softmax, and does it matter whether the
product reads A from registers (wgmma's RS form, what Kite and
FlashAttention-3 use) or from shared memory (SS)?

Each program (2 warpgroups, one program an SM) loops: issue 4 x
wgmma m64n128k16 (a 64x128x64 product per warpgroup, d128's p @ v), then
a softmax-like chain on 32 other registers a thread (row max tree, two
shuffles, fma + ex2.approx per element, row sum, 16 f16 packs), then waits
for the product. Modes:
  alu        the softmax chain only
  rs, ss     the product only (A in registers / in shared memory)
  rs+alu     product issued, chain, wait (A: the previous iteration's p)
  ss+alu     the same with A from shared memory (p stored there first,
             fence.proxy.async), as an SS form of p @ v would
  ss+st+alu  ss+alu with p stored to shared memory first (and a barrier)
  rs;alu     product, wait, then the chain (no overlap within a warp)
  wg0 rs | wg1 alu   one warpgroup only products, the other only the chain
  rs;alu, barrier / rs+alu, barrier   the same with a barrier of the whole
             program after each step (the two warpgroups kept in step, as
             the cp.async ring of Kite's attention loop keeps them)
If rs+alu is near max(rs, alu) the hardware overlaps them; near the sum,
it does not. Cycles come from clock64 in the first program; a probe then
times the issue of the four products against their completion. Each mode
runs again with a multiply in place of each ex2 (-DNO_MUFU).

  python3 scripts/gpu/wgmma_overlap.py        # on the device: nvcc, sm_90a
"""
import os
import subprocess
import sys
import tempfile

ACC = 64  # m64n128 f32 accumulator registers a thread


def wgmma(rs):
    d = ", ".join(f"%{i}" for i in range(ACC))
    if rs:
        a = f"{{%{ACC}, %{ACC + 1}, %{ACC + 2}, %{ACC + 3}}}"
        b = f"%{ACC + 4}"
        body = (f"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
                f"{{{d}}}, {a}, {b}, 1, 1, 1, 1;")
        ins = ('"r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db)')
    else:
        body = (f"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
                f"{{{d}}}, %{ACC}, %{ACC + 1}, 1, 1, 1, 0, 1;")
        ins = '"l"(da), "l"(db)'
    outs = ", ".join(f'"+f"(acc[{i}])' for i in range(ACC))
    return f'asm volatile("{body}" : {outs} : {ins});'


SRC = r"""
#include <cstdio>
#include <cstdint>
#include <cuda_fp16.h>

__device__ __forceinline__ float ex2(float x) {
#ifdef NO_MUFU  // the same chain with a multiply in place of each ex2
  return x * 1.0001f;
#else
  float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y;
#endif
}
__device__ __forceinline__ uint32_t pack(float a, float b) {
  __half2 h = __floats2half2_rn(a, b); return *reinterpret_cast<uint32_t *>(&h);
}
__device__ __forceinline__ uint64_t desc(uint32_t addr) {
  // No swizzle; leading/stride byte offsets 128/256 (the values do not
  // matter for timing, only that the reads stay in the buffer).
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) |
         ((uint64_t)(256 >> 4) << 32);
}

// Modes: 0 alu, 1 rs, 2 ss, 3 rs+alu, 4 ss+alu (p stored), 5 ss+alu,
// 6 rs then alu; split between the warpgroups: 7 the first issues the
// products (rs), the second runs the chain; 8 only the chain on the second;
// 9 only the products on the first.
template <int MODE>
__device__ __forceinline__ void step(float (&acc)[64], const uint32_t (&pin)[16],
                                     uint32_t (&pout)[16], float (&s)[32], float &l0,
                                     float &l1, float &m0, float &m1, unsigned char *smem,
                                     int wg, uint64_t da, uint64_t db) {
  // MODE: what this warpgroup does (0 .. 6; the kernel maps 7 .. 9).
  const bool mma = MODE >= 1;
  const bool alu = MODE == 0 || MODE >= 3;
  if (MODE == 4) {
    uint32_t *dst = reinterpret_cast<uint32_t *>(smem + wg * 8192) + (threadIdx.x % 128) * 16;
    for (int i = 0; i < 16; ++i) dst[i] = pin[i];
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("bar.sync %0, 128;" :: "r"(wg + 1));
  }
  if (mma) {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      uint32_t a0 = pin[4 * kk], a1 = pin[4 * kk + 1], a2 = pin[4 * kk + 2], a3 = pin[4 * kk + 3];
      if (MODE == 1 || MODE == 3 || MODE == 6) { WGMMA_RS }
      else { WGMMA_SS }
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  }
  if (MODE == 6)
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  if (alu) {
    float x0, x1;
    float t[16], u[16];
    for (int i = 0; i < 16; ++i) { t[i] = s[i]; u[i] = s[16 + i]; }
    for (int w = 8; w >= 1; w /= 2)
      for (int i = 0; i < w; ++i) { t[i] = fmaxf(t[i], t[i + w]); u[i] = fmaxf(u[i], u[i + w]); }
    x0 = fmaxf(t[0], __shfl_xor_sync(0xffffffff, t[0], 1));
    x0 = fmaxf(x0, __shfl_xor_sync(0xffffffff, x0, 2));
    x1 = fmaxf(u[0], __shfl_xor_sync(0xffffffff, u[0], 1));
    x1 = fmaxf(x1, __shfl_xor_sync(0xffffffff, x1, 2));
    float n0 = fmaxf(m0, x0 * 0.125f), n1 = fmaxf(m1, x1 * 0.125f);
    float e[32];
    for (int i = 0; i < 16; ++i) {
      e[i] = ex2(fmaf(s[i], 0.125f, -n0));
      e[16 + i] = ex2(fmaf(s[16 + i], 0.125f, -n1));
    }
    float r0 = 0.f, r1 = 0.f;
    for (int i = 0; i < 16; ++i) { r0 += e[i]; r1 += e[16 + i]; }
    l0 = l0 * ex2(m0 - n0) + r0; l1 = l1 * ex2(m1 - n1) + r1;
    m0 = n0; m1 = n1;
    for (int i = 0; i < 16; ++i) pout[i] = pack(e[2 * i], e[2 * i + 1]);
    // The next block's scores: depend on this one's, as a new S would
    // arrive (keeps the chain from being hoisted out of the loop).
    for (int i = 0; i < 32; ++i) s[i] = fmaf(e[i], 0.25f, s[i]);
  } else {
    for (int i = 0; i < 16; ++i) pout[i] = pin[i] + 1;
  }
  if (mma && MODE != 6)
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

template <int MODE>
__global__ void __launch_bounds__(256, 1) k(float *out, const float *in, int iters,
                                           long long *cycles) {
  long long start = clock64();
  extern __shared__ __align__(1024) unsigned char smem[];
  uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
  int wg = threadIdx.x / 128;
  uint64_t db = desc(base + 32768);
  uint64_t da = desc(base + wg * 8192);
  float acc[64];
  for (int i = 0; i < 64; ++i) acc[i] = 0.f;
  float s[32];
  for (int i = 0; i < 32; ++i) s[i] = in[(threadIdx.x * 32 + i) & 1023];
  float l0 = 0.f, l1 = 0.f, m0 = -1e30f, m1 = -1e30f;
  uint32_t p[16], q[16];
  for (int i = 0; i < 16; ++i) p[i] = q[i] = 0;
  // Two iterations a trip: the product reads one p while the chain writes
  // the other (ptxas serializes wgmmas whose A registers are redefined
  // before their wait).
#define LOOP(R)                                                       \
  for (int it = 0; it < iters; it += 2) {                             \
    step<R>(acc, p, q, s, l0, l1, m0, m1, smem, wg, da, db);          \
    step<R>(acc, q, p, s, l0, l1, m0, m1, smem, wg, da, db);          \
  }
  // 10, 11: rs;alu and rs+alu with a barrier of the whole program after
  // each step, as the cp.async ring of Kite's attention loop has (the two
  // warpgroups kept in step).
#define LOOP_BARRIER(R)                                               \
  for (int it = 0; it < iters; it += 2) {                             \
    step<R>(acc, p, q, s, l0, l1, m0, m1, smem, wg, da, db);          \
    __syncthreads();                                                  \
    step<R>(acc, q, p, s, l0, l1, m0, m1, smem, wg, da, db);          \
    __syncthreads();                                                  \
  }
  if (MODE == 10) {
    LOOP_BARRIER(6)
  } else if (MODE == 11) {
    LOOP_BARRIER(3)
  } else if (MODE <= 6) {
    LOOP(MODE < 7 ? MODE : 0)
  } else if (wg == 0) {
    if (MODE != 8) LOOP(1)
  } else {
    if (MODE != 9) LOOP(0)
  }
  float sum = l0 + l1;
  for (int i = 0; i < 64; ++i) sum += acc[i];
  for (int i = 0; i < 16; ++i) sum += (float)(p[i] & 0xffff);
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  if (blockIdx.x == 0 && threadIdx.x == 0) *cycles = clock64() - start;
}

// How long the warp takes to issue the 4 products (does an HGMMA wait for
// the tensor core to take it?) and to see them complete; per warpgroup
// count 1 or 2.
template <bool RS>
__global__ void __launch_bounds__(256, 1) probe(long long *cycles, int iters) {
  extern __shared__ __align__(1024) unsigned char smem[];
  uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
  uint64_t db = desc(base + 32768), da = desc(base);
  float acc[64];
  for (int i = 0; i < 64; ++i) acc[i] = 0.f;
  uint32_t a0 = threadIdx.x, a1 = 0, a2 = 0, a3 = 0;
  long long issue = 0, total = 0;
  for (int it = 0; it < iters; ++it) {
    long long c0 = clock64();
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      if (RS) { WGMMA_RS }
      else { WGMMA_SS }
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    long long c1 = clock64();
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    long long c2 = clock64();
    issue += c1 - c0;
    total += c2 - c0;
  }
  float sum = 0.f;
  for (int i = 0; i < 64; ++i) sum += acc[i];
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    cycles[0] = issue / iters;
    cycles[1] = total / iters;
    cycles[2] = (long long)sum;
  }
}

template <bool RS> void runProbe(long long *cycles, int threads) {
  cudaFuncSetAttribute(probe<RS>, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);
  probe<RS><<<1, threads, 65536>>>(cycles, 1000);
  long long h[3];
  cudaMemcpy(h, cycles, sizeof h, cudaMemcpyDeviceToHost);
  printf("%s, %d warpgroup(s): 4 products issued in %lld cycles, done in %lld\n",
         RS ? "rs" : "ss", threads / 128, h[0], h[1]);
}

long long *cyclesDev;
long long cyclesOf[16];
template <int MODE> float run(float *out, float *in, int iters, int sms) {
  cudaFuncSetAttribute(k<MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);
  k<MODE><<<sms, 256, 65536>>>(out, in, iters, cyclesDev);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  float best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a);
    k<MODE><<<sms, 256, 65536>>>(out, in, iters, cyclesDev);
    cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms;
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return -1; }
  cudaMemcpy(&cyclesOf[MODE], cyclesDev, sizeof(long long), cudaMemcpyDeviceToHost);
  return best;
}

int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int clock; cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 0);
  float *out, *in; cudaMalloc(&out, sms * 256 * 4); cudaMalloc(&in, 4096 * 4);
  cudaMemset(in, 0, 4096 * 4);
  const int iters = 20000;
  cudaMalloc(&cyclesDev, sizeof(long long));
  const char *names[] = {"alu", "rs", "ss", "rs+alu", "ss+st+alu", "ss+alu", "rs;alu",
                         "wg0 rs | wg1 alu", "wg1 alu only", "wg0 rs only",
                         "rs;alu, barrier", "rs+alu, barrier"};
  float t[12] = {run<0>(out, in, iters, sms),  run<1>(out, in, iters, sms),
                 run<2>(out, in, iters, sms),  run<3>(out, in, iters, sms),
                 run<4>(out, in, iters, sms),  run<5>(out, in, iters, sms),
                 run<6>(out, in, iters, sms),  run<7>(out, in, iters, sms),
                 run<8>(out, in, iters, sms),  run<9>(out, in, iters, sms),
                 run<10>(out, in, iters, sms), run<11>(out, in, iters, sms)};
  printf("%-18s %10s %14s %18s\n", "mode", "ms", "ns/iteration", "cycles/iteration");
  for (int m = 0; m < 12; ++m)
    printf("%-18s %10.3f %14.1f %18.1f\n", names[m], t[m], t[m] * 1e6 / iters,
           (double)cyclesOf[m] / iters);
  printf("rs+alu / (rs + alu) = %.2f, / max = %.2f\n", t[3] / (t[1] + t[0]),
         t[3] / (t[1] > t[0] ? t[1] : t[0]));
  printf("ss+alu / (ss + alu) = %.2f, / max = %.2f\n", t[5] / (t[2] + t[0]),
         t[5] / (t[2] > t[0] ? t[2] : t[0]));
  long long *cycles;
  cudaMalloc(&cycles, 3 * sizeof(long long));
  runProbe<true>(cycles, 128);
  runProbe<true>(cycles, 256);
  runProbe<false>(cycles, 128);
  runProbe<false>(cycles, 256);
  return 0;
}
"""


def main():
    src = SRC.replace("WGMMA_RS", wgmma(True)).replace("WGMMA_SS", wgmma(False))
    with tempfile.TemporaryDirectory() as d:
        cu = os.path.join(d, "overlap.cu")
        with open(cu, "w") as f:
            f.write(src)
        for label, flags in (("softmax chain with ex2 (MUFU)", []),
                             ("the same chain, a multiply for each ex2",
                              ["-DNO_MUFU"])):
            exe = os.path.join(d, "overlap" + "".join(flags))
            subprocess.run(["nvcc", "-O3", "-gencode",
                            "arch=compute_90a,code=sm_90a", *flags, "-o", exe,
                            cu], check=True)
            if "--sass" in sys.argv:
                subprocess.run(["cuobjdump", "-sass", exe], check=True)
            print(label, flush=True)
            subprocess.run([exe], check=True)


if __name__ == "__main__":
    main()
