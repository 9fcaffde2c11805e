//===- Fp8.h - fp8 values on the host ---------------------------*- C++ -*-===//
//
// The two fp8 formats of the language (f8e4m3 = f8E4M3FN, Triton's
// float8e4nv; f8e5m2 = f8E5M2, float8e5) on the host, for filling and
// reading the uint8_t buffers of fp8 kernel arguments:
//   - fp8ToDouble(bits, type): the value of a code;
//   - fp8FromDouble(v, type): the language's .to(fp8): the nearest value,
//     ties to an even mantissa, saturating to the largest finite value
//     (448 for e4m3, 57344 for e5m2) like cvt.rn.satfinite; NaN stays NaN.
// Header-only; `type` is ScalarType::F8E4M3 or ScalarType::F8E5M2.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_RUNTIME_FP8_H
#define KITE_RUNTIME_FP8_H

#include "kite/Runtime/Runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kite {

namespace fp8detail {
struct Format {
  int mbits, bias, emax; ///< mantissa bits, exponent bias, exponent field max
  double largest;        ///< the largest finite value
};
inline Format format(ScalarType type) {
  return type == ScalarType::F8E5M2 ? Format{2, 15, 31, 57344.0}
                                    : Format{3, 7, 15, 448.0};
}
} // namespace fp8detail

/// The value of fp8 code `bits`: f8E4M3FN (4 exponent bits, bias 7, no
/// infinities, S.1111.111 is NaN) or f8E5M2 (5 bits, bias 15, IEEE-like).
inline double fp8ToDouble(uint8_t bits, ScalarType type) {
  fp8detail::Format f = fp8detail::format(type);
  bool e5m2 = type == ScalarType::F8E5M2;
  int exp = (bits >> f.mbits) & f.emax, mant = bits & ((1 << f.mbits) - 1);
  double v;
  if (!e5m2 && exp == 15 && mant == 7)
    v = NAN;
  else if (e5m2 && exp == 31)
    v = mant ? NAN : INFINITY;
  else if (exp == 0)
    v = std::ldexp(double(mant), 1 - f.bias - f.mbits);
  else
    v = std::ldexp(double(mant | (1 << f.mbits)), exp - f.bias - f.mbits);
  return (bits >> 7) ? -v : v;
}

/// The fp8 code of `v` as the language's .to(fp8) makes it: round to
/// nearest even, saturate at the largest finite value; NaN is 0x7f.
inline uint8_t fp8FromDouble(double v, ScalarType type) {
  if (std::isnan(v))
    return 0x7f;
  fp8detail::Format f = fp8detail::format(type);
  uint8_t sign = std::signbit(v) ? 0x80 : 0;
  double a = std::fmin(std::fabs(v), f.largest);
  if (a == 0)
    return sign;
  // The quantum at a's exponent (subnormals share the smallest one).
  int e = std::max(std::ilogb(a), 1 - f.bias);
  double quantum = std::ldexp(1.0, e - f.mbits);
  double q = std::nearbyint(a / quantum); // ties to even (the default mode)
  double r = q * quantum;                  // exact; may carry into e + 1
  if (r == 0)
    return sign;
  int re = std::ilogb(r);
  if (re < 1 - f.bias) // subnormal
    return sign | uint8_t(std::ldexp(r, f.bias - 1 + f.mbits));
  int mant = int(std::ldexp(r, f.mbits - re)) - (1 << f.mbits);
  return sign | uint8_t(((re + f.bias) << f.mbits) | mant);
}

} // namespace kite

#endif // KITE_RUNTIME_FP8_H
