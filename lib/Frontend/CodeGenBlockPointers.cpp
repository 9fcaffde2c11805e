//===- CodeGenBlockPointers.cpp - Triton's block pointers
//------------------===//
//
// Triton's block pointers, as code written for them reads:
//   a = make_block_ptr(base=A, shape=(M, K), strides=(sm, sk),
//                      offsets=(pid_m * BM, 0), block_shape=(BM, BK),
//                      order=(1, 0))
//   x = load(a, boundary_check=(0, 1), padding_option="zero")
//   a = advance(a, (0, BK))
//   store(c, x, boundary_check=(0, 1))
// A block pointer is a value of the frontend (Val::BlockPtr: the base
// pointer, per dimension its shape, stride and offset, integer scalars,
// and its block of pointers), carried through loops value by value
// (CodeGenStmt.cpp). A load or store through one is the masked pointer
// block a kernel would write by hand: made once, base + sum over d of
// (offset_d + arange(0, block_d)) * stride_d, moved by advance() (the
// pointers by sum delta_d * stride_d, as a hand-written loop moves its
// own, so the loop stages as the pointer form does), masked
// with 0 <= offset_d + i < shape_d for the dimensions in boundary_check
// (the others unchecked, as in Triton), elements outside read as zero
// (padding_option "" or "zero") or NaN ("nan"). `order` is checked to be a
// permutation and otherwise not needed: the layout follows the strides.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace kite::frontend {

Val CodeGen::makeBlockPtr(const Expr &e) {
  Args a = bindArgs(e, "make_block_ptr",
                    {"base", "shape", "strides", "offsets", "block_shape",
                     "order"},
                    6);
  const Val &base = a.values[0];
  if (base.kind != Val::Runtime || isa<RankedTensorType>(base.v.getType()) ||
      !isa<kd::PointerType>(base.v.getType()))
    fail(a.locs[0], "make_block_ptr()'s base must be a pointer, got " +
                        describe(base));
  auto list = [&](int i, const char *what) {
    const Val &v = a.values[i];
    std::vector<Val> xs =
        v.kind == Val::Tuple ? v.elems : std::vector<Val>{v};
    for (const Val &x : xs)
      if (!x.isScalarInt())
        fail(a.locs[i], std::string("make_block_ptr()'s ") + what +
                            " must be integers, got " + describe(x));
    return xs;
  };
  std::vector<Val> shape = list(1, "shape"), strides = list(2, "strides"),
                   offsets = list(3, "offsets");
  // The offsets of the elements are computed in the integer types given
  // (as a kernel's own pointer arithmetic is: i32 for i32 strides, where
  // Triton widens block pointers to i64); pass i64 strides for tensors
  // past 2^31 elements.
  SmallVector<int64_t> block = shapeArg(a.values[4], a.locs[4]);
  size_t rank = block.size();
  if (shape.size() != rank || strides.size() != rank ||
      offsets.size() != rank)
    fail(e.loc, "make_block_ptr(): shape, strides, offsets and block_shape "
                "must have one value per dimension, got " +
                    std::to_string(shape.size()) + ", " +
                    std::to_string(strides.size()) + ", " +
                    std::to_string(offsets.size()) + " and " +
                    std::to_string(rank));
  SmallVector<int64_t> order = constInts(a.values[5], a.locs[5], "order");
  std::vector<bool> seen(rank, false);
  bool permutation = order.size() == rank;
  for (int64_t d : order) {
    permutation = permutation && d >= 0 && d < int64_t(rank) && !seen[d];
    if (permutation)
      seen[d] = true;
  }
  if (!permutation)
    fail(a.locs[5], "make_block_ptr()'s order must be a permutation of the " +
                        std::to_string(rank) + " dimensions");
  Val bp;
  bp.kind = Val::BlockPtr;
  bp.elems.push_back(base);
  bp.elems.insert(bp.elems.end(), shape.begin(), shape.end());
  bp.elems.insert(bp.elems.end(), strides.begin(), strides.end());
  bp.elems.insert(bp.elems.end(), offsets.begin(), offsets.end());
  bp.block.assign(block.begin(), block.end());
  bp.order.assign(order.begin(), order.end());
  bp.elems.push_back(blockPtrPointers(bp, e.loc));
  return bp;
}

Val CodeGen::advanceBlockPtr(const Expr &e) {
  Args a = bindArgs(e, "advance", {"base", "offsets"}, 2);
  Val bp = a.values[0];
  if (bp.kind != Val::BlockPtr)
    fail(a.locs[0], "advance() needs a block pointer (make_block_ptr), got " +
                        describe(bp));
  size_t rank = bp.block.size();
  const Val &d = a.values[1];
  std::vector<Val> deltas =
      d.kind == Val::Tuple ? d.elems : std::vector<Val>{d};
  if (deltas.size() != rank)
    fail(a.locs[1], "advance() of a " + std::to_string(rank) +
                        "-D block pointer needs " + std::to_string(rank) +
                        " offsets, got " + std::to_string(deltas.size()));
  Val step = Val::integer(0); // the pointers move by sum delta_d * stride_d
  for (size_t k = 0; k < rank; ++k) {
    if (!deltas[k].isScalarInt())
      fail(a.locs[1], "advance()'s offsets must be integers, got " +
                          describe(deltas[k]));
    Val &offset = bp.elems[1 + 2 * rank + k];
    offset = binary("+", offset, deltas[k], a.locs[1]);
    step = binary("+", step,
                  binary("*", deltas[k], bp.elems[1 + rank + k], a.locs[1]),
                  a.locs[1]);
  }
  Val &ptrs = bp.elems[1 + 3 * rank];
  ptrs = binary("+", ptrs, step, a.locs[1]);
  return bp;
}

std::pair<mlir::Value, mlir::Value>
CodeGen::blockPtrAccess(const Val &bp, const Val &boundaryCheck, bool checked,
                        Loc l, Loc checkLoc) {
  size_t rank = bp.block.size();
  SmallVector<int64_t> checks;
  if (checked)
    checks = constInts(boundaryCheck, checkLoc, "boundary_check");
  for (int64_t c : checks)
    if (c < 0 || c >= int64_t(rank))
      fail(checkLoc, "boundary_check names dimension " + std::to_string(c) +
                         " of a " + std::to_string(rank) +
                         "-D block pointer");
  // The pointers: the block of them made with the block pointer and moved
  // by advance() (loop-carried as a hand-written kernel carries its own).
  Val mask;
  for (size_t d = 0; d < rank; ++d) {
    if (!llvm::is_contained(checks, int64_t(d)))
      continue;
    // 0 <= i < shape_d as one unsigned compare (a negative i wraps above
    // any shape).
    auto [i, n] = unify(blockPtrIndex(bp, d, l), bp.elems[1 + d], l);
    Val inside = Val::runtime(
        arith::CmpIOp::create(b, loc(l), arith::CmpIPredicate::ult, i, n));
    mask = mask.kind == Val::None ? inside : binary("&", mask, inside, l);
  }
  SmallVector<int64_t> full(bp.block.begin(), bp.block.end());
  mlir::Value m =
      mask.kind == Val::None ? mlir::Value() : broadcastTo(mask.v, full, l);
  return {bp.elems[1 + 3 * rank].v, m};
}

std::optional<std::pair<mlir::Value, SmallVector<mlir::Value>>>
CodeGen::blockPtrDescriptor(const Val &bp, const Val &boundaryCheck,
                            bool checked, Loc l, Loc checkLoc) {
  size_t rank = bp.block.size();
  if (!checked || rank < 1 || rank > 5)
    return std::nullopt;
  SmallVector<int64_t> checks =
      constInts(boundaryCheck, checkLoc, "boundary_check");
  for (size_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(checks, int64_t(d)))
      return std::nullopt;
  // The descriptor's offsets are i32 (a block pointer's may be wider).
  SmallVector<mlir::Value> offsets;
  for (size_t d = 0; d < rank; ++d) {
    const Val &o = bp.elems[1 + 2 * rank + d];
    if (o.kind == Val::Runtime) {
      if (!o.v.getType().isInteger(32))
        return std::nullopt;
      offsets.push_back(o.v);
    } else {
      if (o.i < INT32_MIN || o.i > INT32_MAX)
        return std::nullopt;
      offsets.push_back(materialize(o, b.getI32Type(), l));
    }
  }
  SmallVector<mlir::Value> dims[2];
  for (int k = 0; k < 2; ++k)
    for (size_t d = 0; d < rank; ++d) {
      const Val &v = bp.elems[1 + k * rank + d];
      dims[k].push_back(
          v.kind == Val::Runtime ? v.v : materialize(v, b.getI32Type(), l));
    }
  std::vector<Val> block;
  for (int64_t n : bp.block)
    block.push_back(Val::integer(n));
  Val desc = descriptorValue(bp.elems[0].v, bp.elems[0].uns, dims[0], dims[1],
                             block, l, l);
  return std::make_pair(desc.v, offsets);
}

Val CodeGen::blockPtrPointers(const Val &bp, Loc l) {
  size_t rank = bp.block.size();
  Val addr = bp.elems[0];
  for (size_t d = 0; d < rank; ++d)
    addr = binary(
        "+", addr,
        binary("*", blockPtrIndex(bp, d, l), bp.elems[1 + rank + d], l), l);
  SmallVector<int64_t> full(bp.block.begin(), bp.block.end());
  return Val::runtime(broadcastTo(addr.v, full, l), addr.uns);
}

/// offset_d + arange(0, block_d) of a block pointer, shaped to broadcast
/// along dimension d (expand_dims, not a reshape: what the axis analysis
/// follows).
Val CodeGen::blockPtrIndex(const Val &bp, size_t d, Loc l) {
  size_t rank = bp.block.size();
  mlir::Value range = kd::ArangeOp::create(
      b, loc(l), RankedTensorType::get({bp.block[d]}, b.getI32Type()),
      b.getI32IntegerAttr(0), b.getI32IntegerAttr(int32_t(bp.block[d])));
  Val others;
  others.kind = Val::Tuple;
  for (size_t k = 0; k < rank; ++k)
    if (k != d)
      others.elems.push_back(Val::integer(int64_t(k)));
  Val shaped = rank == 1 ? Val::runtime(range)
                         : expandDims(Val::runtime(range), others, l, l, l);
  return binary("+", bp.elems[1 + 2 * rank + d], shaped, l);
}

void CodeGen::checkMemoryHints(const Args &a, size_t first,
                               const std::string &fn) {
  // Triton's cache_modifier and eviction_policy: hints, checked and not
  // used (the compiler picks the cache operators); volatile=True is not
  // supported.
  auto text = [&](size_t i, const char *what,
                  std::initializer_list<const char *> allowed) {
    if (!a.given[i])
      return;
    const Val &v = a.values[i];
    bool ok = v.kind == Val::Str;
    if (ok)
      ok = llvm::any_of(allowed, [&](const char *x) { return v.s == x; });
    if (!ok) {
      std::string list;
      for (const char *x : allowed)
        list += (list.empty() ? "\"" : ", \"") + std::string(x) + "\"";
      fail(a.locs[i], fn + "()'s " + what + " must be one of " + list);
    }
  };
  bool load = fn == "load";
  if (load)
    text(first, "cache_modifier", {"", ".ca", ".cg", ".cv"});
  else
    text(first, "cache_modifier", {"", ".wb", ".cg", ".cs", ".wt"});
  text(first + 1, "eviction_policy", {"", "evict_first", "evict_last"});
  if (load && a.given[first + 2] &&
      constInt(a.values[first + 2], a.locs[first + 2], "load()'s volatile"))
    fail(a.locs[first + 2], "load()'s volatile=True is not supported");
}

SmallVector<int64_t> CodeGen::constInts(const Val &v, Loc l,
                                        const char *what) {
  SmallVector<int64_t> out;
  if (v.kind == Val::Tuple) {
    for (const Val &x : v.elems)
      out.push_back(constInt(x, l, what));
  } else if (v.kind != Val::None) {
    out.push_back(constInt(v, l, what));
  }
  return out;
}

} // namespace kite::frontend
