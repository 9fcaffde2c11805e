//===- CodeGenShapes.cpp - join, split, interleave, broadcast_to, sort ----===//
//
// Triton's shape builtins beyond trans/reshape/flip (CodeGenBuiltins.cpp):
//   join(a, b)        a new last dimension of 2 (kite.join; a and b
//                     broadcast and promoted to one shape and type first),
//   split(x)          its inverse: two blocks (kite.split),
//   interleave(a, b)  join then reshape to (..., 2 * n): a0 b0 a1 b1 ...,
//   broadcast_to(x, shape)  x broadcast to shape (numpy's rules),
//   sort(x, dim=None, descending=False)  along the last dimension
//                     (kite.sort: a bitonic network on the GPU),
//   bitonic_merge(x, dim=None, descending=False)  the last stage of the
//                     sort's network (a bitonic row comes out sorted),
//   broadcast(a, b)   both broadcast to their common shape (a tuple),
//   topk(x, k, dim=None)  the k largest of each row (along the last
//                     dimension), in descending order (kite.sort ... k),
//   expand_dims(x, axis)  size-1 dimensions inserted at `axis` (an int or a
//                     tuple of them, negative from the end of the result:
//                     x[:, None] is expand_dims(x, 1)),
//   ravel(x)          x as one dimension, row-major (reshape),
//   cat(a, b, can_reorder=False)  b after a along the first dimension
//                     (join, then the new dimension moved to the front
//                     and merged: the order kept, which any can_reorder
//                     allows).
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace kite::frontend {

bool CodeGen::isShapeBuiltin(StringRef n) {
  return n == "join" || n == "split" || n == "interleave" ||
         n == "broadcast_to" || n == "sort" || n == "topk" ||
         n == "bitonic_merge" || n == "expand_dims" || n == "ravel" ||
         n == "cat" || n == "gather" || n == "histogram" || n == "broadcast";
}

Val CodeGen::expandDims(const Val &x, const Val &axis, Loc l, Loc xl,
                        Loc axisLoc) {
  SmallVector<int64_t> axes;
  if (axis.kind == Val::Tuple)
    for (const Val &a : axis.elems)
      axes.push_back(constInt(a, axisLoc, "expand_dims()'s axis"));
  else
    axes.push_back(constInt(axis, axisLoc, "expand_dims()'s axis"));
  if (axes.empty())
    fail(axisLoc, "expand_dims() needs at least one axis");
  mlir::Value v = x.kind == Val::Runtime ? x.v : runtime(x, xl);
  bool scalar = !isa<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  if (!scalar)
    shape.assign(shapeOf(v.getType()).begin(), shapeOf(v.getType()).end());
  int64_t rank = int64_t(shape.size() + axes.size());
  for (int64_t &a : axes) {
    int64_t given = a;
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank)
      fail(axisLoc, "expand_dims(): axis " + std::to_string(given) +
                        " is out of range for a result of rank " +
                        std::to_string(rank));
  }
  llvm::sort(axes);
  for (size_t k = 1; k < axes.size(); ++k)
    if (axes[k] == axes[k - 1])
      fail(axisLoc,
           "expand_dims(): axis " + std::to_string(axes[k]) + " given twice");
  // A scalar (Triton's 0-d tensor): a block of ones in every dimension.
  if (scalar)
    return Val::runtime(broadcastTo(v, SmallVector<int64_t>(rank, 1), l),
                        x.uns);
  // In increasing order, each insertion leaves the later positions right.
  for (int64_t a : axes) {
    shape.insert(shape.begin() + a, 1);
    v = kd::ExpandDimsOp::create(b, loc(l),
                                 withShape(elemOf(v.getType()), shape), v,
                                 b.getI32IntegerAttr(int32_t(a)));
  }
  return Val::runtime(v, x.uns);
}

Val CodeGen::shapeBuiltin(const std::string &n, const Expr &e) {
  Location lc = loc(e.loc);
  auto block = [&](const Val &v, Loc l, const char *what) {
    if (v.kind != Val::Runtime || !isa<RankedTensorType>(v.v.getType()))
      fail(l, n + "() needs a block" + (what ? std::string(" ") + what : "") +
                  ", got " + describe(v));
    return llvm::cast<RankedTensorType>(v.v.getType());
  };
  if (n == "sort" || n == "topk" || n == "bitonic_merge") {
    // sort(x, dim=None, descending=False), topk(x, k, dim=None),
    // bitonic_merge(x, dim=None, descending=False): along the last
    // dimension.
    bool top = n == "topk";
    Args a = top ? bindArgs(e, n, {"x", "k", "dim"}, 2)
                 : bindArgs(e, n, {"x", "dim", "descending"}, 1);
    size_t dimAt = top ? 2 : 1;
    RankedTensorType t = block(a.values[0], a.locs[0], nullptr);
    int64_t rank = t.getRank(), dim = rank - 1;
    if (a.given[dimAt] && a.values[dimAt].kind != Val::None) {
      dim = constInt(a.values[dimAt], a.locs[dimAt], "the dim");
      if (dim < 0)
        dim += rank;
      if (dim != rank - 1)
        fail(a.locs[dimAt], n + "() works along the last dimension only (as "
                                "Triton's); transpose the block first");
    }
    int64_t len = t.getShape().back();
    if (len & (len - 1))
      fail(a.locs[0],
           n + "() needs a power-of-two length, got " + std::to_string(len));
    Type el = t.getElementType();
    if (el.isInteger(1) || isa<kd::PointerType>(el))
      fail(a.locs[0], n + "() sorts numbers, got " + describe(a.values[0]));
    bool desc = top;
    IntegerAttr kAttr;
    if (top) {
      int64_t k = constInt(a.values[1], a.locs[1], "topk()'s k");
      if (k < 1 || k > len || (k & (k - 1)))
        fail(a.locs[1], "topk()'s k must be a power of two in [1, " +
                            std::to_string(len) + "] (the row's length), got " +
                            std::to_string(k));
      kAttr = b.getI64IntegerAttr(k);
    } else if (a.given[2]) {
      const Val &d = a.values[2];
      if (d.kind != Val::Bool && d.kind != Val::Int)
        fail(a.locs[2], n + "()'s descending must be True or False");
      desc = d.i != 0;
    }
    bool u = a.values[0].uns;
    return Val::runtime(
        kd::SortOp::create(b, lc, a.values[0].v, b.getI32IntegerAttr(dim),
                           desc ? b.getUnitAttr() : UnitAttr(),
                           u ? b.getUnitAttr() : UnitAttr(), kAttr,
                           n == "bitonic_merge" ? b.getUnitAttr() : UnitAttr()),
        u);
  }
  if (n == "gather") {
    // Triton's gather(src, index, axis): the index's shape, the source's
    // elements; other dimensions than the axis must agree.
    Args a = bindArgs(e, n, {"src", "index", "axis"}, 3);
    RankedTensorType st = block(a.values[0], a.locs[0], nullptr);
    RankedTensorType it = block(a.values[1], a.locs[1], nullptr);
    if (!isInt(it) || it.getElementType().isInteger(1))
      fail(a.locs[1], "gather()'s index must be an integer block, got " +
                          describe(a.values[1]));
    int64_t rank = st.getRank();
    if (it.getRank() != rank)
      fail(e.loc, "gather(): the source " + describe(a.values[0]) +
                      " and the index " + describe(a.values[1]) +
                      " must have one rank");
    int64_t axis = constInt(a.values[2], a.locs[2], "gather()'s axis");
    if (axis < -rank || axis >= rank)
      fail(a.locs[2], "gather()'s axis " + std::to_string(axis) +
                          " is out of range for a rank-" +
                          std::to_string(rank) + " block");
    if (axis < 0)
      axis += rank;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && it.getDimSize(d) != st.getDimSize(d))
        fail(e.loc, "gather(): the index's dimension " + std::to_string(d) +
                        " (" + std::to_string(it.getDimSize(d)) +
                        ") must match the source's (" +
                        std::to_string(st.getDimSize(d)) +
                        "); only the axis may differ");
    Type rt = withShape(st.getElementType(), it.getShape());
    return Val::runtime(
        kd::GatherOp::create(b, lc, rt, a.values[0].v, a.values[1].v,
                             b.getI32IntegerAttr(int32_t(axis))),
        a.values[0].uns);
  }
  if (n == "histogram") {
    // Triton's histogram(input, num_bins, mask=None): counts of 0 ..
    // num_bins - 1 (i32); other values are not counted.
    Args a = bindArgs(e, n, {"input", "num_bins", "mask"}, 2);
    RankedTensorType t = block(a.values[0], a.locs[0], nullptr);
    if (t.getRank() != 1 || !isInt(t) || t.getElementType().isInteger(1))
      fail(a.locs[0], "histogram() takes a 1-D block of integers, got " +
                          describe(a.values[0]));
    int64_t bins = constInt(a.values[1], a.locs[1], "histogram()'s num_bins");
    if (bins < 1 || bins > (1 << 20) || (bins & (bins - 1)))
      fail(a.locs[1], "histogram()'s num_bins must be a power of two in "
                      "[1, 2^20] (the result is a block), got " +
                          std::to_string(bins));
    mlir::Value mask;
    if (a.given[2] && a.values[2].kind != Val::None) {
      mask = asBool(a.values[2], a.locs[2], "histogram()'s mask");
      if (shapeOf(mask.getType()) != t.getShape())
        mask = broadcastTo(mask, t.getShape(), a.locs[2]);
    }
    mlir::Value src = a.values[0].v;
    // Unsigned values beyond the signed range are out of the bins too:
    // compare as i64 (zero-extended) there.
    if (a.values[0].uns && t.getElementType().getIntOrFloatBitWidth() < 64)
      src = cast(src, b.getI64Type(), a.locs[0], /*fromUns=*/true);
    return Val::runtime(kd::HistogramOp::create(
        b, lc, RankedTensorType::get({bins}, b.getI32Type()), src, mask));
  }
  if (n == "broadcast") {
    // Triton's broadcast(input, other): both broadcast to their common
    // shape (numpy's rules), types kept.
    Args a = bindArgs(e, n, {"input", "other"}, 2);
    mlir::Value x = a.values[0].kind == Val::Runtime
                        ? a.values[0].v
                        : runtime(a.values[0], a.locs[0]);
    mlir::Value y = a.values[1].kind == Val::Runtime
                        ? a.values[1].v
                        : runtime(a.values[1], a.locs[1]);
    SmallVector<int64_t> shape =
        broadcastShape(shapeOf(x.getType()), shapeOf(y.getType()), e.loc);
    Val out;
    out.kind = Val::Tuple;
    out.elems = {
        Val::runtime(broadcastTo(x, shape, a.locs[0]), a.values[0].uns),
        Val::runtime(broadcastTo(y, shape, a.locs[1]), a.values[1].uns)};
    return out;
  }
  if (n == "expand_dims") {
    Args a = bindArgs(e, n, {"input", "axis"}, 2);
    return expandDims(a.values[0], a.values[1], e.loc, a.locs[0], a.locs[1]);
  }
  if (n == "cat") {
    Args a = bindArgs(e, n, {"input", "other", "can_reorder"}, 2);
    if (a.given[2])
      (void)constInt(a.values[2], a.locs[2], "cat()'s can_reorder");
    RankedTensorType ta = block(a.values[0], a.locs[0], nullptr);
    RankedTensorType tb = block(a.values[1], a.locs[1], nullptr);
    if (ta.getShape() != tb.getShape())
      fail(e.loc, "cat() needs two blocks of one shape, got " +
                      describe(a.values[0]) + " and " + describe(a.values[1]));
    bool u = false;
    auto [x, y] = unify(a.values[0], a.values[1], e.loc, false, &u);
    auto part = llvm::cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> joined(part.getShape());
    joined.push_back(2);
    mlir::Value j = kd::JoinOp::create(
        b, lc, withShape(part.getElementType(), joined), x, y);
    // (d0, ..., 2) -> (2, d0, ...) -> (2 * d0, ...)
    SmallVector<int64_t> dims{int64_t(joined.size()) - 1};
    for (int64_t k = 0; k + 1 < int64_t(joined.size()); ++k)
      dims.push_back(k);
    Val moved = transpose(Val::runtime(j, u), dims, e.loc, e.loc);
    SmallVector<int64_t> out(part.getShape());
    out[0] *= 2;
    return reshapeTo(moved, out, e.loc, e.loc);
  }
  if (n == "ravel") {
    Args a = bindArgs(e, n, {"x", "can_reorder"}, 1);
    RankedTensorType t = block(a.values[0], a.locs[0], nullptr);
    return reshapeTo(a.values[0], {t.getNumElements()}, e.loc, a.locs[0]);
  }
  if (n == "broadcast_to") {
    Args a = bindArgs(e, n, {"input", "shape"}, 2);
    SmallVector<int64_t> shape = shapeArg(a.values[1], a.locs[1]);
    const Val &x = a.values[0];
    if (x.kind != Val::Runtime)
      fail(a.locs[0], "broadcast_to() needs a block or a scalar value, got " +
                          describe(x));
    ArrayRef<int64_t> have = shapeOf(x.v.getType());
    // numpy's rule: each of x's dimensions (aligned at the end) is 1 or the
    // target's.
    bool ok = have.size() <= shape.size();
    for (size_t k = 0; ok && k < have.size(); ++k) {
      int64_t h = have[have.size() - 1 - k], s = shape[shape.size() - 1 - k];
      ok = h == 1 || h == s;
    }
    if (!ok)
      fail(e.loc, "broadcast_to(): a " + describe(x) +
                      " cannot be broadcast to " + shapeText(shape));
    return Val::runtime(broadcastTo(x.v, shape, e.loc), x.uns);
  }
  if (n == "join" || n == "interleave") {
    Args a = bindArgs(e, n, {"a", "b"}, 2);
    bool u = false;
    auto [x, y] = unify(a.values[0], a.values[1], e.loc, false, &u);
    if (!isa<RankedTensorType>(x.getType()))
      fail(e.loc, n + "() of two scalars: make blocks of them first");
    auto part = llvm::cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> joined(part.getShape());
    joined.push_back(2);
    mlir::Value j = kd::JoinOp::create(
        b, lc, withShape(part.getElementType(), joined), x, y);
    if (n == "join")
      return Val::runtime(j, u);
    SmallVector<int64_t> flat(part.getShape());
    flat.back() *= 2;
    return Val::runtime(kd::ReshapeOp::create(
                            b, lc, withShape(part.getElementType(), flat), j),
                        u);
  }
  // split(x): x's last dimension must be 2.
  Args a = bindArgs(e, n, {"a"}, 1);
  RankedTensorType t = block(a.values[0], a.locs[0], nullptr);
  if (t.getShape().back() != 2)
    fail(a.locs[0], "split() needs a block whose last dimension is 2, got " +
                        describe(a.values[0]));
  SmallVector<int64_t> part(t.getShape().drop_back());
  if (part.empty())
    fail(a.locs[0], "split() of a 2-element block: its halves would be "
                    "scalars; index it instead");
  Type pt = withShape(t.getElementType(), part);
  auto sp = kd::SplitOp::create(b, lc, pt, pt, a.values[0].v);
  Val out;
  out.kind = Val::Tuple;
  out.elems.push_back(Val::runtime(sp.getLhs(), a.values[0].uns));
  out.elems.push_back(Val::runtime(sp.getRhs(), a.values[0].uns));
  return out;
}

} // namespace kite::frontend
