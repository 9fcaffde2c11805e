//===- WgmmaToGPU.cpp - Dots on Hopper's warpgroup MMA (wgmma) -------------===//
//
// The wgmma engine of a staged dot (kite-stage-dot-operands chose it; its
// operands were copied into the swizzled staging by TensorCoreStaging.cpp):
//   - kite.dot_staged engine = wgmma: wgmma.fence, then for each k16 step
//     (k8 for tf32) and each instruction of the thread's warpgroup
//     (WgmmaTile) one wgmma.mma_async.m64nNk16 (m64nNk8.tf32) reading A and
//     B through 64-bit shared-memory descriptors, then wgmma.commit_group.
//     f16/bf16's B is N-major and read transposed; tf32 has no transpose,
//     so its B is staged K-major (SwizzledStaging::bKMajor). The
//     accumulator registers are the result's WgmmaTile layout, in the
//     instruction's order;
//     With `a` (kite.dot_staged a = A, its slot holding only B at
//     b_place), A is read from registers: per k step four 32-bit registers
//     (f16x2, bf16x2, one tf32, four fp8) in wgmma's register layout for A
//     (WgmmaTile::aLayout), all packed before wgmma.fence, and the wgmmas
//     are inline asm (the NVVM op takes A through a descriptor only). A
//     zero accumulator is not read: the first k step takes scale-d 0;
//   - kite.dot engine = wgmma (a dot from registers): the operands'
//     registers stored into the same layouts at the start of the scratch
//     buffer (A not, when it is in wgmma's register layout for A: read
//     from registers as above), fence.proxy.async, a barrier, the same
//     wgmmas, wait_group 0;
//   - kite.dot_wait n: wgmma.wait_group n as inline asm that takes and
//     returns the accumulator registers ("+f"), so that LLVM cannot move a
//     use of them above the wait.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"
#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {

Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

/// A 64-bit wgmma shared-memory descriptor for the matrix at `address`
/// (i64 shared-window address): start address, leading and stride byte
/// offsets (16-byte units) and the swizzle mode.
Value descriptor(OpBuilder &b, Location loc, Value address, int64_t leading,
                 int64_t stride, int64_t swizzleWidth) {
  Value start = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, address, i64Const(b, loc, 0x3ffff)),
      i64Const(b, loc, 4));
  int64_t fields = ((leading >> 4) & 0x3fff) << 16 |
                   ((stride >> 4) & 0x3fff) << 32 |
                   SwizzledStaging::swizzleMode(swizzleWidth) << 62;
  return arith::OrIOp::create(b, loc, start, i64Const(b, loc, fields));
}

/// The PTX name of wgmma operands of `type`, and the K of one instruction.
std::pair<StringRef, int64_t> wgmmaOperandName(Type type) {
  if (type.isF32())
    return {"tf32", 8};
  if (isa<Float8E4M3FNType>(type))
    return {"e4m3", 32};
  if (isa<Float8E5M2Type>(type))
    return {"e5m2", 32};
  return {type.isBF16() ? "bf16" : "f16", 16};
}

/// One wgmma.mma_async with A in registers (`a`: four i32, each 32 bits
/// of `operandType` elements) and B through descriptor `bDesc` (imm-trans-b
/// `transB`, which only f16/bf16 take), as inline asm: the accumulator
/// `part` (a struct of f32) in and out; without `scaleD` it is not read
/// (D = A * B).
Value registerAWgmma(OpBuilder &b, Location loc, Value part, ValueRange a,
                     Value bDesc, int64_t nInst, Type operandType, bool transB,
                     bool scaleD) {
  auto structType = cast<LLVM::LLVMStructType>(part.getType());
  int64_t regs = structType.getBody().size();
  auto [name, kInst] = wgmmaOperandName(operandType);
  const bool halves = kInst == 16;
  std::string text = std::string("{\n.reg .pred p;\nsetp.ne.b32 p, ") +
                     (scaleD ? "1" : "0") + ", 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(nInst) + "k" + std::to_string(kInst) +
                     ".f32." + name.str() + "." + name.str() + " {";
  std::string constraints;
  SmallVector<Value> operands;
  for (int64_t r = 0; r < regs; ++r) {
    text += (r ? ", $" : "$") + std::to_string(r);
    constraints += (r ? ",=f" : "=f");
  }
  text += "}, {";
  for (int64_t i = 0; i < 4; ++i) {
    text += (i ? ", $" : "$") + std::to_string(regs + i);
    constraints += ",r";
    operands.push_back(a[i]);
  }
  text += "}, $" + std::to_string(regs + 4) + ", p, 1, 1" +
          (halves ? (transB ? ", 1" : ", 0") : "") + ";\n}";
  constraints += ",l";
  operands.push_back(bDesc);
  for (int64_t r = 0; r < regs; ++r) {
    constraints += "," + std::to_string(r);
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, part, r));
  }
  return LLVM::InlineAsmOp::create(
             b, loc, structType, operands, text, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None,
             /*asm_dialect=*/LLVM::AsmDialectAttr(),
             /*operand_attrs=*/ArrayAttr())
      .getResult(0);
}

/// The wgmmas of an M x N x K product (K = staging.K) whose operands lie in
/// `staging`'s layouts at `slot` (!llvm.ptr<3>): wgmma.fence, one
/// wgmma.mma_async per k step and instruction of this thread's warpgroup,
/// commit_group. `acc` is the accumulator in `tile`'s layout; returns the
/// result (complete after a wgmma.wait_group). With `aRegs` (f16/bf16 in
/// tile.aLayout(K)), A is read from those registers instead.
Value issueWgmmas(ConversionPatternRewriter &rewriter, Location loc,
                  const WgmmaTile &tile, const SwizzledStaging &staging,
                  Value slot, Value acc, Type operandType, VectorType vecType,
                  Value aRegs = {}, Value bSlot = {}) {
  MLIRContext *ctx = rewriter.getContext();
  const int64_t N = staging.N, K = staging.K;
  auto c64 = [&](int64_t v) { return i64Const(rewriter, loc, v); };
    // This warpgroup's place in the block (uniform over the warpgroup).
    Value wg = arith::DivUIOp::create(rewriter, loc, threadId(rewriter, loc),
                                      i32Const(rewriter, loc, 128));
    Value wgMIdx = arith::ExtUIOp::create(
        rewriter, loc, rewriter.getI64Type(),
        arith::RemUIOp::create(rewriter, loc, wg,
                               i32Const(rewriter, loc, tile.wgM)));
    Value wgNIdx = arith::ExtUIOp::create(
        rewriter, loc, rewriter.getI64Type(),
        arith::DivUIOp::create(rewriter, loc, wg,
                               i32Const(rewriter, loc, tile.wgM)));
    Value slotAddr =
        LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), slot);
    Value bSlotAddr = bSlot ? LLVM::PtrToIntOp::create(
                                  rewriter, loc, rewriter.getI64Type(), bSlot)
                                  .getResult()
                            : slotAddr;
    int64_t aW = staging.aSwizzle, bW = staging.bSwizzle;
    const int64_t eb = staging.elemBytes;
    const bool kMajorB = staging.bKMajor;
    // A: this warpgroup's first row. B: its first column's panel (N-major)
    // or row (K-major).
    // An M-major A: the warpgroup's first panel of rows.
    const bool mMajorA = staging.aMMajor;
    int64_t aWarpgroupBytes = mMajorA ? tile.wgRows() / (aW / eb) * K * aW
                                      : tile.wgRows() * aW;
    Value aAddr = arith::AddIOp::create(
        rewriter, loc, slotAddr,
        arith::AddIOp::create(rewriter, loc, c64(staging.aPlace),
                              arith::MulIOp::create(rewriter, loc, wgMIdx,
                                                    c64(aWarpgroupBytes))));
    int64_t bWarpgroupBytes = kMajorB
                                  ? tile.wgCols() * bW
                                  : tile.wgCols() / (bW / eb) * K * bW;
    Value bAddr = arith::AddIOp::create(
        rewriter, loc, bSlotAddr,
        arith::AddIOp::create(rewriter, loc, c64(staging.bOffset()),
                              arith::MulIOp::create(rewriter, loc, wgNIdx,
                                                    c64(bWarpgroupBytes))));
    // K-major A (and B for tf32): the leading offset is unused with
    // swizzling (1); the stride is 8 rows. N-major B: leading = the next
    // panel of columns, stride = 8 rows of K.
    // M-major A: as an N-major B (leading = the next panel of rows).
    Value aDesc = mMajorA ? descriptor(rewriter, loc, aAddr, K * aW, 8 * aW, aW)
                          : descriptor(rewriter, loc, aAddr, 16, 8 * aW, aW);
    Value bDesc = kMajorB ? descriptor(rewriter, loc, bAddr, 16, 8 * bW, bW)
                          : descriptor(rewriter, loc, bAddr, K * bW, 8 * bW, bW);

    // The accumulator, one struct per instruction.
    int64_t regs = tile.instRegisters();
    auto f32 = rewriter.getF32Type();
    auto structType = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(regs, f32));
    // A zero accumulator is not read: the first k step's wgmmas take
    // scale-d 0 (D = A * B), which saves setting the registers to 0.
    DenseElementsAttr accValue;
    bool zeroAcc = matchPattern(acc, m_Constant(&accValue)) &&
                   accValue.isSplat() &&
                   accValue.getSplatValue<APFloat>().isPosZero();
    SmallVector<Value> parts;
    for (int64_t inst = 0; inst < tile.mRep * tile.nRep; ++inst) {
      Value s = LLVM::UndefOp::create(rewriter, loc, structType);
      for (int64_t r = 0; r < regs && !zeroAcc; ++r)
        s = LLVM::InsertValueOp::create(
            rewriter, loc, s,
            extractRegister(rewriter, loc, acc, inst * regs + r), r);
      parts.push_back(s);
    }
    auto wgmmaType = operandType.isBF16()  ? NVVM::WGMMATypes::bf16
                     : operandType.isF32() ? NVVM::WGMMATypes::tf32
                     : isa<Float8E4M3FNType>(operandType)
                         ? NVVM::WGMMATypes::e4m3
                     : isa<Float8E5M2Type>(operandType) ? NVVM::WGMMATypes::e5m2
                                                        : NVVM::WGMMATypes::f16;
    // Each instruction takes 32 bytes of K: k16 of f16/bf16, k8 of tf32.
    const int64_t kStep = 32 / eb;
    // tf32 cannot be transposed: B is K-major ("col"), f16/bf16's N-major
    // B is read transposed ("row").
    auto bLayout = kMajorB ? NVVM::MMALayout::col : NVVM::MMALayout::row;
    // A from registers: each k step's 4c of an instruction's K/2 (c
    // elements a 32-bit register: WgmmaTile::aLayout), as four registers,
    // all packed before the fence (a register written between wgmmas
    // makes ptxas insert a warpgroup.arrive there).
    SmallVector<Value> packedA;
    if (aRegs) {
      const int64_t c = 4 / eb;
      for (int64_t mr = 0; mr < tile.mRep; ++mr)
        for (int64_t k = 0; k < K; k += kStep)
          for (int64_t i = 0; i < 4; ++i) {
            int64_t e = mr * (K / 2) + (k / kStep) * 4 * c + c * i;
            SmallVector<Value> elems;
            for (int64_t j = 0; j < c; ++j)
              elems.push_back(extractRegister(rewriter, loc, aRegs, e + j));
            // (The registers' type: fp8 is held as its bits, i8.)
            auto packType = VectorType::get({c}, elems.front().getType());
            Value pack =
                vector::FromElementsOp::create(rewriter, loc, packType, elems);
            packedA.push_back(LLVM::BitcastOp::create(
                rewriter, loc, rewriter.getI32Type(), pack));
          }
    }
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    // Each instruction's operands start where the staging's layouts
    // (LinearLayout) put the first element of its sub-tile: row mr * 64 of
    // A at column k, B's (k, nr * nInst), relative to the warpgroup's part.
    // Those rows and columns are multiples of the swizzle's 8-row atoms, so
    // the start is a plain address; wgmma applies the swizzle within.
    LinearLayout aStaged = staging.operandLayout(0);
    LinearLayout bStaged = staging.operandLayout(1);
    using In = LinearLayout::In;
    for (int64_t k = 0; k < K; k += kStep) {
      for (int64_t mr = 0; mr < tile.mRep; ++mr) {
        int64_t aOffset = aStaged.apply(In::Index, mr * 64 * K + k);
        Value da = arith::AddIOp::create(rewriter, loc, aDesc,
                                         c64(aOffset >> 4));
        ArrayRef<Value> aPairs;
        if (aRegs)
          aPairs = ArrayRef<Value>(packedA).slice(
              4 * (mr * (K / kStep) + k / kStep), 4);
        for (int64_t nr = 0; nr < tile.nRep; ++nr) {
          int64_t bOffset =
              bStaged.apply(In::Index, k * N + nr * tile.nInst);
          Value db = arith::AddIOp::create(rewriter, loc, bDesc,
                                           c64(bOffset >> 4));
          Value &part = parts[mr * tile.nRep + nr];
          if (aRegs) {
            part = registerAWgmma(rewriter, loc, part, aPairs, db, tile.nInst,
                                  operandType, !kMajorB,
                                  /*scaleD=*/!zeroAcc || k > 0);
            continue;
          }
          part = NVVM::WgmmaMmaAsyncOp::create(
              rewriter, loc, structType, part, da, db,
              NVVM::MMAShapeAttr::get(ctx, 64, tile.nInst, kStep), wgmmaType,
              wgmmaType, NVVM::WGMMATypes::f32,
              zeroAcc && k == 0 ? NVVM::WGMMAScaleOut::zero
                                : NVVM::WGMMAScaleOut::one,
              NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
              mMajorA ? NVVM::MMALayout::col : NVVM::MMALayout::row, bLayout,
              NVVM::MMAIntOverflowAttr());
        }
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    Value result = LLVM::UndefOp::create(rewriter, loc, vecType);
    for (int64_t inst = 0; inst < int64_t(parts.size()); ++inst)
      for (int64_t r = 0; r < regs; ++r)
        result = vector::InsertOp::create(
            rewriter, loc,
            LLVM::ExtractValueOp::create(rewriter, loc, parts[inst], r),
            result, inst * regs + r);
    return result;
}

/// The wgmma accumulator tile of `op`'s result, or an error at `op`.
FailureOr<WgmmaTile> wgmmaTileOf(Operation *op,
                                 const KiteTypeConverter &conv) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t M = type.getDimSize(0), N = type.getDimSize(1);
  if (auto tile = conv.getWgmmaTile(M, N))
    return *tile;
  return op->emitOpError()
         << "has no wgmma accumulator layout for " << M << "x" << N << " on "
         << conv.getNumThreads() / 32
         << " warps (M % 64, N % 16 and warps % 4 must be 0)";
}

/// Whether the block `a` (the A of an M x K product on `tile`) is in
/// wgmma's register layout for A, so that the wgmmas read it from registers.
bool inRegisterLayoutForA(const KiteTypeConverter &conv, const WgmmaTile &tile,
                          Value a, int64_t K) {
  std::optional<BlockedLayout> aLayout = tile.aLayout(
      K, cast<RankedTensorType>(a.getType()).getElementTypeBitWidth() / 8);
  return aLayout && conv.getLayout(a).placesLike(*aLayout);
}

/// Pattern: kite.dot_staged engine = wgmma => wgmma.mma_async per k16 step
/// and instruction.
struct WgmmaDotLowering : OpConversionPattern<DotStagedOp> {
  WgmmaDotLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                   MLIRContext *ctx)
      : OpConversionPattern(c, ctx, /*benefit=*/2), state(s) {}
  LogicalResult
  matchAndRewrite(DotStagedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getEngine() != DotEngine::WGMMA)
      return failure();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    FailureOr<WgmmaTile> tile = wgmmaTileOf(op, conv);
    if (failed(tile))
      return failure();
    SwizzledStaging staging = stagingOf(op);
    Location loc = op.getLoc();
    // A in registers: in wgmma's register layout for A (LayoutAssignment
    // gives it to the A of such dots; kite-stage-dot-operands stages only
    // those whose A it can have).
    Value aRegs = adaptor.getA();
    if (aRegs && !inRegisterLayoutForA(conv, *tile, op.getA(), op.getK()))
      return op.emitOpError()
             << "reads A from registers, but A is not in wgmma's register "
                "layout for A (a compiler bug)";
    // A's slot (its own slot bytes with a_place), B's (its own ring with
    // b_slot; else A's slot, whose bytes the verifier made b_place's).
    std::optional<ArrayRef<int64_t>> aPlace = op.getAPlace();
    Value slot = slotPointer(rewriter, loc, state, adaptor.getSlot(),
                             aPlace ? (*aPlace)[1] : staging.bytes());
    Value bSlot;
    if (Value index = adaptor.getBSlot())
      bSlot = slotPointer(rewriter, loc, state, index, staging.bytes());
    Value result = issueWgmmas(
        rewriter, loc, *tile, staging, slot, adaptor.getAcc(),
        *op.getOperandType(),
        cast<VectorType>(conv.convertType(op.getResult())), aRegs, bSlot);
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

/// wgmma.wait_group.sync.aligned `pending` as inline asm that takes and
/// returns the accumulator registers of `acc` ("+f"), so that LLVM cannot
/// move a use of them above the wait.
Value waitForWgmmas(OpBuilder &rewriter, Location loc, Value acc,
                    int64_t pending) {
  auto vecType = cast<VectorType>(acc.getType());
  int64_t n = vecType.getNumElements();
  auto f32 = rewriter.getF32Type();
  SmallVector<Value> regs;
  std::string constraints;
  for (int64_t r = 0; r < n; ++r) {
    regs.push_back(extractRegister(rewriter, loc, acc, r));
    constraints += (r ? ",=f" : "=f");
  }
  for (int64_t r = 0; r < n; ++r)
    constraints += "," + std::to_string(r);
  auto structType = LLVM::LLVMStructType::getLiteral(
      rewriter.getContext(), SmallVector<Type>(n, f32));
  std::string text =
      "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";";
  Value out = LLVM::InlineAsmOp::create(
                  rewriter, loc, structType, regs, text, constraints,
                  /*has_side_effects=*/true, /*is_align_stack=*/false,
                  LLVM::tailcallkind::TailCallKind::None,
                  LLVM::AsmDialectAttr(), ArrayAttr())
                  .getResult(0);
  Value result = LLVM::UndefOp::create(rewriter, loc, vecType);
  for (int64_t r = 0; r < n; ++r)
    result = vector::InsertOp::create(
        rewriter, loc, LLVM::ExtractValueOp::create(rewriter, loc, out, r),
        result, r);
  return result;
}

/// Pattern: kite.dot_wait n => wgmma.wait_group.sync.aligned n, with the
/// accumulator passed through the asm.
struct DotWaitLowering : OpConversionPattern<DotWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, waitForWgmmas(rewriter, op.getLoc(),
                                         adaptor.getAcc(), op.getPending()));
    return success();
  }
};

/// Pattern: kite.dot engine = wgmma (operands in registers) => after a
/// barrier (earlier readers of the scratch are done), each thread stores
/// its registers of A and B into their swizzled layouts at the start of
/// the scratch buffer (registerDotStaging: A K-major, B N-major), in runs
/// of up to 16 bytes; fence.proxy.async (wgmma reads shared memory through
/// the async proxy) and a barrier; the wgmmas; wgmma.wait_group 0. The next
/// user of the scratch waits at its own barrier, after every warpgroup's
/// wait: nothing overwrites the operands while they are read.
struct RegisterWgmmaDotLowering : OpConversionPattern<DotOp> {
  RegisterWgmmaDotLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                           MLIRContext *ctx)
      : OpConversionPattern(c, ctx, /*benefit=*/2), state(s) {}
  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getEngine() != DotEngine::WGMMA)
      return failure();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    FailureOr<WgmmaTile> tile = wgmmaTileOf(op, conv);
    if (failed(tile))
      return failure();
    SwizzledStaging st = registerDotStaging(op);
    Location loc = op.getLoc();
    // A from registers when it is in wgmma's register layout for A.
    Value aRegs = st.elemBytes == 2 &&
                          inRegisterLayoutForA(conv, *tile, op.getA(), st.K)
                      ? adaptor.getA()
                      : Value();
    Scratch s(rewriter, loc, state);
    s.barrier();
    if (failed(storeDotOperands(rewriter, loc, conv, op,
                                aRegs ? Value() : adaptor.getA(),
                                adaptor.getB(), st, s.base)))
      return failure();
    NVVM::FenceProxyOp::create(
        rewriter, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    s.barrier();
    Value result = issueWgmmas(rewriter, loc, *tile, st, s.base,
                               adaptor.getAcc(),
                               op.getA().getType().getElementType(),
                               cast<VectorType>(conv.convertType(op.getResult())),
                               aRegs);
    rewriter.replaceOp(op, waitForWgmmas(rewriter, loc, result, 0));
    return success();
  }
  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateWgmmaPatterns(KiteTypeConverter &converter,
                                       const KiteLoweringState &state,
                                       RewritePatternSet &patterns) {
  patterns.add<WgmmaDotLowering>(converter, state, patterns.getContext());
  patterns.add<DotWaitLowering>(converter, patterns.getContext());
  patterns.add<RegisterWgmmaDotLowering>(converter, state,
                                         patterns.getContext());
}
