//===- SortGPUTest.cpp - sort, topk and bitonic_merge on the GPU -----------===//
//
// Split from LanguageGPUTest.cpp along this seam. Skipped without a GPU.
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

// sort and topk (Triton's tl.sort, tl.topk) on the GPU's bitonic network
// (SortToGPU.cpp: registers, lane shuffles, and shared memory for the bits
// across warps) against the interpreter bit for bit, for f32 (with NaNs,
// infinities, -0.0 and ties; against a host sort too), f16, f64, signed i8
// and unsigned u32, rows within a warp and rows across 4 and 8 warps,
// ascending and descending, k of 1 .. the row; bitonic_merge (the last
// stage of the network, on rows that are not bitonic) likewise.
const char *kSortTopk = R"(
@kernel
def st(X: *DT, Y: *DT, T: *DT, G: *DT, ROWS: constexpr, N: constexpr,
       K: constexpr, DESC: constexpr):
    r = program_id(0) * ROWS + arange(0, ROWS)
    offs = r[:, None] * N + arange(0, N)[None, :]
    x = load(X + offs)
    store(Y + offs, sort(x, descending=DESC))
    store(T + r[:, None] * K + arange(0, K)[None, :], topk(x, K))
    store(G + offs, bitonic_merge(x, descending=DESC))
)";

struct SortCase {
  int rows, n, k, warps;
  bool desc;
};

template <typename H>
void checkSortCase(const char *dt, const SortCase &c, const std::vector<H> &x) {
  std::string src = kSortTopk;
  for (int r = 0; r < 4; ++r)
    src.replace(src.find("DT"), 2, dt);
  CompileOptions o;
  o.overrideNumWarps = c.warps;
  o.constants = {
      {"ROWS", c.rows}, {"N", c.n}, {"K", c.k}, {"DESC", int(c.desc)}};
  auto k = compileKite(src, o, "sort.kite");
  ASSERT_TRUE(k) << k.error().str();
  const int programs = 3;
  size_t total = size_t(programs) * c.rows * c.n;
  size_t tops = size_t(programs) * c.rows * c.k;
  ASSERT_EQ(x.size(), total);
  auto dx = DeviceBuffer<H>::fromHost(x).value();
  auto dy = DeviceBuffer<H>::allocate(total).value();
  auto dt_ = DeviceBuffer<H>::allocate(tops).value();
  auto dg = DeviceBuffer<H>::allocate(total).value();
  auto ran = k->launch(programs, {Arg(dx), Arg(dy), Arg(dt_), Arg(dg)});
  ASSERT_TRUE(ran) << ran.error().str();
  std::vector<H> hx(x), hy(total), ht(tops), hg(total);
  auto in = k->interpret(programs, {hx, hy, ht, hg});
  ASSERT_TRUE(in) << in.error().str();
  auto y = dy.toHost().value();
  auto t = dt_.toHost().value();
  auto g = dg.toHost().value();
  std::string what = std::string(dt) + " " + std::to_string(c.rows) + "x" +
                     std::to_string(c.n) + " k " + std::to_string(c.k) +
                     (c.desc ? " descending" : "") + " on " +
                     std::to_string(c.warps) + " warps";
  for (size_t i = 0; i < total; ++i)
    ASSERT_EQ(std::memcmp(&y[i], &hy[i], sizeof(H)), 0)
        << what << ": sorted element " << i;
  for (size_t i = 0; i < tops; ++i)
    ASSERT_EQ(std::memcmp(&t[i], &ht[i], sizeof(H)), 0)
        << what << ": top element " << i;
  for (size_t i = 0; i < total; ++i)
    ASSERT_EQ(std::memcmp(&g[i], &hg[i], sizeof(H)), 0)
        << what << ": merged element " << i;
}

TEST(GPU, SortAndTopk) {
  REQUIRE_GPU();
  std::mt19937 gen(2026);
  auto sizeOf = [](const SortCase &c) { return size_t(3) * c.rows * c.n; };
  for (SortCase c :
       {SortCase{2, 1024, 8, 4, false}, SortCase{32, 128, 8, 4, true},
        SortCase{64, 32, 32, 8, false}, SortCase{1, 4096, 64, 8, true},
        SortCase{4, 2, 1, 4, false}}) {
    // f32: NaNs, infinities, signed zeros and ties among the values.
    std::vector<float> x(sizeOf(c));
    std::uniform_int_distribution<int> pick(0, 19);
    for (float &v : x) {
      switch (pick(gen)) {
      case 0:
        v = std::nanf("");
        break;
      case 1:
        v = -std::nanf("");
        break;
      case 2:
        v = INFINITY;
        break;
      case 3:
        v = -INFINITY;
        break;
      case 4:
        v = -0.0f;
        break;
      case 5:
        v = 0.0f;
        break;
      case 6:
        v = 1.5f;
        break;
      default:
        v = std::normal_distribution<float>(0, 100)(gen);
      }
    }
    checkSortCase<float>("f32", c, x);
    // Against a host sort: NaNs last (first descending), -0.0 before 0.0.
    CompileOptions o;
    o.overrideNumWarps = c.warps;
    o.constants = {
        {"ROWS", c.rows}, {"N", c.n}, {"K", c.k}, {"DESC", int(c.desc)}};
    std::string src = kSortTopk;
    for (int r = 0; r < 4; ++r)
      src.replace(src.find("DT"), 2, "f32");
    auto k = compileKite(src, o, "sort.kite");
    ASSERT_TRUE(k) << k.error().str();
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dy = DeviceBuffer<float>::allocate(x.size()).value();
    auto dtop = DeviceBuffer<float>::allocate(x.size() / c.n * c.k).value();
    auto dmerge = DeviceBuffer<float>::allocate(x.size()).value();
    ASSERT_TRUE(k->launch(3, {Arg(dx), Arg(dy), Arg(dtop), Arg(dmerge)}));
    auto y = dy.toHost().value();
    auto top = dtop.toHost().value();
    auto less = [](float a, float b) {
      if (std::isnan(a))
        return false;
      if (std::isnan(b))
        return true;
      return a < b || (a == b && std::signbit(a) && !std::signbit(b));
    };
    for (size_t row = 0; row < x.size() / c.n; ++row) {
      std::vector<float> ref(x.begin() + row * c.n,
                             x.begin() + (row + 1) * c.n);
      std::sort(ref.begin(), ref.end(), less);
      std::vector<float> down(ref.rbegin(), ref.rend());
      const std::vector<float> &want = c.desc ? down : ref;
      for (int i = 0; i < c.n; ++i) {
        float g = y[row * c.n + i];
        ASSERT_TRUE(std::isnan(want[i]) ? std::isnan(g) && !std::signbit(g)
                                        : std::memcmp(&g, &want[i], 4) == 0)
            << "row " << row << " element " << i << ": " << g << " against "
            << want[i];
      }
      for (int i = 0; i < c.k; ++i) {
        float g = top[row * c.k + i];
        ASSERT_TRUE(std::isnan(down[i]) ? std::isnan(g)
                                        : std::memcmp(&g, &down[i], 4) == 0)
            << "top row " << row << " element " << i;
      }
    }
    // The other types against the interpreter.
    std::vector<uint16_t> h(sizeOf(c));
    for (uint16_t &v : h)
      v = toHalfBits(std::normal_distribution<float>(0, 10)(gen), false);
    h[1] = 0x7E00; // a NaN
    h[2] = 0x8000; // -0.0
    checkSortCase<uint16_t>("f16", c, h);
    std::vector<double> d(sizeOf(c));
    for (double &v : d)
      v = std::normal_distribution<double>(0, 1)(gen);
    d[0] = std::nan("");
    checkSortCase<double>("f64", c, d);
    std::vector<int8_t> i8(sizeOf(c));
    for (int8_t &v : i8)
      v = int8_t(gen());
    checkSortCase<int8_t>("i8", c, i8);
    std::vector<uint32_t> u(sizeOf(c));
    for (uint32_t &v : u)
      v = uint32_t(gen());
    u[0] = 0xFFFFFFFFu;
    checkSortCase<uint32_t>("u32", c, u);
  }
}
