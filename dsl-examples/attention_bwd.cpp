// Triton tutorial 06's backward from C++: the attention forward
// (dsl-examples/attention.kite, which also writes M, each row's log2 of
// the softmax denominator), then the backward (attention_bwd.kite:
// attn_bwd_preprocess for Delta = rowsum(dO * Out), attn_bwd for dQ, dK and
// dV), causal and not, f16, on the GPU (or in the Kite interpreter where
// there is none), checked against a float64 backward of the same f16
// inputs: dV = P^T dO, dS = P * (dO V^T - Delta), dQ = dS K * scale,
// dK = dS^T Q * scale.
//   attention_bwd [Z H N_CTX HEAD_DIM]   (default 2 4 1000 64 on a GPU,
//                                         1 2 200 64 without)
#include "common.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace {

using F16 = std::vector<uint16_t>;

double maxError(const F16 &got, const std::vector<double> &want) {
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double d = std::fabs(examples::fromHalf(got[i]) - want[i]);
    worst = std::isnan(d) ? INFINITY : std::max(worst, d);
  }
  return worst;
}

double maxError(const std::vector<float> &got, const std::vector<double> &want) {
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double d = std::fabs(got[i] - want[i]);
    worst = std::isnan(d) ? INFINITY : std::max(worst, d);
  }
  return worst;
}

/// The float64 forward and backward of one (batch, head): M (log2 of each
/// row's softmax denominator of s = q k^T * scale), dQ, dK, dV.
void reference(const uint16_t *q, const uint16_t *k, const uint16_t *v,
               const uint16_t *dO, int N, int D, double scale, bool causal,
               double *m, double *dq, double *dk, double *dv) {
  auto h = [](uint16_t x) { return double(examples::fromHalf(x)); };
  std::vector<double> p(size_t(N) * N, 0.0), o(size_t(N) * D, 0.0);
  for (int i = 0; i < N; ++i) {
    int last = causal ? i : N - 1;
    double mx = -INFINITY;
    for (int j = 0; j <= last; ++j) {
      double s = 0;
      for (int c = 0; c < D; ++c)
        s += h(q[size_t(i) * D + c]) * h(k[size_t(j) * D + c]);
      p[size_t(i) * N + j] = s * scale;
      mx = std::max(mx, s * scale);
    }
    double sum = 0;
    for (int j = 0; j <= last; ++j)
      sum += (p[size_t(i) * N + j] = std::exp(p[size_t(i) * N + j] - mx));
    for (int j = 0; j <= last; ++j)
      p[size_t(i) * N + j] /= sum;
    m[i] = (mx + std::log(sum)) / std::log(2.0);
    for (int j = 0; j <= last; ++j)
      for (int c = 0; c < D; ++c)
        o[size_t(i) * D + c] += p[size_t(i) * N + j] * h(v[size_t(j) * D + c]);
  }
  std::fill(dq, dq + size_t(N) * D, 0.0);
  std::fill(dk, dk + size_t(N) * D, 0.0);
  std::fill(dv, dv + size_t(N) * D, 0.0);
  std::vector<double> ds(N);
  for (int i = 0; i < N; ++i) {
    int last = causal ? i : N - 1;
    double delta = 0;
    for (int c = 0; c < D; ++c)
      delta += h(dO[size_t(i) * D + c]) * o[size_t(i) * D + c];
    for (int j = 0; j <= last; ++j) {
      double pij = p[size_t(i) * N + j], dp = 0;
      for (int c = 0; c < D; ++c) {
        dp += h(dO[size_t(i) * D + c]) * h(v[size_t(j) * D + c]);
        dv[size_t(j) * D + c] += pij * h(dO[size_t(i) * D + c]);
      }
      ds[j] = pij * (dp - delta);
    }
    for (int j = 0; j <= last; ++j)
      for (int c = 0; c < D; ++c) {
        dq[size_t(i) * D + c] += ds[j] * h(k[size_t(j) * D + c]) * scale;
        dk[size_t(j) * D + c] += ds[j] * h(q[size_t(i) * D + c]) * scale;
      }
  }
}

} // namespace

int main(int argc, char **argv) {
  bool gpu = examples::haveGPU();
  int Z = gpu ? 2 : 1, H = gpu ? 4 : 2, N = gpu ? 1000 : 200, D = 64;
  if (argc == 5)
    Z = std::atoi(argv[1]), H = std::atoi(argv[2]), N = std::atoi(argv[3]),
    D = std::atoi(argv[4]);
  if (Z < 1 || H < 1 || N < 1 || (D != 16 && D != 32 && D != 64 && D != 128)) {
    std::fprintf(stderr, "usage: attention_bwd [Z H N_CTX HEAD_DIM] "
                         "(HEAD_DIM 16, 32, 64 or 128)\n");
    return 2;
  }
  size_t n = size_t(Z) * H * N * D, rows = size_t(Z) * H * N;
  std::mt19937 rng(0);
  std::normal_distribution<float> g(0.f, 1.f);
  F16 q(n), k(n), v(n), dO(n);
  for (auto *t : {&q, &k, &v})
    for (uint16_t &x : *t)
      x = examples::toHalf(0.5f * g(rng));
  for (uint16_t &x : dO)
    x = examples::toHalf(g(rng));
  const float scale = 1.f / std::sqrt(float(D));
  // The forward's blocks (attention.kite) and the backward's (its
  // defaults: 32 x 64 for dK/dV, 64 x 32 for dQ).
  int bm = gpu ? 128 : 64, bn = gpu ? 64 : 32, bwdBlock = 64;
  std::printf("attention backward, Z=%d H=%d N_CTX=%d HEAD_DIM=%d, %s\n", Z,
              H, N, D, gpu ? "on the GPU" : "in the interpreter");
  std::printf("%-8s %10s %10s %10s %10s %10s\n", "mask", "M", "dQ", "dK",
              "dV", gpu ? "TFLOP/s" : "");
  bool ok = true;
  for (bool causal : {false, true}) {
    std::vector<double> mRef(rows), dqRef(n), dkRef(n), dvRef(n);
    for (size_t zh = 0; zh < size_t(Z) * H; ++zh) {
      size_t b = zh * N * D;
      reference(&q[b], &k[b], &v[b], &dO[b], N, D, scale, causal,
                &mRef[zh * N], &dqRef[b], &dkRef[b], &dvRef[b]);
    }
    auto compile = [&](const char *file, const char *kernel,
                       std::map<std::string, double> constants) {
      kite::CompileOptions o;
      o.kernel = kernel;
      o.constants = std::move(constants);
      if (!gpu)
        o.overrideNumWarps = 4;
      auto compiled = kite::compileFile(examples::source(file), o);
      if (!compiled) {
        std::fprintf(stderr, "%s\n", compiled.error().str().c_str());
        std::exit(1);
      }
      return std::move(*compiled);
    };
    kite::Kernel fwd = compile("attention.kite", "attn_fwd",
                               {{"HEAD_DIM", D}, {"BLOCK_M", bm},
                                {"BLOCK_N", bn}, {"STAGE", causal ? 3 : 1}});
    kite::Kernel pre = compile("attention_bwd.kite", "attn_bwd_preprocess",
                               {{"HEAD_DIM", D}, {"BLOCK_M", bwdBlock}});
    // Head dim 64: 64 x 64 blocks (1.00-1.07x Triton's tutorial on the
    // H100 where 32 x 64 gave 0.92-0.96x); 128: 32 x 64 (64 x 64 spills).
    int bwdRows = D <= 64 ? 64 : 32;
    kite::Kernel bwd = compile("attention_bwd.kite", "attn_bwd",
                               {{"HEAD_DIM", D}, {"CAUSAL", causal ? 1 : 0},
                                {"BLOCK_M1", bwdRows}, {"BLOCK_N2", bwdRows}});
    kite::Grid fwdGrid(uint32_t(kite::cdiv(N, bm)), uint32_t(Z * H));
    kite::Grid bwdGrid(uint32_t(kite::cdiv(N, bwdBlock)), uint32_t(Z * H));
    int sz = H * N * D, sh = N * D, sm = D;
    F16 out(n), dq(n, 0x7e00), dk(n, 0x7e00), dv(n, 0x7e00); // NaN: unwritten
    std::vector<float> m(rows), delta(rows);
    double tflops = 0;
    if (gpu) {
      auto bq = kite::DeviceBuffer<uint16_t>::fromHost(q).value();
      auto bk = kite::DeviceBuffer<uint16_t>::fromHost(k).value();
      auto bv = kite::DeviceBuffer<uint16_t>::fromHost(v).value();
      auto bdo = kite::DeviceBuffer<uint16_t>::fromHost(dO).value();
      auto bout = kite::DeviceBuffer<uint16_t>::fromHost(out).value();
      auto bdq = kite::DeviceBuffer<uint16_t>::fromHost(dq).value();
      auto bdk = kite::DeviceBuffer<uint16_t>::fromHost(dk).value();
      auto bdv = kite::DeviceBuffer<uint16_t>::fromHost(dv).value();
      auto bm_ = kite::DeviceBuffer<float>::allocate(rows).value();
      auto bdelta = kite::DeviceBuffer<float>::allocate(rows).value();
      fwd.launch(fwdGrid, {bq, bk, bv, bout, bm_, scale, sz, sh, sm, sz, sh,
                           sm, sz, sh, sm, sz, sh, sm, H, N, 0.f, 0})
          .value();
      pre.launch(bwdGrid, {bout, bdo, bdelta, N}).value();
      std::vector<kite::Arg> args = {bq, bk, bv, scale, bdo, bdq, bdk, bdv,
                                     bm_, bdelta, H, N};
      double ms = examples::timedLaunchMs(bwd, bwdGrid, args);
      // Five products of 2 N^2 D flops each (recomputing q k^T: the
      // tutorial's count, 2.5x the forward's two), half when causal.
      double flops = 10.0 * Z * H * double(N) * N * D * (causal ? 0.5 : 1);
      tflops = flops / ms / 1e9;
      m = bm_.toHost().value();
      dq = bdq.toHost().value();
      dk = bdk.toHost().value();
      dv = bdv.toHost().value();
    } else {
      auto run = [&](kite::Kernel &kernel, kite::Grid grid,
                     std::vector<kite::Arg> args) {
        auto r = kernel.interpret(grid, args);
        if (!r) {
          std::fprintf(stderr, "%s\n", r.error().str().c_str());
          std::exit(1);
        }
      };
      run(fwd, fwdGrid, {q, k, v, out, m, scale, sz, sh, sm, sz, sh, sm, sz,
                         sh, sm, sz, sh, sm, H, N, 0.f, 0});
      run(pre, bwdGrid, {out, dO, delta, N});
      run(bwd, bwdGrid, {q, k, v, scale, dO, dq, dk, dv, m, delta, H, N});
    }
    double em = maxError(m, mRef), eq = maxError(dq, dqRef),
           ek = maxError(dk, dkRef), ev = maxError(dv, dvRef);
    // Triton's test of the tutorial allows 1e-2 on the gradients; M is
    // f32 (log2 approximate).
    bool good = em <= 1e-3 && eq <= 1e-2 && ek <= 1e-2 && ev <= 1e-2;
    ok &= good;
    std::printf("%-8s %10.2e %10.2e %10.2e %10.2e", causal ? "causal" : "none",
                em, eq, ek, ev);
    if (gpu)
      std::printf(" %10.1f", tflops);
    std::printf("%s\n", good ? "" : "  FAILED");
  }
  std::printf(ok ? "ok: within 1e-2 of float64\n" : "FAILED\n");
  return ok ? 0 : 1;
}
