//===- ReductionGPUTest.cpp - Reductions on a GPU
//--------------------------===//
//
// kite.reduce on a real GPU against the interpreter: every kind (sum, max,
// min, xor_sum, reduce_or, argmax, argmin) over 1-D and 2-D blocks along each
// axis, on 1 and 8 warps (rows inside a warp, across warps, replicated small
// blocks); ties for argmax/argmin. Scans (cumsum, cumprod, reversed) likewise.
// Then the softmax and layer-norm examples at odd widths (1, 3, 781, 16383)
// against the host in double. Skipped, with the reason, where no GPU is
// present.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"

#include "GPUTestHelpers.h"
#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

using namespace kite;
using namespace kite::test;

namespace {
struct Shape {
  int rows, cols; ///< rows 0: a 1-D block of `cols`
};
} // namespace

/// A kernel loading a rows x cols (or 1-D) block of `type` and storing
/// `kind` along `axis`.
static std::string reduceSource(Shape s, int axis, const std::string &kind,
                                const std::string &type) {
  bool arg = kind == "argmax" || kind == "argmin";
  std::string out = arg ? "i32" : type;
  std::ostringstream src;
  src << "@kernel\ndef red(x: *" << type << ", out: *" << out << "):\n";
  if (s.rows == 0) {
    src << "    v = load(x + arange(0, " << s.cols << "))\n"
        << "    store(out, " << kind << "(v, axis=0))\n";
  } else {
    src << "    r = arange(0, " << s.rows << ")\n"
        << "    c = arange(0, " << s.cols << ")\n"
        << "    v = load(x + r[:, None] * " << s.cols << " + c[None, :])\n"
        << "    store(out + " << (axis == 0 ? "c" : "r") << ", " << kind
        << "(v, axis=" << axis << "))\n";
  }
  return src.str();
}

TEST(GPU, ReductionsAgreeWithTheInterpreter) {
  REQUIRE_GPU();
  std::vector<Shape> shapes = {{0, 1},    {0, 2},     {0, 32},   {0, 128},
                               {0, 1024}, {0, 16384}, {1, 32},   {4, 8},
                               {32, 32},  {64, 128},  {128, 64}, {16, 1024},
                               {256, 4},  {2, 4096}};
  struct Kind {
    const char *name, *type;
  };
  std::vector<Kind> kinds = {
      {"sum", "f32"},     {"max", "f32"},    {"argmax", "f32"},
      {"argmin", "f32"},  {"sum", "i32"},    {"min", "i32"},
      {"xor_sum", "i32"}, {"argmax", "i32"}, {"reduce_or", "i32"}};
  std::mt19937 rng(7);
  int cases = 0;
  for (Shape s : shapes) {
    int numel = (s.rows ? s.rows : 1) * s.cols;
    for (int axis = 0; axis < (s.rows ? 2 : 1); ++axis) {
      int numOut = s.rows == 0 ? 1 : axis == 0 ? s.cols : s.rows;
      for (const Kind &k : kinds) {
        bool isFloat = std::string(k.type) == "f32";
        bool arg = std::string(k.name).rfind("arg", 0) == 0;
        // Quarter steps in [-4, 4): ties for argmax/argmin, exact sums of
        // small blocks; ints in [-5, 5] (and wide ones for xor).
        std::vector<float> xf(numel);
        std::vector<int32_t> xi(numel);
        std::uniform_int_distribution<int> q(-16, 15), w(-5, 5);
        for (int i = 0; i < numel; ++i) {
          xf[i] = isFloat && !arg ? std::ldexp(float(q(rng)), -2) +
                                        float(i % 7) * 1e-3f
                                  : std::ldexp(float(q(rng)), -2);
          bool bits = std::string(k.name) == "xor_sum" ||
                      std::string(k.name) == "reduce_or";
          // reduce_or: one random bit set a value, so that rows differ.
          xi[i] = !bits ? w(rng)
                  : std::string(k.name) == "xor_sum"
                      ? int32_t(rng())
                      : int32_t(1u << (rng() % 32));
        }
        for (int warps : {1, 8}) {
          if (numel > 128 * 32 * warps)
            continue; // more than 128 registers a thread: spills, slow
          CompileOptions o;
          o.overrideNumWarps = warps;
          std::string src = reduceSource(s, axis, k.name, k.type);
          auto kernel = compileKite(src, o, "red.kite");
          ASSERT_TRUE(kernel.ok()) << src << kernel.error().str();
          std::string what = std::string(k.name) + " " + k.type + " " +
                             std::to_string(s.rows) + "x" +
                             std::to_string(s.cols) + " axis " +
                             std::to_string(axis) + " warps " +
                             std::to_string(warps);
          ++cases;
          if (isFloat && !arg) {
            auto dx = DeviceBuffer<float>::fromHost(xf).value();
            auto dout = DeviceBuffer<float>::allocate(numOut).value();
            std::vector<float> host(numOut);
            ASSERT_TRUE(kernel->launch(1, {dx, dout}).ok()) << what;
            ASSERT_TRUE(kernel->interpret(1, {xf, host}).ok()) << what;
            auto gpu = dout.toHost().value();
            for (int i = 0; i < numOut; ++i)
              ASSERT_NEAR(gpu[i], host[i], 1e-5 * numel + 1e-6)
                  << what << " at " << i;
          } else if (isFloat) {
            auto dx = DeviceBuffer<float>::fromHost(xf).value();
            auto dout = DeviceBuffer<int32_t>::allocate(numOut).value();
            std::vector<int32_t> host(numOut);
            ASSERT_TRUE(kernel->launch(1, {dx, dout}).ok()) << what;
            ASSERT_TRUE(kernel->interpret(1, {xf, host}).ok()) << what;
            ASSERT_EQ(dout.toHost().value(), host) << what;
          } else {
            auto dx = DeviceBuffer<int32_t>::fromHost(xi).value();
            auto dout = DeviceBuffer<int32_t>::allocate(numOut).value();
            std::vector<int32_t> host(numOut);
            ASSERT_TRUE(kernel->launch(1, {dx, dout}).ok()) << what;
            ASSERT_TRUE(kernel->interpret(1, {xi, host}).ok()) << what;
            ASSERT_EQ(dout.toHost().value(), host) << what;
          }
        }
      }
    }
  }
  EXPECT_GE(cases, 280); // every case above ran
}

/// A kernel storing `kind` (cumsum, cumprod) of a rows x cols (or 1-D)
/// block along `axis`, optionally reversed.
static std::string scanSource(Shape s, int axis, const std::string &kind,
                              const std::string &type, bool reverse) {
  std::ostringstream src;
  std::string rev = reverse ? ", reverse=True" : "";
  src << "@kernel\ndef sc(x: *" << type << ", out: *" << type << "):\n";
  if (s.rows == 0) {
    src << "    o = arange(0, " << s.cols << ")\n";
  } else {
    src << "    o = arange(0, " << s.rows << ")[:, None] * " << s.cols
        << " + arange(0, " << s.cols << ")[None, :]\n";
  }
  src << "    store(out + o, " << kind << "(load(x + o), axis=" << axis << rev
      << "))\n";
  return src.str();
}

TEST(GPU, ScansAgreeWithTheInterpreter) {
  REQUIRE_GPU();
  std::vector<Shape> shapes = {{0, 1},   {0, 32},   {0, 1024}, {0, 4096},
                               {4, 8},   {32, 32},  {64, 128}, {16, 1024},
                               {256, 4}, {2, 2048}};
  std::mt19937 rng(9);
  int cases = 0;
  for (Shape s : shapes) {
    int numel = (s.rows ? s.rows : 1) * s.cols;
    for (int axis = 0; axis < (s.rows ? 2 : 1); ++axis)
      for (auto [kind, type] : {std::pair<const char *, const char *>{"cumsum", "f32"},
                                {"cumsum", "i32"},
                                {"cumprod", "i32"}})
        for (bool reverse : {false, true})
          for (int warps : {1, 8}) {
            if (numel > 64 * 32 * warps)
              continue;
            // Quarter steps: float sums exact in any order; odd ints for
            // products (wrapping, exact in any order).
            std::vector<float> xf(numel);
            std::vector<int32_t> xi(numel);
            std::uniform_int_distribution<int> q(-16, 15);
            for (int i = 0; i < numel; ++i) {
              xf[i] = std::ldexp(float(q(rng)), -2);
              xi[i] = std::string(kind) == "cumprod" ? 2 * q(rng) + 1 : q(rng);
            }
            CompileOptions o;
            o.overrideNumWarps = warps;
            std::string src = scanSource(s, axis, kind, type, reverse);
            auto k = compileKite(src, o, "sc.kite");
            ASSERT_TRUE(k.ok()) << src << k.error().str();
            std::string what = std::string(kind) + " " + type + " " +
                               std::to_string(s.rows) + "x" +
                               std::to_string(s.cols) + " axis " +
                               std::to_string(axis) +
                               (reverse ? " reversed" : "") + " warps " +
                               std::to_string(warps);
            ++cases;
            if (std::string(type) == "f32") {
              auto dx = DeviceBuffer<float>::fromHost(xf).value();
              auto dout = DeviceBuffer<float>::allocate(numel).value();
              std::vector<float> host(numel);
              ASSERT_TRUE(k->launch(1, {dx, dout}).ok()) << what;
              ASSERT_TRUE(k->interpret(1, {xf, host}).ok()) << what;
              ASSERT_EQ(dout.toHost().value(), host) << what;
            } else {
              auto dx = DeviceBuffer<int32_t>::fromHost(xi).value();
              auto dout = DeviceBuffer<int32_t>::allocate(numel).value();
              std::vector<int32_t> host(numel);
              ASSERT_TRUE(k->launch(1, {dx, dout}).ok()) << what;
              ASSERT_TRUE(k->interpret(1, {xi, host}).ok()) << what;
              ASSERT_EQ(dout.toHost().value(), host) << what;
            }
          }
  }
  EXPECT_GE(cases, 100); // every case above ran
}

TEST(GPU, SoftmaxOddWidths) {
  REQUIRE_GPU();
  for (int cols : {1, 3, 781, 1024, 16383}) {
    int rows = 37, block = 1;
    while (block < cols)
      block *= 2;
    CompileOptions o;
    o.constants = {{"BLOCK_SIZE", block}};
    auto k = compileKite(source("softmax.kite"), o, "softmax.kite").value();
    auto x = randomVector(size_t(rows) * cols, 3);
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dy = DeviceBuffer<float>::allocate(x.size()).value();
    // Fewer programs than rows: each loops over several.
    ASSERT_TRUE(k.launch(5, {dy, dx, cols, cols, rows, cols}).ok());
    auto y = dy.toHost().value();
    double maxErr = 0;
    for (int r = 0; r < rows; ++r) {
      double m = -INFINITY, sum = 0;
      for (int c = 0; c < cols; ++c)
        m = std::fmax(m, x[size_t(r) * cols + c]);
      for (int c = 0; c < cols; ++c)
        sum += std::exp(x[size_t(r) * cols + c] - m);
      for (int c = 0; c < cols; ++c)
        maxErr = std::fmax(maxErr,
                           std::fabs(y[size_t(r) * cols + c] -
                                     std::exp(x[size_t(r) * cols + c] - m) / sum));
    }
    EXPECT_LT(maxErr, 1e-6) << "softmax, " << cols << " columns";
  }
}

TEST(GPU, LayerNormOddWidths) {
  REQUIRE_GPU();
  for (int cols : {1, 3, 781, 4096, 16383}) {
    int rows = 29, block = 1;
    while (block < cols)
      block *= 2;
    CompileOptions o;
    o.constants = {{"BLOCK_SIZE", std::min(block, 4096)}};
    auto k = compileKite(source("layer_norm.kite"), o, "layer_norm.kite").value();
    auto xf = randomVector(size_t(rows) * cols, 4);
    std::vector<uint16_t> x(xf.size()), w(cols), b(cols);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = toHalfBits(1.5f + xf[i], false);
    for (int c = 0; c < cols; ++c)
      w[c] = toHalfBits(0.5f + 0.01f * (c % 50), false),
      b[c] = toHalfBits(0.02f * (c % 9), false);
    auto dx = DeviceBuffer<uint16_t>::fromHost(x).value();
    auto dw = DeviceBuffer<uint16_t>::fromHost(w).value();
    auto db = DeviceBuffer<uint16_t>::fromHost(b).value();
    auto dy = DeviceBuffer<uint16_t>::allocate(x.size()).value();
    auto dm = DeviceBuffer<float>::allocate(rows).value();
    auto dr = DeviceBuffer<float>::allocate(rows).value();
    ASSERT_TRUE(
        k.launch(rows, {dx, dy, dw, db, dm, dr, cols, cols, 1e-5f}).ok());
    auto y = dy.toHost().value();
    auto mean = dm.toHost().value(), rstd = dr.toHost().value();
    double maxErr = 0, statErr = 0;
    for (int r = 0; r < rows; ++r) {
      double m = 0, v = 0;
      for (int c = 0; c < cols; ++c)
        m += fromHalfBits(x[size_t(r) * cols + c], false);
      m /= cols;
      for (int c = 0; c < cols; ++c)
        v += std::pow(fromHalfBits(x[size_t(r) * cols + c], false) - m, 2);
      v /= cols;
      double rs = 1 / std::sqrt(v + 1e-5);
      statErr = std::fmax(statErr,
                          std::fabs(mean[r] - m) + std::fabs(rstd[r] - rs) / rs);
      for (int c = 0; c < cols; ++c) {
        size_t i = size_t(r) * cols + c;
        double want = (fromHalfBits(x[i], false) - m) * rs *
                          fromHalfBits(w[c], false) +
                      fromHalfBits(b[c], false);
        maxErr = std::fmax(maxErr, std::fabs(fromHalfBits(y[i], false) - want));
      }
    }
    EXPECT_LT(maxErr, 1e-2) << "layer norm, " << cols << " columns";
    EXPECT_LT(statErr, 1e-4) << "layer norm, " << cols << " columns";
  }
}

TEST(GPU, FlipAgreesWithTheInterpreter) {
  REQUIRE_GPU();
  for (int warps : {1, 4}) {
    const char *src = R"(@kernel
def f(x: *f32, y: *f32, z: *f32):
    i = arange(0, 16)[:, None] * 64 + arange(0, 64)[None, :]
    v = load(x + i)
    store(y + i, flip(v))
    store(z + i, flip(v, 0))
)";
    CompileOptions o;
    o.overrideNumWarps = warps;
    auto k = compileKite(src, o, "flip.kite").value();
    auto x = randomVector(1024, 31);
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dy = DeviceBuffer<float>::allocate(1024).value();
    auto dz = DeviceBuffer<float>::allocate(1024).value();
    std::vector<float> hy(1024), hz(1024);
    ASSERT_TRUE(k.launch(1, {dx, dy, dz}).ok());
    ASSERT_TRUE(k.interpret(1, {x, hy, hz}).ok());
    EXPECT_EQ(dy.toHost().value(), hy) << warps << " warps";
    EXPECT_EQ(dz.toHost().value(), hz) << warps << " warps";
  }
}

// join / split / interleave through shared memory on the GPU, against the
// interpreter (1 and 4 warps; 2-D blocks).
TEST(GPU, JoinSplitAgreeWithTheInterpreter) {
  REQUIRE_GPU();
  for (int warps : {1, 4}) {
    const char *src = R"(@kernel
def f(x: *f32, y: *f32, z: *f32):
    i = arange(0, 16)[:, None] * 64 + arange(0, 64)[None, :]
    v = load(x + i)
    w = interleave(v, v * 3.0)
    j = arange(0, 16)[:, None] * 128 + arange(0, 128)[None, :]
    store(y + j, w)
    a, b = split(join(v * 2.0, v + 1.0))
    store(z + i, a - b)
)";
    CompileOptions o;
    o.overrideNumWarps = warps;
    auto k = compileKite(src, o, "join.kite").value();
    auto x = randomVector(1024, 37);
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dy = DeviceBuffer<float>::allocate(2048).value();
    auto dz = DeviceBuffer<float>::allocate(1024).value();
    std::vector<float> hy(2048), hz(1024);
    ASSERT_TRUE(k.launch(1, {dx, dy, dz}).ok());
    ASSERT_TRUE(k.interpret(1, {x, hy, hz}).ok());
    EXPECT_EQ(dy.toHost().value(), hy) << warps << " warps";
    EXPECT_EQ(dz.toHost().value(), hz) << warps << " warps";
    EXPECT_EQ(hy[1], 3.0f * x[0]);
  }
}

// sort on the GPU (a bitonic network through shared memory) against the
// interpreter: rows of 1024 on 4 warps (several pairs a thread), 8 rows of
// 64 on 1 warp, ascending and descending, with NaNs, zeros of both signs
// and repeated values; and i32.
// Triton's softmax builtin (x - max, exp, sum, divide) along either axis of
// an 8 x 1024 block on 4 warps against the host in double.
TEST(GPU, SoftmaxBuiltin) {
  REQUIRE_GPU();
  const char *src = R"(
@kernel(num_warps=4)
def f(x: *f32, rows: *f32, cols: *f32):
    i = arange(0, 8)[:, None] * 1024 + arange(0, 1024)[None, :]
    v = load(x + i)
    store(rows + i, softmax(v, dim=1, keep_dims=True))
    store(cols + i, v.softmax())
)";
  auto k = compileKite(src, CompileOptions{}, "softmax_builtin.kite").value();
  const int R = 8, C = 1024;
  auto x = randomVector(size_t(R) * C, 5);
  for (float &v : x)
    v *= 8;
  auto dx = DeviceBuffer<float>::fromHost(x).value();
  auto dr = DeviceBuffer<float>::allocate(x.size()).value();
  auto dc = DeviceBuffer<float>::allocate(x.size()).value();
  ASSERT_TRUE(k.launch(1, {dx, dr, dc}).ok());
  auto gr = dr.toHost().value(), gc = dc.toHost().value();
  // Each of `lines` lines of `len` elements (element i of line l at
  // l * across + i * along) against its softmax in double.
  auto check = [&](const std::vector<float> &got, int lines, int len,
                   int across, int along, const char *what) {
    for (int l = 0; l < lines; ++l) {
      auto at = [&](int i) { return size_t(l) * across + size_t(i) * along; };
      double m = -INFINITY, sum = 0;
      for (int i = 0; i < len; ++i)
        m = std::max(m, double(x[at(i)]));
      for (int i = 0; i < len; ++i)
        sum += std::exp(double(x[at(i)]) - m);
      for (int i = 0; i < len; ++i) {
        double want = std::exp(double(x[at(i)]) - m) / sum;
        ASSERT_NEAR(got[at(i)], want, 1e-5 * want + 1e-9)
            << what << " " << l << ", element " << i;
      }
    }
  };
  check(gr, R, C, C, 1, "row");
  check(gc, C, R, 1, C, "column");
}

TEST(GPU, SortAgreesWithTheInterpreter) {
  REQUIRE_GPU();
  struct Case { int rows, cols, warps; };
  for (Case c : {Case{1, 1024, 4}, Case{8, 64, 1}, Case{4, 32, 4}}) {
    std::string src = "@kernel\ndef f(x: *f32, y: *f32, z: *f32, xi: *i32, yi: *i32):\n"
                      "    i = arange(0, " + std::to_string(c.rows) + ")[:, None] * " +
                      std::to_string(c.cols) + " + arange(0, " +
                      std::to_string(c.cols) + ")[None, :]\n"
                      "    v = load(x + i)\n"
                      "    store(y + i, sort(v))\n"
                      "    store(z + i, sort(v, descending=True))\n"
                      "    store(yi + i, sort(load(xi + i), descending=True))\n";
    CompileOptions o;
    o.overrideNumWarps = c.warps;
    auto k = compileKite(src, o, "sort.kite").value();
    size_t n = size_t(c.rows) * c.cols;
    auto x = randomVector(n, 41);
    std::vector<int32_t> xi(n);
    for (size_t i = 0; i < n; ++i) {
      x[i] = std::round(x[i] * 4) / 4; // repeats
      xi[i] = int32_t(x[i] * 8);
    }
    x[3] = std::nanf("");
    x[5] = -0.0f;
    x[6] = 0.0f;
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dxi = DeviceBuffer<int32_t>::fromHost(xi).value();
    auto dy = DeviceBuffer<float>::allocate(n).value();
    auto dz = DeviceBuffer<float>::allocate(n).value();
    auto dyi = DeviceBuffer<int32_t>::allocate(n).value();
    std::vector<float> hy(n), hz(n);
    std::vector<int32_t> hyi(n);
    ASSERT_TRUE(k.launch(1, {dx, dy, dz, dxi, dyi}).ok());
    ASSERT_TRUE(k.interpret(1, {x, hy, hz, xi, hyi}).ok());
    auto gy = dy.toHost().value(), gz = dz.toHost().value();
    auto bits = [](const std::vector<float> &v) {
      std::vector<uint32_t> b(v.size());
      std::memcpy(b.data(), v.data(), v.size() * 4);
      return b;
    };
    EXPECT_EQ(bits(gy), bits(hy)) << c.rows << "x" << c.cols;
    EXPECT_EQ(bits(gz), bits(hz)) << c.rows << "x" << c.cols;
    EXPECT_EQ(dyi.toHost().value(), hyi) << c.rows << "x" << c.cols;
    EXPECT_TRUE(std::isnan(hy[c.cols - 1])); // NaN last in row 0
  }
}

// reduce / associative_scan with a combine function on the GPU (the helper
// inlined into the op's region, applied at every tree step) against the
// interpreter: integer products and xor (exact in any order), max of
// absolute values, both axes, reverse scans, 1 and 4 warps.
TEST(GPU, CombineFunctionsAgreeWithTheInterpreter) {
  REQUIRE_GPU();
  const char *src = R"(def mul(a, b):
    return a * b

def mix(a, b):
    return a ^ b

def maxabs(a, b):
    return maximum(abs(a), abs(b))

@kernel
def f(x: *i32, g: *f32, p: *i32, q: *i32, s: *i32, t: *i32, m: *f32):
    i = arange(0, 16)[:, None] * 64 + arange(0, 64)[None, :]
    v = load(x + i)
    store(p + arange(0, 16), reduce(v, 1, mul))
    store(q + arange(0, 64), reduce(v, 0, mix))
    store(s + i, associative_scan(v, 1, mul))
    store(t + i, associative_scan(v, 0, mix, reverse=True))
    store(m + arange(0, 64), reduce(load(g + i), 0, maxabs))
)";
  for (int warps : {1, 4}) {
    CompileOptions o;
    o.overrideNumWarps = warps;
    auto k = compileKite(src, o, "combine.kite").value();
    std::vector<int32_t> x(1024);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = int32_t((i * 2654435761u) >> 20) % 7 - 3;
    auto g = randomVector(1024, 43);
    auto dx = DeviceBuffer<int32_t>::fromHost(x).value();
    auto dg = DeviceBuffer<float>::fromHost(g).value();
    auto dp = DeviceBuffer<int32_t>::allocate(16).value();
    auto dq = DeviceBuffer<int32_t>::allocate(64).value();
    auto ds = DeviceBuffer<int32_t>::allocate(1024).value();
    auto dt = DeviceBuffer<int32_t>::allocate(1024).value();
    auto dm = DeviceBuffer<float>::allocate(64).value();
    std::vector<int32_t> hp(16), hq(64), hs(1024), ht(1024);
    std::vector<float> hm(64);
    ASSERT_TRUE(k.launch(1, {dx, dg, dp, dq, ds, dt, dm}).ok());
    ASSERT_TRUE(k.interpret(1, {x, g, hp, hq, hs, ht, hm}).ok());
    EXPECT_EQ(dp.toHost().value(), hp) << warps << " warps";
    EXPECT_EQ(dq.toHost().value(), hq) << warps << " warps";
    EXPECT_EQ(ds.toHost().value(), hs) << warps << " warps";
    EXPECT_EQ(dt.toHost().value(), ht) << warps << " warps";
    EXPECT_EQ(dm.toHost().value(), hm) << warps << " warps";
  }
}

// reduce of a tuple of blocks (Triton's tl.reduce((a, b, c), axis, fn)):
// Welford's mean and M2 of rows and of columns against a float64 host
// reference (rows of 781 columns: a masked tail, the count block carrying
// which elements are in), and a custom argmax carrying (value, index)
// exactly against the interpreter and the host; 1, 4 and 8 warps (the
// partials of warps along the axis go through shared memory).
TEST(GPU, TupleReductions) {
  REQUIRE_GPU();
  const char *src = R"(def welford(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    delta = mean_b - mean_a
    w_b = where(n == 0.0, 0.0, n_b / n)
    return mean_a + delta * w_b, m2_a + m2_b + delta * delta * n_a * w_b, n

def first_max(v_a, i_a, v_b, i_b):
    take = (v_b > v_a) | ((v_b == v_a) & (i_b < i_a))
    return where(take, v_b, v_a), where(take, i_b, i_a)

@kernel
def f(x: *f32, mean: *f32, var: *f32, cmean: *f32, cvar: *f32, amax: *i32,
      vmax: *f32, n_cols: i32, BLOCK: constexpr = 1024):
    r = program_id(0)
    cols = arange(0, BLOCK)
    inside = cols < n_cols
    x_row = load(x + r * n_cols + cols, mask=inside, other=0.0)
    m, m2, n = reduce((x_row, zeros_like(x_row), where(inside, 1.0, 0.0)), 0,
                      welford)
    store(mean + r, m)
    store(var + r, m2 / n)
    v, i = reduce((where(inside, x_row, -float('inf')), cols), 0, first_max)
    store(amax + r, i)
    store(vmax + r, v)
    # Columns 0..63 of rows 0..15 as a 16 x 64 block, down axis 0.
    if r == 0:
        b = load(x + arange(0, 16)[:, None] * n_cols + arange(0, 64)[None, :])
        cm, cm2, cn = reduce((b, zeros_like(b), full((16, 64), 1.0, f32)), 0,
                             welford, keep_dims=True)
        store(cmean + arange(0, 64)[None, :], cm)
        store(cvar + arange(0, 64)[None, :], cm2 / cn)
)";
  const int rows = 16, cols = 781;
  auto x = randomVector(size_t(rows) * cols, 91);
  for (size_t i = 0; i < x.size(); i += 97)
    x[i + 3 < x.size() ? i + 3 : i] = 4.0f; // ties for the argmax
  for (int warps : {1, 4, 8}) {
    CompileOptions o;
    o.overrideNumWarps = warps;
    auto k = compileKite(src, o, "tuple.kite");
    ASSERT_TRUE(k) << k.error().str();
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dmean = DeviceBuffer<float>::allocate(rows).value();
    auto dvar = DeviceBuffer<float>::allocate(rows).value();
    auto dcm = DeviceBuffer<float>::allocate(64).value();
    auto dcv = DeviceBuffer<float>::allocate(64).value();
    auto damax = DeviceBuffer<int32_t>::allocate(rows).value();
    auto dvmax = DeviceBuffer<float>::allocate(rows).value();
    auto run = k->launch(rows, {dx, dmean, dvar, dcm, dcv, damax, dvmax, cols});
    ASSERT_TRUE(run) << run.error().str();
    std::vector<float> hmean(rows), hvar(rows), hcm(64), hcv(64), hvmax(rows);
    std::vector<int32_t> hamax(rows);
    auto in =
        k->interpret(rows, {x, hmean, hvar, hcm, hcv, hamax, hvmax, cols});
    ASSERT_TRUE(in) << in.error().str();
    auto mean = dmean.toHost().value(), var = dvar.toHost().value();
    auto cm = dcm.toHost().value(), cv = dcv.toHost().value();
    auto amax = damax.toHost().value();
    // Float64 reference, two passes.
    auto stats = [&](auto at, int n) {
      double s = 0, q = 0;
      for (int j = 0; j < n; ++j)
        s += at(j);
      double mu = s / n;
      for (int j = 0; j < n; ++j)
        q += (at(j) - mu) * (at(j) - mu);
      return std::pair<double, double>(mu, q / n);
    };
    for (int r = 0; r < rows; ++r) {
      auto [mu, v] =
          stats([&](int j) { return double(x[size_t(r) * cols + j]); }, cols);
      EXPECT_NEAR(mean[r], mu, 1e-5)
          << "row " << r << ", " << warps << " warps";
      EXPECT_NEAR(var[r], v, 1e-4 * std::max(1.0, v)) << "row " << r;
      int best = 0;
      for (int j = 1; j < cols; ++j)
        if (x[size_t(r) * cols + j] > x[size_t(r) * cols + best])
          best = j;
      EXPECT_EQ(amax[r], best) << "row " << r << ", " << warps << " warps";
    }
    EXPECT_EQ(amax, hamax) << warps << " warps";
    for (int c = 0; c < 64; ++c) {
      auto [mu, v] =
          stats([&](int j) { return double(x[size_t(j) * cols + c]); }, rows);
      EXPECT_NEAR(cm[c], mu, 1e-5)
          << "column " << c << ", " << warps << " warps";
      EXPECT_NEAR(cv[c], v, 1e-4 * std::max(1.0, v)) << "column " << c;
    }
  }
}

// associative_scan of a tuple of blocks: a running maximum with its index
// (ties to the first) and, reversed, of each suffix, along both axes of a
// 16 x 64 block, exactly against the interpreter and the host; 1, 4 and 8
// warps (steps across warps go through shared memory, one block at a
// time).
TEST(GPU, TupleScans) {
  REQUIRE_GPU();
  const char *src = R"(def first_max(v_a, i_a, v_b, i_b):
    take = (v_b > v_a) | ((v_b == v_a) & (i_b < i_a))
    return where(take, v_b, v_a), where(take, i_b, i_a)

@kernel
def f(x: *f32, m1: *f32, i1: *i32, m0: *f32, i0: *i32):
    r = arange(0, 16)[:, None]
    c = arange(0, 64)[None, :]
    v = load(x + r * 64 + c)
    a, b = associative_scan((v, c + r * 0), 1, first_max)
    store(m1 + r * 64 + c, a)
    store(i1 + r * 64 + c, b)
    a, b = associative_scan((v, r + c * 0), 0, first_max, reverse=True)
    store(m0 + r * 64 + c, a)
    store(i0 + r * 64 + c, b)
)";
  std::vector<float> x(1024);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(int((i * 2654435761u) >> 22) % 29); // many ties
  for (int warps : {1, 4, 8}) {
    CompileOptions o;
    o.overrideNumWarps = warps;
    auto k = compileKite(src, o, "tuple_scan.kite");
    ASSERT_TRUE(k) << k.error().str();
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dm1 = DeviceBuffer<float>::allocate(1024).value();
    auto di1 = DeviceBuffer<int32_t>::allocate(1024).value();
    auto dm0 = DeviceBuffer<float>::allocate(1024).value();
    auto di0 = DeviceBuffer<int32_t>::allocate(1024).value();
    auto run = k->launch(1, {dx, dm1, di1, dm0, di0});
    ASSERT_TRUE(run) << run.error().str();
    std::vector<float> hm1(1024), hm0(1024);
    std::vector<int32_t> hi1(1024), hi0(1024);
    auto in = k->interpret(1, {x, hm1, hi1, hm0, hi0});
    ASSERT_TRUE(in) << in.error().str();
    EXPECT_EQ(dm1.toHost().value(), hm1) << warps << " warps";
    EXPECT_EQ(di1.toHost().value(), hi1) << warps << " warps";
    EXPECT_EQ(dm0.toHost().value(), hm0) << warps << " warps";
    EXPECT_EQ(di0.toHost().value(), hi0) << warps << " warps";
    // The host: row 3's running maximum, column 5's suffix maximum.
    for (int c = 0, best = 0; c < 64; ++c) {
      if (x[3 * 64 + c] > x[3 * 64 + best])
        best = c;
      EXPECT_EQ(hi1[3 * 64 + c], best) << "column " << c;
    }
    for (int r = 15, best = 15; r >= 0; --r) {
      if (x[r * 64 + 5] >= x[best * 64 + 5])
        best = r;
      EXPECT_EQ(hi0[r * 64 + 5], best) << "row " << r;
    }
  }
}
