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
// `libdevice.NAME` (the math library, CodeGenMath.cpp).
//
//===----------------------------------------------------------------------===//

#include "TritonSpellings.h"

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

void normalize(ExprPtr &e) {
  if (!e)
    return;
  // tl.extra.libdevice / tl.extra.cuda.libdevice -> libdevice
  if (e->kind == Expr::Attribute && e->name == "libdevice" &&
      isTritonExtra(*e->args[0])) {
    auto name = std::make_unique<Expr>(Expr::Name, e->loc);
    name->name = "libdevice";
    e = std::move(name);
    return;
  }
  // tl.NAME -> NAME
  if (e->kind == Expr::Attribute && isTritonNamespace(*e->args[0])) {
    auto name = std::make_unique<Expr>(Expr::Name, e->loc);
    name->name = e->name;
    e = std::move(name);
    return;
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

void kite::ast::normalizeTritonSpellings(Module &module) {
  for (auto &f : module.functions) {
    for (auto &arg : f->decoratorArgs)
      normalize(arg.second);
    for (Param &p : f->params) {
      normalize(p.type);
      normalize(p.deflt);
    }
    normalizeBlock(f->body);
  }
}
