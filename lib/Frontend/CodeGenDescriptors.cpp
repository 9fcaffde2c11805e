//===- CodeGenDescriptors.cpp - Tensor descriptors made in the kernel -------===//
//
// Triton's in-kernel tensor descriptors:
//   desc = make_tensor_descriptor(base, shape=[M, N], strides=[sm, 1],
//                                 block_shape=[BM, BN])
//   x = desc.load([i, j])          # the BM x BN block at (i, j); rows and
//                                  # columns past the shape read as zero
//   desc.store([i, j], x)          # elements past the shape not written
// A descriptor is a compile-time value of the frontend (base pointer, shape
// and strides as values, the block shape as constants). Its loads and
// stores become the masked pointer blocks a Triton kernel writes by hand
// (offsets + arange per dimension, `offs < shape` masks), so every
// lowering that takes those (vectorized accesses, the cp.async staging of
// a dot's operands) takes them; TMA is a later step (issue 19).
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace kite::frontend {

namespace {
/// The elements of a list or tuple argument.
const std::vector<Val> *listOf(const Val &v) {
  return v.kind == Val::Tuple ? &v.elems : nullptr;
}
} // namespace

/// Whether `v` is an integer scalar (a constant or a runtime value): what
/// shapes, strides and offsets must be.
static bool isScalarInt(const Val &v) {
  return v.kind == Val::Int ||
         (v.kind == Val::Runtime && !isa<RankedTensorType>(v.v.getType()) &&
          getElementTypeOrSelf(v.v.getType()).isSignlessInteger());
}

Val CodeGen::makeDescriptor(const Expr &e) {
  Args a = bindArgs(e, "make_tensor_descriptor",
                    {"base", "shape", "strides", "block_shape", "padding_option"},
                    4);
  const Val &base = a.values[0];
  if (base.kind != Val::Runtime || !isPtr(base.v.getType()) ||
      isa<RankedTensorType>(base.v.getType()))
    fail(a.locs[0], "make_tensor_descriptor's base must be a pointer (not a "
                    "block of pointers), got " + describe(base));
  const std::vector<Val> *shape = listOf(a.values[1]);
  const std::vector<Val> *strides = listOf(a.values[2]);
  const std::vector<Val> *block = listOf(a.values[3]);
  if (!shape || !strides || !block)
    fail(e.loc, "make_tensor_descriptor takes lists: shape=[...], "
                "strides=[...], block_shape=[...]");
  size_t rank = shape->size();
  if (rank < 1 || rank > 5)
    fail(a.locs[1], "a tensor descriptor has 1 to 5 dimensions, got " +
                        std::to_string(rank));
  if (strides->size() != rank || block->size() != rank)
    fail(e.loc, "make_tensor_descriptor: shape has " + std::to_string(rank) +
                    " dimensions, strides " + std::to_string(strides->size()) +
                    ", block_shape " + std::to_string(block->size()));
  if (a.given[4]) {
    const Val &pad = a.values[4];
    if (pad.kind != Val::Str || pad.s != "zero")
      fail(a.locs[4], "make_tensor_descriptor's padding_option must be "
                      "\"zero\" (out-of-bounds elements read as 0)");
  }
  Val d;
  d.kind = Val::Desc;
  d.elems.push_back(base);
  for (const std::vector<Val> *list : {shape, strides})
    for (const Val &v : *list) {
      if (!isScalarInt(v))
        fail(e.loc, std::string("make_tensor_descriptor's ") +
                        (list == shape ? "shape" : "strides") +
                        " must be integers, got " + describe(v));
      d.elems.push_back(v);
    }
  int64_t elements = 1;
  for (const Val &v : *block) {
    int64_t n = constInt(v, a.locs[3], "a block_shape dimension");
    if (n < 1 || (n & (n - 1)))
      fail(a.locs[3], "block_shape dimensions must be powers of two, got " +
                          std::to_string(n));
    elements *= n;
    d.block.push_back(n);
  }
  if (elements > (1 << 20))
    fail(a.locs[3], "block_shape has " + std::to_string(elements) +
                        " elements; a block has at most 2^20");
  return d;
}

Val CodeGen::descriptorMethod(const Val &desc, const std::string &name,
                              const Expr &e) {
  if (name != "load" && name != "store")
    fail(e.args[0]->loc, "unknown method '" + name +
                             "' (tensor descriptors have .load(offsets) and "
                             ".store(offsets, value))");
  bool isLoad = name == "load";
  Args a = isLoad ? bindArgs(e, "load", {"offsets"}, 1)
                  : bindArgs(e, "store", {"offsets", "value"}, 2);
  size_t rank = desc.block.size();
  const std::vector<Val> *offsets = listOf(a.values[0]);
  if (!offsets || offsets->size() != rank)
    fail(a.locs[0], "a descriptor of " + std::to_string(rank) +
                        " dimensions takes a list of " + std::to_string(rank) +
                        " offsets");
  Location lc = loc(e.loc);
  const Val &base = desc.elems[0];
  Val ptr = base, mask;
  for (size_t k = 0; k < rank; ++k) {
    const Val &off = (*offsets)[k];
    if (!isScalarInt(off))
      fail(a.locs[0], "descriptor offsets must be integers, got " +
                          describe(off));
    // offs_k = offset + arange(0, block[k]), expanded to rank dimensions
    // with its own along dimension k.
    int64_t n = desc.block[k];
    Val range = Val::runtime(kd::ArangeOp::create(
        b, lc, RankedTensorType::get({n}, b.getI32Type()),
        b.getI32IntegerAttr(0), b.getI32IntegerAttr(n)));
    Val offs = binary("+", off, range, e.loc);
    mlir::Value v = offs.v;
    for (size_t axis = 0; axis < rank; ++axis) {
      if (axis == k)
        continue;
      SmallVector<int64_t> s(shapeOf(v.getType()));
      s.insert(s.begin() + axis, 1);
      v = kd::ExpandDimsOp::create(b, lc, withShape(elemOf(v.getType()), s), v,
                                   b.getI32IntegerAttr(axis));
    }
    Val expanded = Val::runtime(v);
    Val inBounds = compare("<", expanded, desc.elems[1 + k], e.loc);
    Val inRange =
        compare(">=", expanded, Val::integer(0), e.loc); // negative offsets
    Val both = binary("&", inBounds, inRange, e.loc);
    mask = k == 0 ? both : binary("&", mask, both, e.loc);
    ptr = binary("+", ptr,
                 binary("*", expanded, desc.elems[1 + rank + k], e.loc),
                 e.loc);
  }
  // Full blocks: broadcast the pointers and the mask to the block shape.
  mlir::Value p = broadcastTo(ptr.v, desc.block, e.loc);
  mlir::Value m = broadcastTo(mask.v, desc.block, e.loc);
  Type pointee =
      llvm::cast<kd::PointerType>(elemOf(p.getType())).getPointeeType();
  if (isLoad) {
    mlir::Value zero = broadcastTo(
        materialize(isa<FloatType>(pointee) ? Val::floating(0)
                                            : Val::integer(0),
                    pointee, e.loc),
        desc.block, e.loc);
    return Val::runtime(kd::LoadOp::create(b, lc, p, m, zero));
  }
  const Val &v = a.values[1];
  mlir::Value value = v.kind == Val::Runtime ? cast(v.v, pointee, a.locs[1])
                                             : materialize(v, pointee, a.locs[1]);
  if (shapeOf(value.getType()) != ArrayRef<int64_t>(desc.block)) {
    if (!isa<RankedTensorType>(value.getType()))
      value = broadcastTo(value, desc.block, a.locs[1]);
    else
      fail(a.locs[1], "the stored block has shape " +
                          shapeText(shapeOf(value.getType())) +
                          ", the descriptor's block_shape " +
                          shapeText(desc.block));
  }
  kd::StoreOp::create(b, lc, p, value, m);
  return Val();
}

} // namespace kite::frontend
