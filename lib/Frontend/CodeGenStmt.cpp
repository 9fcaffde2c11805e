//===- CodeGenStmt.cpp - Statements ------------------------------------------===//
//
// Statements: assignments, for/while/static_range loops and if (with the
// variables they carry) and helper inlining. The kernel function itself
// (its signature, constexprs and -D values, @kernel and @autotune) is in
// CodeGenKernel.cpp.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace kite::frontend {

Val CodeGen::inlineHelper(const Function &f, const Expr &call) {
  std::vector<const char *> names;
  for (const Param &p : f.params)
    names.push_back(p.name.c_str());
  size_t required = 0;
  while (required < f.params.size() && !f.params[required].deflt)
    ++required;
  Args a = bindArgs(call, f.name, names, required);
  std::vector<Val> values;
  for (size_t k = 0; k < f.params.size(); ++k) {
    if (!a.given[k] && !f.params[k].deflt) // the parser rules it out
      fail(call.loc,
           "'" + f.name + "' needs an argument for '" + f.params[k].name + "'");
    values.push_back(a.given[k] ? a.values[k] : expr(*f.params[k].deflt));
  }
  return inlineHelperWith(f, values, call.loc);
}

Val CodeGen::inlineHelperWith(const Function &f, const std::vector<Val> &values,
                              Loc callLoc) {
  if (++inlineDepth > 64)
    fail(callLoc, "helper calls nested more than 64 deep (recursion?)");
  countExpansion(callLoc);
  Scope inner;
  for (size_t k = 0; k < f.params.size() && k < values.size(); ++k)
    inner[f.params[k].name] = values[k];
  Scope *saved = scope;
  scope = &inner;
  std::optional<Val> result;
  try {
    for (size_t k = 0; k < f.body.size(); ++k) {
      const Stmt &s = *f.body[k];
      if (s.kind == Stmt::Return) {
        if (k + 1 != f.body.size())
          fail(s.loc, "'return' must be the last statement of a helper");
        result = s.value ? expr(*s.value) : Val();
        break;
      }
      statement(s);
    }
  } catch (CodeGenError &) {
    scope = saved;
    --inlineDepth;
    emitError(loc(callLoc)) << "note: in the call of '" << f.name << "'";
    throw;
  }
  scope = saved;
  --inlineDepth;
  return result ? *result : Val();
}

void CodeGen::assign(const std::string &name, Loc l, Val v) {
  // A builtin's or a dtype's name is an ordinary name to assign, as in
  // Python (Triton's are tl.-qualified: `program_id = tl.program_id(0)`);
  // from here on it means the local (a call of it is then an error).
  auto it = scope->find(name);
  if (it != scope->end() && constexprNames.count(name) &&
      scope == kernelScope)
    fail(l, "cannot assign to constexpr parameter '" + name + "'");
  if (it != scope->end() && it->second.constexprBound)
    fail(l, "cannot assign to constexpr '" + name +
                "': a constexpr is bound once");
  v.constexprBound = false; // a copy of a constexpr is an ordinary name
  (*scope)[name] = std::move(v);
}

void CodeGen::statement(const Stmt &s) {
  bool tail = atTail;
  atTail = false;
  switch (s.kind) {
  case Stmt::Pass:
    return;
  case Stmt::Return:
    if (inlineDepth == 0) {
      if (s.value)
        fail(s.loc, "kernels cannot return a value");
      fail(s.loc, "'return' in a kernel is not supported; guard the code "
                  "with masks or 'if'");
    }
    fail(s.loc, "'return' must be the last statement of a helper");
  case Stmt::ExprStmt: {
    expr(*s.value);
    return;
  }
  case Stmt::Assign: {
    Val v = expr(*s.value);
    if (s.annotation && s.annotation->kind == Expr::Name &&
        s.annotation->name == "constexpr") {
      // As Triton: a constexpr is bound once, to a compile-time value.
      const auto &[name, loc] = s.names[0];
      if (!v.isConst())
        fail(s.value->loc, "the value of constexpr '" + name +
                               "' is not a compile-time constant (" +
                               describe(v) + ", computed at run time)");
      if (scope->count(name))
        fail(loc, "constexpr '" + name + "' is already defined; a "
                  "constexpr cannot be reassigned");
    }
    if (!s.op.empty()) {
      Val old = lookup(s.names[0].first, s.names[0].second);
      v = binary(s.op, old, v, s.loc);
    }
    if (s.names.size() == 1) {
      bool declared = s.annotation && s.annotation->kind == Expr::Name &&
                      s.annotation->name == "constexpr";
      assign(s.names[0].first, s.names[0].second, std::move(v));
      if (declared)
        (*scope)[s.names[0].first].constexprBound = true;
      return;
    }
    if (v.kind != Val::Tuple || v.elems.size() != s.names.size())
      fail(s.loc, "cannot unpack " + describe(v) + " into " +
                      std::to_string(s.names.size()) + " names");
    for (size_t k = 0; k < s.names.size(); ++k)
      assign(s.names[k].first, s.names[k].second, v.elems[k]);
    return;
  }
  case Stmt::For:
    return forLoop(s);
  case Stmt::If:
    return ifStatement(s, tail);
  case Stmt::While:
    return whileLoop(s);
  }
}

void CodeGen::loopCarried(const Stmt &s, const std::string &loopVariable,
                          std::vector<std::string> &carried,
                          SmallVector<mlir::Value> &inits) {
  std::vector<std::string> assigned;
  assignedIn(s.body, assigned);
  for (const std::string &n : assigned) {
    auto found = scope->find(n);
    if (found == scope->end() || n == loopVariable)
      continue;
    Val &v = found->second;
    if (v.isConst()) // a constant changed by the loop becomes a value
      v = Val::runtime(runtime(v, s.loc));
    if (v.kind == Val::BlockPtr) {
      // A block pointer (advanced in the loop): each of its scalars.
      for (size_t k = 0; k < v.elems.size(); ++k) {
        Val &x = v.elems[k];
        if (x.isConst())
          x = Val::runtime(runtime(x, s.loc));
        carried.push_back(n + '\x1f' + std::to_string(k));
        inits.push_back(x.v);
      }
      continue;
    }
    if (v.kind != Val::Runtime)
      continue;
    carried.push_back(n);
    inits.push_back(v.v);
  }
}

Val &CodeGen::carriedSlot(const std::string &key, Loc l) {
  return slotIn(*scope, key, l);
}

Val &CodeGen::slotIn(Scope &sc, const std::string &key, Loc l) {
  size_t sep = key.find('\x1f');
  if (sep == std::string::npos)
    return sc[key];
  std::string name = key.substr(0, sep);
  size_t k = std::stoul(key.substr(sep + 1));
  Val &v = sc[name];
  if (v.kind != Val::BlockPtr || k >= v.elems.size())
    fail(l, "'" + name + "' is a block pointer before but " + describe(v) +
                " after (a block pointer stays one)");
  return v.elems[k];
}

SmallVector<mlir::Value>
CodeGen::loopYields(const Stmt &s, ArrayRef<std::string> carried,
                    ArrayRef<Type> types, ArrayRef<bool> uns) {
  SmallVector<mlir::Value> yields;
  for (size_t k = 0; k < carried.size(); ++k) {
    Val v = carriedSlot(carried[k], s.loc);
    Type want = types[k];
    mlir::Value y = v.kind == Val::Runtime ? v.v : Value();
    if (v.isConst())
      y = materialize(v, elemOf(want), s.loc);
    std::string name = carried[k].substr(0, carried[k].find('\x1f'));
    if (!y)
      fail(s.loc, "'" + name + "' changes kind inside the loop");
    // A scalar assigned to a carried block is splat; types never change.
    if (y.getType() != want && shapeOf(y.getType()).empty() &&
        elemOf(y.getType()) == elemOf(want))
      y = broadcastTo(y, shapeOf(want), s.loc);
    bool yu = v.kind == Val::Runtime ? v.uns : uns[k];
    if (y.getType() != want || (isInt(want) && yu != uns[k]))
      fail(s.loc, "loop-carried '" + name + "' is " + typeName(want, uns[k]) +
                      " before the loop but " + typeName(y.getType(), yu) +
                      " after an iteration" +
                      (yu != uns[k] ? " (give it its type before the loop, "
                                      "e.g. x = full((), 0, u32))"
                                    : ""));
    yields.push_back(y);
  }
  return yields;
}

void CodeGen::whileLoop(const Stmt &s) {
  std::vector<std::string> carried;
  SmallVector<mlir::Value> inits;
  loopCarried(s, /*loopVariable=*/"", carried, inits);
  SmallVector<bool> uns; // each carried value's signedness
  for (const std::string &k : carried)
    uns.push_back(carriedSlot(k, s.loc).uns);
  SmallVector<Type> types;
  for (mlir::Value v : inits)
    types.push_back(v.getType());
  Location lc = loc(s.loc);
  auto loop = scf::WhileOp::create(b, lc, types, inits);
  Scope saved = *scope;
  SmallVector<Location> locs(types.size(), lc);
  {
    // Before: the condition on the current values.
    OpBuilder::InsertionGuard guard(b);
    mlir::Block *before = b.createBlock(&loop.getBefore(), {}, types, locs);
    for (size_t k = 0; k < carried.size(); ++k)
      carriedSlot(carried[k], s.loc) =
          Val::runtime(before->getArgument(k), uns[k]);
    Val cond = expr(*s.value);
    if (cond.isConst())
      fail(s.value->loc, "the while condition is a constant; the loop would "
                         "run never or forever (Kite has no break)");
    if (cond.kind != Val::Runtime ||
        isa<RankedTensorType>(cond.v.getType()))
      fail(s.value->loc, "'while' needs a scalar condition, got " +
                             describe(cond));
    mlir::Value c = cond.v;
    if (!c.getType().isInteger(1))
      c = cast(c, b.getI1Type(), s.value->loc);
    scf::ConditionOp::create(b, lc, c, before->getArguments());
  }
  {
    // After: the body, then the new values.
    OpBuilder::InsertionGuard guard(b);
    mlir::Block *after = b.createBlock(&loop.getAfter(), {}, types, locs);
    *scope = saved;
    for (size_t k = 0; k < carried.size(); ++k)
      carriedSlot(carried[k], s.loc) =
          Val::runtime(after->getArgument(k), uns[k]);
    for (auto &st : s.body)
      statement(*st);
    scf::YieldOp::create(b, lc, loopYields(s, carried, types, uns));
  }
  *scope = saved;
  for (size_t k = 0; k < carried.size(); ++k)
    carriedSlot(carried[k], s.loc) = Val::runtime(loop.getResult(k), uns[k]);
}

void CodeGen::assignedIn(const ::kite::ast::Block &block, std::vector<std::string> &out) {
  for (auto &s : block) {
    if (s->kind == Stmt::Assign || s->kind == Stmt::For)
      for (auto &n : s->names)
        if (std::find(out.begin(), out.end(), n.first) == out.end())
          out.push_back(n.first);
    assignedIn(s->body, out);
    assignedIn(s->orelse, out);
  }
}

void CodeGen::staticLoop(const Stmt &s) {
  const Expr &r = *s.value;
  Args a = bindArgs(r, "static_range", {"start", "stop", "step"}, 1);
  int64_t start = 0, stop, step = 1;
  if (a.given[1]) {
    start = constInt(a.values[0], a.locs[0], "static_range()'s start");
    stop = constInt(a.values[1], a.locs[1], "static_range()'s stop");
  } else {
    stop = constInt(a.values[0], a.locs[0], "static_range()'s stop");
  }
  if (a.given[2])
    step = constInt(a.values[2], a.locs[2], "static_range()'s step");
  if (step == 0)
    fail(a.locs[2], "static_range() step must not be 0");
  int64_t count = step > 0 ? (stop - start + step - 1) / step
                           : (start - stop - step - 1) / -step;
  if (count > 4096)
    fail(r.loc, "static_range() of " + std::to_string(count) +
                    " iterations; at most 4096 are unrolled (use range())");
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    countExpansion(r.loc);
    (*scope)[s.names[0].first] = Val::integer(i);
    for (auto &st : s.body)
      statement(*st);
  }
}

void CodeGen::forLoop(const Stmt &s) {
  const Expr &r = *s.value;
  if (r.kind == Expr::Call && r.args[0]->kind == Expr::Name &&
      r.args[0]->name == "static_range")
    return staticLoop(s);
  if (r.kind != Expr::Call || r.args[0]->kind != Expr::Name ||
      r.args[0]->name != "range")
    fail(r.loc, "for loops iterate over range(...) or static_range(...) "
                "only");
  // Triton's tl.range keywords: num_stages (the loop's dot pipeline depth),
  // flatten (accepted, no effect: a producer warp is what loads across
  // tiles), warp_specialize (a producer warp for the copies of the loop's
  // dot, or of the K loop inside a tile loop), loop_unroll_factor (the
  // body copied N times: kite-unroll-loops), disallow_acc_multi_buffer
  // (accepted: Kite keeps one accumulator); and Kite's ping_pong (on a
  // tile loop with a producer warp: two consumer groups take turns).
  Args a = bindArgs(r, "range",
                    {"start", "stop", "step", "num_stages", "flatten",
                     "warp_specialize", "ping_pong", "loop_unroll_factor",
                     "disallow_acc_multi_buffer"},
                    1);
  Val start = Val::integer(0), stop = a.values[0], step = Val::integer(1);
  if (a.given[1]) {
    start = a.values[0];
    stop = a.values[1];
  }
  if (a.given[2])
    step = a.values[2];
  if (step.kind == Val::Int && step.i <= 0)
    fail(a.locs[2], "range() step must be positive");
  for (const Val *v : {&start, &stop, &step})
    if (v->kind == Val::Runtime && (!v->v.getType().isSignlessInteger() ||
                                    isa<RankedTensorType>(v->v.getType())))
      fail(r.loc, "range() bounds must be integer scalars");
  Type it = b.getI32Type();
  for (const Val *v : {&start, &stop, &step})
    if (v->kind == Val::Runtime && v->v.getType().isInteger(64))
      it = b.getI64Type();
  Location lc = loc(s.loc);
  mlir::Value lo = cast(materialize(start, it, r.loc), it, r.loc);
  mlir::Value hi = cast(materialize(stop, it, r.loc), it, r.loc);
  mlir::Value st = cast(materialize(step, it, r.loc), it, r.loc);

  std::vector<std::string> carried;
  SmallVector<mlir::Value> inits;
  loopCarried(s, s.names[0].first, carried, inits);
  auto loop = scf::ForOp::create(b, lc, lo, hi, st, inits);
  if (a.given[3]) {
    int64_t stages = constInt(a.values[3], a.locs[3], "range()'s num_stages");
    if (stages < 1 || stages > 8)
      fail(a.locs[3], "range()'s num_stages must be in [1, 8], got " +
                          std::to_string(stages));
    loop->setAttr(mlir::kite::KiteDialect::getNumStagesAttrName(),
                  b.getI32IntegerAttr(int32_t(stages)));
  }
  if (a.given[4])
    (void)constInt(a.values[4], a.locs[4], "range()'s flatten");
  if (a.given[5])
    loop->setAttr(mlir::kite::KiteDialect::getWarpSpecializeAttrName(),
                  b.getBoolAttr(constInt(a.values[5], a.locs[5],
                                         "range()'s warp_specialize") != 0));
  if (a.given[6])
    loop->setAttr(mlir::kite::KiteDialect::getPingPongAttrName(),
                  b.getBoolAttr(constInt(a.values[6], a.locs[6],
                                         "range()'s ping_pong") != 0));
  if (a.given[7] && a.values[7].kind != Val::None) {
    int64_t factor =
        constInt(a.values[7], a.locs[7], "range()'s loop_unroll_factor");
    if (factor < 1 || factor > 64)
      fail(a.locs[7], "range()'s loop_unroll_factor must be in [1, 64], got " +
                          std::to_string(factor));
    if (factor > 1)
      loop->setAttr(mlir::kite::KiteDialect::getLoopUnrollFactorAttrName(),
                    b.getI32IntegerAttr(int32_t(factor)));
  }
  if (a.given[8])
    (void)constInt(a.values[8], a.locs[8],
                   "range()'s disallow_acc_multi_buffer");
  // Without carried values the builder adds an empty scf.yield; the one
  // built below replaces it.
  if (loop.getBody()->mightHaveTerminator())
    loop.getBody()->getTerminator()->erase();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Scope saved = *scope;
  (*scope)[s.names[0].first] = Val::runtime(loop.getInductionVar());
  SmallVector<bool> uns; // each carried value's signedness
  for (const std::string &k : carried)
    uns.push_back(carriedSlot(k, s.loc).uns);
  for (size_t k = 0; k < carried.size(); ++k)
    carriedSlot(carried[k], s.loc) =
        Val::runtime(loop.getRegionIterArgs()[k], uns[k]);
  for (auto &st2 : s.body)
    statement(*st2);
  SmallVector<Type> types;
  for (mlir::Value v : inits)
    types.push_back(v.getType());
  scf::YieldOp::create(b, lc, loopYields(s, carried, types, uns));
  // After the loop: carried values are the loop's results; names first
  // assigned inside the loop are not visible.
  *scope = saved;
  for (size_t k = 0; k < carried.size(); ++k)
    carriedSlot(carried[k], s.loc) = Val::runtime(loop.getResult(k), uns[k]);
}

void CodeGen::ifStatement(const Stmt &s, bool tail) {
  Val cond = expr(*s.value);
  if (cond.isConst()) { // resolved at compile time
    bool taken = cond.kind == Val::Float ? cond.f != 0 : cond.i != 0;
    const ::kite::ast::Block &body = taken ? s.body : s.orelse;
    for (size_t i = 0; i < body.size(); ++i) {
      atTail = tail && i + 1 == body.size();
      statement(*body[i]);
    }
    return;
  }
  if (cond.kind != Val::Runtime || isa<RankedTensorType>(cond.v.getType()))
    fail(s.value->loc, "'if' needs a scalar condition (use where() or masks "
                       "for blocks), got " + describe(cond));
  mlir::Value c = cond.v;
  if (!c.getType().isInteger(1))
    c = cast(c, b.getI1Type(), s.value->loc);
  std::vector<std::string> assigned;
  assignedIn(s.body, assigned);
  assignedIn(s.orelse, assigned);
  // Names visible before the if and assigned in a branch are its results.
  std::vector<std::string> results;
  for (const std::string &n : assigned) {
    auto found = scope->find(n);
    if (found == scope->end())
      continue;
    // The rest of a kernel after an early return (an if that took the
    // rest, at the kernel's tail): nothing after it reads what it assigns.
    if (tail && s.tookRest && n != ::kite::ast::kReturnName)
      continue;
    Val &v = found->second;
    if (v.isConst())
      v = Val::runtime(runtime(v, s.loc));
    if (v.kind == Val::Runtime) {
      results.push_back(n);
    } else if (v.kind == Val::BlockPtr) {
      // Each scalar of a block pointer (advanced in a branch).
      for (size_t k = 0; k < v.elems.size(); ++k) {
        if (v.elems[k].isConst())
          v.elems[k] = Val::runtime(runtime(v.elems[k], s.loc));
        results.push_back(n + '\x1f' + std::to_string(k));
      }
    } else {
      fail(s.loc, "'" + n + "' (" + describe(v) +
                      ") is assigned in a branch of an 'if' on a runtime "
                      "condition; only numbers, blocks and block pointers "
                      "can be (the branch taken is known only when the "
                      "kernel runs)");
    }
  }
  Location lc = loc(s.loc);
  Scope before = *scope;
  auto emitBranch = [&](const ::kite::ast::Block &body, Scope &out) {
    *scope = before;
    for (size_t i = 0; i < body.size(); ++i) {
      atTail = tail && i + 1 == body.size();
      statement(*body[i]);
    }
    out = *scope;
  };
  SmallVector<Type> types;
  SmallVector<bool> uns; // each result's signedness
  for (const std::string &n : results) {
    types.push_back(slotIn(before, n, s.loc).v.getType());
    uns.push_back(slotIn(before, n, s.loc).uns);
  }
  auto ifOp = scf::IfOp::create(b, lc, types, c, /*withElse=*/true);
  Scope thenScope, elseScope;
  auto finish = [&](mlir::Block *block, const ::kite::ast::Block &body, Scope &out) {
    OpBuilder::InsertionGuard guard(b);
    if (types.empty()) {
      b.setInsertionPoint(block->getTerminator());
      emitBranch(body, out);
      return;
    }
    b.setInsertionPointToStart(block);
    emitBranch(body, out);
    SmallVector<mlir::Value> yields;
    for (size_t k = 0; k < results.size(); ++k) {
      Val v = slotIn(out, results[k], s.loc);
      std::string name = results[k].substr(0, results[k].find('\x1f'));
      mlir::Value y = v.kind == Val::Runtime ? v.v : Value();
      if (v.isConst())
        y = materialize(v, elemOf(types[k]), s.loc);
      if (y && y.getType() != types[k] && shapeOf(y.getType()).empty() &&
          elemOf(y.getType()) == elemOf(types[k]))
        y = broadcastTo(y, shapeOf(types[k]), s.loc);
      bool yu = v.kind == Val::Runtime ? v.uns : uns[k];
      if (!y || y.getType() != types[k] || (isInt(types[k]) && yu != uns[k]))
        fail(s.loc, "'" + name + "' is " + typeName(types[k], uns[k]) +
                        " before the 'if' but " +
                        (y ? typeName(y.getType(), yu) : describe(v)) +
                        " in a branch");
      yields.push_back(y);
    }
    scf::YieldOp::create(b, lc, yields);
  };
  finish(ifOp.thenBlock(), s.body, thenScope);
  finish(ifOp.elseBlock(), s.orelse, elseScope);
  // Names first assigned in both branches are visible after the if, as in
  // Python (`if c: r = a` / `else: r = b`; a helper's returns from both
  // branches, Returns.cpp): more results, of the type both give them.
  std::vector<std::string> inThen, inElse, fresh;
  assignedIn(s.body, inThen);
  assignedIn(s.orelse, inElse);
  for (const std::string &n : inThen)
    if (!before.count(n) && thenScope.count(n) && elseScope.count(n) &&
        llvm::is_contained(inElse, n) && !llvm::is_contained(fresh, n))
      fresh.push_back(n);
  llvm::erase_if(fresh, [&](const std::string &n) {
    auto usable = [](const Val &v) {
      return v.kind == Val::Runtime || v.kind == Val::Int ||
             v.kind == Val::Float || v.kind == Val::Bool;
    };
    const Val &tv = thenScope[n], &ev = elseScope[n];
    if (!usable(tv) || !usable(ev))
      return true;
    if (n == ::kite::ast::kReturnName)
      return false; // a mismatch is the helper's error, below
    // Other names of different types in the two branches are not visible
    // after the if (a temporary of each branch), as before.
    auto fits = [&](const Val &runtime, const Val &other) {
      Type t = runtime.v.getType();
      if (other.kind == Val::Runtime)
        return other.v.getType() == t && other.uns == runtime.uns;
      Type e = elemOf(t);
      return isa<FloatType>(e) ||
             (isa<IntegerType>(e) && other.kind != Val::Float);
    };
    if (tv.kind == Val::Runtime)
      return !fits(tv, ev);
    if (ev.kind == Val::Runtime)
      return !fits(ev, tv);
    return false;
  });
  if (!fresh.empty()) {
    SmallVector<Type> all(types.begin(), types.end());
    SmallVector<mlir::Value> thenYields, elseYields;
    for (const std::string &n : fresh) {
      const Val &tv = thenScope[n], &ev = elseScope[n];
      Type t;
      bool u = false;
      if (tv.kind == Val::Runtime) {
        t = tv.v.getType();
        u = tv.uns;
      } else if (ev.kind == Val::Runtime) {
        t = ev.v.getType();
        u = ev.uns;
      } else {
        t = tv.kind == Val::Float || ev.kind == Val::Float
                ? Type(b.getF32Type())
                : Type(b.getI32Type());
      }
      auto yieldOf = [&](mlir::Block *block, const Val &v) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(block->getTerminator());
        mlir::Value y =
            v.kind == Val::Runtime ? v.v : materialize(v, elemOf(t), s.loc);
        if (y.getType() != t && shapeOf(y.getType()).empty() &&
            elemOf(y.getType()) == elemOf(t))
          y = broadcastTo(y, shapeOf(t), s.loc);
        if (y.getType() != t ||
            (isInt(t) && v.kind == Val::Runtime && v.uns != u))
          fail(s.loc, (n == ::kite::ast::kReturnName
                           ? std::string("the helper returns ")
                           : "'" + n + "' is ") +
                          typeName(t, u) + " in one branch of the 'if' and " +
                          typeName(y.getType(), v.uns) + " in the other");
        return y;
      };
      thenYields.push_back(yieldOf(ifOp.thenBlock(), tv));
      elseYields.push_back(yieldOf(ifOp.elseBlock(), ev));
      all.push_back(t);
      uns.push_back(u);
    }
    auto wider = scf::IfOp::create(b, lc, all, c, /*withElse=*/true);
    for (auto [from, to, extra] :
         {std::make_tuple(&ifOp.getThenRegion(), &wider.getThenRegion(),
                          &thenYields),
          std::make_tuple(&ifOp.getElseRegion(), &wider.getElseRegion(),
                          &elseYields)}) {
      to->takeBody(*from);
      Operation *yield = to->front().getTerminator();
      SmallVector<mlir::Value> operands(yield->getOperands());
      operands.append(extra->begin(), extra->end());
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(yield);
      scf::YieldOp::create(b, yield->getLoc(), operands);
      yield->erase();
    }
    ifOp->replaceAllUsesWith(
        wider->getResults().take_front(ifOp->getNumResults()));
    ifOp->erase();
    ifOp = wider;
  }
  *scope = before;
  for (size_t k = 0; k < results.size(); ++k)
    carriedSlot(results[k], s.loc) = Val::runtime(ifOp.getResult(k), uns[k]);
  for (size_t k = 0; k < fresh.size(); ++k)
    (*scope)[fresh[k]] = Val::runtime(ifOp.getResult(results.size() + k),
                                      uns[results.size() + k]);
}

} // namespace kite::frontend
