//===- LanguageGPUTest.cpp - Triton language forms on the GPU -------------===//
//
// Forms of Triton's language the frontend desugars, run on the GPU against
// host references: a matmul written with block pointers (make_block_ptr,
// advance, boundary checks: tensor-descriptor accesses, TMA or masked
// pointers, on sm_90a and sm_80) at ragged shapes, against float64; minimum/maximum's NaN rules
// (propagate_nan) and swizzle2d / expand_dims / ravel / tensor methods;
// unsigned integers (shifts, division, comparisons, conversions,
// reductions across warps, sort, atomics) against uint32_t arithmetic;
// gather along either axis, histogram with a mask, assume; casts toward
// zero (f16 against a search of the f16 values, bf16 against truncation)
// and randn4x (its first is randn's, bit for bit). (sort and topk:
// SortGPUTest.cpp.)
// Skipped without a GPU.
//
//===----------------------------------------------------------------------===//

#include "GPUTestHelpers.h"
#include "TestHelpers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace kite;
using namespace kite::test;

namespace {

const char *kBlockPointerMatmul = R"(
@kernel(num_warps=4, num_stages=3)
def matmul_bp(A: *f16, B: *f16, C: *f32, M: i32, N: i32, K: i32,
              BLOCK_M: constexpr = 128, BLOCK_N: constexpr = 128, BLOCK_K: constexpr = 64):
    pid_m, pid_n = swizzle2d(program_id(0), program_id(1), num_programs(0), num_programs(1), 4)
    a = make_block_ptr(base=A, shape=(M, K), strides=(K, 1), offsets=(pid_m * BLOCK_M, 0),
                       block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b = make_block_ptr(base=B, shape=(K, N), strides=(N, 1), offsets=(0, pid_n * BLOCK_N),
                       block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = zeros((BLOCK_M, BLOCK_N), f32)
    for k in range(0, K, BLOCK_K):
        acc = dot(load(a, boundary_check=(0, 1)), load(b, boundary_check=(0, 1)), acc)
        a = advance(a, (0, BLOCK_K))
        b = advance(b, (BLOCK_K, 0))
    c = make_block_ptr(base=C, shape=(M, N), strides=(N, 1),
                       offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N),
                       block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    store(c, acc, boundary_check=(0, 1))
)";

const char *kForms = R"(
import triton.language as tl
@kernel
def forms(p: *f32, q: *f32, r: *i32):
    x = load(p + arange(0, 2))
    y = load(p + 2 + arange(0, 2))
    store(q + arange(0, 2), minimum(x, y))
    store(q + 2 + arange(0, 2), tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    idx = arange(0, 16)
    ni, nj = swizzle2d(idx // 3, idx % 3, 5, 3, 2)
    store(r + idx, (ni * 3 + nj).expand_dims(0).ravel(), mask=idx < 15)
    t = (arange(0, 8).reshape((2, 4))).to(f32)
    store(q + 4 + arange(0, 2), t.sum(1))
    store(q + 6 + arange(0, 2), t.max(1))
)";

const char *kUnsigned = R"(
@kernel(num_warps=4)
def uns(x: *u32, y: *u32, small: *u8, out: *u32, flags: *i32, f: *f32,
        top: *u32, d: u32, BLOCK: constexpr = 1024):
    offs = arange(0, BLOCK)
    v = load(x + offs)
    w = load(y + offs)
    store(out + offs, v >> 7)
    store(out + BLOCK + offs, v // d)
    store(out + 2 * BLOCK + offs, v % d)
    store(out + 3 * BLOCK + offs, sort(v))
    store(out + 4 * BLOCK + offs, load(small + offs) + v)
    store(flags + offs, (v < w).to(i32))
    store(f + offs, v.to(f32))
    store(top, max(v, axis=0))
    store(top + 1, min(v, axis=0))
    store(top + 2, argmax(v, axis=0).to(u32))
    atomic_max(top + 3, v)
    atomic_min(top + 4, v)
)";

/// The unsigned kernel's inputs and outputs, and its check against
/// uint32_t arithmetic.
struct UnsignedCase {
  static constexpr int n = 1024;
  static constexpr uint32_t d = 1000003;
  std::vector<uint32_t> x = std::vector<uint32_t>(n), y = x;
  std::vector<uint8_t> small = std::vector<uint8_t>(n);
  std::vector<uint32_t> out = std::vector<uint32_t>(5 * n);
  std::vector<int32_t> flags = std::vector<int32_t>(n);
  std::vector<float> f = std::vector<float>(n);
  std::vector<uint32_t> top = {0, 0, 0, 1u << 31, 1u << 31};

  UnsignedCase() {
    uint64_t state = 12345;
    auto next = [&] {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return uint32_t(state >> 32);
    };
    for (int i = 0; i < n; ++i) {
      x[i] = next();
      y[i] = next();
      small[i] = uint8_t(next());
    }
    x[17] = 0xFFFFFFFFu; // the maximum, above i32's range
    x[18] = 0;
  }

  void check() const {
    std::vector<uint32_t> sorted(x);
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(out[i], x[i] >> 7) << i;
      EXPECT_EQ(out[n + i], x[i] / d) << i;
      EXPECT_EQ(out[2 * n + i], x[i] % d) << i;
      EXPECT_EQ(out[3 * n + i], sorted[i]) << i;
      EXPECT_EQ(out[4 * n + i], uint32_t(small[i]) + x[i]) << i;
      EXPECT_EQ(flags[i], x[i] < y[i] ? 1 : 0) << i;
      EXPECT_EQ(f[i], float(x[i])) << i;
    }
    EXPECT_EQ(top[0], 0xFFFFFFFFu);
    EXPECT_EQ(top[1], 0u);
    EXPECT_EQ(top[2], 17u);
    EXPECT_EQ(top[3], 0xFFFFFFFFu);
    EXPECT_EQ(top[4], 0u);
  }
};

const char *kGatherHistogram = R"(
import triton.language as tl
@kernel(num_warps=4)
def gh(src: *f32, idx1: *i32, idx0: *i32, out1: *f32, out0: *f32, vals: *i32,
       hist: *i32, n: i32):
    tl.assume(n > 0)
    rows = tl.arange(0, 32)[:, None]
    cols = tl.arange(0, 64)[None, :]
    s = tl.load(src + rows * 64 + cols)
    c16 = tl.arange(0, 16)[None, :]
    g1 = tl.gather(s, tl.load(idx1 + rows * 16 + c16), 1)
    tl.store(out1 + rows * 16 + c16, g1)
    r128 = tl.arange(0, 128)[:, None]
    g0 = s.gather(tl.load(idx0 + r128 * 64 + cols), 0)
    tl.store(out0 + r128 * 64 + cols, g0)
    offs = tl.arange(0, 2048)
    h = tl.histogram(tl.load(vals + offs), 64, mask=offs < n)
    tl.store(hist + tl.arange(0, 64), h)
)";

/// The gather/histogram kernel's inputs and outputs, and its check.
struct GatherCase {
  std::vector<float> src = std::vector<float>(32 * 64);
  std::vector<int32_t> idx1 = std::vector<int32_t>(32 * 16),
                       idx0 = std::vector<int32_t>(128 * 64),
                       vals = std::vector<int32_t>(2048);
  std::vector<float> out1 = std::vector<float>(32 * 16, -1.f),
                     out0 = std::vector<float>(128 * 64, -1.f);
  std::vector<int32_t> hist = std::vector<int32_t>(64, -1);
  int32_t n = 2000;

  GatherCase() {
    uint64_t state = 777;
    auto next = [&](uint32_t mod) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return uint32_t(state >> 33) % mod;
    };
    for (size_t i = 0; i < src.size(); ++i)
      src[i] = float(i) * 0.5f - 100.f;
    for (int32_t &i : idx1)
      i = int32_t(next(64));
    for (int32_t &i : idx0)
      i = int32_t(next(32));
    for (int32_t &v : vals) // some outside [0, 64): not counted
      v = int32_t(next(73)) - 3;
  }

  void check() const {
    for (int r = 0; r < 32; ++r)
      for (int c = 0; c < 16; ++c)
        EXPECT_EQ(out1[r * 16 + c], src[r * 64 + idx1[r * 16 + c]])
            << r << "," << c;
    for (int r = 0; r < 128; ++r)
      for (int c = 0; c < 64; ++c)
        EXPECT_EQ(out0[r * 64 + c], src[idx0[r * 64 + c] * 64 + c])
            << r << "," << c;
    std::vector<int32_t> want(64, 0);
    for (int i = 0; i < n; ++i)
      if (vals[i] >= 0 && vals[i] < 64)
        ++want[vals[i]];
    for (int b = 0; b < 64; ++b)
      EXPECT_EQ(hist[b], want[b]) << "bin " << b;
  }
};

const char *kCastRandom = R"(
import triton.language as tl
@kernel(num_warps=4)
def cr(x: *f32, h: *f16, bf: *bf16, a: *f32, n4: *f32, u4: *f32, seed: i32,
       BLOCK: constexpr = 4096):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + offs)
    tl.store(h + offs, v.to(tl.float16, fp_downcast_rounding="rtz"))
    tl.store(bf + offs, tl.cast(v, tl.bfloat16, fp_downcast_rounding="rtz"))
    tl.store(a + offs, tl.randn(seed, offs))
    n0, n1, n2, n3 = tl.randn4x(seed, offs)
    u0, u1, u2, u3 = tl.rand4x(seed, offs)
    tl.store(n4 + offs, n0)
    tl.store(n4 + BLOCK + offs, n1)
    tl.store(n4 + 2 * BLOCK + offs, n2)
    tl.store(n4 + 3 * BLOCK + offs, n3)
    tl.store(u4 + offs, u0)
    tl.store(u4 + BLOCK + offs, u1)
    tl.store(u4 + 2 * BLOCK + offs, u2)
    tl.store(u4 + 3 * BLOCK + offs, u3)
)";

/// f32 -> f16 toward zero, by search: the f16 of largest magnitude not
/// above |x| (infinity only for an infinite x; NaN stays NaN).
uint16_t halfTowardZero(float x) {
  if (std::isnan(x))
    return 0x7e00;
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  float m = std::fabs(x);
  if (std::isinf(m))
    return sign | 0x7c00;
  uint16_t lo = 0, hi = 0x7bff; // the largest finite magnitude
  auto value = [](uint16_t bits) {
    _Float16 h;
    std::memcpy(&h, &bits, 2);
    return float(h);
  };
  if (value(hi) <= m)
    return sign | hi;
  while (lo < hi) { // largest bits with value(bits) <= m
    uint16_t mid = uint16_t((lo + hi + 1) / 2);
    if (value(mid) <= m)
      lo = mid;
    else
      hi = uint16_t(mid - 1);
  }
  return sign | lo;
}

} // namespace

TEST(GPU, CastTowardZeroAndRandn4x) {
  REQUIRE_GPU();
  auto k = compileKite(kCastRandom, CompileOptions{}, "cast.kite");
  ASSERT_TRUE(k) << k.error().str();
  const int n = 4096;
  std::vector<float> x(n);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> expo(-30.f, 17.f);
  for (int i = 0; i < n; ++i) // magnitudes 2^-30 .. 2^17: subnormal f16s
    x[i] = (i % 2 ? -1.f : 1.f) * std::exp2(expo(rng)); // to overflow
  x[0] = 65519.f;
  x[1] = 65520.f;
  x[2] = -65520.f;
  x[3] = 1.00146484375f; // a tie
  x[4] = INFINITY;
  x[5] = NAN;
  auto dx = DeviceBuffer<float>::fromHost(x).value();
  auto dh = DeviceBuffer<uint16_t>::allocate(n).value();
  auto dbf = DeviceBuffer<uint16_t>::allocate(n).value();
  auto da = DeviceBuffer<float>::allocate(n).value();
  auto dn = DeviceBuffer<float>::allocate(4 * n).value();
  auto du = DeviceBuffer<float>::allocate(4 * n).value();
  ASSERT_TRUE(k->launch(
      Grid(1),
      {Arg::pointer(uint64_t(dx.data())), Arg::pointer(uint64_t(dh.data())),
       Arg::pointer(uint64_t(dbf.data())), Arg::pointer(uint64_t(da.data())),
       Arg::pointer(uint64_t(dn.data())), Arg::pointer(uint64_t(du.data())),
       int32_t(7)}));
  auto h = dh.toHost().value();
  auto bf = dbf.toHost().value();
  auto a = da.toHost().value();
  auto n4 = dn.toHost().value();
  auto u4 = du.toHost().value();
  for (int i = 0; i < n; ++i) {
    if (std::isnan(x[i])) // a NaN (the payload is the hardware's)
      EXPECT_TRUE((h[i] & 0x7c00) == 0x7c00 && (h[i] & 0x3ff)) << h[i];
    else
      EXPECT_EQ(h[i], halfTowardZero(x[i])) << "x = " << x[i];
    uint32_t bits;
    std::memcpy(&bits, &x[i], 4);
    if (!std::isnan(x[i])) { // bf16 toward zero: the top 16 bits
      EXPECT_EQ(bf[i], uint16_t(bits >> 16)) << "x = " << x[i];
    }
  }
  for (int i = 0; i < n; ++i) {
    // randn4x's first is randn's, bit for bit; each pair is Box-Muller of
    // rand4x's words (approximate sin/cos/log/sqrt, as Triton's).
    uint32_t p, q;
    std::memcpy(&p, &a[i], 4);
    std::memcpy(&q, &n4[i], 4);
    EXPECT_EQ(p, q) << i;
    for (int pair = 0; pair < 2; ++pair) {
      double u1 = std::max(1.0e-7, double(u4[(2 * pair) * n + i]));
      double u2 = u4[(2 * pair + 1) * n + i];
      double r = std::sqrt(-2.0 * std::log(u1)), th = 6.283185307179586 * u2;
      EXPECT_NEAR(n4[(2 * pair) * n + i], r * std::cos(th), 2e-5 * (1 + r));
      EXPECT_NEAR(n4[(2 * pair + 1) * n + i], r * std::sin(th), 2e-5 * (1 + r));
    }
  }
}

TEST(GPU, GatherHistogramAssume) {
  REQUIRE_GPU();
  auto k = compileKite(kGatherHistogram, CompileOptions{}, "gather.kite");
  ASSERT_TRUE(k) << k.error().str();
  GatherCase c;
  auto dsrc = DeviceBuffer<float>::fromHost(c.src).value();
  auto di1 = DeviceBuffer<int32_t>::fromHost(c.idx1).value();
  auto di0 = DeviceBuffer<int32_t>::fromHost(c.idx0).value();
  auto do1 = DeviceBuffer<float>::fromHost(c.out1).value();
  auto do0 = DeviceBuffer<float>::fromHost(c.out0).value();
  auto dv = DeviceBuffer<int32_t>::fromHost(c.vals).value();
  auto dh = DeviceBuffer<int32_t>::fromHost(c.hist).value();
  ASSERT_TRUE(k->launch(Grid(1), {Arg(dsrc), Arg(di1), Arg(di0), Arg(do1),
                                  Arg(do0), Arg(dv), Arg(dh), Arg(c.n)}));
  c.out1 = do1.toHost().value();
  c.out0 = do0.toHost().value();
  c.hist = dh.toHost().value();
  c.check();
}

TEST(Interpreter, GatherHistogramAssume) {
  auto k = compileKite(kGatherHistogram, CompileOptions{}, "gather.kite");
  ASSERT_TRUE(k) << k.error().str();
  GatherCase c;
  auto run = [&] {
    return k->interpret(Grid(1),
                        {Arg(c.src), Arg(c.idx1), Arg(c.idx0), Arg(c.out1),
                         Arg(c.out0), Arg(c.vals), Arg(c.hist), Arg(c.n)});
  };
  auto ok = run();
  ASSERT_TRUE(ok) << ok.error().str();
  c.check();
  // An assume() that does not hold is reported by the interpreter.
  c.n = 0;
  auto bad = run();
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().str().find("assume() does not hold"), std::string::npos)
      << bad.error().str();
}

TEST(GPU, UnsignedIntegers) {
  REQUIRE_GPU();
  auto k = compileKite(kUnsigned, CompileOptions{}, "unsigned.kite");
  ASSERT_TRUE(k) << k.error().str();
  UnsignedCase c;
  auto dx = DeviceBuffer<uint32_t>::fromHost(c.x).value();
  auto dy = DeviceBuffer<uint32_t>::fromHost(c.y).value();
  auto ds = DeviceBuffer<uint8_t>::fromHost(c.small).value();
  auto dout = DeviceBuffer<uint32_t>::fromHost(c.out).value();
  auto dflags = DeviceBuffer<int32_t>::fromHost(c.flags).value();
  auto df = DeviceBuffer<float>::fromHost(c.f).value();
  auto dtop = DeviceBuffer<uint32_t>::fromHost(c.top).value();
  ASSERT_TRUE(
      k->launch(Grid(1), {Arg(dx), Arg(dy), Arg(ds), Arg(dout), Arg(dflags),
                          Arg(df), Arg(dtop), Arg(UnsignedCase::d)}));
  c.out = dout.toHost().value();
  c.flags = dflags.toHost().value();
  c.f = df.toHost().value();
  c.top = dtop.toHost().value();
  c.check();
}

// The same kernel in the interpreter (no GPU needed).
TEST(Interpreter, UnsignedIntegers) {
  auto k = compileKite(kUnsigned, CompileOptions{}, "unsigned.kite");
  ASSERT_TRUE(k) << k.error().str();
  UnsignedCase c;
  auto ok = k->interpret(Grid(1), {Arg(c.x), Arg(c.y), Arg(c.small), Arg(c.out),
                                   Arg(c.flags), Arg(c.f), Arg(c.top),
                                   Arg(UnsignedCase::d)});
  ASSERT_TRUE(ok) << ok.error().str();
  c.check();
}

// Its accesses check every dimension, so they are tensor-descriptor
// accesses: TMA on the device's sm_90a where the sizes give 16-byte rows
// (1040x528x272, 128x128x64), masked pointers elsewhere and on sm_80.
TEST(GPU, BlockPointerMatmul) {
  REQUIRE_GPU();
  for (const char *chip : {"", "sm_80"}) {
    CompileOptions o;
    o.chip = chip;
    auto k = compileKite(kBlockPointerMatmul, o, "matmul_bp.kite");
    ASSERT_TRUE(k) << k.error().str();
    struct Shape {
      int M, N, K;
    };
    for (Shape sh : {Shape{128, 128, 64}, Shape{1040, 528, 272},
                     Shape{100, 60, 36}, Shape{37, 300, 200}}) {
      const int M = sh.M, N = sh.N, K = sh.K;
      HalfOperands ops = halfOperands(M, N, K, unsigned(M * 7 + N), 5);
      // One guard element past C: the boundary-checked store must not reach it.
      auto dc = DeviceBuffer<float>::fromHost(
                    std::vector<float>(size_t(M) * N + 1, std::nanf("")))
                    .value();
      auto ran = k->launch(Grid((M + 127) / 128, (N + 127) / 128),
                           {Arg(ops.da), Arg(ops.db), Arg(dc), int32_t(M),
                            int32_t(N), int32_t(K)});
      ASSERT_TRUE(ran) << ran.error().str();
      auto c = dc.toHost().value();
      std::string what = std::to_string(M) + "x" + std::to_string(N) + "x" +
                         std::to_string(K) + " " + chip;
      EXPECT_TRUE(std::isnan(c.back())) << what << ": written past C";
      double worst = 0;
      for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) {
          auto [ref, mag] = dotFloat64(ops.a, ops.b, K, N, m, n);
          worst = std::max(worst, std::fabs(c[size_t(m) * N + n] - ref) /
                                      (mag + 1e-6));
        }
      EXPECT_LT(worst, 2e-4) << what;
    }
  }
}

TEST(GPU, TritonLanguageForms) {
  REQUIRE_GPU();
  auto k = compileKite(kForms, CompileOptions{}, "forms.kite");
  ASSERT_TRUE(k) << k.error().str();
  auto dp = DeviceBuffer<float>::fromHost({std::nanf(""), 1.f, 2.f, std::nanf("")})
                .value();
  auto dq = DeviceBuffer<float>::fromHost(std::vector<float>(8, -1.f)).value();
  auto dr = DeviceBuffer<int32_t>::fromHost(std::vector<int32_t>(15, -1)).value();
  ASSERT_TRUE(k->launch(Grid(1), {Arg(dp), Arg(dq), Arg(dr)}));
  auto q = dq.toHost().value();
  auto r = dr.toHost().value();
  // minimum: a NaN operand gives the other (Triton's default); maximum with
  // PropagateNan.ALL: NaN.
  EXPECT_EQ(q[0], 2.f);
  EXPECT_EQ(q[1], 1.f);
  EXPECT_TRUE(std::isnan(q[2]));
  EXPECT_TRUE(std::isnan(q[3]));
  // Row sums and maxima of [[0, 1, 2, 3], [4, 5, 6, 7]].
  EXPECT_EQ(q[4], 6.f);
  EXPECT_EQ(q[5], 22.f);
  EXPECT_EQ(q[6], 3.f);
  EXPECT_EQ(q[7], 7.f);
  // swizzle2d over a 5 x 3 grid in groups of 2 rows, by hand from
  // Triton's definition.
  const int expect[15] = {0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11, 12, 13, 14};
  for (int i = 0; i < 15; ++i)
    EXPECT_EQ(r[i], expect[i]) << "index " << i;
}

// philox(seed, c0, c1, c2, c3): Random123's known answers on the GPU (all
// zeros, all ones, distinct words with a 64-bit key), and with counters
// (offset, 0, 0, 0) randint4x's words bit for bit at 10 and 7 rounds over
// 1024 offsets.
TEST(GPU, PhiloxFourCounters) {
  REQUIRE_GPU();
  const char *src = R"(
@kernel
def kat(out: *u32, seed: i64, c0: i32, c1: i32, c2: i32, c3: i32):
    a, b, c, d = philox(seed, c0, c1, c2, c3)
    store(out, a)
    store(out + 1, b)
    store(out + 2, c)
    store(out + 3, d)

@kernel
def same(out: *u32, seed: i32, ROUNDS: constexpr = 10):
    offs = program_id(0) * 256 + arange(0, 256)
    a, b, c, d = philox(seed, offs * 977, 0, 0, 0, n_rounds=ROUNDS)
    e, f, g, h = randint4x(seed, offs * 977, n_rounds=ROUNDS)
    ok = (a == e) & (b == f) & (c == g) & (d == h) & (a != b)
    store(out + offs, where(ok, 1, 0).to(u32))
)";
  CompileOptions o;
  o.kernel = "kat";
  auto kat = compileKite(src, o, "philox.kite");
  ASSERT_TRUE(kat) << kat.error().str();
  struct Kat {
    int64_t seed;
    uint32_t c[4], want[4];
  };
  for (const Kat &t :
       {Kat{0, {0, 0, 0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        Kat{-1,
            {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
            {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        Kat{int64_t(0x299f31d0a4093822),
            {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
            {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}}) {
    auto out = DeviceBuffer<uint32_t>::allocate(4).value();
    ASSERT_TRUE(kat->launch(Grid(1), {Arg(out), t.seed, int32_t(t.c[0]),
                                      int32_t(t.c[1]), int32_t(t.c[2]),
                                      int32_t(t.c[3])}));
    auto got = out.toHost().value();
    for (int w = 0; w < 4; ++w)
      EXPECT_EQ(got[w], t.want[w]) << "seed " << t.seed << " word " << w;
  }
  for (int rounds : {10, 7}) {
    CompileOptions s;
    s.kernel = "same";
    s.constants = {{"ROUNDS", rounds}};
    auto same = compileKite(src, s, "philox.kite");
    ASSERT_TRUE(same) << same.error().str();
    auto out = DeviceBuffer<uint32_t>::allocate(1024).value();
    ASSERT_TRUE(same->launch(Grid(4), {Arg(out), int32_t(20261126)}));
    auto got = out.toHost().value();
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], 1u) << "offset " << i << ", " << rounds << " rounds";
  }
}

// map_elementwise (Triton's tl.map_elementwise): a function with a branch
// (selu) and one with a data-dependent loop (Collatz steps: each element
// loops its own number of times) and a tuple result (divmod), at an odd
// size (1000: a masked tail) on 4 and 8 warps, against the host and the
// interpreter; and a kernel's early `return` (Returns.cpp) skipping the
// programs past n.
TEST(GPU, MapElementwise) {
  REQUIRE_GPU();
  const char *src = R"(def selu(x, alpha):
    if x > 0:
        return x
    return alpha * (exp(x) - 1.0)

def steps(n):
    s = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        s += 1
    return s

def divmod7(a, b):
    return a // b, a % b

@kernel
def k(X: *f32, N: *i32, Y: *f32, S: *i32, Q: *i32, R: *i32, n: i32,
      programs: i32, BLOCK: constexpr = 256):
    pid = program_id(0)
    if pid >= programs:
        return
    offs = pid * BLOCK + arange(0, BLOCK)
    m = offs < n
    x = load(X + offs, mask=m, other=0.0)
    store(Y + offs, map_elementwise(selu, x, 1.5), mask=m)
    c = load(N + offs, mask=m, other=1)
    store(S + offs, map_elementwise(steps, c), mask=m)
    q, r = map_elementwise(divmod7, c, 7)
    store(Q + offs, q, mask=m)
    store(R + offs, r, mask=m)
)";
  const int n = 1000;
  auto x = randomVector(n, 17);
  for (float &v : x)
    v *= 4.0f;
  std::vector<int32_t> c(n);
  for (int i = 0; i < n; ++i)
    c[i] = 1 + int32_t((uint32_t(i) * 2654435761u) % 100000u);
  for (int warps : {4, 8}) {
    CompileOptions o;
    o.overrideNumWarps = warps;
    auto k = compileKite(src, o, "map.kite");
    ASSERT_TRUE(k) << k.error().str();
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dc = DeviceBuffer<int32_t>::fromHost(c).value();
    auto dy =
        DeviceBuffer<float>::fromHost(std::vector<float>(n, -7.f)).value();
    auto ds =
        DeviceBuffer<int32_t>::fromHost(std::vector<int32_t>(n, -7)).value();
    auto dq = DeviceBuffer<int32_t>::allocate(n).value();
    auto dr = DeviceBuffer<int32_t>::allocate(n).value();
    // 4 programs cover 1024 elements; only 3 run (programs = 3): the last
    // 232 elements keep their -7.
    auto run = k->launch(4, {dx, dc, dy, ds, dq, dr, n, 3});
    ASSERT_TRUE(run) << run.error().str();
    std::vector<float> hy(n, -7.f);
    std::vector<int32_t> hs(n, -7), hq(n), hr(n);
    auto in = k->interpret(4, {x, c, hy, hs, hq, hr, n, 3});
    ASSERT_TRUE(in) << in.error().str();
    auto y = dy.toHost().value();
    auto s = ds.toHost().value();
    EXPECT_EQ(s, hs) << warps << " warps";
    for (int i = 0; i < n; ++i) {
      if (i >= 768) {
        EXPECT_EQ(y[i], -7.f) << i;
        EXPECT_EQ(s[i], -7) << i;
        continue;
      }
      double ref = x[i] > 0 ? x[i] : 1.5 * (std::exp(double(x[i])) - 1.0);
      EXPECT_NEAR(y[i], ref, 1e-5 * std::max(1.0, std::fabs(ref))) << i;
      EXPECT_NEAR(y[i], hy[i], 1e-5 * std::max(1.0, std::fabs(ref))) << i;
      int steps = 0;
      for (int64_t v = c[i]; v != 1; ++steps)
        v = v % 2 == 0 ? v / 2 : 3 * v + 1;
      EXPECT_EQ(s[i], steps) << i;
    }
    auto q = dq.toHost().value(), r = dr.toHost().value();
    for (int i = 0; i < 768; ++i) {
      EXPECT_EQ(q[i], c[i] / 7) << i;
      EXPECT_EQ(r[i], c[i] % 7) << i;
    }
  }
  // pack=2: pairs of consecutive elements a call (2 a0 + a1, 2 a1 - a0),
  // 8 and 4 elements a thread, against the host and the interpreter.
  const char *packed = R"(def pairmix(a0, a1):
    return a0 * 2.0 + a1, a1 * 2.0 - a0

@kernel
def p(X: *f32, Y: *f32, n: i32, BLOCK: constexpr = 1024):
    offs = program_id(0) * BLOCK + arange(0, BLOCK)
    m = offs < n
    y = map_elementwise(pairmix, load(X + offs, mask=m, other=0.0), pack=2)
    store(Y + offs, y, mask=m)
)";
  for (int warps : {4, 8}) {
    CompileOptions o;
    o.overrideNumWarps = warps;
    auto k = compileKite(packed, o, "packed.kite");
    ASSERT_TRUE(k) << k.error().str();
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dy = DeviceBuffer<float>::allocate(n).value();
    ASSERT_TRUE(k->launch(1, {dx, dy, n}));
    std::vector<float> hy(n);
    ASSERT_TRUE(k->interpret(1, {x, hy, n}));
    auto y = dy.toHost().value();
    for (int i = 0; i < n; ++i) {
      float want = i % 2 == 0 ? x[i] * 2.0f + x[i + 1] : x[i] * 2.0f - x[i - 1];
      EXPECT_EQ(y[i], want) << warps << " warps, element " << i;
      EXPECT_EQ(hy[i], want) << "interpreter, element " << i;
    }
  }
}

// A kernel in a Triton library's style (bench/kernels/library_style.py:
// unannotated parameters) typed at launch on the GPU: its RMSNorm with f32
// buffers, then with bf16 buffers (a second signature of the same handle),
// against a host reference.
TEST(GPU, LibraryKernelTypedAtLaunch) {
  REQUIRE_GPU();
  std::string text = source("library_style.py", /*bench=*/true);
  ASSERT_FALSE(text.empty()) << "bench/kernels/library_style.py not found";
  CompileOptions o;
  o.kernel = "_rms_norm_fwd";
  o.constants = {{"BLOCK_SIZE", 1024}};
  o.defines = {{"casting_mode", "0"}};
  auto k = compileKite(text, o, "library_style.py");
  ASSERT_TRUE(k) << k.error().str();
  const int rows = 64, cols = 1000;
  const float eps = 1e-6f;
  std::vector<float> x = randomValues(size_t(rows) * cols, 21),
                     w = randomValues(cols, 22);
  auto reference = [&](const std::vector<float> &xs,
                       const std::vector<float> &ws, bool bf16) {
    std::vector<float> y(xs.size());
    for (int r = 0; r < rows; ++r) {
      double ss = 0;
      for (int c = 0; c < cols; ++c)
        ss += double(xs[r * cols + c]) * xs[r * cols + c];
      float rstd = float(1.0 / std::sqrt(ss / cols + eps));
      for (int c = 0; c < cols; ++c) {
        float v = xs[r * cols + c] * rstd;
        if (bf16)
          v = fromHalfBits(toHalfBits(v, true), true); // casting_mode llama
        y[r * cols + c] = v * ws[c];
      }
    }
    return y;
  };
  // f32.
  {
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dw = DeviceBuffer<float>::fromHost(w).value();
    auto dy = DeviceBuffer<float>::allocate(x.size()).value();
    auto drstd = DeviceBuffer<float>::allocate(rows).value();
    auto ok = k->launch(rows, {dy, int32_t(cols), dx, int32_t(cols), dw, drstd,
                               int32_t(cols), eps, 0.0f});
    ASSERT_TRUE(ok) << ok.error().str();
    std::vector<float> y = dy.toHost().value(), ref = reference(x, w, false);
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(y[i], ref[i], 1e-5f * std::max(1.f, std::fabs(ref[i])))
          << i;
  }
  // bf16 (kite::bfloat16 buffers type the pointers *bf16).
  {
    std::vector<bfloat16> xb(x.size()), wb(w.size());
    std::vector<float> xr(x.size()), wr(w.size());
    for (size_t i = 0; i < x.size(); ++i) {
      xb[i].bits = toHalfBits(x[i], true);
      xr[i] = fromHalfBits(xb[i].bits, true);
    }
    for (size_t i = 0; i < w.size(); ++i) {
      wb[i].bits = toHalfBits(w[i], true);
      wr[i] = fromHalfBits(wb[i].bits, true);
    }
    auto dx = DeviceBuffer<bfloat16>::fromHost(xb).value();
    auto dw = DeviceBuffer<bfloat16>::fromHost(wb).value();
    auto dy = DeviceBuffer<bfloat16>::allocate(x.size()).value();
    auto drstd = DeviceBuffer<float>::allocate(rows).value();
    auto ok = k->launch(rows, {dy, int32_t(cols), dx, int32_t(cols), dw, drstd,
                               int32_t(cols), eps, 0.0f});
    ASSERT_TRUE(ok) << ok.error().str();
    std::vector<bfloat16> y = dy.toHost().value();
    std::vector<float> ref = reference(xr, wr, true);
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(fromHalfBits(y[i].bits, true), ref[i],
                  1e-2f * std::max(1.f, std::fabs(ref[i])))
          << i;
  }
}
