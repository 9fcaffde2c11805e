//===- TensorCoreStaging.cpp - cp.async into the swizzled operand layouts --===//
//
// The staging of the tensor-core engines (kite-stage-dot-operands chose
// wgmma or mma): kite.async_stage with engine = wgmma or mma issues cp.async
// of each thread's groups of 4-16 contiguous bytes (2-8 f16/bf16, 1-4 f32)
// into the slot's swizzled operand layouts (SwizzledStaging); masked-off
// elements are zero-filled through cp.async's source size (a group is
// enabled whole, or as a prefix for `x < bound` masks). Both engines read
// the same layouts: wgmma through shared-memory descriptors (WgmmaToGPU.cpp),
// mma.sync through ldmatrix (MmaToGPU.cpp).
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

Value mlir::kite::detail::swizzleOffset(OpBuilder &b, Location loc,
                                        Value offset, int64_t width) {
  Value bits = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, offset, i32Const(b, loc, 7)),
      i32Const(b, loc, width / 16 - 1));
  return arith::XOrIOp::create(
      b, loc, offset,
      arith::ShLIOp::create(b, loc, bits, i32Const(b, loc, 4)));
}

/// The byte offset (i32) of element (`row`, `col`) in a panel layout:
/// panels of `panelElems` columns, each `panelBytes`, of rows of `swz`
/// bytes, swizzled (swizzleOffset); `eb` bytes an element.
static Value panelOffset(OpBuilder &b, Location loc, Value row, Value col,
                         int64_t panelElems, int64_t panelBytes, int64_t swz,
                         int64_t eb) {
  auto c = [&](int64_t v) { return i32Const(b, loc, v); };
  Value panel = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, col, c(panelElems)),
      c(panelBytes));
  Value within = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, row, c(swz)),
      arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, col, c(panelElems)), c(eb)));
  return arith::AddIOp::create(b, loc, panel,
                               swizzleOffset(b, loc, within, swz));
}

void mlir::kite::detail::storeDotOperands(ConversionPatternRewriter &rewriter,
                                          Location loc,
                                          const KiteTypeConverter &conv,
                                          DotOp op, Value aRegs, Value bRegs,
                                          const SwizzledStaging &st,
                                          Value base) {
  const int64_t eb = st.elemBytes;
  auto c = [&](int64_t v) { return i32Const(rewriter, loc, v); };
  // Stores a rows x cols block (its registers `regs`) into a panel layout
  // of rows of `swz` bytes, `panelBytes` a panel, from `offset`.
  auto storeOperand = [&](Value blockValue, Value regs, int64_t cols,
                          int64_t swz, int64_t panelBytes, int64_t offset) {
    BlockedLayout l = conv.getLayout(blockValue);
    Type elem = cast<VectorType>(regs.getType()).getElementType();
    auto runs = registerRuns(l, cols, 16 / eb);
    Value tbase = threadBase(rewriter, loc, l);
    for (int64_t e = 0; e < l.perThread; ++e) {
      int64_t w = runs[e];
      if (!w)
        continue;
      Value lin =
          arith::AddIOp::create(rewriter, loc, tbase, c(l.registerOffset(e)));
      Value row = arith::DivUIOp::create(rewriter, loc, lin, c(cols));
      Value col = arith::RemUIOp::create(rewriter, loc, lin, c(cols));
      Value bytes = arith::AddIOp::create(
          rewriter, loc,
          panelOffset(rewriter, loc, row, col, swz / eb, panelBytes, swz, eb),
          c(offset));
      Value addr = LLVM::GEPOp::create(rewriter, loc, base.getType(),
                                       rewriter.getI8Type(), base,
                                       ValueRange{bytes});
      Value v;
      if (w == 1) {
        v = extractRegister(rewriter, loc, regs, e);
      } else {
        v = LLVM::UndefOp::create(rewriter, loc, VectorType::get({w}, elem));
        for (int64_t i = 0; i < w; ++i)
          v = vector::InsertOp::create(
              rewriter, loc, extractRegister(rewriter, loc, regs, e + i), v, i);
      }
      LLVM::StoreOp::create(rewriter, loc, v, addr, w * eb);
    }
  };
  // A (M x K): panels of K, M rows each. B (K x N): panels of N, K rows;
  // or, read through a transposition, its N x K source K-major: panels of
  // K, N rows each (like A).
  if (aRegs)
    storeOperand(op.getA(), aRegs, st.K, st.aSwizzle, st.M * st.aSwizzle, 0);
  if (TransOp trans = wgmmaStagedTranspose(op))
    storeOperand(trans.getSrc(), rewriter.getRemappedValue(trans.getSrc()),
                 st.K, st.bSwizzle, st.N * st.bSwizzle, st.bOffset());
  else
    storeOperand(op.getB(), bRegs, st.N, st.bSwizzle, st.K * st.bSwizzle,
                 st.bOffset());
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
    bool uniform = state.axisInfo.get(op.getMask()).constancy >= width;
    Value slot = slotPointer(rewriter, loc, state, adaptor.getSlot(),
                             staging.bytes());
    Value base = threadBase(rewriter, loc, l);
    auto c = [&](int64_t v) { return i32Const(rewriter, loc, v); };
    auto globalPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 1);
    auto cache = NVVM::LoadCacheModifierKindAttr::get(
        rewriter.getContext(), width * eb == 16
                                   ? NVVM::LoadCacheModifierKind::CG
                                   : NVVM::LoadCacheModifierKind::CA);
    int64_t swz = operand == 0 ? staging.aSwizzle : staging.bSwizzle;
    int64_t panelElems = swz / eb;
    // The staging's rows and the position along them: A's rows are M (its
    // columns K), an N-major B's K (its columns N), a K-major B's N (its
    // rows K). Panels of panelElems positions, each all rows of swz bytes.
    int64_t panelBytes = (operand == 0                   ? staging.M
                          : kMajorB || transposed ? staging.N
                                                  : staging.K) *
                         swz;
    // The byte offset of linear index `lin` in the slot, as the IR below
    // computes it.
    auto offsetOf = [&](int64_t lin) {
      int64_t row = lin / cols, col = lin % cols;
      return operand == 0  ? staging.aByte(row, col)
             : transposed ? staging.bByte(col, row)
                          : staging.bByte(row, col);
    };
    // Groups whose offset is an earlier group's plus the same constant in
    // every thread (rows a multiple of the swizzle's period apart, say)
    // take that constant, which PTX folds into the address: one address
    // computation for several groups.
    auto constantDelta = [&](int64_t e, int64_t from) -> std::optional<int64_t> {
      std::optional<int64_t> delta;
      for (int64_t t = 0; t < l.numThreads; ++t) {
        int64_t tb = l.threadOffset(t);
        int64_t d = offsetOf(tb + l.registerOffset(e)) -
                    offsetOf(tb + l.registerOffset(from));
        if (delta && *delta != d)
          return std::nullopt;
        delta = d;
      }
      return delta;
    };
    // The groups whose address was computed: (register, address).
    SmallVector<std::pair<int64_t, Value>> computed;
    for (int64_t e = 0; e < l.perThread; e += width) {
      std::optional<int64_t> delta;
      Value from;
      for (auto &[f, dst] : computed)
        if ((delta = constantDelta(e, f))) {
          from = dst;
          break;
        }
      auto copy = [&](Value dst) {
        Value src = LLVM::IntToPtrOp::create(
            rewriter, loc, globalPtr,
            extractRegister(rewriter, loc, adaptor.getPtr(), e));
        // Source bytes: the whole group or nothing (uniform mask), or the
        // enabled prefix.
        Value size;
        if (uniform) {
          Value on = extractRegister(rewriter, loc, adaptor.getMask(), e);
          size = arith::SelectOp::create(rewriter, loc, on, c(width * eb),
                                         c(0));
        } else {
          size = c(0);
          for (int64_t i = 0; i < width; ++i) {
            Value on =
                extractRegister(rewriter, loc, adaptor.getMask(), e + i);
            size = arith::AddIOp::create(
                rewriter, loc, size,
                arith::SelectOp::create(rewriter, loc, on, c(eb), c(0)));
          }
        }
        NVVM::CpAsyncOp::create(rewriter, loc, dst, src,
                                rewriter.getI32IntegerAttr(width * eb), cache,
                                size);
      };
      if (delta) {
        copy(LLVM::GEPOp::create(rewriter, loc, slot.getType(),
                                 rewriter.getI8Type(), from,
                                 ArrayRef<LLVM::GEPArg>{int32_t(*delta)}));
        continue;
      }
      Value lin = arith::AddIOp::create(rewriter, loc, base,
                                        c(l.registerOffset(e)));
      Value row = arith::DivUIOp::create(rewriter, loc, lin, c(cols));
      Value col = arith::RemUIOp::create(rewriter, loc, lin, c(cols));
      if (kMajorB)
        std::swap(row, col); // staging row n, position k
      // Byte offset: panel of `col`, then the swizzled row/column offset.
      Value offset = panelOffset(rewriter, loc, row, col, panelElems,
                                 panelBytes, swz, eb);
      if (operand == 1)
        offset = arith::AddIOp::create(rewriter, loc, offset,
                                       c(staging.bOffset()));
      Value dst = LLVM::GEPOp::create(rewriter, loc, slot.getType(),
                                      rewriter.getI8Type(), slot,
                                      ValueRange{offset});
      computed.push_back({e, dst});
      copy(dst);
    }
    rewriter.eraseOp(op);
    return success();
  }
  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateTensorCoreStagingPatterns(
    KiteTypeConverter &converter, const KiteLoweringState &state,
    RewritePatternSet &patterns) {
  patterns.add<SwizzledStageLowering>(converter, state, patterns.getContext());
}
