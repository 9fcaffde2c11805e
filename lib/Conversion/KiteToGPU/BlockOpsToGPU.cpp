//===- BlockOpsToGPU.cpp - arange, splat, expand_dims, constants ----------===//
//
// Lowers the ops that build blocks to per-thread vectors:
//   kite.arange     => splat(start + threadBase) + dense<registerOffsets>
//   kite.splat      => vector.broadcast (pointers: llvm.ptrtoint first)
//   kite.expand_dims=> the operand (the linear index is unchanged)
//   arith.constant dense<splat> : tensor => arith.constant : vector
//   kite.broadcast   => the operand when no element repeats; of
//                       expand_dims*(arange): from each register's
//                       coordinates; a shuffle of the operand's registers
//                       when each thread holds what it repeats (others:
//                       SharedMemoryOpsToGPU)
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {

/// Pattern: kite.arange s, e => splat(s + threadBase(tid)) + dense<offsets>
struct ArangeLowering : OpConversionPattern<ArangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &converter = *getTypeConverter<KiteTypeConverter>();
    BlockedLayout layout = converter.getLayout(op.getResult());
    Location loc = op.getLoc();
    Value base = threadBase(rewriter, loc, layout);
    Value start = arith::ConstantIntOp::create(rewriter, loc,
                                               rewriter.getI32Type(),
                                               op.getStart());
    base = arith::AddIOp::create(rewriter, loc, base, start);
    auto vecType = VectorType::get({layout.perThread}, rewriter.getI32Type());
    SmallVector<int32_t> offsets;
    for (int64_t e = 0; e < layout.perThread; ++e)
      offsets.push_back(layout.registerOffset(e));
    Value offs = arith::ConstantOp::create(
        rewriter, loc, vecType, DenseElementsAttr::get(vecType, ArrayRef(offsets)));
    Value splat = vector::BroadcastOp::create(rewriter, loc, vecType, base);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, splat, offs);
    return success();
  }
};

/// Pattern: kite.hint x => x (the facts are AxisInfo's)
struct HintLowering : OpConversionPattern<HintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(HintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// Pattern: kite.splat x => vector.broadcast x (pointers as i64 addresses)
struct SplatLowering : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto vecType = cast<VectorType>(getTypeConverter()->convertType(op.getResult()));
    Value src = adaptor.getSrc();
    if (isa<LLVM::LLVMPointerType>(src.getType()))
      src = LLVM::PtrToIntOp::create(rewriter, op.getLoc(),
                                     rewriter.getI64Type(), src);
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, vecType, src);
    return success();
  }
};

/// Replaces `op` by its converted source `src` when the source's layout
/// places every element where the result's does (no data moves); else a
/// diagnostic: such a change of layout is not lowered.
static LogicalResult forwardSameLayout(Operation *op, Value src,
                                       const KiteTypeConverter &converter,
                                       ConversionPatternRewriter &rewriter) {
  if (!converter.getLayout(op->getOperand(0))
           .placesLike(converter.getLayout(op->getResult(0))))
    return op->emitOpError()
           << "changes the block's layout (its result is a dot result's "
              "shape); not supported by the GPU lowering";
  rewriter.replaceOp(op, src);
  return success();
}

/// Pattern: kite.expand_dims x => x (same linear index, same layout)
struct ExpandDimsLowering : OpConversionPattern<ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return forwardSameLayout(op, adaptor.getSrc(),
                             *getTypeConverter<KiteTypeConverter>(), rewriter);
  }
};

} // namespace

std::optional<SmallVector<int64_t>>
mlir::kite::broadcastRegisterPick(BroadcastOp op,
                                  const KiteTypeConverter &converter) {
  // The source in a slice of the result's layout (attention's m[:, None]
  // against the accumulator): each result register repeats one the thread
  // holds, at the same register in every thread.
  BlockedLayout in = converter.getLayout(op.getSrc());
  BlockedLayout out = converter.getLayout(op.getResult());
  ArrayRef<int64_t> from = op.getSrc().getType().getShape();
  ArrayRef<int64_t> to = op.getType().getShape();
  // The source's linear index of the result's element `lin`.
  auto sourceIndex = [&](int64_t lin) {
    int64_t index = 0, scale = 1;
    for (int64_t d = int64_t(to.size()) - 1; d >= 0; --d) {
      int64_t c = lin % to[d];
      lin /= to[d];
      index += (from[d] == 1 ? 0 : c) * scale;
      scale *= from[d];
    }
    return index;
  };
  SmallVector<int64_t> pick(out.perThread, -1);
  for (int64_t t = 0; t < out.numThreads; ++t) {
    DenseMap<int64_t, int64_t> held;
    for (int64_t e = 0; e < in.perThread; ++e)
      held.try_emplace(in.threadOffset(t) + in.registerOffset(e), e);
    for (int64_t e = 0; e < out.perThread; ++e) {
      auto it = held.find(
          sourceIndex(out.threadOffset(t) + out.registerOffset(e)));
      if (it == held.end() || (pick[e] >= 0 && pick[e] != it->second))
        return std::nullopt;
      pick[e] = it->second;
    }
  }
  return pick;
}

namespace {

/// Pattern: kite.broadcast x (no element repeated) => x
struct BroadcastLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getSrc().getType().getNumElements() == op.getType().getNumElements())
      return forwardSameLayout(op, adaptor.getSrc(),
                               *getTypeConverter<KiteTypeConverter>(),
                               rewriter);
    if (succeeded(broadcastArange(op, rewriter)))
      return success();
    if (succeeded(broadcastInRegisters(op, adaptor.getSrc(), rewriter)))
      return success();
    // Repeating elements moves data between threads: SharedMemoryOpsToGPU.
    return rewriter.notifyMatchFailure(op, "repeats elements");
  }

  /// A broadcast whose every result register repeats a register the
  /// thread already holds (broadcastRegisterPick): a shuffle of the
  /// source's registers, the same for every thread.
  LogicalResult broadcastInRegisters(BroadcastOp op, Value src,
                                     ConversionPatternRewriter &rewriter) const {
    auto pick =
        broadcastRegisterPick(op, *getTypeConverter<KiteTypeConverter>());
    if (!pick)
      return failure();
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, src, src, *pick);
    return success();
  }

  /// broadcast(expand_dims*(arange s, e)): element c of the result is
  /// s + c[d] (d: the arange's dimension), computed from each register's
  /// coordinates without any exchange.
  LogicalResult broadcastArange(BroadcastOp op,
                                ConversionPatternRewriter &rewriter) const {
    ArangeOp arange = broadcastArangeSource(op);
    if (!arange)
      return failure();
    ArrayRef<int64_t> from = op.getSrc().getType().getShape();
    ArrayRef<int64_t> to = op.getType().getShape();
    int64_t dim = -1;
    for (size_t d = 0; d < from.size(); ++d)
      if (from[d] != 1)
        dim = d;
    auto &converter = *getTypeConverter<KiteTypeConverter>();
    BlockedLayout layout = converter.getLayout(op.getResult());
    Location loc = op.getLoc();
    auto i32 = [&](int64_t c) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                          c);
    };
    int64_t inner = 1; // elements per step along `dim`
    for (size_t d = dim + 1; dim >= 0 && d < to.size(); ++d)
      inner *= to[d];
    Value base = threadBase(rewriter, loc, layout);
    // Where no thread's base shares a bit with a register's offset (the
    // index is their OR: a layout of digits over power-of-two shapes), a
    // coordinate is the thread's plus the register's, the latter a
    // constant: one division and remainder a thread, and the registers'
    // offsets fold into address immediates (instead of a remainder a
    // register, each value live until its last use).
    int64_t threadBits = 0, registerBits = 0;
    for (int64_t t = 0; t < layout.numThreads; ++t)
      threadBits |= layout.threadOffset(t);
    for (int64_t e = 0; e < layout.perThread; ++e)
      registerBits |= layout.registerOffset(e);
    bool additive = dim >= 0 && (threadBits & registerBits) == 0 &&
                    llvm::isPowerOf2_64(inner) &&
                    llvm::isPowerOf2_64(to[dim]) &&
                    layout.numel == op.getType().getNumElements();
    // The thread's coordinate, the arange's start added (additive only).
    Value threadCoord;
    if (additive)
      threadCoord = arith::AddIOp::create(
          rewriter, loc,
          arith::RemUIOp::create(
              rewriter, loc,
              arith::DivUIOp::create(rewriter, loc, base, i32(inner)),
              i32(to[dim])),
          i32(arange.getStart()));
    SmallVector<Value> elems;
    for (int64_t e = 0; e < layout.perThread; ++e) {
      if (additive) {
        elems.push_back(arith::AddIOp::create(
            rewriter, loc, threadCoord,
            i32(layout.registerOffset(e) / inner % to[dim])));
        continue;
      }
      Value c = i32(0);
      if (dim >= 0) {
        Value lin = arith::AddIOp::create(
            rewriter, loc, base,
            i32(layout.registerOffset(e)));
        c = arith::RemUIOp::create(
            rewriter, loc, arith::DivUIOp::create(rewriter, loc, lin, i32(inner)),
            i32(to[dim]));
      }
      elems.push_back(
          arith::AddIOp::create(rewriter, loc, c, i32(arange.getStart())));
    }
    auto vecType =
        VectorType::get({layout.perThread}, rewriter.getI32Type());
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, vecType, elems);
    return success();
  }
};

/// Pattern: arith.constant dense<c> : tensor<...> => arith.constant : vector
struct BlockConstantLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fp8Bits = [](const APFloat &v) {
      return v.bitcastToAPInt().trunc(8);
    };
    auto tensorType = dyn_cast<RankedTensorType>(op.getType());
    if (!tensorType) {
      // An fp8 scalar: its bits.
      auto attr = dyn_cast<FloatAttr>(op.getValue());
      if (!attr || !mlir::kite::isFp8(attr.getType()))
        return rewriter.notifyMatchFailure(op, "not a block constant");
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, rewriter.getIntegerAttr(rewriter.getI8Type(),
                                      fp8Bits(attr.getValue())));
      return success();
    }
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense || !dense.isSplat())
      return op.emitOpError()
             << "only splat block constants are supported by the GPU "
                "lowering, got " << op.getValue();
    auto vecType =
        cast<VectorType>(getTypeConverter()->convertType(op.getResult()));
    if (mlir::kite::isFp8(tensorType.getElementType())) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, vecType,
          DenseElementsAttr::get(vecType,
                                 fp8Bits(dense.getSplatValue<APFloat>())));
      return success();
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, vecType,
                                                   dense.resizeSplat(vecType));
    return success();
  }
};

} // namespace

void mlir::kite::populateBlockOpPatterns(KiteTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<ArangeLowering, SplatLowering, ExpandDimsLowering,
               BroadcastLowering, BlockConstantLowering, HintLowering>(converter,
                                                         patterns.getContext());
}
