//===- CodeGenDescriptors.cpp - Tensor descriptors made in the kernel -------===//
//
// Triton's in-kernel tensor descriptors:
//   desc = make_tensor_descriptor(base, shape=[M, N], strides=[sm, 1],
//                                 block_shape=[BM, BN])
//   x = desc.load([i, j])          # the BM x BN block at (i, j); rows and
//                                  # columns past the shape read as zero
//   desc.store([i, j], x)          # elements past the shape not written
// A descriptor is a kite.make_tensor_descriptor value; its loads and stores
// are kite.descriptor_load / descriptor_store. The pipeline stages a K
// loop's descriptor-fed dot with TMA on sm_90a (kite-stage-dot-operands)
// and lowers every other descriptor access to the masked pointer blocks a
// Triton kernel writes by hand (kite-lower-descriptors).
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
  SmallVector<mlir::Value> dims[2];
  const std::vector<Val> *lists[2] = {shape, strides};
  for (int k = 0; k < 2; ++k)
    for (const Val &v : *lists[k]) {
      if (!v.isScalarInt())
        fail(e.loc, std::string("make_tensor_descriptor's ") +
                        (k == 0 ? "shape" : "strides") +
                        " must be integers, got " + describe(v));
      dims[k].push_back(v.kind == Val::Runtime
                            ? v.v
                            : materialize(v, b.getI32Type(), e.loc));
    }
  return descriptorValue(base.v, base.uns, dims[0], dims[1], *block, a.locs[3],
                         e.loc);
}

Val CodeGen::descriptorValue(mlir::Value base, bool uns,
                             ArrayRef<mlir::Value> shape,
                             ArrayRef<mlir::Value> strides,
                             const std::vector<Val> &block, Loc blockLoc,
                             Loc at) {
  SmallVector<int64_t> blockShape;
  int64_t elements = 1;
  for (const Val &v : block) {
    int64_t n = constInt(v, blockLoc, "a block_shape dimension");
    if (n < 1 || (n & (n - 1)))
      fail(blockLoc, "block_shape dimensions must be powers of two, got " +
                         std::to_string(n));
    elements *= n;
    blockShape.push_back(n);
  }
  if (elements > (1 << 20))
    fail(blockLoc, "block_shape has " + std::to_string(elements) +
                       " elements; a block has at most 2^20");
  Type pointee = llvm::cast<kd::PointerType>(base.getType()).getPointeeType();
  auto type = kd::TensorDescType::get(
      b.getContext(), RankedTensorType::get(blockShape, pointee));
  Val d;
  d.kind = Val::Desc;
  d.v = kd::MakeTensorDescOp::create(b, loc(at), type, base, shape, strides);
  d.block.assign(blockShape.begin(), blockShape.end());
  d.uns = uns;
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
  return descriptorAccess(desc, isLoad, a, e.loc);
}

Val CodeGen::descriptorFunction(const std::string &n, const Expr &e) {
  // Triton's load_tensor_descriptor(desc, offsets) and
  // store_tensor_descriptor(desc, offsets, value): the methods' other
  // spelling.
  bool isLoad = n == "load_tensor_descriptor";
  Args a = isLoad ? bindArgs(e, n, {"desc", "offsets"}, 2)
                  : bindArgs(e, n, {"desc", "offsets", "value"}, 3);
  if (a.values[0].kind != Val::Desc)
    fail(a.locs[0],
         n + "() takes a tensor descriptor, got " + describe(a.values[0]));
  Val desc = a.values[0];
  a.values.erase(a.values.begin());
  a.locs.erase(a.locs.begin());
  a.given.erase(a.given.begin());
  return descriptorAccess(desc, isLoad, a, e.loc);
}

Val CodeGen::descriptorAccess(const Val &desc, bool isLoad, const Args &a,
                              Loc at) {
  size_t rank = desc.block.size();
  const std::vector<Val> *offsets = listOf(a.values[0]);
  if (!offsets || offsets->size() != rank)
    fail(a.locs[0], "a descriptor of " + std::to_string(rank) +
                        " dimensions takes a list of " + std::to_string(rank) +
                        " offsets");
  Location lc = loc(at);
  SmallVector<mlir::Value> offs;
  for (const Val &off : *offsets) {
    if (!off.isScalarInt())
      fail(a.locs[0], "descriptor offsets must be integers, got " +
                          describe(off));
    offs.push_back(off.kind == Val::Runtime
                       ? cast(off.v, b.getI32Type(), a.locs[0])
                       : materialize(off, b.getI32Type(), a.locs[0]));
  }
  auto type = llvm::cast<kd::TensorDescType>(desc.v.getType());
  RankedTensorType blockType = type.getBlockType();
  Type element = blockType.getElementType();
  if (isLoad)
    return Val::runtime(
        kd::DescriptorLoadOp::create(b, lc, blockType, desc.v, offs),
        desc.uns);
  const Val &v = a.values[1];
  mlir::Value value =
      v.kind == Val::Runtime
          ? cast(v.v, element, a.locs[1], v.uns, desc.uns)
          : materialize(v, element, a.locs[1], desc.uns);
  if (shapeOf(value.getType()) != ArrayRef<int64_t>(desc.block)) {
    if (!isa<RankedTensorType>(value.getType()))
      value = broadcastTo(value, desc.block, a.locs[1]);
    else
      fail(a.locs[1], "the stored block has shape " +
                          shapeText(shapeOf(value.getType())) +
                          ", the descriptor's block_shape " +
                          shapeText(desc.block));
  }
  kd::DescriptorStoreOp::create(b, lc, desc.v, offs, value);
  return Val();
}

} // namespace kite::frontend
