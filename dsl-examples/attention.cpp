// Triton tutorial 06 from C++: the fused attention forward
// (dsl-examples/attention.kite), causal and not, f16 Q, K, V and Out of
// shape [Z, H, N_CTX, HEAD_DIM], on the GPU (or in the Kite interpreter
// where there is none), checked against a float64 softmax(Q K^T * scale) V
// of the same f16 inputs; then with dropout (DROPOUT=1, p = 0.1): against
// the same reference with the host's own dropout mask (Philox, the
// kernel's mapping), and the mask itself bit for bit (Q = 0, V = I: each
// output element is 0 exactly where its weight was dropped). On a GPU also
// autotuned ("tuned", not causal): the blocks configurations given from
// C++ (CompileOptions::autotuneConfigs, keyed by N_CTX), the runtime timing
// them on the first launch and keeping its choice on disk.
//   attention [Z H N_CTX HEAD_DIM]   (default 2 4 1000 64 on a GPU, 1 2 150
//                                     64 without: blocks of 64 x 32 there)
#include "common.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace {

/// Whether attention.kite's dropout keeps the weight of row i, column j of
/// head zh (documented in its dropout_decisions).
bool kept(uint32_t seed, int zh, int N, int i, int j, int threshold) {
  uint32_t c[4] = {uint32_t((i * ((N + 63) / 64) + j / 64) * 4 + ((j >> 1) & 3)),
                   0, 0, 0};
  examples::philox(seed, uint32_t(zh), c, /*rounds=*/7);
  int byte = ((j >> 3) & 7) * 2 + (j & 1);
  return int((c[byte / 4] >> (8 * (byte % 4))) & 255) >= threshold;
}

/// The dropout mask bit for bit: with Q = 0 every weight of a row is 1/N,
/// and with V = I (N = HEAD_DIM = 128) output element (i, j) is 0 exactly
/// where weight (i, j) was dropped. Two heads (two Philox keys), blocks of
/// 64 x 64 (two column chunks of 64).
bool maskBitExact(bool gpu, int seed, float dropP, int threshold) {
  const int Z = 1, H = 2, N = 128, D = 128;
  size_t n = size_t(Z) * H * N * D;
  std::vector<uint16_t> q(n, 0), k(n, examples::toHalf(1.f)), v(n, 0),
      out(n, 0x7e00);
  for (int zh = 0; zh < Z * H; ++zh)
    for (int j = 0; j < N; ++j)
      v[size_t(zh) * N * D + size_t(j) * D + j] = examples::toHalf(1.f);
  kite::CompileOptions o;
  o.constants = {{"HEAD_DIM", D}, {"BLOCK_M", 64}, {"BLOCK_N", 64},
                 {"STAGE", 1}, {"DROPOUT", 1}};
  o.overrideNumWarps = 4;
  auto attn = kite::compileFile(examples::source("attention.kite"), o);
  if (!attn) {
    std::fprintf(stderr, "%s\n", attn.error().str().c_str());
    return false;
  }
  kite::Grid grid(uint32_t(N / 64), uint32_t(Z * H));
  int sz = H * N * D, sh = N * D, sm = D;
  float scale = 1.f;
  if (gpu) {
    auto dq = kite::DeviceBuffer<uint16_t>::fromHost(q).value();
    auto dk = kite::DeviceBuffer<uint16_t>::fromHost(k).value();
    auto dv = kite::DeviceBuffer<uint16_t>::fromHost(v).value();
    auto dout = kite::DeviceBuffer<uint16_t>::fromHost(out).value();
    auto dm = kite::DeviceBuffer<float>::allocate(size_t(Z) * H * N).value();
    attn->launch(grid, {dq, dk, dv, dout, dm, scale, sz, sh, sm, sz, sh, sm, sz,
                        sh, sm, sz, sh, sm, H, N, dropP, seed})
        .value();
    out = dout.toHost().value();
  } else {
    std::vector<float> m(size_t(Z) * H * N);
    attn->interpret(grid, {q, k, v, out, m, scale, sz, sh, sm, sz, sh, sm, sz,
                           sh, sm, sz, sh, sm, H, N, dropP, seed})
        .value();
  }
  size_t wrong = 0, dropped = 0;
  for (int zh = 0; zh < Z * H; ++zh)
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) {
        bool keep = kept(seed, zh, N, i, j, threshold);
        dropped += !keep;
        float o = examples::fromHalf(out[size_t(zh) * N * D + size_t(i) * D + j]);
        wrong += keep != (o != 0.f);
      }
  std::printf("dropout mask (%d x %d x 2 heads, p = %.2f): %zu of %d dropped "
              "(%.3f), %zu differ from the host's%s\n",
              N, N, dropP, dropped, 2 * N * N, double(dropped) / (2 * N * N),
              wrong, wrong ? "  FAILED" : "");
  return wrong == 0;
}

} // namespace

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
  std::printf("%-16s %12s %10s\n", "mask", "max error", gpu ? "TFLOP/s" : "");
  bool ok = true;
  const float dropP = 0.1f;
  const int seed = 1234, threshold = int(dropP * 256.f + 0.5f);
  const char *modeName[] = {"none", "causal", "causal+dropout", "tuned"};
  // none, causal, causal with dropout; autotuned (not causal) on a GPU
  for (int mode : {0, 1, 2, 3}) {
    if (mode == 3 && !gpu)
      break;
    bool causal = mode == 1 || mode == 2, dropout = mode == 2,
         tuned = mode == 3;
    // The reference; dropout: the softmax's weights dropped or scaled.
    std::vector<double> ref;
    double keepScale = dropout ? 256.0 / (256 - threshold) : 1.0;
    examples::attentionReference(q, k, v, Z * H, N, D, causal, scale, ref,
                                 nullptr, [&](int zh, int i, int j, double w) {
                                   if (!dropout)
                                     return w;
                                   return kept(seed, zh, N, i, j, threshold)
                                              ? w * keepScale
                                              : 0.0;
                                 });
    kite::CompileOptions o;
    o.constants = {{"HEAD_DIM", D}, {"BLOCK_M", bm}, {"BLOCK_N", dropout ? std::max(bn, 64) : bn},
                   {"STAGE", causal ? 3 : 1}, {"DROPOUT", dropout ? 1 : 0}};
    if (!gpu)
      o.overrideNumWarps = 4;
    if (tuned) {
      // The tutorial's blocks (128 x 64 on 8 warps) and 64 x 64 on 4 warps.
      kite::TuningConfig big, small;
      big.constants = {{"BLOCK_M", 128}, {"BLOCK_N", 64}};
      big.numWarps = 8;
      small.constants = {{"BLOCK_M", 64}, {"BLOCK_N", 64}};
      small.numWarps = 4;
      o.autotuneConfigs = {big, small};
      o.autotuneKey = {"N_CTX"};
    }
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
      auto dm = kite::DeviceBuffer<float>::allocate(size_t(Z) * H * N).value();
      std::vector<kite::Arg> args = {dq, dk, dv, dout, dm, scale, sz, sh, sm, sz,
                                     sh, sm, sz, sh, sm, sz, sh, sm, H, N,
                                     dropP, seed};
      double ms;
      if (tuned) {
        auto gridOf = [&](const kite::TuningConfig &c) {
          return kite::Grid(
              uint32_t(kite::cdiv(N, int64_t(c.constants.at("BLOCK_M")))),
              uint32_t(Z * H));
        };
        kite::TuningConfig chosen = attn->tune(gridOf, args).value();
        std::printf("(tuned: %s)\n", chosen.str().c_str());
        ms = examples::timedLaunchMs(*attn, kite::Kernel::GridFn(gridOf), args);
      } else {
        ms = examples::timedLaunchMs(*attn, grid, args);
      }
      // Two products of 2 N^2 D flops each (half of them when causal).
      double flops = 4.0 * Z * H * double(N) * N * D * (causal ? 0.5 : 1);
      tflops = flops / ms / 1e9;
      out = dout.toHost().value();
    } else {
      std::vector<float> m(size_t(Z) * H * N);
      std::vector<kite::Arg> args = {q, k, v, out, m, scale, sz, sh, sm, sz,
                                     sh, sm, sz, sh, sm, sz, sh, sm, H, N,
                                     dropP, seed};
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
      std::printf("%-16s %12.2e %10.1f%s\n", modeName[mode], worst, tflops,
                  good ? "" : "  FAILED");
    else
      std::printf("%-16s %12.2e%s\n", modeName[mode], worst,
                  good ? "" : "  FAILED");
  }
  ok &= maskBitExact(gpu, seed, dropP, threshold);
  std::printf(ok ? "ok: within 1e-2 of float64\n" : "FAILED\n");
  return ok ? 0 : 1;
}
