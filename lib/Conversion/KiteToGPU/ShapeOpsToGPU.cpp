//===- ShapeOpsToGPU.cpp - trans, flip, join, split and reshape -----------===//
//
// Ops that change which element a register holds without changing values:
//   - kite.trans: the registers, when the result's layout places each
//     element where the operand's placed it (BlockedLayout::untranspose);
//     else each thread publishes its registers to shared memory at their
//     linear index in the operand, then reads each result register at the
//     permuted coordinates;
//   - kite.flip: likewise, the flipped dimension read backwards;
//   - kite.join: both operands published one after the other, each result
//     register read from the one its last coordinate names; kite.split:
//     the operand published, each half gathered at last coordinate 0 or 1;
//   - kite.reshape: the same linear index in both shapes, so the registers
//     are forwarded when both layouts place elements alike (linear layouts
//     depend only on the element count), else exchanged through shared
//     memory like trans.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

bool mlir::kite::movesInRegisters(Operation *op, const KiteTypeConverter &conv) {
  if (auto reshape = dyn_cast<ReshapeOp>(op))
    return conv.getLayout(reshape.getSrc())
        .placesLike(conv.getLayout(reshape.getResult()));
  if (auto trans = dyn_cast<TransOp>(op)) {
    if (isElidedTranspose(trans))
      return true;
    auto places = conv.getLayout(trans.getResult())
                      .untranspose(trans.getSrc().getType().getShape(),
                                   trans.getOrder());
    return places && places->placesLike(conv.getLayout(trans.getSrc()));
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(op))
    return broadcast.getSrc().getType().getNumElements() ==
               broadcast.getType().getNumElements() ||
           broadcastArangeSource(broadcast) ||
           broadcastRegisterPick(broadcast, conv);
  return false;
}

namespace {

/// Pattern: kite.trans => the registers, or through shared memory.
struct TransLowering : OpConversionPattern<TransOp> {
  TransLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    RankedTensorType srcType = op.getSrc().getType(), type = op.getType();
    // Read by a tensor-core dot that stores the source itself: nothing
    // to move (the dot's lowering takes the source's registers).
    if (isElidedTranspose(op)) {
      rewriter.replaceOpWithNewOp<LLVM::PoisonOp>(op, conv.convertType(op.getResult()));
      return success();
    }
    ArrayRef<int32_t> order = op.getOrder();
    // Each thread holding the transposed places of its source's elements
    // (LayoutAssignment gives a small block's source such a layout): the
    // registers as they are.
    if (movesInRegisters(op, conv)) {
      rewriter.replaceOp(op, adaptor.getSrc());
      return success();
    }
    Scratch s(rewriter, op.getLoc(), state);
    s.publish(adaptor.getSrc(), srcType, conv.getLayout(op.getSrc()));
    Value result = s.gather(
        conv, type, conv.getLayout(op.getResult()), srcType.getElementType(),
        [&](ArrayRef<Value> c) {
          SmallVector<Value> src(c.size());
          for (size_t i = 0; i < c.size(); ++i)
            src[order[i]] = c[i];
          return s.linear(src, srcType.getShape());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

/// Pattern: kite.flip => through shared memory, the dimension read
/// backwards.
struct FlipLowering : OpConversionPattern<FlipOp> {
  FlipLowering(KiteTypeConverter &c, const KiteLoweringState &s,
               MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(FlipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    RankedTensorType type = op.getType();
    Scratch s(rewriter, op.getLoc(), state);
    s.publish(adaptor.getSrc(), type, conv.getLayout(op.getSrc()));
    int64_t dim = op.getDim(), n = type.getDimSize(dim);
    Value result = s.gather(
        conv, type, conv.getLayout(op.getResult()), type.getElementType(),
        [&](ArrayRef<Value> c) {
          SmallVector<Value> src(c);
          src[dim] = arith::SubIOp::create(rewriter, op.getLoc(),
                                           s.i32(n - 1), c[dim]);
          return s.linear(src, type.getShape());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

/// Pattern: kite.reshape => the registers, or through shared memory.
struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  ReshapeLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                  MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    BlockedLayout in = conv.getLayout(op.getSrc()),
                  out = conv.getLayout(op.getResult());
    if (movesInRegisters(op, conv)) { // both place every element alike
      rewriter.replaceOp(op, adaptor.getSrc());
      return success();
    }
    RankedTensorType srcType = op.getSrc().getType(), type = op.getType();
    Scratch s(rewriter, op.getLoc(), state);
    s.publish(adaptor.getSrc(), srcType, in);
    Value result = s.gather(conv, type, out, srcType.getElementType(),
                            [&](ArrayRef<Value> c) {
                              return s.linear(c, type.getShape());
                            });
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

/// Pattern: kite.join => both operands published side by side, then each
/// result register read from the one its last coordinate names.
struct JoinLowering : OpConversionPattern<JoinOp> {
  JoinLowering(KiteTypeConverter &c, const KiteLoweringState &s,
               MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(JoinOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    RankedTensorType part = op.getLhs().getType(), type = op.getType();
    Scratch s(rewriter, op.getLoc(), state);
    // rhs right after lhs: element i of the pair k is at k * n + i.
    int64_t n = part.getNumElements();
    s.barrier();
    s.store(adaptor.getLhs(), part, conv.getLayout(op.getLhs()), 0);
    s.store(adaptor.getRhs(), part, conv.getLayout(op.getRhs()),
            n * elementBytes(part.getElementType()));
    s.barrier();
    Value result = s.gather(
        conv, type, conv.getLayout(op.getResult()), part.getElementType(),
        [&](ArrayRef<Value> c) {
          Value k = c.back();
          Value i = s.linear(c.drop_back(), part.getShape());
          return arith::AddIOp::create(
              rewriter, op.getLoc(), i,
              arith::MulIOp::create(rewriter, op.getLoc(), k, s.i32(n)));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

/// Pattern: kite.split => the operand published, each half gathered.
struct SplitLowering : OpConversionPattern<SplitOp> {
  SplitLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    RankedTensorType srcType = op.getSrc().getType(),
                     part = op.getLhs().getType();
    Scratch s(rewriter, op.getLoc(), state);
    s.publish(adaptor.getSrc(), srcType, conv.getLayout(op.getSrc()));
    SmallVector<Value> results;
    for (int half = 0; half < 2; ++half) {
      Value r = half ? op.getRhs() : op.getLhs();
      results.push_back(s.gather(
          conv, part, conv.getLayout(r), srcType.getElementType(),
          [&](ArrayRef<Value> c) {
            SmallVector<Value> src(c);
            src.push_back(s.i32(half));
            return s.linear(src, srcType.getShape());
          }));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateShapeOpPatterns(KiteTypeConverter &converter,
                                         const KiteLoweringState &state,
                                         RewritePatternSet &patterns) {
  patterns.add<TransLowering, FlipLowering, ReshapeLowering, JoinLowering,
               SplitLowering>(converter, state, patterns.getContext());
}
