//===- Returns.cpp - `return` inside if/else in Kite source ---------------===//
//
// The code generator inlines a helper by running its statements and taking
// the value of its last one, a `return`; structured control flow (scf.if)
// has no early exit. Triton accepts a `return` inside an `if` (its
// `contains_return`): so does Kite, by rewriting the function before code
// generation:
//
//   1. statements after an `if` whose one branch ends in a `return` move
//      into the other branch (they run only where that one does):
//
//        if x > 0:                 if x > 0:
//            return x                  return x
//        y = exp(x) - 1     =>     else:
//        return alpha * y              y = exp(x) - 1
//                                      return alpha * y
//
//   2. when then every path through the body ends in a `return`, each of
//      those becomes an assignment to one hidden name and the body ends in
//      `return` of it (a helper), or they go away (a kernel's bare
//      `return`: `if pid >= n: return` guards the rest).
//
// A `return` elsewhere (in a loop, or followed by statements the rewrite
// cannot move) is left for the code generator's error.
//
//===----------------------------------------------------------------------===//

#include "Returns.h"

using namespace kite::ast;

namespace {

/// Whether every path through `block` ends in a `return`.
bool endsInReturn(const Block &block) {
  if (block.empty())
    return false;
  const Stmt &last = *block.back();
  if (last.kind == Stmt::Return)
    return true;
  return last.kind == Stmt::If && endsInReturn(last.body) &&
         endsInReturn(last.orelse);
}

/// Step 1 on `block` and the branches within it, `depth` levels of `if`
/// deep; past kMaxReturnNesting, `tooDeep` is the `if` it stopped at.
void moveTails(Block &block, unsigned depth, std::optional<Loc> &tooDeep) {
  for (size_t i = 0; i < block.size() && !tooDeep; ++i) {
    Stmt &s = *block[i];
    if (s.kind != Stmt::If)
      continue;
    if (depth >= kMaxReturnNesting) {
      tooDeep = s.loc;
      return;
    }
    moveTails(s.body, depth + 1, tooDeep);
    moveTails(s.orelse, depth + 1, tooDeep);
    if (tooDeep)
      return;
    bool thenReturns = endsInReturn(s.body),
         elseReturns = endsInReturn(s.orelse);
    if (i + 1 == block.size() || thenReturns == elseReturns)
      continue;
    Block &into = thenReturns ? s.orelse : s.body;
    for (size_t k = i + 1; k < block.size(); ++k)
      into.push_back(std::move(block[k]));
    block.resize(i + 1);
    s.tookRest = true;
    moveTails(into, depth + 1, tooDeep);
  }
}

/// The `return`s that end paths through `block` (its last statement, or
/// those ending the branches of a last `if`).
void tailReturns(Block &block, std::vector<Stmt *> &out) {
  if (block.empty())
    return;
  Stmt &last = *block.back();
  if (last.kind == Stmt::Return)
    out.push_back(&last);
  else if (last.kind == Stmt::If) {
    tailReturns(last.body, out);
    tailReturns(last.orelse, out);
  }
}

void normalize(Function &f, std::optional<Loc> &tooDeep) {
  moveTails(f.body, 0, tooDeep);
  if (tooDeep)
    return;
  // Only where some path returns from inside an `if`.
  if (f.body.empty() || f.body.back()->kind != Stmt::If)
    return;
  std::vector<Stmt *> returns;
  tailReturns(f.body, returns);
  if (returns.empty())
    return;
  bool withValue = bool(returns.front()->value);
  for (Stmt *r : returns)
    if (bool(r->value) != withValue)
      return; // some with a value, some without: the code generator says
  if (!withValue) {
    // A bare `return` ending a path is the path's end.
    for (Stmt *r : returns)
      r->kind = Stmt::Pass;
    return;
  }
  if (!endsInReturn(f.body))
    return; // a path without a value: the code generator says
  Loc at = f.body.back()->loc;
  for (Stmt *r : returns) {
    r->kind = Stmt::Assign;
    r->names = {{kReturnName, r->loc}};
  }
  auto ret = std::make_unique<Stmt>(Stmt::Return, at);
  ret->value = std::make_unique<Expr>(Expr::Name, at);
  ret->value->name = kReturnName;
  f.body.push_back(std::move(ret));
}

} // namespace

std::optional<Loc> kite::ast::normalizeReturns(Module &module) {
  std::optional<Loc> tooDeep;
  for (auto &f : module.functions)
    if (normalize(*f, tooDeep); tooDeep)
      break;
  return tooDeep;
}
