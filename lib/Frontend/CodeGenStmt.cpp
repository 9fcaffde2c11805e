//===- CodeGenStmt.cpp - Statements and kernels ------------------------------===//
//
// Statements: assignments, for/while/static_range loops and if (with the
// variables they carry), helper inlining, constexpr -D values, and the
// kernel function itself.
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
  if (isBuiltin(name) || dtypeNamed(name))
    fail(l, "cannot assign to '" + name + "': it names a builtin");
  auto it = scope->find(name);
  if (it != scope->end() && constexprNames.count(name) &&
      scope == kernelScope)
    fail(l, "cannot assign to constexpr parameter '" + name + "'");
  (*scope)[name] = std::move(v);
}

void CodeGen::statement(const Stmt &s) {
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
      assign(s.names[0].first, s.names[0].second, std::move(v));
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
    return ifStatement(s);
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

void CodeGen::ifStatement(const Stmt &s) {
  Val cond = expr(*s.value);
  if (cond.isConst()) { // resolved at compile time
    bool taken = cond.kind == Val::Float ? cond.f != 0 : cond.i != 0;
    for (auto &st : taken ? s.body : s.orelse)
      statement(*st);
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
    for (auto &st : body)
      statement(*st);
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

Val CodeGen::parseDefine(const std::string &text, Loc l, const std::string &name) {
  char *end = nullptr;
  errno = 0;
  long long iv = std::strtoll(text.c_str(), &end, 0);
  if (!text.empty() && *end == 0 && errno == 0)
    return Val::integer(iv);
  double dv = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == 0)
    return Val::floating(dv);
  if (text == "True" || text == "False")
    return Val::boolean(text == "True");
  fail(l, "-D " + name + "=" + text + ": not a number");
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

void CodeGen::kernel(const Function &f) {
  // @autotune(configs=[config(NAME=value, ..., num_warps=W, num_stages=S),
  // ...], key=["M", ...]): read as written here; checked against the
  // parameters below; kept on the kernel as kite.autotune/kite.autotune_key
  // for the runtime, which compiles and times each configuration.
  std::vector<ConfigValues> configs;
  std::vector<std::pair<std::string, Loc>> tuneKey;
  std::vector<Loc> configLocs;
  bool sawConfigs = false;
  for (auto &[key, value] : f.autotuneArgs) {
    if (key == "configs") {
      sawConfigs = true;
      if (value->kind != Expr::Tuple || value->args.empty())
        fail(value->loc, "configs must be a non-empty list of config(...)");
      for (const ExprPtr &c : value->args) {
        const Expr *callee = c->kind == Expr::Call ? c->args[0].get() : nullptr;
        bool isConfig =
            callee && ((callee->kind == Expr::Name && callee->name == "config") ||
                       (callee->kind == Expr::Attribute &&
                        (callee->name == "config" || callee->name == "Config")));
        if (!isConfig || c->args.size() != 1)
          fail(c->loc, "each config is config(NAME=value, ..., num_warps=W, "
                       "num_stages=S) with keyword arguments only");
        ConfigValues values;
        std::set<std::string> names;
        for (auto &[name, v] : c->kwargs) {
          auto lit = literal(*v);
          if (!lit)
            fail(v->loc, "config value of '" + name + "' must be a number");
          if (!names.insert(name).second)
            fail(v->loc, "config sets '" + name + "' twice");
          values.emplace_back(name, *lit);
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
    } else {
      fail(value->loc, "unknown @autotune argument '" + key +
                           "' (known: configs, key)");
    }
  }
  if (f.autotune && !sawConfigs)
    fail(f.autotuneLoc, "@autotune needs configs=[config(...), ...]");
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
  for (const Param &p : f.params) {
    if (!seen.insert(p.name).second)
      fail(p.loc, "duplicate parameter '" + p.name + "'");
    if (!p.type)
      fail(p.loc, "kernel parameter '" + p.name + "' needs a type: *f32, "
                  "i32, f32, ... or constexpr");
    const Expr &t = *p.type;
    if (t.kind == Expr::Name && t.name == "constexpr") {
      constexprNames.insert(p.name);
      auto d = options.defines.find(p.name);
      if (d != options.defines.end())
        top[p.name] = parseDefine(d->second, p.loc, p.name);
      else if (!configs.empty() && configValue(chosen < 0 ? 0 : chosen, p.name))
        top[p.name] = *configValue(chosen < 0 ? 0 : chosen, p.name); // the
                                                  // chosen (or first) config's
      else if (p.deflt)
        top[p.name] = expr(*p.deflt);
      else
        fail(p.loc, "constexpr parameter '" + p.name + "' of kernel '" +
                        f.name + "' has no value: give it a default or "
                        "pass -D " + p.name + "=VALUE");
      if (!top[p.name].isConst())
        fail(p.loc, "constexpr parameter '" + p.name +
                        "' must be a number or a bool");
      continue;
    }
    if (p.deflt)
      fail(p.deflt->loc, "only constexpr parameters take defaults");
    Type type;
    bool uns = false;
    if (t.kind == Expr::Call && t.args[0]->kind == Expr::Name &&
        t.args[0]->name == "tensor_descriptor") {
      // `NAME: tensor_descriptor(dtype, [B0, B1, ...])`: a descriptor the
      // host makes (kite::TensorDescriptor), passed as its base pointer,
      // sizes and strides (i32); the block shape may name constexprs.
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
      argTypes.push_back(kd::PointerType::get(ctx, *pointee));
      runtimeParams.push_back(&p);
      unsignedParams.push_back(uns);
      argNames.push_back(p.name);
      for (const char *part : {"shape", "strides"})
        for (size_t k = 0; k < rank; ++k) {
          argTypes.push_back(b.getI32Type());
          runtimeParams.push_back(&p);
          unsignedParams.push_back(false);
          argNames.push_back(p.name + "." + part + std::to_string(k));
        }
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
    argTypes.push_back(type);
    runtimeParams.push_back(&p);
    unsignedParams.push_back(uns);
    argNames.push_back(p.name);
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
      if (!runtime)
        fail(l, "key names '" + name + "', which is not a runtime parameter "
                "of kernel '" + f.name + "'");
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
    for (auto &s : f.body)
      statement(*s);
  } catch (CodeGenError &) {
    func.erase();
    throw;
  }
  func::ReturnOp::create(b, loc(f.loc));
}

} // namespace kite::frontend
