//===- RuntimeTest.cpp - The runtime without a GPU -------------------------===//
//
// Runs in CI (no GPU): compiling, signatures, argument checking, cache keys,
// the disk cache (hits, corrupt and concurrent entries), IR dumps, and the
// error a launch gives without a CUDA driver. KITE_CUDA_LIBRARY points at a
// library that does not exist, so the no-driver path is taken even on a
// machine with a GPU.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace kite;

static std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

static std::string example(const std::string &name) {
  return readFile(std::string(KITE_SOURCE_DIR) + "/dsl-examples/" + name);
}

/// A fresh, empty cache directory per test.
class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kite-cache-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
    setenv("KITE_CACHE_DIR", dir.c_str(), 1);
    unsetenv("KITE_CACHE_DISABLE");
    unsetenv("KITE_DUMP_IR");
    clearMemoryCache();
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::vector<std::string> entries() {
    std::vector<std::string> names;
    if (DIR *d = opendir(dir.c_str())) {
      while (dirent *e = readdir(d))
        if (e->d_name[0] != '.' || std::string(e->d_name).rfind(".tmp", 0) == 0)
          names.push_back(e->d_name);
      closedir(d);
    }
    return names;
  }
  std::string dir;
};

TEST_F(RuntimeTest, SignatureOfSeededDropout) {
  auto k = compileMLIR(example("seeded_dropout.mlir"));
  ASSERT_TRUE(k) << k.error().str();
  EXPECT_EQ(k->name(), "seeded_dropout");
  EXPECT_EQ(k->threadsPerProgram(), 128);
  ASSERT_EQ(k->params().size(), 5u);
  EXPECT_TRUE(k->params()[0].pointer);
  EXPECT_EQ(k->params()[0].type, ScalarType::F32);
  EXPECT_FALSE(k->params()[2].pointer);
  EXPECT_EQ(k->params()[2].type, ScalarType::I32);
  EXPECT_EQ(k->params()[3].type, ScalarType::F32);
}

// Tiered compilation is on by default and has a switch; finishCompiles()
// with nothing queued returns at once. (Its GPU behaviour:
// GPU.TieredCompileGivesTheSameBits.)
TEST_F(RuntimeTest, TieredCompileOptions) {
  CompileOptions defaults;
  EXPECT_TRUE(defaults.tiered);
  auto k = compileMLIR(example("seeded_dropout.mlir"));
  ASSERT_TRUE(k) << k.error().str();
  EXPECT_TRUE(k->finishCompiles().ok());
  // Kernel::ptx() is always the optimized code (tiers are for launches):
  // the same text whether tiering is on or off.
  CompileOptions untiered;
  untiered.tiered = false;
  auto u = compileMLIR(example("seeded_dropout.mlir"), untiered);
  ASSERT_TRUE(u) << u.error().str();
  Specialization spec;
  spec.divisibleBy16 = 0x7;
  auto a = k->ptx(spec), b = u->ptx(spec);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
  EXPECT_NE(a->find(".maxntid 128,"), std::string::npos);
  EXPECT_EQ(k->cacheKey(spec), u->cacheKey(spec));
}

TEST_F(RuntimeTest, ArgumentChecking) {
  auto k = compileMLIR(example("seeded_dropout.mlir")).value();
  float *x = reinterpret_cast<float *>(0x1000), *y = reinterpret_cast<float *>(0x2000);
  EXPECT_TRUE(k.checkArgs({x, y, int32_t(10), 0.5f, int32_t(1)}));

  auto count = k.checkArgs({x, y});
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(count.error().message(),
            "kernel 'seeded_dropout' takes 5 argument(s), got 2");

  auto scalarType = k.checkArgs({x, y, int64_t(10), 0.5f, int32_t(1)});
  ASSERT_FALSE(scalarType);
  EXPECT_EQ(scalarType.error().message(),
            "kernel 'seeded_dropout', argument 2 ('n'): expected i32, got a "
            "scalar i64");

  auto notPointer = k.checkArgs({int32_t(1), y, int32_t(10), 0.5f, int32_t(1)});
  ASSERT_FALSE(notPointer);
  EXPECT_NE(notPointer.error().message().find(
                "argument 0 ('x_ptr'): expected pointer to f32, got a scalar i32"),
            std::string::npos);

  int32_t *ip = reinterpret_cast<int32_t *>(0x3000);
  auto pointee = k.checkArgs({x, ip, int32_t(10), 0.5f, int32_t(1)});
  ASSERT_FALSE(pointee);
  EXPECT_NE(pointee.error().message().find("got a pointer to i32"),
            std::string::npos);

  auto null = k.checkArgs({x, static_cast<float *>(nullptr), int32_t(10),
                           0.5f, int32_t(1)});
  ASSERT_FALSE(null);
  EXPECT_NE(null.error().message().find("got a null pointer"), std::string::npos);

  auto doubleForFloat = k.checkArgs({x, y, int32_t(10), 0.5, int32_t(1)});
  ASSERT_FALSE(doubleForFloat);
  EXPECT_NE(doubleForFloat.error().message().find("expected f32, got a scalar f64"),
            std::string::npos);

  // Untyped addresses are accepted for any pointee.
  EXPECT_TRUE(k.checkArgs({Arg::pointer(0x1000), Arg::pointer(0x2000),
                           int32_t(10), 0.5f, int32_t(1)}));
}

TEST_F(RuntimeTest, LaunchWithoutDriverFailsClearly) {
  auto k = compileMLIR(example("vector_add.mlir")).value();
  float *p = reinterpret_cast<float *>(0x1000);
  // Bad arguments are reported before the driver is needed.
  auto bad = k.launch(1, {p, p});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::InvalidArgument);
  auto grid = k.launch(Grid(1, 0), {p, p, p, int32_t(4)});
  ASSERT_FALSE(grid);
  EXPECT_EQ(grid.error().code(), ErrorCode::InvalidArgument);

  auto r = k.launch(1, {p, p, p, int32_t(4)});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::NoDriver);
  EXPECT_NE(r.error().message().find("cannot load"), std::string::npos)
      << r.error().message();
  auto count = deviceCount();
  ASSERT_FALSE(count);
  EXPECT_EQ(count.error().code(), ErrorCode::NoDriver);
  auto sms = deviceMultiprocessors();
  ASSERT_FALSE(sms);
  EXPECT_EQ(sms.error().code(), ErrorCode::NoDriver);
  auto active = k.maxActivePrograms({p, p, p, int32_t(4)});
  ASSERT_FALSE(active);
  EXPECT_EQ(active.error().code(), ErrorCode::NoDriver);
  auto badActive = k.maxActivePrograms({p, p});
  ASSERT_FALSE(badActive);
  EXPECT_EQ(badActive.error().code(), ErrorCode::InvalidArgument);
  auto buffer = DeviceBuffer<float>::allocate(16);
  ASSERT_FALSE(buffer);
  EXPECT_EQ(buffer.error().code(), ErrorCode::NoDriver);
}

TEST_F(RuntimeTest, CompileErrors) {
  auto parse = compileMLIR("func.func @k( {", {}, "broken.mlir");
  ASSERT_FALSE(parse);
  EXPECT_EQ(parse.error().code(), ErrorCode::ParseError);
  EXPECT_EQ(parse.error().message().rfind("broken.mlir:1:", 0), 0u)
      << parse.error().message();

  auto noKernel = compileMLIR("func.func @f() { return }", {}, "f.mlir");
  ASSERT_FALSE(noKernel);
  EXPECT_NE(noKernel.error().message().find("no kernel"), std::string::npos);

  CompileOptions named;
  named.kernel = "nope";
  auto missing = compileMLIR(example("vector_add.mlir"), named);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(),
            "no kernel named 'nope' (kernels: vector_add)");

  auto file = compileFile("/nonexistent/k.mlir");
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().code(), ErrorCode::IOError);
  // Inputs that would hang or exhaust the host: errors, read no further.
  auto device = compileFile("/dev/zero");
  ASSERT_FALSE(device);
  EXPECT_EQ(device.error().code(), ErrorCode::IOError);
  EXPECT_EQ(device.error().message(),
            "'/dev/zero' is a character device, not a regular file (give a "
            "file, or '-' for standard input)");
  auto dir = compileFile("/");
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().message(), "'/' is a directory, not a file");

  CompileOptions warps;
  warps.numWarps = 3;
  auto w = compileMLIR(example("vector_add.mlir"), warps);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(), "numWarps must be a power of two in [1, 32], got 3");

  CompileOptions over;
  over.overrideNumWarps = 6;
  auto ow = compileMLIR(example("vector_add.mlir"), over);
  ASSERT_FALSE(ow);
  EXPECT_EQ(ow.error().message(), "overrideNumWarps must be 0 (the kernel's "
                                  "own) or a power of two in [1, 32], got 6");
  over = {};
  over.overrideNumStages = 9;
  auto os = compileMLIR(example("vector_add.mlir"), over);
  ASSERT_FALSE(os);
  EXPECT_EQ(os.error().message(),
            "overrideNumStages must be 0 (the kernel's own) or in [1, 8], got 9");
  over = {};
  over.overrideMaxRegisters = 16;
  auto oreg = compileMLIR(example("vector_add.mlir"), over);
  ASSERT_FALSE(oreg);
  EXPECT_EQ(oreg.error().message(), "overrideMaxRegisters must be 0 (the "
                                    "kernel's own) or in [24, 255], got 16");
  over.overrideMaxRegisters = 40;
  auto limited = compileMLIR(example("vector_add.mlir"), over);
  ASSERT_TRUE(limited) << limited.error().message();
  auto limitedIr = limited->ir(IRStage::Kite);
  ASSERT_TRUE(limitedIr) << limitedIr.error().message();
  EXPECT_NE(limitedIr->find("kite.maxnreg = 40 : i32"), std::string::npos)
      << *limitedIr;

  CompileOptions chip;
  chip.chip = "sm_1000";
  auto c = compileMLIR(example("vector_add.mlir"), chip).value().ptx();
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code(), ErrorCode::CompileError);
  EXPECT_NE(c.error().message().find("sm_1000"), std::string::npos)
      << c.error().message();

  // A lowering failure names the op and its location.
  const char *nonsplat = R"(
func.func @d(%p: !kite.ptr<i32>) attributes {kite.kernel} {
  %r = kite.arange 0, 4 : tensor<4xi32>
  %c = arith.constant dense<[3, 1, 4, 1]> : tensor<4xi32>
  %ps = kite.splat %p : !kite.ptr<i32> -> tensor<4x!kite.ptr<i32>>
  %pp = kite.addptr %ps, %r : tensor<4x!kite.ptr<i32>>, tensor<4xi32>
  kite.store %pp, %c : tensor<4x!kite.ptr<i32>>
  return
})";
  auto lowering = compileMLIR(nonsplat, {}, "nonsplat.mlir").value().ptx();
  ASSERT_FALSE(lowering);
  EXPECT_NE(lowering.error().message().find("nonsplat.mlir:4:"), std::string::npos)
      << lowering.error().message();
}

static const char *kScaled = R"(
func.func @scaled(%p: !kite.ptr<f32>, %s: f32 {kite.constexpr, kite.name = "SCALE"},
                  %b: i32 {kite.constexpr, kite.name = "BIAS"}) attributes {kite.kernel} {
  %r = kite.arange 0, 128 : tensor<128xi32>
  %bb = kite.splat %b : i32 -> tensor<128xi32>
  %o = arith.addi %r, %bb : tensor<128xi32>
  %ps = kite.splat %p : !kite.ptr<f32> -> tensor<128x!kite.ptr<f32>>
  %pp = kite.addptr %ps, %o : tensor<128x!kite.ptr<f32>>, tensor<128xi32>
  %v = kite.load %pp : tensor<128x!kite.ptr<f32>>
  %sb = kite.splat %s : f32 -> tensor<128xf32>
  %w = arith.mulf %v, %sb : tensor<128xf32>
  kite.store %pp, %w : tensor<128x!kite.ptr<f32>>
  return
})";

TEST_F(RuntimeTest, Constants) {
  CompileOptions none;
  auto missing = compileMLIR(kScaled, none);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(),
            "constexpr parameter 'SCALE' of kernel 'scaled' has no value: set "
            "CompileOptions::constants[\"SCALE\"]");

  CompileOptions extra;
  extra.constants = {{"SCALE", 2.0}, {"BIAS", 4}, {"BLOCK", 1}};
  auto unknown = compileMLIR(kScaled, extra);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message(),
            "kernel 'scaled' has no constexpr parameter 'BLOCK' (it has: "
            "SCALE, BIAS)");

  CompileOptions frac;
  frac.constants = {{"SCALE", 2.0}, {"BIAS", 0.5}};
  EXPECT_FALSE(compileMLIR(kScaled, frac));

  CompileOptions ok;
  ok.constants = {{"SCALE", 2.5}, {"BIAS", 4}};
  auto k = compileMLIR(kScaled, ok);
  ASSERT_TRUE(k) << k.error().str();
  ASSERT_EQ(k->params().size(), 1u); // constexprs are not GPU parameters
  auto ptx = k->ptx();
  ASSERT_TRUE(ptx) << ptx.error().str();
  EXPECT_NE(ptx->find("0f40200000"), std::string::npos); // 2.5f
  EXPECT_NE(ptx->find(", 16;"), std::string::npos);       // 4 floats = 16 bytes

  CompileOptions other = ok;
  other.constants["SCALE"] = 3.0;
  EXPECT_NE(compileMLIR(kScaled, other).value().cacheKey(), k->cacheKey());
}

TEST_F(RuntimeTest, KiteSources) {
  // The Kite language through the runtime: the same kernel as the .mlir.
  auto k = compileFile(std::string(KITE_SOURCE_DIR) +
                       "/dsl-examples/seeded_dropout.kite");
  ASSERT_TRUE(k) << k.error().str();
  EXPECT_EQ(k->params().size(), 5u);
  EXPECT_EQ(k->params()[2].name, "n");
  auto fromMLIR = compileMLIR(example("seeded_dropout.mlir")).value();
  EXPECT_EQ(k->cacheKey(), fromMLIR.cacheKey());

  // Constants are constexprs of the source: they shape blocks.
  CompileOptions small;
  small.constants = {{"BLOCK", 256}};
  auto k256 = compileKite(readFile(std::string(KITE_SOURCE_DIR) +
                                   "/dsl-examples/seeded_dropout.kite"),
                          small, "sd.kite");
  ASSERT_TRUE(k256) << k256.error().str();
  auto ir = k256->ir(IRStage::Kite);
  ASSERT_TRUE(ir);
  EXPECT_NE(ir->find("tensor<256xi32>"), std::string::npos);

  CompileOptions unknown;
  unknown.constants = {{"BLOCKSIZE", 256}};
  auto bad = compileKite("@kernel\ndef k(p: *f32, BLOCK: constexpr = 4):\n    pass\n",
                         unknown, "k.kite");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::ParseError);
  EXPECT_NE(bad.error().message().find("BLOCKSIZE"), std::string::npos)
      << bad.error().message();

  auto syntax = compileKite("@kernel\ndef k(p: *f32):\n    x = = 1\n", {}, "s.kite");
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().message().rfind("s.kite:3:9: error: ", 0), 0u)
      << syntax.error().message();
}

TEST_F(RuntimeTest, CacheKeys) {
  std::string src = example("seeded_dropout.mlir");
  auto base = compileMLIR(src).value();
  EXPECT_EQ(base.cacheKey().size(), 64u);
  EXPECT_EQ(base.cacheKey(), compileMLIR(src).value().cacheKey());
  // Comments and locations do not matter; the IR does.
  EXPECT_EQ(base.cacheKey(), compileMLIR("// another comment\n" + src).value().cacheKey());
  std::string changed = src;
  size_t one = changed.find("1.000000e+00 : f32");
  ASSERT_NE(one, std::string::npos);
  changed.replace(one, 18, "2.000000e+00 : f32");
  EXPECT_NE(base.cacheKey(), compileMLIR(changed).value().cacheKey());

  auto differs = [&](CompileOptions o) {
    return compileMLIR(src, o).value().cacheKey() != base.cacheKey();
  };
  CompileOptions o;
  o.chip = "sm_80";
  EXPECT_TRUE(differs(o));
  o = {};
  o.ieeeDivision = true;
  EXPECT_TRUE(differs(o));
  o = {};
  o.fpFusion = false;
  EXPECT_TRUE(differs(o));
  o = {};
  o.optLevel = 2;
  EXPECT_TRUE(differs(o));
  o = {};
  o.numWarps = 8; // the kernel's own kite.num_warps wins, but the key differs
  EXPECT_TRUE(differs(o));
  EXPECT_NE(base.cacheKey(Specialization{0b11}), base.cacheKey());
  EXPECT_NE(base.cacheKey(Specialization{0b111}), base.cacheKey(Specialization{0b11}));
}

TEST_F(RuntimeTest, OverridesReplaceTheKernelsWarpsAndStages) {
  // The tutorial matmul says @kernel(num_warps=4, num_stages=3).
  CompileOptions o;
  o.constants = {{"BLOCK_M", 128}, {"BLOCK_N", 256}, {"BLOCK_K", 16}};
  auto own = compileFile(std::string(KITE_SOURCE_DIR) + "/dsl-examples/matmul.kite", o).value();
  EXPECT_EQ(own.threadsPerProgram(), 128);
  o.overrideNumWarps = 8;
  o.overrideNumStages = 2;
  auto big = compileFile(std::string(KITE_SOURCE_DIR) + "/dsl-examples/matmul.kite", o).value();
  EXPECT_EQ(big.threadsPerProgram(), 256);
  EXPECT_NE(big.cacheKey(), own.cacheKey());
  std::string ptx = big.ptx().value();
  EXPECT_NE(ptx.find(".maxntid 256, 1, 1"), std::string::npos);
  // Two staging slots of (128 x 20 + 16 x 256) floats: 53248 bytes, dynamic.
  EXPECT_NE(ptx.find("// kite.dynamic_shared_memory matmul 53248"),
            std::string::npos)
      << ptx.substr(0, 200);
}

TEST_F(RuntimeTest, Specialization) {
  auto k = compileMLIR(example("seeded_dropout.mlir")).value();
  float *a = reinterpret_cast<float *>(0x1000), *b = reinterpret_cast<float *>(0x2004);
  EXPECT_EQ(k.specializationFor({a, a, int32_t(1024), 0.5f, int32_t(16)}).divisibleBy16,
            0b10111u); // both pointers, n and seed; never floats
  EXPECT_EQ(k.specializationFor({a, b, int32_t(1000), 0.5f, int32_t(3)}).divisibleBy16,
            0b1u);
  auto generic = k.ptx(), spec = k.ptx(Specialization{0b111});
  ASSERT_TRUE(generic && spec);
  EXPECT_EQ(generic->find("ld.global.v4"), std::string::npos);
  EXPECT_NE(spec->find("ld.global.v4"), std::string::npos);
  // Integers equal to 1 (never pointers or floats) are a second fact.
  EXPECT_EQ(k.specializationFor({a, a, int32_t(1), 1.0f, int32_t(1)}).equalToOne,
            0b10100u);
  EXPECT_EQ(k.specializationFor({a, a, int32_t(1), 1.0f, int32_t(-1)}).equalToOne,
            0b100u);
  EXPECT_NE(k.cacheKey(Specialization{0, 0b100}), k.cacheKey());
}

TEST_F(RuntimeTest, UnitStrideSpecialization) {
  // The tutorial matmul with unit inner strides: contiguous tiles are
  // copied to shared memory 16 bytes at a time and C stored with 16-byte
  // stores; without the fact, element by element.
  auto k = compileKite(example("matmul.kite")).value();
  uint64_t all = (uint64_t(1) << 12) - 1;
  uint64_t unit = (1u << 7) | (1u << 9) | (1u << 11); // stride_ak, _bn, _cn
  auto generic = k.ptx(Specialization{all, 0});
  auto specialized = k.ptx(Specialization{all, unit});
  ASSERT_TRUE(generic && specialized);
  EXPECT_EQ(generic->find("cp.async.cg"), std::string::npos);
  EXPECT_NE(generic->find("cp.async.ca"), std::string::npos);
  EXPECT_EQ(generic->find("st.global.v4"), std::string::npos);
  EXPECT_NE(specialized->find("cp.async.cg"), std::string::npos);
  EXPECT_NE(specialized->find("st.global.v4"), std::string::npos);
  // Both announce their dynamic shared memory to the launch.
  EXPECT_EQ(specialized->rfind("// kite.dynamic_shared_memory matmul 52224\n", 0),
            0u);
}

TEST_F(RuntimeTest, DiskCacheHitsAndCorruptEntries) {
  std::string src = example("vector_add.mlir");
  auto k = compileMLIR(src).value();
  auto ptx = k.ptx();
  ASSERT_TRUE(ptx) << ptx.error().str();
  EXPECT_EQ(k.lastOutcome(), CacheOutcome::Compiled);
  // Two entries: the analysis of the source (.src) and the PTX (.ptx).
  auto names = entries();
  ASSERT_EQ(names.size(), 2u);
  std::sort(names.begin(), names.end(), [](const std::string &a, const std::string &b) {
    return a.substr(a.rfind('.')) < b.substr(b.rfind('.'));
  });
  ASSERT_EQ(names[0].substr(names[0].rfind('.')), ".ptx");
  ASSERT_EQ(names[1].substr(names[1].rfind('.')), ".src");
  std::string entry = dir + "/" + names[0];
  std::string analysis = dir + "/" + names[1];

  // Same process: memory; after clearing memory: disk.
  auto again = compileMLIR(src).value();
  ASSERT_TRUE(again.ptx());
  EXPECT_EQ(again.lastOutcome(), CacheOutcome::MemoryHit);
  clearMemoryCache();
  auto fromDisk = compileMLIR(src).value();
  ASSERT_EQ(*fromDisk.ptx(), *ptx);
  EXPECT_EQ(fromDisk.lastOutcome(), CacheOutcome::DiskHit);

  // Every kind of damage is detected and the entry recompiled and rewritten.
  std::string good = readFile(entry);
  auto damaged = [&](const std::string &bytes) {
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
    clearMemoryCache();
    auto fresh = compileMLIR(src).value();
    auto p = fresh.ptx();
    bool recompiled = p && *p == *ptx &&
                      fresh.lastOutcome() == CacheOutcome::Compiled &&
                      readFile(entry) == good;
    return recompiled;
  };
  EXPECT_TRUE(damaged(""));
  EXPECT_TRUE(damaged(good.substr(0, good.size() / 2))); // truncated
  std::string flipped = good;
  flipped[flipped.size() - 10] ^= 1; // payload bit flip: checksum
  EXPECT_TRUE(damaged(flipped));
  std::string otherKey = good;
  otherKey[otherKey.find("compiler=") + 9] ^= 1; // an entry for another key
  EXPECT_TRUE(damaged(otherKey));
  EXPECT_TRUE(damaged(std::string(4096, '\0')));

  // The analysis entry: a kernel from it has the same signature and runs in
  // the interpreter; a damaged one (empty, truncated, garbage) is analyzed
  // again and rewritten.
  std::string goodAnalysis = readFile(analysis);
  clearMemoryCache();
  auto fromAnalysis = compileMLIR(src).value();
  EXPECT_EQ(fromAnalysis.name(), k.name());
  ASSERT_EQ(fromAnalysis.params().size(), k.params().size());
  for (size_t i = 0; i < k.params().size(); ++i) {
    EXPECT_EQ(fromAnalysis.params()[i].name, k.params()[i].name);
    EXPECT_EQ(fromAnalysis.params()[i].pointer, k.params()[i].pointer);
    EXPECT_EQ(fromAnalysis.params()[i].type, k.params()[i].type);
  }
  EXPECT_EQ(*fromAnalysis.ptx(), *ptx);
  {
    std::vector<float> x = {1, 2, 3}, y = {10, 20, 30}, z(3);
    ASSERT_TRUE(fromAnalysis.interpret(1, {x, y, z, int32_t(3)}).ok());
    EXPECT_EQ(z, (std::vector<float>{11, 22, 33}));
  }
  for (std::string bytes : {std::string(), goodAnalysis.substr(0, 40),
                            std::string(1000, 'x')}) {
    std::ofstream(analysis, std::ios::binary | std::ios::trunc) << bytes;
    clearMemoryCache();
    auto again = compileMLIR(src);
    ASSERT_TRUE(again.ok()) << again.error().str();
    EXPECT_EQ(again->params().size(), k.params().size());
    EXPECT_EQ(readFile(analysis), goodAnalysis);
  }

  // Disabled: nothing is written.
  setenv("KITE_CACHE_DISABLE", "1", 1);
  EXPECT_EQ(cacheDirectory(), "");
  ::unlink(entry.c_str());
  ::unlink(analysis.c_str());
  clearMemoryCache();
  ASSERT_TRUE(compileMLIR(src).value().ptx());
  EXPECT_TRUE(entries().empty());
}

TEST_F(RuntimeTest, ConcurrentThreadsAndProcesses) {
  std::string src = example("seeded_dropout.mlir");
  std::string reference = *compileMLIR(src).value().ptx();
  clearMemoryCache();
  ::system(("rm -f '" + dir + "'/*").c_str());

  // Processes racing on one empty cache directory.
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto k = compileMLIR(src);
      bool ok = k && k->ptx() && *k->ptx() == reference;
      _exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  // Threads of this process at the same time, each compiling and asking for
  // several specializations.
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 3; ++i) {
        auto k = compileMLIR(src);
        if (!k) {
          ++failures;
          continue;
        }
        auto p = k->ptx(Specialization{uint64_t((t + i) % 3)});
        if (!p || (((t + i) % 3) == 0 && *p != reference))
          ++failures;
      }
    });
  for (auto &th : threads)
    th.join();
  EXPECT_EQ(failures.load(), 0);
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  // Whole entries only, no temporary files left behind.
  for (const std::string &name : entries())
    EXPECT_EQ(name.rfind(".tmp", 0), std::string::npos) << name;
  clearMemoryCache();
  auto k = compileMLIR(src).value();
  EXPECT_EQ(*k.ptx(), reference);
  EXPECT_EQ(k.lastOutcome(), CacheOutcome::DiskHit);
}

TEST_F(RuntimeTest, IRStagesAndDumps) {
  auto k = compileMLIR(example("vector_add.mlir")).value();
  auto kiteIR = k.ir(IRStage::Kite), gpuIR = k.ir(IRStage::GPU),
       llvmIR = k.ir(IRStage::LLVM), ptx = k.ir(IRStage::PTX);
  ASSERT_TRUE(kiteIR && gpuIR && llvmIR && ptx);
  EXPECT_NE(kiteIR->find("kite.load"), std::string::npos);
  EXPECT_NE(gpuIR->find("gpu.func @vector_add"), std::string::npos);
  EXPECT_NE(llvmIR->find("llvm.func @vector_add"), std::string::npos);
  EXPECT_NE(ptx->find(".visible .entry vector_add"), std::string::npos);

  std::string dumps = dir + "/dumps";
  ASSERT_EQ(mkdir(dumps.c_str(), 0755), 0);
  setenv("KITE_DUMP_IR", dumps.c_str(), 1);
  ASSERT_TRUE(k.ptx(Specialization{1}));
  unsetenv("KITE_DUMP_IR");
  for (const char *stage : {"kite", "gpu", "llvm", "ptx"})
    EXPECT_FALSE(readFile(dumps + "/vector_add." + stage + ".mlir").empty()) << stage;
  EXPECT_NE(readFile(dumps + "/vector_add.ptx").find(".entry vector_add"),
            std::string::npos);
}

// PTX to machine code without a GPU, with the compiler the runtime found
// (in-process nvJitLink, else ptxas; docs/runtime.md): a cubin holding the
// kernel, and a compile error naming the fault for bad PTX.
TEST_F(RuntimeTest, PtxToCubinWithoutAGpu) {
  std::string compiler = kite::machineCodeCompiler();
  if (compiler.empty())
    GTEST_SKIP() << "no PTX compiler here (no libnvJitLink, no ptxas)";
  // KITE_NVJITLINK=1 (a second ctest entry) asks for the in-process one.
  const char *jit = std::getenv("KITE_NVJITLINK");
  EXPECT_EQ(compiler.rfind("nvJitLink ", 0) == 0,
            jit && std::string(jit) == "1")
      << compiler;
  auto k = kite::compileMLIR(readFile(std::string(KITE_SOURCE_DIR) +
                                      "/dsl-examples/vector_add.mlir"),
                             kite::CompileOptions{});
  ASSERT_TRUE(k) << k.error().message();
  auto ptx = k->ptx(kite::Specialization{1});
  ASSERT_TRUE(ptx) << ptx.error().message();
  for (const char *chip : {"sm_90", "sm_90a"}) { // the PTX is for sm_90
    auto cubin = kite::compilePtxToCubin(*ptx, chip);
    ASSERT_TRUE(cubin) << chip << ": " << cubin.error().message();
    ASSERT_GT(cubin->size(), 4u);
    EXPECT_EQ(cubin->substr(0, 4), "\x7f" "ELF") << chip;
    EXPECT_NE(cubin->find("vector_add"), std::string::npos) << chip;
  }
  auto bad = kite::compilePtxToCubin(".version 8.0\n.target sm_90a\n"
                                     ".address_size 64\n.visible .entry "
                                     "k() { bogus.instruction; ret; }\n",
                                     "sm_90a");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), kite::ErrorCode::CompileError);
  EXPECT_NE(bad.error().message().find("bogus"), std::string::npos)
      << bad.error().message();
  // ptxas reads the PTX from a pipe: the message does not name it.
  EXPECT_EQ(bad.error().message().find("/dev/stdin"), std::string::npos)
      << bad.error().message();
}

/// compilePtxToCubin of `ptx` for sm_90a, with the occupancy retry
/// (`retry`) or without it (KITE_OCCUPANCY=0, restored after).
static kite::Expected<std::string> sm90aCubin(const std::string &ptx,
                                              bool retry) {
  if (!retry)
    setenv("KITE_OCCUPANCY", "0", 1);
  auto cubin = kite::compilePtxToCubin(ptx, "sm_90a");
  if (!retry)
    unsetenv("KITE_OCCUPANCY");
  return cubin;
}

// Occupancy (docs/runtime.md): layer norm backward's dx kernel at 8192
// columns on 8 warps has no dot, so its PTX asks for two programs an SM (128
// registers a thread); ptxas alone gives it more, and compilePtxToCubin
// compiles it again under `.maxnreg 128`, keeping that cubin when it does
// not spill. KITE_OCCUPANCY=0 keeps the first compile.
TEST_F(RuntimeTest, OccupancyRetryFitsTwoProgramsAnSM) {
  if (kite::machineCodeCompiler().empty())
    GTEST_SKIP() << "no PTX compiler here (no libnvJitLink, no ptxas)";
  kite::CompileOptions options;
  options.kernel = "_layer_norm_bwd_dx_fused";
  options.constants = {{"BLOCK_SIZE_N", 8192}, {"GROUP_SIZE_M", 96}};
  options.overrideNumWarps = 8;
  options.chip = "sm_90a";
  auto k = kite::compileFile(std::string(KITE_SOURCE_DIR) +
                                 "/dsl-examples/layer_norm_bwd.kite",
                             options);
  ASSERT_TRUE(k) << k.error().message();
  // Pointers, stride and N divisible by 16 (parameters 0-8, 9, 10).
  auto ptx = k->ptx(kite::Specialization{0x7ff});
  ASSERT_TRUE(ptx) << ptx.error().message();
  EXPECT_NE(
      ptx->find("// kite.occupancy_registers _layer_norm_bwd_dx_fused 128 0\n"),
      std::string::npos);
  auto first = sm90aCubin(*ptx, /*retry=*/false);
  ASSERT_TRUE(first) << first.error().message();
  auto firstInfo = kite::machineCodeInfo(*first, "_layer_norm_bwd_dx_fused");
  ASSERT_TRUE(firstInfo) << firstInfo.error().message();
  EXPECT_GT(firstInfo->registers, 0);
  auto cubin = sm90aCubin(*ptx, /*retry=*/true);
  ASSERT_TRUE(cubin) << cubin.error().message();
  auto info = kite::machineCodeInfo(*cubin, "_layer_norm_bwd_dx_fused");
  ASSERT_TRUE(info) << info.error().message();
  EXPECT_EQ(info->stackBytes, 0);
  EXPECT_LE(info->registers, 128);
  if (firstInfo->registers <= 128) {
    EXPECT_EQ(*cubin, *first) << "nothing to retry: the same cubin";
  }
  // A kernel on 128 threads (two programs fit anyway) has no hint, and bad
  // images are InvalidArgument.
  kite::CompileOptions mm;
  mm.chip = "sm_90a";
  auto matmul = kite::compileFile(
      std::string(KITE_SOURCE_DIR) + "/dsl-examples/matmul.kite", mm);
  ASSERT_TRUE(matmul) << matmul.error().message();
  auto mmPtx = matmul->ptx();
  ASSERT_TRUE(mmPtx) << mmPtx.error().message();
  EXPECT_EQ(mmPtx->find("kite.occupancy_registers"), std::string::npos);
  auto bad = kite::machineCodeInfo("not an ELF image", "k");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), kite::ErrorCode::InvalidArgument);
  auto missing = kite::machineCodeInfo(*cubin, "no_such_kernel");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("no_such_kernel"),
            std::string::npos);
  // Damaged images (cut short, or with bytes of the section table and the
  // attributes overwritten) are read within their bounds: an error or some
  // answer, never a crash.
  for (size_t cut :
       {size_t(16), size_t(64), cubin->size() / 2, cubin->size() - 1}) {
    auto r = kite::machineCodeInfo(cubin->substr(0, cut),
                                   "_layer_norm_bwd_dx_fused");
    if (cut < cubin->size() / 2) {
      EXPECT_FALSE(r) << cut;
    }
  }
  std::string damaged = *cubin;
  for (size_t i = 0x28; i < damaged.size(); i += 97)
    damaged[i] = char(0xff);
  (void)kite::machineCodeInfo(damaged, "_layer_norm_bwd_dx_fused");
}

// A kernel with a dot may spill a little for two programs an SM: the
// attention forward at head dim 64 (causal, with dropout) on 8 warps takes
// over 200 registers; its hint allows 128 bytes of spills, and under 128
// registers it spills some 100 (1.04-1.25x on the H100). At head dim 128
// its shared memory leaves room for one program an SM: no hint.
TEST_F(RuntimeTest, OccupancyRetryOfADotKernelAllowsSomeSpills) {
  if (kite::machineCodeCompiler().empty())
    GTEST_SKIP() << "no PTX compiler here (no libnvJitLink, no ptxas)";
  for (int headDim : {64, 128}) {
    kite::CompileOptions options;
    options.constants = {{"HEAD_DIM", headDim}, {"STAGE", 3}, {"DROPOUT", 1}};
    options.chip = "sm_90a";
    auto k = kite::compileFile(
        std::string(KITE_SOURCE_DIR) + "/dsl-examples/attention.kite", options);
    ASSERT_TRUE(k) << k.error().message();
    // Pointers (0-4), strides (6-17) and N_CTX (19) divisible by 16.
    auto ptx = k->ptx(kite::Specialization{0xbffdf});
    ASSERT_TRUE(ptx) << ptx.error().message();
    if (headDim == 128) {
      EXPECT_EQ(ptx->find("kite.occupancy_registers"), std::string::npos);
      continue;
    }
    EXPECT_NE(ptx->find("// kite.occupancy_registers attn_fwd 128 128\n"),
              std::string::npos);
    auto first = sm90aCubin(*ptx, /*retry=*/false);
    ASSERT_TRUE(first) << first.error().message();
    auto firstInfo = kite::machineCodeInfo(*first, "attn_fwd");
    ASSERT_TRUE(firstInfo) << firstInfo.error().message();
    auto cubin = sm90aCubin(*ptx, /*retry=*/true);
    ASSERT_TRUE(cubin) << cubin.error().message();
    auto info = kite::machineCodeInfo(*cubin, "attn_fwd");
    ASSERT_TRUE(info) << info.error().message();
    EXPECT_LE(info->registers, 128);
    EXPECT_LE(info->stackBytes, firstInfo->stackBytes + 128);
    if (firstInfo->registers > 128) {
      EXPECT_NE(*cubin, *first);
    }
  }
}

// A PTX compiler process that exits without reading its input (a second
// ctest entry sets KITE_PTXAS=/bin/true): a compile error, and this process
// survives writing a large PTX into the closed pipe (no SIGPIPE).
TEST_F(RuntimeTest, PtxCompilerThatStopsReading) {
  const char *ptxas = std::getenv("KITE_PTXAS");
  if (!ptxas || std::string(ptxas) != "/bin/true")
    GTEST_SKIP() << "run with KITE_PTXAS=/bin/true (ctest does)";
  ASSERT_EQ(kite::machineCodeCompiler().rfind("/bin/true", 0), 0u)
      << kite::machineCodeCompiler();
  std::string ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n";
  ptx += std::string(4 << 20, '\n'); // far beyond a pipe's buffer
  for (int i = 0; i < 3; ++i) {
    auto cubin = kite::compilePtxToCubin(ptx, "sm_90a");
    ASSERT_FALSE(cubin);
    EXPECT_EQ(cubin.error().code(), kite::ErrorCode::CompileError);
    EXPECT_NE(cubin.error().message().find("/bin/true failed"),
              std::string::npos)
        << cubin.error().message();
  }
}

// ptxas' "Potential Performance Loss" notes (wgmmas serialized, say) go
// to the trace with the cubin: a ptxas that adds one to the real one's
// output (ptxas-with-note.sh; a second ctest entry sets KITE_PTXAS to it
// and KITE_TRACE=1).
TEST_F(RuntimeTest, PtxasNotesAreTraced) {
  const char *ptxas = std::getenv("KITE_PTXAS");
  if (!ptxas ||
      std::string(ptxas).find("ptxas-with-note.sh") == std::string::npos)
    GTEST_SKIP() << "run with KITE_PTXAS=.../ptxas-with-note.sh and "
                    "KITE_TRACE=1 (ctest does)";
  if (access("/usr/local/cuda/bin/ptxas", X_OK) != 0)
    GTEST_SKIP() << "no /usr/local/cuda/bin/ptxas here";
  kite::CompileOptions options;
  options.chip = "sm_90a";
  auto k = kite::compileFile(
      std::string(KITE_SOURCE_DIR) + "/dsl-examples/vector_add.kite", options);
  ASSERT_TRUE(k) << k.error().message();
  auto ptx = k->ptx();
  ASSERT_TRUE(ptx) << ptx.error().message();
  testing::internal::CaptureStderr();
  auto cubin = kite::compilePtxToCubin(*ptx, "sm_90a");
  std::string trace = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(cubin) << cubin.error().message();
  EXPECT_NE(trace.find("kite: compilePtxToCubin (sm_90a): ptxas: (C7515) "
                       "Potential Performance Loss: wgmma.mma_async "
                       "instructions are serialized"),
            std::string::npos)
      << trace;
}

int main(int argc, char **argv) {
  // Before anything loads the driver: the no-driver path, deterministically.
  setenv("KITE_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
