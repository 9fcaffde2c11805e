//===- ArgSpecs.h - kite-run's argument specs -------------------*- C++ -*-===//
//
// kite-run's NAME=VALUE arguments parsed into raw elements (ArgSpecs.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef KITE_TOOLS_KITE_RUN_ARGSPECS_H
#define KITE_TOOLS_KITE_RUN_ARGSPECS_H

#include "kite/Runtime/Runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kite_run {

/// A malformed or out-of-range spec: kite-run's usage error (exit 2), or
/// a buffer beyond the byte budget (exit 1: the inputs failed).
struct SpecError {
  std::string message;
  int exitCode = 2;
};

/// Bytes of one element of `t` (8 for an untyped pointer).
size_t elemBytes(kite::ScalarType t);
/// Element `i` of a raw buffer of type `t`, stored from / read as a double.
void put(std::vector<uint8_t> &buf, kite::ScalarType t, size_t i, double v);
double get(const std::vector<uint8_t> &buf, kite::ScalarType t, size_t i);
bool isFloat(kite::ScalarType t);
/// A finite-or-inf double (not an overflow to inf); SpecError otherwise.
double number(const std::string &name, const std::string &text);
/// An integer in [lo, hi]: decimal, 0x hex, or a whole float (1e6).
int64_t integer(const std::string &name, const std::string &text, int64_t lo,
                int64_t hi, const char *type);
/// `v` in %g's short form.
std::string shortNumber(double v);
/// Item `text` of a values: list into element `i`, exactly (integers not
/// through a double, range-checked; floats not overflowing to inf).
void putItem(std::vector<uint8_t> &buf, kite::ScalarType t, size_t i,
             const std::string &name, const std::string &text);
/// A buffer parameter's spec (zeros:N, ones:N, arange:N, rand:N[:SEED],
/// randn:N[:SEED], values:V1,V2,..., file:PATH) as raw elements of `t`;
/// more than `maxBytes` is a SpecError checked before allocating.
std::vector<uint8_t> makeBuffer(const std::string &name, kite::ScalarType t,
                                const std::string &spec, uint64_t maxBytes);
/// A scalar parameter's value (i32, i64, f32, f64) as its raw bytes.
std::vector<uint8_t> scalarArg(const std::string &name, kite::ScalarType t,
                               const std::string &text);

} // namespace kite_run

#endif // KITE_TOOLS_KITE_RUN_ARGSPECS_H
