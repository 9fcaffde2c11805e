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

/// Philox4x32-10 on the host (../shared/notes/random.md): counter `c`
/// under key (k0, k1), in place; written independently of the compiler and
/// the interpreter. `rounds`: Triton's n_rounds.
inline void philox4x32(uint32_t k0, uint32_t k1, uint32_t c[4],
                       int rounds = 10) {
  for (int r = 0; r < rounds; ++r) {
    uint64_t pb = uint64_t(0xCD9E8D57u) * c[2], pa = uint64_t(0xD2511F53u) * c[0];
    uint32_t n0 = uint32_t(pb >> 32) ^ c[1] ^ k0, n2 = uint32_t(pa >> 32) ^ c[3] ^ k1;
    c[1] = uint32_t(pb);
    c[3] = uint32_t(pa);
    c[0] = n0;
    c[2] = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

/// Triton's tl.randint word on the host: key the seed sign-extended,
/// counter (offset, 0, 0, 0).
inline uint32_t philox(uint32_t seed, uint32_t offset) {
  uint32_t c[4] = {offset, 0, 0, 0};
  philox4x32(seed, int32_t(seed) < 0 ? 0xffffffffu : 0u, c);
  return c[0];
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

/// fp8 from its bits, computed from the formats' definitions: f8E4M3FN (4
/// exponent bits, bias 7, no infinities, S.1111.111 NaN) and f8E5M2 (5
/// bits, bias 15, IEEE-like).
inline double fp8Value(uint8_t bits, bool e5m2) {
  int mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7, emax = e5m2 ? 31 : 15;
  int exp = (bits >> mbits) & emax, mant = bits & ((1 << mbits) - 1);
  double v;
  if (!e5m2 && exp == 15 && mant == 7)
    v = NAN;
  else if (e5m2 && exp == 31)
    v = mant ? NAN : INFINITY;
  else if (exp == 0)
    v = std::ldexp(double(mant), 1 - bias - mbits);
  else
    v = std::ldexp(double(mant | (1 << mbits)), exp - bias - mbits);
  return (bits >> 7) ? -v : v;
}

/// The language's .to(fp8) by exhaustive search: the nearest finite value,
/// ties to the even code, saturating at the largest (448 / 57344).
inline uint8_t fp8Bits(double v, bool e5m2) {
  int best = -1;
  double bestErr = INFINITY;
  for (int c = 0; c < 256; ++c) {
    double x = fp8Value(uint8_t(c), e5m2);
    if (!std::isfinite(x) || (x == 0 && std::signbit(x) != std::signbit(v)))
      continue;
    double err = std::fabs(x - v);
    if (err < bestErr || (err == bestErr && !(c & 1))) {
      best = c;
      bestErr = err;
    }
  }
  return uint8_t(best);
}

} // namespace kite::test

#endif // KITE_UNITTESTS_RUNTIME_TESTHELPERS_H
