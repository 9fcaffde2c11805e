//===- Scratch.h - Exchanging block elements through shared memory -*- C++ -*-===//
//
// The scratch buffer helpers of the ops that move block elements between
// threads (SharedMemoryOpsToGPU.cpp: broadcast, reduce, the FMA dot;
// ShapeOpsToGPU.cpp: trans, reshape): stores of a thread's registers at
// their linear indices, barriers, loads by coordinates, and the register-
// tiled dot's staging addresses.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_CONVERSION_KITETOGPU_SCRATCH_H
#define KITE_LIB_CONVERSION_KITETOGPU_SCRATCH_H

#include "Utils.h"

#include <type_traits>

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::kite::detail {

/// Bytes of one element of type `t` in shared memory (i1 as a byte).
inline int64_t elementBytes(Type t) {
  if (isa<PointerType>(t))
    return 8;
  if (t.isInteger(1))
    return 1;
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

/// Bytes a block of type `t` takes in shared memory (pointers as i64).
inline int64_t blockBytes(RankedTensorType t) {
  return t.getNumElements() * elementBytes(t.getElementType());
}

/// The width of the run of registers of `l` starting at each register (0
/// inside a run): registers whose elements are consecutive, within one
/// row of `rowLen`, and aligned to the run for every thread, at most
/// `maxWidth` (ConvertLayoutToGPU.cpp).
SmallVector<int64_t> registerRuns(const BlockedLayout &l, int64_t rowLen,
                                  int64_t maxWidth);

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

  Scratch(OpBuilder &b, Location loc, Value base) : b(b), loc(loc), base(base) {}

  /// The scratch of the op's thread: the kernel's buffer from its start,
  /// or in a kernel of several consumer groups (ping-pong) the group's
  /// share of it.
  Scratch(OpBuilder &b, Location loc, const KiteLoweringState &state)
      : Scratch(b, loc, StringRef(state.sharedMemory)) {
    if (state.consumerGroups > 1)
      base =
          offsetBy(arith::MulIOp::create(b, loc, consumerGroup(b, loc, state),
                                         i32(state.groupScratchBytes)))
              .base;
  }

  /// The scratch moved by `bytes` (an i32 value).
  Scratch offsetBy(Value bytes) {
    return Scratch(b, loc,
                   LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(),
                                       base, ValueRange{bytes}));
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

  /// Makes `regs` (a block of `type` in `layout`) readable by every thread
  /// at its linear index: a barrier (earlier readers of the buffer are
  /// done), the stores, a barrier.
  void publish(Value regs, RankedTensorType type, const BlockedLayout &layout) {
    barrier();
    store(regs, type, layout, 0);
    barrier();
  }

  /// The coordinates (i32) in `shape` of each register of this thread
  /// under `layout`.
  SmallVector<SmallVector<Value>>
  registerCoordinates(const BlockedLayout &layout, ArrayRef<int64_t> shape) {
    Value tbase = threadBase(b, loc, layout);
    SmallVector<SmallVector<Value>> coords;
    for (int64_t e = 0; e < layout.perThread; ++e)
      coords.push_back(coordinates(
          arith::AddIOp::create(b, loc, tbase, i32(layout.registerOffset(e))),
          shape));
    return coords;
  }

  /// The index (DotStaging::aIndex) of A's element in row 4 * mHi + mLo
  /// at step k of a k-major staging (i32 values; constants fold). The
  /// swizzle reads k's 4-step group `kHi` (default: k / 4).
  Value aKMajorIndex(const DotStaging &staging, Value mHi, Value mLo,
                     Value k, Value kHi = {}) {
    Value hi = mHi;
    if (int64_t g = staging.swizzleGroups(); g > 1) {
      if (!kHi)
        kHi = arith::ShRUIOp::create(b, loc, k, i32(2));
      Value swz = arith::AndIOp::create(b, loc, kHi, i32(g - 1));
      hi = arith::XOrIOp::create(b, loc, mHi, swz);
    }
    Value m = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, hi, i32(4)), mLo);
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, k, i32(staging.M)), m);
  }

  /// Where element `lin` (i32, linear in its M x K or K x N block) of
  /// operand `operand` (0: A, 1: B) of a register-tiled dot lies in its
  /// staging (see DotStaging), as f32.
  Value stagedAddress(const DotStaging &staging, int operand, Value lin) {
    if (operand == 1)
      return address(staging.bOffset(), lin, b.getF32Type());
    Value m = arith::DivUIOp::create(b, loc, lin, i32(staging.K));
    Value k = arith::RemUIOp::create(b, loc, lin, i32(staging.K));
    Value idx;
    if (staging.aKMajor)
      idx = aKMajorIndex(staging, arith::DivUIOp::create(b, loc, m, i32(4)),
                         arith::RemUIOp::create(b, loc, m, i32(4)), k);
    else
      idx = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, m, i32(staging.aRowStride())),
          k);
    return address(0, idx, b.getF32Type());
  }

  /// The staging addresses (stagedAddress) of a register-tiled dot
  /// operand's registers in layout `l`. For a k-major A where no thread's
  /// register offsets carry across A's rows or its 4-row and 4-step groups,
  /// a register's address is the thread's part plus a constant (folded into
  /// the store or copy); otherwise each comes from its linear index.
  struct StagedAddresses {
    Scratch &s;
    const DotStaging &staging;
    int operand;
    const BlockedLayout &l;
    Value tbase, tmHi, tmLo, tk, tkHi;
    bool split = false;

    StagedAddresses(Scratch &s, const DotStaging &staging, int operand,
                    const BlockedLayout &l)
        : s(s), staging(staging), operand(operand), l(l) {
      tbase = threadBase(s.b, s.loc, l);
      if (operand != 0 || !staging.aKMajor)
        return;
      int64_t K = staging.K, G = staging.swizzleGroups();
      split = true;
      for (int64_t t = 0; t < l.numThreads && split; ++t) {
        int64_t tb = l.threadOffset(t), m = tb / K, k = tb % K;
        for (int64_t e = 0; e < l.perThread && split; ++e) {
          int64_t r = l.registerOffset(e), rm = r / K, rk = r % K;
          split = k + rk < K && m % 4 + rm % 4 < 4 && k % 4 + rk % 4 < 4 &&
                  (rm / 4) % G == 0;
        }
      }
      if (!split)
        return;
      OpBuilder &b = s.b;
      Location loc = s.loc;
      Value tm = arith::DivUIOp::create(b, loc, tbase, s.i32(K));
      tk = arith::RemUIOp::create(b, loc, tbase, s.i32(K));
      tmHi = arith::DivUIOp::create(b, loc, tm, s.i32(4));
      tmLo = arith::RemUIOp::create(b, loc, tm, s.i32(4));
      tkHi = arith::DivUIOp::create(b, loc, tk, s.i32(4));
    }

    Value at(int64_t e) {
      OpBuilder &b = s.b;
      Location loc = s.loc;
      int64_t r = l.registerOffset(e);
      if (!split)
        return s.stagedAddress(staging, operand,
                               arith::AddIOp::create(b, loc, tbase, s.i32(r)));
      // Row tm + rm, step tk + rk: the thread's index at step tk with the
      // swizzle of step tk + rk (group tkHi + rk / 4), plus the constant
      // rk * M + rm.
      int64_t K = staging.K, M = staging.M;
      int64_t rm = r / K, rk = r % K;
      Value kHi = arith::AddIOp::create(b, loc, tkHi, s.i32(rk / 4));
      return s.address(4 * (rk * M + rm),
                       s.aKMajorIndex(staging, tmHi, tmLo, tk, kHi),
                       b.getF32Type());
    }
  };

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

  /// A block of `type` in layout `out` read from the published buffer:
  /// each register at the linear index `sourceIndex` gives for its
  /// coordinates (elements stored as `kiteElem`); a `sourceIndex` taking
  /// (coordinates, register) also gets the register's number.
  template <typename F>
  Value gather(const TypeConverter &conv, RankedTensorType type,
               const BlockedLayout &out, Type kiteElem, F sourceIndex) {
    // `out`'s register count: a value's layout (a slice, a replicated
    // one) may hold more or fewer registers than its shape's default.
    auto resultType = VectorType::get(
        {out.perThread},
        cast<VectorType>(conv.convertType(type)).getElementType());
    Value result = constantOf(b, loc, resultType, 0);
    auto coords = registerCoordinates(out, type.getShape());
    for (int64_t e = 0; e < out.perThread; ++e) {
      Value index;
      if constexpr (std::is_invocable_v<F, ArrayRef<Value>, int64_t>)
        index = sourceIndex(ArrayRef<Value>(coords[e]), e);
      else
        index = sourceIndex(ArrayRef<Value>(coords[e]));
      Value v = load(0, index, resultType.getElementType(), kiteElem);
      result = vector::InsertOp::create(b, loc, v, result, e);
    }
    return result;
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

} // namespace mlir::kite::detail

#endif // KITE_LIB_CONVERSION_KITETOGPU_SCRATCH_H
