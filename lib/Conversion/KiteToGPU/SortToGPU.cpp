//===- SortToGPU.cpp - kite.sort as a bitonic network
//----------------------===//
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
// does a result whose layout differs from the source's. With `merge`
// (bitonic_merge) only the last stage runs.
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
        b, loc, arith::ShRSIOp::create(b, loc, bits, c(b, loc, keyWidth - 1)),
        c(b, loc, signBit()));
    Value k = arith::XOrIOp::create(b, loc, bits, m);
    Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    return arith::SelectOp::create(b, loc, nan, c(b, loc, ~uint64_t(0)), k);
  }

  Value decode(OpBuilder &b, Location loc, Value k) const {
    if (!isFloat) {
      Value x =
          uns ? k : arith::XOrIOp::create(b, loc, k, c(b, loc, signBit()));
      return width < keyWidth ? arith::TruncIOp::create(b, loc, elem, x) : x;
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

/// `x` without bit `c` (the bits above move down one).
int64_t dropBit(int64_t x, int64_t c) {
  int64_t low = x & ((int64_t(1) << c) - 1);
  return low | ((x >> (c + 1)) << c);
}

/// The keys of a block being sorted, each thread's registers, and where
/// each lies: the bases of the (register, thread) -> element index map,
/// which change as topk's halvings drop index bits.
struct Network {
  OpBuilder &b;
  Location loc;
  Scratch &s;
  const KeyCodec &codec;
  Value tid;
  SmallVector<Value> keys;
  SmallVector<int64_t> regBases, thrBases;
  bool descending;
  std::map<int64_t, Bit> threadBits; ///< per index bit, for these bases
  Value threadIndex;                 ///< the thread's part of the index

  void basesChanged() {
    threadBits.clear();
    threadIndex = Value();
  }

  /// Bit c of register e's element index.
  Bit bitOf(int64_t c, int64_t e) {
    auto it = threadBits.find(c);
    if (it == threadBits.end()) {
      Bit t;
      for (size_t i = 0; i < thrBases.size(); ++i) {
        if (!((thrBases[i] >> c) & 1))
          continue;
        Value bit = arith::TruncIOp::create(
            b, loc, b.getI1Type(),
            arith::ShRUIOp::create(b, loc, tid, s.i32(int64_t(i))));
        t = xorBits(b, loc, t, Bit{false, false, bit});
      }
      it = threadBits.emplace(c, t).first;
    }
    int64_t r = 0;
    for (size_t i = 0; i < regBases.size(); ++i)
      if ((e >> i) & 1)
        r ^= regBases[i];
    return xorBits(b, loc, Bit{true, bool((r >> c) & 1), Value()}, it->second);
  }

  /// Where the one input bit that moves an element by 1 << c lies: a
  /// register bit (>= 0), a lane bit (-1 - lane), or none (a warp bit, or
  /// index bit c spread over several inputs: shared memory).
  std::optional<int64_t> place(int64_t c) const {
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
  }

  /// Whether index bit c is moved by exactly one input bit, alone.
  bool simple(int64_t c) const {
    int64_t bit = int64_t(1) << c;
    int users = 0, exact = 0;
    for (ArrayRef<int64_t> bases :
         {ArrayRef<int64_t>(regBases), ArrayRef<int64_t>(thrBases)})
      for (int64_t v : bases) {
        users += (v & bit) != 0;
        exact += v == bit;
      }
    return users == 1 && exact == 1;
  }

  /// Register e's element index (i32).
  Value indexOf(int64_t e) {
    if (!threadIndex)
      threadIndex = applyLinear(b, loc, LinearLayout(regBases, thrBases),
                                LinearLayout::In::Thread, tid);
    int64_t r = 0;
    for (size_t i = 0; i < regBases.size(); ++i)
      if ((e >> i) & 1)
        r ^= regBases[i];
    return arith::XOrIOp::create(b, loc, threadIndex, s.i32(r));
  }

  /// Every key stored at its element index in the scratch buffer (copies
  /// held by several threads store the same key).
  void publish() {
    s.barrier();
    for (size_t e = 0; e < keys.size(); ++e)
      LLVM::StoreOp::create(b, loc, keys[e],
                            s.address(0, indexOf(int64_t(e)), codec.key));
    s.barrier();
  }

  /// Each register's partner across index bit c.
  SmallVector<Value> partners(int64_t c) {
    SmallVector<Value> got;
    std::optional<int64_t> at = place(c);
    if (at && *at < 0) {
      for (Value k : keys)
        got.push_back(shuffleXor(b, loc, k, int64_t(1) << (-1 - *at)));
      return got;
    }
    publish();
    for (size_t e = 0; e < keys.size(); ++e) {
      Value idx = arith::XOrIOp::create(b, loc, indexOf(int64_t(e)),
                                        s.i32(int64_t(1) << c));
      got.push_back(s.load(0, idx, codec.key, codec.key));
    }
    return got;
  }

  Value minMax(Value x, Value y, bool max) {
    return max ? arith::MaxUIOp::create(b, loc, x, y).getResult()
               : arith::MinUIOp::create(b, loc, x, y).getResult();
  }

  /// Compare-exchange step j of stage kk: pairs across index bit log2(j),
  /// ascending where bit log2(kk) of the index is clear (`last`: the
  /// sort's own direction everywhere).
  void step(int64_t kk, int64_t j, bool last) {
    int64_t c = llvm::Log2_64(j);
    auto down = [&](int64_t e) {
      Bit d{true, descending, Value()};
      if (!last)
        d = xorBits(b, loc, d, bitOf(llvm::Log2_64(kk), e));
      return d;
    };
    std::optional<int64_t> at = place(c);
    if (at && *at >= 0) {
      for (int64_t e = 0; e < int64_t(keys.size()); ++e) {
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
      return;
    }
    SmallVector<Value> other = partners(c);
    for (int64_t e = 0; e < int64_t(keys.size()); ++e) {
      // The upper element of an ascending pair keeps the max.
      Bit takeMax = xorBits(b, loc, bitOf(c, e), down(e));
      if (takeMax.known)
        keys[e] = minMax(keys[e], other[e], takeMax.value);
      else
        keys[e] = arith::SelectOp::create(b, loc, takeMax.v,
                                          minMax(keys[e], other[e], true),
                                          minMax(keys[e], other[e], false));
    }
  }

  /// topk's halving: each pair across index bit c (simple) keeps its
  /// larger key (the smaller for an ascending sort), and the index loses
  /// bit c. A register bit halves the registers; a thread bit's threads
  /// then hold copies.
  void halve(int64_t c) {
    std::optional<int64_t> at = place(c);
    bool keepMax = descending;
    if (at && *at >= 0) {
      SmallVector<Value> kept;
      for (int64_t e = 0; e < int64_t(keys.size()); ++e)
        if (!((e >> *at) & 1))
          kept.push_back(
              minMax(keys[e], keys[e | (int64_t(1) << *at)], keepMax));
      keys = kept;
      regBases.erase(regBases.begin() + *at);
    } else {
      SmallVector<Value> other = partners(c);
      for (size_t e = 0; e < keys.size(); ++e)
        keys[e] = minMax(keys[e], other[e], keepMax);
      for (int64_t &v : thrBases)
        if (v == (int64_t(1) << c))
          v = 0;
    }
    for (int64_t &v : regBases)
      v = dropBit(v, c);
    for (int64_t &v : thrBases)
      v = dropBit(v, c);
    basesChanged();
  }
};

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
    RankedTensorType type = op.getType();
    int64_t n = op.getSrc().getType().getShape().back();
    int64_t k = type.getShape().back();
    Type elem = getElementTypeOrSelf(
        cast<VectorType>(conv.convertType(op.getSrc())).getElementType());
    KeyCodec codec(b, elem, op.getUnsignedOrder());
    Scratch s(rewriter, loc, state);
    Network net{
        b,  loc,    s, codec, threadId(b, loc), {}, {}, {}, op.getDescending(),
        {}, Value()};
    for (int64_t e = 0; e < srcLayout.perThread; ++e)
      net.keys.push_back(
          codec.encode(b, loc, extractRegister(b, loc, adaptor.getSrc(), e)));
    auto regBases = L->bases(LinearLayout::In::Register);
    auto thrBases = L->bases(LinearLayout::In::Thread);
    net.regBases.assign(regBases.begin(), regBases.end());
    net.thrBases.assign(thrBases.begin(), thrBases.end());

    int64_t logN = llvm::Log2_64(n), logK = llvm::Log2_64(k);
    // topk halves the rows where every column bit is moved by one input
    // bit alone (Triton's bitonic top-k: runs of k sorted in alternating
    // directions, each pair of runs' larger halves kept and merged, the
    // index losing bit log2(k) at each level); otherwise (and for k == n)
    // the whole row is sorted.
    bool halving = k < n;
    for (int64_t c = 0; c < logN && halving; ++c)
      halving = net.simple(c);
    int64_t sortedRuns = halving ? k : n;
    // bitonic_merge: the last stage only.
    for (int64_t kk = op.getMerge() ? n : 2; kk <= sortedRuns; kk *= 2)
      for (int64_t j = kk / 2; j >= 1; j /= 2)
        net.step(kk, j, kk == n);
    if (halving) {
      for (int64_t level = logK + 1; level <= logN; ++level) {
        net.halve(logK);
        for (int64_t j = k / 2; j >= 1; j /= 2)
          net.step(k, j, level == logN);
      }
    }

    auto resultType = cast<VectorType>(conv.convertType(op.getResult()));
    BlockedLayout resLayout = conv.getLayout(op.getResult());
    std::optional<LinearLayout> R = LinearLayout::of(resLayout);
    Value result = constantOf(b, loc, resultType, 0);
    // In place when the network's layout is the result's (a sort whose
    // result keeps the source's layout); else through shared memory, each
    // result register reading its element (its row's first k).
    if (R && *R == LinearLayout(net.regBases, net.thrBases) &&
        int64_t(net.keys.size()) == resLayout.perThread) {
      for (int64_t e = 0; e < resLayout.perThread; ++e)
        result = vector::InsertOp::create(
            b, loc, codec.decode(b, loc, net.keys[e]), result, e);
      rewriter.replaceOp(op, result);
      return success();
    }
    net.publish();
    // The published index space: rows of n, or of k after the halvings.
    int64_t rowLen = halving ? k : n;
    SmallVector<int64_t> published(type.getShape());
    published.back() = rowLen;
    auto keyResult = RankedTensorType::get(type.getShape(), codec.key);
    Value got = s.gather(conv, keyResult, resLayout, codec.key,
                         [&](ArrayRef<Value> coords) {
                           SmallVector<Value> at(coords);
                           return s.linear(at, published);
                         });
    for (int64_t e = 0; e < resLayout.perThread; ++e)
      result = vector::InsertOp::create(
          b, loc, codec.decode(b, loc, extractRegister(b, loc, got, e)), result,
          e);
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
