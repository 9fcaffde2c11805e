//===- CodeGenReductions.cpp - sum, max, min, argmax, ..., softmax -------===//
//
// Triton's reductions along an axis (kite.reduce): sum, max / min (with
// return_indices), argmax / argmin, xor_sum, reduce_or; and softmax, built
// from them as Triton's standard library builds it (x - max, exp, sum,
// fdiv). The combine-function forms (reduce, associative_scan) are
// CodeGenCombine.cpp's.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace kite::frontend {

Val CodeGen::reduceAlong(const std::string &what, const Val &in, int64_t axis,
                         Loc l) {
  SmallVector<int64_t> out(shapeOf(in.v.getType()));
  out.erase(out.begin() + axis);
  // Unsigned integers take the unsigned kinds (umax, argumax, ...).
  bool u = in.uns;
  auto kind = what == "sum"   ? kd::ReduceKind::Sum
              : what == "max" ? (u ? kd::ReduceKind::UMax : kd::ReduceKind::Max)
              : what == "min" ? (u ? kd::ReduceKind::UMin : kd::ReduceKind::Min)
              : what == "xor_sum"   ? kd::ReduceKind::Xor
              : what == "reduce_or" ? kd::ReduceKind::Or
              : what == "argmax"
                  ? (u ? kd::ReduceKind::ArgUMax : kd::ReduceKind::ArgMax)
                  : (u ? kd::ReduceKind::ArgUMin : kd::ReduceKind::ArgMin);
  bool arg = kd::isArgReduce(kind);
  Type resultElem = arg ? Type(b.getI32Type()) : elemOf(in.v.getType());
  return Val::runtime(kd::ReduceOp::create(b, loc(l),
                                           withShape(resultElem, out), in.v,
                                           kd::ReduceKindAttr::get(ctx, kind),
                                           b.getI32IntegerAttr(int32_t(axis)))
                          .getResult(),
                      u && !arg);
}

Val CodeGen::reduce(const std::string &n, const Expr &e) {
  // Triton's sum(input, axis=None, keep_dims=False, dtype=None),
  // max/min(input, axis=None, return_indices=False,
  // return_indices_tie_break_left=True, keep_dims=False),
  // xor_sum(input, axis=None, keep_dims=False), reduce_or(input, axis,
  // keep_dims=False) and
  // argmax/argmin(input, axis, tie_break_left=True, keep_dims=False).
  bool argKind = n == "argmax" || n == "argmin";
  bool maxMin = n == "max" || n == "min";
  Args a =
      argKind
          ? bindArgs(e, n, {"input", "axis", "tie_break_left", "keep_dims"}, 2)
      : maxMin     ? bindArgs(e, n,
                              {"input", "axis", "return_indices",
                               "return_indices_tie_break_left", "keep_dims"},
                              1)
      : n == "sum" ? bindArgs(e, n, {"input", "axis", "keep_dims", "dtype"}, 1)
      : n == "reduce_or" ? bindArgs(e, n, {"input", "axis", "keep_dims"}, 2)
                         : bindArgs(e, n, {"input", "axis", "keep_dims"}, 1);
  size_t tieAt = argKind ? 2 : 3;
  if ((argKind || maxMin) && a.given[tieAt] &&
      a.values[tieAt].kind != Val::None &&
      !flagArg(a, tieAt, n, "tie_break_left"))
    fail(a.locs[tieAt], n + "() supports tie_break_left=True only (the first "
                            "index of equal values)");
  size_t keepAt = argKind ? 3 : maxMin ? 4 : 2;
  bool keepDims = flagArg(a, keepAt, n, "keep_dims");
  bool withIndices = maxMin && flagArg(a, 2, n, "return_indices");
  Val in = a.values[0];
  if (in.kind != Val::Runtime || !isa<RankedTensorType>(in.v.getType()))
    fail(a.locs[0], n + "() reduces a block, got " + describe(in));
  if (n == "sum" && a.given[3] && a.values[3].kind != Val::None) {
    // sum's dtype: the type the elements are summed in.
    Type t = dtypeArg(a.values[3], a.locs[3]);
    bool tu = a.values[3].uns;
    in = Val::runtime(cast(in.v, t, a.locs[3], in.uns, tu), tu);
  }
  SmallVector<int64_t> shape(shapeOf(in.v.getType()));
  int64_t axis = 0;
  bool allAxes = false;
  if (a.given[1] && a.values[1].kind != Val::None) {
    axis = axisArg(a.values[1], a.locs[1], int64_t(shape.size()), "the axis");
  } else if (shape.size() != 1) {
    // axis=None: every element (the block flattened, as Triton does).
    if (argKind)
      fail(e.loc, n + "() of a " + std::to_string(shape.size()) +
                      "-D block needs an axis");
    allAxes = true;
    int64_t numel = 1;
    for (int64_t d : shape)
      numel *= d;
    in = reshapeTo(in, {numel}, e.loc, a.locs[0]);
  }
  if (elemOf(in.v.getType()).isInteger(1))
    fail(a.locs[0], n + "() of a boolean block; convert it with .to(i32)");
  auto one = [&](const std::string &what) {
    if ((what == "xor_sum" || what == "reduce_or") && !isInt(in.v.getType()))
      fail(a.locs[0], what + "() reduces integers, got " + describe(in));
    Val r = reduceAlong(what, in, axis, e.loc);
    if (!keepDims)
      return r;
    if (allAxes) // a block of ones in every dimension of the input
      return Val::runtime(
          broadcastTo(r.v, SmallVector<int64_t>(shape.size(), 1), e.loc),
          r.uns);
    return expandDims(r, Val::integer(axis), e.loc, e.loc, e.loc);
  };
  if (!withIndices)
    return one(n);
  Val out;
  out.kind = Val::Tuple;
  out.elems = {one(n), one(n == "max" ? "argmax" : "argmin")};
  return out;
}

Val CodeGen::softmax(const Expr &e) {
  // Triton's softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
  // z = x - max(x, dim, keep_dims); num = exp(z);
  // fdiv(num, sum(num, dim, keep_dims), ieee_rounding). dim=None is 0. As
  // in Triton, max promotes 16-bit floats (and integers) to f32, so the
  // result is f32 for them; with keep_dims=False the reduced block
  // broadcasts against x from the right (dim 1 of a 2-D x needs
  // keep_dims=True, as in Triton).
  Args a =
      bindArgs(e, "softmax", {"x", "dim", "keep_dims", "ieee_rounding"}, 1);
  Val x = a.values[0];
  if (x.kind != Val::Runtime || !isa<RankedTensorType>(x.v.getType()) ||
      isa<kd::PointerType>(elemOf(x.v.getType())) ||
      elemOf(x.v.getType()).isInteger(1))
    fail(a.locs[0], "softmax() takes a block of numbers, got " + describe(x));
  bool keepDims = flagArg(a, 2, "softmax", "keep_dims");
  bool exact = flagArg(a, 3, "softmax", "ieee_rounding");
  int64_t rank = int64_t(shapeOf(x.v.getType()).size());
  int64_t dim = a.given[1] && a.values[1].kind != Val::None
                    ? axisArg(a.values[1], a.locs[1], rank, "softmax()'s dim")
                    : 0;
  Type el = elemOf(x.v.getType());
  if (!isa<FloatType>(el) || el.getIntOrFloatBitWidth() < 32 || isFp8(el))
    x = Val::runtime(cast(x.v, b.getF32Type(), a.locs[0], x.uns));
  auto reduced = [&](const char *what, const Val &v) {
    Val r = reduceAlong(what, v, dim, e.loc);
    return keepDims ? expandDims(r, Val::integer(dim), e.loc, e.loc, e.loc) : r;
  };
  Val z = binary("-", x, reduced("max", x), e.loc);
  Val num = Val::runtime(math::ExpOp::create(b, loc(e.loc), z.v).getResult());
  Val den = reduced("sum", num);
  auto [p, q] = unify(num, den, e.loc);
  auto r = arith::DivFOp::create(b, loc(e.loc), p, q);
  if (exact) // correctly rounded on the GPU (CodeGenMath.cpp's fdiv)
    r->setAttr(kd::kIeeeRoundingAttr, b.getUnitAttr());
  return Val::runtime(r);
}

} // namespace kite::frontend
