//===- CodeGenCombine.cpp - reduce and associative_scan with a combine fn --===//
//
// Triton's tl.reduce(input, axis, combine_fn, keep_dims=False) and
// tl.associative_scan(input, axis, combine_fn, reverse=False): combine_fn
// is a helper function of two scalars (`def add(a, b): return a + b`),
// inlined into the op's `combine` region (kite.reduce custom / kite.scan
// custom) with the two block arguments as its parameters. It may only
// compute with them (arith and math ops): no memory, no grid queries. The
// GPU combines in a tree, so the function must be associative (reduce:
// and commutative), as in Triton. One block at a time (tuples of blocks:
// not yet).
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace kite::frontend {

Val CodeGen::combineBuiltin(const std::string &n, const Expr &e) {
  bool scan = n == "associative_scan";
  Args a = bindArgs(e, n,
                    {"input", "axis", "combine_fn",
                     scan ? "reverse" : "keep_dims"},
                    3);
  const Val &in = a.values[0];
  if (in.kind == Val::Tuple)
    fail(a.locs[0], n + "() of a tuple of blocks is not supported yet; one "
                        "block at a time");
  if (in.kind != Val::Runtime || !isa<RankedTensorType>(in.v.getType()))
    fail(a.locs[0], n + "() needs a block, got " + describe(in));
  auto type = llvm::cast<RankedTensorType>(in.v.getType());
  Type elem = type.getElementType();
  if (elem.isInteger(1) || isa<kd::PointerType>(elem))
    fail(a.locs[0], n + "() combines numbers, got " + describe(in));
  int64_t rank = type.getRank();
  int64_t axis = constInt(a.values[1], a.locs[1], "the axis");
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    fail(a.locs[1], "axis " + std::to_string(axis) +
                        " is out of range for a block of rank " +
                        std::to_string(rank));
  const Val &fnVal = a.values[2];
  if (fnVal.kind != Val::Helper || !fnVal.fn)
    fail(a.locs[2], n + "()'s combine_fn must be a function defined in this "
                        "file (def combine(a, b): ...), got " +
                        describe(fnVal));
  const Function &fn = *fnVal.fn;
  if (fn.params.size() != 2)
    fail(a.locs[2], "combine function '" + fn.name + "' must take two "
                    "parameters (one element each), it takes " +
                        std::to_string(fn.params.size()));
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
  if (scan) {
    auto s = kd::ScanOp::create(
        b, lc, type, in.v, kd::ScanKindAttr::get(ctx, kd::ScanKind::Custom),
        b.getI32IntegerAttr(axis), flag ? b.getUnitAttr() : UnitAttr());
    op = s;
    region = &s.getCombiner();
  } else {
    SmallVector<int64_t> out(type.getShape());
    out.erase(out.begin() + axis);
    auto r = kd::ReduceOp::create(
        b, lc, withShape(elem, out), in.v,
        kd::ReduceKindAttr::get(ctx, kd::ReduceKind::Custom),
        b.getI32IntegerAttr(axis));
    op = r;
    region = &r.getCombiner();
  }
  // The combine function, inlined on the region's two arguments.
  mlir::Block *block = new mlir::Block();
  region->push_back(block);
  mlir::Value x = block->addArgument(elem, lc);
  mlir::Value y = block->addArgument(elem, lc);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(block);
    Val r = inlineHelperWith(
        fn, {Val::runtime(x, in.uns), Val::runtime(y, in.uns)}, e.loc);
    if (r.kind == Val::None)
      fail(a.locs[2], "combine function '" + fn.name + "' returns nothing");
    mlir::Value v = r.kind == Val::Runtime ? r.v : materialize(r, elem, e.loc);
    if (isa<RankedTensorType>(v.getType()))
      fail(a.locs[2], "combine function '" + fn.name +
                          "' must return one element, got " + describe(r));
    v = cast(v, elem, e.loc, r.uns, in.uns);
    kd::YieldOp::create(b, lc, v);
  }
  for (Operation &inner : block->without_terminator())
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()))
      fail(a.locs[2], "combine function '" + fn.name +
                          "' may only compute with its arguments (arithmetic "
                          "and math), not '" +
                          inner.getName().getStringRef().str() + "'");
  mlir::Value result = op->getResult(0);
  if (!scan && flag) {
    // keep_dims: the reduced axis back as size 1.
    SmallVector<int64_t> kept(type.getShape());
    kept[axis] = 1;
    result = kd::ExpandDimsOp::create(b, lc, withShape(elem, kept), result,
                                      b.getI32IntegerAttr(axis));
  }
  return Val::runtime(result, in.uns);
}

} // namespace kite::frontend
