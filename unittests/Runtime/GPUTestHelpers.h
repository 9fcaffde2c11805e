//===- GPUTestHelpers.h - Shared by the GPU test files ----------*- C++ -*-===//
//
// REQUIRE_GPU (skip, saying why, without a GPU), REQUIRE_SM90, the
// dsl-examples' sources, f16/bf16 bits, random operands and float64 dot
// products for the test files of KiteRuntimeGPUTests.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_UNITTESTS_RUNTIME_GPUTESTHELPERS_H
#define KITE_UNITTESTS_RUNTIME_GPUTESTHELPERS_H

#include "kite/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    auto count = ::kite::deviceCount();                                        \
    if (!count)                                                                \
      GTEST_SKIP() << "no GPU: " << count.error().str();                       \
    if (*count == 0)                                                           \
      GTEST_SKIP() << "no GPU: the CUDA driver reports 0 devices";             \
  } while (0)

/// REQUIRE_GPU, and skip saying `why` on a GPU older than sm_90 (clusters,
/// TMA, producer warps).
#define REQUIRE_SM90(why)                                                      \
  do {                                                                         \
    REQUIRE_GPU();                                                             \
    if (std::atoi(::kite::deviceChip().value().c_str() + 3) < 90)              \
      GTEST_SKIP() << why;                                                     \
  } while (0)

namespace kite::test {

/// KITE_TEST_QUICK=1: the compute-sanitizer runs of scripts/gpu/run.sh,
/// where a test takes a few small cases of each kernel form.
inline bool quickRun() {
  const char *quick = std::getenv("KITE_TEST_QUICK");
  return quick && std::string(quick) == "1";
}

/// The text of dsl-examples/<name>, or with `bench` of bench/kernels/<name>
/// (bench/<name> beside the GPU machine's copy of the tests); empty when
/// not found.
inline std::string source(const std::string &name, bool bench = false) {
  for (std::string dir :
       {std::string(KITE_SOURCE_DIR) +
            (bench ? "/bench/kernels" : "/dsl-examples"),
        std::string(bench ? "bench" : "dsl-examples")}) {
    std::ifstream in(dir + "/" + name);
    if (in) {
      std::stringstream ss;
      ss << in.rdbuf();
      return ss.str();
    }
  }
  return "";
}

/// f16 (or bf16, rounded to nearest even) bits of `f`, and back.
inline uint16_t toHalfBits(float f, bool bf16) {
  if (bf16) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
  }
  _Float16 h = _Float16(f);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
inline float fromHalfBits(uint16_t u, bool bf16) {
  if (bf16) {
    uint32_t v = uint32_t(u) << 16;
    float f;
    std::memcpy(&f, &v, 4);
    return f;
  }
  _Float16 h;
  std::memcpy(&h, &u, 2);
  return float(h);
}

/// n floats uniform in [-1, 1) from `seed`.
inline std::vector<float> randomValues(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

/// Random f16 operands A (M x K) and B (K x N) on the device; `a` and `b`
/// hold their f16 values as floats (for host references).
struct HalfOperands {
  std::vector<float> a, b;
  DeviceBuffer<uint16_t> da, db;
};
inline HalfOperands halfOperands(int M, int N, int K, unsigned seedA,
                                 unsigned seedB) {
  auto a = randomValues(size_t(M) * K, seedA),
       b = randomValues(size_t(K) * N, seedB);
  std::vector<uint16_t> ha(a.size()), hb(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = fromHalfBits(ha[i] = toHalfBits(a[i], false), false);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = fromHalfBits(hb[i] = toHalfBits(b[i], false), false);
  return {std::move(a), std::move(b),
          DeviceBuffer<uint16_t>::fromHost(ha).value(),
          DeviceBuffer<uint16_t>::fromHost(hb).value()};
}

/// Row m of A (row-major, K columns) times column n of B (K x N row-major,
/// or N x K with `bTransposed`) in float64: the value, and the sum of the
/// terms' magnitudes (the scale of an f32 accumulation's rounding).
struct Float64Dot {
  double value = 0, magnitude = 0;
};
inline Float64Dot dotFloat64(const std::vector<float> &a,
                             const std::vector<float> &b, int K, int N, int m,
                             int n, bool bTransposed = false) {
  Float64Dot d;
  for (int kk = 0; kk < K; ++kk) {
    double p = double(a[size_t(m) * K + kk]) *
               b[bTransposed ? size_t(n) * K + kk : size_t(kk) * N + n];
    d.value += p;
    d.magnitude += std::fabs(p);
  }
  return d;
}

} // namespace kite::test

#endif // KITE_UNITTESTS_RUNTIME_GPUTESTHELPERS_H
