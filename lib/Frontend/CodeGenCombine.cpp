//===- CodeGenCombine.cpp - reduce and associative_scan with a combine fn
//--===//
//
// Triton's tl.reduce(input, axis, combine_fn, keep_dims=False) and
// tl.associative_scan(input, axis, combine_fn, reverse=False): combine_fn
// is a helper function of two scalars (`def add(a, b): return a + b`),
// inlined into the op's `combine` region (kite.reduce custom / kite.scan
// custom) with the two block arguments as its parameters. It may only
// compute with them (arith and math ops): no memory, no grid queries. The
// GPU combines in a tree, so the function must be associative (reduce:
// and commutative), as in Triton. Both also take a tuple of blocks of one
// shape (Welford's mean, M2 and count; a running maximum with its index):
// combine_fn then takes the two sides' elements (a0, a1, ..., b0, b1, ...)
// and returns a tuple, and the result is a tuple.
//
//===----------------------------------------------------------------------===//

// map_elementwise(scalar_fn, *args, pack=1) (Triton's tl.map_elementwise):
// scalar_fn is inlined once into a kite.map_elementwise body, its block
// arguments (broadcast to one shape) one element each, numbers and runtime
// scalars passed as they are; it may branch on its elements (an `if` is an
// scf.if in the body: only the taken branch runs), and return one value or
// a tuple.

#include "CodeGen.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace kite::frontend {

Val CodeGen::combineBuiltin(const std::string &n, const Expr &e) {
  bool scan = n == "associative_scan";
  Args a = bindArgs(e, n,
                    {"input", "axis", "combine_fn",
                     scan ? "reverse" : "keep_dims"},
                    3);
  // The blocks combined: one, or (reduce) a tuple of blocks of one shape.
  const Val &input = a.values[0];
  std::vector<Val> ins;
  if (input.kind == Val::Tuple) {
    if (input.elems.empty())
      fail(a.locs[0], n + "() of an empty tuple");
    ins = input.elems;
  } else {
    ins.push_back(input);
  }
  for (const Val &in : ins) {
    if (in.kind != Val::Runtime || !isa<RankedTensorType>(in.v.getType()))
      fail(a.locs[0], n + "() needs a block" +
                          (ins.size() > 1 ? " in each place of the tuple"
                                          : std::string()) +
                          ", got " + describe(in));
    Type elem = llvm::cast<RankedTensorType>(in.v.getType()).getElementType();
    if (elem.isInteger(1) || isa<kd::PointerType>(elem))
      fail(a.locs[0], n + "() combines numbers, got " + describe(in));
  }
  auto type = llvm::cast<RankedTensorType>(ins[0].v.getType());
  for (const Val &in : ins)
    if (llvm::cast<RankedTensorType>(in.v.getType()).getShape() !=
        type.getShape())
      fail(a.locs[0], n + "() of a tuple needs blocks of one shape, got " +
                          describe(ins[0]) + " and " + describe(in));
  SmallVector<Type> elems;
  for (const Val &in : ins)
    elems.push_back(
        llvm::cast<RankedTensorType>(in.v.getType()).getElementType());
  int64_t rank = type.getRank();
  int64_t axis = axisArg(a.values[1], a.locs[1], rank, "the axis");
  const Val &fnVal = a.values[2];
  if (fnVal.kind != Val::Helper || !fnVal.fn)
    fail(a.locs[2], n + "()'s combine_fn must be a function defined in this "
                        "file (def combine(a, b): ...), got " +
                        describe(fnVal));
  const Function &fn = *fnVal.fn;
  const size_t count = ins.size();
  if (fn.params.size() != 2 * count)
    fail(a.locs[2],
         "combine function '" + fn.name + "' must take " +
             (count == 1 ? std::string("two parameters (one "
                                       "element each)")
                         : std::to_string(2 * count) +
                               " parameters (two sides of the " +
                               std::to_string(count) + " elements)") +
             ", it takes " + std::to_string(fn.params.size()));
  bool flag = false;
  if (a.given[3]) {
    const Val &f = a.values[3];
    if (f.kind != Val::Bool && f.kind != Val::Int)
      fail(a.locs[3], std::string(n) + "()'s " +
                          (scan ? "reverse" : "keep_dims") +
                          " must be True or False");
    flag = f.i != 0;
  }

  Location lc = loc(e.loc);
  Operation *op;
  Region *region;
  SmallVector<int64_t> out(type.getShape());
  out.erase(out.begin() + axis);
  SmallVector<mlir::Value> srcs;
  for (const Val &in : ins)
    srcs.push_back(in.v);
  if (scan) {
    auto s = kd::ScanOp::create(
        b, lc, srcs, kd::ScanKindAttr::get(ctx, kd::ScanKind::Custom),
        b.getI32IntegerAttr(axis), flag ? b.getUnitAttr() : UnitAttr());
    op = s;
    region = &s.getCombiner();
  } else {
    SmallVector<Type> resultTypes;
    for (Type elem : elems)
      resultTypes.push_back(withShape(elem, out));
    auto r = kd::ReduceOp::create(
        b, lc, resultTypes, srcs,
        kd::ReduceKindAttr::get(ctx, kd::ReduceKind::Custom),
        b.getI32IntegerAttr(axis));
    op = r;
    region = &r.getCombiner();
  }
  // The combine function, inlined on the region's arguments: the first
  // side's elements, then the second's.
  mlir::Block *block = new mlir::Block();
  region->push_back(block);
  std::vector<Val> params;
  for (int side = 0; side < 2; ++side)
    for (auto [in, elem] : llvm::zip(ins, elems))
      params.push_back(Val::runtime(block->addArgument(elem, lc), in.uns));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(block);
    Val r = inlineHelperWith(fn, params, e.loc);
    if (r.kind == Val::None)
      fail(a.locs[2], "combine function '" + fn.name + "' returns nothing");
    std::vector<Val> rs;
    if (count == 1)
      rs.push_back(r);
    else if (r.kind == Val::Tuple)
      rs = r.elems;
    if (rs.size() != count)
      fail(a.locs[2], "combine function '" + fn.name + "' must return " +
                          std::to_string(count) +
                          " elements (one for each "
                          "block of the tuple), got " +
                          describe(r));
    SmallVector<mlir::Value> yielded;
    for (size_t k = 0; k < count; ++k) {
      mlir::Value v = rs[k].kind == Val::Runtime
                          ? rs[k].v
                          : materialize(rs[k], elems[k], e.loc);
      if (isa<RankedTensorType>(v.getType()))
        fail(a.locs[2],
             "combine function '" + fn.name + "' must return " +
                 (count == 1 ? std::string("one element") : "elements") +
                 ", got " + describe(rs[k]));
      yielded.push_back(cast(v, elems[k], e.loc, rs[k].uns, ins[k].uns));
    }
    kd::YieldOp::create(b, lc, yielded);
  }
  for (Operation &inner : block->without_terminator())
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()))
      fail(a.locs[2], "combine function '" + fn.name +
                          "' may only compute with its arguments (arithmetic "
                          "and math), not '" +
                          inner.getName().getStringRef().str() + "'");
  std::vector<Val> results;
  for (auto [k, in] : llvm::enumerate(ins)) {
    mlir::Value result = op->getResult(k);
    if (!scan && flag) {
      // keep_dims: the reduced axis back as size 1.
      SmallVector<int64_t> kept(type.getShape());
      kept[axis] = 1;
      result = kd::ExpandDimsOp::create(b, lc, withShape(elems[k], kept),
                                        result, b.getI32IntegerAttr(axis));
    }
    results.push_back(Val::runtime(result, in.uns));
  }
  if (input.kind != Val::Tuple)
    return results[0];
  Val t;
  t.kind = Val::Tuple;
  t.elems = std::move(results);
  return t;
}

Val CodeGen::mapElementwiseBuiltin(const Expr &e) {
  const char *n = "map_elementwise";
  if (e.args.size() < 2)
    fail(e.loc, std::string(n) + "() needs a scalar function and its "
                                 "arguments: map_elementwise(fn, x, ...)");
  int64_t pack = 1;
  Loc packLoc = e.loc;
  for (const auto &[name, value] : e.kwargs) {
    if (name != "pack")
      fail(value->loc, std::string(n) + "() has no argument '" + name +
                           "' (it takes the function, its arguments and "
                           "pack=)");
    Val p = expr(*value);
    packLoc = value->loc;
    if (p.kind != Val::Int || p.i < 1 || p.i > 64 || (p.i & (p.i - 1)))
      fail(value->loc,
           std::string(n) +
               "(): pack must be a power of two in "
               "[1, 64], got " +
               (p.kind == Val::Int ? std::to_string(p.i) : describe(p)));
    pack = p.i;
  }
  Val fnVal = expr(*e.args[1]);
  if (fnVal.kind != Val::Helper || !fnVal.fn)
    fail(e.args[1]->loc, std::string(n) +
                             "()'s first argument must be a "
                             "function defined in this file, "
                             "got " +
                             describe(fnVal));
  const Function &fn = *fnVal.fn;
  std::vector<Val> args;
  std::vector<Loc> locs;
  for (size_t k = 2; k < e.args.size(); ++k) {
    args.push_back(expr(*e.args[k]));
    locs.push_back(e.args[k]->loc);
  }
  // With pack, the function takes `pack` values of each argument (Triton's
  // order: all of the first argument's, then the second's, ...).
  if (fn.params.size() != args.size() * size_t(pack))
    fail(e.args[1]->loc,
         "function '" + fn.name + "' takes " +
             std::to_string(fn.params.size()) + " parameters, " + n +
             "() gives it " + std::to_string(args.size() * size_t(pack)) +
             (pack > 1 ? " (" + std::to_string(pack) + " values of each of " +
                             std::to_string(args.size()) +
                             " arguments: pack=" + std::to_string(pack) + ")"
                       : std::string()));
  // The blocks' common shape.
  std::optional<SmallVector<int64_t>> shape;
  for (auto [a, l] : llvm::zip(args, locs)) {
    bool number = a.kind == Val::Int || a.kind == Val::Float ||
                  a.kind == Val::Bool || a.kind == Val::Runtime;
    if (!number)
      fail(l, std::string(n) + "() maps numbers and blocks of numbers, got " +
                  describe(a));
    if (a.kind != Val::Runtime)
      continue;
    auto type = dyn_cast<RankedTensorType>(a.v.getType());
    if (!type)
      continue;
    if (isa<kd::PointerType>(type.getElementType()))
      fail(l, std::string(n) + "() maps numbers, got " + describe(a));
    shape = shape ? broadcastShape(*shape, type.getShape(), l)
                  : SmallVector<int64_t>(type.getShape());
  }
  if (!shape && pack > 1)
    fail(packLoc, std::string(n) + "() with pack=" + std::to_string(pack) +
                      " maps blocks; every argument here is a number");
  if (!shape) // numbers only: the call itself
    return inlineHelperWith(fn, args, e.loc);
  int64_t numel = 1;
  for (int64_t d : *shape)
    numel *= d;
  if (numel % pack)
    fail(packLoc, std::string(n) + "(): pack=" + std::to_string(pack) +
                      " does not divide the blocks' " + std::to_string(numel) +
                      " elements");

  // The body: one argument per block; numbers and scalars as they are.
  Location lc = loc(e.loc);
  auto body = std::make_unique<mlir::Block>();
  SmallVector<mlir::Value> srcs;
  std::vector<Val> params;
  for (auto [a, l] : llvm::zip(args, locs)) {
    if (a.kind != Val::Runtime || !isa<RankedTensorType>(a.v.getType())) {
      for (int64_t j = 0; j < pack; ++j)
        params.push_back(a);
      continue;
    }
    srcs.push_back(broadcastTo(a.v, *shape, l));
    for (int64_t j = 0; j < pack; ++j)
      params.push_back(
          Val::runtime(body->addArgument(elemOf(a.v.getType()), lc), a.uns));
  }
  std::vector<Val> rs;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body.get());
    Val r = inlineHelperWith(fn, params, e.loc);
    if (r.kind == Val::None)
      fail(e.args[1]->loc, "function '" + fn.name + "' returns nothing");
    rs = r.kind == Val::Tuple ? r.elems : std::vector<Val>{r};
    SmallVector<mlir::Value> yielded;
    for (Val &v : rs) {
      mlir::Value y;
      if (v.kind == Val::Runtime && !isa<RankedTensorType>(v.v.getType()))
        y = v.v;
      else if (v.kind == Val::Int || v.kind == Val::Bool)
        y = materialize(
            v, v.kind == Val::Bool ? Type(b.getI1Type()) : Type(b.getI32Type()),
            e.loc);
      else if (v.kind == Val::Float)
        y = materialize(v, b.getF32Type(), e.loc);
      else
        fail(e.args[1]->loc, "function '" + fn.name +
                                 "' must return one number a call (or a "
                                 "tuple of them), got " +
                                 describe(v));
      yielded.push_back(y);
    }
    kd::YieldOp::create(b, lc, yielded);
    for (size_t k = 0; k < rs.size(); ++k)
      rs[k] = Val::runtime(yielded[k], rs[k].kind == Val::Runtime && rs[k].uns);
  }
  SmallVector<Operation *> ops;
  body->walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    bool block = llvm::any_of(op->getResultTypes(),
                              [](Type t) { return isa<RankedTensorType>(t); });
    if (block || !isMemoryEffectFree(op))
      fail(e.args[1]->loc, "function '" + fn.name +
                               "' may only compute with its elements "
                               "in " +
                               n + "() (numbers, no blocks, no memory), not '" +
                               op->getName().getStringRef().str() + "'");
  }
  // pack values of each result, result by result, each group of one type.
  if (rs.size() % size_t(pack))
    fail(e.args[1]->loc,
         "function '" + fn.name + "' returns " + std::to_string(rs.size()) +
             " value(s); with pack=" + std::to_string(pack) +
             " it must return " + std::to_string(pack) + " of each result");
  SmallVector<Type> resultTypes;
  std::vector<Val> firsts;
  for (size_t k = 0; k < rs.size(); k += size_t(pack)) {
    for (size_t j = 1; j < size_t(pack); ++j)
      if (rs[k + j].v.getType() != rs[k].v.getType())
        fail(e.args[1]->loc, "function '" + fn.name + "' returns " +
                                 typeName(rs[k].v.getType()) + " and " +
                                 typeName(rs[k + j].v.getType()) +
                                 " in one result's group of " +
                                 std::to_string(pack) +
                                 " (pack=" + std::to_string(pack) + ")");
    resultTypes.push_back(withShape(rs[k].v.getType(), *shape));
    firsts.push_back(rs[k]);
  }
  auto op = kd::MapElementwiseOp::create(b, lc, resultTypes, srcs,
                                         b.getI64IntegerAttr(pack));
  op.getBody().push_back(body.release());
  std::vector<Val> results;
  for (auto [k, v] : llvm::enumerate(firsts))
    results.push_back(Val::runtime(op->getResult(k), v.uns));
  if (results.size() == 1)
    return results[0];
  Val t;
  t.kind = Val::Tuple;
  t.elems = std::move(results);
  return t;
}

} // namespace kite::frontend
