//===- AutotuneGPUTest.cpp - Autotuning on a GPU ---------------------------===//
//
// The autotuner's real trials: a kernel that updates its input in place
// (x += y) is tuned and launched once; the trials' writes must be undone,
// so x ends as x0 + y exactly. The choice is kept per configuration on disk
// (one .tune entry each). And Triton's tutorial matmul with the tutorial's
// configurations (dsl-examples/matmul_autotune.kite) picks differently for
// 1024^3 and 8192^3, both correct. Skipped, with the reason, without a GPU.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"

#include "GPUTestHelpers.h"
#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <dirent.h>
#include <random>
#include <string>
#include <unistd.h>

using namespace kite;
using namespace kite::test;

TEST(GPU, AutotuneTrialsLeaveInputsUnchanged) {
  REQUIRE_GPU();
  char tmpl[] = "/tmp/kite-tune-gpu-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  std::string oldDir = std::getenv("KITE_CACHE_DIR") ? std::getenv("KITE_CACHE_DIR") : "";
  setenv("KITE_CACHE_DIR", dir.c_str(), 1);
  const char *src = R"(@autotune(configs=[config(BLOCK=1024, num_warps=4),
                   config(BLOCK=256, num_warps=2),
                   config(BLOCK=4096, num_warps=8)], key=["n"])
@kernel
def inplace(x: *f32, y: *f32, n: i32, BLOCK: constexpr):
    offs = program_id(0) * BLOCK + arange(0, BLOCK)
    m = offs < n
    store(x + offs, load(x + offs, mask=m) + load(y + offs, mask=m), mask=m)
)";
  auto k = compileKite(src, {}, "inplace.kite");
  ASSERT_TRUE(k.ok()) << k.error().str();
  ASSERT_EQ(k->configs().size(), 3u);
  size_t n = (size_t(1) << 22) + 5;
  auto x0 = randomVector(n, 21), y = randomVector(n, 22);
  auto dx = DeviceBuffer<float>::fromHost(x0).value();
  auto dy = DeviceBuffer<float>::fromHost(y).value();
  auto grid = [&](const TuningConfig &c) {
    return Grid(cdiv(n, uint64_t(c.constants.at("BLOCK"))));
  };
  auto launched = k->launch(grid, {dx, dy, int32_t(n)});
  ASSERT_TRUE(launched.ok()) << launched.error().str();
  auto x = dx.toHost().value();
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    bad += x[i] != x0[i] + y[i];
  EXPECT_EQ(bad, 0u) << "the trials' writes were not undone";
  // One entry per configuration; a new Kernel reuses the choice.
  int entries = 0;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d)) {
      std::string name = e->d_name;
      entries += name.size() > 5 && name.compare(name.size() - 5, 5, ".tune") == 0;
    }
    closedir(d);
  }
  EXPECT_EQ(entries, 3);
  auto chosen = k->tune(grid, {dx, dy, int32_t(n)});
  ASSERT_TRUE(chosen.ok());
  clearMemoryCache();
  auto again = compileKite(src, {}, "inplace.kite").value();
  auto reused = again.tune(grid, {dx, dy, int32_t(n)});
  ASSERT_TRUE(reused.ok()) << reused.error().str();
  EXPECT_EQ(reused->str(), chosen->str());
  std::string cmd = "rm -rf '" + dir + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  if (oldDir.empty())
    unsetenv("KITE_CACHE_DIR");
  else
    setenv("KITE_CACHE_DIR", oldDir.c_str(), 1);
}

TEST(GPU, TutorialMatmulTunedPerSize) {
  REQUIRE_GPU();
  std::string text = source("matmul_autotune.kite");
  ASSERT_FALSE(text.empty()) << "dsl-examples/matmul_autotune.kite not found";
  auto k = compileKite(text, {}, "matmul_autotune.kite");
  ASSERT_TRUE(k.ok()) << k.error().str();
  ASSERT_EQ(k->configs().size(), 8u);
  std::vector<std::string> chosen;
  for (int n : {1024, 8192}) {
    size_t count = size_t(n) * n;
    std::vector<uint16_t> a(count), b(count);
    auto fa = randomVector(count, 31), fb = randomVector(count, 32);
    for (size_t i = 0; i < count; ++i) {
      a[i] = toHalfBits(fa[i], false);
      b[i] = toHalfBits(fb[i], false);
    }
    auto da = DeviceBuffer<uint16_t>::fromHost(a).value();
    auto db = DeviceBuffer<uint16_t>::fromHost(b).value();
    auto dc = DeviceBuffer<uint16_t>::allocate(count).value();
    std::vector<Arg> args = {da, db, dc, n, n, n, n, 1, n, 1, n, 1};
    auto grid = [n](const TuningConfig &t) {
      return Grid(uint32_t(cdiv(n, int(t.constants.at("BLOCK_M"))) *
                           cdiv(n, int(t.constants.at("BLOCK_N")))));
    };
    auto t = k->tune(grid, args);
    ASSERT_TRUE(t.ok()) << t.error().str();
    chosen.push_back(t->str());
    auto launched = k->launch(grid, args);
    ASSERT_TRUE(launched.ok()) << launched.error().str();
    auto c = dc.toHost().value();
    // 512 sampled elements against float64 over the f16 inputs.
    std::mt19937 pick(n);
    double num = 0, den = 0;
    for (int s = 0; s < 512; ++s) {
      int i = int(pick() % n), j = int(pick() % n);
      double r = 0;
      for (int kk = 0; kk < n; ++kk)
        r += double(fromHalfBits(a[size_t(i) * n + kk], false)) *
             fromHalfBits(b[size_t(kk) * n + j], false);
      double d = fromHalfBits(c[size_t(i) * n + j], false) - r;
      num += d * d;
      den += r * r;
    }
    double err = std::sqrt(num / den);
    EXPECT_LE(err, 2e-3) << n << "^3 with " << t->str();
  }
  // 32 programs of 128x256 leave most of an H100 idle at 1024^3, and small
  // blocks lose at 8192^3 (1.7x apart in both directions).
  EXPECT_NE(chosen[0], chosen[1]) << "the same choice for 1024^3 and 8192^3: "
                                  << chosen[0];
}
