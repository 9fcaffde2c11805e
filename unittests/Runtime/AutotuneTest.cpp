//===- AutotuneTest.cpp - Autotuning with a fake timer ---------------------===//
//
// The runtime's autotuner without a GPU: configurations compile (PTX for
// sm_90), a fake timer stands for the trials, and the choices, the disk
// round trip, re-tuning on a new key value, re-timing only an edited
// configuration, damaged entries and KITE_AUTOTUNE=0 are checked. Part of
// KiteRuntimeTests (its main points the driver at nothing).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestFixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <map>
#include <string>
#include <unistd.h>

using namespace kite;

namespace {

const char *kSource = R"(@autotune(configs=[config(BLOCK=1024, num_warps=4),
                   config(BLOCK=256, num_warps=2),
                   config(BLOCK=512, num_warps=4, num_stages=2, maxnreg=64)],
          key=["n"])
@kernel
def add(x: *f32, y: *f32, out: *f32, n: i32, BLOCK: constexpr):
    offs = program_id(0) * BLOCK + arange(0, BLOCK)
    m = offs < n
    store(out + offs, load(x + offs, mask=m) + load(y + offs, mask=m), mask=m)
)";

/// RuntimeTest's fresh cache directory, with a fake tuning timer.
class AutotuneTest : public RuntimeTest {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    unsetenv("KITE_AUTOTUNE");
    calls.clear();
    detail::setTuningTimerForTesting(
        [this](const TuningConfig &c, int index) {
          calls.push_back(index);
          return times.count(c.str()) ? times[c.str()] : 10.0;
        });
    options.chip = "sm_90";
  }
  void TearDown() override {
    detail::setTuningTimerForTesting({});
    RuntimeTest::TearDown();
  }
  Kernel compile(const std::string &src) {
    auto k = compileKite(src, options, "add.kite");
    EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().str());
    return *k;
  }
  std::vector<Arg> args(int n) {
    return {Arg::pointer(1 << 20), Arg::pointer(2 << 20), Arg::pointer(3 << 20),
            int32_t(n)};
  }
  static Grid grid(const TuningConfig &c) {
    return Grid(uint32_t((100000 + c.constants.at("BLOCK") - 1) /
                         c.constants.at("BLOCK")));
  }
  int tuneBlock(const Kernel &k, int n) {
    auto c = k.tune(grid, args(n));
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().str());
    return c.ok() ? int(c->constants.at("BLOCK")) : -1;
  }
  int countFiles(const std::string &suffix) {
    int count = 0;
    if (DIR *d = opendir(dir.c_str())) {
      while (dirent *e = readdir(d)) {
        std::string name = e->d_name;
        count += name.size() > suffix.size() &&
                 name.compare(name.size() - suffix.size(), suffix.size(),
                              suffix) == 0;
      }
      closedir(d);
    }
    return count;
  }
  CompileOptions options;
  std::vector<int> calls;
  std::map<std::string, double> times = {
      {"BLOCK=1024, num_warps=4", 3.0},
      {"BLOCK=256, num_warps=2", 1.0},
      {"BLOCK=512, num_warps=4, num_stages=2, maxnreg=64", 2.0}};
};

} // namespace

TEST_F(AutotuneTest, ConfigsAreListedAndTheFastestIsChosen) {
  Kernel k = compile(kSource);
  ASSERT_EQ(k.configs().size(), 3u);
  EXPECT_EQ(k.configs()[0].str(), "BLOCK=1024, num_warps=4");
  EXPECT_EQ(k.configs()[2].str(),
            "BLOCK=512, num_warps=4, num_stages=2, maxnreg=64");
  EXPECT_EQ(k.configs()[2].maxRegisters, 64);
  EXPECT_EQ(tuneBlock(k, 100000), 256);
  EXPECT_EQ(calls.size(), 3u);
  // Same kernel, same key: memory; another Kernel after the process's
  // memory is cleared: the disk, no trial.
  calls.clear();
  EXPECT_EQ(tuneBlock(k, 100000), 256);
  clearMemoryCache();
  Kernel again = compile(kSource);
  EXPECT_EQ(tuneBlock(again, 100000), 256);
  EXPECT_TRUE(calls.empty());
  EXPECT_EQ(countFiles(".tune"), 3);
}

TEST_F(AutotuneTest, ANewKeyValueRetunes) {
  Kernel k = compile(kSource);
  EXPECT_EQ(tuneBlock(k, 100000), 256);
  calls.clear();
  times["BLOCK=1024, num_warps=4"] = 0.5;
  EXPECT_EQ(tuneBlock(k, 4096), 1024);
  EXPECT_EQ(calls.size(), 3u);
  // The first key keeps its choice.
  calls.clear();
  EXPECT_EQ(tuneBlock(k, 100000), 256);
  EXPECT_TRUE(calls.empty());
}

TEST_F(AutotuneTest, EditingOneConfigRetimesOnlyIt) {
  Kernel k = compile(kSource);
  EXPECT_EQ(tuneBlock(k, 100000), 256);
  calls.clear();
  std::string edited = kSource;
  edited.replace(edited.find("BLOCK=512, num_warps=4, num_stages=2"), 36,
                 "BLOCK=128, num_warps=4, num_stages=2");
  times["BLOCK=128, num_warps=4, num_stages=2, maxnreg=64"] = 0.25;
  clearMemoryCache();
  Kernel k2 = compile(edited);
  EXPECT_EQ(tuneBlock(k2, 100000), 128);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], 2);
}

TEST_F(AutotuneTest, DamagedEntriesAreRetimed) {
  Kernel k = compile(kSource);
  EXPECT_EQ(tuneBlock(k, 100000), 256);
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".tune") == 0)
        std::ofstream(dir + "/" + name, std::ios::trunc) << "garbage";
    }
    closedir(d);
  }
  calls.clear();
  clearMemoryCache();
  Kernel again = compile(kSource);
  EXPECT_EQ(tuneBlock(again, 100000), 256);
  EXPECT_EQ(calls.size(), 3u);
}

TEST_F(AutotuneTest, DisabledTakesTheFirstConfig) {
  setenv("KITE_AUTOTUNE", "0", 1);
  Kernel k = compile(kSource);
  EXPECT_EQ(tuneBlock(k, 100000), 1024);
  EXPECT_TRUE(calls.empty());
  unsetenv("KITE_AUTOTUNE");
}

TEST_F(AutotuneTest, APredicatePrunesConfigsBeforeTiming) {
  Kernel k = compile(kSource);
  times["BLOCK=1024, num_warps=4"] = 1.0; // the fastest, but pruned below
  times["BLOCK=256, num_warps=2"] = 3.0;
  times["BLOCK=512, num_warps=4, num_stages=2, maxnreg=64"] = 2.0;
  // Keep blocks no larger than n / 64 (here 512 and 256).
  std::vector<int> seen;
  ASSERT_TRUE(k.pruneConfigs([&](const TuningConfig &c,
                                 const std::vector<Arg> &a) {
                  seen.push_back(int(c.constants.at("BLOCK")));
                  return c.constants.at("BLOCK") <= 40000 / 64;
                }).ok());
  EXPECT_EQ(tuneBlock(k, 40000), 512);
  EXPECT_EQ(seen.size(), 3u); // asked once per configuration
  std::sort(calls.begin(), calls.end());
  EXPECT_EQ(calls, (std::vector<int>{1, 2})) << "a pruned config was timed";
  // KITE_AUTOTUNE=0 takes the first configuration kept.
  setenv("KITE_AUTOTUNE", "0", 1);
  EXPECT_EQ(tuneBlock(k, 40000), 256);
  unsetenv("KITE_AUTOTUNE");
  // Everything pruned: a clear error, not a launch.
  ASSERT_TRUE(k.pruneConfigs([](const TuningConfig &, const std::vector<Arg> &) {
                  return false;
                }).ok());
  auto none = k.tune(grid, args(40000));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(none.error().message().find("was pruned"), std::string::npos)
      << none.error().str();
  // Clearing the filter: the fastest of all (its time was never stored, so
  // it is timed now).
  ASSERT_TRUE(k.pruneConfigs({}).ok());
  calls.clear();
  EXPECT_EQ(tuneBlock(k, 40000), 1024);
  EXPECT_EQ(calls, (std::vector<int>{0}));
  // A kernel without configurations has nothing to prune.
  auto plain = compileKite("@kernel\ndef f(x: *f32):\n    store(x, 1.0)\n",
                           options, "plain.kite");
  ASSERT_TRUE(plain.ok()) << plain.error().str();
  EXPECT_FALSE(plain->pruneConfigs({}).ok());
}

TEST_F(AutotuneTest, OneConfigCompilesAsAPlainKernel) {
  CompileOptions one = options;
  one.autotuneConfig = 1;
  auto k = compileKite(kSource, one, "add.kite");
  ASSERT_TRUE(k.ok()) << k.error().str();
  EXPECT_TRUE(k->configs().empty());
  EXPECT_EQ(k->threadsPerProgram(), 64); // num_warps=2
  auto ir = k->ir(IRStage::Kite);
  ASSERT_TRUE(ir.ok());
  EXPECT_NE(ir->find("kite.arange 0, 256"), std::string::npos);
  EXPECT_EQ(ir->find("kite.maxnreg"), std::string::npos);
  // A config's maxnreg (Triton's) becomes the kernel's register limit.
  one.autotuneConfig = 2;
  auto limited = compileKite(kSource, one, "add.kite");
  ASSERT_TRUE(limited.ok()) << limited.error().str();
  auto limitedIr = limited->ir(IRStage::Kite);
  ASSERT_TRUE(limitedIr.ok());
  EXPECT_NE(limitedIr->find("kite.maxnreg = 64 : i32"), std::string::npos)
      << *limitedIr;
  one.autotuneConfig = 3;
  auto bad = compileKite(kSource, one, "add.kite");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("has 3 @autotune configs; there is no config 3"),
            std::string::npos)
      << bad.error().str();
}

TEST_F(AutotuneTest, TheSameThroughTheKiteDialect) {
  // A kite-dialect kernel with the attributes: constants bound per config.
  const char *mlir = R"(
func.func @fill(%p: !kite.ptr<f32> {kite.name = "p"}, %n: i32 {kite.name = "n"},
                %B: i32 {kite.constexpr, kite.name = "B"})
    attributes {kite.kernel, kite.autotune = [{B = 64 : i64, num_warps = 2 : i32}, {B = 128 : i64}],
                kite.autotune_key = ["n"]} {
  %c = arith.constant 1.0 : f32
  kite.store %p, %c : !kite.ptr<f32>
  return
}
)";
  auto k = compileMLIR(mlir, options, "fill.mlir");
  ASSERT_TRUE(k.ok()) << k.error().str();
  ASSERT_EQ(k->configs().size(), 2u);
  EXPECT_EQ(k->configs()[0].str(), "B=64, num_warps=2");
  times = {{"B=64, num_warps=2", 2.0}, {"B=128", 1.0}};
  auto c = k->tune([](const TuningConfig &) { return Grid(1); },
                   {Arg::pointer(1 << 20), int32_t(7)});
  ASSERT_TRUE(c.ok()) << c.error().str();
  EXPECT_EQ(c->str(), "B=128");
}

// Configurations given by the host (CompileOptions::autotuneConfigs, as
// Triton's autotune applied to a kernel): a kernel without @autotune is
// tuned over them, keyed by autotuneKey; they replace a kernel's own list;
// each trial is the plain kernel with the configuration's constants and
// warps; bad lists are errors naming what is wrong.
TEST_F(AutotuneTest, ConfigsFromTheHost) {
  const char *plainSource = R"(@kernel
def add(x: *f32, y: *f32, out: *f32, n: i32, BLOCK: constexpr):
    offs = program_id(0) * BLOCK + arange(0, BLOCK)
    m = offs < n
    store(out + offs, load(x + offs, mask=m) + load(y + offs, mask=m), mask=m)
)";
  CompileOptions host = options;
  TuningConfig a, b;
  a.constants["BLOCK"] = 128;
  a.numWarps = 4;
  b.constants["BLOCK"] = 512;
  b.numWarps = 8;
  b.numStages = 2;
  host.autotuneConfigs = {a, b};
  host.autotuneKey = {"n"};
  auto k = compileKite(plainSource, host, "add.kite");
  ASSERT_TRUE(k.ok()) << k.error().str();
  ASSERT_EQ(k->configs().size(), 2u);
  EXPECT_EQ(k->configs()[1].str(), "BLOCK=512, num_warps=8, num_stages=2");
  times = {{"BLOCK=128, num_warps=4", 3.0},
           {"BLOCK=512, num_warps=8, num_stages=2", 1.0}};
  EXPECT_EQ(tuneBlock(*k, 100000), 512);
  EXPECT_EQ(calls.size(), 2u);
  // The key: another n tunes again, the same n does not.
  calls.clear();
  EXPECT_EQ(tuneBlock(*k, 100000), 512);
  EXPECT_TRUE(calls.empty());
  EXPECT_EQ(tuneBlock(*k, 5000), 512);
  EXPECT_EQ(calls.size(), 2u);
  // As written: the first configuration's constants where none is given.
  auto written = k->ir(IRStage::Kite);
  ASSERT_TRUE(written.ok());
  EXPECT_NE(written->find("kite.arange 0, 128"), std::string::npos);
  // One of them as a plain kernel: its constants and warps.
  CompileOptions one = host;
  one.autotuneConfig = 1;
  auto plain = compileKite(plainSource, one, "add.kite");
  ASSERT_TRUE(plain.ok()) << plain.error().str();
  EXPECT_TRUE(plain->configs().empty());
  EXPECT_EQ(plain->threadsPerProgram(), 256);
  // They replace a kernel's own @autotune list.
  auto replaced = compileKite(kSource, host, "add.kite");
  ASSERT_TRUE(replaced.ok()) << replaced.error().str();
  ASSERT_EQ(replaced->configs().size(), 2u);
  EXPECT_EQ(replaced->configs()[0].str(), "BLOCK=128, num_warps=4");
  // Bad lists.
  CompileOptions bad = host;
  bad.autotuneKey = {"BLOCK"};
  auto noKey = compileKite(plainSource, bad, "add.kite");
  ASSERT_FALSE(noKey.ok());
  EXPECT_NE(noKey.error().message().find(
                "autotune key 'BLOCK' is not a runtime parameter"),
            std::string::npos)
      << noKey.error().str();
  bad = host;
  bad.autotuneConfigs[1].numWarps = 3;
  auto warps = compileKite(plainSource, bad, "add.kite");
  ASSERT_FALSE(warps.ok());
  EXPECT_NE(warps.error().message().find("autotuneConfigs[1]"),
            std::string::npos)
      << warps.error().str();
  bad = options;
  bad.autotuneKey = {"n"};
  EXPECT_FALSE(compileKite(plainSource, bad, "add.kite").ok());
  bad = host;
  bad.autotuneConfig = 2;
  auto past = compileKite(plainSource, bad, "add.kite");
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.error().message().find("there are 2 autotuneConfigs"),
            std::string::npos)
      << past.error().str();
}

TEST_F(AutotuneTest, ExportAndImportTuningResults) {
  Kernel k = compile(kSource);
  EXPECT_EQ(tuneBlock(k, 100000), 256);
  std::string file = dir + "/results.kitetune";
  auto written = exportTuning(file);
  ASSERT_TRUE(written.ok()) << written.error().str();
  EXPECT_EQ(*written, 3u);
  // A fresh cache (a deployment): import, and nothing is timed.
  std::string cmd = "rm -f '" + dir + "'/*.tune";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  auto read = importTuning(file);
  ASSERT_TRUE(read.ok()) << read.error().str();
  EXPECT_EQ(*read, 3u);
  calls.clear();
  clearMemoryCache();
  Kernel again = compile(kSource);
  EXPECT_EQ(tuneBlock(again, 100000), 256);
  EXPECT_TRUE(calls.empty());
  // Damaged files are errors that change nothing.
  for (std::string bytes : {std::string("hello"), std::string("KITE-TUNING 1\n5 3\nab"),
                            std::string("KITE-TUNING 1\n3 1\nabc1\n")}) {
    std::ofstream(file, std::ios::trunc) << bytes;
    auto r = importTuning(file);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message().find("is not a Kite tuning file"),
              std::string::npos)
        << r.error().str();
  }
  EXPECT_EQ(countFiles(".tune"), 3);
  EXPECT_FALSE(importTuning(dir + "/missing").ok());
}

TEST_F(AutotuneTest, AConfigThatDoesNotCompileIsLeftOut) {
  std::string src = kSource;
  // A block of 3 elements is not a power of two: that config cannot compile.
  src.replace(src.find("BLOCK=256, num_warps=2"), 22, "BLOCK=3, num_warps=2");
  Kernel k = compile(src);
  EXPECT_EQ(tuneBlock(k, 100000), 512); // 2.0 ms beats 3.0; 3 is out
  EXPECT_EQ(calls.size(), 2u);
}
