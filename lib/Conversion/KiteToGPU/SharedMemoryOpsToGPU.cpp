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
//   - kite.reduce: combine the `axis` run of each result coordinate;
//   - kite.dot: stage both operands, then each result register accumulates
//     its row of A times its column of B with fma (f16/bf16 inputs are
//     widened to f32): register-tiled when the result's layout gives each
//     thread a tile of rows x consecutive columns (see registerTiled), else
//     one fma loop per result register (any shape).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <numeric>

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

/// Bytes an element of `t` takes in shared memory (pointers as i64).
static int64_t elementBytes(Type t) {
  if (isa<PointerType>(t))
    return 8;
  if (t.isInteger(1))
    return 1;
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

/// Elements per row of A in the register-tiled dot's staging: 4 more than
/// K, so that rows start 16 bytes apart modulo the 128 bytes of the banks.
static int64_t paddedRow(int64_t K) { return K + 4; }

static int64_t bytesOf(RankedTensorType t) {
  return t.getNumElements() * elementBytes(t.getElementType());
}

int64_t mlir::kite::sharedMemoryBytes(Operation *op) {
  if (auto b = dyn_cast<BroadcastOp>(op))
    return b.getSrc().getType().getNumElements() ==
                       b.getType().getNumElements() ||
                   broadcastArangeSource(b)
               ? 0
               : bytesOf(b.getSrc().getType());
  if (auto r = dyn_cast<ReduceOp>(op))
    return bytesOf(r.getSrc().getType());
  if (auto d = dyn_cast<DotOp>(op)) {
    // Operands are staged as f32, A's rows padded (the register-tiled path;
    // the generic one needs less).
    int64_t a = d.getA().getType().getDimSize(0) *
                paddedRow(d.getA().getType().getDimSize(1)) * 4;
    return llvm::alignTo(a, 16) + d.getB().getType().getNumElements() * 4;
  }
  return 0;
}

namespace {

/// Shared-memory helpers for one op.
struct Scratch {
  OpBuilder &b;
  Location loc;
  Value base; ///< !llvm.ptr<3>

  Scratch(OpBuilder &b, Location loc, StringRef global)
      : b(b), loc(loc) {
    base = LLVM::AddressOfOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), global);
  }

  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }

  void barrier() { gpu::BarrierOp::create(b, loc); }

  /// The address of element `index` (i32) of type `t` at `byteOffset`.
  Value address(int64_t byteOffset, Value index, Type t) {
    Value bytes = arith::MulIOp::create(b, loc, index, i32(elementBytes(t)));
    Value off = arith::AddIOp::create(b, loc, bytes, i32(byteOffset));
    return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                               ValueRange{off});
  }

  /// Memory type of a converted element type (i1 as i8).
  static Type memoryType(Type t) {
    if (t.isInteger(1))
      return IntegerType::get(t.getContext(), 8);
    return t;
  }

  /// Stores every register of `regs` (a block of `type` in `layout`) at its
  /// linear index. Replicated layouts store identical values: harmless.
  void store(Value regs, RankedTensorType type, const BlockedLayout &layout,
             int64_t byteOffset) {
    Type elem = getElementTypeOrSelf(regs.getType());
    Value tbase = threadBase(b, loc, layout);
    for (int64_t e = 0; e < layout.perThread; ++e) {
      Value lin = arith::AddIOp::create(b, loc, tbase,
                                        i32(layout.registerOffset(e)));
      Value v = extractRegister(b, loc, regs, e);
      if (elem.isInteger(1))
        v = arith::ExtUIOp::create(b, loc, b.getI8Type(), v);
      LLVM::StoreOp::create(b, loc, v,
                            address(byteOffset, lin, type.getElementType()));
    }
  }

  /// Loads element `index` (i32) stored as `elem` (converted type).
  Value load(int64_t byteOffset, Value index, Type elem, Type kiteElem) {
    Type mem = memoryType(elem);
    Value v = LLVM::LoadOp::create(b, loc, mem,
                                   address(byteOffset, index, kiteElem));
    if (elem.isInteger(1)) {
      Value zero = arith::ConstantIntOp::create(b, loc, b.getI8Type(), 0);
      v = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
    }
    return v;
  }

  /// Coordinates (i32) of linear index `lin` in `shape`.
  SmallVector<Value> coordinates(Value lin, ArrayRef<int64_t> shape) {
    SmallVector<Value> c(shape.size());
    for (int d = int(shape.size()) - 1; d >= 0; --d) {
      c[d] = arith::RemUIOp::create(b, loc, lin, i32(shape[d]));
      lin = arith::DivUIOp::create(b, loc, lin, i32(shape[d]));
    }
    return c;
  }

  /// Linear index of coordinates `c` in `shape` (i32).
  Value linear(ArrayRef<Value> c, ArrayRef<int64_t> shape) {
    Value lin = i32(0);
    for (size_t d = 0; d < shape.size(); ++d) {
      lin = arith::MulIOp::create(b, loc, lin, i32(shape[d]));
      lin = arith::AddIOp::create(b, loc, lin, c[d]);
    }
    return lin;
  }
};

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
    BlockedLayout in = conv.getLayout(srcType), out = conv.getLayout(type);
    Location loc = op.getLoc();
    Scratch s(rewriter, loc, state.sharedMemory);
    s.barrier();
    s.store(adaptor.getSrc(), srcType, in, 0);
    s.barrier();
    auto resultType = cast<VectorType>(conv.convertType(type));
    Type elem = resultType.getElementType();
    Value result = constantOf(rewriter, loc, resultType, 0);
    Value tbase = threadBase(rewriter, loc, out);
    for (int64_t e = 0; e < out.perThread; ++e) {
      Value lin = arith::AddIOp::create(rewriter, loc, tbase,
                                        s.i32(out.registerOffset(e)));
      SmallVector<Value> c = s.coordinates(lin, type.getShape());
      for (size_t d = 0; d < c.size(); ++d)
        if (srcType.getDimSize(d) == 1)
          c[d] = s.i32(0);
      Value v = s.load(0, s.linear(c, srcType.getShape()), elem,
                       srcType.getElementType());
      result = vector::InsertOp::create(rewriter, loc, v, result, e);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

/// Pattern: kite.reduce => through shared memory
struct ReduceThroughSmem : OpConversionPattern<ReduceOp> {
  ReduceThroughSmem(KiteTypeConverter &c, const KiteLoweringState &s,
                    MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType srcType = op.getSrc().getType();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    BlockedLayout in = conv.getLayout(srcType);
    Location loc = op.getLoc();
    Scratch s(rewriter, loc, state.sharedMemory);
    s.barrier();
    s.store(adaptor.getSrc(), srcType, in, 0);
    s.barrier();
    Type kiteElem = srcType.getElementType();
    Type elem = conv.convertType(kiteElem);
    int64_t axis = op.getAxis(), len = srcType.getDimSize(axis);
    SmallVector<int64_t> outShape(srcType.getShape());
    outShape.erase(outShape.begin() + axis);
    bool isFloat = isa<FloatType>(elem);
    ReduceKind kind = op.getKind();
    auto combine = [&](OpBuilder &b, Value acc, Value x) -> Value {
      switch (kind) {
      case ReduceKind::Sum:
        return isFloat ? arith::AddFOp::create(b, loc, acc, x).getResult()
                       : arith::AddIOp::create(b, loc, acc, x).getResult();
      case ReduceKind::Max:
        return isFloat ? arith::MaximumFOp::create(b, loc, acc, x).getResult()
                       : arith::MaxSIOp::create(b, loc, acc, x).getResult();
      case ReduceKind::Min:
        return isFloat ? arith::MinimumFOp::create(b, loc, acc, x).getResult()
                       : arith::MinSIOp::create(b, loc, acc, x).getResult();
      }
      return acc;
    };
    // One result element: coordinates `c` of the result (axis removed).
    auto reduceAt = [&](SmallVector<Value> c) -> Value {
      c.insert(c.begin() + axis, s.i32(0));
      Value first = s.load(0, s.linear(c, srcType.getShape()), elem, kiteElem);
      auto loop = scf::ForOp::create(rewriter, loc, s.i32(1), s.i32(len),
                                     s.i32(1), ValueRange{first});
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> ck = c;
      ck[axis] = loop.getInductionVar();
      Value x = s.load(0, s.linear(ck, srcType.getShape()), elem, kiteElem);
      scf::YieldOp::create(rewriter, loc,
                           combine(rewriter, loop.getRegionIterArgs()[0], x));
      return loop.getResult(0);
    };
    if (outShape.empty()) {
      rewriter.replaceOp(op, reduceAt({}));
      return success();
    }
    auto outType = RankedTensorType::get(outShape, kiteElem);
    BlockedLayout out = conv.getLayout(outType);
    auto resultType = cast<VectorType>(conv.convertType(outType));
    Value result = constantOf(rewriter, loc, resultType, 0);
    Value tbase = threadBase(rewriter, loc, out);
    for (int64_t e = 0; e < out.perThread; ++e) {
      Value lin = arith::AddIOp::create(rewriter, loc, tbase,
                                        s.i32(out.registerOffset(e)));
      Value v = reduceAt(s.coordinates(lin, outShape));
      result = vector::InsertOp::create(rewriter, loc, v, result, e);
    }
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
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType();
    RankedTensorType type = op.getType();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    Location loc = op.getLoc();
    int64_t M = aType.getDimSize(0), K = aType.getDimSize(1),
            N = bType.getDimSize(1);
    if (succeeded(registerTiled(op, adaptor, rewriter)))
      return success();
    // Generic path: any layout; operands staged in their own type.
    int64_t bOffset = llvm::alignTo(bytesOf(aType), 16);
    Scratch s(rewriter, loc, state.sharedMemory);
    s.barrier();
    s.store(adaptor.getA(), aType, conv.getLayout(aType), 0);
    s.store(adaptor.getB(), bType, conv.getLayout(bType), bOffset);
    s.barrier();

    BlockedLayout out = conv.getLayout(type);
    Type inElem = aType.getElementType();
    Type f32 = rewriter.getF32Type();
    auto accType = cast<VectorType>(conv.convertType(type));
    // Each result register's row offset into A and column into B.
    Value tbase = threadBase(rewriter, loc, out);
    SmallVector<Value> rowBase, col;
    for (int64_t e = 0; e < out.perThread; ++e) {
      Value lin = arith::AddIOp::create(rewriter, loc, tbase,
                                        s.i32(out.registerOffset(e)));
      SmallVector<Value> c = s.coordinates(lin, type.getShape());
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
      auto widen = [&](Value v) -> Value {
        return v.getType() == f32 ? v
                                  : arith::ExtFOp::create(rewriter, loc, f32, v)
                                        .getResult();
      };
      SmallVector<Value> regs;
      for (int64_t e = 0; e < out.perThread; ++e) {
        Value ai = arith::AddIOp::create(rewriter, loc, rowBase[e], k);
        Value bi = arith::AddIOp::create(rewriter, loc, kRow, col[e]);
        Value av = widen(s.load(0, ai, inElem, inElem));
        Value bv = widen(s.load(bOffset, bi, inElem, inElem));
        Value c = vector::ExtractOp::create(rewriter, loc, acc, e);
        regs.push_back(math::FmaOp::create(rewriter, loc, av, bv, c));
      }
      acc = vector::FromElementsOp::create(
          rewriter, loc, cast<VectorType>(acc.getType()), regs);
      scf::YieldOp::create(rewriter, loc, acc);
    }
    (void)M;
    (void)accType;
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }

  /// The register-tiled dot, when the result's blocked layout gives each
  /// thread `chunk` consecutive columns c0.. of rows r0 + i*R (one layout
  /// repetition covers R whole rows) and K is a multiple of 4. Operands are
  /// staged in shared memory as f32, both row-major, A's rows padded to
  /// K + 4 elements: every thread stores its registers with 16-byte stores
  /// (the padding spreads the rows a store phase writes over all banks).
  /// Then, for each 4 steps of k, a thread loads 4 k-values of each of its
  /// rows of A with one ld.shared.v4 (one address per half-warp row:
  /// broadcast) and its `chunk` columns of B per step, and accumulates
  /// rowsPerThread x chunk fmas per step.
  LogicalResult registerTiled(DotOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const {
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType();
    RankedTensorType type = op.getType();
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    BlockedLayout out = conv.getLayout(type);
    int64_t M = aType.getDimSize(0), K = aType.getDimSize(1),
            N = bType.getDimSize(1);
    int64_t T = out.numThreads, chunk = out.chunk;
    if (out.isReplicated() || N % chunk || (T * chunk) % N ||
        T * chunk < N || chunk < 1 || K % 4)
      return failure();
    int64_t R = T * chunk / N; // rows per layout repetition
    if (M % R || out.perThread != (M / R) * chunk)
      return failure();
    BlockedLayout la = conv.getLayout(aType), lb = conv.getLayout(bType);
    if (la.isReplicated() || lb.isReplicated())
      return failure();
    int64_t rowsPerThread = M / R;
    int64_t KP = paddedRow(K); // A's row stride in shared memory
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Scratch s(rewriter, loc, state.sharedMemory);
    int64_t bOffset = llvm::alignTo(M * KP * 4, 16);

    auto widen = [&](Value v) -> Value {
      return v.getType() == f32
                 ? v
                 : arith::ExtFOp::create(rewriter, loc, f32, v).getResult();
    };
    // Stores `regs` (layout l, rows of `cols` elements) row-major with row
    // stride `stride`, in groups of consecutive registers of one row.
    auto stage = [&](Value regs, const BlockedLayout &l, int64_t cols,
                     int64_t stride, int64_t byteOffset) {
      int64_t group = std::gcd(std::gcd(l.chunk, cols), int64_t(4));
      Value tbase = threadBase(rewriter, loc, l);
      for (int64_t e = 0; e < l.perThread; e += group) {
        Value lin = arith::AddIOp::create(rewriter, loc, tbase,
                                          s.i32(l.registerOffset(e)));
        Value idx = lin;
        if (stride != cols) {
          Value row = arith::DivUIOp::create(rewriter, loc, lin, s.i32(cols));
          Value col = arith::RemUIOp::create(rewriter, loc, lin, s.i32(cols));
          idx = arith::AddIOp::create(
              rewriter, loc,
              arith::MulIOp::create(rewriter, loc, row, s.i32(stride)), col);
        }
        SmallVector<Value, 4> elems;
        for (int64_t j = 0; j < group; ++j)
          elems.push_back(widen(extractRegister(rewriter, loc, regs, e + j)));
        Value v = group == 1 ? elems.front()
                             : vector::FromElementsOp::create(
                                   rewriter, loc, VectorType::get({group}, f32),
                                   elems)
                                   .getResult();
        LLVM::StoreOp::create(rewriter, loc, v, s.address(byteOffset, idx, f32),
                              group * 4);
      }
    };
    s.barrier();
    stage(adaptor.getA(), la, K, KP, 0);
    stage(adaptor.getB(), lb, N, N, bOffset);
    s.barrier();

    // This thread's first row r0 and first column c0.
    Value tid = threadId(rewriter, loc);
    Value first = arith::MulIOp::create(rewriter, loc, tid, s.i32(chunk));
    Value r0 = arith::DivUIOp::create(rewriter, loc, first, s.i32(N));
    Value c0 = arith::RemUIOp::create(rewriter, loc, first, s.i32(N));
    auto a4Type = VectorType::get({4}, f32);
    auto bVecType = VectorType::get({chunk}, f32);
    auto accType = cast<VectorType>(conv.convertType(type));
    // Row i of A starts at (r0 + i*R) * KP (16-byte aligned: KP % 4 == 0);
    // B's columns at bOffset + (k*N + c0) * 4 (c0 a multiple of chunk).
    SmallVector<Value> aRow;
    for (int64_t i = 0; i < rowsPerThread; ++i)
      aRow.push_back(arith::MulIOp::create(
          rewriter, loc,
          arith::AddIOp::create(rewriter, loc, r0, s.i32(i * R)), s.i32(KP)));
    unsigned bAlign = std::min<int64_t>(
        16, int64_t(1) << llvm::countr_zero(uint64_t(
                std::gcd(N * 4, chunk * 4))));
    // Four steps of k from k0 (a multiple of 4).
    auto kSteps = [&](OpBuilder &b, Value k0, SmallVector<Value> &rows) {
      SmallVector<Value> a;
      for (int64_t i = 0; i < rowsPerThread; ++i)
        a.push_back(LLVM::LoadOp::create(
            b, loc, a4Type,
            s.address(0, arith::AddIOp::create(b, loc, aRow[i], k0), f32), 16));
      for (int64_t kk = 0; kk < 4; ++kk) {
        Value k = arith::AddIOp::create(b, loc, k0, s.i32(kk));
        Value bIdx = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, k, s.i32(N)), c0);
        Value bv = LLVM::LoadOp::create(b, loc, bVecType,
                                        s.address(bOffset, bIdx, f32), bAlign);
        for (int64_t i = 0; i < rowsPerThread; ++i) {
          Value ai = vector::ExtractOp::create(b, loc, a[i], kk);
          Value splat = vector::BroadcastOp::create(b, loc, bVecType, ai);
          rows[i] = math::FmaOp::create(b, loc, splat, bv, rows[i]);
        }
      }
    };
    SmallVector<Value> rows;
    for (int64_t i = 0; i < rowsPerThread; ++i) {
      SmallVector<int64_t> idx;
      for (int64_t j = 0; j < chunk; ++j)
        idx.push_back(i * chunk + j);
      rows.push_back(vector::ShuffleOp::create(rewriter, loc, adaptor.getAcc(),
                                               adaptor.getAcc(), idx));
    }
    // Fully unrolled for short K; else a loop over 8 steps at a time.
    const int64_t unroll = 8;
    if (K <= 64 || K % unroll) {
      for (int64_t k = 0; k < K; k += 4)
        kSteps(rewriter, s.i32(k), rows);
    } else {
      auto loop = scf::ForOp::create(rewriter, loc, s.i32(0), s.i32(K),
                                     s.i32(unroll), ValueRange(rows));
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
      rows.assign(loop.getResults().begin(), loop.getResults().end());
    }
    // Back to the accumulator's register order (register i*chunk + j).
    SmallVector<Value> elems;
    for (int64_t i = 0; i < rowsPerThread; ++i)
      for (int64_t j = 0; j < chunk; ++j)
        elems.push_back(vector::ExtractOp::create(rewriter, loc, rows[i], j));
    rewriter.replaceOp(op, vector::FromElementsOp::create(rewriter, loc,
                                                          accType, elems));
    return success();
  }

  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateSharedMemoryOpPatterns(KiteTypeConverter &converter,
                                                const KiteLoweringState &state,
                                                RewritePatternSet &patterns) {
  patterns.add<BroadcastThroughSmem, ReduceThroughSmem, DotThroughSmem>(
      converter, state, patterns.getContext());
}
