//===- ArgSpecFuzzer.cpp - Fuzz target for kite-run's argument specs -------===//
//
// LLVMFuzzerTestOneInput reads "TYPE SPEC" (TYPE an element type name, SPEC
// a buffer spec such as values:1,2,3 or rand:8:7, or =VALUE for a scalar)
// and parses it as kite-run does (tools/kite-run/ArgSpecs.cpp). A spec is
// either a SpecError or a value; the target aborts when anything else
// happens or the value breaks what the parser promises: buffers whole
// elements, within the byte budget, integers exactly what the item says,
// no float item turned into inf.
//
// Run by ctest with unittests/Fuzz/MutationDriver.h over argspecs.seeds
// (ArgSpecFuzzShort); scripts/fuzz.sh builds it with libFuzzer.
//
//===----------------------------------------------------------------------===//

#include "ArgSpecs.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>
#include <string>

using kite::ScalarType;

namespace {

constexpr uint64_t kBudget = uint64_t(1) << 20;

[[noreturn]] void broken(const std::string &what, const std::string &input) {
  std::fprintf(stderr, "argspec fuzz: %s for input '%s'\n", what.c_str(),
               input.c_str());
  std::abort();
}

bool typeNamed(const std::string &name, ScalarType &t) {
  static const ScalarType all[] = {
      ScalarType::I1,  ScalarType::I8,     ScalarType::I16,
      ScalarType::I32, ScalarType::I64,    ScalarType::F16,
      ScalarType::BF16, ScalarType::F32,   ScalarType::F64,
      ScalarType::F8E4M3, ScalarType::F8E5M2};
  for (ScalarType s : all)
    if (name == kite::scalarTypeName(s)) {
      t = s;
      return true;
    }
  return false;
}

/// A plain decimal integer (optional '-', digits only, no overflow).
bool plainInteger(const std::string &text, long long &v) {
  if (text.empty() || text.size() > 18)
    return false;
  for (size_t i = 0; i < text.size(); ++i)
    if (!(std::isdigit((unsigned char)text[i]) || (i == 0 && text[i] == '-')))
      return false;
  if (text == "-")
    return false;
  v = std::strtoll(text.c_str(), nullptr, 10);
  return true;
}

void checkBuffer(const std::string &input, ScalarType t,
                 const std::string &spec, const std::vector<uint8_t> &buf) {
  size_t bytes = kite_run::elemBytes(t);
  if (buf.empty() || buf.size() % bytes || buf.size() > kBudget)
    broken("buffer of " + std::to_string(buf.size()) + " bytes", input);
  if (spec.rfind("values:", 0) != 0)
    return;
  std::stringstream ss(spec.substr(7));
  size_t i = 0;
  for (std::string item; std::getline(ss, item, ','); ++i) {
    if (i >= buf.size() / bytes)
      broken("fewer elements than items", input);
    double got = kite_run::get(buf, t, i);
    long long v;
    if (!kite_run::isFloat(t) && plainInteger(item, v)) {
      // Exact for every width; 32 bits or less may be the unsigned spelling.
      int width = t == ScalarType::I1 ? 1 : 8 * int(bytes);
      long long wrapped = width >= 64 ? v
                          : (v >= (1ll << (width - 1)) ? v - (1ll << width) : v);
      if (width == 64) {
        int64_t raw;
        std::memcpy(&raw, buf.data() + i * 8, 8);
        if (raw != v)
          broken("i64 item " + item + " stored as " + std::to_string(raw),
                 input);
      } else if (t != ScalarType::I1 && got != double(wrapped)) {
        broken("integer item " + item + " read back as " + std::to_string(got),
               input);
      }
    }
    std::string lower = item;
    for (char &c : lower)
      c = char(std::tolower((unsigned char)c));
    if (kite_run::isFloat(t) && std::isinf(got) &&
        lower.find("inf") == std::string::npos)
      broken("float item " + item + " became inf", input);
  }
  if (i != buf.size() / bytes)
    broken("more elements than items", input);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string input(reinterpret_cast<const char *>(data), size);
  size_t space = input.find(' ');
  ScalarType t;
  if (space == std::string::npos || !typeNamed(input.substr(0, space), t))
    return 0;
  std::string spec = input.substr(space + 1);
  // file: reads whatever path the input names: only the harmless ones.
  if (spec.rfind("file:", 0) == 0 && spec != "file:/dev/zero" &&
      spec != "file:/dev/null" && spec != "file:/")
    return 0;
  try {
    if (!spec.empty() && spec[0] == '=') {
      std::vector<uint8_t> bytes = kite_run::scalarArg("x", t, spec.substr(1));
      if (bytes.size() != kite_run::elemBytes(t))
        broken("scalar of " + std::to_string(bytes.size()) + " bytes", input);
      return 0;
    }
    checkBuffer(input, t, spec, kite_run::makeBuffer("x", t, spec, kBudget));
  } catch (const kite_run::SpecError &e) {
    if (e.message.empty())
      broken("an error without a message", input);
  } catch (const std::bad_alloc &) {
    broken("an allocation beyond the budget", input);
  }
  return 0;
}

#ifndef KITE_LIBFUZZER
#include "MutationDriver.h"

/// kite-argspec-fuzz ITERATIONS SEEDS...
int main(int argc, char **argv) {
  static const std::vector<std::string> tokens = {
      "values:", "rand:", "randn:", "zeros:", "ones:", "arange:", "file:",
      ",", ":", "=", "-", "0x", "1e", "e308", "e39", ".", "inf", "nan",
      "-1", "0", "1", "127", "128", "255", "256", "32767", "65535",
      "2147483647", "2147483648", "4294967295", "4294967296",
      "9223372036854775807", "9223372036854775808", "18446744073709551615",
      "18446744073709551616", "65504", "65520", "448", "464", "57344",
      "3.4028235e38", "3.5e38", "1048576", "2147483649", " ", "\n",
      std::string("\0", 1), "i8 ", "i32 ", "i64 ", "f16 ", "bf16 ", "f32 ",
      "f8e4m3 ", "f8e5m2 ",
  };
  return kite::fuzz::runMutations(argc, argv, tokens, "crash-input.txt", "\n",
                                  /*maxEdits=*/3);
}
#endif
