//===- AnalysisCache.cpp - Analyses of kernel sources on disk --------------===//
//
// A kernel's analysis (Compile.h: canonical module, key text, signature,
// autotuning configurations) as a disk-cache entry, so that a new process
// compiling a source it compiled before needs no MLIR at all.
//
//===----------------------------------------------------------------------===//

#include "Environment.h"
#include "AnalysisCache.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

using namespace kite;
using namespace kite::detail;

/// What analyzing `text` depends on, for the disk cache of analyses.
std::string kite::detail::analysisKeyText(std::string_view text,
                                   const CompileOptions &o,
                                   std::string_view sourceName, bool isKite) {
  std::ostringstream os;
  os << "analysis\ncompiler=" << compilerVersion() << "\nkite=" << isKite
     << "\nname=" << sourceName << "\nkernel=" << o.kernel
     << "\nnum_warps=" << o.numWarps
     << "\noverride_warps=" << o.overrideNumWarps
     << "\noverride_stages=" << o.overrideNumStages
     << "\noverride_maxnreg=" << o.overrideMaxRegisters
     << "\nautotune_config=" << o.autotuneConfig
     << "\ninput_precision=" << o.inputPrecision << "\nf32_default=";
  if (auto f32Default = ::kite::detail::readEnvironment().f32Default)
    os << *f32Default;
  char buf[64];
  for (auto &[name, value] : o.constants) {
    std::snprintf(buf, sizeof buf, "%.17g", value);
    os << "\nconst " << name << "=" << buf;
  }
  for (auto &[name, value] : o.defines)
    os << "\ndefine " << name << "=" << value;
  for (auto &[name, type] : o.signature)
    os << "\nsignature " << name << "=" << type;
  for (const TuningConfig &c : o.autotuneConfigs)
    os << "\nhost_config " << c.str();
  for (const std::string &k : o.autotuneKey)
    os << "\nhost_key " << k;
  os << "\nsource=\n" << text;
  return os.str();
}

/// An analysis as bytes: length-prefixed fields.
std::string kite::detail::serializeAnalysis(const Analyzed &a) {
  std::ostringstream os;
  auto field = [&](const std::string &f) { os << f.size() << ':' << f; };
  field(a.signature.name);
  os << a.signature.threads << ':' << a.signature.sharedBytes << ':'
     << a.signature.params.size() << ':';
  for (const Param &p : a.signature.params) {
    os << int(p.pointer) << ':' << int(p.type) << ':' << int(p.isUnsigned)
       << ':' << p.descriptorBlock.size() << ':';
    for (int64_t b : p.descriptorBlock)
      os << b << ':';
    field(p.name);
  }
  field(a.canonical);
  field(a.keySource);
  os << a.configs.size() << ':';
  char buf[64];
  for (const TuningConfig &c : a.configs) {
    os << c.numWarps << ':' << c.numStages << ':' << c.maxRegisters << ':'
       << c.constants.size() << ':';
    for (auto &[name, value] : c.constants) {
      field(name);
      std::snprintf(buf, sizeof buf, "%.17g", value);
      field(buf);
    }
  }
  os << a.key.size() << ':';
  for (int k : a.key)
    os << k << ':';
  return os.str();
}

std::optional<Analyzed> kite::detail::deserializeAnalysis(const std::string &bytes) {
  size_t pos = 0;
  auto number = [&](long long &v) {
    size_t colon = bytes.find(':', pos);
    if (colon == std::string::npos || colon == pos || colon - pos > 18)
      return false;
    char *end = nullptr;
    v = std::strtoll(bytes.c_str() + pos, &end, 10);
    if (end != bytes.c_str() + colon || v < 0)
      return false;
    pos = colon + 1;
    return true;
  };
  auto field = [&](std::string &f) {
    long long n;
    if (!number(n) || size_t(n) > bytes.size() - pos)
      return false;
    f = bytes.substr(pos, size_t(n));
    pos += size_t(n);
    return true;
  };
  Analyzed a;
  long long threads, shared, count;
  if (!field(a.signature.name) || !number(threads) || !number(shared) ||
      !number(count) || count > 64)
    return std::nullopt;
  a.signature.threads = int(threads);
  a.signature.sharedBytes = int(shared);
  for (long long i = 0; i < count; ++i) {
    long long pointer, type, isUnsigned, rank;
    Param p;
    if (!number(pointer) || !number(type) || !number(isUnsigned) ||
        pointer > 1 || type > int(ScalarType::Any) || isUnsigned > 1 ||
        !number(rank) || rank > 5)
      return std::nullopt;
    for (long long k = 0; k < rank; ++k) {
      long long b;
      if (!number(b) || b < 1 || b > 256)
        return std::nullopt;
      p.descriptorBlock.push_back(b);
    }
    if (!field(p.name))
      return std::nullopt;
    p.pointer = pointer;
    p.isUnsigned = isUnsigned;
    p.type = ScalarType(type);
    a.signature.params.push_back(std::move(p));
  }
  if (!field(a.canonical) || !field(a.keySource))
    return std::nullopt;
  long long configs, keys;
  if (!number(configs) || configs > 4096)
    return std::nullopt;
  for (long long i = 0; i < configs; ++i) {
    TuningConfig c;
    long long warps, stages, registers, n;
    if (!number(warps) || !number(stages) || !number(registers) || !number(n) ||
        warps > 32 || stages > 8 || registers > 255 || n > 256)
      return std::nullopt;
    c.numWarps = int(warps);
    c.numStages = int(stages);
    c.maxRegisters = int(registers);
    for (long long j = 0; j < n; ++j) {
      std::string name, value;
      if (!field(name) || !field(value))
        return std::nullopt;
      c.constants[name] = std::strtod(value.c_str(), nullptr);
    }
    a.configs.push_back(std::move(c));
  }
  if (!number(keys) || keys > 64)
    return std::nullopt;
  for (long long i = 0; i < keys; ++i) {
    long long k;
    if (!number(k) || k >= (long long)a.signature.params.size())
      return std::nullopt;
    a.key.push_back(int(k));
  }
  if (pos != bytes.size())
    return std::nullopt;
  return a;
}

