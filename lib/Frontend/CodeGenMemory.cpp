//===- CodeGenMemory.cpp - load and store --------------------------------===//
//
// load(pointer, mask, other, ...) and store(pointer, value, mask, ...):
// through pointers and blocks of pointers (kite.load / kite.store), or
// through Triton's block pointers (CodeGenBlockPointers.cpp makes the
// pointer block and its mask); Triton's cache hints are checked and not
// used.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace kite::frontend {

Val CodeGen::memoryBuiltin(const std::string &n, const Expr &e) {
  Location lc = loc(e.loc);
  if (n == "load") {
    Args a = bindArgs(e, n,
                      {"pointer", "mask", "other", "boundary_check",
                       "padding_option", "cache_modifier", "eviction_policy",
                       "volatile"},
                      1);
    checkMemoryHints(a, 5, n);
    Val p = a.values[0];
    if (p.kind == Val::BlockPtr) {
      // Through a block pointer: no mask or other (Triton's rule), the
      // boundary_check dimensions masked, outside elements padding_option.
      if ((a.given[1] && a.values[1].kind != Val::None) ||
          (a.given[2] && a.values[2].kind != Val::None))
        fail(e.loc, "load() through a block pointer takes boundary_check= "
                    "and padding_option=, not mask= or other=");
      auto [ptr, mask] =
          blockPtrAccess(p, a.values[3], a.given[3], e.loc, a.locs[3]);
      Type pointee =
          llvm::cast<kd::PointerType>(elemOf(ptr.getType())).getPointeeType();
      const Val &pad = a.values[4];
      std::string padding = a.given[4] ? pad.s : "";
      if (a.given[4] &&
          (pad.kind != Val::Str ||
           (padding != "" && padding != "zero" && padding != "nan")))
        fail(a.locs[4], "load()'s padding_option must be \"\", \"zero\" or "
                        "\"nan\", got " +
                            (pad.kind == Val::Str ? "\"" + padding + "\""
                                                  : describe(pad)));
      if (padding == "nan" && !isa<FloatType>(pointee))
        fail(a.locs[4], "load()'s padding_option \"nan\" needs floats, the "
                        "block pointer's elements are " +
                            typeName(pointee));
      // Every dimension checked, zeros outside: a tensor descriptor's load
      // (TMA in a K loop on sm_90a, else the same masked pointers).
      if (padding != "nan")
        if (auto desc = blockPtrDescriptor(p, a.values[3], a.given[3], e.loc,
                                           a.locs[3]))
          return Val::runtime(
              kd::DescriptorLoadOp::create(
                  b, lc,
                  llvm::cast<kd::TensorDescType>(desc->first.getType())
                      .getBlockType(),
                  desc->first, desc->second),
              p.elems[0].uns);
      mlir::Value other;
      if (mask)
        other = broadcastTo(
            padding == "nan"
                ? materialize(Val::floating(std::nan("")), pointee, a.locs[4])
                : materialize(Val::integer(0), pointee, e.loc),
            shapeOf(ptr.getType()), e.loc);
      return Val::runtime(kd::LoadOp::create(b, lc, ptr, mask, other),
                          p.elems[0].uns);
    }
    if (a.given[3] || a.given[4])
      fail(a.locs[a.given[3] ? 3 : 4],
           "load()'s boundary_check and padding_option are for block pointers "
           "(make_block_ptr); use mask= and other=");
    if (p.kind != Val::Runtime || !isPtr(p.v.getType()))
      fail(a.locs[0], "load() needs a pointer or a block of pointers, got " +
                          describe(p));
    mlir::Value ptr = p.v, mask, other;
    Type pointee = llvm::cast<kd::PointerType>(elemOf(ptr.getType())).getPointeeType();
    if (a.given[1] && a.values[1].kind != Val::None) {
      mask = asBool(a.values[1], a.locs[1], "load()'s mask");
      SmallVector<int64_t> shape = broadcastShape(
          shapeOf(ptr.getType()), shapeOf(mask.getType()), a.locs[1]);
      ptr = broadcastTo(ptr, shape, e.loc);
      mask = broadcastTo(mask, shape, e.loc);
    }
    if (a.given[2] && a.values[2].kind != Val::None) {
      if (!mask)
        fail(a.locs[2], "load()'s other needs a mask");
      Val o = a.values[2];
      mlir::Value ov =
          o.kind == Val::Runtime
              ? cast(o.v, pointee, a.locs[2], o.uns, p.uns)
              : materialize(o, pointee, a.locs[2], p.uns);
      other = broadcastTo(ov, shapeOf(ptr.getType()), a.locs[2]);
      if (shapeOf(other.getType()) != shapeOf(ptr.getType()))
        fail(a.locs[2], "load()'s other has shape " +
                            shapeText(shapeOf(other.getType())) +
                            ", the pointers " +
                            shapeText(shapeOf(ptr.getType())));
    }
    // Through a pointer to unsigned integers: an unsigned block.
    return Val::runtime(kd::LoadOp::create(b, lc, ptr, mask, other), p.uns);
  }
  if (n == "store") {
    Args a = bindArgs(e, n,
                      {"pointer", "value", "mask", "boundary_check",
                       "cache_modifier", "eviction_policy"},
                      2);
    checkMemoryHints(a, 4, n);
    Val p = a.values[0];
    if (p.kind == Val::BlockPtr) {
      if (a.given[2] && a.values[2].kind != Val::None)
        fail(a.locs[2], "store() through a block pointer takes "
                        "boundary_check=, not mask=");
      auto [ptr, mask] =
          blockPtrAccess(p, a.values[3], a.given[3], e.loc, a.locs[3]);
      Type pointee =
          llvm::cast<kd::PointerType>(elemOf(ptr.getType())).getPointeeType();
      Val v = a.values[1];
      bool pu = p.elems[0].uns;
      mlir::Value value = v.kind == Val::Runtime
                              ? cast(v.v, pointee, a.locs[1], v.uns, pu)
                              : materialize(v, pointee, a.locs[1], pu);
      SmallVector<int64_t> shape(shapeOf(ptr.getType()));
      if (shapeOf(value.getType()) != ArrayRef<int64_t>(shape) &&
          !shapeOf(value.getType()).empty())
        fail(a.locs[1], "store() of a " + describe(Val::runtime(value)) +
                            " through a block pointer of blocks " +
                            shapeText(shape));
      value = broadcastTo(value, shape, e.loc);
      // Every dimension checked: a tensor descriptor's store (a TMA store
      // on sm_90a where it applies, else the same masked pointers).
      if (auto desc = blockPtrDescriptor(p, a.values[3], a.given[3], e.loc,
                                         a.locs[3])) {
        kd::DescriptorStoreOp::create(b, lc, desc->first, desc->second, value);
        return Val();
      }
      kd::StoreOp::create(b, lc, ptr, value, mask);
      return Val();
    }
    if (a.given[3])
      fail(a.locs[3], "store()'s boundary_check is for block pointers "
                      "(make_block_ptr); use mask=");
    if (p.kind != Val::Runtime || !isPtr(p.v.getType()))
      fail(a.locs[0], "store() needs a pointer or a block of pointers, got " +
                          describe(p));
    mlir::Value ptr = p.v;
    Type pointee = llvm::cast<kd::PointerType>(elemOf(ptr.getType())).getPointeeType();
    Val v = a.values[1];
    mlir::Value value = v.kind == Val::Runtime
                            ? cast(v.v, pointee, a.locs[1], v.uns, p.uns)
                            : materialize(v, pointee, a.locs[1], p.uns);
    mlir::Value mask;
    SmallVector<int64_t> shape(shapeOf(ptr.getType()));
    if (a.given[2] && a.values[2].kind != Val::None) {
      mask = asBool(a.values[2], a.locs[2], "store()'s mask");
      shape = broadcastShape(shape, shapeOf(mask.getType()), a.locs[2]);
    }
    shape = broadcastShape(shape, shapeOf(value.getType()), a.locs[1]);
    ptr = broadcastTo(ptr, shape, e.loc);
    value = broadcastTo(value, shape, e.loc);
    if (mask)
      mask = broadcastTo(mask, shape, e.loc);
    kd::StoreOp::create(b, lc, ptr, value, mask);
    return Val();
  }
  fail(e.loc, "not a memory builtin: " + n);
}

} // namespace kite::frontend
