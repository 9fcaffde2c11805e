// Triton tutorial 06 from C++: the fused attention forward
// (dsl-examples/attention.kite), causal and not, f16 Q, K, V and Out of
// shape [Z, H, N_CTX, HEAD_DIM], on the GPU (or in the Kite interpreter
// where there is none), checked against a float64 softmax(Q K^T * scale) V
// of the same f16 inputs.
//   attention [Z H N_CTX HEAD_DIM]   (default 2 4 1000 64 on a GPU, 1 2 150
//                                     64 without: blocks of 64 x 32 there)
#include "common.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  bool gpu = examples::haveGPU();
  int Z = gpu ? 2 : 1, H = gpu ? 4 : 2, N = gpu ? 1000 : 150, D = 64;
  if (argc == 5)
    Z = std::atoi(argv[1]), H = std::atoi(argv[2]), N = std::atoi(argv[3]),
    D = std::atoi(argv[4]);
  if (Z < 1 || H < 1 || N < 1 || (D != 16 && D != 32 && D != 64 && D != 128 &&
                                  D != 256)) {
    std::fprintf(stderr, "usage: attention [Z H N_CTX HEAD_DIM] (HEAD_DIM "
                         "16, 32, 64, 128 or 256)\n");
    return 2;
  }
  size_t n = size_t(Z) * H * N * D;
  std::mt19937 rng(0);
  std::normal_distribution<float> g(0.f, 1.f);
  std::vector<uint16_t> q(n), k(n), v(n);
  for (auto *t : {&q, &k, &v})
    for (uint16_t &x : *t)
      x = examples::toHalf(0.5f * g(rng));
  const float scale = 1.f / std::sqrt(float(D));
  int bm = gpu ? 128 : 64, bn = gpu ? 64 : 32;
  std::printf("attention forward, Z=%d H=%d N_CTX=%d HEAD_DIM=%d, blocks "
              "%dx%d, %s\n",
              Z, H, N, D, bm, bn, gpu ? "on the GPU" : "in the interpreter");
  std::printf("%-12s %12s %10s\n", "mask", "max error", gpu ? "TFLOP/s" : "");
  bool ok = true;
  for (bool causal : {false, true}) {
    // The reference, one (batch, head) at a time.
    std::vector<double> ref(n), s(N);
    for (int zh = 0; zh < Z * H; ++zh) {
      size_t base = size_t(zh) * N * D;
      for (int i = 0; i < N; ++i) {
        double mx = -INFINITY;
        int last = causal ? i : N - 1;
        for (int j = 0; j <= last; ++j) {
          double d = 0;
          for (int c = 0; c < D; ++c)
            d += double(examples::fromHalf(q[base + size_t(i) * D + c])) *
                 examples::fromHalf(k[base + size_t(j) * D + c]);
          s[j] = d * scale;
          mx = std::max(mx, s[j]);
        }
        double sum = 0;
        for (int j = 0; j <= last; ++j)
          sum += (s[j] = std::exp(s[j] - mx));
        for (int c = 0; c < D; ++c) {
          double o = 0;
          for (int j = 0; j <= last; ++j)
            o += s[j] * examples::fromHalf(v[base + size_t(j) * D + c]);
          ref[base + size_t(i) * D + c] = o / sum;
        }
      }
    }
    kite::CompileOptions o;
    o.constants = {{"HEAD_DIM", D}, {"BLOCK_M", bm}, {"BLOCK_N", bn},
                   {"STAGE", causal ? 3 : 1}};
    if (!gpu)
      o.overrideNumWarps = 4;
    auto attn = kite::compileFile(examples::source("attention.kite"), o);
    if (!attn) {
      std::fprintf(stderr, "%s\n", attn.error().str().c_str());
      return 1;
    }
    kite::Grid grid(uint32_t(kite::cdiv(N, bm)), uint32_t(Z * H));
    int sz = H * N * D, sh = N * D, sm = D;
    std::vector<uint16_t> out(n, 0x7e00); // NaN: never written
    double tflops = 0;
    if (gpu) {
      auto dq = kite::DeviceBuffer<uint16_t>::fromHost(q).value();
      auto dk = kite::DeviceBuffer<uint16_t>::fromHost(k).value();
      auto dv = kite::DeviceBuffer<uint16_t>::fromHost(v).value();
      auto dout = kite::DeviceBuffer<uint16_t>::fromHost(out).value();
      std::vector<kite::Arg> args = {dq, dk, dv, dout, scale, sz, sh, sm, sz,
                                     sh, sm, sz, sh, sm, sz, sh, sm, H, N};
      double ms = examples::timedLaunchMs(*attn, grid, args);
      // Two products of 2 N^2 D flops each (half of them when causal).
      double flops = 4.0 * Z * H * double(N) * N * D * (causal ? 0.5 : 1);
      tflops = flops / ms / 1e9;
      out = dout.toHost().value();
    } else {
      std::vector<kite::Arg> args = {q, k, v, out, scale, sz, sh, sm, sz,
                                     sh, sm, sz, sh, sm, sz, sh, sm, H, N};
      auto run = attn->interpret(grid, args);
      if (!run) {
        std::fprintf(stderr, "%s\n", run.error().str().c_str());
        return 1;
      }
    }
    double worst = 0;
    for (size_t i = 0; i < n; ++i) {
      double d = std::fabs(examples::fromHalf(out[i]) - ref[i]);
      worst = std::isnan(d) ? INFINITY : std::max(worst, d);
    }
    // f16 P and Out round to 2^-11 relative; Triton's test allows 1e-2.
    bool good = worst <= 1e-2;
    ok &= good;
    if (gpu)
      std::printf("%-12s %12.2e %10.1f%s\n", causal ? "causal" : "none", worst,
                  tflops, good ? "" : "  FAILED");
    else
      std::printf("%-12s %12.2e%s\n", causal ? "causal" : "none", worst,
                  good ? "" : "  FAILED");
  }
  std::printf(ok ? "ok: within 1e-2 of float64\n" : "FAILED\n");
  return ok ? 0 : 1;
}
