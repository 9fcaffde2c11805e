//===- AutotuneGPUTest.cpp - Autotuning on a GPU ---------------------------===//
//
// The autotuner's real trials: a kernel that updates its input in place
// (x += y) is tuned and launched once; the trials' writes must be undone,
// so x ends as x0 + y exactly. The choice is kept per configuration on disk
// (one .tune entry each). Skipped, with the reason, without a GPU.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"

#include "GPUTestHelpers.h"
#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dirent.h>
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
