//===- LaunchTyping.cpp - Kernels typed at launch -------------------------===//
//
// See LaunchTyping.h.
//
//===----------------------------------------------------------------------===//

#include "LaunchTyping.h"
#include "KernelImpl.h"

using namespace kite;
using namespace kite::detail;

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
    return options.signature.count(name) || options.defines.count(name) ||
           options.constants.count(name);
  };
  bool generic = false;
  for (const DeclaredParam &p : kernel->params)
    generic |= p.kind == DeclaredParam::Untyped && !given(p.name);
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
  std::lock_guard<std::mutex> lock(g.mutex);
  if (auto it = g.typed.find(key); it != g.typed.end()) {
    g.last = it->second;
    return it->second;
  }
  CompileOptions o = g.options;
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
  auto k = compileKite(g.text, o, g.sourceName);
  if (!k)
    return k.error();
  if (g.keep && !k->configs().empty())
    if (auto ok = k->pruneConfigs(g.keep); !ok)
      return ok.error();
  g.typed.emplace(key, *k);
  g.last = *k;
  return *k;
}
