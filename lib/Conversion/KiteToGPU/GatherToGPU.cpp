//===- GatherToGPU.cpp - kite.gather and kite.histogram through shared memory -===//
//
// kite.gather: the source block is published at its linear indices (one
// store a register, a barrier), then each result register, in the index
// block's layout (LayoutAssignment joins the two), reads the source at its
// own coordinates with the axis's one replaced by its index register.
//
// kite.histogram: the bins (i32, one a value 0 .. n-1) are zeroed in shared
// memory by all threads in turn, and after a barrier each element of the
// source in range (and masked in) adds one to its bin with a shared-memory
// atomic (`atom.shared.add`), once per element: replicated copies in other
// threads skip it (ownerPredicate); after a barrier each result register
// reads its bin.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {

/// `v` (an integer) as i32: truncated or sign-extended.
Value toI32(OpBuilder &b, Location loc, Value v) {
  unsigned w = v.getType().getIntOrFloatBitWidth();
  if (w > 32)
    return arith::TruncIOp::create(b, loc, b.getI32Type(), v);
  if (w < 32)
    return arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
  return v;
}

struct GatherLowering : OpConversionPattern<GatherOp> {
  GatherLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                 MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}

  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    Location loc = op.getLoc();
    RankedTensorType srcType = op.getSrc().getType(), type = op.getType();
    const BlockedLayout &out = conv.getLayout(op.getResult());
    if (!conv.getLayout(op.getIndex()).placesLike(out))
      return op.emitOpError()
             << "the index and the result must share a layout when lowered";
    Scratch s(rewriter, loc, state);
    s.publish(adaptor.getSrc(), srcType, conv.getLayout(op.getSrc()));
    int64_t axis = op.getAxis();
    Value result =
        s.gather(conv, type, out, srcType.getElementType(),
                 [&](ArrayRef<Value> coords, int64_t e) {
                   SmallVector<Value> c(coords);
                   c[axis] = toI32(
                       rewriter, loc,
                       extractRegister(rewriter, loc, adaptor.getIndex(), e));
                   return s.linear(c, srcType.getShape());
                 });
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

struct HistogramLowering : OpConversionPattern<HistogramOp> {
  HistogramLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                    MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}

  LogicalResult
  matchAndRewrite(HistogramOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t bins = type.getNumElements();
    const BlockedLayout &srcLayout = conv.getLayout(op.getSrc());
    const BlockedLayout &out = conv.getLayout(op.getResult());
    Type i32 = rewriter.getI32Type();
    Scratch s(rewriter, loc, state);

    // Zero the bins: thread t clears t, t + threads, ...
    s.barrier(); // earlier readers of the scratch are done
    int64_t threads = out.numThreads;
    Value tid = threadId(rewriter, loc);
    Value zero = s.i32(0);
    for (int64_t first = 0; first < bins; first += threads) {
      Value i = arith::AddIOp::create(rewriter, loc, tid, s.i32(first));
      auto clear = [&](OpBuilder &b) {
        LLVM::StoreOp::create(b, loc, zero, s.address(0, i, i32));
      };
      if (first + threads <= bins) {
        clear(rewriter);
        continue;
      }
      Value inRange = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, i, s.i32(bins));
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, inRange, false);
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      clear(rewriter);
    }
    s.barrier();

    // Count: each element once, in range and masked in.
    Value owner = ownerPredicate(rewriter, loc, srcLayout);
    Value src = adaptor.getSrc(), mask = adaptor.getMask();
    Type elem = cast<VectorType>(src.getType()).getElementType();
    Value lo = arith::ConstantIntOp::create(rewriter, loc, elem, 0);
    Value hi = arith::ConstantIntOp::create(rewriter, loc, elem, bins);
    Value one = s.i32(1);
    for (int64_t e = 0; e < srcLayout.perThread; ++e) {
      Value v = extractRegister(rewriter, loc, src, e);
      Value take = arith::AndIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, v,
                                lo),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, v,
                                hi));
      if (mask)
        take = arith::AndIOp::create(rewriter, loc, take,
                                     extractRegister(rewriter, loc, mask, e));
      if (owner)
        take = arith::AndIOp::create(rewriter, loc, take, owner);
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, take, false);
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      LLVM::AtomicRMWOp::create(rewriter, loc, LLVM::AtomicBinOp::add,
                                s.address(0, toI32(rewriter, loc, v), i32), one,
                                LLVM::AtomicOrdering::monotonic);
    }
    s.barrier();

    // Each result register reads its bin.
    Value result = s.gather(conv, type, out, type.getElementType(),
                            [&](ArrayRef<Value> c) { return c[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateGatherPatterns(KiteTypeConverter &converter,
                                        const KiteLoweringState &state,
                                        RewritePatternSet &patterns) {
  patterns.add<GatherLowering, HistogramLowering>(converter, state,
                                                  patterns.getContext());
}
