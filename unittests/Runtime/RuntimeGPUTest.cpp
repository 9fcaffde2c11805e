//===- RuntimeGPUTest.cpp - The runtime on a GPU ---------------------------===//
//
// The tutorial kernels through libkite.so on a real GPU, against host
// references: random inputs, outputs poisoned (NaN) before launch with a
// guard zone after them, ragged sizes; seeded dropout's keep mask bit-exact
// with a host Philox4x32-10; compiling and launching from several threads.
// Every test is skipped, with the reason, where no GPU is present.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"

#include "GPUTestHelpers.h"
#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

using namespace kite;
using namespace kite::test;

static DeviceBuffer<float> poisoned(size_t n) {
  auto b = DeviceBuffer<float>::fromHost(
               std::vector<float>(n + kGuard, std::nanf("")))
               .value();
  return b;
}

static const std::vector<size_t> kSizes = {1, 1000, 1024, 1025,
                                           (size_t(1) << 20) + 3,
                                           size_t(1) << 28};

TEST(GPU, VectorAdd) {
  REQUIRE_GPU();
  auto k = compileMLIR(source("vector_add.mlir"), {}, "vector_add.mlir").value();
  for (size_t n : kSizes) {
    auto x = randomVector(n, 1), y = randomVector(n, 2);
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dy = DeviceBuffer<float>::fromHost(y).value();
    auto dz = poisoned(n);
    ASSERT_TRUE(k.launch(cdiv(n, 1024), {dx, dy, dz, int32_t(n)}).ok());
    auto z = dz.toHost().value();
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
      bad += z[i] != x[i] + y[i];
    EXPECT_EQ(bad, 0u) << "n = " << n;
    EXPECT_TRUE(guardIntact(z, n)) << "n = " << n;
  }
}

TEST(GPU, Dropout) {
  REQUIRE_GPU();
  auto k = compileMLIR(source("dropout.mlir"), {}, "dropout.mlir").value();
  const float p = 0.5f; // x / 0.5 is exact with div.full.f32 as well
  for (size_t n : kSizes) {
    auto x = randomVector(n, 3);
    std::vector<int32_t> keep(n);
    std::mt19937 rng(4);
    for (auto &e : keep)
      e = rng() & 1;
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dk = DeviceBuffer<int32_t>::fromHost(keep).value();
    auto dout = poisoned(n);
    ASSERT_TRUE(k.launch(cdiv(n, 1024), {dx, dk, dout, int32_t(n), p}).ok());
    auto out = dout.toHost().value();
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
      bad += out[i] != (keep[i] ? x[i] / (1 - p) : 0.f);
    EXPECT_EQ(bad, 0u) << "n = " << n;
    EXPECT_TRUE(guardIntact(out, n)) << "n = " << n;
  }
}

TEST(GPU, SeededDropoutKeepMaskIsPhilox) {
  REQUIRE_GPU();
  auto k = compileMLIR(source("seeded_dropout.mlir"), {}, "seeded_dropout.mlir")
               .value();
  const float p = 0.3f;
  for (size_t n : kSizes) {
    auto x = randomVector(n, 5);
    for (float &e : x)
      if (e == 0.f)
        e = 1.f; // a zero input would hide the mask
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    for (int32_t seed : {123, 512, -1}) {
      auto dout = poisoned(n);
      ASSERT_TRUE(
          k.launch(cdiv(n, 1024), {dx, dout, int32_t(n), p, seed}).ok());
      auto out = dout.toHost().value();
      size_t maskErrors = 0, valueErrors = 0;
      for (size_t i = 0; i < n; ++i) {
        bool keep = uniform(philox(uint32_t(seed), uint32_t(i))) > p;
        maskErrors += keep != (out[i] != 0.f);
        // div.full.f32 is within 2 ulp of the exact quotient.
        float expect = x[i] / (1 - p);
        if (keep && std::fabs(out[i] - expect) > 2e-7f * std::fabs(expect))
          ++valueErrors;
      }
      EXPECT_EQ(maskErrors, 0u) << "n = " << n << ", seed = " << seed;
      EXPECT_EQ(valueErrors, 0u) << "n = " << n << ", seed = " << seed;
      EXPECT_TRUE(guardIntact(out, n)) << "n = " << n;
    }
  }
}

TEST(GPU, SeededDropoutSameSeedSameOutput) {
  REQUIRE_GPU();
  auto k = compileMLIR(source("seeded_dropout.mlir")).value();
  size_t n = 100000;
  auto dx = DeviceBuffer<float>::fromHost(randomVector(n, 6)).value();
  auto run = [&](int32_t seed) {
    auto out = poisoned(n);
    k.launch(cdiv(n, 1024), {dx, out, int32_t(n), 0.5f, seed}).value();
    return out.toHost().value();
  };
  auto a = run(123), b = run(123), c = run(512);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(float)), 0);
  EXPECT_NE(std::memcmp(a.data(), c.data(), n * sizeof(float)), 0);
}

TEST(GPU, ThreadsCompileAndLaunchAtOnce) {
  REQUIRE_GPU();
  std::string src = source("seeded_dropout.mlir");
  size_t n = (1 << 20) + 7;
  auto x = randomVector(n, 7);
  std::vector<std::vector<float>> results(8);
  std::vector<std::string> errors(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      CompileOptions o;
      o.optLevel = 2 + t % 2; // two distinct compiles racing
      auto k = compileMLIR(src, o);
      if (!k) {
        errors[t] = k.error().str();
        return;
      }
      auto dx = DeviceBuffer<float>::fromHost(x);
      auto out = DeviceBuffer<float>::allocate(n);
      if (!dx || !out) {
        errors[t] = "allocation failed";
        return;
      }
      for (int rep = 0; rep < 20; ++rep)
        if (auto ok = k->launch(cdiv(n, 1024), {*dx, *out, int32_t(n), 0.5f,
                                                int32_t(42)});
            !ok) {
          errors[t] = ok.error().str();
          return;
        }
      auto host = out->toHost();
      if (!host) {
        errors[t] = host.error().str();
        return;
      }
      results[t] = std::move(*host);
    });
  for (auto &th : threads)
    th.join();
  for (int t = 0; t < 8; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_EQ(results[t], results[0]) << "thread " << t;
  }
}

/// The bytes of the one `.cubin` entry in `dir` (empty when not exactly one).
static std::string onlyCubinIn(const std::string &dir) {
  std::string found;
  int count = 0;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 6 && name.compare(name.size() - 6, 6, ".cubin") == 0) {
        std::ifstream in(dir + "/" + name, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        found = ss.str();
        ++count;
      }
    }
    closedir(d);
  }
  return count == 1 ? found : "";
}

// A first launch starts ptxas beside its MLIR compile (Ptxas.h); with
// KITE_EARLY_PTXAS=0 ptxas starts once the PTX is ready. Both give the same
// cubin (the disk cache's entries, byte for byte) and the same outputs, and
// the phases are reported.
TEST(GPU, EarlyPtxasGivesTheSameCubin) {
  REQUIRE_GPU();
  if (machineCodeCompiler().empty() ||
      machineCodeCompiler().rfind("nvJitLink", 0) == 0)
    GTEST_SKIP() << "no ptxas process here: " << machineCodeCompiler();
  std::string oldDir =
      std::getenv("KITE_CACHE_DIR") ? std::getenv("KITE_CACHE_DIR") : "";
  size_t n = (1 << 20) + 5;
  auto dx = DeviceBuffer<float>::fromHost(randomVector(n, 8)).value();
  std::vector<std::vector<float>> outputs;
  std::vector<std::string> cubins;
  for (const char *early : {"1", "0"}) {
    char dir[] = "/tmp/kite-early-XXXXXX";
    ASSERT_TRUE(mkdtemp(dir));
    setenv("KITE_CACHE_DIR", dir, 1);
    setenv("KITE_EARLY_PTXAS", early, 1);
    setenv("KITE_TIERED", "0", 1); // one cubin: the optimized code's
    clearMemoryCache();
    auto k = compileMLIR(source("seeded_dropout.mlir")).value();
    auto out = poisoned(n);
    ASSERT_TRUE(k.launch(cdiv(n, 1024), {dx, out, int32_t(n), 0.3f,
                                         int32_t(77)})
                    .ok());
    EXPECT_EQ(k.lastOutcome(), CacheOutcome::Compiled);
    CompileTimes t = k.lastCompileTimes();
    EXPECT_GT(t.toPtx, 0) << "early = " << early;
    EXPECT_GT(t.machineCode, 0) << "early = " << early;
    EXPECT_GT(t.load, 0) << "early = " << early;
    outputs.push_back(out.toHost().value());
    cubins.push_back(onlyCubinIn(dir));
    EXPECT_FALSE(cubins.back().empty()) << "no single cubin in " << dir;
    std::system(("rm -rf " + std::string(dir)).c_str());
  }
  unsetenv("KITE_EARLY_PTXAS");
  unsetenv("KITE_TIERED");
  if (oldDir.empty())
    unsetenv("KITE_CACHE_DIR");
  else
    setenv("KITE_CACHE_DIR", oldDir.c_str(), 1);
  clearMemoryCache();
  EXPECT_TRUE(cubins[0] == cubins[1]) << "the cubins differ";
  EXPECT_EQ(std::memcmp(outputs[0].data(), outputs[1].data(),
                        (n + kGuard) * sizeof(float)),
            0);
}

// Tiered compilation (CompileOptions::tiered, docs/runtime.md): a first
// launch that compiles an elementwise kernel runs its quick tier; after
// finishCompiles() the launches run the optimized code. Both give the bits a
// direct compile (KITE_TIERED=0) gives, at a size divisible by 16 and an odd
// one, and the background compile leaves the direct compile's cubin in the
// disk cache, byte for byte (the quick tier's is never cached). A kernel with
// a reduction has no quick tier.
TEST(GPU, TieredCompileGivesTheSameBits) {
  REQUIRE_GPU();
  if (machineCodeCompiler().empty() ||
      machineCodeCompiler().rfind("nvJitLink", 0) == 0)
    GTEST_SKIP() << "no ptxas process here: " << machineCodeCompiler();
  std::string oldDir =
      std::getenv("KITE_CACHE_DIR") ? std::getenv("KITE_CACHE_DIR") : "";
  struct Case {
    const char *file;
    int inputs; // float inputs before the output; then n (and p, seed)
    const char *extra;
  };
  const Case cases[] = {{"seeded_dropout.mlir", 1, "p,seed"},
                        {"dropout.mlir", 1, "keep,p"},
                        {"vector_add.mlir", 2, ""},
                        {"sigmoid.kite", 1, ""},
                        {"libdevice.kite", 1, ""}};
  for (const Case &c : cases) {
    for (size_t n : {size_t(1) << 20, (size_t(1) << 20) + 3}) {
      SCOPED_TRACE(std::string(c.file) + ", n = " + std::to_string(n));
      auto x = randomVector(n, 11), y = randomVector(n, 12);
      for (float &e : x)
        e = std::tanh(e); // asin's domain
      std::vector<int32_t> keep(n);
      for (size_t i = 0; i < n; ++i)
        keep[i] = (i * 2654435761u >> 7) & 1;
      auto dx = DeviceBuffer<float>::fromHost(x).value();
      auto dy = DeviceBuffer<float>::fromHost(y).value();
      auto dk = DeviceBuffer<int32_t>::fromHost(keep).value();
      auto run = [&](const Kernel &k) {
        auto out = poisoned(n);
        std::vector<Arg> args = {dx};
        if (std::string(c.extra) == "keep,p")
          args.push_back(dk);
        if (c.inputs == 2)
          args.push_back(dy);
        args.push_back(out);
        args.push_back(int32_t(n));
        if (std::string(c.extra) == "keep,p")
          args.push_back(0.3f);
        if (std::string(c.extra) == "p,seed") {
          args.push_back(0.3f);
          args.push_back(int32_t(1234));
        }
        EXPECT_TRUE(k.launch(cdiv(n, 1024), args).ok());
        return out.toHost().value();
      };
      auto compile = [&]() {
        std::string text = source(c.file);
        return std::string(c.file).find(".kite") != std::string::npos
                   ? compileKite(text, {}, c.file).value()
                   : compileMLIR(text, {}, c.file).value();
      };
      std::vector<float> direct, quick, optimized;
      std::string directCubin, tieredCubin;
      for (const char *tiered : {"0", "1"}) {
        char dir[] = "/tmp/kite-tiered-XXXXXX";
        ASSERT_TRUE(mkdtemp(dir));
        setenv("KITE_CACHE_DIR", dir, 1);
        setenv("KITE_TIERED", tiered, 1);
        clearMemoryCache();
        Kernel k = compile();
        if (*tiered == '0') {
          direct = run(k);
          EXPECT_EQ(k.lastOutcome(), CacheOutcome::Compiled);
          directCubin = onlyCubinIn(dir);
        } else {
          quick = run(k);
          EXPECT_EQ(k.lastOutcome(), CacheOutcome::QuickTier);
          auto finished = k.finishCompiles();
          EXPECT_TRUE(finished.ok()) << finished.error().message();
          optimized = run(k);
          tieredCubin = onlyCubinIn(dir);
        }
        std::system(("rm -rf " + std::string(dir)).c_str());
      }
      EXPECT_FALSE(directCubin.empty());
      EXPECT_TRUE(directCubin == tieredCubin)
          << "the tiered compile's cubin differs from the direct one's";
      ASSERT_EQ(direct.size(), quick.size());
      EXPECT_EQ(std::memcmp(direct.data(), quick.data(),
                            (n + kGuard) * sizeof(float)),
                0);
      EXPECT_EQ(std::memcmp(direct.data(), optimized.data(),
                            (n + kGuard) * sizeof(float)),
                0);
    }
  }
  // A reduction: no quick tier.
  setenv("KITE_TIERED", "1", 1);
  clearMemoryCache();
  char dir[] = "/tmp/kite-tiered-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  setenv("KITE_CACHE_DIR", dir, 1);
  auto softmax = compileMLIR(source("softmax.mlir"), {}, "softmax.mlir").value();
  int rows = 4, cols = 781;
  auto in = DeviceBuffer<float>::fromHost(randomVector(rows * cols, 13)).value();
  auto out = DeviceBuffer<float>::allocate(rows * cols).value();
  ASSERT_TRUE(softmax
                  .launch(uint32_t(rows), {out, in, int32_t(cols),
                                           int32_t(cols), int32_t(rows),
                                           int32_t(cols)})
                  .ok());
  EXPECT_EQ(softmax.lastOutcome(), CacheOutcome::Compiled);
  EXPECT_TRUE(softmax.finishCompiles().ok());
  std::system(("rm -rf " + std::string(dir)).c_str());
  unsetenv("KITE_TIERED");
  if (oldDir.empty())
    unsetenv("KITE_CACHE_DIR");
  else
    setenv("KITE_CACHE_DIR", oldDir.c_str(), 1);
  clearMemoryCache();
}

TEST(GPU, DriverErrorsAreReported) {
  REQUIRE_GPU();
  auto k = compileMLIR(source("vector_add.mlir")).value();
  auto buf = DeviceBuffer<float>::allocate(16).value();
  auto noDevice = k.launch(1, {buf, buf, buf, int32_t(16)}, {63, nullptr});
  ASSERT_FALSE(noDevice);
  EXPECT_EQ(noDevice.error().code(), ErrorCode::NoDevice);
  auto tooBig = k.launch(Grid(1, 1 << 16), {buf, buf, buf, int32_t(16)});
  ASSERT_FALSE(tooBig);
  EXPECT_EQ(tooBig.error().code(), ErrorCode::InvalidArgument);
  auto huge = DeviceBuffer<float>::allocate(size_t(1) << 50);
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().code(), ErrorCode::DriverError);
  EXPECT_NE(huge.error().message().find("cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY"),
            std::string::npos)
      << huge.error().message();
}

TEST(GPU, SecondDevice) {
  REQUIRE_GPU();
  if (*deviceCount() < 2)
    GTEST_SKIP() << "one GPU only";
  auto k = compileMLIR(source("vector_add.mlir")).value();
  size_t n = 5000;
  auto x = randomVector(n, 8);
  auto dx = DeviceBuffer<float>::fromHost(x, 1).value();
  auto dz = DeviceBuffer<float>::allocate(n, 1).value();
  ASSERT_TRUE(k.launch(cdiv(n, 1024), {dx, dx, dz, int32_t(n)}, {1, nullptr}).ok());
  auto z = dz.toHost().value();
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(z[i], x[i] + x[i]);
}

/// Units in the last place between two floats.
static int64_t ulps(float a, float b) {
  int32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  if ((x < 0) != (y < 0))
    return a == b ? 0 : INT64_MAX;
  return std::abs(int64_t(x) - int64_t(y));
}

TEST(GPU, InterpreterAgreesWithTheGPU) {
  REQUIRE_GPU();
  for (size_t n : {size_t(100003), (size_t(1) << 20) + 3}) {
    auto x = randomVector(n, 11), y = randomVector(n, 12);
    std::vector<int32_t> keep(n);
    for (size_t i = 0; i < n; ++i)
      keep[i] = (i * 2654435761u >> 7) & 1;
    auto dx = DeviceBuffer<float>::fromHost(x).value();
    auto dy = DeviceBuffer<float>::fromHost(y).value();
    auto dk = DeviceBuffer<int32_t>::fromHost(keep).value();
    auto dout = DeviceBuffer<float>::allocate(n).value();
    std::vector<float> host(n);
    auto compare = [&](const char *what, bool exact) {
      auto gpu = dout.toHost().value();
      size_t bad = 0;
      for (size_t i = 0; i < n; ++i)
        bad += exact ? gpu[i] != host[i] : ulps(gpu[i], host[i]) > 2;
      EXPECT_EQ(bad, 0u) << what << ", n = " << n;
    };
    auto add = compileKite(source("vector_add.kite"), {}, "vector_add.kite").value();
    ASSERT_TRUE(add.launch(cdiv(n, 1024), {dx, dy, dout, int32_t(n)}).ok());
    ASSERT_TRUE(add.interpret(cdiv(n, 1024), {x, y, host, int32_t(n)}).ok());
    compare("vector_add (exact)", true);
    auto drop = compileKite(source("dropout.kite"), {}, "dropout.kite").value();
    ASSERT_TRUE(drop.launch(cdiv(n, 1024), {dx, dk, dout, int32_t(n), 0.3f}).ok());
    ASSERT_TRUE(drop.interpret(cdiv(n, 1024), {x, keep, host, int32_t(n), 0.3f}).ok());
    compare("dropout (div.full.f32 vs IEEE: 2 ulp)", false);
    auto seeded = compileKite(source("seeded_dropout.kite"), {}, "seeded_dropout.kite").value();
    for (int32_t seed : {123, -7}) {
      ASSERT_TRUE(seeded.launch(cdiv(n, 1024), {dx, dout, int32_t(n), 0.3f, seed}).ok());
      ASSERT_TRUE(seeded.interpret(cdiv(n, 1024), {x, host, int32_t(n), 0.3f, seed}).ok());
      auto gpu = dout.toHost().value();
      size_t maskBad = 0;
      for (size_t i = 0; i < n; ++i)
        maskBad += (gpu[i] == 0.f) != (host[i] == 0.f);
      EXPECT_EQ(maskBad, 0u) << "seeded_dropout keep mask, seed " << seed;
      compare("seeded_dropout values (2 ulp)", false);
    }
  }
  // randint/rand words bit for bit.
  const char *src = R"(@kernel
def r(out_i: *i32, out_f: *f32, seed: i32, n: i32):
    offs = program_id(0) * 1024 + arange(0, 1024)
    m = offs < n
    store(out_i + offs, randint(seed, offs * 7919), mask=m)
    store(out_f + offs, rand(seed, offs * 7919), mask=m)
)";
  auto k = compileKite(src, {}, "r.kite").value();
  size_t n = 50000;
  auto di = DeviceBuffer<int32_t>::allocate(n).value();
  auto df = DeviceBuffer<float>::allocate(n).value();
  std::vector<int32_t> hi(n);
  std::vector<float> hf(n);
  ASSERT_TRUE(k.launch(cdiv(n, 1024), {di, df, int32_t(42), int32_t(n)}).ok());
  ASSERT_TRUE(k.interpret(cdiv(n, 1024), {hi, hf, int32_t(42), int32_t(n)}).ok());
  EXPECT_EQ(di.toHost().value(), hi);
  auto gf = df.toHost().value();
  EXPECT_EQ(std::memcmp(gf.data(), hf.data(), n * 4), 0);

  // randint4x: the four words, bit for bit (one Philox block on the GPU).
  const char *src4 = R"(@kernel
def r(out: *i32, seed: i32, n: i32):
    offs = program_id(0) * 256 + arange(0, 256)
    m = offs < n
    a, b, c, d = randint4x(seed, offs)
    store(out + 4 * offs, a, mask=m)
    store(out + 4 * offs + 1, b, mask=m)
    store(out + 4 * offs + 2, c, mask=m)
    store(out + 4 * offs + 3, d, mask=m)
)";
  auto k4 = compileKite(src4, {}, "r4.kite").value();
  auto d4 = DeviceBuffer<int32_t>::allocate(4 * n).value();
  std::vector<int32_t> h4(4 * n);
  ASSERT_TRUE(k4.launch(cdiv(n, 256), {d4, int32_t(-7), int32_t(n)}).ok());
  ASSERT_TRUE(k4.interpret(cdiv(n, 256), {h4, int32_t(-7), int32_t(n)}).ok());
  EXPECT_EQ(d4.toHost().value(), h4);
}

//===----------------------------------------------------------------------===//
// Matmul (Triton tutorial 03)
//===----------------------------------------------------------------------===//

/// C = A x B in double on the host (threads over rows); A and B may be
/// transposed (stored K x M, N x K: strides sam, sak and sbk, sbn).
static std::vector<double> hostMatmul(const std::vector<float> &a,
                                      const std::vector<float> &b, int M,
                                      int N, int K, int sbk, int sbn,
                                      int sam = -1, int sak = 1) {
  if (sam < 0)
    sam = K;
  std::vector<double> c(size_t(M) * N, 0);
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::vector<double> row(N);
      for (int i = int(t); i < M; i += int(threads)) {
        std::fill(row.begin(), row.end(), 0.0);
        for (int k = 0; k < K; ++k) {
          double av = a[size_t(i) * sam + size_t(k) * sak];
          for (int j = 0; j < N; ++j)
            row[j] += av * b[size_t(k) * sbk + size_t(j) * sbn];
        }
        std::copy(row.begin(), row.end(), c.begin() + size_t(i) * N);
      }
    });
  for (auto &th : pool)
    th.join();
  return c;
}

/// The tutorial kernel with `in` inputs (f16/bf16 take the f32 source and
/// change the pointer types of A and B) and `warps` warps per program.
static std::string matmulSource(const char *in) {
  std::string src = source("matmul.kite");
  if (std::string(in) == "tf32") { // f32 inputs multiplied as tf32
    std::string ieee = "input_precision=\"ieee\"";
    size_t at = src.find(ieee);
    src.replace(at, ieee.size(), "input_precision=\"tf32\"");
  } else if (std::string(in) != "f32") {
    size_t at = src.find("a_ptr: *f32, b_ptr: *f32");
    src.replace(at, 24, std::string("a_ptr: *") + in + ", b_ptr: *" + in);
  }
  return src;
}

/// The matmul kernel over every input type, block configuration and shape
/// for `chip` ("" the device's own); two tests (the device's chip, sm_80),
/// so that the GPU suite's shards split the longest of its work.
static void matmulAllShapes(const char *onChip) {
  struct Shape {
    int M, N, K;
    bool transposedB, transposedA = false;
  };
  struct Config {
    int bm, bn, bk, group, warps;
  };
  // Each input type on the device's own chip (sm_90a on an H100: wgmma
  // for f16/bf16 and tf32, tf32's B transposed into a K-major staging) and
  // on sm_80 (mma.sync; PTX the driver compiles for the device), through
  // the runtime as a user would.
  // The default blocks (64x64x32, 4 warps, cp.async staging: 8x4 tiles,
  // A row-major), the tutorial's 128x128x32 with 8 warps (8x8 tiles, A
  // k-major), 128x256x16 with 8 warps (16x8 tiles), small blocks, and the
  // tensor-core configurations the benchmark uses (128x256x64 and
  // 128x128x64 on 8 warps: wgmma on sm_90a for f16/bf16), and 64x64x64
  // (operands of the result's shape, whose layouts differ from it).
  const Config configs[] = {Config{64, 64, 32, 8, 4},   Config{128, 128, 32, 8, 8},
                            Config{128, 256, 16, 8, 8}, Config{64, 32, 16, 4, 4},
                            Config{128, 256, 64, 8, 8}, Config{128, 128, 64, 8, 8},
                            Config{64, 64, 64, 8, 4}};
  auto skipped = [](const char *chip, const char *in, const Config &cfg) {
    bool tf32 = std::string(in) == "tf32";
    // The FMA path does not depend on the chip; 64-deep blocks of 4-byte
    // elements take 96 KB a slot, more than the shared memory of 3 slots
    // (a compile error that says so).
    return (*chip && std::string(in) == "f32") ||
           ((std::string(in) == "f32" || tf32) && cfg.bk == 64 && cfg.bm > 64);
  };
  // Every kernel compiled first, side by side (the suite's time is mostly
  // compiles; the runtime compiles from several threads at once).
  std::map<std::string, std::optional<Expected<Kernel>>> compiled;
  auto keyOf = [](const char *chip, const char *in, const Config &cfg) {
    return std::string(chip) + "/" + in + "/" + std::to_string(cfg.bm) + "x" +
           std::to_string(cfg.bn) + "x" + std::to_string(cfg.bk) + "w" +
           std::to_string(cfg.warps);
  };
  {
    std::vector<std::thread> pool;
    std::mutex mu;
    for (const char *chip : {onChip})
      for (const char *in : {"f32", "tf32", "f16", "bf16"})
        for (const Config &cfg : configs) {
          if (skipped(chip, in, cfg))
            continue;
          pool.emplace_back([&, chip, in, cfg] {
            CompileOptions o;
            o.constants = {{"BLOCK_M", cfg.bm}, {"BLOCK_N", cfg.bn},
                           {"BLOCK_K", cfg.bk}, {"GROUP_SIZE_M", cfg.group}};
            o.overrideNumWarps = cfg.warps;
            o.chip = chip;
            auto k = compileKite(matmulSource(in), o, "matmul.kite");
            std::lock_guard<std::mutex> lock(mu);
            compiled[keyOf(chip, in, cfg)].emplace(std::move(k));
          });
        }
    for (auto &t : pool)
      t.join();
  }
  for (const char *chip : {onChip})
  for (const char *in : {"f32", "tf32", "f16", "bf16"}) {
    bool half = std::string(in) == "f16" || std::string(in) == "bf16",
         bf16 = std::string(in) == "bf16", tf32 = std::string(in) == "tf32";
    for (const Config &cfg : configs) {
      if (skipped(chip, in, cfg))
        continue;
      Expected<Kernel> &k = *compiled.at(keyOf(chip, in, cfg));
      ASSERT_TRUE(k) << k.error().str();
      for (Shape sh : {Shape{1, 1, 1, false}, Shape{16, 16, 16, false},
                       Shape{37, 29, 45, false}, Shape{64, 64, 8, false},
                       Shape{1000, 1000, 1000, false},
                       Shape{4097, 33, 129, false}, Shape{4096, 4096, 512, false},
                       Shape{4095, 4097, 1023, false},
                       Shape{333, 257, 100, true},
                       // Every orientation with strides whose rows are
                       // 16-byte aligned (the operand loads taken in their
                       // memory's order: docs/lowering.md, "Operand
                       // orientation"), masked edges; and unaligned.
                       Shape{528, 400, 208, true, false},
                       Shape{528, 400, 208, false, true},
                       Shape{528, 400, 208, true, true},
                       Shape{333, 257, 100, false, true},
                       Shape{333, 257, 100, true, true}}) {
        if (sh.M >= 4095 && (std::string(in) != "f32") != (sh.K == 1023))
          continue; // one big shape each: f32 the even one, the others odd
        int M = sh.M, N = sh.N, K = sh.K;
        auto a = randomVector(size_t(M) * K, 31), b = randomVector(size_t(K) * N, 32);
        if (half) { // the inputs the kernel will see
          for (float &v : a) v = fromHalfBits(toHalfBits(v, bf16), bf16);
          for (float &v : b) v = fromHalfBits(toHalfBits(v, bf16), bf16);
        }
        // tf32: the reference is exact; the bound allows for the
        // truncated operands (10 mantissa bits, like f16).
        int sbk = sh.transposedB ? 1 : N, sbn = sh.transposedB ? K : 1;
        int sam = sh.transposedA ? 1 : K, sak = sh.transposedA ? M : 1;
        // The reference of these inputs, computed once (tf32 and f32 read
        // the same inputs).
        static std::map<std::string, std::vector<double>> refs;
        std::string refKey = std::string(half ? in : "f32") + " " +
                             std::to_string(M) + "x" + std::to_string(N) + "x" +
                             std::to_string(K) + (sh.transposedB ? "T" : "") +
                             (sh.transposedA ? "A" : "");
        if (!refs.count(refKey))
          refs[refKey] = hostMatmul(a, b, M, N, K, sbk, sbn, sam, sak);
        const std::vector<double> &ref = refs[refKey];
        auto dc = DeviceBuffer<float>::fromHost(
                      std::vector<float>(size_t(M) * N + kGuard, std::nanf("")))
                      .value();
        Expected<void> ran = Success{};
        int grid = cdiv(M, cfg.bm) * cdiv(N, cfg.bn);
        std::vector<Arg> rest = {int32_t(M), int32_t(N), int32_t(K), int32_t(sam),
                                 int32_t(sak), int32_t(sbk), int32_t(sbn),
                                 int32_t(N), int32_t(1)};
        if (half) {
          std::vector<uint16_t> ha(a.size()), hb(b.size());
          for (size_t i = 0; i < a.size(); ++i) ha[i] = toHalfBits(a[i], bf16);
          for (size_t i = 0; i < b.size(); ++i) hb[i] = toHalfBits(b[i], bf16);
          auto da = DeviceBuffer<uint16_t>::fromHost(ha).value();
          auto db = DeviceBuffer<uint16_t>::fromHost(hb).value();
          std::vector<Arg> args = {Arg(da), Arg(db), Arg(dc)};
          args.insert(args.end(), rest.begin(), rest.end());
          ran = k->launch(grid, args);
        } else {
          auto da = DeviceBuffer<float>::fromHost(a).value();
          auto db = DeviceBuffer<float>::fromHost(b).value();
          std::vector<Arg> args = {Arg(da), Arg(db), Arg(dc)};
          args.insert(args.end(), rest.begin(), rest.end());
          ran = k->launch(grid, args);
        }
        ASSERT_TRUE(ran) << ran.error().str();
        auto c = dc.toHost().value();
        EXPECT_TRUE(guardIntact(c, size_t(M) * N));
        c.resize(size_t(M) * N);
        double err = relError(c, ref);
        EXPECT_LE(err, half || tf32 ? 1e-2 : 1e-5)
            << in << " " << (*chip ? chip : "device chip") << " " << M << "x"
            << N << "x" << K
            << (sh.transposedB ? " (B transposed)" : "")
            << (sh.transposedA ? " (A transposed)" : "") << " blocks " << cfg.bm
            << "x" << cfg.bn << "x" << cfg.bk;
        std::printf("matmul %s %s %dx%dx%d%s%s blocks %dx%dx%d: error %.2e\n",
                    in, *chip ? chip : "device", M, N, K,
                    sh.transposedB ? "T" : "", sh.transposedA ? "A" : "",
                    cfg.bm, cfg.bn, cfg.bk, err);
      }
    }
  }
}

// fp8 (e4m3, e5m2) through the tutorial kernel in every operand
// orientation, on the device's chip: wgmma reads fp8 K-major only, so a B
// whose memory runs along N (and an A along M) reaches it transposed on
// chip (kite-stage-dot-operands: the blocks through the copies' ring into
// registers, B's bytes exchanged there and stored K-major); aligned and
// ragged sizes, with masked K tails, against float64 of the same fp8
// values (relative error by norm: fp8 products are accumulated with fewer
// mantissa bits than f32).
TEST(GPU, Fp8MatmulEveryOrientation) {
  REQUIRE_GPU();
  struct Shape {
    int M, N, K;
    bool transposedB, transposedA;
  };
  struct Config {
    int bm, bn, bk, warps;
  };
  for (const char *in : {"f8e4m3", "f8e5m2"}) {
    bool e5m2 = std::string(in) == "f8e5m2";
    for (Config cfg : {Config{128, 128, 64, 8}, Config{128, 128, 32, 4},
                       Config{64, 64, 32, 4}, Config{128, 256, 64, 8}}) {
      CompileOptions o;
      o.constants = {{"BLOCK_M", cfg.bm}, {"BLOCK_N", cfg.bn},
                     {"BLOCK_K", cfg.bk}, {"GROUP_SIZE_M", 8}};
      o.overrideNumWarps = cfg.warps;
      auto k = compileKite(matmulSource(in), o, "matmul.kite");
      ASSERT_TRUE(k) << k.error().str();
      for (Shape sh : {Shape{528, 400, 208, false, false},
                       Shape{528, 400, 208, true, false},
                       Shape{528, 400, 208, false, true},
                       Shape{528, 400, 208, true, true},
                       Shape{256, 256, 1024, false, false},
                       Shape{333, 257, 100, false, false},
                       Shape{37, 29, 45, false, false}}) {
        int M = sh.M, N = sh.N, K = sh.K;
        auto a = randomVector(size_t(M) * K, 41), b = randomVector(size_t(K) * N, 42);
        std::vector<uint8_t> ha(a.size()), hb(b.size());
        for (size_t i = 0; i < a.size(); ++i)
          a[i] = float(fp8Value(ha[i] = fp8Bits(a[i], e5m2), e5m2));
        for (size_t i = 0; i < b.size(); ++i)
          b[i] = float(fp8Value(hb[i] = fp8Bits(b[i], e5m2), e5m2));
        int sbk = sh.transposedB ? 1 : N, sbn = sh.transposedB ? K : 1;
        int sam = sh.transposedA ? 1 : K, sak = sh.transposedA ? M : 1;
        std::vector<double> ref = hostMatmul(a, b, M, N, K, sbk, sbn, sam, sak);
        auto da = DeviceBuffer<uint8_t>::fromHost(ha).value();
        auto db = DeviceBuffer<uint8_t>::fromHost(hb).value();
        auto dc = DeviceBuffer<float>::fromHost(
                      std::vector<float>(size_t(M) * N + kGuard, std::nanf("")))
                      .value();
        int grid = cdiv(M, cfg.bm) * cdiv(N, cfg.bn);
        auto ran = k->launch(grid, {Arg(da), Arg(db), Arg(dc), int32_t(M),
                                    int32_t(N), int32_t(K), int32_t(sam),
                                    int32_t(sak), int32_t(sbk), int32_t(sbn),
                                    int32_t(N), int32_t(1)});
        ASSERT_TRUE(ran) << ran.error().str();
        auto c = dc.toHost().value();
        EXPECT_TRUE(guardIntact(c, size_t(M) * N));
        c.resize(size_t(M) * N);
        double err = relError(c, ref);
        EXPECT_LE(err, 2e-3)
            << in << " " << M << "x" << N << "x" << K
            << (sh.transposedB ? " (B transposed)" : "")
            << (sh.transposedA ? " (A transposed)" : "") << " blocks "
            << cfg.bm << "x" << cfg.bn << "x" << cfg.bk;
        std::printf("matmul %s %dx%dx%d%s%s blocks %dx%dx%d: error %.2e\n", in,
                    M, N, K, sh.transposedB ? "T" : "",
                    sh.transposedA ? "A" : "", cfg.bm, cfg.bn, cfg.bk, err);
      }
    }
  }
}

TEST(GPU, MatmulAllShapes) {
  REQUIRE_GPU();
  matmulAllShapes("");
}

TEST(GPU, MatmulAllShapesSm80) {
  REQUIRE_GPU();
  matmulAllShapes("sm_80");
}

TEST(GPU, MatmulPointerLoadsOnTma) {
  REQUIRE_GPU();
  // The tutorial's f16 kernel on the device's chip, with the blocks and
  // launches that let kite-raise-to-descriptors read its operands with TMA
  // on sm_90a (unit inner strides, 16-byte rows): rows and columns that
  // wrap around (`% M`, `% N`) read zeros there and must never be stored,
  // a K tail, blocks larger than the matrix, K = 0 (its tensor map clamped,
  // not refused), and a row stride of 0 (one row of A for every row: not a
  // tensor map's, so the pointer loads). Against float64; C poisoned with a
  // guard after it.
  CompileOptions o;
  o.constants = {
      {"BLOCK_M", 128}, {"BLOCK_N", 256}, {"BLOCK_K", 64}, {"GROUP_SIZE_M", 8}};
  o.overrideNumWarps = 8;
  auto k = compileKite(matmulSource("f16"), o, "matmul.kite");
  ASSERT_TRUE(k) << k.error().str();
  struct Shape {
    int M, N, K, strideAm;
  };
  for (Shape sh : {Shape{1000, 1008, 1040, 1040}, Shape{16, 16, 16, 16},
                   Shape{300, 2000, 64, 64}, Shape{64, 64, 0, 64},
                   Shape{200, 272, 96, 0}}) {
    int M = sh.M, N = sh.N, K = sh.K;
    int rowsA = sh.strideAm ? M : 1;
    auto a = randomVector(size_t(rowsA) * std::max(K, 1), 41);
    auto b = randomVector(size_t(std::max(K, 1)) * N, 42);
    std::vector<uint16_t> ha(a.size()), hb(b.size());
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = fromHalfBits(ha[i] = toHalfBits(a[i], false), false);
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = fromHalfBits(hb[i] = toHalfBits(b[i], false), false);
    std::vector<float> full(size_t(M) * K);
    for (int i = 0; i < M; ++i)
      for (int kk = 0; kk < K; ++kk)
        full[size_t(i) * K + kk] = a[size_t(sh.strideAm ? i : 0) * K + kk];
    auto ref = hostMatmul(full, b, M, N, K, N, 1);
    auto da = DeviceBuffer<uint16_t>::fromHost(ha).value();
    auto db = DeviceBuffer<uint16_t>::fromHost(hb).value();
    auto dc = poisoned(size_t(M) * N);
    std::vector<Arg> args = {Arg(da),
                             Arg(db),
                             Arg(dc),
                             int32_t(M),
                             int32_t(N),
                             int32_t(K),
                             int32_t(sh.strideAm),
                             int32_t(1),
                             int32_t(N),
                             int32_t(1),
                             int32_t(N),
                             int32_t(1)};
    std::string ptx = k->ptx(k->specializationFor(args)).value();
    bool tma = ptx.find(" raised") != std::string::npos;
    if (::kite::deviceChip().value() == "sm_90a") {
      EXPECT_EQ(tma, sh.strideAm != 0)
          << M << "x" << N << "x" << K << ": the loads should "
          << (sh.strideAm ? "" : "not ") << "be raised to TMA";
    }
    auto ran = k->launch(cdiv(M, 128) * cdiv(N, 256), args);
    ASSERT_TRUE(ran) << ran.error().str();
    auto c = dc.toHost().value();
    EXPECT_TRUE(guardIntact(c, size_t(M) * N)) << M << "x" << N << "x" << K;
    c.resize(size_t(M) * N);
    if (K == 0) {
      EXPECT_TRUE(
          std::all_of(c.begin(), c.end(), [](float v) { return v == 0; }));
      continue;
    }
    double err = relError(c, ref);
    EXPECT_LE(err, 1e-2) << M << "x" << N << "x" << K << " stride_am "
                         << sh.strideAm;
    std::printf("matmul f16 %dx%dx%d stride_am %d%s: error %.2e\n", M, N, K,
                sh.strideAm, tma ? " (TMA)" : "", err);
  }
}
