//===- SortToGPU.cpp - kite.sort as a bitonic network ----------------------===//
//
// kite.sort sorts each row (the last dimension, n a power of two) of a block
// through shared memory: the block is published at its linear indices,
// then log2(n) (log2(n) + 1) / 2 compare-exchange steps run, each over all
// rows * n / 2 pairs spread across the threads (a loop when a thread has
// several) and ended by a barrier; each result register is then read back
// at its coordinates. Step (k, j) pairs element i (bit j of i clear) with
// i | j; the pair is put in ascending order where bit k of i is clear,
// descending where it is set (reversed for a descending sort).
//
// The order is total, and the interpreter's (InterpreterKiteOps.cpp): NaNs
// after every number, and floats by their sign-magnitude bits otherwise
// (-0.0 before 0.0), so both give the same bits. Integers compare signed.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {

/// a < b in the sort's total order (i1); `uns`: integers as unsigned.
Value lessThan(OpBuilder &b, Location loc, Value x, Value y, bool uns) {
  Type t = x.getType();
  if (!isa<FloatType>(t))
    return arith::CmpIOp::create(
        b, loc, uns ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
        x, y);
  // Floats: widened to f32 (f16/bf16 keep their order, -0.0 included), keys
  // from the bits: negative -> ~bits, else bits | sign; NaNs last.
  bool wide = t.isF64();
  Type ft = wide ? b.getF64Type() : b.getF32Type();
  Type it = wide ? b.getI64Type() : b.getI32Type();
  if (t != ft) {
    x = arith::ExtFOp::create(b, loc, ft, x);
    y = arith::ExtFOp::create(b, loc, ft, y);
  }
  auto key = [&](Value v) {
    Value bits = arith::BitcastOp::create(b, loc, it, v);
    unsigned w = wide ? 64 : 32;
    Value sign = arith::ConstantIntOp::create(b, loc, it,
                                              int64_t(uint64_t(1) << (w - 1)));
    Value allOnes = arith::ConstantIntOp::create(b, loc, it, -1);
    Value zero = arith::ConstantIntOp::create(b, loc, it, 0);
    Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, bits,
                                      zero);
    return arith::SelectOp::create(
        b, loc, neg, arith::XOrIOp::create(b, loc, bits, allOnes),
        arith::OrIOp::create(b, loc, bits, sign));
  };
  Value keyLess = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        key(x), key(y));
  Value xNan =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value yNan =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, y, y);
  Value t1 = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Value xNum = arith::XOrIOp::create(b, loc, xNan, t1);
  Value yNum = arith::XOrIOp::create(b, loc, yNan, t1);
  // (x, y numbers and key(x) < key(y)) or (x a number and y a NaN)
  Value both = arith::AndIOp::create(b, loc, xNum, yNum);
  return arith::OrIOp::create(b, loc,
                              arith::AndIOp::create(b, loc, both, keyLess),
                              arith::AndIOp::create(b, loc, xNum, yNan));
}

struct SortLowering : OpConversionPattern<SortOp> {
  SortLowering(KiteTypeConverter &c, const KiteLoweringState &s,
               MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}

  LogicalResult
  matchAndRewrite(SortOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type kiteElem = type.getElementType();
    auto resultType = cast<VectorType>(conv.convertType(op->getResult(0)));
    Type elem = resultType.getElementType();
    Scratch s(rewriter, loc, state);
    s.publish(adaptor.getSrc(), type, conv.getLayout(op.getSrc()));

    int64_t n = type.getShape().back();
    int64_t pairs = type.getNumElements() / 2;
    int64_t threads = conv.getLayout(op.getResult()).numThreads;
    int64_t perThread = (pairs + threads - 1) / threads;
    Value tid = threadId(rewriter, loc);
    bool descending = op.getDescending();

    // One compare-exchange of pair p at step (k, j).
    auto exchange = [&](OpBuilder &b, Value p, int64_t k, int64_t j) {
      int64_t lgj = llvm::Log2_64(j);
      auto c = [&](int64_t v) { return s.i32(v); };
      Value row = arith::DivUIOp::create(b, loc, p, c(n / 2));
      Value q = arith::RemUIOp::create(b, loc, p, c(n / 2));
      // i: q with a 0 inserted at bit lgj.
      Value high = arith::ShLIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, q, c(lgj)), c(lgj + 1));
      Value i = arith::OrIOp::create(
          b, loc, high, arith::AndIOp::create(b, loc, q, c(j - 1)));
      Value base = arith::MulIOp::create(b, loc, row, c(n));
      Value lo = arith::AddIOp::create(b, loc, base, i);
      Value hi = arith::AddIOp::create(b, loc, lo, c(j));
      Value x = s.load(0, lo, elem, kiteElem);
      Value y = s.load(0, hi, elem, kiteElem);
      // Ascending where bit k of i is clear (k == n: the whole row).
      Value up = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::AndIOp::create(b, loc, i, c(k)), c(0));
      if (descending)
        up = arith::XOrIOp::create(
            b, loc, up, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
      // Swap when out of order: ascending and y < x, or descending and x < y.
      bool uns = op.getUnsignedOrder();
      Value yx = lessThan(b, loc, y, x, uns), xy = lessThan(b, loc, x, y, uns);
      Value swap = arith::SelectOp::create(b, loc, up, yx, xy);
      Value first = arith::SelectOp::create(b, loc, swap, y, x);
      Value second = arith::SelectOp::create(b, loc, swap, x, y);
      LLVM::StoreOp::create(b, loc, first, s.address(0, lo, kiteElem));
      LLVM::StoreOp::create(b, loc, second, s.address(0, hi, kiteElem));
    };

    for (int64_t k = 2; k <= n; k *= 2) {
      for (int64_t j = k / 2; j >= 1; j /= 2) {
        // This thread's pairs: tid, tid + threads, ... below `pairs`.
        auto body = [&](OpBuilder &b, Value t) {
          Value p = arith::AddIOp::create(
              b, loc, tid, arith::MulIOp::create(b, loc, t, s.i32(threads)));
          if (pairs % threads == 0) {
            exchange(b, p, k, j);
            return;
          }
          Value inRange = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, p, s.i32(pairs));
          auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, inRange, false);
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
          exchange(b, p, k, j);
        };
        if (perThread == 1) {
          body(rewriter, s.i32(0));
        } else {
          auto loop = scf::ForOp::create(rewriter, loc, s.i32(0),
                                         s.i32(perThread), s.i32(1));
          OpBuilder::InsertionGuard g(rewriter);
          rewriter.setInsertionPoint(loop.getBody()->getTerminator());
          body(rewriter, loop.getInductionVar());
        }
        s.barrier();
      }
    }

    // Each result register from its linear index.
    Value result = s.gather(conv, type, conv.getLayout(op.getResult()),
                            kiteElem, [&](ArrayRef<Value> c) {
                              return s.linear(c, type.getShape());
                            });
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateSortPatterns(KiteTypeConverter &converter,
                                      const KiteLoweringState &state,
                                      RewritePatternSet &patterns) {
  patterns.add<SortLowering>(converter, state, patterns.getContext());
}
