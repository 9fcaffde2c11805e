//===- CodeGenKernel.cpp - The kernel function ------------------------------===//
//
// The kernel: its parameters (pointers, scalars, constexprs with their -D
// values and defaults, tensor descriptors), the @kernel attributes
// (num_warps, num_stages, cluster_dims, ...) and @autotune configurations
// as written, and the func.func with its launch metadata.
//
//===----------------------------------------------------------------------===//

#include "HostValues.h"
#include "CodeGen.h"

#include <cerrno>
#include <cstdlib>

namespace kite::frontend {

Val CodeGen::parseDefine(const std::string &text, Loc l, const std::string &name) {
  if (std::optional<HostValue> literal = parsePythonLiteral(text)) {
    switch (literal->kind) {
    case HostValue::Int:
      return Val::integer(literal->i);
    case HostValue::Float:
      return Val::floating(literal->f);
    case HostValue::Bool:
      return Val::boolean(literal->i != 0);
    case HostValue::Str: {
      Val v;
      v.kind = Val::Str;
      v.s = literal->s;
      return v;
    }
    case HostValue::None:
    case HostValue::Object:
      return Val();
    }
  }
  // A dtype (Triton libraries pass tl.bfloat16 for `X_dtype: tl.constexpr`).
  std::string dtype = text.rfind("tl.", 0) == 0 ? text.substr(3) : text;
  bool uns = false;
  if (auto t = dtypeNamed(dtype, &uns))
    return Val::dtypeOf(*t, uns);
  fail(l, "-D " + name + "=" + text +
              ": not a number, True/False, None, a quoted string ('mean') "
              "or a dtype (bf16, tl.float32, ...)");
}

ExprPtr CodeGen::descriptorAnnotation(const std::string &text, Loc l,
                                      const std::string &name) {
  auto bad = [&]() -> ExprPtr {
    fail(l, "signature type '" + text + "' of parameter '" + name +
                "': a descriptor is tensordesc<DTYPE[B0, B1, ...]>, e.g. "
                "tensordesc<fp16[64, 64]> (1 to 5 block sizes, powers of "
                "two)");
  };
  StringRef t = StringRef(text).trim();
  if (!t.consume_front("tensordesc<") || !t.consume_back(">"))
    return bad();
  size_t open = t.find('[');
  if (open == StringRef::npos || !t.trim().ends_with("]"))
    return bad();
  std::string dtype =
      ::kite::normalizeSignatureType(t.substr(0, open).trim().str());
  if (!dtypeNamed(dtype))
    return bad();
  StringRef dims = t.substr(open + 1).trim().drop_back();
  auto annotation = std::make_unique<Expr>(Expr::Call, l);
  annotation->args.push_back(std::make_unique<Expr>(Expr::Name, l));
  annotation->args.back()->name = "tensor_descriptor";
  annotation->args.push_back(std::make_unique<Expr>(Expr::Name, l));
  annotation->args.back()->name = dtype;
  auto block = std::make_unique<Expr>(Expr::Tuple, l);
  SmallVector<StringRef> parts;
  dims.split(parts, ',');
  for (StringRef part : parts) {
    int64_t size = 0;
    if (part.trim().getAsInteger(10, size) || size < 1 || (size & (size - 1)))
      return bad();
    block->args.push_back(std::make_unique<Expr>(Expr::Int, l));
    block->args.back()->intValue = size;
  }
  annotation->args.push_back(std::move(block));
  return annotation;
}

namespace {
/// One @autotune configuration as written: name -> number, in order.
using ConfigValues = std::vector<std::pair<std::string, Val>>;
} // namespace

/// A number literal (possibly negated) of an @autotune config.
static std::optional<Val> literal(const Expr &e) {
  if (e.kind == Expr::Int)
    return Val::integer(e.intValue);
  if (e.kind == Expr::Float)
    return Val::floating(e.floatValue);
  if (e.kind == Expr::Bool)
    return Val::boolean(e.intValue != 0);
  if (e.kind == Expr::Unary && e.name == "-" && e.args.size() == 1) {
    if (auto v = literal(*e.args[0])) {
      if (v->kind == Val::Int)
        return Val::integer(-v->i);
      if (v->kind == Val::Float)
        return Val::floating(-v->f);
    }
  }
  return std::nullopt;
}

void CodeGen::countExpansion(Loc l) {
  if (++expansions > kMaxExpansions)
    fail(l, "the kernel expands to more than " +
                std::to_string(kMaxExpansions) +
                " unrolled static_range bodies and inlined helper calls "
                "(nested static_range, or helpers calling helpers many "
                "times); use range() or fewer calls");
}

void CodeGen::kernel(const Function &f) {
  expansions = 0;
  // @autotune(configs=[config(NAME=value, ..., num_warps=W, num_stages=S),
  // ...], key=["M", ...]): read as written here; checked against the
  // parameters below; kept on the kernel as kite.autotune/kite.autotune_key
  // for the runtime, which compiles and times each configuration.
  std::vector<ConfigValues> configs;
  std::vector<std::pair<std::string, Loc>> tuneKey;
  std::vector<Loc> configLocs;
  bool sawConfigs = false;
  // Set when @triton.autotune's configs are host code Kite does not
  // evaluate: not read, and why.
  std::optional<Loc> unreadConfigs;
  std::string unreadWhy;
  for (auto &[key, value] : f.autotuneArgs) {
    if (key == "configs") {
      sawConfigs = true;
      // The configurations, a comprehension's loop variables bound.
      using Bindings = std::map<std::string, Val>;
      std::vector<std::pair<const Expr *, Bindings>> items;
      if (f.jit && value->kind != Expr::Tuple &&
          value->kind != Expr::ListComp) {
        // configs=NAME(): a host function's list (CodeGenConfigs.cpp).
        const Expr *callee = value->kind == Expr::Call && value->args.size() == 1 &&
                                     value->kwargs.empty()
                                 ? value->args[0].get()
                                 : nullptr;
        auto host = callee && callee->kind == Expr::Name
                        ? module.hostFunctions.find(callee->name)
                        : module.hostFunctions.end();
        if (host == module.hostFunctions.end()) {
          unreadWhy = callee && callee->kind == Expr::Name
                          ? "'" + callee->name +
                                "' is not a function of this file Kite can "
                                "read"
                          : "they are not a call of a function of this file";
          unreadConfigs = value->loc;
          continue;
        }
        if (!hostConfigs(*host->second, items, unreadWhy)) {
          unreadConfigs = value->loc;
          continue;
        }
      }
      std::function<void(const Expr &, size_t, Bindings &)> expand =
          [&](const Expr &comp, size_t clause, Bindings &bound) {
            if (clause + 1 >= comp.args.size()) {
              items.emplace_back(comp.args[0].get(), bound);
              return;
            }
            const Expr &iter = *comp.args[clause + 1];
            if (iter.kind != Expr::Tuple)
              fail(iter.loc, "a configs comprehension loops over lists of "
                             "numbers, e.g. for BM in [64, 128]");
            for (const ExprPtr &item : iter.args) {
              auto lit = literal(*item);
              if (!lit)
                fail(item->loc, "a configs comprehension loops over lists "
                                "of numbers");
              bound[comp.args[clause]->name] = *lit;
              expand(comp, clause + 2, bound);
            }
            bound.erase(comp.args[clause]->name);
          };
      if (value->kind == Expr::ListComp) {
        Bindings none;
        expand(*value, 1, none);
      } else if (value->kind == Expr::Tuple) {
        for (const ExprPtr &c : value->args)
          items.emplace_back(c.get(), Bindings());
      }
      if (items.empty() && value->kind == Expr::Call) {
        unreadWhy = "the host function returns no configurations";
        unreadConfigs = value->loc;
        continue;
      }
      if (items.empty())
        fail(value->loc, "configs must be a non-empty list of config(...)");
      if (items.size() > 4096)
        fail(value->loc, "configs lists " + std::to_string(items.size()) +
                             " configurations; at most 4096");
      for (auto &[c, bound] : items) {
        auto valueOf = [&](const Expr &v) -> std::optional<Val> {
          if (v.kind == Expr::Name) {
            auto it = bound.find(v.name);
            if (it != bound.end())
              return it->second;
          }
          return literal(v);
        };
        const Expr *callee = c->kind == Expr::Call ? c->args[0].get() : nullptr;
        bool isConfig =
            callee && ((callee->kind == Expr::Name && callee->name == "config") ||
                       (callee->kind == Expr::Attribute &&
                        (callee->name == "config" || callee->name == "Config")));
        // Kite's config(NAME=v, ..., num_warps=W) or Triton's
        // triton.Config({"NAME": v, ...}, num_warps=W, num_stages=S).
        bool triton = isConfig && c->args.size() >= 2 &&
                      c->args[1]->kind == Expr::Dict;
        if (!isConfig || (c->args.size() != 1 && !triton) ||
            c->args.size() > 4)
          fail(c->loc, "each config is config(NAME=value, ..., num_warps=W, "
                       "num_stages=S) or triton.Config({\"NAME\": value, "
                       "...}, num_warps=W, num_stages=S)");
        ConfigValues values;
        std::set<std::string> names;
        auto add = [&](const std::string &name, const Expr &v) {
          auto lit = valueOf(v);
          if (!lit)
            fail(v.loc, "config value of '" + name + "' must be a number");
          if (!names.insert(name).second)
            fail(v.loc, "config sets '" + name + "' twice");
          values.emplace_back(name, *lit);
        };
        if (triton) {
          const Expr &dict = *c->args[1];
          for (size_t i = 0; i + 1 < dict.args.size(); i += 2) {
            if (dict.args[i]->kind != Expr::Str)
              fail(dict.args[i]->loc, "a config's keys are parameter names "
                                      "(strings)");
            add(dict.args[i]->name, *dict.args[i + 1]);
          }
          // Config(kwargs, num_warps, num_stages) positionally too.
          if (c->args.size() > 2)
            add("num_warps", *c->args[2]);
          if (c->args.size() > 3)
            add("num_stages", *c->args[3]);
        }
        for (auto &[name, v] : c->kwargs) {
          // Host-side hooks and options Kite has no use for.
          if (triton && (name == "pre_hook" || name == "post_hook" ||
                         name == "num_ctas" || name == "num_buffers_warp_spec" ||
                         name == "num_consumer_groups" ||
                         name == "reg_dec_producer" ||
                         name == "reg_inc_consumer"))
            continue;
          add(name, *v);
        }
        configs.push_back(std::move(values));
        configLocs.push_back(c->loc);
      }
    } else if (key == "key") {
      if (value->kind != Expr::Tuple)
        fail(value->loc, "key must be a list of parameter names "
                         "(strings), e.g. key=[\"M\", \"N\"]");
      for (const ExprPtr &k : value->args) {
        if (k->kind != Expr::Str)
          fail(k->loc, "key names a parameter with a string, e.g. \"M\"");
        tuneKey.emplace_back(k->name, k->loc);
      }
    } else if (f.jit && (key == "prune_configs_by" || key == "reset_to_zero" ||
                         key == "restore_value" || key == "pre_hook" ||
                         key == "post_hook" || key == "warmup" ||
                         key == "rep" || key == "use_cuda_graph" ||
                         key == "do_bench" || key == "cache_results")) {
      // Triton's host-side autotuning options: Kite's runtime restores
      // outputs after its trials itself (docs/runtime.md, "Autotuning").
      continue;
    } else {
      fail(value->loc, "unknown @autotune argument '" + key +
                           "' (known: configs, key)");
    }
  }
  if (f.autotune && !sawConfigs)
    fail(f.autotuneLoc, "@autotune needs configs=[config(...), ...]");
  if (unreadConfigs) {
    configs.clear();
    configLocs.clear();
    tuneKey.clear();
  }
  if (options.ignoreAutotune) {
    configs.clear();
    configLocs.clear();
    tuneKey.clear();
  }
  // One configuration compiled as a plain kernel (the runtime's trials,
  // kitec --config N).
  int chosen = options.autotuneConfig;
  if (chosen >= 0 && size_t(chosen) >= configs.size())
    fail(f.loc, configs.empty()
                    ? "kernel '" + f.name + "' has no @autotune configs"
                    : "kernel '" + f.name + "' has " +
                          std::to_string(configs.size()) +
                          " @autotune configs; there is no config " +
                          std::to_string(chosen));
  auto configValue = [&](size_t i, const std::string &name) -> const Val * {
    for (auto &[n, v] : configs[i])
      if (n == name)
        return &v;
    return nullptr;
  };

  Scope top;
  scope = &top;
  kernelScope = &top;
  constexprNames.clear();
  SmallVector<Type> argTypes;
  std::vector<const Param *> runtimeParams;
  std::vector<bool> unsignedParams;
  /// The GPU parameters' names (a host descriptor's sizes and strides are
  /// "NAME.shape0", "NAME.strides0", ...).
  std::vector<std::string> argNames;
  /// Host-made tensor descriptors: the parameter, its annotation, its first
  /// GPU parameter (the base; then rank sizes, rank strides).
  struct HostDescriptor {
    const Param *param;
    const Expr *annotation;
    size_t firstArg;
    size_t rank;
  };
  std::vector<HostDescriptor> hostDescriptors;
  int64_t numWarps = 4, numStages = 0, maxRegisters = 0;
  SmallVector<int32_t, 3> clusterDims;
  auto checkMaxRegisters = [&](int64_t n, Loc l) {
    if (n < 24 || n > 255)
      fail(l, "maxnreg must be in [24, 255] (registers a thread), got " +
                  std::to_string(n));
  };
  for (auto &[key, value] : f.decoratorArgs) {
    Val v = expr(*value);
    if (key == "num_warps") {
      numWarps = constInt(v, value->loc, "num_warps");
      if (numWarps < 1 || numWarps > 32 || (numWarps & (numWarps - 1)))
        fail(value->loc, "num_warps must be a power of two in [1, 32], "
                         "got " + std::to_string(numWarps));
    } else if (key == "num_stages") {
      numStages = constInt(v, value->loc, "num_stages");
      if (numStages < 1 || numStages > 8)
        fail(value->loc, "num_stages must be in [1, 8], got " +
                             std::to_string(numStages));
    } else if (key == "maxnreg") {
      maxRegisters = constInt(v, value->loc, "maxnreg");
      checkMaxRegisters(maxRegisters, value->loc);
    } else if (key == "cluster_dims") {
      // An integer (x) or a tuple of up to three: programs a cluster.
      std::vector<Val> dims =
          v.kind == Val::Tuple ? v.elems : std::vector<Val>{v};
      if (dims.empty() || dims.size() > 3)
        fail(value->loc, "cluster_dims takes 1 to 3 sizes (x, y, z), got " +
                             std::to_string(dims.size()));
      int64_t size = 1;
      for (const Val &d : dims) {
        int64_t n = constInt(d, value->loc, "cluster_dims");
        if (n < 1 || n > 8)
          fail(value->loc, "cluster_dims sizes must be in [1, 8], got " +
                               std::to_string(n));
        size *= n;
        clusterDims.push_back(int32_t(n));
      }
      if (size > 8)
        fail(value->loc, "a cluster holds at most 8 programs; cluster_dims "
                         "asks for " +
                             std::to_string(size));
      clusterDims.resize(3, 1);
    } else {
      fail(value->loc, "unknown @kernel argument '" + key +
                           "' (known: num_warps, num_stages, maxnreg, "
                           "cluster_dims)");
    }
  }
  std::set<std::string> seen;
  // One GPU parameter of the kernel (a descriptor's base, sizes and strides
  // are several).
  auto addArg = [&](const Param &p, Type type, bool uns,
                    const std::string &name) {
    argTypes.push_back(type);
    runtimeParams.push_back(&p);
    unsignedParams.push_back(uns);
    argNames.push_back(name);
  };
  // A constexpr parameter's value must be one a kernel can be specialized on.
  auto checkConstexpr = [&](const Param &p) {
    Val::Kind k = top[p.name].kind;
    if (!top[p.name].isConst() && k != Val::DType && k != Val::Str &&
        k != Val::None)
      fail(p.loc, "constexpr parameter '" + p.name +
                      "' must be a number, a bool, a string, None or a "
                      "dtype");
  };
  // `NAME: tensor_descriptor(dtype, [B0, B1, ...])` (`t`): a descriptor the
  // host makes (kite::TensorDescriptor), passed as its base pointer, sizes
  // and strides (i32); the block shape may name constexprs.
  auto addHostDescriptor = [&](const Param &p, const Expr &t) {
    bool uns = false;
    if (t.args.size() != 3 || !t.kwargs.empty() ||
        t.args[1]->kind != Expr::Name || t.args[2]->kind != Expr::Tuple)
      fail(t.loc, "a descriptor parameter is tensor_descriptor(dtype, "
                  "[block sizes]), e.g. tensor_descriptor(f16, [BLOCK_M, "
                  "BLOCK_K])");
    std::optional<Type> pointee = dtypeNamed(t.args[1]->name, &uns);
    if (!pointee)
      fail(t.args[1]->loc, "unknown element type '" + t.args[1]->name +
                               "' of a tensor descriptor");
    size_t rank = t.args[2]->args.size();
    if (rank < 1 || rank > 5)
      fail(t.args[2]->loc, "a tensor descriptor has 1 to 5 dimensions, "
                           "got " +
                               std::to_string(rank));
    hostDescriptors.push_back({&p, &t, argTypes.size(), rank});
    addArg(p, kd::PointerType::get(ctx, *pointee), uns, p.name);
    for (const char *part : {"shape", "strides"})
      for (size_t k = 0; k < rank; ++k)
        addArg(p, b.getI32Type(), false,
               p.name + "." + part + std::to_string(k));
  };
  // Descriptor annotations made from signature types (below), kept alive
  // for the entry's code.
  std::vector<ExprPtr> signatureAnnotations;
  // @triton.heuristics ahead of time: a lambda that reads only -D values
  // (and earlier heuristics) gives its constexpr here; one that reads a
  // launch's argument needs the runtime (or -D), and the error says why.
  std::map<std::string, std::string> heuristicDefines, heuristicWhy;
  {
    std::map<std::string, HostValue> values;
    for (auto &[name, text] : options.defines)
      if (auto v = parsePythonLiteral(text))
        values[name] = *v;
    for (const Function::Heuristic &h : f.heuristics) {
      if (options.defines.count(h.name))
        continue;
      std::string why;
      if (auto v = ::kite::ast::evaluateHostExpr(*h.body, h.arg, values, why)) {
        values[h.name] = *v;
        heuristicDefines[h.name] = v->python();
      } else {
        heuristicWhy[h.name] = why;
      }
    }
  }
  for (const Param &p : f.params) {
    if (!seen.insert(p.name).second)
      fail(p.loc, "duplicate parameter '" + p.name + "'");
    if (!p.type) {
      // Unannotated (Triton's form): typed at launch (the signature), or a
      // constexpr given by -D (a None argument) or by its default.
      auto sig = options.signature.find(p.name);
      auto d = options.defines.find(p.name);
      if (sig != options.signature.end() && d != options.defines.end())
        fail(p.loc, "parameter '" + p.name + "' has both a type in the "
                    "signature and a constexpr value (-D)");
      if (sig == options.signature.end()) {
        if (d == options.defines.end() && !p.deflt) {
          // Every such parameter of the kernel, in one error.
          std::string names, example;
          for (const Param &q : f.params)
            if (!q.type && !q.deflt && !options.signature.count(q.name) &&
                !options.defines.count(q.name)) {
              names += (names.empty() ? "" : ", ") + q.name;
              example += (example.empty() ? "" : ",") + q.name + "=TYPE";
            }
          fail(p.loc, "kernel '" + f.name + "' has parameters without a "
                      "type: " + names + ": annotate them (" + p.name +
                      ": *f32, i32, f32, ... or constexpr), or type the "
                      "kernel where it is launched (kitec --signature=" +
                      example + "; the runtime types them from the launch's "
                      "arguments)");
        }
        constexprNames.insert(p.name);
        top[p.name] = d != options.defines.end()
                          ? parseDefine(d->second, p.loc, p.name)
                          : expr(*p.deflt);
        checkConstexpr(p);
        continue;
      }
      // Triton's descriptor signature, `tensordesc<fp16[64, 64]>`: the
      // same parameter as `tensor_descriptor(f16, [64, 64])`.
      if (StringRef(sig->second).trim().starts_with("tensordesc<")) {
        signatureAnnotations.push_back(
            descriptorAnnotation(sig->second, p.loc, p.name));
        addHostDescriptor(p, *signatureAnnotations.back());
        continue;
      }
      std::string spelled = ::kite::normalizeSignatureType(sig->second);
      bool pointer = !spelled.empty() && spelled[0] == '*';
      bool uns = false;
      std::optional<Type> elem =
          dtypeNamed(pointer ? StringRef(spelled).drop_front() : spelled, &uns);
      if (!elem)
        fail(p.loc, "signature type '" + sig->second + "' of parameter '" +
                        p.name + "': expected *T or T, T one of i8, i16, "
                        "i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, "
                        "f8e4m3, f8e5m2 (or Triton's fp16, fp32, ...)");
      if (!pointer && elem->isInteger(1))
        fail(p.loc, "parameter '" + p.name + "': i1 scalars are not "
                    "supported; type it i32 (the runtime passes a bool "
                    "argument as an i32)");
      addArg(p, pointer ? Type(kd::PointerType::get(ctx, *elem)) : *elem, uns,
             p.name);
      continue;
    }
    const Expr &t = *p.type;
    if (t.kind == Expr::Name && t.name == "constexpr") {
      constexprNames.insert(p.name);
      auto d = options.defines.find(p.name);
      if (d != options.defines.end())
        top[p.name] = parseDefine(d->second, p.loc, p.name);
      else if (heuristicDefines.count(p.name))
        top[p.name] = parseDefine(heuristicDefines[p.name], p.loc, p.name);
      else if (!configs.empty() && configValue(chosen < 0 ? 0 : chosen, p.name))
        top[p.name] = *configValue(chosen < 0 ? 0 : chosen, p.name); // the
                                                  // chosen (or first) config's
      else if (p.deflt)
        top[p.name] = expr(*p.deflt);
      else
        fail(p.loc, "constexpr parameter '" + p.name + "' of kernel '" +
                        f.name + "' has no value: give it a default or "
                        "pass -D " + p.name + "=VALUE" +
                        (std::count(f.heuristicNames.begin(),
                                    f.heuristicNames.end(), p.name)
                             ? " (@triton.heuristics sets it from the "
                               "launch's arguments, which the runtime "
                               "evaluates at each launch; here " +
                                   (heuristicWhy.count(p.name)
                                        ? heuristicWhy[p.name]
                                        : std::string("Kite reads only a "
                                                      "dict of lambdas")) +
                                   ")"
                         : unreadConfigs
                             ? " (@triton.autotune's configs are host code "
                               "Kite does not evaluate: " +
                                   unreadWhy +
                                   "; Kite reads a list of triton.Config, or "
                                   "a function of this file that builds one "
                                   "from literals, loops and ifs)"
                             : ""));
      checkConstexpr(p);
      continue;
    }
    if (p.deflt)
      fail(p.deflt->loc, "only constexpr parameters take defaults");
    Type type;
    bool uns = false;
    if (t.kind == Expr::Call && t.args[0]->kind == Expr::Name &&
        t.args[0]->name == "tensor_descriptor") {
      addHostDescriptor(p, t);
      continue;
    }
    if (t.kind == Expr::Unary && t.name == "*") {
      const Expr &inner = *t.args[0];
      std::optional<Type> pointee;
      if (inner.kind == Expr::Name)
        pointee = dtypeNamed(inner.name, &uns);
      if (!pointee)
        fail(inner.loc, "unknown pointee type; expected i1, i8, i16, i32, "
                        "i64, u8, u16, u32, u64, f8e4m3, f8e5m2, f16, bf16, "
                        "f32 or f64");
      type = kd::PointerType::get(ctx, *pointee);
    } else if (t.kind == Expr::Name && dtypeNamed(t.name)) {
      type = *dtypeNamed(t.name, &uns);
      if (type.isInteger(1))
        fail(t.loc, "i1 parameters are not supported; pass an i32");
    } else {
      fail(t.loc, "unknown parameter type; expected *T, a scalar type "
                  "(i32, f32, ...), tensor_descriptor(dtype, [block sizes]) "
                  "or constexpr");
    }
    addArg(p, type, uns, p.name);
  }
  for (auto &[name, value] : options.defines)
    (void)name, (void)value; // unknown -D names are checked by the caller

  if (chosen >= 0) {
    if (const Val *w = configValue(chosen, "num_warps"))
      numWarps = w->i;
    if (const Val *st = configValue(chosen, "num_stages"))
      numStages = st->i;
    if (const Val *r = configValue(chosen, "maxnreg"))
      maxRegisters = r->i;
  }
  auto funcType = b.getFunctionType(argTypes, {});
  auto func = func::FuncOp::create(b, loc(f.loc), f.name, funcType);
  func->setAttr(kd::KiteDialect::getKernelAttrName(), b.getUnitAttr());
  func->setAttr(kd::KiteDialect::getNumWarpsAttrName(),
                b.getI32IntegerAttr(numWarps));
  if (numStages)
    func->setAttr(kd::KiteDialect::getNumStagesAttrName(),
                  b.getI32IntegerAttr(numStages));
  if (maxRegisters)
    func->setAttr(kd::KiteDialect::getMaxRegistersAttrName(),
                  b.getI32IntegerAttr(maxRegisters));
  if (!clusterDims.empty() && clusterDims != SmallVector<int32_t, 3>{1, 1, 1})
    func->setAttr(kd::KiteDialect::getClusterDimsAttrName(),
                  b.getDenseI32ArrayAttr(clusterDims));
  if (!configs.empty()) {
    SmallVector<Attribute> dicts;
    for (size_t i = 0; i < configs.size(); ++i) {
      SmallVector<NamedAttribute> entries;
      for (auto &[name, v] : configs[i]) {
        Loc l = configLocs[i];
        if (name == "maxnreg") {
          int64_t n = constInt(v, l, "maxnreg");
          checkMaxRegisters(n, l);
          entries.push_back(b.getNamedAttr(name, b.getI32IntegerAttr(n)));
          continue;
        }
        if (name == "num_warps" || name == "num_stages") {
          int64_t n = constInt(v, l, name.c_str());
          bool ok = name == "num_warps"
                        ? n >= 1 && n <= 32 && !(n & (n - 1))
                        : n >= 1 && n <= 8;
          if (!ok)
            fail(l, name == "num_warps"
                        ? "num_warps must be a power of two in [1, 32], got " +
                              std::to_string(n)
                        : "num_stages must be in [1, 8], got " +
                              std::to_string(n));
          entries.push_back(b.getNamedAttr(name, b.getI32IntegerAttr(n)));
          continue;
        }
        if (!constexprNames.count(name))
          fail(l, "config sets '" + name + "', which is not a constexpr "
                  "parameter of kernel '" + f.name + "'");
        if (options.defines.count(name))
          fail(l, "config sets '" + name + "', which -D also sets; drop one");
        Attribute value =
            v.kind == Val::Float
                ? Attribute(b.getF64FloatAttr(v.f))
                : Attribute(b.getI64IntegerAttr(v.i));
        entries.push_back(b.getNamedAttr(name, value));
      }
      dicts.push_back(b.getDictionaryAttr(entries));
    }
    if (chosen < 0)
      func->setAttr(kd::KiteDialect::getAutotuneAttrName(),
                    b.getArrayAttr(dicts));
    SmallVector<Attribute> names;
    for (auto &[name, l] : tuneKey) {
      bool runtime = false;
      for (const Param *p : runtimeParams)
        runtime |= p->name == name;
      if (!runtime) {
        // A constexpr (Triton's keys may name one): each of its values is
        // already a kernel of its own, tuned apart.
        bool constexprParam = false;
        for (const Param &p : f.params)
          constexprParam |= p.name == name;
        if (constexprParam)
          continue;
        fail(l, "key names '" + name + "', which is not a parameter of "
                "kernel '" + f.name + "'");
      }
      names.push_back(b.getStringAttr(name));
    }
    if (chosen < 0)
      func->setAttr(kd::KiteDialect::getAutotuneKeyAttrName(),
                    b.getArrayAttr(names));
  }
  mlir::Block *entry = func.addEntryBlock();
  for (size_t k = 0; k < runtimeParams.size(); ++k) {
    func.setArgAttr(k, kd::KiteDialect::getArgNameAttrName(),
                    b.getStringAttr(argNames[k]));
    // An unsigned scalar or pointee (u32, *u8, ...): the host's types in
    // the AOT header and the runtime's messages.
    if (unsignedParams[k])
      func.setArgAttr(k, kd::KiteDialect::getArgUnsignedAttrName(),
                      b.getUnitAttr());
    entry->getArgument(k).setLoc(loc(runtimeParams[k]->loc));
    top[argNames[k]] = Val::runtime(entry->getArgument(k), unsignedParams[k]);
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  try {
    // Host descriptors: the block shape (constexprs bound by now), the
    // descriptor made of the base, sizes and strides at the entry.
    for (const HostDescriptor &d : hostDescriptors) {
      const Expr &list = *d.annotation->args[2];
      std::vector<Val> block;
      for (const auto &e : list.args)
        block.push_back(expr(*e));
      SmallVector<mlir::Value> shape, strides;
      for (size_t k = 0; k < d.rank; ++k) {
        shape.push_back(entry->getArgument(d.firstArg + 1 + k));
        strides.push_back(entry->getArgument(d.firstArg + 1 + d.rank + k));
      }
      Val desc = descriptorValue(entry->getArgument(d.firstArg),
                                 unsignedParams[d.firstArg], shape, strides,
                                 block, list.loc, d.param->loc);
      SmallVector<int64_t> dims(desc.block.begin(), desc.block.end());
      func.setArgAttr(d.firstArg, kd::KiteDialect::getArgDescriptorAttrName(),
                      b.getDenseI64ArrayAttr(dims));
      top[d.param->name] = desc;
    }
    for (size_t i = 0; i < f.body.size(); ++i) {
      // The kernel's last statement: nothing reads what it assigns.
      atTail = i + 1 == f.body.size();
      statement(*f.body[i]);
    }
  } catch (CodeGenError &) {
    func.erase();
    throw;
  }
  func::ReturnOp::create(b, loc(f.loc));
}

} // namespace kite::frontend
