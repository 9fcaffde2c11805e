//===- TestHelpers.h - Shared by the runtime and interpreter tests -*- C++ -*-===//
//
// Host references and input/output helpers the CPU (interpreter) and GPU
// test suites both use. Header-only; each test binary includes it once.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_UNITTESTS_RUNTIME_TESTHELPERS_H
#define KITE_UNITTESTS_RUNTIME_TESTHELPERS_H

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace kite::test {

/// Poisoned (NaN) elements after each output buffer.
inline constexpr size_t kGuard = 64;

/// Triton's tl.randint word on the host (../shared/notes/random.md),
/// written independently of the compiler and the interpreter.
inline uint32_t philox(uint32_t seed, uint32_t offset) {
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

/// Triton's tl.rand: a randint word -> float in [0, 1).
inline float uniform(uint32_t word) {
  int32_t x = int32_t(word);
  if (x < 0)
    x = ~x;
  return float(x) * 4.6566127342e-10f;
}

inline std::vector<float> randomVector(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d;
  std::vector<float> v(n);
  for (float &e : v)
    e = d(rng);
  return v;
}

/// Whether every element past `n` is still NaN.
inline bool guardIntact(const std::vector<float> &out, size_t n) {
  for (size_t i = n; i < out.size(); ++i)
    if (!std::isnan(out[i]))
      return false;
  return true;
}

/// Relative error by norm: ||C - R||_F / ||R||_F (R in double).
inline double relError(const std::vector<float> &c,
                       const std::vector<double> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    num += (c[i] - ref[i]) * (c[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

} // namespace kite::test

#endif // KITE_UNITTESTS_RUNTIME_TESTHELPERS_H
