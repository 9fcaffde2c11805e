//===- ShapeOpsToGPU.cpp - trans, flip and reshape -------------------------===//
//
// Ops that change which element a register holds without changing values:
//   - kite.trans: each thread publishes its registers to shared memory at
//     their linear index in the operand, then reads each result register at
//     the permuted coordinates;
//   - kite.flip: likewise, the flipped dimension read backwards;
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

namespace {

/// Reads each register of the result (layout `out`, shape `shape`) from the
/// published operand at the linear index `sourceIndex` gives for its
/// coordinates.
template <typename F>
Value gather(Scratch &s, const KiteTypeConverter &conv, RankedTensorType type,
             const BlockedLayout &out, Type kiteElem, F sourceIndex) {
  auto resultType = cast<VectorType>(conv.convertType(type));
  Value result = constantOf(s.b, s.loc, resultType, 0);
  auto coords = s.registerCoordinates(out, type.getShape());
  for (int64_t e = 0; e < out.perThread; ++e) {
    Value v = s.load(0, sourceIndex(coords[e]), resultType.getElementType(),
                     kiteElem);
    result = vector::InsertOp::create(s.b, s.loc, v, result, e);
  }
  return result;
}

/// Pattern: kite.trans => through shared memory.
struct TransLowering : OpConversionPattern<TransOp> {
  TransLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    RankedTensorType srcType = op.getSrc().getType(), type = op.getType();
    Scratch s(rewriter, op.getLoc(), state.sharedMemory);
    s.publish(adaptor.getSrc(), srcType, conv.getLayout(op.getSrc()));
    ArrayRef<int32_t> order = op.getOrder();
    Value result = gather(
        s, conv, type, conv.getLayout(op.getResult()),
        srcType.getElementType(), [&](ArrayRef<Value> c) {
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
    Scratch s(rewriter, op.getLoc(), state.sharedMemory);
    s.publish(adaptor.getSrc(), type, conv.getLayout(op.getSrc()));
    int64_t dim = op.getDim(), n = type.getDimSize(dim);
    Value result = gather(
        s, conv, type, conv.getLayout(op.getResult()), type.getElementType(),
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
    if (in.placesLike(out)) {
      rewriter.replaceOp(op, adaptor.getSrc());
      return success();
    }
    RankedTensorType srcType = op.getSrc().getType(), type = op.getType();
    Scratch s(rewriter, op.getLoc(), state.sharedMemory);
    s.publish(adaptor.getSrc(), srcType, in);
    Value result = gather(s, conv, type, out, srcType.getElementType(),
                          [&](ArrayRef<Value> c) {
                            return s.linear(c, type.getShape());
                          });
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateShapeOpPatterns(KiteTypeConverter &converter,
                                         const KiteLoweringState &state,
                                         RewritePatternSet &patterns) {
  patterns.add<TransLowering, FlipLowering, ReshapeLowering>(converter, state,
                                               patterns.getContext());
}
