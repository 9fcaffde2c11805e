//===- AxisOpsToGPU.cpp - Reductions and scans along an axis
//---------------===//
//
// kite.reduce and kite.scan in the steps the hardware wants, read off the
// source's layout bit by bit (LinearLayout): each bit of the register index
// and of the thread index moves an element along the row-major index by a
// power of two or not at all, so the bits that move within the axis's field
// say where the axis lives: registers (combined within the thread), lanes
// (warp shuffles) or warps (one exchange through the scratch buffer).
//
// kite.reduce:
//   1. each thread combines its registers that differ only along the axis
//      (one partial per group of registers left);
//   2. each lane bit that moves along the axis is a butterfly step
//      (shfl.sync.bfly): afterwards every lane of the step holds the
//      combination of the pair, identically (the combinations commute; a
//      custom one is applied lower lane first on both sides);
//   3. when warp bits move along the axis, one exchange through the
//      scratch buffer: each warp stores its partials at
//      (result index, warp's place along the axis), a barrier, and each
//      thread combines the partials of the result elements it holds.
// Without step 3, when every result register of the result's layout is a
// partial the thread already holds (a row that lives in one warp, or a
// whole-block reduction: every thread then holds the result), no shared
// memory is used at all; otherwise the partials go through the scratch
// buffer once. argmax/argmin carry the index along the axis beside the
// value and break ties towards the smaller index, so the order of the
// steps does not matter. The scratch buffer holds at most one partial per
// result element and warp (sharedMemoryBytes).
//
// kite.scan, one step per bit of the axis index from the lowest: each
// element keeps its scan within its aligned run of 2^k elements along the
// axis and that run's total; the step for bit k takes the total of the
// partner run (the element whose index differs in bit k: another register
// of the thread, shfl.sync.bfly for a lane bit, the scratch buffer for a
// warp bit), adds it to the scan of the elements in the upper run (the
// lower run, reversed) and to every total. log2(length) steps, no loop over
// the axis.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"
#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {

/// A combine's float add, sub or mul may fuse with its neighbours into an
/// fma, as elementwise ones may (allowContraction): `sum(x * y)`
/// accumulates with one fma an element instead of a product held per
/// element and an add.
Value contractible(Value v, bool fpFusion) {
  allowContraction(v.getDefiningOp(), fpFusion);
  return v;
}

/// A custom combine region's body applied to (acc, x), each side one
/// value per block combined: its ops cloned at the builder with the block
/// arguments mapped (scalar arith: already legal for the conversion).
SmallVector<Value, 2> applyCombineRegion(OpBuilder &b, Region &region,
                                         ValueRange acc, ValueRange x,
                                         bool fpFusion) {
  Block &block = region.front();
  IRMapping map;
  for (auto [n, v] : llvm::enumerate(llvm::concat<const Value>(acc, x)))
    map.map(block.getArgument(n), v);
  for (Operation &op : block.without_terminator())
    allowContraction(b.clone(op, map), fpFusion);
  SmallVector<Value, 2> out;
  for (Value v : cast<YieldOp>(block.getTerminator()).getValues())
    out.push_back(map.lookup(v));
  return out;
}

/// How two elements of a reduction combine.
struct Combiner {
  OpBuilder &b;
  Location loc;
  ReduceKind kind;
  bool isFloat;
  Region *custom = nullptr; ///< kind Custom: the combine region
  bool fpFusion = false;    ///< float adds may fuse into fmas

  bool isArg() const { return isArgReduce(kind); }

  Value combine(Value acc, Value x) const {
    switch (kind) {
    case ReduceKind::Sum:
      return isFloat
                 ? contractible(arith::AddFOp::create(b, loc, acc, x), fpFusion)
                 : arith::AddIOp::create(b, loc, acc, x).getResult();
    case ReduceKind::Max:
      return isFloat ? arith::MaximumFOp::create(b, loc, acc, x).getResult()
                     : arith::MaxSIOp::create(b, loc, acc, x).getResult();
    case ReduceKind::Min:
      return isFloat ? arith::MinimumFOp::create(b, loc, acc, x).getResult()
                     : arith::MinSIOp::create(b, loc, acc, x).getResult();
    case ReduceKind::UMax:
      return arith::MaxUIOp::create(b, loc, acc, x).getResult();
    case ReduceKind::UMin:
      return arith::MinUIOp::create(b, loc, acc, x).getResult();
    case ReduceKind::Xor:
      return arith::XOrIOp::create(b, loc, acc, x).getResult();
    case ReduceKind::Or:
      return arith::OrIOp::create(b, loc, acc, x).getResult();
    case ReduceKind::Custom: // the region's values at once: combinePartials
    case ReduceKind::ArgMax:
    case ReduceKind::ArgMin:
    case ReduceKind::ArgUMax:
    case ReduceKind::ArgUMin:
      break;
    }
    llvm_unreachable("custom and argmax/argmin combine partials");
  }

  /// Whether (x, xi) beats (y, yi) for argmax/argmin: a value strictly
  /// beyond, a NaN over a number (NaN propagates as through max/min), or an
  /// equal value (both NaN included) at a smaller index (Triton's
  /// tie_break_left). A total order, so every step may combine in any order.
  Value beats(Value x, Value xi, Value y, Value yi) const {
    bool isMax = isMaxReduce(kind);
    Value earlier =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, xi, yi);
    if (!isFloat) {
      using P = arith::CmpIPredicate;
      bool u = isUnsignedReduce(kind);
      Value beyond = arith::CmpIOp::create(
          b, loc,
          isMax ? (u ? P::ugt : P::sgt) : (u ? P::ult : P::slt), x, y);
      Value equal =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
      return arith::OrIOp::create(
          b, loc, beyond, arith::AndIOp::create(b, loc, equal, earlier));
    }
    Value beyond = arith::CmpFOp::create(
        b, loc, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
        x, y);
    Value equal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
    Value xNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    Value yNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, y, y);
    Value yNum = arith::XOrIOp::create(
        b, loc, yNan, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    // x NaN: beats a number, or a NaN at a larger index.
    Value nanWins = arith::AndIOp::create(
        b, loc, xNan, arith::OrIOp::create(b, loc, yNum, earlier));
    Value tie = arith::AndIOp::create(b, loc, equal, earlier);
    return arith::OrIOp::create(
        b, loc, beyond, arith::OrIOp::create(b, loc, nanWins, tie));
  }
};

/// One partial result: its values, one per block reduced (a custom
/// reduce of several blocks), or for argmax/argmin the value and its index.
using Partial = SmallVector<Value, 2>;

Partial combinePartials(const Combiner &c, const Partial &acc,
                        const Partial &x) {
  if (c.isArg()) {
    Value take = c.beats(x[0], x[1], acc[0], acc[1]);
    return {arith::SelectOp::create(c.b, c.loc, take, x[0], acc[0]),
            arith::SelectOp::create(c.b, c.loc, take, x[1], acc[1])};
  }
  if (c.kind == ReduceKind::Custom)
    return applyCombineRegion(c.b, *c.custom, acc, x, c.fpFusion);
  return {c.combine(acc[0], x[0])};
}

/// Where dimension `axis` lies in the bits of the row-major index: from
/// bit `lo`, `bits` wide (shapes are powers of two).
struct AxisField {
  int64_t lo = 0, bits = 0;
  AxisField(RankedTensorType type, int64_t axis) {
    for (int64_t d = type.getRank() - 1; d > axis; --d)
      lo += llvm::Log2_64(type.getDimSize(d));
    bits = llvm::Log2_64(type.getDimSize(axis));
  }
  int64_t mask() const { return ((int64_t(1) << bits) - 1) << lo; }
};

/// Pattern: kite.reduce => registers, lane shuffles, then one exchange of
/// the warps' partials (see the file comment).
struct ReduceLowering : OpConversionPattern<ReduceOp> {
  ReduceLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                 MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}

  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    BlockedLayout in = conv.getLayout(op.getSrc());
    std::optional<LinearLayout> bits = linearLayoutOf(op, in, "a source");
    if (!bits)
      return failure();
    for (Value src : op.getSrcs())
      if (!conv.getLayout(src).placesLike(in))
        return rewriter.notifyMatchFailure(
            op, "the blocks reduced together have different layouts");
    rewriter.replaceOp(op,
                       lowerByBits(op, adaptor.getSrcs(), in, *bits, rewriter));
    return success();
  }

private:
  const KiteLoweringState &state;

  /// The results, one per block reduced (argmax/argmin: the index).
  SmallVector<Value> lowerByBits(ReduceOp op, ValueRange regs,
                                 const BlockedLayout &in,
                                 const LinearLayout &bits,
                                 ConversionPatternRewriter &b) const {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    Location loc = op.getLoc();
    RankedTensorType srcType = op.getSrc().getType();
    Type kiteElem = srcType.getElementType();
    Type elem = conv.convertType(kiteElem);
    // The kite and LLVM types of each value a partial carries.
    SmallVector<Type, 2> kiteElems, elems;
    for (Value src : op.getSrcs()) {
      kiteElems.push_back(
          cast<RankedTensorType>(src.getType()).getElementType());
      elems.push_back(conv.convertType(kiteElems.back()));
    }
    Combiner comb{b,
                  loc,
                  op.getKind(),
                  isa<FloatType>(elem),
                  &op.getCombiner(),
                  state.fpFusion};
    bool arg = comb.isArg();

    // The axis as a field of the row-major index's bits.
    int64_t axis = op.getAxis();
    AxisField field(srcType, axis);
    int64_t axisLo = field.lo, axisBits = field.bits, axisMask = field.mask();
    auto along = [&](int64_t move) { return (move & axisMask) != 0; };
    // The result's index of source index `lin`: the axis field removed.
    auto resultIndexOf = [&](int64_t lin) {
      return ((lin >> (axisLo + axisBits)) << axisLo) |
             (lin & ((int64_t(1) << axisLo) - 1));
    };

    // 1. Within the thread: one partial per group of registers that differ
    //    only in bits along the axis.
    int64_t regAlong = 0;
    for (size_t i = 0; i < bits.numBits(LinearLayout::In::Register); ++i)
      if (along(bits.bases(LinearLayout::In::Register)[i]))
        regAlong |= int64_t(1) << i;
    Value tbase = threadBase(b, loc, in);
    Value tAxis;
    if (arg)
      tAxis = arith::ShRUIOp::create(
          b, loc, arith::AndIOp::create(b, loc, tbase, i32Const(b, loc, axisMask)),
          i32Const(b, loc, axisLo));
    if (arg) {
      kiteElems.push_back(b.getI32Type());
      elems.push_back(b.getI32Type());
    }
    auto registerPartial = [&](int64_t e) {
      Partial p;
      for (Value r : regs)
        p.push_back(extractRegister(b, loc, r, e));
      if (arg)
        p.push_back(arith::OrIOp::create(
            b, loc, tAxis,
            i32Const(b, loc,
                     (bits.apply(LinearLayout::In::Register, e) & axisMask) >>
                         axisLo)));
      return p;
    };
    // The results: argmax/argmin's index, else one per block.
    auto results = [&](const Partial &p) -> SmallVector<Value> {
      if (arg)
        return {p[1]};
      return SmallVector<Value>(p.begin(), p.end());
    };
    SmallVector<int64_t> groups; // the group's first register
    SmallVector<Partial> partials;
    // Where any order gives the same result (max, min, xor, or, integer sums,
    // argmax/argmin's total order) the registers combine pairwise, a tree
    // of depth log2(n) instead of a chain of n - 1 dependent ops: the
    // latency of a row max in attention's softmax. Float sums and custom
    // combines keep the chain, in register order (Triton's rounding).
    const ReduceKind kind = comb.kind;
    const bool anyOrder = kind == ReduceKind::Max || kind == ReduceKind::Min ||
                          kind == ReduceKind::UMax ||
                          kind == ReduceKind::UMin || kind == ReduceKind::Xor ||
                          kind == ReduceKind::Or || comb.isArg() ||
                          (kind == ReduceKind::Sum && !comb.isFloat);
    for (int64_t e0 = 0; e0 < in.perThread; ++e0) {
      if (e0 & regAlong)
        continue;
      SmallVector<Partial> level;
      for (int64_t e = e0; e < in.perThread; ++e)
        if ((e & ~regAlong) == e0)
          level.push_back(registerPartial(e));
      if (anyOrder) {
        while (level.size() > 1) {
          SmallVector<Partial> next;
          for (size_t i = 0; i + 1 < level.size(); i += 2)
            next.push_back(combinePartials(comb, level[i], level[i + 1]));
          if (level.size() % 2)
            next.push_back(level.back());
          level = std::move(next);
        }
      } else {
        for (size_t i = 1; i < level.size(); ++i)
          level[0] = combinePartials(comb, level[0], level[i]);
      }
      groups.push_back(e0);
      partials.push_back(level[0]);
    }

    // 2. Across the lanes of a warp.
    SmallVector<int64_t> warpAlong; // thread bits of warps along the axis
    for (size_t j = 0; j < bits.numBits(LinearLayout::In::Thread); ++j) {
      if (!along(bits.bases(LinearLayout::In::Thread)[j]))
        continue;
      if (j >= 5) {
        warpAlong.push_back(j);
        continue;
      }
      // A custom combine need not give the same bits both ways round
      // (Welford's mean): both lanes of the pair combine the lower lane's
      // partial with the upper's, so that they hold the same value (and
      // store the same one into the scratch buffer).
      Value upper;
      if (comb.kind == ReduceKind::Custom)
        upper = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ne,
            arith::AndIOp::create(b, loc, threadId(b, loc),
                                  i32Const(b, loc, int64_t(1) << j)),
            i32Const(b, loc, 0));
      for (Partial &p : partials) {
        Partial other;
        for (Value v : p)
          other.push_back(shuffleXor(b, loc, v, int64_t(1) << j));
        if (!upper) {
          p = combinePartials(comb, p, other);
          continue;
        }
        Partial lower, higher;
        for (auto [mine, theirs] : llvm::zip(p, other)) {
          lower.push_back(arith::SelectOp::create(b, loc, upper, theirs, mine));
          higher.push_back(
              arith::SelectOp::create(b, loc, upper, mine, theirs));
        }
        p = combinePartials(comb, lower, higher);
      }
    }

    SmallVector<int64_t> outShape(srcType.getShape());
    outShape.erase(outShape.begin() + axis);
    if (outShape.empty() && warpAlong.empty())
      return results(partials[0]); // every thread
    std::optional<BlockedLayout> outLayout;
    auto resultType = [&](size_t k) {
      return cast<VectorType>(conv.convertType(op->getResult(k)));
    };
    if (!outShape.empty())
      outLayout = conv.getLayout(op.getResult());
    std::optional<BlockedLayout> &out = outLayout;

    // Each result register already a partial of this thread (the same group
    // for every thread)? Then no exchange.
    if (warpAlong.empty()) {
      SmallVector<int64_t> groupOf(out->perThread, -1);
      bool held = true;
      for (int64_t t = 0; t < in.numThreads && held; ++t) {
        DenseMap<int64_t, int64_t> have;
        for (size_t g = 0; g < groups.size(); ++g)
          have[resultIndexOf(in.threadOffset(t) +
                             in.registerOffset(groups[g]))] = g;
        for (int64_t e = 0; e < out->perThread && held; ++e) {
          auto it = have.find(out->threadOffset(t) + out->registerOffset(e));
          held = it != have.end() && (groupOf[e] < 0 || groupOf[e] == it->second);
          if (held)
            groupOf[e] = it->second;
        }
      }
      if (held) {
        SmallVector<Value> out(results(partials[0]).size());
        for (auto [k, result] : llvm::enumerate(out)) {
          result = constantOf(b, loc, resultType(k), 0);
          for (int64_t e = 0; e < outLayout->perThread; ++e)
            result = vector::InsertOp::create(
                b, loc, results(partials[groupOf[e]])[k], result, e);
        }
        return out;
      }
    }

    // 3. The partials through the scratch buffer: slot
    //    resultIndex * warps + (the warp's place along the axis).
    int64_t warps = int64_t(1) << warpAlong.size();
    int64_t numOut = 1;
    for (int64_t d : outShape)
      numOut *= d;
    // Each value's partials one after another, 4-byte aligned.
    SmallVector<int64_t, 2> offsets;
    int64_t bytes = 0;
    for (Type t : kiteElems) {
      offsets.push_back(bytes);
      bytes += llvm::alignTo(numOut * warps * elementBytes(t), 4);
    }
    Scratch s(b, loc, state);
    Value tid = threadId(b, loc);
    Value place = s.i32(0);
    for (size_t k = 0; k < warpAlong.size(); ++k) {
      Value bit = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, tid, s.i32(warpAlong[k])),
          s.i32(1));
      place = arith::OrIOp::create(
          b, loc, place, arith::ShLIOp::create(b, loc, bit, s.i32(k)));
    }
    s.barrier();
    for (size_t g = 0; g < groups.size(); ++g) {
      Value lin = arith::OrIOp::create(
          b, loc, tbase, s.i32(bits.apply(LinearLayout::In::Register, groups[g])));
      Value high = arith::ShLIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, lin, s.i32(axisLo + axisBits)),
          s.i32(axisLo));
      Value low = arith::AndIOp::create(b, loc, lin,
                                        s.i32((int64_t(1) << axisLo) - 1));
      Value outIndex = arith::OrIOp::create(b, loc, high, low);
      Value slot = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, outIndex, s.i32(warps)), place);
      for (auto [k, v] : llvm::enumerate(partials[g]))
        LLVM::StoreOp::create(b, loc, v,
                              s.address(offsets[k], slot, kiteElems[k]));
    }
    s.barrier();
    auto gather = [&](Value outIndex) -> SmallVector<Value> {
      Value first = arith::MulIOp::create(b, loc, outIndex, s.i32(warps));
      Partial acc;
      for (int64_t w = 0; w < warps; ++w) {
        Value slot = arith::AddIOp::create(b, loc, first, s.i32(w));
        Partial p;
        for (auto [k, t] : llvm::enumerate(kiteElems))
          p.push_back(s.load(offsets[k], slot, elems[k], t));
        acc = w == 0 ? p : combinePartials(comb, acc, p);
      }
      return results(acc);
    };
    if (outShape.empty())
      return gather(s.i32(0));
    Value outBase = threadBase(b, loc, *out);
    SmallVector<Value> result;
    for (size_t k = 0; k < op->getNumResults(); ++k)
      result.push_back(constantOf(b, loc, resultType(k), 0));
    for (int64_t e = 0; e < out->perThread; ++e) {
      Value outIndex = arith::AddIOp::create(b, loc, outBase,
                                             s.i32(out->registerOffset(e)));
      for (auto [k, v] : llvm::enumerate(gather(outIndex)))
        result[k] = vector::InsertOp::create(b, loc, v, result[k], e);
    }
    return result;
  }
};

/// Pattern: kite.scan => one step per bit of the axis index (see the file
/// comment).
struct ScanLowering : OpConversionPattern<ScanOp> {
  ScanLowering(KiteTypeConverter &c, const KiteLoweringState &s,
               MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}

  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    BlockedLayout in = conv.getLayout(op.getSrc());
    std::optional<LinearLayout> bits = linearLayoutOf(op, in, "a source");
    if (!bits)
      return failure();
    for (Value src : op.getSrcs())
      if (!conv.getLayout(src).placesLike(in))
        return b.notifyMatchFailure(
            op, "the blocks scanned together have different layouts");
    Location loc = op.getLoc();
    RankedTensorType type = op.getSrc().getType();
    // Each register's values: one per block scanned (several: a custom
    // scan of a tuple).
    using Values = SmallVector<Value, 2>;
    const size_t count = op.getSrcs().size();
    SmallVector<Type, 2> kiteElems, elems;
    SmallVector<RankedTensorType, 2> types;
    for (Value src : op.getSrcs()) {
      types.push_back(cast<RankedTensorType>(src.getType()));
      kiteElems.push_back(types.back().getElementType());
      elems.push_back(conv.convertType(kiteElems.back()));
    }
    bool isFloat = isa<FloatType>(elems[0]),
         sum = op.getKind() == ScanKind::Sum;
    bool custom = op.getKind() == ScanKind::Custom;
    bool reverse = op.getReverse();
    auto combine = [&](const Values &a, const Values &x) -> Values {
      if (custom)
        return applyCombineRegion(b, op.getCombiner(), a, x, state.fpFusion);
      if (sum)
        return {isFloat
                    ? contractible(arith::AddFOp::create(b, loc, a[0], x[0]),
                                   state.fpFusion)
                    : arith::AddIOp::create(b, loc, a[0], x[0]).getResult()};
      return {isFloat ? contractible(arith::MulFOp::create(b, loc, a[0], x[0]),
                                     state.fpFusion)
                      : arith::MulIOp::create(b, loc, a[0], x[0]).getResult()};
    };
    auto select = [&](Value cond, const Values &t, const Values &f) {
      Values out;
      for (size_t k = 0; k < count; ++k)
        out.push_back(arith::SelectOp::create(b, loc, cond, t[k], f[k]));
      return out;
    };

    AxisField field(type, op.getAxis());
    int64_t axisLo = field.lo, axisBits = field.bits;

    int64_t n = in.perThread;
    SmallVector<Values> scan, total;
    for (int64_t e = 0; e < n; ++e) {
      Values v;
      for (Value src : adaptor.getSrcs())
        v.push_back(extractRegister(b, loc, src, e));
      scan.push_back(v);
      total.push_back(v);
    }
    Scratch s(b, loc, state);
    Value tid = threadId(b, loc);
    Value tbase = threadBase(b, loc, in);
    auto resultType = [&](size_t k) {
      return cast<VectorType>(conv.convertType(op->getResult(k)));
    };
    // Value k of each register as block k's vector.
    auto registers = [&](ArrayRef<Values> regs, size_t k) {
      Value v = constantOf(b, loc, resultType(k), 0);
      for (int64_t e = 0; e < n; ++e)
        v = vector::InsertOp::create(b, loc, regs[e][k], v, e);
      return v;
    };
    for (int64_t k = 0; k < axisBits; ++k) {
      int64_t move = int64_t(1) << (axisLo + k);
      // Which bit of (register, thread) moves the element by `move`.
      int regBit = -1, threadBit = -1;
      for (size_t i = 0; i < bits->numBits(LinearLayout::In::Register); ++i)
        if (bits->bases(LinearLayout::In::Register)[i] == move)
          regBit = int(i);
      for (size_t j = 0; j < bits->numBits(LinearLayout::In::Thread); ++j)
        if (bits->bases(LinearLayout::In::Thread)[j] == move)
          threadBit = int(j);
      if (regBit < 0 && threadBit < 0)
        return op.emitOpError()
               << "has a source layout that places no bit at index bit "
               << axisLo + k << " (a compiler bug)";
      // The partner run's total for each register.
      SmallVector<Values> partner(n);
      if (regBit >= 0) {
        for (int64_t e = 0; e < n; ++e)
          partner[e] = total[e ^ (int64_t(1) << regBit)];
      } else if (threadBit < 5) {
        for (int64_t e = 0; e < n; ++e)
          for (Value v : total[e])
            partner[e].push_back(
                shuffleXor(b, loc, v, int64_t(1) << threadBit));
      } else {
        // Through the scratch buffer, at the elements' linear indices; one
        // block's values at a time.
        for (size_t c = 0; c < count; ++c) {
          s.publish(registers(total, c), types[c], in);
          for (int64_t e = 0; e < n; ++e) {
            Value lin = arith::OrIOp::create(
                b, loc, tbase,
                s.i32(bits->apply(LinearLayout::In::Register, e)));
            Value other = arith::XOrIOp::create(b, loc, lin, s.i32(move));
            partner[e].push_back(s.load(0, other, elems[c], kiteElems[c]));
          }
        }
      }
      // In the upper run (bit set): scan = partner + scan; reversed, the
      // lower run takes the upper's total: scan = scan + partner. Totals
      // combine lower run first.
      Value upper;
      if (regBit < 0)
        upper = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ne,
            arith::AndIOp::create(b, loc, tid, s.i32(int64_t(1) << threadBit)),
            s.i32(0));
      for (int64_t e = 0; e < n; ++e) {
        const Values &p = partner[e];
        if (regBit >= 0) {
          bool isUpper = (e >> regBit) & 1;
          if (isUpper != reverse)
            scan[e] = isUpper ? combine(p, scan[e]) : combine(scan[e], p);
          total[e] = isUpper ? combine(p, total[e]) : combine(total[e], p);
          continue;
        }
        Values takes = reverse ? combine(scan[e], p) : combine(p, scan[e]);
        scan[e] = reverse ? select(upper, scan[e], takes)
                          : select(upper, takes, scan[e]);
        total[e] = select(upper, combine(p, total[e]), combine(total[e], p));
      }
    }

    // The scan in the source's layout; the result's may differ.
    BlockedLayout out = conv.getLayout(op.getResult());
    SmallVector<Value> results;
    for (size_t c = 0; c < count; ++c) {
      Value result = registers(scan, c);
      if (!out.placesLike(in)) {
        s.publish(result, types[c], in);
        result = constantOf(b, loc, resultType(c), 0);
        Value outBase = threadBase(b, loc, out);
        for (int64_t e = 0; e < out.perThread; ++e) {
          Value lin = arith::AddIOp::create(b, loc, outBase,
                                            s.i32(out.registerOffset(e)));
          result = vector::InsertOp::create(
              b, loc, s.load(0, lin, elems[c], kiteElems[c]), result, e);
        }
      }
      results.push_back(result);
    }
    b.replaceOp(op, results);
    return success();
  }

private:
  const KiteLoweringState &state;
};

} // namespace

Value mlir::kite::detail::shuffleXor(OpBuilder &b, Location loc, Value v,
                                     int64_t laneMask) {
  Type i32 = b.getI32Type();
  auto shfl = [&](Value x) -> Value {
    return NVVM::ShflOp::create(
        b, loc, i32, i32Const(b, loc, -1), x, i32Const(b, loc, laneMask),
        i32Const(b, loc, 0x1f), NVVM::ShflKind::bfly, UnitAttr());
  };
  Type t = v.getType();
  unsigned bits = t.getIntOrFloatBitWidth();
  Type asInt = b.getIntegerType(bits);
  Value x = isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, asInt, v) : v;
  Value r;
  if (bits == 64) {
    Type i64 = b.getI64Type();
    Value lo = arith::TruncIOp::create(b, loc, i32, x);
    Value hi = arith::TruncIOp::create(
        b, loc, i32,
        arith::ShRUIOp::create(b, loc, x,
                               arith::ConstantIntOp::create(b, loc, i64, 32)));
    Value rlo = arith::ExtUIOp::create(b, loc, i64, shfl(lo));
    Value rhi = arith::ExtUIOp::create(b, loc, i64, shfl(hi));
    r = arith::OrIOp::create(
        b, loc, rlo,
        arith::ShLIOp::create(b, loc, rhi,
                              arith::ConstantIntOp::create(b, loc, i64, 32)));
  } else if (bits < 32) {
    r = arith::TruncIOp::create(b, loc, asInt,
                                shfl(arith::ExtUIOp::create(b, loc, i32, x)));
  } else {
    r = shfl(x);
  }
  return isa<FloatType>(t) ? arith::BitcastOp::create(b, loc, t, r).getResult()
                           : r;
}

void mlir::kite::populateAxisOpPatterns(KiteTypeConverter &converter,
                                        const KiteLoweringState &state,
                                        RewritePatternSet &patterns) {
  patterns.add<ReduceLowering, ScanLowering>(converter, state,
                                             patterns.getContext());
}
