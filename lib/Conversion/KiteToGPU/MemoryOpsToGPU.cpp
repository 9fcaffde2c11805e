//===- MemoryOpsToGPU.cpp - addptr, load and store ------------------------===//
//
// Lowers pointer arithmetic and global memory accesses. Blocks of pointers
// are per-thread vectors of i64 addresses. A load or store of a block is cut
// into groups of consecutive registers; a group becomes one vector access
// (up to 16 bytes) when the AxisInfo facts prove its addresses consecutive
// and aligned, else one access per element. Masks:
//   - uniform over the group (proved): one predicated vector access;
//   - otherwise: the vector access when the whole group is enabled, else
//     per-element predicated accesses (ragged tails stay correct).
// Masked-off lanes are never accessed; a masked load yields `other` there
// (zero without `other`).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

/// The type a pointee is stored as in memory (i1 as i8, like Triton).
static Type memoryType(Type pointee) {
  if (pointee.isInteger(1))
    return IntegerType::get(pointee.getContext(), 8);
  return pointee;
}

static int64_t memoryBytes(Type pointee) {
  return memoryType(pointee).getIntOrFloatBitWidth() / 8;
}

static Value toMemory(OpBuilder &b, Location loc, Value v, Type memType) {
  if (v.getType() == memType)
    return v;
  return arith::ExtUIOp::create(b, loc, memType, v);
}

static Value fromMemory(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  Value zero = constantOf(b, loc, v.getType(), 0);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
}

namespace {

/// How a block access is cut into groups of registers.
struct AccessPlan {
  int64_t width = 1;      ///< registers per vector access
  bool uniformMask = false; ///< the mask is constant within each group
};

/// Chooses the vector width of an access to a block of pointers `ptrs`
/// with optional `mask`, from the layout and the AxisInfo facts.
static AccessPlan planAccess(const KiteLoweringState &state,
                             const BlockedLayout &layout, Value ptrs,
                             Value mask, int64_t elementBytes) {
  AccessPlan plan;
  if (layout.isReplicated())
    return plan;
  AxisInfo info = state.axisInfo.get(ptrs);
  int64_t width = std::min<int64_t>(layout.chunk, 16 / elementBytes);
  width = std::min<int64_t>(width, info.contiguity);
  width = std::min<int64_t>(width, info.divisibility / elementBytes);
  plan.width = std::max<int64_t>(1, llvm::bit_floor(uint64_t(std::max<int64_t>(width, 1))));
  plan.uniformMask = !mask || state.axisInfo.get(mask).constancy >= plan.width;
  return plan;
}

/// Address (as !llvm.ptr<1>) of register `e` of a block of i64 addresses.
static Value addressOf(OpBuilder &b, Location loc, Value addrs, int64_t e) {
  Value addr = extractRegister(b, loc, addrs, e);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), addr);
}

/// Loads `width` elements of `memType` at `ptr` (a vector if width > 1).
static Value emitLoad(OpBuilder &b, Location loc, Value ptr, Type memType,
                      int64_t width) {
  Type type = width == 1 ? memType : VectorType::get({width}, memType);
  int64_t align = width * memType.getIntOrFloatBitWidth() / 8;
  return LLVM::LoadOp::create(b, loc, type, ptr, align);
}

static void emitStore(OpBuilder &b, Location loc, Value value, Value ptr) {
  Type type = value.getType();
  int64_t width = 1;
  if (auto vec = dyn_cast<VectorType>(type)) {
    width = vec.getNumElements();
    type = vec.getElementType();
  }
  LLVM::StoreOp::create(b, loc, value, ptr,
                        width * type.getIntOrFloatBitWidth() / 8);
}

/// `v` if it is a vector, else a 1-element vector of it.
static Value slice(OpBuilder &b, Location loc, Value vec, int64_t offset,
                   int64_t width) {
  if (width == 1)
    return extractRegister(b, loc, vec, offset);
  SmallVector<int64_t> indices;
  for (int64_t i = 0; i < width; ++i)
    indices.push_back(offset + i);
  return vector::ShuffleOp::create(b, loc, vec, vec, indices);
}

/// The AND of registers [offset, offset + width) of an i1 vector.
static Value allOf(OpBuilder &b, Location loc, Value mask, int64_t offset,
                   int64_t width) {
  Value all = extractRegister(b, loc, mask, offset);
  for (int64_t i = 1; i < width; ++i)
    all = arith::AndIOp::create(b, loc, all,
                                extractRegister(b, loc, mask, offset + i));
  return all;
}

/// Pattern: kite.addptr p, off => getelementptr (scalar) or
///          addrs + sext(off) * sizeof(T) (blocks)
struct AddPtrLowering : OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = memoryType(
        cast<PointerType>(getElementTypeOrSelf(op.getType())).getPointeeType());
    Value ptr = adaptor.getPtr(), offset = adaptor.getOffset();
    if (!isa<VectorType>(ptr.getType())) {
      rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
          op, ptr.getType(), pointee, ptr, ValueRange{offset});
      return success();
    }
    auto vecType = cast<VectorType>(ptr.getType());
    if (!getElementTypeOrSelf(offset.getType()).isInteger(64))
      offset = arith::ExtSIOp::create(rewriter, loc, vecType, offset);
    Value bytes = constantOf(rewriter, loc, vecType,
                             pointee.getIntOrFloatBitWidth() / 8);
    Value scaled = arith::MulIOp::create(rewriter, loc, offset, bytes);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, ptr, scaled);
    return success();
  }
};

/// Pattern: kite.load => grouped (vector) llvm.load under scf.if masks
struct LoadLowering : OpConversionPattern<LoadOp> {
  LoadLowering(KiteTypeConverter &converter, const KiteLoweringState &state,
               MLIRContext *context)
      : OpConversionPattern(converter, context), state(state) {}

  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = getElementTypeOrSelf(op.getType());
    Type memType = memoryType(pointee);
    Value ptrs = adaptor.getPtr(), mask = adaptor.getMask();
    Value other = adaptor.getOther();
    Type resultType = getTypeConverter()->convertType(op.getType());

    // Scalar load.
    if (!isa<VectorType>(ptrs.getType())) {
      auto load = [&](OpBuilder &b, Location l) {
        return fromMemory(b, l, emitLoad(b, l, ptrs, memType, 1), pointee);
      };
      rewriter.replaceOp(op, guarded(rewriter, loc, mask, load, other,
                                     resultType));
      return success();
    }

    auto &converter = *getTypeConverter<KiteTypeConverter>();
    BlockedLayout layout =
        converter.getLayout(cast<RankedTensorType>(op.getPtr().getType()));
    AccessPlan plan = planAccess(state, layout, op.getPtr(), op.getMask(),
                                 memoryBytes(pointee));
    int64_t w = plan.width;
    Value result = constantOf(rewriter, loc, resultType, 0);
    for (int64_t g = 0; g < layout.perThread; g += w) {
      Type groupType =
          w == 1 ? pointee : Type(VectorType::get({w}, pointee));
      Value groupOther = other ? slice(rewriter, loc, other, g, w) : Value();
      auto vectorLoad = [&](OpBuilder &b, Location l) {
        Value v = emitLoad(b, l, addressOf(b, l, ptrs, g), memType, w);
        return fromMemory(b, l, v, groupType);
      };
      Value value;
      if (!mask) {
        value = vectorLoad(rewriter, loc);
      } else if (plan.uniformMask || w == 1) {
        value = guarded(rewriter, loc, extractRegister(rewriter, loc, mask, g),
                        vectorLoad, groupOther, groupType);
      } else {
        // Fast path when the whole group is enabled, else element by element.
        Value all = allOf(rewriter, loc, mask, g, w);
        auto ifOp = scf::IfOp::create(
            rewriter, loc, all,
            [&](OpBuilder &b, Location l) {
              scf::YieldOp::create(b, l, vectorLoad(b, l));
            },
            [&](OpBuilder &b, Location l) {
              Value acc = constantOf(b, l, groupType, 0);
              for (int64_t i = 0; i < w; ++i) {
                auto one = [&](OpBuilder &bb, Location ll) {
                  return fromMemory(
                      bb, ll,
                      emitLoad(bb, ll, addressOf(bb, ll, ptrs, g + i), memType,
                               1),
                      pointee);
                };
                Value o = other ? extractRegister(b, l, other, g + i) : Value();
                Value e = guarded(b, l, extractRegister(b, l, mask, g + i), one,
                                  o, pointee);
                acc = vector::InsertOp::create(b, l, e, acc, i);
              }
              scf::YieldOp::create(b, l, acc);
            });
        value = ifOp.getResult(0);
      }
      result = insertGroup(rewriter, loc, value, result, g, w);
    }
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  /// `load()` if `cond` (or unconditionally without a mask), else `other`
  /// (zero when absent).
  static Value guarded(OpBuilder &b, Location loc, Value cond,
                       function_ref<Value(OpBuilder &, Location)> load,
                       Value other, Type type) {
    if (!cond)
      return load(b, loc);
    auto ifOp = scf::IfOp::create(
        b, loc, cond,
        [&](OpBuilder &bb, Location l) {
          scf::YieldOp::create(bb, l, load(bb, l));
        },
        [&](OpBuilder &bb, Location l) {
          Value o = other ? other : constantOf(bb, l, type, 0);
          scf::YieldOp::create(bb, l, o);
        });
    return ifOp.getResult(0);
  }

  static Value insertGroup(OpBuilder &b, Location loc, Value group,
                           Value into, int64_t offset, int64_t width) {
    if (width == 1)
      return vector::InsertOp::create(b, loc, group, into, offset);
    for (int64_t i = 0; i < width; ++i)
      into = vector::InsertOp::create(
          b, loc, vector::ExtractOp::create(b, loc, group, i), into,
          offset + i);
    return into;
  }

  const KiteLoweringState &state;
};

/// Pattern: kite.store => grouped (vector) llvm.store under scf.if masks
struct StoreLowering : OpConversionPattern<StoreOp> {
  StoreLowering(KiteTypeConverter &converter, const KiteLoweringState &state,
                MLIRContext *context)
      : OpConversionPattern(converter, context), state(state) {}

  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = getElementTypeOrSelf(op.getValue().getType());
    Type memType = memoryType(pointee);
    Value ptrs = adaptor.getPtr(), mask = adaptor.getMask();
    Value value = adaptor.getValue();

    if (!isa<VectorType>(ptrs.getType())) {
      guarded(rewriter, loc, mask, [&](OpBuilder &b, Location l) {
        emitStore(b, l, toMemory(b, l, value, memType), ptrs);
      });
      rewriter.eraseOp(op);
      return success();
    }

    auto &converter = *getTypeConverter<KiteTypeConverter>();
    BlockedLayout layout =
        converter.getLayout(cast<RankedTensorType>(op.getPtr().getType()));
    if (layout.isReplicated()) {
      // Several threads hold each element: only the first copy is stored.
      Value tid = threadId(rewriter, loc);
      Value n = arith::ConstantIntOp::create(rewriter, loc,
                                             rewriter.getI32Type(),
                                             layout.numel);
      Value owner = arith::CmpIOp::create(rewriter, loc,
                                          arith::CmpIPredicate::ult, tid, n);
      Value owners = splatLike(rewriter, loc, owner, ptrs.getType());
      mask = mask ? arith::AndIOp::create(rewriter, loc, mask, owners).getResult()
                  : owners;
    }
    AccessPlan plan = planAccess(state, layout, op.getPtr(), op.getMask(),
                                 memoryBytes(pointee));
    if (layout.isReplicated())
      plan.uniformMask = false;
    int64_t w = plan.width;
    Type memGroupType = w == 1 ? memType : Type(VectorType::get({w}, memType));
    for (int64_t g = 0; g < layout.perThread; g += w) {
      auto vectorStore = [&](OpBuilder &b, Location l) {
        Value v = slice(b, l, value, g, w);
        if (memType != pointee)
          v = arith::ExtUIOp::create(b, l, memGroupType, v);
        emitStore(b, l, v, addressOf(b, l, ptrs, g));
      };
      if (!mask) {
        vectorStore(rewriter, loc);
      } else if (plan.uniformMask || w == 1) {
        guarded(rewriter, loc, extractRegister(rewriter, loc, mask, g),
                vectorStore);
      } else {
        Value all = allOf(rewriter, loc, mask, g, w);
        scf::IfOp::create(
            rewriter, loc, all,
            [&](OpBuilder &b, Location l) {
              vectorStore(b, l);
              scf::YieldOp::create(b, l);
            },
            [&](OpBuilder &b, Location l) {
              for (int64_t i = 0; i < w; ++i)
                guarded(b, l, extractRegister(b, l, mask, g + i),
                        [&](OpBuilder &bb, Location ll) {
                          Value v = toMemory(
                              bb, ll, extractRegister(bb, ll, value, g + i),
                              memType);
                          emitStore(bb, ll, v, addressOf(bb, ll, ptrs, g + i));
                        });
              scf::YieldOp::create(b, l);
            });
      }
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  static void guarded(OpBuilder &b, Location loc, Value cond,
                      function_ref<void(OpBuilder &, Location)> store) {
    if (!cond) {
      store(b, loc);
      return;
    }
    scf::IfOp::create(b, loc, cond, [&](OpBuilder &bb, Location l) {
      store(bb, l);
      scf::YieldOp::create(bb, l);
    });
  }

  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateMemoryOpPatterns(KiteTypeConverter &converter,
                                          const KiteLoweringState &state,
                                          RewritePatternSet &patterns) {
  patterns.add<AddPtrLowering>(converter, patterns.getContext());
  patterns.add<LoadLowering, StoreLowering>(converter, state,
                                            patterns.getContext());
}
