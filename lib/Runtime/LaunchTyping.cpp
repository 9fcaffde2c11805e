//===- LaunchTyping.cpp - Kernels typed at launch -------------------------===//
//
// See LaunchTyping.h.
//
//===----------------------------------------------------------------------===//

#include "LaunchTyping.h"
#include "KernelImpl.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace kite;
using namespace kite::detail;

namespace {
/// A constexpr's number as host code sees it.
HostValue number(double value) {
  return value == std::floor(value) && std::fabs(value) < 9.0e18
             ? HostValue::integer(int64_t(value))
             : HostValue::floating(value);
}

} // namespace

auto kite::detail::genericKernel(std::string_view text,
                                 std::string_view sourceName,
                                 const CompileOptions &options)
    -> Expected<std::shared_ptr<Generic>> {
  auto kernels = declareKernels(text, sourceName);
  if (!kernels)
    return kernels.error();
  const DeclaredKernel *kernel = nullptr;
  for (const DeclaredKernel &k : *kernels)
    if (k.name == options.kernel ||
        (options.kernel.empty() && kernels->size() == 1))
      kernel = &k;
  if (!kernel)
    return std::shared_ptr<Generic>(); // the analysis reports it
  auto given = [&](const std::string &name) {
    if (options.signature.count(name) || options.defines.count(name) ||
        options.constants.count(name))
      return true;
    // Every host configuration sets it (heuristics over configurations).
    return !options.autotuneConfigs.empty() &&
           std::all_of(options.autotuneConfigs.begin(),
                       options.autotuneConfigs.end(),
                       [&](const TuningConfig &c) {
                         return c.constants.count(name) > 0;
                       });
  };
  bool generic = false;
  for (const DeclaredParam &p : kernel->params)
    generic |= p.kind == DeclaredParam::Untyped && !given(p.name);
  // @triton.heuristics lambdas read the launch's values, unless they read
  // only the constexprs given (the frontend evaluates those itself).
  {
    std::map<std::string, HostValue> values;
    for (auto &[name, text] : options.defines)
      if (auto v = parsePythonLiteral(text))
        values[name] = *v;
    for (auto &[name, value] : options.constants)
      values[name] = number(value);
    for (const DeclaredHeuristic &h : kernel->heuristics) {
      if (given(h.name))
        continue;
      std::string why;
      if (auto v = h.evaluate(values, why))
        values[h.name] = *v;
      else
        generic = true;
    }
  }
  if (!generic)
    return std::shared_ptr<Generic>();
  auto g = std::make_shared<Generic>();
  g->text = std::string(text);
  g->sourceName = std::string(sourceName);
  g->options = options;
  g->kernel = *kernel;
  for (size_t i = 0; i < kernel->params.size(); ++i) {
    const DeclaredParam &p = kernel->params[i];
    if (p.kind == DeclaredParam::Constexpr ||
        (p.kind == DeclaredParam::Untyped &&
         (options.defines.count(p.name) || options.constants.count(p.name))))
      continue;
    g->argParams.push_back(i);
  }
  // Launches may leave out trailing parameters with defaults (they are
  // then constexprs of their default values).
  g->required = g->argParams.size();
  while (g->required > 0) {
    const DeclaredParam &p = kernel->params[g->argParams[g->required - 1]];
    if (p.kind != DeclaredParam::Untyped || !p.hasDefault)
      break;
    --g->required;
  }
  return g;
}

namespace {
/// A launch argument as host code sees it (a pointer or a descriptor an
/// object: `is None` tests it).
std::optional<HostValue> argumentValue(const Arg &a) {
  if (a.isNone())
    return HostValue();
  if (a.isPointer() || a.descriptor())
    return HostValue::object();
  uint64_t b = a.bits();
  switch (a.type()) {
  case ScalarType::I1:
    return HostValue::boolean(b & 1);
  case ScalarType::I32:
    return HostValue::integer(int32_t(uint32_t(b)));
  case ScalarType::I64:
    return HostValue::integer(int64_t(b));
  case ScalarType::F32: {
    float f;
    uint32_t w = uint32_t(b);
    std::memcpy(&f, &w, 4);
    return HostValue::floating(f);
  }
  case ScalarType::F64: {
    double d;
    std::memcpy(&d, &b, 8);
    return HostValue::floating(d);
  }
  default:
    return std::nullopt;
  }
}

/// The signature type of an argument for an unannotated parameter, or an
/// error naming it.
Expected<std::string> argumentType(const Generic &g, size_t index,
                                   const DeclaredParam &p, const Arg &a) {
  auto bad = [&](const std::string &why) -> Expected<std::string> {
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + g.kernel.name + "', argument " +
                     std::to_string(index) + " ('" + p.name + "'): " + why);
  };
  if (const TensorDescriptor *d = a.descriptor()) {
    // Triton's descriptor type: the element type and the block shape.
    ScalarType elem = d->base().type();
    if (elem == ScalarType::Any)
      return bad("a tensor descriptor over an untyped pointer cannot type "
                 "the parameter: make it of a DeviceBuffer<T>, a T* or "
                 "Arg::pointer(address, ScalarType::...)");
    std::string type = std::string("tensordesc<") + scalarTypeName(elem) + "[";
    for (size_t k = 0; k < d->blockShape().size(); ++k)
      type += (k ? ", " : "") + std::to_string(d->blockShape()[k]);
    return type + "]>";
  }
  if (a.isPointer()) {
    if (a.type() == ScalarType::Any)
      return bad("an untyped pointer cannot type the parameter (it is typed "
                 "at launch): pass a DeviceBuffer<T>, a T* or "
                 "Arg::pointer(address, ScalarType::...)");
    return std::string("*") + scalarTypeName(a.type());
  }
  switch (a.type()) {
  case ScalarType::I1:
    return std::string("i32"); // Kite takes no i1 scalars: a bool is 0 or 1
  case ScalarType::I32:
  case ScalarType::I64:
  case ScalarType::F16:
  case ScalarType::BF16:
  case ScalarType::F32:
  case ScalarType::F64:
    return std::string(scalarTypeName(a.type()));
  default:
    return bad(std::string("a scalar ") + scalarTypeName(a.type()) +
               " cannot type a parameter");
  }
}
} // namespace

Expected<Kernel> kite::detail::typedKernel(Generic &g,
                                           const std::vector<Arg> &args,
                                           std::vector<Arg> &forwarded) {
  if (args.size() < g.required || args.size() > g.argParams.size())
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + g.kernel.name + "' takes " +
                     (g.required == g.argParams.size()
                          ? std::to_string(g.required)
                          : std::to_string(g.required) + " to " +
                                std::to_string(g.argParams.size())) +
                     " argument(s), got " + std::to_string(args.size()));
  // The key: each unannotated parameter's argument kind (2 bytes).
  std::string key;
  key.reserve(2 * args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const DeclaredParam &p = g.kernel.params[g.argParams[i]];
    if (p.kind != DeclaredParam::Untyped || g.options.signature.count(p.name))
      continue;
    const Arg &a = args[i];
    key += a.isNone() ? 'N' : a.descriptor() ? 'D' : a.isPointer() ? 'P' : 'S';
    key += char(a.descriptor() ? a.descriptor()->base().type() : a.type());
    if (const TensorDescriptor *d = a.descriptor()) // its block shape too
      for (int64_t size : d->blockShape())
        key += std::to_string(size) + "x";
  }
  // @triton.heuristics, in order, over the launch's scalar arguments, the
  // constexprs given and the heuristics before them (as Triton's launcher
  // evaluates them): each value a constexpr of the typed kernel, in its key.
  // One that reads what the launch does not give may read an @autotune
  // configuration's constexprs (Triton runs heuristics after the tuner):
  // those are evaluated per configuration below.
  std::map<std::string, std::string> heuristicDefines;
  std::map<std::string, HostValue> values;
  std::vector<const DeclaredHeuristic *> perConfig;
  std::string firstWhy;
  if (!g.kernel.heuristics.empty()) {
    for (auto &[name, text] : g.options.defines)
      if (auto v = parsePythonLiteral(text))
        values[name] = *v;
    for (auto &[name, value] : g.options.constants)
      values[name] = number(value);
    for (size_t i = 0; i < args.size(); ++i)
      if (auto v = argumentValue(args[i]))
        values[g.kernel.params[g.argParams[i]].name] = *v;
    for (const DeclaredHeuristic &h : g.kernel.heuristics) {
      if (g.options.defines.count(h.name) || g.options.constants.count(h.name))
        continue; // the host's value wins
      std::string why;
      std::optional<HostValue> v = h.evaluate(values, why);
      if (!v) {
        if (perConfig.empty())
          firstWhy = h.name + ": " + why;
        perConfig.push_back(&h);
        continue;
      }
      values[h.name] = *v;
      heuristicDefines[h.name] = v->python();
      key += "|" + h.name + "=" + v->python();
    }
  }
  auto heuristicError = [&](const std::string &what) {
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + g.kernel.name + "': @triton.heuristics' " +
                     what +
                     " (give it with CompileOptions::defines or constants)");
  };
  forwarded.clear();
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg &a = args[i];
    if (a.isNone())
      continue;
    const DeclaredParam &p = g.kernel.params[g.argParams[i]];
    if (p.kind == DeclaredParam::Untyped && !a.isPointer() &&
        a.type() == ScalarType::I1)
      forwarded.push_back(int32_t(a.bits() & 1));
    else
      forwarded.push_back(a);
  }
  // The typed kernel's options: the signature from the arguments.
  auto typedOptions = [&]() -> Expected<CompileOptions> {
    CompileOptions o = g.options;
    for (auto &[name, value] : heuristicDefines)
      o.defines[name] = value;
    for (size_t i = 0; i < args.size(); ++i) {
      const DeclaredParam &p = g.kernel.params[g.argParams[i]];
      if (p.kind != DeclaredParam::Untyped || g.options.signature.count(p.name))
        continue;
      if (args[i].isNone()) {
        o.defines[p.name] = "None";
        continue;
      }
      auto type = argumentType(g, i, p, args[i]);
      if (!type)
        return type.error();
      o.signature[p.name] = *type;
    }
    for (size_t i = 0; i < args.size(); ++i) {
      const DeclaredParam &p = g.kernel.params[g.argParams[i]];
      if (args[i].isNone() && p.kind != DeclaredParam::Untyped)
        return Error(ErrorCode::InvalidArgument,
                     "kernel '" + g.kernel.name + "', argument " +
                         std::to_string(i) + " ('" + p.name +
                         "'): None is for unannotated parameters (it makes "
                         "them constexprs); this one is annotated");
    }
    return o;
  };
  std::lock_guard<std::mutex> lock(g.mutex);
  std::vector<TuningConfig> configs;
  std::vector<std::string> tuneKey;
  if (!perConfig.empty()) {
    // The kernel's configurations, from a compile of the typed kernel with
    // those heuristics' constexprs as placeholders (kept per key so far).
    auto cached = g.probes.find(key);
    if (cached == g.probes.end()) {
      auto po = typedOptions();
      if (!po)
        return po.error();
      for (const DeclaredHeuristic *h : perConfig)
        po->defines[h->name] = "1";
      auto probe = compileKite(g.text, *po, g.sourceName);
      if (!probe || probe->configs().empty())
        return heuristicError(firstWhy);
      cached = g.probes
                   .emplace(key, std::make_pair(probe->configs(),
                                                probe->autotuneKey()))
                   .first;
    }
    configs = cached->second.first;
    tuneKey = cached->second.second;
    for (size_t c = 0; c < configs.size(); ++c) {
      std::map<std::string, HostValue> v = values;
      for (auto &[name, value] : configs[c].constants)
        v[name] = number(value);
      key += "|#" + std::to_string(c);
      for (const DeclaredHeuristic *h : perConfig) {
        std::string why;
        std::optional<HostValue> r = h->evaluate(v, why);
        if (!r)
          return heuristicError(h->name + ": " + why);
        if (r->kind != HostValue::Int && r->kind != HostValue::Bool &&
            r->kind != HostValue::Float)
          return heuristicError(h->name + ": it gives " + r->python() +
                                " under an @autotune configuration, where "
                                "Kite takes numbers and bools");
        configs[c].constants[h->name] =
            r->kind == HostValue::Float ? r->f : double(r->i);
        v[h->name] = *r;
        key += "," + h->name + "=" + r->python();
      }
    }
  }
  if (auto it = g.typed.find(key); it != g.typed.end()) {
    g.last = it->second;
    return it->second;
  }
  auto o = typedOptions();
  if (!o)
    return o.error();
  if (!configs.empty()) {
    // The configurations with the heuristics' values, as the host's.
    o->autotuneConfigs = configs;
    o->autotuneKey = tuneKey;
  }
  // The typed kernel must not be typed at launch again (a launch would
  // recurse without end): every unannotated parameter and heuristic now has
  // its type or value.
  if (auto again = genericKernel(g.text, g.sourceName, *o); !again || *again)
    return Error(ErrorCode::CompileError,
                 "internal compiler error: kernel '" + g.kernel.name +
                     "' is still untyped after typing it from the launch's "
                     "arguments");
  auto k = compileKite(g.text, *o, g.sourceName);
  if (!k)
    return k.error();
  if (g.keep && !k->configs().empty())
    if (auto ok = k->pruneConfigs(g.keep); !ok)
      return ok.error();
  g.typed.emplace(key, *k);
  g.last = *k;
  return *k;
}
