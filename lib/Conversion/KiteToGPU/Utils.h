//===- Utils.h - Helpers shared by the kite -> gpu patterns ------*- C++ -*-===//
//
// Small IR-building helpers used by several pattern families: thread ids,
// constants of a given shape, per-register extraction.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_CONVERSION_KITETOGPU_UTILS_H
#define KITE_LIB_CONVERSION_KITETOGPU_UTILS_H

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>

namespace mlir::kite::detail {

/// The thread's index in its program (i32).
/// The arange behind `broadcast(expand_dims*(arange))`, which is lowered in
/// registers (no exchange between threads); null otherwise.
inline ArangeOp broadcastArangeSource(BroadcastOp op) {
  Value v = op.getSrc();
  while (auto expand = v.getDefiningOp<ExpandDimsOp>())
    v = expand.getSrc();
  return v.getDefiningOp<ArangeOp>();
}

/// In a kernel of several consumer groups (ping-pong) the index within the
/// thread's group: the pass rewrites gpu.thread_id after the patterns
/// (KiteToGPUPass.cpp); rawThreadId is the index in the program.
inline Value threadId(OpBuilder &b, Location loc) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), tid);
}
Value rawThreadId(OpBuilder &b, Location loc);
/// The thread's consumer group (i32: rawThreadId / numThreads in a kernel
/// of several, ping-pong; 0 otherwise).
Value consumerGroup(OpBuilder &b, Location loc, const KiteLoweringState &state);

/// threadBase(t) of `layout` (i32): the linear index of the thread's first
/// register.
inline Value threadBase(OpBuilder &b, Location loc,
                        const BlockedLayout &layout) {
  Value tid = threadId(b, loc);
  auto i32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  };
  // Sum over the digits of tid (the last one needs no remainder); digits
  // of stride 0 (replication) add nothing.
  size_t used = layout.threadDigits.size();
  while (used && layout.threadDigits[used - 1].stride == 0)
    --used;
  Value base, rest = tid;
  for (size_t i = 0; i < used; ++i) {
    const LayoutDigit &d = layout.threadDigits[i];
    bool last = i + 1 == layout.threadDigits.size();
    Value digit = last ? rest : arith::RemUIOp::create(b, loc, rest, i32(d.size));
    if (!last)
      rest = arith::DivUIOp::create(b, loc, rest, i32(d.size));
    if (d.size == 1 || d.stride == 0)
      continue;
    Value term = arith::MulIOp::create(b, loc, digit, i32(d.stride));
    base = base ? arith::AddIOp::create(b, loc, base, term).getResult() : term;
  }
  return base ? base : i32(0);
}

/// `v` from the lane whose index differs from this one's in `laneMask`
/// (shfl.sync.bfly over the whole warp). Values narrower than 32 bits
/// travel widened, 64-bit ones as two halves (AxisOpsToGPU.cpp).
Value shuffleXor(OpBuilder &b, Location loc, Value v, int64_t laneMask);

/// An integer or float constant `value` of type `type` (scalar or vector).
inline Value constantOf(OpBuilder &b, Location loc, Type type, int64_t value) {
  Type element = getElementTypeOrSelf(type);
  TypedAttr scalar;
  if (isa<FloatType>(element))
    scalar = b.getFloatAttr(element, static_cast<double>(value));
  else
    scalar = b.getIntegerAttr(element, value);
  if (auto vec = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, vec,
                                     DenseElementsAttr::get(vec, scalar));
  return arith::ConstantOp::create(b, loc, type, scalar);
}

/// `scalar` broadcast to `like`'s vector shape (itself if `like` is scalar).
inline Value splatLike(OpBuilder &b, Location loc, Value scalar, Type like) {
  auto vec = dyn_cast<VectorType>(like);
  if (!vec)
    return scalar;
  return vector::BroadcastOp::create(
      b, loc, VectorType::get(vec.getShape(), scalar.getType()), scalar);
}

/// Register `e` of a per-thread value (the value itself for scalars).
/// With fp fusion on (Triton's enable_fp_fusion), marks a float add, sub
/// or mul `contract`, so that LLVM may fuse a multiply and an add into one
/// fma; other ops, or fp fusion off: nothing.
inline void allowContraction(Operation *op, bool fpFusion) {
  if (!fpFusion || !isa<arith::AddFOp, arith::SubFOp, arith::MulFOp>(op))
    return;
  auto fm = cast<arith::ArithFastMathInterface>(op);
  op->setAttr(fm.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(
                  op->getContext(), fm.getFastMathFlagsAttr().getValue() |
                                        arith::FastMathFlags::contract));
}

inline Value extractRegister(OpBuilder &b, Location loc, Value v, int64_t e) {
  if (!isa<VectorType>(v.getType()))
    return v;
  return vector::ExtractOp::create(b, loc, v, e);
}

/// How a block access is cut into groups of registers.
struct AccessPlan {
  int64_t width = 1;      ///< registers per vector access
  bool uniformMask = false; ///< the mask is constant within each group
};

/// Chooses the vector width of an access to a block of pointers `ptrs`
/// (layout `layout`) with optional `mask`, from the layout and the AxisInfo
/// facts: at most 16 bytes, contiguous and aligned (MemoryOpsToGPU.cpp).
AccessPlan planAccess(const KiteLoweringState &state,
                      const BlockedLayout &layout, Value ptrs, Value mask,
                      int64_t elementBytes);

/// The predicate "this thread owns its copy of its registers" for a value
/// in `layout` (i1): the thread bits that move no element (replication,
/// LinearLayout::replicatedThreads) are 0; thread 0 for a scalar (no layout). Null when every
/// thread owns its registers. Side effects on replicated values (atomics,
/// prints, asserts) happen once under it.
Value ownerPredicate(OpBuilder &b, Location loc,
                     const std::optional<BlockedLayout> &layout);

/// The image of the runtime value `x` (i32, an input of dimension `dim`)
/// under `layout` (i32): the XOR of the bases of its set bits, a run of
/// bits whose bases double from one to the next taken as one field (one
/// shift, mask and shift or multiply). Bits above the dimension's are
/// ignored (LinearLayout.cpp).
Value applyLinear(OpBuilder &b, Location loc, const LinearLayout &layout,
                  LinearLayout::In dim, Value x);

/// The shared-memory addresses of the registers of a (register, thread)
/// -> byte offset layout (a block's layout composed with a staging's, or an
/// ldmatrix's lanes composed with it), `start` bytes from `base`
/// (!llvm.ptr<3>). Register e of thread t lies at T(t) XOR R(e): the
/// thread's part T is computed once from the thread id (applyLinear); each
/// register's R splits into the bits T can set (one XOR, shared by the
/// registers with the same such bits) and the rest, a constant PTX folds
/// into the address.
class SharedAddresses {
public:
  SharedAddresses(OpBuilder &b, Location loc, const LinearLayout &addr,
                  int64_t start, Value base);
  Value at(int64_t reg);
  /// Register -> byte offset (XOR the thread's part), from `start`.
  const LinearLayout &layout() const { return addr; }
  int64_t startOffset() const { return start; }

private:
  OpBuilder &b;
  Location loc;
  LinearLayout addr;
  Value base, threadPart;
  int64_t threadSpan, start;
  std::map<int64_t, Value> xored;
};

/// For an op that moves blocks through shared memory (kite.convert_layout,
/// kite.tma_store) where it reuses the staging slots
/// (reusesStagingMemory) in a kernel that stages with cp.async: waits for
/// the pipeline's last copies (cp.async.wait_group 0) and returns true;
/// else emits nothing and returns false (ConvertLayoutToGPU.cpp).
bool waitForStagedCopies(OpBuilder &b, Location loc, Operation *op);

/// `l` as a LinearLayout, or none after an error on `op` naming `what`
/// holds the layout ("an operand", "pointers"): every layout Kite builds
/// factors into bits, so none is a compiler bug.
std::optional<LinearLayout> linearLayoutOf(Operation *op,
                                           const BlockedLayout &l,
                                           StringRef what);

struct RegisterSubset;

/// The groups of a thread's registers whose elements lie at consecutive,
/// aligned addresses under `addr` (register -> byte offset from `start`,
/// XOR the thread's part), for every thread: register bits whose images
/// are the element size, twice it, ... (up to `maxBytes`) make a group's
/// members; every other register and thread bit, and `start`, must leave
/// those address bits alone (the group's first address is aligned to its
/// bytes). Each group lists its registers in address order, under its
/// first register's index; the others map to an empty list. With `only`,
/// a group's members share the subset's bits.
SmallVector<SmallVector<int64_t>>
addressRuns(const LinearLayout &addr, int64_t start, int64_t perThread,
            int64_t elemBytes, int64_t maxBytes,
            const RegisterSubset *only = nullptr);

/// Stores the registers `regs` of a block in layout `l` (elements of
/// `elemBytes`) at their SharedAddresses, in the widest groups
/// of registers whose bytes are contiguous and aligned there for every
/// thread, 16 bytes at most (addressRuns): the tensor-core operands stored
/// into their staging (a K x N block into a K-major staging: each run of k
/// a thread holds, whatever its registers' order), the TMA store's panels.
/// A run of 2-byte or wider elements is one shuffle of `regs` (element
/// extracts would make LLVM scalarize a loop-carried block, one register
/// an element). With `only`, just the runs whose first element e has
/// (e & only->mask) == only->value (e: the element index in `only->layout`,
/// the registers' layout; a run never crosses such a boundary when the mask
/// covers whole runs): decided at compile time where the mask's bits come
/// from registers alone, else per thread (`threadBits`: its part of the
/// element index).
struct RegisterSubset {
  const LinearLayout &layout;
  int64_t mask, value;
  Value threadBits; ///< applyLinear(layout, Thread, threadId), i32
};

void storeRegisterRuns(OpBuilder &b, Location loc, const BlockedLayout &l,
                       Value regs, int64_t elemBytes, SharedAddresses &at,
                       const RegisterSubset *only = nullptr);

/// The registers of a block of `type` in layout `l` (rows of `rowLen`
/// elements of `elemBytes`) loaded from their SharedAddresses, in the same
/// runs as storeRegisterRuns (i1 elements stored as bytes): the layout
/// exchange's reads, a staged load's.
Value loadRegisterRuns(OpBuilder &b, Location loc, const BlockedLayout &l,
                       VectorType type, int64_t rowLen, int64_t elemBytes,
                       SharedAddresses &at);

/// A global-memory pointer (!llvm.ptr<1>) from an i64 address.
Value toPointer(OpBuilder &b, Location loc, Value addr);

/// An fp8 value's bits (i8) as f32 (exact; cvt from fp8 needs sm_89+), and
/// two at once (one conversion instruction).
Value fp8ToF32(OpBuilder &b, Location loc, Value bits, Type fp8);
std::pair<Value, Value> fp8PairToF32(OpBuilder &b, Location loc, Value lo,
                                     Value hi, Type fp8);

/// An i32 constant.
inline Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

/// The start of staging slot `slot` (i32) of `slotBytes` bytes in the
/// kernel's shared memory, as !llvm.ptr<3> (TensorCoreStaging.cpp).
Value slotPointer(OpBuilder &b, Location loc, const KiteLoweringState &state,
                  Value slot, int64_t slotBytes);

/// Stores the registers of a kite.dot's operands (A in `aRegs`, none when
/// null: wgmma reads it from registers; B in `bRegs`, converted) into
/// `st`'s swizzled layouts at `base`
/// (!llvm.ptr<3>), in runs of up to 16 bytes: A K-major; B N-major, or,
/// when the dot reads B through a transposition its lowering elides
/// (stagedTranspose), the transposition's source K-major
/// (TensorCoreStaging.cpp). Each register's address comes from its layout
/// composed with the staging's (LinearLayout).
LogicalResult storeDotOperands(ConversionPatternRewriter &rewriter,
                               Location loc, const KiteTypeConverter &conv,
                               DotOp op, Value aRegs, Value bRegs,
                               const SwizzledStaging &st, Value base);

} // namespace mlir::kite::detail

#endif // KITE_LIB_CONVERSION_KITETOGPU_UTILS_H
