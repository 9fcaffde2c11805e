// fp8 matmul with per-tensor scales from C++ (dsl-examples/fp8_matmul.kite):
// A and B quantized to f8e4m3 on the host the usual way (scale = amax /
// 448, the largest e4m3 value; codes = fp8(x / scale), kite/Runtime/Fp8.h),
// C = (A_q x B_q) * scale_a * scale_b in bf16, as torch._scaled_mm. B is
// given N x K (K contiguous). Both kernel forms (pointer blocks; persistent
// with tensor descriptors) run on the GPU (wgmma fp8 on sm_90a) or in the
// Kite interpreter where there is none, checked against a float64 product
// of the same quantized values.
//   fp8_matmul [M N K]   (default 1000 1000 1008 on a GPU, 150 136 112
//                         without; K a multiple of 16 and N of 8: the
//                         descriptors' 16-byte rows)
#include "common.h"

#include "kite/Runtime/Fp8.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace {

/// `x` quantized to e4m3 with one scale for the whole tensor.
std::vector<uint8_t> quantize(const std::vector<float> &x, float &scale) {
  float amax = 0;
  for (float v : x)
    amax = std::max(amax, std::fabs(v));
  scale = amax > 0 ? amax / 448.f : 1.f;
  std::vector<uint8_t> q(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    q[i] = kite::fp8FromDouble(double(x[i]) / scale, kite::ScalarType::F8E4M3);
  return q;
}

double fromBF16(uint16_t bits) {
  uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

} // namespace

int main(int argc, char **argv) {
  bool gpu = examples::haveGPU();
  int M = gpu ? 1000 : 150, N = gpu ? 1000 : 136, K = gpu ? 1008 : 112;
  if (argc == 4)
    M = std::atoi(argv[1]), N = std::atoi(argv[2]), K = std::atoi(argv[3]);
  if (M < 1 || N < 1 || K < 1) {
    std::fprintf(stderr, "usage: fp8_matmul [M N K] (each >= 1)\n");
    return 2;
  }
  if (K % 16 || N % 8) {
    std::fprintf(stderr, "fp8_matmul: K must be a multiple of 16 and N of 8 "
                         "(16-byte rows for the descriptors), got K = %d, "
                         "N = %d\n", K, N);
    return 2;
  }
  std::mt19937 rng(0);
  std::normal_distribution<float> g(0.f, 1.f);
  std::vector<float> af(size_t(M) * K), bf(size_t(N) * K);
  for (float &v : af)
    v = g(rng);
  for (float &v : bf)
    v = 0.25f * g(rng);
  float scaleA, scaleB;
  std::vector<uint8_t> a = quantize(af, scaleA), b = quantize(bf, scaleB);
  // The reference: float64 of the dequantized values, B read N x K.
  std::vector<double> ad(a.size()), bd(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    ad[i] = kite::fp8ToDouble(a[i], kite::ScalarType::F8E4M3) * scaleA;
  for (size_t i = 0; i < b.size(); ++i)
    bd[i] = kite::fp8ToDouble(b[i], kite::ScalarType::F8E4M3) * scaleB;
  std::vector<double> ref(size_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k)
        s += ad[size_t(i) * K + k] * bd[size_t(j) * K + k];
      ref[size_t(i) * N + j] = s;
    }

  int sms = gpu ? kite::deviceMultiprocessors().value() : 4;
  int bm = gpu ? 128 : 64, bn = gpu ? 256 : 64, bk = gpu ? 128 : 32;
  uint32_t tiles = kite::cdiv(M, bm) * kite::cdiv(N, bn);
  std::printf("C = (A x B) * scale_a * scale_b, A and B in e4m3, C in bf16, "
              "%d x %d x %d, %ux%ux%u blocks, %s\n",
              M, N, K, bm, bn, bk, gpu ? "on the GPU" : "in the interpreter");
  std::printf("%-34s %12s %10s\n", "kernel", "rel. error", gpu ? "TFLOP/s" : "");
  bool ok = true;
  std::vector<float> sa = {scaleA}, sb = {scaleB};
  for (const char *name : {"matmul_fp8", "matmul_fp8_descriptor_persistent"}) {
    bool persistent = std::string(name) == "matmul_fp8_descriptor_persistent";
    kite::CompileOptions o;
    o.kernel = name;
    o.constants = {{"BLOCK_M", bm}, {"BLOCK_N", bn}, {"BLOCK_K", bk}};
    if (persistent)
      o.constants["NUM_SMS"] = sms;
    if (!gpu)
      o.overrideNumWarps = 4;
    auto mm = kite::compileFile(examples::source("fp8_matmul.kite"), o);
    if (!mm) {
      std::fprintf(stderr, "%s\n", mm.error().str().c_str());
      return 1;
    }
    uint32_t grid = persistent ? std::min<uint32_t>(uint32_t(sms), tiles) : tiles;
    std::vector<uint16_t> out(size_t(M) * N, 0x7fc0); // NaN: never written
    double tflops = 0;
    if (gpu) {
      auto da = kite::DeviceBuffer<uint8_t>::fromHost(a).value();
      auto db = kite::DeviceBuffer<uint8_t>::fromHost(b).value();
      auto dc = kite::DeviceBuffer<uint16_t>::fromHost(out).value();
      auto dsa = kite::DeviceBuffer<float>::fromHost(sa).value();
      auto dsb = kite::DeviceBuffer<float>::fromHost(sb).value();
      std::vector<kite::Arg> args = {da, db, dc, dsa, dsb, M, N, K};
      if (!persistent)
        args.insert(args.end(), {K, K, N});
      double ms = examples::timedLaunchMs(*mm, grid, args);
      tflops = 2.0 * M * double(N) * K / ms / 1e9;
      out = dc.toHost().value();
    } else {
      std::vector<kite::Arg> args = {a, b, out, sa, sb, M, N, K};
      if (!persistent)
        args.insert(args.end(), {K, K, N});
      auto run = mm->interpret(grid, args);
      if (!run) {
        std::fprintf(stderr, "%s\n", run.error().str().c_str());
        return 1;
      }
    }
    double num = 0, den = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      double d = fromBF16(out[i]) - ref[i];
      num += d * d;
      den += ref[i] * ref[i];
    }
    // bf16 rounds each element (2^-9 relative); the fp8 tensor cores add
    // products with fewer bits than f32 (about 1e-3 more).
    double err = std::sqrt(num / den);
    bool good = err <= 4e-3; // NaN (an element never written) fails too
    ok &= good;
    if (gpu)
      std::printf("%-34s %12.2e %10.1f%s\n", name, err, tflops,
                  good ? "" : "  FAILED");
    else
      std::printf("%-34s %12.2e%s\n", name, err, good ? "" : "  FAILED");
  }
  std::printf(ok ? "ok: both kernels within 4e-3 of float64\n" : "FAILED\n");
  return ok ? 0 : 1;
}
