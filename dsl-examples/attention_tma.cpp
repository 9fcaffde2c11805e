// Triton tutorial 06's forward as written for Hopper, from C++: K and V
// through host tensor descriptors (dsl-examples/attention_tma.kite), the
// kernel a tile a program (attn_fwd) and its persistent form
// (attn_fwd_persist, min(#SMs, tiles) programs walking the tiles), both
// with warp specialization (on sm_90a: TMA copies by a producer
// warpgroup), causal and not, on the GPU (or in the Kite interpreter where
// there is none), checked against a float64 softmax(Q K^T * scale) V of the
// same f16 inputs, and M (each row's log2 of the softmax denominator in the
// units of qk * scale * log2(e), plus its maximum) against the same.
//   attention_tma [Z H N_CTX HEAD_DIM]   (default 2 4 1000 128 on a GPU,
//                                         1 2 150 64 without; the float64
//                                         reference runs on one host core:
//                                         keep Z * H * N_CTX^2 small)
#include "common.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  bool gpu = examples::haveGPU();
  int Z = gpu ? 2 : 1, H = gpu ? 4 : 2, N = gpu ? 1000 : 150,
      D = gpu ? 128 : 64;
  if (argc == 5)
    Z = std::atoi(argv[1]), H = std::atoi(argv[2]), N = std::atoi(argv[3]),
    D = std::atoi(argv[4]);
  if (Z < 1 || H < 1 || N < 1 || (D != 64 && D != 128)) {
    std::fprintf(stderr,
                 "usage: attention_tma [Z H N_CTX HEAD_DIM] (HEAD_DIM 64 or "
                 "128)\n");
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
  // The tutorial's blocks on the GPU; smaller ones in the interpreter.
  const int bm = gpu ? 128 : 64, bn = gpu ? 64 : 32;
  const int64_t tiles = kite::cdiv(N, bm) * Z * H;
  const int programs =
      gpu ? int(std::min<int64_t>(kite::deviceMultiprocessors().value(), tiles))
          : 3;
  std::printf("attention forward, K and V through tensor descriptors, Z=%d "
              "H=%d N_CTX=%d HEAD_DIM=%d, blocks %dx%d, %s\n",
              Z, H, N, D, bm, bn, gpu ? "on the GPU" : "in the interpreter");
  std::printf("%-24s %12s %12s %10s\n", "kernel", "max error", "M error",
              gpu ? "TFLOP/s" : "");
  bool ok = true;
  for (bool causal : {false, true}) {
    // The reference: Out and M (log2 of the row's softmax denominator
    // plus its maximum, in base-2 units).
    std::vector<double> ref, refM;
    examples::attentionReference(q, k, v, Z * H, N, D, causal, scale, ref,
                                 &refM,
                                 [](int, int, int, double w) { return w; });
    for (bool persistent : {false, true}) {
      kite::CompileOptions o;
      o.kernel = persistent ? "attn_fwd_persist" : "attn_fwd";
      o.constants = {{"HEAD_DIM", D},
                     {"BLOCK_M", bm},
                     {"BLOCK_N", bn},
                     {"STAGE", causal ? 3 : 1}};
      o.warpSpecialize = true; // a producer warpgroup (sm_90a)
      if (!gpu)
        o.overrideNumWarps = 4;
      auto attn = kite::compileFile(examples::source("attention_tma.kite"), o);
      if (!attn) {
        std::fprintf(stderr, "%s\n", attn.error().str().c_str());
        return 1;
      }
      kite::Grid grid =
          persistent ? kite::Grid(uint32_t(programs))
                     : kite::Grid(uint32_t(kite::cdiv(N, bm)), uint32_t(Z * H));
      int sz = H * N * D, sh = N * D, sm = D;
      std::vector<uint16_t> out(n, 0x7e00); // NaN: never written
      std::vector<float> m(size_t(Z) * H * N, NAN);
      // K and V as [Z * H * N_CTX, HEAD_DIM] rows, blocks of BLOCK_N rows.
      auto describe = [&](const kite::Arg &base) {
        return kite::TensorDescriptor::create(base, {int64_t(Z) * H * N, D},
                                              {D, 1}, {bn, D});
      };
      auto run = [&](const kite::Arg &dq, const kite::Arg &dk,
                     const kite::Arg &dv, const kite::Arg &dout,
                     const kite::Arg &dm) -> kite::Expected<double> {
        auto descK = describe(dk);
        if (!descK)
          return descK.error();
        auto descV = describe(dv);
        if (!descV)
          return descV.error();
        std::vector<kite::Arg> args = {dq, *descK, *descV, dout, dm, scale,
                                       sz, sh,     sm,     sz,   sh, sm};
        if (persistent)
          args.push_back(Z);
        args.push_back(H);
        args.push_back(N);
        if (!gpu) {
          auto ran = attn->interpret(grid, args);
          if (!ran)
            return ran.error();
          return 0.0;
        }
        return examples::timedLaunchMs(*attn, grid, args);
      };
      double tflops = 0;
      if (gpu) {
        auto dq = kite::DeviceBuffer<uint16_t>::fromHost(q).value();
        auto dk = kite::DeviceBuffer<uint16_t>::fromHost(k).value();
        auto dv = kite::DeviceBuffer<uint16_t>::fromHost(v).value();
        auto dout = kite::DeviceBuffer<uint16_t>::fromHost(out).value();
        auto dm = kite::DeviceBuffer<float>::fromHost(m).value();
        auto ms = run(dq, dk, dv, dout, dm);
        if (!ms) {
          std::fprintf(stderr, "%s\n", ms.error().str().c_str());
          return 1;
        }
        // Two products of 2 N^2 D flops each (half of them when causal).
        double flops = 4.0 * Z * H * double(N) * N * D * (causal ? 0.5 : 1);
        tflops = flops / *ms / 1e9;
        out = dout.toHost().value();
        m = dm.toHost().value();
      } else {
        auto ran = run(kite::Arg::host(q.data(), q.size()),
                       kite::Arg::host(k.data(), k.size()),
                       kite::Arg::host(v.data(), v.size()),
                       kite::Arg::host(out.data(), out.size()),
                       kite::Arg::host(m.data(), m.size()));
        if (!ran) {
          std::fprintf(stderr, "%s\n", ran.error().str().c_str());
          return 1;
        }
      }
      double worst = 0, worstM = 0;
      for (size_t i = 0; i < n; ++i) {
        double d = std::fabs(examples::fromHalf(out[i]) - ref[i]);
        worst = std::isnan(d) ? INFINITY : std::max(worst, d);
      }
      for (size_t i = 0; i < m.size(); ++i) {
        double d = std::fabs(double(m[i]) - refM[i]);
        worstM = std::isnan(d) ? INFINITY : std::max(worstM, d);
      }
      // f16 P and Out round to 2^-11 relative; Triton's test allows 1e-2.
      bool good = worst <= 1e-2 && worstM <= 1e-3;
      ok &= good;
      std::string name =
          std::string(persistent ? "persistent" : "a tile a program") +
          (causal ? ", causal" : "");
      if (gpu)
        std::printf("%-24s %12.2e %12.2e %10.1f%s\n", name.c_str(), worst,
                    worstM, tflops, good ? "" : "  FAILED");
      else
        std::printf("%-24s %12.2e %12.2e%s\n", name.c_str(), worst, worstM,
                    good ? "" : "  FAILED");
    }
  }
  std::printf(ok ? "ok: within 1e-2 of float64 (M within 1e-3)\n" : "FAILED\n");
  return ok ? 0 : 1;
}
