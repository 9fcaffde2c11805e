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

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

using namespace kite;

static std::string source(const std::string &name) {
  for (std::string dir : {std::string(KITE_SOURCE_DIR) + "/dsl-examples",
                          std::string("dsl-examples")}) {
    std::ifstream in(dir + "/" + name);
    if (in) {
      std::stringstream ss;
      ss << in.rdbuf();
      return ss.str();
    }
  }
  return "";
}

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    auto count = deviceCount();                                                \
    if (!count)                                                                \
      GTEST_SKIP() << "no GPU: " << count.error().str();                       \
    if (*count == 0)                                                           \
      GTEST_SKIP() << "no GPU: the CUDA driver reports 0 devices";             \
  } while (0)

static const size_t kGuard = 64; ///< poisoned elements after each output

/// Triton's tl.rand word -> float, on the host (see ../shared/notes/random.md).
static uint32_t philox(uint32_t seed, uint32_t offset) {
  uint32_t c0 = offset, c1 = 0, c2 = 0, c3 = 0;
  uint32_t k0 = seed, k1 = int32_t(seed) < 0 ? 0xffffffffu : 0u;
  for (int r = 0; r < 10; ++r) {
    uint64_t pb = uint64_t(0xCD9E8D57u) * c2, pa = uint64_t(0xD2511F53u) * c0;
    uint32_t n0 = uint32_t(pb >> 32) ^ c1 ^ k0, n2 = uint32_t(pa >> 32) ^ c3 ^ k1;
    c1 = uint32_t(pb);
    c3 = uint32_t(pa);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c0;
}
static float uniform(uint32_t word) {
  int32_t x = int32_t(word);
  if (x < 0)
    x = ~x;
  return float(x) * 4.6566127342e-10f;
}

static std::vector<float> randomVector(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d;
  std::vector<float> v(n);
  for (float &e : v)
    e = d(rng);
  return v;
}

static DeviceBuffer<float> poisoned(size_t n) {
  auto b = DeviceBuffer<float>::fromHost(
               std::vector<float>(n + kGuard, std::nanf("")))
               .value();
  return b;
}

static bool guardIntact(const std::vector<float> &out, size_t n) {
  for (size_t i = n; i < out.size(); ++i)
    if (!std::isnan(out[i]))
      return false;
  return true;
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
}
