//===- TensorCoreStaging.cpp - cp.async into shared-memory slots ------------===//
//
// The staging of the tensor-core engines (kite-stage-dot-operands chose
// wgmma or mma): kite.async_stage with engine = wgmma or mma issues cp.async
// of each thread's groups of 4-16 contiguous bytes (2-8 f16/bf16, 1-4 f32)
// into the slot's swizzled operand layouts (SwizzledStaging); masked-off
// elements are zero-filled through cp.async's source size (a group is
// enabled whole, or as a prefix for `x < bound` masks); each group's address
// is the pointers' layout composed with the staging's (LinearLayout,
// SharedAddresses), as for operands stored from registers. Both engines read
// the same layouts: wgmma through shared-memory descriptors (WgmmaToGPU.cpp),
// mma.sync through ldmatrix (MmaToGPU.cpp).
//
// Staged loads (the loads a dot's operands are computed from: dot_scaled's
// bytes): kite.async_copy issues the same copies into a ring slot in the
// block staging layout (blockStagingLayout), and kite.staged_load reads the
// block back in its own register layout, each thread's contiguous runs as
// one vector load (up to 16 bytes).
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"
#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

Value mlir::kite::detail::slotPointer(OpBuilder &b, Location loc,
                                      const KiteLoweringState &state,
                                      Value slot, int64_t slotBytes) {
  Value base = LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3),
      state.sharedMemory);
  Value bytes = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, slot, i32Const(b, loc, slotBytes)),
      i32Const(b, loc, state.stagingOffset));
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{bytes});
}

LogicalResult mlir::kite::detail::storeDotOperands(
    ConversionPatternRewriter &rewriter, Location loc,
    const KiteTypeConverter &conv, DotOp op, Value aRegs, Value bRegs,
    const SwizzledStaging &st, Value base) {
  const int64_t eb = st.elemBytes;
  // Stores a block (its registers `regs`) as operand `operand` of the
  // staging.
  auto storeOperand = [&](Value blockValue, Value regs, int operand,
                          bool transposed) -> LogicalResult {
    BlockedLayout l = conv.getLayout(blockValue);
    std::optional<LinearLayout> linear = linearLayoutOf(op, l, "an operand");
    if (!linear)
      return failure();
    SharedAddresses addresses(
        rewriter, loc, linear->compose(st.operandLayout(operand, transposed)),
        st.operandOffset(operand), base);
    storeRegisterRuns(rewriter, loc, l, regs, eb, addresses);
    return success();
  };
  // A (M x K), or read through a transposition its K x M source (wgmma's
  // fp8/tf32 K-major, mma's f16/bf16 M-major: the staging says which);
  // B (K x N), or read through a transposition its N x K source, K-major
  // like A.
  if (TransOp trans = aRegs ? stagedTransposeA(op) : TransOp()) {
    if (failed(storeOperand(trans.getSrc(),
                            rewriter.getRemappedValue(trans.getSrc()), 0,
                            true)))
      return failure();
  } else if (aRegs && failed(storeOperand(op.getA(), aRegs, 0, false))) {
    return failure();
  }
  if (TransOp trans = stagedTranspose(op))
    return storeOperand(trans.getSrc(),
                        rewriter.getRemappedValue(trans.getSrc()), 1, true);
  return storeOperand(op.getB(), bRegs, 1, false);
}

namespace {

/// Whether `mask` is, within each run of `width` elements along the last
/// dimension, a prefix of the run: `x < bound` with x contiguous and bound
/// constant over the run (the K-tail mask of a matmul's operand).
bool isPrefixMask(const AxisInfoAnalysis &axisInfo, Value mask,
                  int64_t width) {
  // A prefix and a uniform mask: a prefix.
  if (auto both = mask.getDefiningOp<arith::AndIOp>()) {
    if (axisInfo.get(both.getRhs()).constancy >= width)
      return isPrefixMask(axisInfo, both.getLhs(), width);
    if (axisInfo.get(both.getLhs()).constancy >= width)
      return isPrefixMask(axisInfo, both.getRhs(), width);
    return false;
  }
  auto cmp = mask.getDefiningOp<arith::CmpIOp>();
  if (!cmp || (cmp.getPredicate() != arith::CmpIPredicate::slt &&
               cmp.getPredicate() != arith::CmpIPredicate::ult))
    return false;
  return axisInfo.get(cmp.getLhs()).contiguity >= width &&
         axisInfo.get(cmp.getRhs()).constancy >= width;
}

} // namespace

int64_t mlir::kite::swizzledCopyWidth(const AxisInfoAnalysis &axisInfo,
                                      const BlockedLayout &layout, Value ptrs,
                                      Value mask, int64_t maxRun,
                                      int64_t elemBytes) {
  if (layout.isReplicated())
    return 0;
  KiteLoweringState state{axisInfo};
  int64_t width = std::min<int64_t>(
      planAccess(state, layout, ptrs, mask, elemBytes).width, maxRun);
  if (width * elemBytes < 4)
    return 0;
  if (mask && axisInfo.get(mask).constancy < width &&
      !isPrefixMask(axisInfo, mask, width))
    return 0;
  return width;
}

namespace {

/// cp.async of each thread's groups of `width` elements of `eb` bytes
/// (registers `ptrRegs`, `perThread` of them) to their `addresses`; the
/// source size is the whole group or nothing where `mask` is uniform over a
/// group, else its enabled prefix (masked-off bytes are zero-filled).
void issueCopies(ConversionPatternRewriter &rewriter, Location loc,
                 const KiteLoweringState &state, int64_t perThread,
                 Value ptrRegs, Value mask, Value maskRegs, int64_t width,
                 int64_t eb, SharedAddresses &addresses) {
  bool uniform = state.axisInfo.get(mask).constancy >= width;
  auto c = [&](int64_t v) { return i32Const(rewriter, loc, v); };
  auto globalPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 1);
  auto cache = NVVM::LoadCacheModifierKindAttr::get(
      rewriter.getContext(), width * eb == 16
                                 ? NVVM::LoadCacheModifierKind::CG
                                 : NVVM::LoadCacheModifierKind::CA);
  for (int64_t e = 0; e < perThread; e += width) {
    Value src = LLVM::IntToPtrOp::create(
        rewriter, loc, globalPtr, extractRegister(rewriter, loc, ptrRegs, e));
    Value size;
    if (uniform) {
      Value on = extractRegister(rewriter, loc, maskRegs, e);
      size = arith::SelectOp::create(rewriter, loc, on, c(width * eb), c(0));
    } else {
      size = c(0);
      for (int64_t i = 0; i < width; ++i) {
        Value on = extractRegister(rewriter, loc, maskRegs, e + i);
        size = arith::AddIOp::create(
            rewriter, loc, size,
            arith::SelectOp::create(rewriter, loc, on, c(eb), c(0)));
      }
    }
    NVVM::CpAsyncOp::create(rewriter, loc, addresses.at(e), src,
                            rewriter.getI32IntegerAttr(width * eb), cache,
                            size);
  }
}

/// Pattern: kite.async_stage engine = wgmma or mma => cp.async into the
/// swizzled operand layout.
struct SwizzledStageLowering : OpConversionPattern<AsyncStageOp> {
  SwizzledStageLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                        MLIRContext *ctx)
      : OpConversionPattern(c, ctx, /*benefit=*/2), state(s) {}
  LogicalResult
  matchAndRewrite(AsyncStageOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getEngine() == DotEngine::FMA)
      return failure();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    SwizzledStaging staging = stagingOf(op);
    const int64_t eb = staging.elemBytes;
    int operand = op.getOperand();
    RankedTensorType type = op.getPtr().getType();
    BlockedLayout l = conv.getLayout(op.getPtr());
    Location loc = op.getLoc();
    int64_t cols = type.getDimSize(1);
    // A K-major B from a K x N block (tf32 on wgmma) puts consecutive
    // columns (n) in different staging rows: one element a copy. From an
    // N x K block (`transposed`) each block row is a staging row, as A's.
    const bool transposed = op.getTransposed();
    const bool kMajorB = operand == 1 && staging.bKMajor && !transposed;
    int64_t width = swizzledCopyWidth(state.axisInfo, l, op.getPtr(),
                                      op.getMask(), kMajorB ? 1 : cols, eb);
    if (!width)
      return op.emitOpError()
             << "cannot be copied in groups of 4 bytes or more (the operand's "
                "rows must be contiguous and 4-byte aligned, the mask uniform "
                "or a prefix over each group)";
    Value slot = slotPointer(rewriter, loc, state, adaptor.getSlot(),
                             staging.bytes());
    std::optional<LinearLayout> linear = linearLayoutOf(op, l, "pointers");
    if (!linear)
      return failure();
    SharedAddresses addresses(
        rewriter, loc,
        linear->compose(staging.operandLayout(operand, transposed)),
        staging.operandOffset(operand), slot);
    issueCopies(rewriter, loc, state, l.perThread, adaptor.getPtr(),
                op.getMask(), adaptor.getMask(), width, eb, addresses);
    rewriter.eraseOp(op);
    return success();
  }
  const KiteLoweringState &state;
};

/// Where the elements of a block of `shape` (`elemBytes` each, its
/// registers in `l`) lie in ring slot `slot` at `place` ([offset, slot
/// bytes]: kite.async_copy, kite.staged_load): the block staging layout.
/// None after an error on `op` naming `what` holds the layout.
std::optional<SharedAddresses>
ringAddresses(ConversionPatternRewriter &rewriter, Operation *op,
              const KiteLoweringState &state, const BlockedLayout &l,
              ArrayRef<int64_t> shape, int64_t elemBytes, Value slot,
              ArrayRef<int64_t> place, StringRef what) {
  std::optional<LinearLayout> linear = linearLayoutOf(op, l, what);
  if (!linear)
    return std::nullopt;
  Location loc = op->getLoc();
  return SharedAddresses(
      rewriter, loc, linear->compose(blockStagingLayout(shape, elemBytes)),
      place[0], slotPointer(rewriter, loc, state, slot, place[1]));
}

/// Pattern: kite.async_copy => cp.async into the ring slot, in the block
/// staging layout.
struct AsyncCopyLowering : OpConversionPattern<AsyncCopyOp> {
  AsyncCopyLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                    MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    RankedTensorType type = op.getPtr().getType();
    Type element = cast<PointerType>(type.getElementType()).getPointeeType();
    const int64_t eb = std::max(1u, element.getIntOrFloatBitWidth() / 8);
    BlockedLayout l = conv.getLayout(op.getPtr());
    Location loc = op.getLoc();
    int64_t width = swizzledCopyWidth(state.axisInfo, l, op.getPtr(),
                                      op.getMask(), type.getShape().back(), eb);
    if (!width)
      return op.emitOpError()
             << "cannot be copied in groups of 4 bytes or more (the block's "
                "rows must be contiguous and 4-byte aligned, the mask uniform "
                "or a prefix over each group)";
    std::optional<SharedAddresses> addresses =
        ringAddresses(rewriter, op, state, l, type.getShape(), eb,
                      adaptor.getSlot(), op.getPlace(), "pointers");
    if (!addresses)
      return failure();
    issueCopies(rewriter, loc, state, l.perThread, adaptor.getPtr(),
                op.getMask(), adaptor.getMask(), width, eb, *addresses);
    rewriter.eraseOp(op);
    return success();
  }
  const KiteLoweringState &state;
};

/// Pattern: kite.staged_load => vector loads of each thread's contiguous
/// runs from the ring slot.
struct StagedLoadLowering : OpConversionPattern<StagedLoadOp> {
  StagedLoadLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                     MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(StagedLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    RankedTensorType type = op.getType();
    const int64_t eb = elementBytes(type.getElementType());
    BlockedLayout l = conv.getLayout(op.getResult());
    Location loc = op.getLoc();
    auto resultType = cast<VectorType>(conv.convertType(op.getResult()));
    std::optional<SharedAddresses> addresses =
        ringAddresses(rewriter, op, state, l, type.getShape(), eb,
                      adaptor.getSlot(), op.getPlace(), "a result");
    if (!addresses)
      return failure();
    Value result = loadRegisterRuns(rewriter, loc, l, resultType,
                                    type.getShape().back(), eb, *addresses);
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

/// Pattern: kite.stage_operand => each thread's runs of the block (or of
/// its transpose) stored into the slot's swizzled operand layout (K-major
/// where wgmma reads the operand so), fence.proxy.async (wgmma reads
/// through the async proxy); the schedule's next barrier publishes them.
struct StageOperandLowering : OpConversionPattern<StageOperandOp> {
  StageOperandLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                       MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(StageOperandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    SwizzledStaging st = stagingOf(op);
    int operand = op.getOperand();
    BlockedLayout l = conv.getLayout(op.getValue());
    Location loc = op.getLoc();
    std::optional<LinearLayout> linear = linearLayoutOf(op, l, "a value");
    if (!linear)
      return failure();
    Value slot =
        slotPointer(rewriter, loc, state, adaptor.getSlot(), op.getPlace()[1]);
    SharedAddresses addresses(
        rewriter, loc,
        linear->compose(st.operandLayout(operand, op.getTransposed())),
        st.operandOffset(operand), slot);
    storeRegisterRuns(rewriter, loc, l, adaptor.getValue(), st.elemBytes,
                      addresses);
    NVVM::FenceProxyOp::create(
        rewriter, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    rewriter.eraseOp(op);
    return success();
  }
  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateTensorCoreStagingPatterns(
    KiteTypeConverter &converter, const KiteLoweringState &state,
    RewritePatternSet &patterns) {
  patterns.add<SwizzledStageLowering, AsyncCopyLowering, StagedLoadLowering,
               StageOperandLowering>(converter, state, patterns.getContext());
}
