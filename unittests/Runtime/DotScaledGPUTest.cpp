//===- DotScaledGPUTest.cpp - dot_scaled on the GPU -----------------------===//
//
// Triton's dot_scaled (microscaled operands: fp8 e4m3 / e5m2, fp4 e2m1 two
// a byte, bf16; e8m0 scales per 32 elements along K) on the GPU and in the
// interpreter against a float64 reference that decodes every format by
// hand. The products are exact (fp8 / fp4 times a power of two in bf16), so
// the only error is the f32 accumulation. Then dots whose operands are
// computed from loads in a K loop, which kite-stage-dot-operands stages
// ahead through shared memory (docs/lowering.md, "Staged loads"): mxfp8
// through dot_scaled, int8 weights converted to f16 (W8A16), and f32 /
// int8 blocks behind K-tail masks. Skipped without a GPU.
//
//===----------------------------------------------------------------------===//

#include "GPUTestHelpers.h"
#include "TestHelpers.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>

using namespace kite;
using namespace kite::test;

namespace {

/// The value of fp8 / fp4 bits (e4m3fn, e5m2, e2m1).
double decodeMini(unsigned bits, int expBits, int manBits, bool finiteOnly) {
  int bias = (1 << (expBits - 1)) - 1;
  unsigned sign = (bits >> (expBits + manBits)) & 1;
  unsigned e = (bits >> manBits) & ((1u << expBits) - 1);
  unsigned m = bits & ((1u << manBits) - 1);
  double v;
  if (!finiteOnly && e == (1u << expBits) - 1)
    v = m ? NAN : INFINITY;
  else if (e == 0)
    v = std::ldexp(double(m), 1 - bias - manBits);
  else
    v = std::ldexp(1.0 + double(m) / (1 << manBits), int(e) - bias);
  return sign ? -v : v;
}

struct Format {
  const char *name, *type; // dot_scaled's format, the kernel's element type
  bool packed;             // e2m1: two a byte
};

/// Element (r, c) of an operand of logical shape rows x cols stored per
/// `f` (fp4 packed along K: the lhs's columns, the rhs's rows).
double valueAt(const Format &f, const std::vector<uint16_t> &raw, bool lhs,
               int rows, int cols, int r, int c) {
  std::string n = f.name;
  if (n == "e2m1") {
    uint8_t byte = lhs ? uint8_t(raw[size_t(r) * (cols / 2) + c / 2])
                       : uint8_t(raw[size_t(r / 2) * cols + c]);
    unsigned nib = ((lhs ? c : r) % 2) ? byte >> 4 : byte & 15;
    return decodeMini(nib, 2, 1, true);
  }
  uint16_t v = raw[size_t(r) * cols + c];
  if (n == "e4m3")
    return decodeMini(v, 4, 3, true);
  if (n == "e5m2")
    return decodeMini(v, 5, 2, false);
  return fromHalfBits(v, /*bf16=*/true);
}

} // namespace

TEST(GPU, DotScaled) {
  REQUIRE_GPU();
  const char *src = R"(
@kernel(num_warps=4)
def ds(A: *TA, SA: *u8, B: *TB, SB: *u8, C: *f32, M: constexpr, N: constexpr,
       K: constexpr, KA: constexpr, KB: constexpr):
    a = load(A + arange(0, M)[:, None] * KA + arange(0, KA)[None, :])
    b = load(B + arange(0, KB)[:, None] * N + arange(0, N)[None, :])
    sa = load(SA + arange(0, M)[:, None] * (K // 32) + arange(0, K // 32)[None, :])
    sb = load(SB + arange(0, N)[:, None] * (K // 32) + arange(0, K // 32)[None, :])
    c = dot_scaled(a, sa, "FA", b, sb, "FB")
    store(C + arange(0, M)[:, None] * N + arange(0, N)[None, :], c)
)";
  const Format e4m3{"e4m3", "u8", false}, e5m2{"e5m2", "f8e5m2", false},
      e2m1{"e2m1", "u8", true}, bf16{"bf16", "bf16", false};
  struct Case {
    Format a, b;
  };
  const int M = 64, N = 64, K = 128;
  std::mt19937 gen(2027);
  for (Case c : {Case{e4m3, e4m3}, Case{e5m2, e5m2}, Case{e2m1, e2m1},
                 Case{e4m3, e2m1}, Case{bf16, e4m3}}) {
    std::string s = src;
    auto put = [&](const std::string &key, const std::string &v) {
      s.replace(s.find(key), key.size(), v);
    };
    put("TA", c.a.type);
    put("TB", c.b.type);
    put("FA", c.a.name);
    put("FB", c.b.name);
    int ka = c.a.packed ? K / 2 : K, kb = c.b.packed ? K / 2 : K;
    CompileOptions o;
    o.constants = {{"M", M}, {"N", N}, {"K", K}, {"KA", ka}, {"KB", kb}};
    auto k = compileKite(s, o, "dot_scaled.kite");
    ASSERT_TRUE(k) << k.error().str();
    // Raw elements (bytes or bf16 bits), no NaN or infinity codes.
    auto raw = [&](const Format &f, size_t count) {
      std::vector<uint16_t> v(count);
      for (uint16_t &x : v) {
        std::string n = f.name;
        if (n == "bf16") {
          x = toHalfBits(std::normal_distribution<float>(0, 2)(gen), true);
          continue;
        }
        do
          x = uint16_t(gen() & 0xFF);
        while ((n == "e4m3" && (x & 0x7F) == 0x7F) ||
               (n == "e5m2" && ((x >> 2) & 31) == 31));
      }
      return v;
    };
    std::vector<uint16_t> ra = raw(c.a, size_t(M) * ka);
    std::vector<uint16_t> rb = raw(c.b, size_t(kb) * N);
    std::vector<uint8_t> sa(size_t(M) * K / 32), sb(size_t(N) * K / 32);
    for (uint8_t &x : sa)
      x = uint8_t(120 + gen() % 14);
    for (uint8_t &x : sb)
      x = uint8_t(120 + gen() % 14);
    auto bytesOf = [](const std::vector<uint16_t> &v) {
      return std::vector<uint8_t>(v.begin(), v.end());
    };
    double worst = 0, worstInterp = 0;
    std::vector<float> host(size_t(M) * N);
    auto run = [&](auto da, auto db) {
      auto dsa = DeviceBuffer<uint8_t>::fromHost(sa).value();
      auto dsb = DeviceBuffer<uint8_t>::fromHost(sb).value();
      auto dc = DeviceBuffer<float>::allocate(size_t(M) * N).value();
      auto ran = k->launch(1, {Arg(da), Arg(dsa), Arg(db), Arg(dsb), Arg(dc)});
      ASSERT_TRUE(ran) << ran.error().str();
      auto got = dc.toHost().value();
      for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
          double ref = 0, mag = 0;
          for (int kk = 0; kk < K; ++kk) {
            double x = valueAt(c.a, ra, true, M, K, m, kk) *
                       std::ldexp(1.0, int(sa[m * (K / 32) + kk / 32]) - 127);
            double y = valueAt(c.b, rb, false, K, N, kk, n) *
                       std::ldexp(1.0, int(sb[n * (K / 32) + kk / 32]) - 127);
            ref += x * y;
            mag += std::fabs(x * y);
          }
          worst =
              std::max(worst, std::fabs(got[m * N + n] - ref) / (mag + 1e-30));
          worstInterp = std::max(worstInterp, std::fabs(host[m * N + n] - ref) /
                                                  (mag + 1e-30));
        }
    };
    std::string what = std::string(c.a.name) + " x " + c.b.name;
    // The interpreter first (host buffers), then the GPU.
    if (std::string(c.a.name) == "bf16") {
      std::vector<uint16_t> ha(ra);
      std::vector<uint8_t> hb = bytesOf(rb), hsa(sa), hsb(sb);
      ASSERT_TRUE(k->interpret(1, {ha, hsa, hb, hsb, host})) << what;
      run(DeviceBuffer<uint16_t>::fromHost(ra).value(),
          DeviceBuffer<uint8_t>::fromHost(hb).value());
    } else {
      std::vector<uint8_t> ha = bytesOf(ra), hb = bytesOf(rb), hsa(sa), hsb(sb);
      ASSERT_TRUE(k->interpret(1, {ha, hsa, hb, hsb, host})) << what;
      run(DeviceBuffer<uint8_t>::fromHost(ha).value(),
          DeviceBuffer<uint8_t>::fromHost(hb).value());
    }
    // f32 accumulation of exact products over K = 128.
    EXPECT_LT(worst, 1e-5) << what << " on the GPU";
    EXPECT_LT(worstInterp, 1e-5) << what << " in the interpreter";
  }
}

// Tutorial 03's matmul on mxfp8 through dot_scaled in a K loop (as
// bench/kernels/matmul_mxfp8.kite, C masked): the loop stages its e4m3
// bytes through shared memory with cp.async ahead of the conversions and
// carries the scales one iteration ahead in registers (kite-stage-dot-
// operands, docs/lowering.md "Staged loads"), on 4 and 8 warps (wgmma) and
// compiled for sm_89 (mma.sync; the H100 runs its PTX), at sizes
// that are not multiples of the blocks, against a float64 reference; C is
// bf16 (its rounding: 2^-8 of the value).
TEST(GPU, DotScaledKLoop) {
  REQUIRE_GPU();
  const char *src = R"(
@kernel(num_warps=4, num_stages=3)
def mm(a_ptr: *u8, a_scale: *u8, b_ptr: *u8, b_scale: *u8, c_ptr: *bf16,
       M: i32, N: i32, K: i32, BLOCK_M: constexpr = 128,
       BLOCK_N: constexpr = 128, BLOCK_K: constexpr = 64):
    pid_m = program_id(0)
    pid_n = program_id(1)
    offs_m = (pid_m * BLOCK_M + arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + arange(0, BLOCK_N)) % N
    offs_k = arange(0, BLOCK_K)
    offs_s = arange(0, BLOCK_K // 32)
    acc = zeros((BLOCK_M, BLOCK_N), f32)
    for k in range(0, cdiv(K, BLOCK_K)):
        a = load(a_ptr + offs_m[:, None] * K + (k * BLOCK_K + offs_k)[None, :])
        b = load(b_ptr + (k * BLOCK_K + offs_k)[:, None] * N + offs_n[None, :])
        sa = load(a_scale + offs_m[:, None] * (K // 32)
                  + (k * (BLOCK_K // 32) + offs_s)[None, :])
        sb = load(b_scale + offs_n[:, None] * (K // 32)
                  + (k * (BLOCK_K // 32) + offs_s)[None, :])
        acc = dot_scaled(a, sa, "e4m3", b, sb, "e4m3", acc)
    rows = pid_m * BLOCK_M + arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + arange(0, BLOCK_N)
    store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(bf16),
          mask=(rows[:, None] < M) & (cols[None, :] < N))
)";
  const int M = 200, N = 144, K = 320;
  std::mt19937 gen(2028);
  std::vector<uint8_t> a(size_t(M) * K), b(size_t(K) * N);
  for (auto *v : {&a, &b})
    for (uint8_t &x : *v)
      do
        x = uint8_t(gen() & 0xFF);
      while ((x & 0x7F) == 0x7F); // no NaN
  std::vector<uint8_t> sa(size_t(M) * K / 32), sb(size_t(N) * K / 32);
  for (auto *v : {&sa, &sb})
    for (uint8_t &x : *v)
      x = uint8_t(120 + gen() % 14);
  std::vector<double> ref(size_t(M) * N), mag(size_t(M) * N);
  for (int m = 0; m < M; ++m)
    for (int kk = 0; kk < K; ++kk) {
      double x = decodeMini(a[size_t(m) * K + kk], 4, 3, true) *
                 std::ldexp(1.0, int(sa[m * (K / 32) + kk / 32]) - 127);
      for (int n = 0; n < N; ++n) {
        double p = x * decodeMini(b[size_t(kk) * N + n], 4, 3, true) *
                   std::ldexp(1.0, int(sb[n * (K / 32) + kk / 32]) - 127);
        ref[size_t(m) * N + n] += p;
        mag[size_t(m) * N + n] += std::fabs(p);
      }
    }
  auto da = DeviceBuffer<uint8_t>::fromHost(a).value();
  auto db = DeviceBuffer<uint8_t>::fromHost(b).value();
  auto dsa = DeviceBuffer<uint8_t>::fromHost(sa).value();
  auto dsb = DeviceBuffer<uint8_t>::fromHost(sb).value();
  struct Config {
    int bm, bn, bk, warps;
    const char *chip; // "": the device's (wgmma on an H100); sm_89: mma.sync
  };
  for (Config cfg :
       {Config{128, 128, 64, 4, ""}, Config{128, 128, 32, 8, ""},
        Config{128, 256, 32, 8, ""}, Config{128, 128, 64, 8, "sm_89"}}) {
    std::string what = std::to_string(cfg.bm) + "x" + std::to_string(cfg.bn) +
                       "x" + std::to_string(cfg.bk) + " w" +
                       std::to_string(cfg.warps) + " " + cfg.chip;
    CompileOptions o;
    o.constants = {
        {"BLOCK_M", cfg.bm}, {"BLOCK_N", cfg.bn}, {"BLOCK_K", cfg.bk}};
    o.overrideNumWarps = cfg.warps;
    o.chip = cfg.chip;
    auto k = compileKite(src, o, "mxfp8.kite");
    ASSERT_TRUE(k) << what << ": " << k.error().str();
    auto dc = DeviceBuffer<uint16_t>::allocate(size_t(M) * N).value();
    auto ran = k->launch({uint32_t((M + cfg.bm - 1) / cfg.bm),
                          uint32_t((N + cfg.bn - 1) / cfg.bn), 1},
                         {Arg(da), Arg(dsa), Arg(db), Arg(dsb), Arg(dc), M, N,
                          K});
    ASSERT_TRUE(ran) << what << ": " << ran.error().str();
    auto got = dc.toHost().value();
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      double v = fromHalfBits(got[i], /*bf16=*/true);
      worst = std::max(worst, std::fabs(v - ref[i]) /
                                  (std::fabs(ref[i]) / 256 + mag[i] * 1e-6 +
                                   1e-30));
    }
    // Within bf16's rounding of the result plus the f32 accumulation.
    EXPECT_LE(worst, 1.0) << what;
  }
}

// A matmul with int8 weights converted to f16 in the K loop (W8A16,
// bench/kernels/matmul_w8a16.kite): the byte blocks staged ahead of their
// conversion (kite-stage-dot-operands), the conversion done on f16 pairs
// (0x64xx - 1152: docs/lowering.md), on sm_90a the product reading A from
// the ring and the converted B stored into it, waited for one iteration
// later (17 K steps: the ring of 3 or 4 slots wraps several times);
// signed and unsigned bytes, 2 and 3 stages, against a float64 reference
// (the products of f16 and small integers are exact; C rounds to f16).
TEST(GPU, MatmulInt8Weights) {
  REQUIRE_GPU();
  std::string text = source("matmul_w8a16.kite", /*bench=*/true);
  ASSERT_FALSE(text.empty()) << "bench/kernels/matmul_w8a16.kite not found";
  const int M = 200, N = 144, K = 1088;
  std::mt19937 gen(2029);
  std::vector<uint16_t> a(size_t(M) * K), scale(N);
  std::vector<double> av(a.size()), sv(N);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = toHalfBits(std::normal_distribution<float>(0, 1)(gen), false);
    av[i] = fromHalfBits(a[i], false);
  }
  for (int n = 0; n < N; ++n) {
    scale[n] = toHalfBits(0.01f + 0.001f * float(gen() % 16), false);
    sv[n] = fromHalfBits(scale[n], false);
  }
  std::vector<uint8_t> b(size_t(K) * N);
  for (uint8_t &x : b)
    x = uint8_t(gen() & 0xFF);
  for (bool isSigned : {true, false}) {
    std::string src = text;
    if (!isSigned) // the weights as u8: uitofp
      src.replace(src.find("b_ptr: *i8"), 10, "b_ptr: *u8");
    struct Config {
      int bn, warps, stages;
    };
    for (Config c : {Config{128, 4, 3}, Config{128, 4, 2}, Config{128, 8, 3},
                     Config{256, 8, 2}}) {
      std::string what = std::string(isSigned ? "i8" : "u8") + " 128x" +
                         std::to_string(c.bn) + " w" + std::to_string(c.warps) +
                         " s" + std::to_string(c.stages);
      CompileOptions o;
      o.constants = {{"BLOCK_M", 128}, {"BLOCK_N", c.bn}, {"BLOCK_K", 64}};
      o.overrideNumWarps = c.warps;
      o.overrideNumStages = c.stages;
      auto k = compileKite(src, o, "matmul_w8a16.kite");
      ASSERT_TRUE(k) << what << ": " << k.error().str();
      auto da = DeviceBuffer<uint16_t>::fromHost(a).value();
      auto db = DeviceBuffer<uint8_t>::fromHost(b).value();
      auto ds = DeviceBuffer<uint16_t>::fromHost(scale).value();
      auto dc = DeviceBuffer<uint16_t>::allocate(size_t(M) * N).value();
      auto ran =
          k->launch(uint32_t(((M + 127) / 128) * ((N + c.bn - 1) / c.bn)),
                    {Arg(da), Arg(db), Arg(ds), Arg(dc), M, N, K});
      ASSERT_TRUE(ran) << what << ": " << ran.error().str();
      auto got = dc.toHost().value();
      double worst = 0;
      for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
          double ref = 0, mag = 0;
          for (int kk = 0; kk < K; ++kk) {
            uint8_t raw = b[size_t(kk) * N + n];
            double w = isSigned ? double(int8_t(raw)) : double(raw);
            ref += av[size_t(m) * K + kk] * w;
            mag += std::fabs(av[size_t(m) * K + kk] * w);
          }
          ref *= sv[n];
          mag *= sv[n];
          double v = fromHalfBits(got[size_t(m) * N + n], false);
          worst = std::max(worst, std::fabs(v - ref) /
                                      (std::fabs(ref) / 1024 + mag * 1e-6 +
                                       1e-30));
        }
      // Within f16's rounding of C plus the f32 accumulation.
      EXPECT_LE(worst, 1.0) << what;
    }
  }
}

/// Runs `src`'s `mm(a, b, c, M, N, K)` (64 x 64 blocks: C = A x (B's int8
/// weights times 0.5), f32 out) on the GPU for sm_90a and sm_80 and in the
/// interpreter, against a float64 reference from A's values `av` (the
/// products are exact: f16 x small integers x 0.5; f32 accumulation).
template <typename TA>
void checkMaskedProduct(const char *src, const char *name,
                        const std::vector<TA> &a, const std::vector<double> &av,
                        const std::vector<uint8_t> &b, int M, int N, int K) {
  std::vector<double> ref(size_t(M) * N), mag(size_t(M) * N);
  for (int m = 0; m < M; ++m)
    for (int kk = 0; kk < K; ++kk)
      for (int n = 0; n < N; ++n) {
        double p = av[size_t(m) * K + kk] *
                   double(int8_t(b[size_t(kk) * N + n])) * 0.5;
        ref[size_t(m) * N + n] += p;
        mag[size_t(m) * N + n] += std::fabs(p);
      }
  auto worstOf = [&](const std::vector<float> &got) {
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i)
      worst = std::max(worst, std::fabs(got[i] - ref[i]) / (mag[i] + 1e-30));
    return worst;
  };
  const Grid grid{uint32_t((M + 63) / 64), uint32_t((N + 63) / 64), 1};
  auto k = compileKite(src, {}, name);
  ASSERT_TRUE(k) << k.error().str();
  for (const char *chip : {"", "sm_80"}) {
    CompileOptions o;
    o.chip = chip;
    auto kc = compileKite(src, o, name);
    ASSERT_TRUE(kc) << chip << ": " << kc.error().str();
    auto da = DeviceBuffer<TA>::fromHost(a).value();
    auto db = DeviceBuffer<uint8_t>::fromHost(b).value();
    auto dc = DeviceBuffer<float>::allocate(size_t(M) * N).value();
    auto ran = kc->launch(grid, {Arg(da), Arg(db), Arg(dc), M, N, K});
    ASSERT_TRUE(ran) << chip << ": " << ran.error().str();
    EXPECT_LT(worstOf(dc.toHost().value()), 1e-5) << "chip '" << chip << "'";
  }
  // The interpreter on the same inputs.
  std::vector<float> host(size_t(M) * N);
  std::vector<TA> ha(a);
  std::vector<uint8_t> hb(b);
  ASSERT_TRUE(k->interpret(grid, {ha, hb, host, M, N, K}));
  EXPECT_LT(worstOf(host), 1e-5) << "interpreter";
}

// Dots of operands computed from masked loads in a K loop with a partial
// last block: f32 blocks rounded to f16, and int8 weights times a factor,
// loaded with `x < K` masks (`other=0`), at sizes that are not multiples
// of the blocks. The loads are staged ahead (the masks become the copies'
// source sizes: masked-off bytes zero-filled) and the results must match
// the interpreter's and a float64 reference.
TEST(GPU, ComputedOperandsWithMasks) {
  REQUIRE_GPU();
  const char *src = R"(
@kernel(num_warps=4, num_stages=3)
def mm(a_ptr: *f32, b_ptr: *i8, c_ptr: *f32, M: i32, N: i32, K: i32,
       BLOCK_M: constexpr = 64, BLOCK_N: constexpr = 64,
       BLOCK_K: constexpr = 32):
    offs_m = program_id(0) * BLOCK_M + arange(0, BLOCK_M)
    offs_n = program_id(1) * BLOCK_N + arange(0, BLOCK_N)
    offs_k = arange(0, BLOCK_K)
    acc = zeros((BLOCK_M, BLOCK_N), f32)
    for k in range(0, cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + offs_k
        a = load(a_ptr + (offs_m % M)[:, None] * K + kk[None, :],
                 mask=kk[None, :] < K, other=0.0)
        b = load(b_ptr + kk[:, None] * N + (offs_n % N)[None, :],
                 mask=kk[:, None] < K, other=0)
        acc = dot(a.to(f16), b.to(f16) * 0.5, acc)
    store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc,
          mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
)";
  // N = 80 (divisible by 16, as the runtime specializes it): B's rows copy
  // in 16-byte groups; K = 100 (not): A's f32 elements copy one at a time,
  // the last block's masked off.
  const int M = 100, N = 80, K = 100;
  std::mt19937 gen(2030);
  std::vector<float> a(size_t(M) * K);
  std::vector<uint8_t> b(size_t(K) * N);
  for (float &x : a) // f16 values, so the rounding to f16 is exact
    x = fromHalfBits(
        toHalfBits(std::normal_distribution<float>(0, 1)(gen), false), false);
  for (uint8_t &x : b)
    x = uint8_t(gen() & 0xFF);
  std::vector<double> av(a.begin(), a.end());
  checkMaskedProduct(src, "computed.kite", a, av, b, M, N, K);
}

// The asynchronous product with masks (sm_90a): A loaded as it is (f16,
// 128-byte rows: read by wgmma from the copies' ring) with a K-tail mask,
// B computed from int8 weights (converted, times 0.5: stored into a ring of
// its own), at sizes that are not multiples of the blocks (K = 176: the
// third block has 48 of 64 columns; M = 100, N = 80), against a float64
// reference and the interpreter; sm_80 (mma.sync, the dot of register
// operands) alike.
TEST(GPU, AsyncProductWithMasks) {
  REQUIRE_GPU();
  const char *src = R"(
@kernel(num_warps=4, num_stages=3)
def mm(a_ptr: *f16, b_ptr: *i8, c_ptr: *f32, M: i32, N: i32, K: i32,
       BLOCK_M: constexpr = 64, BLOCK_N: constexpr = 64,
       BLOCK_K: constexpr = 64):
    offs_m = program_id(0) * BLOCK_M + arange(0, BLOCK_M)
    offs_n = program_id(1) * BLOCK_N + arange(0, BLOCK_N)
    offs_k = arange(0, BLOCK_K)
    acc = zeros((BLOCK_M, BLOCK_N), f32)
    for k in range(0, cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + offs_k
        a = load(a_ptr + (offs_m % M)[:, None] * K + kk[None, :],
                 mask=kk[None, :] < K, other=0.0)
        b = load(b_ptr + kk[:, None] * N + (offs_n % N)[None, :],
                 mask=kk[:, None] < K, other=0)
        acc = dot(a, b.to(f16) * 0.5, acc)
    store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc,
          mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
)";
  const int M = 100, N = 80, K = 176;
  std::mt19937 gen(2031);
  std::vector<uint16_t> a(size_t(M) * K);
  std::vector<double> av(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = toHalfBits(std::normal_distribution<float>(0, 1)(gen), false);
    av[i] = fromHalfBits(a[i], false);
  }
  std::vector<uint8_t> b(size_t(K) * N);
  for (uint8_t &x : b)
    x = uint8_t(gen() & 0xFF);
  checkMaskedProduct(src, "async_product.kite", a, av, b, M, N, K);
}
