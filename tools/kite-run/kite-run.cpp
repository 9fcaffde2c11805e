//===- kite-run.cpp - Run a kernel from the command line -------------------===//
//
//   kite-run KERNEL.kite|.mlir [--kernel NAME] [-D NAME=VALUE]...
//            --grid X[,Y[,Z]] NAME=VALUE... [--print NAME[:COUNT]]...
//            [--save NAME=FILE]... [--gpu]
//
// Runs one kernel in the Kite interpreter (or, with --gpu, on GPU 0) on
// generated or file inputs, and prints or saves the outputs. Every runtime
// parameter gets a value by name:
//   scalars   n=1000  p=0.5  seed=123
//   pointers  zeros:N  ones:N  arange:N  rand:N[:SEED]  randn:N[:SEED]
//             values:1,2,3  file:PATH (raw elements of the pointee type)
// Exit codes: 0 success, 1 the kernel or its inputs failed, 2 bad usage,
// 3 an output (--save) could not be written.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Fp8.h"
#include "kite/Runtime/Runtime.h"
#include "kite/Support/InputFile.h"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace kite;

namespace {

[[noreturn]] void usage(const std::string &msg) {
  std::fprintf(stderr, "kite-run: error: %s\n(kite-run --help for usage)\n",
               msg.c_str());
  std::exit(2);
}

void help() {
  std::printf(
      "usage: kite-run KERNEL.kite|.mlir [--kernel NAME] [-D NAME=VALUE]...\n"
      "                --grid X[,Y[,Z]] NAME=VALUE... [--print NAME[:COUNT]]...\n"
      "                [--save NAME=FILE]... [--gpu]\n\n"
      "Runs a kernel in the Kite interpreter (--gpu: on GPU 0).\n"
      "Scalar parameters: NAME=NUMBER. Pointer parameters: NAME=SPEC with SPEC\n"
      "  zeros:N | ones:N | arange:N | rand:N[:SEED] | randn:N[:SEED]\n"
      "  | values:V1,V2,... | file:PATH (raw elements of the pointee type)\n"
      "--print NAME[:COUNT] prints a buffer after the run (default 16 elements);\n"
      "--save NAME=FILE writes it as raw elements.\n");
}

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
    usage("'" + name + "=" + text + "': not a number");
  if (errno == ERANGE && std::isinf(v))
    usage("'" + name + "=" + text + "' overflows f64 (it would be inf)");
  return v;
}

/// An integer argument of type `type` in [lo, hi]: decimal or 0x hex, or a
/// float that is a whole number (1e6); anything else, or out of range, is
/// an error (not a wrapped value).
int64_t integer(const std::string &name, const std::string &text, int64_t lo,
                int64_t hi, const char *type) {
  auto outOfRange = [&] {
    usage("'" + name + "=" + text + "' is out of range for " + type + " (" +
          std::to_string(lo) + " .. " + std::to_string(hi) + ")");
  };
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 0);
  if (!text.empty() && !*end) {
    if (errno == ERANGE || v < lo || v > hi)
      outOfRange();
    return v;
  }
  double d = number(name, text);
  if (d != std::floor(d))
    usage("'" + name + "=" + text + "': " + type + " needs a whole number");
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
    unsigned long long u = std::strtoull(text.c_str(), &end, 0);
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
    usage("'" + what + "=" + text + "' overflows " + scalarTypeName(t) +
          " (its largest finite value is " + shortNumber(largest) + ")");
  put(buf, t, i, v);
}

/// The most bytes of buffers kite-run allocates: KITE_RUN_MAX_BYTES, else
/// 4 GiB.
uint64_t maxBufferBytes() {
  if (const char *env = std::getenv("KITE_RUN_MAX_BYTES"))
    if (uint64_t v = std::strtoull(env, nullptr, 10))
      return v;
  return uint64_t(4) << 30;
}

std::vector<uint8_t> makeBuffer(const std::string &name, ScalarType t,
                                const std::string &spec) {
  size_t colon = spec.find(':');
  std::string kind = spec.substr(0, colon);
  std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  std::vector<uint8_t> buf;
  if (kind == "file") {
    // A regular file of at most 2^31 elements (the other kinds' limit).
    std::string data, error;
    if (!readInputFile(rest, data, error,
                       (uint64_t(1) << 31) * uint64_t(elemBytes(t))))
      usage("'" + name + "': " + error);
    if (data.empty())
      usage("'" + name + "': '" + rest + "' is empty");
    if (data.size() % elemBytes(t))
      usage("'" + rest + "' is not a whole number of " +
            scalarTypeName(t) + " elements");
    return std::vector<uint8_t>(data.begin(), data.end());
  }
  if (kind == "values") {
    std::vector<std::string> items;
    std::stringstream ss(rest);
    for (std::string item; std::getline(ss, item, ',');)
      items.push_back(item);
    if (items.empty() || rest.back() == ',')
      usage("'" + name + "=" + spec + "': expected values:V1,V2,...");
    buf.assign(items.size() * elemBytes(t), 0);
    for (size_t i = 0; i < items.size(); ++i)
      putItem(buf, t, i, name, items[i]);
    return buf;
  }
  std::string count = rest.substr(0, rest.find(':'));
  char *end = nullptr;
  unsigned long long n = std::strtoull(count.c_str(), &end, 10);
  if (count.empty() || *end || n == 0 || n > (1ull << 31))
    usage("'" + name + "=" + spec + "': expected a size N in 1..2^31");
  uint32_t seed = 0;
  if (rest.find(':') != std::string::npos)
    seed = uint32_t(integer(name + " seed", rest.substr(rest.find(':') + 1),
                            0, UINT32_MAX, "a seed"));
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
    else if (kind == "randn")
      v = isFloat(t) ? normal(rng) : std::round(normal(rng) * 10);
    else
      usage("'" + name + "=" + spec + "': unknown buffer kind '" + kind +
            "' (zeros, ones, arange, rand, randn, values, file)");
    put(buf, t, i, v);
  }
  return buf;
}

} // namespace

int main(int argc, char **argv) {
  std::string file, kernelName;
  CompileOptions options;
  uint32_t grid[3] = {0, 1, 1};
  bool gridGiven = false, gpu = false;
  std::map<std::string, std::string> values;
  std::vector<std::pair<std::string, size_t>> prints;
  std::vector<std::pair<std::string, std::string>> saves;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      help();
      return 0;
    } else if (a == "--kernel") {
      options.kernel = next();
    } else if (a == "--gpu") {
      gpu = true;
    } else if (a.rfind("-D", 0) == 0) {
      std::string d = a.size() > 2 ? a.substr(2) : next();
      size_t eq = d.find('=');
      if (eq == std::string::npos || eq == 0)
        usage("-D" + d + ": expected -D NAME=VALUE");
      options.constants[d.substr(0, eq)] = number(d.substr(0, eq), d.substr(eq + 1));
    } else if (a == "--grid") {
      std::stringstream ss(next());
      std::string item;
      int k = 0;
      while (std::getline(ss, item, ',')) {
        if (k > 2)
          usage("--grid takes at most 3 dimensions");
        char *end = nullptr;
        unsigned long v = std::strtoul(item.c_str(), &end, 10);
        if (item.empty() || *end || v == 0 || v > 0x7fffffff)
          usage("--grid: '" + item + "' is not a positive size");
        grid[k++] = uint32_t(v);
      }
      gridGiven = k > 0;
    } else if (a == "--print") {
      std::string v = next();
      size_t c = v.find(':');
      prints.emplace_back(v.substr(0, c),
                          c == std::string::npos ? 16 : std::strtoul(v.c_str() + c + 1, nullptr, 10));
    } else if (a == "--save") {
      std::string v = next();
      size_t eq = v.find('=');
      if (eq == std::string::npos)
        usage("--save NAME=FILE");
      saves.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a.size() > 1 && a[0] == '-') {
      usage("unknown option '" + a + "'");
    } else if (file.empty() && a.find('=') == std::string::npos) {
      file = a;
    } else {
      size_t eq = a.find('=');
      if (eq == std::string::npos || eq == 0)
        usage("'" + a + "': expected NAME=VALUE");
      values[a.substr(0, eq)] = a.substr(eq + 1);
    }
  }
  if (file.empty())
    usage("no kernel file");
  if (!gridGiven)
    usage("--grid is required");

  auto kernel = compileFile(file, options);
  if (!kernel) {
    std::fprintf(stderr, "%s\n", kernel.error().message().c_str());
    return 1;
  }
  // Buffers and scalars by parameter name.
  std::map<std::string, std::vector<uint8_t>> buffers;
  uint64_t bufferBytes = 0;
  std::vector<Arg> args;
  for (const Param &p : kernel->params()) {
    auto it = values.find(p.name);
    if (it == values.end())
      usage("no value for parameter '" + p.name + "' (" +
            (p.pointer ? std::string("a buffer: zeros:N, rand:N, ...")
                       : std::string(scalarTypeName(p.type))) +
            ")");
    if (p.pointer) {
      // The interpreter holds every buffer in memory: at most 4 GiB of them
      // (KITE_RUN_MAX_BYTES), an error rather than an abort of the host.
      try {
        buffers[p.name] = makeBuffer(p.name, p.type, it->second);
      } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "kite-run: error: '%s=%s': out of memory\n",
                     p.name.c_str(), it->second.c_str());
        return 1;
      }
      bufferBytes += buffers[p.name].size();
      if (bufferBytes > maxBufferBytes()) {
        std::fprintf(stderr,
                     "kite-run: error: '%s=%s': the buffers take %llu bytes, "
                     "more than the %llu kite-run allows "
                     "(KITE_RUN_MAX_BYTES)\n",
                     p.name.c_str(), it->second.c_str(),
                     (unsigned long long)bufferBytes,
                     (unsigned long long)maxBufferBytes());
        return 1;
      }
    } else {
      switch (p.type) {
      case ScalarType::I32:
        args.push_back(int32_t(integer(p.name, it->second, INT32_MIN,
                                       INT32_MAX, "i32")));
        break;
      case ScalarType::I64:
        args.push_back(integer(p.name, it->second, INT64_MIN, INT64_MAX,
                               "i64"));
        break;
      case ScalarType::F32: {
        double v = number(p.name, it->second);
        if (std::isfinite(v) && std::fabs(v) > double(FLT_MAX))
          usage("'" + p.name + "=" + it->second +
                "' overflows f32 (it would be inf); the largest f32 is " +
                "3.4028235e38");
        args.push_back(float(v));
        break;
      }
      case ScalarType::F64:
        args.push_back(number(p.name, it->second));
        break;
      default:
        usage("parameter '" + p.name + "' of type " +
              scalarTypeName(p.type) + " is not supported by kite-run");
      }
      continue;
    }
    args.push_back(int32_t(0)); // placeholder: the pointer is set below
  }
  for (auto &[name, value] : values) {
    bool known = false;
    for (const Param &p : kernel->params())
      known |= p.name == name;
    if (!known)
      usage("kernel '" + kernel->name() + "' has no parameter '" + name + "'");
  }
  // Pointer arguments.
  std::map<std::string, uint64_t> deviceBuffers;
  size_t k = 0;
  for (const Param &p : kernel->params()) {
    if (p.pointer) {
      auto &buf = buffers[p.name];
      if (gpu) {
        auto d = deviceAlloc(buf.size());
        if (!d || !copyToDevice(*d, buf.data(), buf.size())) {
          std::fprintf(stderr, "%s\n", d ? "copy to the GPU failed" : d.error().str().c_str());
          return 1;
        }
        deviceBuffers[p.name] = *d;
        args[k] = Arg::pointer(*d);
      } else {
        args[k] = Arg::hostBytes(buf.data(), buf.size());
      }
    }
    ++k;
  }
  Expected<void> ran = gpu ? kernel->launch(Grid(grid[0], grid[1], grid[2]), args)
                           : kernel->interpret(Grid(grid[0], grid[1], grid[2]), args);
  if (ran && gpu)
    ran = synchronize();
  if (!ran) {
    std::fprintf(stderr, "%s\n", ran.error().message().c_str());
    return 1;
  }
  if (gpu)
    for (auto &[name, d] : deviceBuffers) {
      auto &buf = buffers[name];
      if (!copyToHost(buf.data(), d, buf.size()))
        return 1;
      deviceFree(d);
    }
  for (auto &[name, count] : prints) {
    auto it = buffers.find(name);
    if (it == buffers.end())
      usage("--print " + name + ": not a pointer parameter");
    ScalarType t = ScalarType::F32;
    bool isUnsigned = false;
    for (const Param &p : kernel->params())
      if (p.name == name) {
        t = p.type;
        isUnsigned = p.isUnsigned;
      }
    size_t n = it->second.size() / elemBytes(t);
    std::printf("%s:", name.c_str());
    for (size_t i = 0; i < std::min(n, count); ++i) {
      double v = get(it->second, t, i);
      if (isFloat(t)) {
        std::printf(" %.6g", v);
      } else if (isUnsigned) { // the element's bits as unsigned
        uint64_t bits = 0;
        std::memcpy(&bits, it->second.data() + i * elemBytes(t), elemBytes(t));
        std::printf(" %llu", (unsigned long long)bits);
      } else { // the element's bits, sign-extended (exact, not a double)
        size_t bytes = elemBytes(t);
        uint64_t bits = 0;
        std::memcpy(&bits, it->second.data() + i * bytes, bytes);
        int64_t x = int64_t(bits);
        if (bytes < 8 && t != ScalarType::I1)
          x = int64_t(bits << (64 - 8 * bytes)) >> (64 - 8 * bytes);
        std::printf(" %lld", (long long)x);
      }
    }
    std::printf(n > count ? " ... (%zu elements)\n" : "\n", n);
  }
  for (auto &[name, path] : saves) {
    auto it = buffers.find(name);
    if (it == buffers.end())
      usage("--save " + name + ": not a pointer parameter");
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(it->second.data()),
              std::streamsize(it->second.size()));
    out.flush(); // a full disk shows at the flush
    if (!out) {
      std::fprintf(stderr, "kite-run: error: cannot write '%s': %s\n",
                   path.c_str(), std::strerror(errno));
      return 3;
    }
  }
  return 0;
}
