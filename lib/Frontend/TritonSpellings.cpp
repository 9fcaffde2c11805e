//===- TritonSpellings.cpp - Triton's `tl.` names in Kite source ----------===//
//
// A port of a Triton kernel should need no edits where Kite has the same
// builtin: `tl.NAME` (and `tl.math.NAME`) is read as Kite's `NAME`
// (`tl.arange`, `tl.float32`, `tl.constexpr`, `tl.exp2`, ...). Triton's
// `tl.max(x, 1)` / `tl.min(x, 1)` are reductions along axis 1, while a bare
// `max(a, b)` is Python's builtin, elementwise in a Triton kernel, as in
// Kite: so `tl.max(x, a)` becomes `max(x, axis=a)`. `tl` is reserved for
// this (a variable named `tl` is an error). Triton's libdevice,
// `tl.extra.cuda.libdevice.NAME` or `tl.extra.libdevice.NAME`, is read as
// `libdevice.NAME` (the math library, CodeGenMath.cpp). Triton's tensor
// methods that are its builtins with the block first, `x.sum(1)`,
// `x.exp2()`, `x.expand_dims(0)`, ..., are read as `sum(x, 1)`, ...
// (`x.max(1)` / `x.min(1)` as the reductions, as `tl.max(x, 1)`);
// `.to`, `.reshape`, `.view`, `.trans`, `.permute` and a descriptor's
// methods are the code generator's (CodeGenBuiltins.cpp).
//
//===----------------------------------------------------------------------===//

#include "TritonSpellings.h"

#include <set>

using namespace kite::ast;

namespace {

/// Whether `e` is `tl` or `tl.math` / `tl.extra.cuda.libdevice`-like: a
/// chain of attributes rooted at the name `tl`.
bool isTritonNamespace(const Expr &e) {
  if (e.kind == Expr::Name)
    return e.name == "tl";
  return e.kind == Expr::Attribute && (e.name == "math") &&
         isTritonNamespace(*e.args[0]);
}

void normalize(ExprPtr &e);

/// Triton's tensor methods that are builtins taking the block first.
bool isMemberBuiltin(const std::string &n) {
  static const char *names[] = {
      "sum",          "max",    "min",     "argmax",      "argmin",
      "xor_sum",      "cumsum", "cumprod", "reduce",      "associative_scan",
      "sort",         "flip",   "split",   "expand_dims", "ravel",
      "broadcast_to", "abs",    "exp",     "exp2",        "log",
      "log2",         "sin",    "cos",     "sqrt",        "rsqrt",
      "sigmoid",      "erf",    "floor",   "ceil",        "cdiv",
      "fdiv",         "div_rn", "sqrt_rn", "umulhi",      "gather",
      "histogram",    "topk",   "softmax", "reduce_or",   "broadcast",
      // More of Triton's tensor member functions (x.cast(tl.float32),
      // x.fma(y, z), x.clamp(lo, hi), ...).
      "cast",         "fma",    "clamp",   "join",        "interleave"};
  for (const char *m : names)
    if (n == m)
      return true;
  return false;
}

void normalizeAll(std::vector<ExprPtr> &v) {
  for (ExprPtr &e : v)
    if (e)
      normalize(e);
}

/// Whether `e` is `tl.extra` or `tl.extra.cuda`: where Triton keeps
/// libdevice.
bool isTritonExtra(const Expr &e) {
  if (e.kind != Expr::Attribute)
    return false;
  const Expr &base = *e.args[0];
  if (e.name == "extra")
    return base.kind == Expr::Name && base.name == "tl";
  return e.name == "cuda" && isTritonExtra(base);
}

/// Whether `e` is `libdevice`, `tl.extra.libdevice` or
/// `tl.extra.cuda.libdevice`: the math library's namespace.
bool isLibdevice(const Expr &e) {
  if (e.kind == Expr::Name)
    return e.name == "libdevice";
  return e.kind == Expr::Attribute && e.name == "libdevice" &&
         isTritonExtra(*e.args[0]);
}

/// The module's functions imported one by one (Module::importedFunctions),
/// while its spellings are normalized.
const std::map<std::string, std::string> *imported = nullptr;

void normalize(ExprPtr &e) {
  if (!e)
    return;
  // rsqrt(x) after `from triton.language.extra.libdevice import rsqrt`:
  // libdevice.rsqrt(x) (or, from triton.language, Triton's builtin).
  if (imported && e->kind == Expr::Call && e->args[0]->kind == Expr::Name &&
      !e->args[0]->fromTriton) {
    auto it = imported->find(e->args[0]->name);
    if (it != imported->end()) {
      std::string mod = it->second.substr(0, it->second.find('.'));
      std::string fn = it->second.substr(it->second.find('.') + 1);
      Loc l = e->args[0]->loc;
      if (mod == "tl") {
        e->args[0]->name = fn;
        e->args[0]->fromTriton = true;
      } else {
        auto ns = std::make_unique<Expr>(Expr::Name, l);
        ns->name = "libdevice";
        auto attr = std::make_unique<Expr>(Expr::Attribute, l);
        attr->name = fn;
        attr->args.push_back(std::move(ns));
        e->args[0] = std::move(attr);
      }
    }
  }
  // tl.extra.libdevice / tl.extra.cuda.libdevice -> libdevice
  if (e->kind == Expr::Attribute && e->name == "libdevice" &&
      isTritonExtra(*e->args[0])) {
    auto name = std::make_unique<Expr>(Expr::Name, e->loc);
    name->name = "libdevice";
    e = std::move(name);
    return;
  }
  // triton.cdiv / triton.next_power_of_2 (Triton's host helpers, which
  // kernels call on constexprs) -> the builtin
  if (e->kind == Expr::Attribute && e->args[0]->kind == Expr::Name &&
      e->args[0]->name == "triton" &&
      (e->name == "cdiv" || e->name == "next_power_of_2")) {
    auto name = std::make_unique<Expr>(Expr::Name, e->loc);
    name->name = e->name;
    name->fromTriton = true;
    e = std::move(name);
    return;
  }
  // tl.NAME -> NAME
  if (e->kind == Expr::Attribute && isTritonNamespace(*e->args[0])) {
    auto name = std::make_unique<Expr>(Expr::Name, e->loc);
    name->name = e->name;
    name->fromTriton = true;
    e = std::move(name);
    return;
  }
  // x.NAME(args) -> NAME(x, args) for Triton's tensor methods (not on
  // the tl / libdevice namespaces).
  if (e->kind == Expr::Call && e->args[0]->kind == Expr::Attribute &&
      isMemberBuiltin(e->args[0]->name) &&
      !isTritonNamespace(*e->args[0]->args[0]) &&
      !(e->args[0]->args[0]->kind == Expr::Name &&
        e->args[0]->args[0]->name == "triton") &&
      !isLibdevice(*e->args[0]->args[0])) {
    ExprPtr method = std::move(e->args[0]);
    auto name = std::make_unique<Expr>(Expr::Name, method->loc);
    name->name = method->name;
    name->fromTriton = true; // a tensor method: never a helper of the file
    e->args[0] = std::move(method->args[0]);
    e->args.insert(e->args.begin(), std::move(name));
    // x.max(a) / x.min(a): the reduction along axis a, as tl.max(x, a).
    bool minMax = e->args[0]->name == "max" || e->args[0]->name == "min";
    bool hasAxis = false;
    for (auto &kw : e->kwargs)
      hasAxis |= kw.first == "axis";
    if (minMax && e->args.size() == 3 && !hasAxis) {
      e->kwargs.emplace_back("axis", std::move(e->args[2]));
      e->args.pop_back();
    }
  }
  // tl.max(x, a) / tl.min(x, a): the reduction along axis a.
  if (e->kind == Expr::Call && e->args.size() == 3 &&
      e->args[0]->kind == Expr::Attribute &&
      (e->args[0]->name == "max" || e->args[0]->name == "min") &&
      isTritonNamespace(*e->args[0]->args[0])) {
    bool hasAxis = false;
    for (auto &kw : e->kwargs)
      hasAxis |= kw.first == "axis";
    if (!hasAxis) {
      e->kwargs.emplace_back("axis", std::move(e->args[2]));
      e->args.pop_back();
    }
  }
  normalizeAll(e->args);
  for (auto &kw : e->kwargs)
    normalize(kw.second);
}

void normalizeBlock(Block &block) {
  for (StmtPtr &s : block) {
    normalize(s->value);
    normalize(s->annotation);
    normalizeBlock(s->body);
    normalizeBlock(s->orelse);
  }
}

} // namespace

namespace {
/// Adds to `out` the names of the functions `e` calls by their bare name.
void calledNames(const Expr *e, std::set<std::string> &out) {
  if (!e)
    return;
  if (e->kind == Expr::Call && e->args[0]->kind == Expr::Name &&
      !e->args[0]->fromTriton)
    out.insert(e->args[0]->name);
  for (const ExprPtr &a : e->args)
    calledNames(a.get(), out);
  for (const auto &kw : e->kwargs)
    calledNames(kw.second.get(), out);
}
void calledNames(const Block &block, std::set<std::string> &out) {
  for (const StmtPtr &s : block) {
    calledNames(s->value.get(), out);
    calledNames(s->body, out);
    calledNames(s->orelse, out);
  }
}
} // namespace

void kite::ast::markJitHelpers(Module &module) {
  // Triton marks kernels and helpers alike with @triton.jit: one that
  // another function of the file calls, with a parameter without a type,
  // is a helper (inlined where called), as `@triton.jit def silu(x)`.
  std::set<std::string> called;
  for (auto &f : module.functions)
    calledNames(f->body, called);
  for (auto &f : module.functions) {
    if (!f->jit || !f->isKernel || f->autotune || !called.count(f->name))
      continue;
    bool untyped = false;
    for (const Param &p : f->params)
      untyped |= !p.type;
    if (untyped)
      f->isKernel = false;
  }
}

void kite::ast::normalizeTritonSpellings(Module &module) {
  imported = &module.importedFunctions;
  for (auto &f : module.functions) {
    for (auto &arg : f->decoratorArgs)
      normalize(arg.second);
    for (Param &p : f->params) {
      normalize(p.type);
      normalize(p.deflt);
    }
    normalizeBlock(f->body);
  }
  normalizeBlock(module.constants);
  imported = nullptr;
}
