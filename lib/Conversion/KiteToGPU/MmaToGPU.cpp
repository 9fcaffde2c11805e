//===- MmaToGPU.cpp - Dots on warp-synchronous MMA (mma.sync, sm_80+) ------===//
//
// The mma engine of a staged dot (kite-stage-dot-operands chose it; its
// operands were copied into the swizzled staging by TensorCoreStaging.cpp).
// kite.dot_staged engine = mma becomes, for each k-step of the slot and each
// warp (MmaTile: a warpsM x warpsN grid of warp tiles, mRep x nRep
// instructions each):
//   - A's fragments: one ldmatrix.x4 per 16 rows (16x16 f16/bf16, or 16x8
//     f32 read as pairs of b16: the tf32 fragment has the same shape);
//   - B's fragments: one ldmatrix.x4.trans per 16 columns (f16/bf16: the
//     staging is N-major, the fragment K-major), or for tf32 (no 32-bit
//     transpose in ldmatrix) two ld.shared.b32 per 8 columns;
//   - one mma.sync.aligned.m16n8k16 (f16/bf16) or m16n8k8 (tf32) per
//     instruction, accumulating in f32 in the MmaTile layout.
// Each load's lane addresses are the staging's layout composed with the
// lanes' (LinearLayout): the thread's part is computed once, each load
// XORs or adds a constant, so the addresses stay loop-invariant apart from
// the slot.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"
#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {

/// The mma.sync products of an M x N x K dot (K = st.K) whose operands lie
/// in `st`'s swizzled layouts at `slot` (!llvm.ptr<3>): per k-step, A's
/// fragments by ldmatrix, B's by ldmatrix.trans (f16/bf16) or ld.shared
/// (tf32), one mma.sync per instruction of `tile`. `acc` and the result
/// are in `tile`'s layout (`vecType`).
Value issueMmas(ConversionPatternRewriter &rewriter, Location loc,
                const MmaTile &tile, const SwizzledStaging &st, Value slot,
                Value acc, Type operandType, VectorType vecType) {
  const int64_t K = st.K;
  const bool tf32 = operandType.isF32();
  const int64_t eb = st.elemBytes, kStep = tf32 ? 8 : 16;
    MLIRContext *ctx = rewriter.getContext();
    auto i32 = rewriter.getI32Type();
    auto struct4 = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(4, i32));
    auto ldmatrix = [&](Value ptr, bool trans) {
      Value s = NVVM::LdMatrixOp::create(
          rewriter, loc, struct4, ptr, /*num=*/4,
          trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
          NVVM::LdStMatrixEltType::B16);
      SmallVector<Value> regs;
      for (int64_t i = 0; i < 4; ++i)
        regs.push_back(LLVM::ExtractValueOp::create(rewriter, loc, s, i));
      return regs;
    };

    // What each lane reads (MmaTile::aLoads, bLoads: (load, thread) ->
    // element), composed with the staging's layouts: the address of load r
    // of thread t is the thread's part XOR r's (SharedAddresses), the
    // thread's part computed once.
    const int64_t kSteps = K / kStep;
    // Operands staged in the other orientation (f16/bf16 from transposed
    // loads: an M-major A, a K-major B) take the other kind of ldmatrix.
    const bool mMajorA = st.aMMajor, kMajorB = st.bKMajor && !tf32;
    SharedAddresses aAt(rewriter, loc,
                        (mMajorA ? tile.aLoadsMMajor(K) : tile.aLoads(K, eb))
                            .compose(st.operandLayout(0)),
                        0, slot);
    SharedAddresses bAt(rewriter, loc,
                        (kMajorB ? tile.bLoadsKMajor(K) : tile.bLoads(K, eb))
                            .compose(st.operandLayout(1)),
                        st.bOffset(), slot);

    // A's fragments for k-step `ks` and instruction row `mr`.
    auto loadA = [&](int64_t ks, int64_t mr) {
      return ldmatrix(aAt.at(mr + tile.mRep * ks), /*trans=*/mMajorA);
    };
    // f16/bf16 B's fragments for k-step `ks` and the 16 columns `np` (two
    // instructions: registers 0-1 and 2-3).
    auto loadB16 = [&](int64_t ks, int64_t np) {
      return ldmatrix(bAt.at(np + tile.nRep / 2 * ks), /*trans=*/!kMajorB);
    };
    // tf32 B's fragment for k-step `ks` and the 8 columns `nr`.
    auto loadB32 = [&](int64_t ks, int64_t nr) {
      SmallVector<Value> regs;
      for (int64_t h = 0; h < 2; ++h)
        regs.push_back(LLVM::LoadOp::create(
            rewriter, loc, i32, bAt.at(h + 2 * (nr + tile.nRep * ks))));
      return regs;
    };

    // The accumulator: instruction (mr, nr)'s 4 registers at
    // (mr * nRep + nr) * 4 (MmaTile::layout).
    int64_t insts = tile.mRep * tile.nRep;
    SmallVector<SmallVector<Value, 4>> accs(insts);
    for (int64_t i = 0; i < insts; ++i)
      for (int64_t r = 0; r < 4; ++r)
        accs[i].push_back(extractRegister(rewriter, loc, acc, i * 4 + r));

    auto f32 = rewriter.getF32Type();
    auto resultStruct = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(4, f32));
    auto halfPair = VectorType::get({2}, rewriter.getF16Type());
    NVVM::MMATypes ptxType = tf32 ? NVVM::MMATypes::tf32
                             : operandType.isBF16() ? NVVM::MMATypes::bf16
                                                    : NVVM::MMATypes::f16;
    // f16 fragments are typed vector<2xf16>; bf16 and tf32 are i32.
    auto asOperand = [&](Value reg) -> Value {
      if (ptxType != NVVM::MMATypes::f16)
        return reg;
      return LLVM::BitcastOp::create(rewriter, loc, halfPair, reg);
    };
    auto asOperands = [&](ArrayRef<Value> regs) {
      SmallVector<Value> out;
      for (Value r : regs)
        out.push_back(asOperand(r));
      return out;
    };

    for (int64_t ks = 0; ks < kSteps; ++ks) {
      SmallVector<SmallVector<Value>> a, b(tile.nRep);
      for (int64_t mr = 0; mr < tile.mRep; ++mr)
        a.push_back(asOperands(loadA(ks, mr)));
      if (tf32) {
        for (int64_t nr = 0; nr < tile.nRep; ++nr)
          b[nr] = asOperands(loadB32(ks, nr));
      } else {
        for (int64_t np = 0; np < tile.nRep / 2; ++np) {
          SmallVector<Value> regs = asOperands(loadB16(ks, np));
          b[2 * np] = {regs[0], regs[1]};
          b[2 * np + 1] = {regs[2], regs[3]};
        }
      }
      for (int64_t mr = 0; mr < tile.mRep; ++mr)
        for (int64_t nr = 0; nr < tile.nRep; ++nr) {
          SmallVector<Value, 4> &d = accs[mr * tile.nRep + nr];
          Value s = NVVM::MmaOp::create(
              rewriter, loc, resultStruct, a[mr], b[nr], d,
              ArrayRef<int64_t>{16, 8, kStep}, std::nullopt, std::nullopt,
              std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          for (int64_t r = 0; r < 4; ++r)
            d[r] = LLVM::ExtractValueOp::create(rewriter, loc, s, r);
        }
    }

    Value result = LLVM::UndefOp::create(rewriter, loc, vecType);
    for (int64_t i = 0; i < insts; ++i)
      for (int64_t r = 0; r < 4; ++r)
        result = vector::InsertOp::create(rewriter, loc, accs[i][r], result,
                                          i * 4 + r);
    return result;
}

/// The mma.sync accumulator tile of `op`'s result, or an error at `op`.
FailureOr<MmaTile> mmaTileOf(Operation *op, const KiteTypeConverter &conv) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t M = type.getDimSize(0), N = type.getDimSize(1);
  if (auto tile = conv.getMmaTile(M, N))
    return *tile;
  return op->emitOpError()
         << "has no mma.sync accumulator layout for " << M << "x" << N
         << " on " << conv.getNumThreads() / 32
         << " warps (warp tiles of whole 16x16 blocks, at most 128 "
            "accumulator registers a thread)";
}

/// Pattern: kite.dot_staged engine = mma => ldmatrix + mma.sync.
struct MmaDotLowering : OpConversionPattern<DotStagedOp> {
  MmaDotLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                 MLIRContext *ctx)
      : OpConversionPattern(c, ctx, /*benefit=*/2), state(s) {}

  LogicalResult
  matchAndRewrite(DotStagedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getEngine() != DotEngine::MMA)
      return failure();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    FailureOr<MmaTile> tile = mmaTileOf(op, conv);
    if (failed(tile))
      return failure();
    SwizzledStaging st = stagingOf(op);
    Value slot =
        slotPointer(rewriter, op.getLoc(), state, adaptor.getSlot(), st.bytes());
    Value result = issueMmas(rewriter, op.getLoc(), *tile, st, slot,
                             adaptor.getAcc(), *op.getOperandType(),
                             cast<VectorType>(conv.convertType(op.getResult())));
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

/// Pattern: kite.dot engine = mma (operands in registers) => a barrier,
/// the operands' registers stored into the swizzled staging at the start of
/// the scratch buffer (storeDotOperands), a barrier, the mma.sync products
/// (complete when they return; the next user of the scratch waits at its
/// own barrier).
struct RegisterMmaDotLowering : OpConversionPattern<DotOp> {
  RegisterMmaDotLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                         MLIRContext *ctx)
      : OpConversionPattern(c, ctx, /*benefit=*/2), state(s) {}
  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getEngine() != DotEngine::MMA)
      return failure();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    FailureOr<MmaTile> tile = mmaTileOf(op, conv);
    if (failed(tile))
      return failure();
    SwizzledStaging st = registerDotStaging(op);
    Location loc = op.getLoc();
    Scratch s(rewriter, loc, state);
    s.barrier();
    if (failed(storeDotOperands(rewriter, loc, conv, op, adaptor.getA(),
                                adaptor.getB(), st, s.base)))
      return failure();
    s.barrier();
    rewriter.replaceOp(op, issueMmas(rewriter, loc, *tile, st, s.base,
                                     adaptor.getAcc(),
                                     op.getA().getType().getElementType(),
                                     cast<VectorType>(conv.convertType(op.getResult()))));
    return success();
  }
  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateMmaPatterns(KiteTypeConverter &converter,
                                     const KiteLoweringState &state,
                                     RewritePatternSet &patterns) {
  patterns.add<MmaDotLowering>(converter, state, patterns.getContext());
  patterns.add<RegisterMmaDotLowering>(converter, state,
                                       patterns.getContext());
}
