//===- SharedMemoryOpsToGPU.cpp - Ops that move data between threads ------===//
//
// A block is spread over the threads by its BlockedLayout (one per shape),
// so an op whose result elements need elements other threads hold goes
// through the kernel's shared-memory scratch buffer:
//   barrier; every thread stores its registers at their linear index;
//   barrier; every thread loads what its result registers need.
// (The first barrier keeps a previous use of the buffer from being
// overwritten while other threads still read it.)
//   - kite.broadcast (repeating elements): load the source element of each
//     result coordinate (size-1 dimensions read index 0);
//   - kite.dot: stage both operands, then each result register accumulates
//     its row of A times its column of B with fma (f16/bf16 inputs are
//     widened to f32): register-tiled when the result's layout gives each
//     thread a tile of rows x consecutive columns (see registerTiled), else
//     one fma loop per result register (any shape).
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"
#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <numeric>

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

/// Whether the dot result `result` has its shape's DotTile layout (it may
/// not, when it meets a tensor-core dot's result of the same shape).
static bool hasDotTileLayout(const KiteTypeConverter &conv, Value result) {
  auto type = cast<RankedTensorType>(result.getType());
  auto tile = conv.getDotTile(type.getDimSize(0), type.getDimSize(1));
  return tile && conv.getLayout(result).placesLike(tile->layout());
}

/// The staging of a register-tiled dot of an M x N result over K under
/// `conv`'s layouts: A k-major for tiles with row groups (DotTile).
static DotStaging dotStaging(const KiteTypeConverter &conv, int64_t M,
                             int64_t N, int64_t K) {
  auto tile = conv.getDotTile(M, N);
  return DotStaging{M, N, K, tile && tile->rowGroup > 1};
}

namespace {

void tiledStage(Scratch &s, Value regs, const BlockedLayout &l,
                const DotStaging &staging, int operand, Type element);
Value tiledCompute(Scratch &s, Value acc, RankedTensorType type,
                   const KiteTypeConverter &conv, const DotStaging &staging);

/// Pattern: kite.broadcast (repeating) => through shared memory
struct BroadcastThroughSmem : OpConversionPattern<BroadcastOp> {
  BroadcastThroughSmem(KiteTypeConverter &c, const KiteLoweringState &s,
                       MLIRContext *ctx)
      : OpConversionPattern(c, ctx, /*benefit=*/0), state(s) {}
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType srcType = op.getSrc().getType(), type = op.getType();
    if (srcType.getNumElements() == type.getNumElements())
      return failure();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    BlockedLayout in = conv.getLayout(op.getSrc()),
                  out = conv.getLayout(op.getResult());
    Location loc = op.getLoc();
    Scratch s(rewriter, loc, state);
    s.publish(adaptor.getSrc(), srcType, in);
    Value result = s.gather(conv, type, out, srcType.getElementType(),
                            [&](ArrayRef<Value> coords) {
                              SmallVector<Value> c(coords);
                              for (size_t d = 0; d < c.size(); ++d)
                                if (srcType.getDimSize(d) == 1)
                                  c[d] = s.i32(0);
                              return s.linear(c, srcType.getShape());
                            });
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

/// Pattern: kite.dot a, b, acc => operands through shared memory, fma loop
struct DotThroughSmem : OpConversionPattern<DotOp> {
  DotThroughSmem(KiteTypeConverter &c, const KiteLoweringState &s,
                 MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getEngine() != DotEngine::FMA)
      return failure(); // WgmmaToGPU.cpp
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType();
    RankedTensorType type = op.getType();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    Location loc = op.getLoc();
    int64_t K = aType.getDimSize(1),
            N = bType.getDimSize(1);
    if (succeeded(registerTiled(op, adaptor, rewriter)))
      return success();
    // Generic path: any layout; operands staged in their own type.
    int64_t bOffset = llvm::alignTo(blockBytes(aType), 16);
    Scratch s(rewriter, loc, state);
    s.barrier();
    s.store(adaptor.getA(), aType, conv.getLayout(op.getA()), 0);
    s.store(adaptor.getB(), bType, conv.getLayout(op.getB()), bOffset);
    s.barrier();

    BlockedLayout out = conv.getLayout(op.getResult());
    Type inElem = aType.getElementType();
    Type f32 = rewriter.getF32Type();
    // Each result register's row offset into A and column into B.
    SmallVector<Value> rowBase, col;
    for (SmallVector<Value> &c : s.registerCoordinates(out, type.getShape())) {
      rowBase.push_back(arith::MulIOp::create(rewriter, loc, c[0], s.i32(K)));
      col.push_back(c[1]);
    }
    auto loop = scf::ForOp::create(rewriter, loc, s.i32(0), s.i32(K),
                                   s.i32(1), ValueRange{adaptor.getAcc()});
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(loop.getBody());
      Value k = loop.getInductionVar();
      Value acc = loop.getRegionIterArgs()[0];
      Value kRow = arith::MulIOp::create(rewriter, loc, k, s.i32(N));
      // fp8 operands are held as their bits (i8).
      const bool fp8 = mlir::kite::isFp8(inElem);
      Type regElem = fp8 ? rewriter.getI8Type() : inElem;
      auto widen = [&](Value v) -> Value {
        if (fp8)
          return fp8ToF32(rewriter, loc, v, inElem);
        return v.getType() == f32 ? v
                                  : arith::ExtFOp::create(rewriter, loc, f32, v)
                                        .getResult();
      };
      SmallVector<Value> regs;
      for (int64_t e = 0; e < out.perThread; ++e) {
        Value ai = arith::AddIOp::create(rewriter, loc, rowBase[e], k);
        Value bi = arith::AddIOp::create(rewriter, loc, kRow, col[e]);
        Value av = widen(s.load(0, ai, regElem, inElem));
        Value bv = widen(s.load(bOffset, bi, regElem, inElem));
        Value c = vector::ExtractOp::create(rewriter, loc, acc, e);
        regs.push_back(math::FmaOp::create(rewriter, loc, av, bv, c));
      }
      acc = vector::FromElementsOp::create(
          rewriter, loc, cast<VectorType>(acc.getType()), regs);
      scf::YieldOp::create(rewriter, loc, acc);
    }
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }

  /// The register-tiled dot (see isRegisterTiledDot): both operands staged
  /// from registers (tiledStage), then tiledCompute.
  LogicalResult registerTiled(DotOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const {
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    if (!isRegisterTiledDot(aType, bType, op.getType(), conv) ||
        !hasDotTileLayout(conv, op.getResult()))
      return failure();
    Location loc = op.getLoc();
    Scratch s(rewriter, loc, state);
    DotStaging staging = dotStaging(conv, aType.getDimSize(0),
                                    bType.getDimSize(1), aType.getDimSize(1));
    s.barrier();
    tiledStage(s, adaptor.getA(), conv.getLayout(op.getA()), staging, 0,
               aType.getElementType());
    tiledStage(s, adaptor.getB(), conv.getLayout(op.getB()), staging, 1,
               bType.getElementType());
    s.barrier();
    rewriter.replaceOp(op, tiledCompute(s, adaptor.getAcc(), op.getType(),
                                        conv, staging));
    return success();
  }

  const KiteLoweringState &state;
};

} // namespace

bool mlir::kite::isRegisterTiledDot(RankedTensorType aType,
                                    RankedTensorType bType,
                                    RankedTensorType type,
                                    const KiteTypeConverter &conv) {
  if (aType.getDimSize(1) % 4 ||
      !conv.getDotTile(type.getDimSize(0), type.getDimSize(1)))
    return false;
  return !conv.getLayout(aType).isReplicated() &&
         !conv.getLayout(bType).isReplicated();
}

namespace {
/// Stores operand `operand` (0: A, 1: B; registers `regs` in layout `l`) of
/// a register-tiled dot into its staging area at `s` (see DotStaging),
/// widened to f32: in 16-byte groups of consecutive registers of one row,
/// except a k-major A, element by element. The padding of a row-major A's
/// rows spreads the rows a store phase writes over all banks.
void tiledStage(Scratch &s, Value regs, const BlockedLayout &l,
                const DotStaging &staging, int operand, Type element) {
  OpBuilder &b = s.b;
  Location loc = s.loc;
  Type f32 = b.getF32Type();
  int64_t cols = operand == 0 ? staging.K : staging.N;
  int64_t group = operand == 0 && staging.aKMajor
                      ? 1
                      : std::gcd(std::gcd(l.chunk, cols), int64_t(4));
  Scratch::StagedAddresses addresses(s, staging, operand, l);
  for (int64_t e = 0; e < l.perThread; e += group) {
    SmallVector<Value, 4> elems;
    for (int64_t j = 0; j < group; ++j) {
      Value v = extractRegister(b, loc, regs, e + j);
      if (mlir::kite::isFp8(element))
        v = fp8ToF32(b, loc, v, element); // held as its bits
      else if (v.getType() != f32)
        v = arith::ExtFOp::create(b, loc, f32, v);
      elems.push_back(v);
    }
    Value v = group == 1 ? elems.front()
                         : vector::FromElementsOp::create(
                               b, loc, VectorType::get({group}, f32), elems)
                               .getResult();
    LLVM::StoreOp::create(b, loc, v, addresses.at(e),
                          group * 4);
  }
}

/// acc + A * B from operands staged at `s`, in the result's dot layout
/// (DotTile): each thread owns row groups m0 + i*lanesM*rowGroup (i <
/// rows/rowGroup) of rowGroup rows and column groups n0 + j*lanesN*group
/// (j < cols/group) of group columns. Each 4 steps of k, per step: the
/// vector loads of its column groups of B and of A's values, then rows x
/// cols fmas. A row-major A (rowGroup 1) gives each row's 4 k-values with
/// one 16-byte load; a k-major A (rowGroup 4) each row group's 4 rows of
/// one k.
Value tiledCompute(Scratch &s, Value acc, RankedTensorType type,
                   const KiteTypeConverter &conv, const DotStaging &staging) {
  OpBuilder &rewriter = s.b;
  Location loc = s.loc;
  int64_t K = staging.K, N = staging.N;
  DotTile tile = *conv.getDotTile(staging.M, N);
  int64_t rows = tile.rows, group = tile.group, groups = tile.cols / group;
  int64_t rowGroup = tile.rowGroup, rowGroups = rows / rowGroup;
  assert(staging.aKMajor == (rowGroup > 1) && "staging of another tile");
  int64_t bOffset = staging.bOffset();
  Type f32 = rewriter.getF32Type();
  // This thread's first row m0 and first column n0.
  Value base = threadBase(rewriter, loc, tile.layout());
  Value m0 = arith::DivUIOp::create(rewriter, loc, base, s.i32(N));
  Value n0 = arith::RemUIOp::create(rewriter, loc, base, s.i32(N));
  auto gType = VectorType::get({group}, f32);
  auto accType = cast<VectorType>(conv.convertType(type));
  auto alignOf = [](int64_t elems, int64_t stride) -> unsigned {
    return std::min<int64_t>(
        16, int64_t(1) << llvm::countr_zero(
                uint64_t(std::gcd(stride * 4, elems * 4))));
  };
  // Row group i of A: rows 4 * aHi[i] + aLo[i] on (k-major), or row aRow[i]
  // at aRow[i] * KP (row-major, 16-byte aligned: KP % 4 == 0). Column group
  // j of B at bOffset + (k*N + bCol[j]) * 4.
  SmallVector<Value> aHi, aLo, aRow, bCol;
  for (int64_t i = 0; i < rowGroups; ++i) {
    Value m = arith::AddIOp::create(rewriter, loc, m0,
                                    s.i32(i * tile.lanesM * rowGroup));
    if (staging.aKMajor) {
      aHi.push_back(arith::DivUIOp::create(rewriter, loc, m, s.i32(4)));
      aLo.push_back(arith::RemUIOp::create(rewriter, loc, m, s.i32(4)));
    } else {
      aRow.push_back(arith::MulIOp::create(rewriter, loc, m,
                                           s.i32(staging.aRowStride())));
    }
  }
  for (int64_t j = 0; j < groups; ++j)
    bCol.push_back(arith::AddIOp::create(rewriter, loc, n0,
                                         s.i32(j * tile.lanesN * group)));
  unsigned bAlign = alignOf(group, N);
  auto rgType = VectorType::get({rowGroup}, f32);
  unsigned aAlign = alignOf(rowGroup, staging.M);
  auto a4Type = VectorType::get({4}, f32);
  // Accumulators: tiles[r * groups + j] = row r, column group j.
  auto kSteps = [&](OpBuilder &b, Value k0, SmallVector<Value> &tiles) {
    // Row-major A: the 4 k-values of each row.
    SmallVector<Value> aRows;
    if (!staging.aKMajor)
      for (int64_t i = 0; i < rows; ++i)
        aRows.push_back(LLVM::LoadOp::create(
            b, loc, a4Type,
            s.address(0, arith::AddIOp::create(b, loc, aRow[i], k0), f32),
            16));
    for (int64_t kk = 0; kk < 4; ++kk) {
      Value k = arith::AddIOp::create(b, loc, k0, s.i32(kk));
      Value kRow = arith::MulIOp::create(b, loc, k, s.i32(N));
      SmallVector<Value> bv, a;
      for (int64_t j = 0; j < groups; ++j)
        bv.push_back(LLVM::LoadOp::create(
            b, loc, gType,
            s.address(bOffset, arith::AddIOp::create(b, loc, kRow, bCol[j]),
                      f32),
            bAlign));
      if (staging.aKMajor)
        for (int64_t i = 0; i < rowGroups; ++i)
          a.push_back(LLVM::LoadOp::create(
              b, loc, rgType,
              s.address(0, s.aKMajorIndex(staging, aHi[i], aLo[i], k), f32),
              aAlign));
      for (int64_t r = 0; r < rows; ++r) {
        Value ar = staging.aKMajor
                       ? vector::ExtractOp::create(b, loc, a[r / rowGroup],
                                                   r % rowGroup)
                       : vector::ExtractOp::create(b, loc, aRows[r], kk);
        Value splat = vector::BroadcastOp::create(b, loc, gType, ar);
        for (int64_t j = 0; j < groups; ++j)
          tiles[r * groups + j] = math::FmaOp::create(b, loc, splat, bv[j],
                                                      tiles[r * groups + j]);
      }
    }
  };
  SmallVector<Value> tiles;
  for (int64_t t = 0; t < rows * groups; ++t) {
    SmallVector<int64_t> idx;
    for (int64_t c = 0; c < group; ++c)
      idx.push_back(t * group + c);
    tiles.push_back(vector::ShuffleOp::create(rewriter, loc, acc, acc, idx));
  }
  // Fully unrolled for short K; else a loop over 8 steps at a time.
  const int64_t unroll = 8;
  if (K <= 64 || K % unroll) {
    for (int64_t k = 0; k < K; k += 4)
      kSteps(rewriter, s.i32(k), tiles);
  } else {
    auto loop = scf::ForOp::create(rewriter, loc, s.i32(0), s.i32(K),
                                   s.i32(unroll), ValueRange(tiles));
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> inner(loop.getRegionIterArgs().begin(),
                             loop.getRegionIterArgs().end());
    for (int64_t u = 0; u < unroll; u += 4)
      kSteps(rewriter,
             arith::AddIOp::create(rewriter, loc, loop.getInductionVar(),
                                   s.i32(u)),
             inner);
    scf::YieldOp::create(rewriter, loc, inner);
    tiles.assign(loop.getResults().begin(), loop.getResults().end());
  }
  // Back to the accumulator's register order ((i * groups + j) * group + c).
  SmallVector<Value> elems;
  for (Value t : tiles)
    for (int64_t c = 0; c < group; ++c)
      elems.push_back(vector::ExtractOp::create(rewriter, loc, t, c));
  return vector::FromElementsOp::create(rewriter, loc, accType, elems);
}

} // namespace


namespace {

/// The staging slot `slot` (i32) of a dot of `staging`'s shape.
Scratch slotScratch(OpBuilder &b, Location loc, const KiteLoweringState &state,
                    const DotStaging &staging, Value slot) {
  Scratch s(b, loc, StringRef(state.sharedMemory));
  Value bytes = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, slot, s.i32(staging.bytes())),
      s.i32(state.stagingOffset));
  return s.offsetBy(bytes);
}

/// Pattern: kite.async_stage => cp.async of each thread's 16-, 8- or 4-byte
/// groups into the slot (zero-filled where masked off).
struct AsyncStageLowering : OpConversionPattern<AsyncStageOp> {
  AsyncStageLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                     MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(AsyncStageOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getEngine() != DotEngine::FMA)
      return failure();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    ArrayRef<int64_t> shape = op.getDotShape();
    DotStaging staging = dotStaging(conv, shape[0], shape[1], shape[2]);
    int operand = op.getOperand();
    RankedTensorType type = op.getPtr().getType();
    BlockedLayout l = conv.getLayout(op.getPtr());
    if (l.isReplicated())
      return rewriter.notifyMatchFailure(op, "replicated layout");
    Location loc = op.getLoc();
    Scratch s = slotScratch(rewriter, loc, state, staging, adaptor.getSlot());
    int64_t cols = type.getDimSize(1);
    // Group width: a vector access's (contiguous, aligned pointers), within
    // one row and with a uniform mask. Groups are copied whole, except
    // those of a k-major A: element by element, from the group's first
    // pointer.
    int64_t width = std::min<int64_t>(
        {planAccess(state, l, op.getPtr(), op.getMask(), 4).width,
         state.axisInfo.get(op.getMask()).constancy, cols});
    width = std::max<int64_t>(1, llvm::bit_floor(uint64_t(width)));
    int64_t copy = operand == 0 && staging.aKMajor ? 1 : width;
    auto cache = NVVM::LoadCacheModifierKindAttr::get(
        rewriter.getContext(), copy == 4 ? NVVM::LoadCacheModifierKind::CG
                                         : NVVM::LoadCacheModifierKind::CA);
    Scratch::StagedAddresses addresses(s, staging, operand, l);
    auto globalPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 1);
    for (int64_t e = 0; e < l.perThread; e += width) {
      Value src = LLVM::IntToPtrOp::create(
          rewriter, loc, globalPtr,
          extractRegister(rewriter, loc, adaptor.getPtr(), e));
      Value on = extractRegister(rewriter, loc, adaptor.getMask(), e);
      Value size = arith::SelectOp::create(rewriter, loc, on, s.i32(copy * 4),
                                           s.i32(0));
      for (int64_t c = 0; c < width; c += copy) {
        Value from = c == 0 ? src
                            : LLVM::GEPOp::create(
                                  rewriter, loc, globalPtr,
                                  rewriter.getI8Type(), src,
                                  ArrayRef<LLVM::GEPArg>{int32_t(c * 4)})
                                  .getResult();
        NVVM::CpAsyncOp::create(rewriter, loc, addresses.at(e + c), from,
                                rewriter.getI32IntegerAttr(copy * 4), cache,
                                size);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
  const KiteLoweringState &state;
};

/// Pattern: kite.async_commit => cp.async.commit_group
struct AsyncCommitLowering : OpConversionPattern<AsyncCommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCommitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Pattern: kite.debug_barrier => barrier (bar.sync)
struct DebugBarrierLowering : OpConversionPattern<DebugBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DebugBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    gpu::BarrierOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Pattern: kite.async_wait n => cp.async.wait_group n; (fence.proxy.async);
/// barrier
struct AsyncWaitLowering : OpConversionPattern<AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPending());
    if (op.getAsyncProxy())
      NVVM::FenceProxyOp::create(
          rewriter, op.getLoc(), NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                     NVVM::SharedSpace::shared_cta));
    gpu::BarrierOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Pattern: kite.dot_staged => the register-tiled product from the slot
struct DotStagedLowering : OpConversionPattern<DotStagedOp> {
  DotStagedLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                    MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(DotStagedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getEngine() != DotEngine::FMA)
      return failure();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    RankedTensorType type = op.getType();
    DotStaging staging = dotStaging(conv, type.getDimSize(0),
                                    type.getDimSize(1), int64_t(op.getK()));
    auto aType = RankedTensorType::get({staging.M, staging.K},
                                       rewriter.getF32Type());
    auto bType = RankedTensorType::get({staging.K, staging.N},
                                       rewriter.getF32Type());
    if (!isRegisterTiledDot(aType, bType, type, conv) ||
        !hasDotTileLayout(conv, op.getResult()))
      return op.emitOpError()
             << "has no register-tiled layout for " << conv.getNumThreads()
             << " threads";
    Scratch s = slotScratch(rewriter, op.getLoc(), state, staging,
                            adaptor.getSlot());
    rewriter.replaceOp(op, tiledCompute(s, adaptor.getAcc(), type, conv,
                                        staging));
    return success();
  }
  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateSharedMemoryOpPatterns(KiteTypeConverter &converter,
                                                const KiteLoweringState &state,
                                                RewritePatternSet &patterns) {
  patterns.add<BroadcastThroughSmem,
               DotThroughSmem,
               AsyncStageLowering, DotStagedLowering>(converter, state,
                                                      patterns.getContext());
  patterns.add<AsyncCommitLowering, AsyncWaitLowering, DebugBarrierLowering>(
      converter, patterns.getContext());
}
