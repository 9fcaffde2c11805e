// Triton tutorial 03 from C++: C = A x B with the tutorial's matmul kernel
// (grouped program order, masked K tail, optional leaky_relu), on the GPU
// (or in the Kite interpreter where there is none), for several block
// configurations, checked against a float64 product on the host.
//   matmul [M N K]     (default 1000 1000 1000 on a GPU, 150 130 100 without)
#include "common.h"

#include <cmath>
#include <random>
#include <vector>

struct Config {
  const char *name;
  int bm, bn, bk, group, activation;
  int warps = 0, stages = 0; // 0: the kernel's own (4 warps, 3 stages)
};

int main(int argc, char **argv) {
  bool gpu = examples::haveGPU();
  int M = gpu ? 1000 : 150, N = gpu ? 1000 : 130, K = gpu ? 1000 : 100;
  if (argc == 4)
    M = std::atoi(argv[1]), N = std::atoi(argv[2]), K = std::atoi(argv[3]);
  if (M < 1 || N < 1 || K < 1) {
    std::fprintf(stderr, "usage: matmul [M N K] (each >= 1)\n");
    return 2;
  }
  std::mt19937 rng(0);
  std::normal_distribution<float> g(0.f, 1.f);
  std::vector<float> a(size_t(M) * K), b(size_t(K) * N);
  for (float &v : a)
    v = g(rng);
  for (float &v : b)
    v = g(rng);
  // float64 reference, and its leaky_relu.
  std::vector<double> ref(size_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < N; ++j)
        ref[size_t(i) * N + j] += double(a[size_t(i) * K + k]) * b[size_t(k) * N + j];

  const Config configs[] = {
      {"defaults (64x64x32)", 64, 64, 32, 8, 0},
      {"128x128x32", 128, 128, 32, 8, 0},
      {"32x64x16, leaky_relu", 32, 64, 16, 4, 1},
      // Large problems: the fastest f32 blocks (16x8 register tiles).
      {"128x256x16, 8 warps", 128, 256, 16, 8, 0, 8, 2},
  };
  std::printf("C = A x B, %d x %d x %d, %s\n", M, N, K,
              gpu ? "on the GPU" : "in the interpreter");
  std::printf("%-24s %12s %10s\n", "blocks", "rel. error", gpu ? "TFLOP/s" : "");
  bool ok = true;
  for (const Config &c : configs) {
    kite::CompileOptions o;
    o.constants = {{"BLOCK_M", c.bm}, {"BLOCK_N", c.bn}, {"BLOCK_K", c.bk},
                   {"GROUP_SIZE_M", c.group}, {"ACTIVATION", c.activation}};
    o.overrideNumWarps = c.warps;
    o.overrideNumStages = c.stages;
    kite::Kernel mm = kite::compileFile(examples::source("matmul.kite"), o).value();
    uint32_t grid = kite::cdiv(M, c.bm) * kite::cdiv(N, c.bn);
    std::vector<float> out(size_t(M) * N, std::nanf(""));
    double tflops = 0;
    if (gpu) {
      auto da = kite::DeviceBuffer<float>::fromHost(a).value();
      auto db = kite::DeviceBuffer<float>::fromHost(b).value();
      auto dc = kite::DeviceBuffer<float>::fromHost(out).value();
      std::vector<kite::Arg> args = {da, db, dc, M, N, K, K, 1, N, 1, N, 1};
      double ms = examples::timedLaunchMs(mm, grid, args);
      tflops = 2.0 * M * double(N) * K / ms / 1e9;
      out = dc.toHost().value();
    } else {
      mm.interpret(grid, {a, b, out, M, N, K, K, 1, N, 1, N, 1}).value();
    }
    double num = 0, den = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      double r = c.activation && ref[i] < 0 ? 0.01 * ref[i] : ref[i];
      num += (out[i] - r) * (out[i] - r);
      den += r * r;
    }
    double err = std::sqrt(num / den);
    bool good = err <= 1e-5; // NaN (an element never written) fails too
    ok &= good;
    if (gpu)
      std::printf("%-24s %12.2e %10.1f%s\n", c.name, err, tflops,
                  good ? "" : "  FAILED");
    else
      std::printf("%-24s %12.2e%s\n", c.name, err, good ? "" : "  FAILED");
  }
  std::printf(ok ? "ok: every configuration within 1e-5 of float64\n"
                 : "FAILED\n");
  return ok ? 0 : 1;
}
