//===- Environment.cpp - Every environment variable the runtime reads ----===//
//
// The only getenv calls of lib/Runtime (Environment.h).
//
//===----------------------------------------------------------------------===//

#include "Environment.h"

#include <cstdlib>
#include <string_view>

using namespace kite::detail;

namespace {
/// The variable's value; none when unset.
std::optional<std::string_view> get(const char *name) {
  const char *v = std::getenv(name);
  if (!v)
    return std::nullopt;
  return std::string_view(v);
}

/// "0" / "off" -> false, "1" / "on" -> true, anything else: no override.
std::optional<bool> flag(const char *name) {
  auto v = get(name);
  if (!v)
    return std::nullopt;
  if (*v == "0" || *v == "off")
    return false;
  if (*v == "1" || *v == "on")
    return true;
  return std::nullopt;
}

bool offWhenZero(const char *name) {
  auto v = get(name);
  return !(v && (*v == "0" || *v == "off"));
}

bool setAndNotZero(const char *name) {
  auto v = get(name);
  return v && !v->empty() && *v != "0";
}
} // namespace

Environment kite::detail::readEnvironment() {
  Environment env;
  if (auto v = get("KITE_TMA"); v && *v == "0")
    env.tma = false;
  env.warpSpecialize = flag("KITE_WS");
  env.tiered = flag("KITE_TIERED");
  if (auto v = get("KITE_F32_DEFAULT"))
    env.f32Default = std::string(*v);
  env.occupancyRetry = offWhenZero("KITE_OCCUPANCY");
  env.earlyPtxas = offWhenZero("KITE_EARLY_PTXAS");
  env.autotune = !(get("KITE_AUTOTUNE") == std::optional<std::string_view>("0"));
  env.trace = setAndNotZero("KITE_TRACE");
  if (setAndNotZero("KITE_DUMP_IR")) {
    std::string_view d = *get("KITE_DUMP_IR");
    env.dumpIr = d == "1" ? std::string() : std::string(d);
  }
  if (!setAndNotZero("KITE_CACHE_DISABLE")) {
    if (auto d = get("KITE_CACHE_DIR"); d && !d->empty())
      env.cacheDir = std::string(*d);
    else if (auto x = get("XDG_CACHE_HOME"); x && !x->empty())
      env.cacheDir = std::string(*x) + "/kite";
    else if (auto h = get("HOME"); h && !h->empty())
      env.cacheDir = std::string(*h) + "/.cache/kite";
  }
  if (auto v = get("KITE_CUDA_LIBRARY"); v && !v->empty())
    env.cudaLibrary = std::string(*v);
  if (auto v = get("KITE_PTXAS"))
    env.ptxas = std::string(*v);
  if (auto v = get("KITE_NVJITLINK"))
    env.nvJitLink = std::string(*v);
  if (auto v = get("CUDA_HOME"))
    env.cudaHome = std::string(*v);
  if (auto v = get("TMPDIR"); v && !v->empty())
    env.tmpDir = std::string(*v);
  return env;
}
