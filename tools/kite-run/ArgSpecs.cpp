//===- ArgSpecs.cpp - kite-run's argument specs ----------------------------===//
//
// Parses kite-run's NAME=VALUE arguments: scalars (exact integers, range
// checked for their type) and buffer specs (zeros:N, rand:N[:SEED],
// values:..., file:PATH), into raw little-endian elements. Every malformed
// or out-of-range spec is a SpecError; nothing is wrapped or rounded to inf.
// kite-run reports a SpecError as a usage error; the fuzz target
// (unittests/Fuzz/ArgSpecFuzzer.cpp) checks that nothing else happens.
//
//===----------------------------------------------------------------------===//

#include "ArgSpecs.h"

#include "kite/Runtime/Fp8.h"
#include "kite/Support/InputFile.h"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

using namespace kite;

namespace kite_run {

namespace {
[[noreturn]] void fail(const std::string &message) { throw SpecError{message}; }

/// 16 for a 0x-prefixed integer (after an optional sign), else 10.
int hexBase(const std::string &text) {
  size_t i = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  return text.size() > i + 1 && text[i] == '0' &&
                 (text[i + 1] == 'x' || text[i + 1] == 'X')
             ? 16
             : 10;
}
} // namespace

size_t elemBytes(ScalarType t) {
  int n = kite::scalarTypeBytes(t);
  return n ? size_t(n) : 8;
}

/// Stores `v` into element `i` of a raw buffer of type `t`.
void put(std::vector<uint8_t> &buf, ScalarType t, size_t i, double v) {
  uint8_t *p = buf.data() + i * elemBytes(t);
  switch (t) {
  case ScalarType::I1:
  case ScalarType::I8:
  case ScalarType::I16:
  case ScalarType::I32: {
    // Wrapped to the width: an unsigned parameter's values above the
    // signed range (4294967295 for a u32) keep their bits.
    uint64_t x = uint64_t(int64_t(v));
    std::memcpy(p, &x, elemBytes(t)); // little-endian: the low bytes
    break;
  }
  case ScalarType::I64:
  case ScalarType::Any: {
    int64_t x = int64_t(v);
    std::memcpy(p, &x, 8);
    break;
  }
  case ScalarType::F16: {
    _Float16 x = _Float16(float(v));
    std::memcpy(p, &x, 2);
    break;
  }
  case ScalarType::BF16: {
    float f = float(v);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    uint16_t h = uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
    std::memcpy(p, &h, 2);
    break;
  }
  case ScalarType::F32: {
    float x = float(v);
    std::memcpy(p, &x, 4);
    break;
  }
  case ScalarType::F64:
    std::memcpy(p, &v, 8);
    break;
  case ScalarType::F8E4M3:
  case ScalarType::F8E5M2:
    p[0] = fp8FromDouble(v, t);
    break;
  }
}

double get(const std::vector<uint8_t> &buf, ScalarType t, size_t i) {
  const uint8_t *p = buf.data() + i * elemBytes(t);
  switch (t) {
  case ScalarType::I1:
  case ScalarType::I8:
    return int8_t(p[0]);
  case ScalarType::I16: {
    int16_t x;
    std::memcpy(&x, p, 2);
    return x;
  }
  case ScalarType::I32: {
    int32_t x;
    std::memcpy(&x, p, 4);
    return x;
  }
  case ScalarType::I64:
  case ScalarType::Any: {
    int64_t x;
    std::memcpy(&x, p, 8);
    return double(x);
  }
  case ScalarType::F16: {
    _Float16 x;
    std::memcpy(&x, p, 2);
    return double(float(x));
  }
  case ScalarType::BF16: {
    uint32_t u = uint32_t(p[0] | (p[1] << 8)) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  case ScalarType::F32: {
    float x;
    std::memcpy(&x, p, 4);
    return x;
  }
  case ScalarType::F64: {
    double x;
    std::memcpy(&x, p, 8);
    return x;
  }
  case ScalarType::F8E4M3:
  case ScalarType::F8E5M2:
    return fp8ToDouble(p[0], t);
  }
  return 0;
}

bool isFloat(ScalarType t) {
  return t == ScalarType::F16 || t == ScalarType::BF16 ||
         t == ScalarType::F32 || t == ScalarType::F64 ||
         t == ScalarType::F8E4M3 || t == ScalarType::F8E5M2;
}

double number(const std::string &name, const std::string &text) {
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end)
    fail("'" + name + "=" + text + "': not a number");
  if (errno == ERANGE && std::isinf(v))
    fail("'" + name + "=" + text + "' overflows f64 (it would be inf)");
  return v;
}

/// An integer argument of type `type` in [lo, hi]: decimal or 0x hex, or a
/// float that is a whole number (1e6); anything else, or out of range, is
/// an error (not a wrapped value).
int64_t integer(const std::string &name, const std::string &text, int64_t lo,
                int64_t hi, const char *type) {
  auto outOfRange = [&] {
    fail("'" + name + "=" + text + "' is out of range for " + type + " (" +
          std::to_string(lo) + " .. " + std::to_string(hi) + ")");
  };
  char *end = nullptr;
  errno = 0;
  // Decimal, or hex with 0x (not C's octal: 010 is ten).
  long long v = std::strtoll(text.c_str(), &end, hexBase(text));
  if (!text.empty() && !*end) {
    if (errno == ERANGE || v < lo || v > hi)
      outOfRange();
    return v;
  }
  double d = number(name, text);
  if (d != std::floor(d))
    fail("'" + name + "=" + text + "': " + type + " needs a whole number");
  // (double(INT64_MAX) rounds up to 2^63, which is out of range.)
  if (!(d >= double(lo) && d <= double(hi)) ||
      (hi == INT64_MAX && d >= 9223372036854775808.0))
    outOfRange();
  return int64_t(d);
}

/// `v` in %g's short form.
std::string shortNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

/// Stores item `text` of a `values:` list into element `i` of a buffer of
/// type `t`, exactly: integers parsed as integers (not through a double) and
/// range-checked for the width, signed or unsigned spelling (-1 or
/// 4294967295 for 32 bits); floats checked against the type's largest
/// finite value (no silent inf).
void putItem(std::vector<uint8_t> &buf, ScalarType t, size_t i,
             const std::string &name, const std::string &text) {
  std::string what = name + "[" + std::to_string(i) + "]";
  uint8_t *p = buf.data() + i * elemBytes(t);
  switch (t) {
  case ScalarType::I1:
  case ScalarType::I8:
  case ScalarType::I16:
  case ScalarType::I32: {
    int bits = t == ScalarType::I1 ? 1 : 8 * int(elemBytes(t));
    int64_t lo = t == ScalarType::I1 ? 0 : -(int64_t(1) << (bits - 1));
    int64_t hi = (int64_t(1) << bits) - 1;
    uint64_t x = uint64_t(
        integer(what, text, lo, hi, scalarTypeName(t)));
    std::memcpy(p, &x, elemBytes(t)); // little-endian: the low bytes
    return;
  }
  case ScalarType::I64:
  case ScalarType::Any: {
    // Beyond INT64_MAX: the unsigned spelling of the bits.
    char *end = nullptr;
    errno = 0;
    unsigned long long u = std::strtoull(text.c_str(), &end, hexBase(text));
    if (!text.empty() && text[0] != '-' && !*end && errno != ERANGE &&
        u > uint64_t(INT64_MAX)) {
      std::memcpy(p, &u, 8);
      return;
    }
    int64_t x = integer(what, text, INT64_MIN, INT64_MAX, "i64");
    std::memcpy(p, &x, 8);
    return;
  }
  default:
    break;
  }
  double v = number(what, text);
  double largest = t == ScalarType::F16      ? 65504.0
                   : t == ScalarType::BF16   ? 3.3895313892515355e38
                   : t == ScalarType::F32    ? double(FLT_MAX)
                   : t == ScalarType::F8E4M3 ? 448.0
                   : t == ScalarType::F8E5M2 ? 57344.0
                                             : DBL_MAX;
  if (std::isfinite(v) && std::fabs(v) > largest)
    fail("'" + what + "=" + text + "' overflows " + scalarTypeName(t) +
          " (its largest finite value is " + shortNumber(largest) + ")");
  put(buf, t, i, v);
}

std::vector<uint8_t> makeBuffer(const std::string &name, ScalarType t,
                                const std::string &spec, uint64_t maxBytes) {
  auto tooLarge = [&](uint64_t bytes) {
    if (bytes > maxBytes)
      throw SpecError{"'" + name + "=" + spec + "': " + std::to_string(bytes) +
           " bytes, more than the " + std::to_string(maxBytes) +
           " left (KITE_RUN_MAX_BYTES)",
                      1};
  };
  size_t colon = spec.find(':');
  std::string kind = spec.substr(0, colon);
  std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  std::vector<uint8_t> buf;
  if (kind == "file") {
    // A regular file of at most 2^31 elements (the other kinds' limit).
    std::string data, error;
    if (!readInputFile(rest, data, error,
                       (uint64_t(1) << 31) * uint64_t(elemBytes(t))))
      fail("'" + name + "': " + error);
    tooLarge(data.size());
    if (data.empty())
      fail("'" + name + "': '" + rest + "' is empty");
    if (data.size() % elemBytes(t))
      fail("'" + rest + "' is not a whole number of " +
            scalarTypeName(t) + " elements");
    return std::vector<uint8_t>(data.begin(), data.end());
  }
  if (kind == "values") {
    std::vector<std::string> items;
    std::stringstream ss(rest);
    for (std::string item; std::getline(ss, item, ',');)
      items.push_back(item);
    if (items.empty() || rest.back() == ',')
      fail("'" + name + "=" + spec + "': expected values:V1,V2,...");
    tooLarge(uint64_t(items.size()) * elemBytes(t));
    buf.assign(items.size() * elemBytes(t), 0);
    for (size_t i = 0; i < items.size(); ++i)
      putItem(buf, t, i, name, items[i]);
    return buf;
  }
  if (kind != "zeros" && kind != "ones" && kind != "arange" &&
      kind != "rand" && kind != "randn")
    fail("'" + name + "=" + spec + "': unknown buffer kind '" + kind +
         "' (zeros, ones, arange, rand, randn, values, file)");
  std::string count = rest.substr(0, rest.find(':'));
  char *end = nullptr;
  unsigned long long n = std::strtoull(count.c_str(), &end, 10);
  if (count.empty() || *end || n == 0 || n > (1ull << 31))
    fail("'" + name + "=" + spec + "': expected a size N in 1..2^31");
  uint32_t seed = 0;
  if (rest.find(':') != std::string::npos)
    seed = uint32_t(integer(name + " seed", rest.substr(rest.find(':') + 1),
                            0, UINT32_MAX, "a seed"));
  tooLarge(uint64_t(n) * elemBytes(t));
  buf.assign(n * elemBytes(t), 0);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uni(0, 1);
  std::normal_distribution<double> normal;
  for (size_t i = 0; i < n; ++i) {
    double v;
    if (kind == "zeros")
      v = 0;
    else if (kind == "ones")
      v = 1;
    else if (kind == "arange")
      v = double(i);
    else if (kind == "rand")
      v = isFloat(t) ? uni(rng) : double(rng() % 100);
    else // randn
      v = isFloat(t) ? normal(rng) : std::round(normal(rng) * 10);
    put(buf, t, i, v);
  }
  return buf;
}


std::vector<uint8_t> scalarArg(const std::string &name, ScalarType t,
                               const std::string &text) {
  std::vector<uint8_t> bytes(elemBytes(t));
  switch (t) {
  case ScalarType::I32: {
    int32_t v = int32_t(integer(name, text, INT32_MIN, INT32_MAX, "i32"));
    std::memcpy(bytes.data(), &v, 4);
    return bytes;
  }
  case ScalarType::I64: {
    int64_t v = integer(name, text, INT64_MIN, INT64_MAX, "i64");
    std::memcpy(bytes.data(), &v, 8);
    return bytes;
  }
  case ScalarType::F32: {
    double v = number(name, text);
    if (std::isfinite(v) && std::fabs(v) > double(FLT_MAX))
      fail("'" + name + "=" + text +
           "' overflows f32 (it would be inf); the largest f32 is "
           "3.4028235e38");
    float f = float(v);
    std::memcpy(bytes.data(), &f, 4);
    return bytes;
  }
  case ScalarType::F64: {
    double v = number(name, text);
    std::memcpy(bytes.data(), &v, 8);
    return bytes;
  }
  default:
    fail("parameter '" + name + "' of type " + scalarTypeName(t) +
         " is not supported by kite-run");
  }
}

} // namespace kite_run
