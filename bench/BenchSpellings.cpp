//===- BenchSpellings.cpp - Attention as users write it ------------------===//
//
// kite-bench's "spellings" part: tutorial 06's forward as users write it
// (bench/kernels/attention_spellings.py, one source for Kite and Triton):
// K read through pointers in the transposed order or loaded [BLOCK_N,
// HEAD_DIM] and passed through tl.trans, a mask on every iteration, tl.exp
// or tl.exp2; Kite types the file's unannotated parameters from the launch
// (f16 pointers, i32 strides and sizes, an f32 scale). Beside it, in the
// same process, dsl-examples/attention.kite's pointer form (the example's
// own spelling: exp2, the scale folded, masks only on a partial block) on
// the same inputs, whose output each spelling is checked against. Blocks
// 128x64 on 8 warps, Z = 4 x H = 32, not causal.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace kite;

namespace kitebench {

namespace {
float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f,
           man = h & 0x3ff, bits;
  if (exp == 0 && man == 0)
    bits = sign;
  else if (exp == 0) { // subnormal
    int e = -1;
    do {
      man <<= 1;
      ++e;
    } while (!(man & 0x400));
    bits = sign | uint32_t(127 - 15 - e) << 23 | (man & 0x3ff) << 13;
  } else if (exp == 31)
    bits = sign | 0x7f800000 | man << 13;
  else
    bits = sign | (exp + 127 - 15) << 23 | man << 13;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

void printRow(const std::string &spelling, int Z, int H, int N, int D,
              double ms, double maxDiff) {
  double flops = 4.0 * Z * H * double(N) * N * D;
  std::printf("{\"impl\": \"kite\", \"kernel\": \"attention (spelled)\", "
              "\"spelling\": \"%s\", \"Z\": %d, \"H\": %d, \"N_CTX\": %d, "
              "\"HEAD_DIM\": %d, \"us\": %.1f, \"tflops\": %.2f, "
              "\"max_diff\": %.4g}\n",
              spelling.c_str(), Z, H, N, D, ms * 1e3, flops / ms / 1e9,
              maxDiff);
  std::fflush(stdout);
}
} // namespace

void runSpellings() {
  if (!part("spellings"))
    return;
  Kernel fill = load("bench/fill.kite", "fill_f16");
  const int Z = 4, H = 32, BM = 128, BN = 64, warps = 8;
  std::vector<int> lengths =
      quick ? std::vector<int>{1024} : std::vector<int>{1024, 4096};
  for (int D : {64, 128})
    for (int N : lengths) {
      size_t n = size_t(Z) * H * N * D;
      uint64_t q = filled(fill, n, 2, 11), k = filled(fill, n, 2, 12),
               v = filled(fill, n, 2, 13);
      uint64_t out = deviceAlloc(n * 2).value();
      uint64_t mine = deviceAlloc(n * 2).value(); // the spellings' output
      uint64_t m = deviceAlloc(size_t(Z) * H * N * 4).value();
      synchronize().value();
      float scale = float(1 / std::sqrt(double(D)));
      int sz = H * N * D, sh = N * D, sm = D;
      Grid grid(uint32_t(cdiv(N, BM)), uint32_t(Z * H));

      // The example's own form: the reference output and time.
      CompileOptions eo;
      eo.constants = {{"HEAD_DIM", D}, {"STAGE", 1}, {"BLOCK_M", BM},
                      {"BLOCK_N", BN}, {"DROPOUT", 0}};
      eo.overrideNumWarps = warps;
      Kernel example = load("dsl-examples/attention.kite", "", eo);
      std::vector<Arg> eargs = {Arg::pointer(q), Arg::pointer(k),
                                Arg::pointer(v), Arg::pointer(out),
                                Arg::pointer(m), scale};
      for (int t = 0; t < 4; ++t)
        for (int stride : {sz, sh, sm})
          eargs.push_back(stride);
      eargs.insert(eargs.end(), {H, N, 0.1f, int32_t(1234)});
      double ms = timeMs([&] { example.launch(grid, eargs).value(); }, 10,
                         /*settle=*/true);
      std::vector<uint16_t> ref(n), got(n);
      copyToHost(ref.data(), out, n * 2).value();
      printRow("attention.kite", Z, H, N, D, ms, 0);

      auto f16 = [](uint64_t p) { return Arg::pointer(p, ScalarType::F16); };
      for (int transposed : {1, 0})
        for (int exp2 : {0, 1}) {
          CompileOptions o;
          o.constants = {{"HEAD_DIM", D},
                         {"BLOCK_M", BM},
                         {"BLOCK_N", BN},
                         {"K_TRANSPOSED_PTRS", transposed},
                         {"USE_EXP2", exp2}};
          o.overrideNumWarps = warps;
          Kernel spelled =
              load("bench/attention_spellings.py", "attn_fwd_spelled", o);
          // exp2 takes the scale in base 2, as a user switching to exp2
          // writes it.
          float s = exp2 ? float(scale * 1.4426950408889634) : scale;
          std::vector<Arg> args = {f16(q), f16(k), f16(v), f16(mine), s};
          for (int t = 0; t < 4; ++t)
            for (int stride : {sz, sh, sm, 1})
              args.push_back(int32_t(stride));
          args.insert(args.end(), {int32_t(H), int32_t(N)});
          // Noise where the output goes: a spelling that writes nothing
          // cannot pass the check.
          fill.launch(cdiv(n, 1024), {Arg::pointer(mine), int32_t(n), 99})
              .value();
          double sms = timeMs([&] { spelled.launch(grid, args).value(); }, 10,
                              /*settle=*/true);
          copyToHost(got.data(), mine, n * 2).value();
          double maxDiff = 0;
          for (size_t i = 0; i < n; ++i)
            maxDiff = std::max(maxDiff, double(std::fabs(
                                            halfToFloat(got[i]) -
                                            halfToFloat(ref[i]))));
          std::string name = std::string(transposed ? "K^T pointers" : "tl.trans(k)") +
                             (exp2 ? ", exp2" : ", exp");
          printRow(name, Z, H, N, D, sms, maxDiff);
          if (!(maxDiff < 2e-2))
            std::fprintf(stderr,
                         "attention (spelled) %s d%d N=%d: max |diff| %.4g "
                         "from attention.kite's output\n",
                         name.c_str(), D, N, maxDiff);
        }
      for (uint64_t p : {q, k, v, out, mine, m})
        deviceFree(p);
    }
}

} // namespace kitebench
