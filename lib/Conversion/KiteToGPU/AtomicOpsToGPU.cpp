//===- AtomicOpsToGPU.cpp - kite.atomic_rmw and kite.atomic_cas ------------===//
//
// Each element of an atomic is done once, by its owner: the thread whose
// replication bits (LinearLayout: thread bits that move no element) are 0, or
// thread 0 for a scalar pointer. An owner's register becomes an LLVM
// `atomicrmw`/`cmpxchg` (NVPTX: atom.global.*) under `scf.if` on its mask;
// masked-off elements give 0. Read-modify-writes are PTX `atom` with
// Triton's order and scope spelled out (atom.acq_rel.gpu.global.add.f32;
// LLVM 22's NVPTX drops both from atomicrmw); compare-and-swap is LLVM's
// cmpxchg (orders and sync scopes kept: cta block, gpu device, sys system).
// Float max/min use the integer trick: a value >= +0 is the signed maximum
// of the bits, a negative one the unsigned minimum (and the reverse for
// min), which orders floats as numbers. When other threads hold copies of
// an element and the result is used, the owners publish their results
// through the scratch buffer and every thread reads its copy.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"
#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {

LLVM::AtomicOrdering orderingOf(MemSemantic s) {
  switch (s) {
  case MemSemantic::Relaxed:
    return LLVM::AtomicOrdering::monotonic;
  case MemSemantic::Acquire:
    return LLVM::AtomicOrdering::acquire;
  case MemSemantic::Release:
    return LLVM::AtomicOrdering::release;
  case MemSemantic::AcqRel:
    return LLVM::AtomicOrdering::acq_rel;
  }
  return LLVM::AtomicOrdering::acq_rel;
}

StringRef syncScopeOf(MemScope s) {
  switch (s) {
  case MemScope::CTA:
    return "block";
  case MemScope::GPU:
    return "device";
  case MemScope::Sys:
    return "";
  }
  return "device";
}

/// Lowers both atomics: `emit` makes the atomic of one register
/// (address, register index) and returns the old value.
template <typename OpT>
LogicalResult lowerAtomic(OpT op, Value ptrs, Value mask,
                          ConversionPatternRewriter &b,
                          const KiteTypeConverter &conv,
                          const KiteLoweringState &state,
                          function_ref<Value(Value, int64_t)> emit) {
  Location loc = op.getLoc();
  Type resultType = conv.convertType(op->getResult(0));
  Type elem = getElementTypeOrSelf(resultType);
  bool isBlock = isa<RankedTensorType>(op.getType());
  std::optional<BlockedLayout> layout;
  if (isBlock)
    layout = conv.getLayout(op.getPtr());
  int64_t perThread = layout ? layout->perThread : 1;
  Value owner = ownerPredicate(b, loc, layout);
  Value result = isBlock ? constantOf(b, loc, resultType, 0) : Value();
  SmallVector<Value> olds;
  for (int64_t e = 0; e < perThread; ++e) {
    Value addr = isa<LLVM::LLVMPointerType>(ptrs.getType())
                     ? LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptrs)
                           .getResult()
                     : extractRegister(b, loc, ptrs, e);
    Value pred = owner;
    if (mask) {
      Value m = extractRegister(b, loc, mask, e);
      pred = pred ? arith::AndIOp::create(b, loc, pred, m).getResult() : m;
    }
    Value old;
    if (!pred) {
      old = emit(addr, e);
    } else {
      auto branch = scf::IfOp::create(b, loc, TypeRange{elem}, pred,
                                      /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&branch.getThenRegion().front());
        scf::YieldOp::create(b, loc, emit(addr, e));
        b.setInsertionPointToStart(&branch.getElseRegion().front());
        scf::YieldOp::create(b, loc, constantOf(b, loc, elem, 0));
      }
      old = branch.getResult(0);
    }
    olds.push_back(old);
  }
  // Copies of an element in other threads read the owner's result.
  if (owner && !op.getResult().use_empty()) {
    Scratch s(b, loc, state);
    Type kiteElem = getElementTypeOrSelf(op.getType());
    s.barrier();
    Value base = layout ? threadBase(b, loc, *layout) : i32Const(b, loc, 0);
    for (int64_t e = 0; e < perThread; ++e) {
      Value lin = arith::AddIOp::create(
          b, loc, base, i32Const(b, loc, layout ? layout->registerOffset(e) : 0));
      auto store = scf::IfOp::create(b, loc, owner, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&store.getThenRegion().front());
      LLVM::StoreOp::create(b, loc, olds[e], s.address(0, lin, kiteElem));
    }
    s.barrier();
    for (int64_t e = 0; e < perThread; ++e) {
      Value lin = arith::AddIOp::create(
          b, loc, base, i32Const(b, loc, layout ? layout->registerOffset(e) : 0));
      olds[e] = s.load(0, lin, elem, kiteElem);
    }
  }
  if (!isBlock) {
    b.replaceOp(op, olds[0]);
    return success();
  }
  for (int64_t e = 0; e < perThread; ++e)
    result = vector::InsertOp::create(b, loc, olds[e], result, e);
  b.replaceOp(op, result);
  return success();
}

struct AtomicRMWLowering : OpConversionPattern<AtomicRMWOp> {
  AtomicRMWLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                    MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    Location loc = op.getLoc();
    Type elem = getElementTypeOrSelf(conv.convertType(op->getResult(0)));
    bool isFloat = isa<FloatType>(elem);
    Value values = adaptor.getValue();
    // PTX `atom` with the order and scope spelled out: LLVM 22's NVPTX
    // drops both from atomicrmw (an acq_rel add came out as a relaxed
    // atom.global.add), so the instruction is written here, on the i64
    // address.
    auto rmw = [&](LLVM::AtomicBinOp bin, Value addr, Value v) -> Value {
      Type t = v.getType();
      unsigned bits = t.getIntOrFloatBitWidth();
      std::string opName, typeName;
      switch (bin) {
      case LLVM::AtomicBinOp::add:
        opName = "add", typeName = bits == 64 ? "u64" : "u32";
        break;
      case LLVM::AtomicBinOp::fadd:
        opName = "add";
        typeName = t.isF16()    ? "noftz.f16"
                   : t.isBF16() ? "noftz.bf16"
                   : t.isF32()  ? "f32"
                                : "f64";
        break;
      case LLVM::AtomicBinOp::max:
      case LLVM::AtomicBinOp::min:
        opName = bin == LLVM::AtomicBinOp::max ? "max" : "min";
        typeName = bits == 64 ? "s64" : "s32";
        break;
      case LLVM::AtomicBinOp::umax:
      case LLVM::AtomicBinOp::umin:
        opName = bin == LLVM::AtomicBinOp::umax ? "max" : "min";
        typeName = bits == 64 ? "u64" : "u32";
        break;
      case LLVM::AtomicBinOp::_and:
      case LLVM::AtomicBinOp::_or:
      case LLVM::AtomicBinOp::_xor:
        opName = bin == LLVM::AtomicBinOp::_and  ? "and"
                 : bin == LLVM::AtomicBinOp::_or ? "or"
                                                 : "xor";
        typeName = bits == 64 ? "b64" : "b32";
        break;
      default: // xchg
        opName = "exch", typeName = bits == 64 ? "b64" : "b32";
        break;
      }
      static const char *sems[] = {"relaxed", "acquire", "release", "acq_rel"};
      static const char *scopes[] = {"gpu", "cta", "sys"};
      std::string text = std::string("atom.") + sems[int(op.getSem())] + "." +
                         scopes[int(op.getScope())] + ".global." + opName +
                         "." + typeName + " $0, [$1], $2;";
      Type regType = b.getIntegerType(bits);
      Value raw = isa<FloatType>(t)
                      ? arith::BitcastOp::create(b, loc, regType, v).getResult()
                      : v;
      const char *c = bits == 64 ? "=l,l,l" : bits == 16 ? "=h,l,h" : "=r,l,r";
      Value old =
          LLVM::InlineAsmOp::create(
              b, loc, regType, ValueRange{addr, raw}, text, c,
              /*has_side_effects=*/true, /*is_align_stack=*/false,
              LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
              ArrayAttr())
              .getResult(0);
      return isa<FloatType>(t)
                 ? arith::BitcastOp::create(b, loc, t, old).getResult()
                 : old;
    };
    auto emit = [&](Value addr, int64_t e) -> Value {
      Value v = extractRegister(b, loc, values, e);
      switch (op.getKind()) {
      case AtomicKind::Add:
        return rmw(isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add,
                   addr, v);
      case AtomicKind::And:
        return rmw(LLVM::AtomicBinOp::_and, addr, v);
      case AtomicKind::Or:
        return rmw(LLVM::AtomicBinOp::_or, addr, v);
      case AtomicKind::Xor:
        return rmw(LLVM::AtomicBinOp::_xor, addr, v);
      case AtomicKind::Xchg:
        return rmw(LLVM::AtomicBinOp::xchg, addr, v);
      case AtomicKind::UMax:
        return rmw(LLVM::AtomicBinOp::umax, addr, v);
      case AtomicKind::UMin:
        return rmw(LLVM::AtomicBinOp::umin, addr, v);
      case AtomicKind::Max:
      case AtomicKind::Min: {
        bool isMax = op.getKind() == AtomicKind::Max;
        if (!isFloat)
          return rmw(isMax ? LLVM::AtomicBinOp::max : LLVM::AtomicBinOp::min,
                     addr, v);
        // Floats as integers: non-negative values order like signed ints,
        // negative ones reversed like unsigned ones.
        Type intType = b.getIntegerType(elem.getIntOrFloatBitWidth());
        Value bits = arith::BitcastOp::create(b, loc, intType, v);
        Value nonNegative = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::sge, bits,
            arith::ConstantIntOp::create(b, loc, intType, 0));
        auto branch = scf::IfOp::create(b, loc, TypeRange{intType},
                                        nonNegative, true);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&branch.getThenRegion().front());
        scf::YieldOp::create(
            b, loc,
            rmw(isMax ? LLVM::AtomicBinOp::max : LLVM::AtomicBinOp::min, addr,
                bits));
        b.setInsertionPointToStart(&branch.getElseRegion().front());
        scf::YieldOp::create(
            b, loc,
            rmw(isMax ? LLVM::AtomicBinOp::umin : LLVM::AtomicBinOp::umax, addr,
                bits));
        b.setInsertionPointAfter(branch);
        return arith::BitcastOp::create(b, loc, elem, branch.getResult(0));
      }
      }
      return Value();
    };
    return lowerAtomic(op, adaptor.getPtr(), adaptor.getMask(), b, conv, state,
                       emit);
  }
  const KiteLoweringState &state;
};

struct AtomicCASLowering : OpConversionPattern<AtomicCASOp> {
  AtomicCASLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                    MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(AtomicCASOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    Location loc = op.getLoc();
    Type elem = getElementTypeOrSelf(conv.convertType(op->getResult(0)));
    Type intType = b.getIntegerType(elem.getIntOrFloatBitWidth());
    auto success = orderingOf(op.getSem());
    // A failed exchange only reads: no release in its order.
    auto failure = success == LLVM::AtomicOrdering::release
                       ? LLVM::AtomicOrdering::monotonic
                   : success == LLVM::AtomicOrdering::acq_rel
                       ? LLVM::AtomicOrdering::acquire
                       : success;
    StringRef scope = syncScopeOf(op.getScope());
    auto emit = [&](Value addr, int64_t e) -> Value {
      auto asInt = [&](Value v) -> Value {
        return v.getType() == intType
                   ? v
                   : arith::BitcastOp::create(b, loc, intType, v).getResult();
      };
      Value cmp = asInt(extractRegister(b, loc, adaptor.getCmp(), e));
      Value val = asInt(extractRegister(b, loc, adaptor.getValue(), e));
      Value pair = LLVM::AtomicCmpXchgOp::create(
          b, loc, toPointer(b, loc, addr), cmp, val, success, failure, scope);
      Value old = LLVM::ExtractValueOp::create(b, loc, pair, 0);
      return old.getType() == elem
                 ? old
                 : arith::BitcastOp::create(b, loc, elem, old).getResult();
    };
    return lowerAtomic(op, adaptor.getPtr(), Value(), b, conv, state, emit);
  }
  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateAtomicOpPatterns(KiteTypeConverter &converter,
                                          const KiteLoweringState &state,
                                          RewritePatternSet &patterns) {
  patterns.add<AtomicRMWLowering, AtomicCASLowering>(converter, state,
                                                     patterns.getContext());
}
