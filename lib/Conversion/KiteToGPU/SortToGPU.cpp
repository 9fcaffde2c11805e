//===- SortToGPU.cpp - kite.sort as a bitonic network ----------------------===//
//
// kite.sort sorts each row (the last dimension, n a power of two) of a block
// with a bitonic network of log2(n) (log2(n) + 1) / 2 compare-exchange
// steps. Step (k, j) pairs element i (bit j of i clear) with i | j and puts
// the pair in ascending order where bit k of i is clear, descending where
// it is set (reversed for a descending sort; k == n: the whole row).
//
// The network runs on the block's registers, in its own layout (the
// LinearLayout of the value): the elements are first made keys, unsigned
// integers whose order is the sort's (below), and each step j goes where
// the input bit that moves an element by j lies:
//   - a register bit: the pair is two registers of one thread (a min and a
//     max);
//   - a lane bit: one lane shuffle, each lane keeping the min or the max of
//     its element and its partner's (the lower element of an ascending
//     pair keeps the min);
//   - a warp bit (or a layout where no single input bit moves an element
//     by j): the keys go through shared memory, each thread reading its
//     partners back (two barriers).
// A row within a warp (the default layout of rows up to 32 x 16 bytes)
// never touches shared memory. With `k` (topk) the sorted keys are
// published once and each result register reads its row's first k; so
// does a result whose layout differs from the source's.
//
// The order is total, and the interpreter's (InterpreterKiteOps.cpp): NaNs
// after every number (as the positive quiet NaN), floats by their
// sign-magnitude bits otherwise (-0.0 before 0.0), so both give the same
// bits. Integers compare signed, or unsigned with `unsigned`. Keys: a
// float's bits with the sign flipped where it is clear and every bit
// flipped where it is set (f16/bf16 through f32, exact), a NaN all ones; a
// signed integer with its sign bit flipped; i8/i16 widened to i32.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {
/// Each element as an unsigned key (see the file comment).
struct KeyCodec {
  Type elem; ///< the registers' element type
  Type key;  ///< i32 or i64
  bool isFloat = false, uns = false;
  unsigned width = 0, keyWidth = 0;

  KeyCodec(OpBuilder &b, Type elem, bool uns) : elem(elem), uns(uns) {
    isFloat = isa<FloatType>(elem);
    width = elem.getIntOrFloatBitWidth();
    keyWidth = width == 64 ? 64 : 32;
    key = b.getIntegerType(keyWidth);
  }
  Value c(OpBuilder &b, Location loc, uint64_t v) const {
    return arith::ConstantIntOp::create(b, loc, key, int64_t(v));
  }
  uint64_t signBit() const { return uint64_t(1) << (keyWidth - 1); }

  Value encode(OpBuilder &b, Location loc, Value v) const {
    if (!isFloat) {
      Value x = v;
      if (width < keyWidth)
        x = uns ? arith::ExtUIOp::create(b, loc, key, v).getResult()
                : arith::ExtSIOp::create(b, loc, key, v).getResult();
      return uns ? x : arith::XOrIOp::create(b, loc, x, c(b, loc, signBit()));
    }
    Type ft = keyWidth == 64 ? Type(b.getF64Type()) : Type(b.getF32Type());
    Value x = v.getType() == ft ? v : arith::ExtFOp::create(b, loc, ft, v);
    Value bits = arith::BitcastOp::create(b, loc, key, x);
    // negative: ~bits; else bits | sign
    Value m = arith::OrIOp::create(
        b, loc,
        arith::ShRSIOp::create(b, loc, bits, c(b, loc, keyWidth - 1)),
        c(b, loc, signBit()));
    Value k = arith::XOrIOp::create(b, loc, bits, m);
    Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    return arith::SelectOp::create(b, loc, nan, c(b, loc, ~uint64_t(0)), k);
  }

  Value decode(OpBuilder &b, Location loc, Value k) const {
    if (!isFloat) {
      Value x = uns ? k : arith::XOrIOp::create(b, loc, k, c(b, loc, signBit()));
      return width < keyWidth ? arith::TruncIOp::create(b, loc, elem, x)
                              : x;
    }
    // sign set: bits = key ^ sign; else ~key.
    Value m = arith::OrIOp::create(
        b, loc,
        arith::XOrIOp::create(
            b, loc, arith::ShRSIOp::create(b, loc, k, c(b, loc, keyWidth - 1)),
            c(b, loc, ~uint64_t(0))),
        c(b, loc, signBit()));
    Value bits = arith::XOrIOp::create(b, loc, k, m);
    bool wide = keyWidth == 64;
    Type ft = wide ? Type(b.getF64Type()) : Type(b.getF32Type());
    Value x = arith::BitcastOp::create(b, loc, ft, bits);
    if (elem != ft)
      x = arith::TruncFOp::create(b, loc, elem, x);
    // Keys above +inf's are NaNs: the element type's positive quiet NaN
    // (selected after the conversion, which would give PTX's 0x7fff).
    uint64_t infKey = wide ? 0xFFF0000000000000ull : 0xFF800000ull;
    Value nan = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, k,
                                      c(b, loc, infKey));
    auto ft2 = cast<FloatType>(elem);
    Value qnan = arith::ConstantFloatOp::create(
        b, loc, ft2, APFloat::getQNaN(ft2.getFloatSemantics()));
    return arith::SelectOp::create(b, loc, nan, qnan, x);
  }
};

/// A bit of an element's index: known at compile time or a per-thread i1.
struct Bit {
  bool known = true, value = false;
  Value v;
  Value get(OpBuilder &b, Location loc) const {
    if (!known)
      return v;
    return arith::ConstantIntOp::create(b, loc, b.getI1Type(), value);
  }
};

Bit xorBits(OpBuilder &b, Location loc, const Bit &x, const Bit &y) {
  if (x.known && y.known)
    return Bit{true, x.value != y.value, Value()};
  if (x.known || y.known) {
    const Bit &k = x.known ? x : y, &r = x.known ? y : x;
    if (!k.value)
      return r;
    Value t = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    return Bit{false, false, arith::XOrIOp::create(b, loc, r.v, t)};
  }
  return Bit{false, false, arith::XOrIOp::create(b, loc, x.v, y.v)};
}

struct SortLowering : OpConversionPattern<SortOp> {
  SortLowering(KiteTypeConverter &c, const KiteLoweringState &s,
               MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}

  LogicalResult
  matchAndRewrite(SortOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    BlockedLayout srcLayout = conv.getLayout(op.getSrc());
    std::optional<LinearLayout> L =
        linearLayoutOf(op, srcLayout, "the sorted block");
    if (!L)
      return failure();
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    RankedTensorType srcType = op.getSrc().getType();
    RankedTensorType type = op.getType();
    int64_t n = srcType.getShape().back();
    int64_t k = type.getShape().back();
    Type elem = getElementTypeOrSelf(
        cast<VectorType>(conv.convertType(op.getSrc())).getElementType());
    KeyCodec codec(b, elem, op.getUnsignedOrder());
    auto keyBlock = RankedTensorType::get(srcType.getShape(), codec.key);
    Scratch s(rewriter, loc, state);
    Value tid = threadId(b, loc);

    int64_t regs = srcLayout.perThread;
    SmallVector<Value> keys;
    for (int64_t e = 0; e < regs; ++e)
      keys.push_back(
          codec.encode(b, loc, extractRegister(b, loc, adaptor.getSrc(), e)));

    // Bit c of register e's element index.
    ArrayRef<int64_t> regBases = L->bases(LinearLayout::In::Register);
    ArrayRef<int64_t> thrBases = L->bases(LinearLayout::In::Thread);
    std::map<int64_t, Bit> threadPart;
    auto bitOf = [&](int64_t c, int64_t e) {
      auto it = threadPart.find(c);
      if (it == threadPart.end()) {
        Bit t;
        for (size_t i = 0; i < thrBases.size(); ++i) {
          if (!((thrBases[i] >> c) & 1))
            continue;
          Value bit = arith::TruncIOp::create(
              b, loc, b.getI1Type(),
              arith::ShRUIOp::create(b, loc, tid, s.i32(int64_t(i))));
          t = xorBits(b, loc, t, Bit{false, false, bit});
        }
        it = threadPart.emplace(c, t).first;
      }
      Bit r{true, bool((L->apply(LinearLayout::In::Register, e) >> c) & 1),
            Value()};
      return xorBits(b, loc, r, it->second);
    };
    // Where the input bit moving an element by 1 << c lies: a register
    // bit (>= 0), a lane bit (-1 - lane), or none (shared memory).
    auto place = [&](int64_t c) -> std::optional<int64_t> {
      int64_t bit = int64_t(1) << c;
      std::optional<int64_t> at;
      int users = 0;
      for (size_t i = 0; i < regBases.size(); ++i)
        if (regBases[i] & bit) {
          ++users;
          if (regBases[i] == bit)
            at = int64_t(i);
        }
      for (size_t i = 0; i < thrBases.size(); ++i)
        if (thrBases[i] & bit) {
          ++users;
          if (thrBases[i] == bit && i < 5)
            at = -1 - int64_t(i);
        }
      if (users != 1)
        return std::nullopt;
      return at;
    };

    auto minMax = [&](Value x, Value y, bool max) -> Value {
      return max ? arith::MaxUIOp::create(b, loc, x, y).getResult()
                 : arith::MinUIOp::create(b, loc, x, y).getResult();
    };
    // The one of (mine, partner) an element keeps: the max where `takeMax`.
    auto keep = [&](Value mine, Value partner, const Bit &takeMax) -> Value {
      if (takeMax.known)
        return minMax(mine, partner, takeMax.value);
      return arith::SelectOp::create(b, loc, takeMax.v,
                                     minMax(mine, partner, true),
                                     minMax(mine, partner, false));
    };
    bool descending = op.getDescending();

    Value tbase;
    for (int64_t kk = 2; kk <= n; kk *= 2) {
      for (int64_t j = kk / 2; j >= 1; j /= 2) {
        int64_t c = llvm::Log2_64(j);
        // Whether element e's pair sorts descending.
        auto down = [&](int64_t e) {
          Bit d{true, descending, Value()};
          if (kk < n)
            d = xorBits(b, loc, d, bitOf(llvm::Log2_64(kk), e));
          return d;
        };
        std::optional<int64_t> at = place(c);
        if (at && *at >= 0) {
          for (int64_t e = 0; e < regs; ++e) {
            if ((e >> *at) & 1)
              continue;
            int64_t e2 = e | (int64_t(1) << *at);
            Value lo = minMax(keys[e], keys[e2], false);
            Value hi = minMax(keys[e], keys[e2], true);
            Bit d = down(e);
            if (d.known) {
              keys[e] = d.value ? hi : lo;
              keys[e2] = d.value ? lo : hi;
            } else {
              keys[e] = arith::SelectOp::create(b, loc, d.v, hi, lo);
              keys[e2] = arith::SelectOp::create(b, loc, d.v, lo, hi);
            }
          }
          continue;
        }
        SmallVector<Value> partners;
        if (at) {
          for (int64_t e = 0; e < regs; ++e)
            partners.push_back(shuffleXor(b, loc, keys[e], int64_t(1)
                                                               << (-1 - *at)));
        } else {
          // Through shared memory: every key at its linear index, then
          // each partner's.
          Value vec = constantOf(b, loc, VectorType::get({regs}, codec.key), 0);
          for (int64_t e = 0; e < regs; ++e)
            vec = vector::InsertOp::create(b, loc, keys[e], vec, e);
          s.publish(vec, keyBlock, srcLayout);
          if (!tbase)
            tbase = threadBase(b, loc, srcLayout);
          for (int64_t e = 0; e < regs; ++e) {
            Value idx = arith::AddIOp::create(
                b, loc, tbase, s.i32(srcLayout.registerOffset(e)));
            idx = arith::XOrIOp::create(b, loc, idx, s.i32(j));
            partners.push_back(s.load(0, idx, codec.key, codec.key));
          }
        }
        for (int64_t e = 0; e < regs; ++e) {
          // The upper element of an ascending pair keeps the max.
          Bit takeMax = xorBits(b, loc, bitOf(c, e), down(e));
          keys[e] = keep(keys[e], partners[e], takeMax);
        }
      }
    }

    auto resultType = cast<VectorType>(conv.convertType(op.getResult()));
    BlockedLayout resLayout = conv.getLayout(op.getResult());
    Value result = constantOf(b, loc, resultType, 0);
    if (k == n && resLayout.placesLike(srcLayout) &&
        resLayout.perThread == regs) {
      for (int64_t e = 0; e < regs; ++e)
        result = vector::InsertOp::create(b, loc, codec.decode(b, loc, keys[e]),
                                          result, e);
      rewriter.replaceOp(op, result);
      return success();
    }
    // The first k of each row, in the result's layout.
    Value vec = constantOf(b, loc, VectorType::get({regs}, codec.key), 0);
    for (int64_t e = 0; e < regs; ++e)
      vec = vector::InsertOp::create(b, loc, keys[e], vec, e);
    s.publish(vec, keyBlock, srcLayout);
    auto keyResult = RankedTensorType::get(type.getShape(), codec.key);
    Value got = s.gather(conv, keyResult, resLayout, codec.key,
                         [&](ArrayRef<Value> coords) {
                           SmallVector<Value> at(coords);
                           return s.linear(at, srcType.getShape());
                         });
    for (int64_t e = 0; e < resLayout.perThread; ++e)
      result = vector::InsertOp::create(
          b, loc, codec.decode(b, loc, extractRegister(b, loc, got, e)),
          result, e);
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
