//===- InterpreterTest.cpp - Kernels in the interpreter (CI, no GPU) -------===//
//
// The dsl-examples run in the interpreter against plain C++ references on
// random inputs (ragged sizes, outputs poisoned with NaN and a guard zone);
// rand/randint through a kernel against the Random123 known answers and
// Triton's values (../shared/notes/random.md); out-of-bounds accesses are
// reported with the op's location.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Fp8.h"
#include "kite/Runtime/Runtime.h"

#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

using namespace kite;
using namespace kite::test;

static std::string examplePath(const std::string &name) {
  return std::string(KITE_SOURCE_DIR) + "/dsl-examples/" + name;
}

static const std::vector<size_t> kSizes = {1, 1000, 1024, 1025, 4097, 100003};

TEST(Interpreter, VectorAdd) {
  auto k = compileFile(examplePath("vector_add.kite")).value();
  for (size_t n : kSizes) {
    auto x = randomVector(n, 1), y = randomVector(n, 2);
    std::vector<float> out(n + kGuard, NAN);
    auto ok = k.interpret(cdiv(n, 1024), {x, y, out, int32_t(n)});
    ASSERT_TRUE(ok) << ok.error().str();
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(out[i], x[i] + y[i]) << "n = " << n << ", i = " << i;
    EXPECT_TRUE(guardIntact(out, n));
  }
}

TEST(Interpreter, Dropout) {
  auto k = compileFile(examplePath("dropout.kite")).value();
  for (size_t n : kSizes) {
    auto x = randomVector(n, 3);
    std::vector<int32_t> keep(n);
    std::mt19937 rng(4);
    for (auto &e : keep)
      e = rng() & 1;
    std::vector<float> out(n + kGuard, NAN);
    const float p = 0.3f;
    auto ok = k.interpret(cdiv(n, 1024), {x, keep, out, int32_t(n), p});
    ASSERT_TRUE(ok) << ok.error().str();
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(out[i], keep[i] ? x[i] / (1 - p) : 0.f) << "i = " << i;
    EXPECT_TRUE(guardIntact(out, n));
  }
}

TEST(Interpreter, SeededDropout) {
  auto k = compileFile(examplePath("seeded_dropout.kite")).value();
  for (size_t n : kSizes) {
    auto x = randomVector(n, 5);
    for (int32_t seed : {123, 512, -1}) {
      std::vector<float> out(n + kGuard, NAN);
      const float p = 0.5f;
      auto ok = k.interpret(cdiv(n, 1024), {x, out, int32_t(n), p, seed});
      ASSERT_TRUE(ok) << ok.error().str();
      for (size_t i = 0; i < n; ++i) {
        float r = uniform(philox(uint32_t(seed), uint32_t(i)));
        ASSERT_EQ(out[i], r > p ? x[i] / (1 - p) : 0.f)
            << "n = " << n << ", seed = " << seed << ", i = " << i;
      }
      EXPECT_TRUE(guardIntact(out, n));
    }
  }
}

static const char *kRandKernel = R"(
@kernel
def rand_test(offsets: *i32, out_i: *i32, out_f: *f32, seed: i32):
    r = arange(0, 4)
    offs = load(offsets + r)
    store(out_i + r, randint(seed, offs))
    store(out_f + r, rand(seed, offs))

@kernel
def rand_test64(offsets: *i64, out_i: *i32, out_f: *f32, seed: i64):
    r = arange(0, 4)
    offs = load(offsets + r)
    store(out_i + r, randint(seed, offs))
    store(out_f + r, rand(seed, offs))
)";

TEST(Interpreter, RandKnownAnswers) {
  CompileOptions o;
  o.kernel = "rand_test";
  auto k = compileKite(kRandKernel, o, "rand.kite").value();
  struct Row {
    int32_t seed;
    uint32_t words[3], bits[3];
  };
  // ../shared/notes/random.md, offsets 0, 1, 1024.
  Row rows[] = {
      {0, {0x6627e8d5, 0xf8e4cca4, 0xed8385b7}, {0x3f4c4fd1, 0x3d63666a, 0x3e13e3d1}},
      {42, {0x9ceaf053, 0xfcdb2127, 0x090f01d4}, {0x3f462a1e, 0x3cc937b5, 0x3d90f01c}},
      {123, {0x11237cdc, 0xa3c0144e, 0x2f9196b0}, {0x3e091be6, 0x3f387fd6, 0x3ebe465a}},
      {-1, {0x72a47709, 0x19fed511, 0x0c2d0cf3}, {0x3f6548ed, 0x3e4ff6a8, 0x3dc2d0ce}},
      {512, {0x38c86f57, 0x13f010b0, 0xa9631b93}, {0x3ee321bc, 0x3e1f8085, 0x3f2d39c8}},
  };
  std::vector<int32_t> offsets = {0, 1, 1024, 7};
  for (const Row &row : rows) {
    std::vector<int32_t> words(4);
    std::vector<float> floats(4);
    auto ok = k.interpret(1, {offsets, words, floats, row.seed});
    ASSERT_TRUE(ok) << ok.error().str();
    for (int i = 0; i < 3; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &floats[i], 4);
      EXPECT_EQ(uint32_t(words[i]), row.words[i]) << "seed " << row.seed;
      EXPECT_EQ(bits, row.bits[i]) << "seed " << row.seed;
    }
  }
  // The Random123 known answer for counter 0 and key 0, and the i64 seed
  // 0xffffffff (key (0xffffffff, 0)) with i64 offsets.
  o.kernel = "rand_test64";
  auto k64 = compileKite(kRandKernel, o, "rand.kite").value();
  std::vector<int64_t> offsets64 = {0, 1, 1024, 5};
  std::vector<int32_t> words(4);
  std::vector<float> floats(4);
  ASSERT_TRUE(k64.interpret(1, {offsets64, words, floats, int64_t(0)}));
  EXPECT_EQ(uint32_t(words[0]), 0x6627e8d5u);
  ASSERT_TRUE(k64.interpret(1, {offsets64, words, floats, int64_t(0xffffffff)}));
  uint32_t expectWords[] = {0xf60ba7e1, 0x87c8813c, 0x2bddf193};
  uint32_t expectBits[] = {0x3d9f4581, 0x3f706efd, 0x3eaf77c5};
  for (int i = 0; i < 3; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &floats[i], 4);
    EXPECT_EQ(uint32_t(words[i]), expectWords[i]);
    EXPECT_EQ(bits, expectBits[i]);
  }
}

// A kernel in clusters (@kernel(cluster_dims=...)) runs whole clusters,
// as on the GPU: its programs are the grid's, each with its own
// program_id; a grid that is not a multiple of the clusters is refused.
TEST(Interpreter, ClustersTakeWholeGrids) {
  const char *src = R"(@kernel(cluster_dims=(2, 1, 1))
def ids(out: *i32):
    p = program_id(0)
    store(out + p, p * 10 + p // 2)
)";
  auto k = compileKite(src, {}, "ids.kite").value();
  std::vector<int32_t> out(6, -1);
  ASSERT_TRUE(k.interpret(6, {out}));
  for (int p = 0; p < 6; ++p)
    EXPECT_EQ(out[p], p * 10 + p / 2) << p;
  auto odd = k.interpret(5, {out});
  ASSERT_FALSE(odd);
  EXPECT_EQ(odd.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(odd.error().message(),
            "grid (5, 1, 1) is not a multiple of the clusters (2, 1, 1) of "
            "kernel 'ids' (@kernel(cluster_dims=...))");
}

TEST(Interpreter, OutOfBoundsIsReportedWithItsLocation) {
  const char *src = R"(@kernel
def oob(x: *f32, y: *f32, n: i32):
    offs = arange(0, 16)
    v = load(x + offs)
    store(y + offs, v, mask=offs < n)
)";
  auto k = compileKite(src, {}, "oob.kite").value();
  std::vector<float> x(10, 1.f), y(16, 0.f);
  auto r = k.interpret(1, {x, y, int32_t(16)});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::ExecutionError);
  EXPECT_EQ(r.error().message().rfind(
                "oob.kite:4:9: error: out-of-bounds load at element [10]: "
                "address 0x",
                0),
            0u)
      << r.error().message();
  EXPECT_NE(r.error().message().find("0 bytes past the end of buffer 'x' (40 "
                                     "bytes)"),
            std::string::npos)
      << r.error().message();

  // Masked-off lanes are not accessed; an unmasked store past the end is
  // reported and nothing is written.
  std::vector<float> x16(16, 2.f), y8(8, 0.f);
  auto s = k.interpret(1, {x16, y8, int32_t(12)});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message().rfind(
                "oob.kite:5:5: error: out-of-bounds store at element [8]", 0),
            0u)
      << s.error().message();
  for (float v : y8)
    EXPECT_EQ(v, 0.f);
  EXPECT_TRUE(k.interpret(1, {x16, y8, int32_t(8)}));
  for (float v : y8)
    EXPECT_EQ(v, 2.f);

  // Device pointers (no extent) are refused by the interpreter.
  auto dev = k.interpret(1, {Arg::pointer(0x1000), Arg::pointer(0x2000), int32_t(1)});
  ASSERT_FALSE(dev);
  EXPECT_EQ(dev.error().code(), ErrorCode::InvalidArgument);
}

TEST(Interpreter, LoopsIfsDotAndReductions) {
  const char *src = R"(@kernel
def mm(a: *f32, b: *f32, c: *f32, s: *f32, K: i32, flag: i32):
    rm = arange(0, 16)
    rk = arange(0, 16)
    acc = zeros((16, 16), f32)
    for k in range(0, K, 16):
        x = load(a + rm[:, None] * K + (k + rk)[None, :])
        y = load(b + (k + rk)[:, None] * 16 + rm[None, :])
        acc = dot(x, y, acc)
    if flag > 0:
        acc = acc * 2.0
    store(c + rm[:, None] * 16 + rm[None, :], acc)
    store(s + rm, sum(acc, axis=1))
)";
  auto k = compileKite(src, {}, "mm.kite").value();
  const int K = 48;
  std::vector<float> a(16 * K), b(K * 16), c(256), s(16);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(-4, 4); // small ints: exact in f32
  for (float &v : a)
    v = float(d(rng));
  for (float &v : b)
    v = float(d(rng));
  ASSERT_TRUE(k.interpret(1, {a, b, c, s, int32_t(K), int32_t(1)}));
  for (int i = 0; i < 16; ++i) {
    float row = 0;
    for (int j = 0; j < 16; ++j) {
      float e = 0;
      for (int kk = 0; kk < K; ++kk)
        e += a[i * K + kk] * b[kk * 16 + j];
      EXPECT_EQ(c[i * 16 + j], 2 * e);
      row += 2 * e;
    }
    EXPECT_EQ(s[i], row);
  }
}

TEST(Interpreter, TutorialMatmul) {
  // Small blocks keep the interpreter quick; the kernel is the tutorial's.
  CompileOptions o;
  o.constants = {{"BLOCK_M", 32}, {"BLOCK_N", 16}, {"BLOCK_K", 16},
                 {"GROUP_SIZE_M", 2}};
  auto k = compileFile(examplePath("matmul.kite"), o).value();
  o.constants["ACTIVATION"] = 1;
  auto leaky = compileFile(examplePath("matmul.kite"), o).value();
  struct Shape {
    int M, N, K;
    bool transposedB;
  };
  for (Shape sh : {Shape{1, 1, 1, false}, Shape{33, 17, 65, false},
                   Shape{64, 48, 40, true}, Shape{70, 35, 129, false}}) {
    int M = sh.M, N = sh.N, K = sh.K;
    auto a = randomVector(size_t(M) * K, 21), b = randomVector(size_t(K) * N, 22);
    // B is K x N; transposed: stored N x K (column-major K x N).
    int sbk = sh.transposedB ? 1 : N, sbn = sh.transposedB ? K : 1;
    std::vector<double> ref(size_t(M) * N, 0);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j)
        for (int kk = 0; kk < K; ++kk)
          ref[size_t(i) * N + j] +=
              double(a[size_t(i) * K + kk]) * b[size_t(kk) * sbk + size_t(j) * sbn];
    for (bool act : {false, true}) {
      std::vector<float> c(size_t(M) * N + kGuard, NAN);
      int grid = ((M + 31) / 32) * ((N + 15) / 16);
      auto ok = (act ? leaky : k)
                    .interpret(grid, {a, b, c, int32_t(M), int32_t(N), int32_t(K),
                                      int32_t(K), int32_t(1), int32_t(sbk),
                                      int32_t(sbn), int32_t(N), int32_t(1)});
      ASSERT_TRUE(ok) << ok.error().str();
      std::vector<double> expect = ref;
      if (act)
        for (double &v : expect)
          v = v >= 0 ? v : 0.01 * v;
      EXPECT_TRUE(guardIntact(c, size_t(M) * N));
      c.resize(size_t(M) * N);
      EXPECT_LE(relError(c, expect), 1e-5)
          << M << "x" << N << "x" << K << (act ? " leaky_relu" : "");
    }
  }
}

// fp8 (Triton's float8e4nv and float8e5) as a storage type: .to() rounds to
// nearest even and saturates, loads and stores move the bits, arithmetic
// happens in f32. Against the formats' definitions (TestHelpers.h) and a
// few values by hand.
const char *kFp8Round = R"(
@kernel
def fp8_round(x_ptr: *f32, q4: *f8e4m3, q5: *f8e5m2, out: *f32, n: i32, BLOCK: constexpr = 32):
    offs = arange(0, BLOCK)
    m = offs < n
    x = load(x_ptr + offs, mask=m)
    store(q4 + offs, x.to(f8e4m3), mask=m)
    store(q5 + offs, x.to(tl.float8e5), mask=m)
    a = load(q4 + offs, mask=m, other=0.0)
    b = load(q5 + offs, mask=m, other=0.0)
    store(out + offs, a + b.to(f32), mask=m)
)";

std::vector<float> fp8Inputs() {
  return {0.1f,   -0.1f,  1.0f,    448.f,  500.f,   1e6f,    -1e6f,
          0.0f,   3.14159f, 1.f / 1024, 1e-9f, 57344.f, 60000.f, 0.3f,
          240.f,  -17.25f, 0.0009765625f, 0.001953125f, 2.5f, 6.5f};
}

// kite/Runtime/Fp8.h (the host's fp8, for filling and reading fp8
// buffers) against the formats' definitions: every code's value, and the
// rounding of every code, of the midpoints between neighbouring codes (ties
// to even), of points just beside them, of values past the largest finite
// one (saturation) and below the smallest subnormal.
TEST(Fp8, HostConversionsMatchTheFormats) {
  for (bool e5m2 : {false, true}) {
    ScalarType t = e5m2 ? ScalarType::F8E5M2 : ScalarType::F8E4M3;
    std::vector<double> values;
    for (int c = 0; c < 256; ++c) {
      double v = fp8Value(uint8_t(c), e5m2), got = fp8ToDouble(uint8_t(c), t);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(got)) << c;
        continue;
      }
      EXPECT_EQ(got, v) << "code " << c;
      if (std::isfinite(v))
        values.push_back(v);
    }
    std::sort(values.begin(), values.end());
    std::vector<double> probes = values;
    for (size_t i = 0; i + 1 < values.size(); ++i) {
      double mid = (values[i] + values[i + 1]) / 2;
      probes.insert(probes.end(), {mid, std::nextafter(mid, -INFINITY),
                                   std::nextafter(mid, INFINITY)});
    }
    probes.insert(probes.end(), {1e6, -1e6, 464.0, 465.0, 60000.0, 61440.0,
                                 1e-12, -1e-12});
    for (double v : probes)
      EXPECT_EQ(fp8FromDouble(v, t), fp8Bits(v, e5m2))
          << (e5m2 ? "e5m2" : "e4m3") << " of " << v;
    EXPECT_TRUE(std::isnan(fp8ToDouble(fp8FromDouble(NAN, t), t)));
    // Infinities saturate too (448 and 57344).
    EXPECT_EQ(fp8FromDouble(INFINITY, t), e5m2 ? 0x7b : 0x7e);
    EXPECT_EQ(fp8FromDouble(-INFINITY, t), e5m2 ? 0xfb : 0xfe);
  }
}

TEST(Interpreter, Fp8RoundsLikeTheFormat) {
  auto k = compileKite(kFp8Round, CompileOptions{}, "fp8_round.kite");
  ASSERT_TRUE(k) << k.error().str();
  auto x = fp8Inputs();
  size_t n = x.size();
  std::vector<uint8_t> q4(n + 1, 0xaa), q5(n + 1, 0xaa);
  std::vector<float> out(n + 1, NAN);
  auto ok = k->interpret(1, {x, q4, q5, out, int32_t(n)});
  ASSERT_TRUE(ok) << ok.error().str();
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(q4[i], fp8Bits(x[i], false)) << "e4m3 of " << x[i];
    EXPECT_EQ(q5[i], fp8Bits(x[i], true)) << "e5m2 of " << x[i];
    EXPECT_EQ(out[i], float(fp8Value(q4[i], false) + fp8Value(q5[i], true)))
        << "at " << x[i];
  }
  EXPECT_EQ(q4[n], 0xaa) << "written past the end";
  // By hand: 0.1 -> 0.1015625 (e4m3) and 0.09375 (e5m2); 500 and 1e6
  // saturate to 448 (0x7e) and 57344 (0x7b); -1e6 to -448 (0xfe).
  EXPECT_EQ(fp8Value(q4[0], false), 0.1015625);
  EXPECT_EQ(fp8Value(q5[0], true), 0.09375);
  EXPECT_EQ(q4[4], 0x7e);
  EXPECT_EQ(q4[5], 0x7e);
  EXPECT_EQ(q4[6], 0xfe);
  EXPECT_EQ(q5[5], 0x7b);
}
