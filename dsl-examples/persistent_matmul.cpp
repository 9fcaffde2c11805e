// Triton tutorial 09 from C++: the persistent matmul (one program per SM
// looping over the output tiles), f16 inputs and output with f32
// accumulation, in its two forms (pointer blocks; tensor descriptors: TMA
// on sm_90a; and in clusters of two programs that share B's blocks, TMA
// multicast), on the GPU (or in the Kite interpreter where there is none),
// checked against a float64 product of the same f16 inputs.
//   persistent_matmul [M N K]   (default 1000 1000 1000 on a GPU, 150 136 104
//                                without: blocks of 64 x 64 x 32 there)
#include "common.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  bool gpu = examples::haveGPU();
  int M = gpu ? 1000 : 150, N = gpu ? 1000 : 136, K = gpu ? 1000 : 104;
  if (argc == 4)
    M = std::atoi(argv[1]), N = std::atoi(argv[2]), K = std::atoi(argv[3]);
  if (M < 1 || N < 1 || K < 1) {
    std::fprintf(stderr, "usage: persistent_matmul [M N K] (each >= 1)\n");
    return 2;
  }
  // Tensor descriptors need 16-byte row strides: K and N multiples of 8.
  if (K % 8 || N % 8) {
    std::fprintf(stderr, "persistent_matmul: K and N must be multiples of 8 "
                         "(16-byte rows for the descriptors), got K = %d, "
                         "N = %d\n", K, N);
    return 2;
  }
  std::mt19937 rng(0);
  std::normal_distribution<float> g(0.f, 1.f);
  std::vector<uint16_t> a(size_t(M) * K), b(size_t(K) * N);
  for (uint16_t &v : a)
    v = examples::toHalf(g(rng));
  for (uint16_t &v : b)
    v = examples::toHalf(g(rng));
  std::vector<double> ref(size_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      double av = examples::fromHalf(a[size_t(i) * K + k]);
      for (int j = 0; j < N; ++j)
        ref[size_t(i) * N + j] += av * examples::fromHalf(b[size_t(k) * N + j]);
    }

  // One program per SM (a few in the interpreter), never more than tiles.
  int sms = gpu ? kite::deviceMultiprocessors().value() : 4;
  int bm = gpu ? 128 : 64, bn0 = gpu ? 256 : 64, bk = gpu ? 64 : 32;
  uint32_t tiles = kite::cdiv(M, bm) * kite::cdiv(N, bn0);
  std::printf("C = A x B in f16, %d x %d x %d, %ux%ux%u blocks (ping-pong: "
              "%ux%ux%u a group), %u programs over %u tiles, %s\n",
              M, N, K, bm, bn0, bk, bm, gpu ? 128 : bn0, bk,
              std::min<uint32_t>(uint32_t(sms), tiles), tiles,
              gpu ? "on the GPU" : "in the interpreter");
  std::printf("%-46s %12s %10s\n", "kernel", "rel. error",
              gpu ? "TFLOP/s" : "");
  bool ok = true;
  for (const char *name : {"matmul_persistent", "matmul_descriptor_persistent",
                           "matmul_descriptor_persistent_cluster",
                           "matmul_descriptor_persistent_ping_pong",
                           "matmul_descriptor_persistent_ping_pong_cluster"}) {
    bool descriptors = std::string(name) != "matmul_persistent";
    // Clusters of two programs: an even grid, each cluster taking pairs of
    // tiles (one above the other).
    bool clustered = std::string(name).find("_cluster") != std::string::npos;
    // Ping-pong: two groups of 4 warps, each a whole 128x128 tile on the
    // GPU.
    bool pingPong = std::string(name).find("_ping_pong") != std::string::npos;
    int bn = gpu && pingPong ? 128 : bn0;
    uint32_t grid = std::min<uint32_t>(uint32_t(sms),
                                       kite::cdiv(M, bm) * kite::cdiv(N, bn));
    int programs = clustered ? sms / 2 * 2 : sms;
    uint32_t launched =
        clustered ? std::min<uint32_t>(uint32_t(programs),
                                       2 * kite::cdiv(kite::cdiv(M, bm), 2) *
                                           kite::cdiv(N, bn))
                  : grid;
    kite::CompileOptions o;
    o.kernel = name;
    o.constants = {{"BLOCK_M", bm},
                   {"BLOCK_N", bn},
                   {"BLOCK_K", bk},
                   {"NUM_SMS", programs}};
    if (!gpu)
      o.overrideNumWarps = 4;
    kite::Kernel mm =
        kite::compileFile(examples::source("persistent_matmul.kite"), o).value();
    std::vector<uint16_t> out(size_t(M) * N, 0x7e00); // NaN: never written
    double tflops = 0;
    if (gpu) {
      auto da = kite::DeviceBuffer<uint16_t>::fromHost(a).value();
      auto db = kite::DeviceBuffer<uint16_t>::fromHost(b).value();
      auto dc = kite::DeviceBuffer<uint16_t>::fromHost(out).value();
      std::vector<kite::Arg> args = {da, db, dc, M, N, K};
      if (!descriptors)
        args.insert(args.end(), {K, 1, N, 1, N, 1});
      if (clustered) {
        // The programs that run at once, whole clusters (the driver's
        // occupancy): the persistent grid, and NUM_SMS with it.
        int active = mm.maxActivePrograms(args).value();
        if (active != programs) {
          std::printf("(%d programs run at once in clusters of 2)\n", active);
          o.constants["NUM_SMS"] = programs = active;
          mm = kite::compileFile(examples::source("persistent_matmul.kite"), o)
                   .value();
          launched = std::min<uint32_t>(uint32_t(programs),
                                        2 * kite::cdiv(kite::cdiv(M, bm), 2) *
                                            kite::cdiv(N, bn));
        }
      }
      double ms = examples::timedLaunchMs(mm, launched, args);
      tflops = 2.0 * M * double(N) * K / ms / 1e9;
      out = dc.toHost().value();
    } else {
      std::vector<kite::Arg> args = {a, b, out, M, N, K};
      if (!descriptors)
        args.insert(args.end(), {K, 1, N, 1, N, 1});
      mm.interpret(launched, args).value();
    }
    double num = 0, den = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      double d = examples::fromHalf(out[i]) - ref[i];
      num += d * d;
      den += ref[i] * ref[i];
    }
    // The f16 output rounds each element (2^-11 relative).
    double err = std::sqrt(num / den);
    bool good = err <= 1e-3; // NaN (an element never written) fails too
    ok &= good;
    if (gpu)
      std::printf("%-46s %12.2e %10.1f%s\n", name, err, tflops,
                  good ? "" : "  FAILED");
    else
      std::printf("%-46s %12.2e%s\n", name, err, good ? "" : "  FAILED");
  }
  std::printf(ok ? "ok: all kernels within 1e-3 of float64\n" : "FAILED\n");
  return ok ? 0 : 1;
}
