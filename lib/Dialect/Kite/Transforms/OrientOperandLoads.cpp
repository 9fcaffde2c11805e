//===- OrientOperandLoads.cpp - Load a dot operand along its contiguity ---===//
//
// A dot's B is a K x N block; where its memory is contiguous along K (an
// nn.Linear weight given as B = W^T, or attention's K read in the
// transposed order, `k_ptr + offs_n[None, :] * stride + offs_d[:, None]`),
// a thread's consecutive elements of a row are a stride apart and no copy
// can move more than one at a time. Triton decides a load's order from its
// contiguity (AxisInfo); so does this step: the pointer block's transpose is
// computed from its leaves (the ops that build it, pushed through
// kite.trans), and when AxisInfo says its loads move wider vectors, the
// load reads the N x K block and the dot reads it through a kite.trans:
//   b = kite.load %ptrs, %mask, %other : K x N
// becomes
//   %t = kite.load %ptrsT, %maskT, %otherT : N x K
//   b  = kite.trans %t order [1, 0]
// the form the staging takes K-major (transposedB), whether the source
// wrote `b.T`, `trans(b)` or the strides.
//
//===----------------------------------------------------------------------===//

#include "DotSchedules.h"
#include "TmaOperands.h"

#include "kite/Analysis/AxisInfo.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
namespace kd = mlir::kite;

namespace {

/// Builds the transposes ([1, 0]) of 2-D blocks from the ops that compute
/// them, each new op right after the one it transposes (so it dominates
/// what the original did); remembers what it made, to undo it.
class Transposer {
public:
  explicit Transposer(MLIRContext *ctx) : builder(ctx) {}

  /// trans(v), or null where some op of v's computation has no transposed
  /// form here (a block argument, a load, a reduction...).
  Value get(Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getRank() != 2)
      return {};
    if (Value done = memo.lookup(v))
      return done;
    Value t = make(v, type);
    if (t)
      memo[v] = t;
    return t;
  }

  /// Erases what get() made (nothing may use it any more).
  void undo() {
    for (Operation *op : llvm::reverse(made))
      op->erase();
    made.clear();
    memo.clear();
  }
  void keep() {
    made.clear();
    memo.clear();
  }

private:
  static RankedTensorType transposed(RankedTensorType type) {
    return RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)},
                                 type.getElementType());
  }

  Value make(Value v, RankedTensorType type) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumResults() != 1)
      return {};
    RankedTensorType to = transposed(type);
    if (auto trans = dyn_cast<kd::TransOp>(def))
      return trans.getSrc(); // a 2-D transpose is [1, 0]
    builder.setInsertionPointAfter(def);
    Location loc = def->getLoc();
    auto record = [&](Operation *op) {
      made.push_back(op);
      return op->getResult(0);
    };
    if (auto splat = dyn_cast<kd::SplatOp>(def))
      return record(kd::SplatOp::create(builder, loc, to, splat.getSrc()));
    DenseElementsAttr dense;
    if (matchPattern(v, m_Constant(&dense)) && dense.isSplat())
      return record(arith::ConstantOp::create(builder, loc, to,
                                              dense.resizeSplat(to)));
    if (auto expand = dyn_cast<kd::ExpandDimsOp>(def)) {
      // [n] -> [n, 1] is [1, n] transposed, and back.
      if (expand.getSrc().getType().getRank() != 1)
        return {};
      return record(kd::ExpandDimsOp::create(
          builder, loc, to, expand.getSrc(),
          builder.getI32IntegerAttr(1 - int32_t(expand.getAxis()))));
    }
    if (auto bcast = dyn_cast<kd::BroadcastOp>(def)) {
      Value src = get(bcast.getSrc());
      if (!src)
        return {};
      builder.setInsertionPointAfter(def);
      return record(kd::BroadcastOp::create(builder, loc, to, src));
    }
    // Elementwise ops of blocks of one shape (addptr, arith).
    if (!isa<kd::AddPtrOp>(def) && !(isa<arith::ArithDialect>(
                                          def->getDialect()) &&
                                      def->getNumRegions() == 0))
      return {};
    SmallVector<Value> operands;
    for (Value operand : def->getOperands()) {
      auto t = dyn_cast<RankedTensorType>(operand.getType());
      if (!t || t.getShape() != type.getShape())
        return {};
      Value tr = get(operand);
      if (!tr)
        return {};
      operands.push_back(tr);
    }
    builder.setInsertionPointAfter(def);
    OperationState state(loc, def->getName());
    state.addOperands(operands);
    state.addTypes(to);
    state.addAttributes(def->getAttrs());
    return record(builder.create(state));
  }

  OpBuilder builder;
  llvm::DenseMap<Value, Value> memo;
  SmallVector<Operation *> made;
};

/// Bytes of one element of a block of pointers.
int64_t pointeeBytes(Value ptrs) {
  auto ptr = cast<kd::PointerType>(
      cast<RankedTensorType>(ptrs.getType()).getElementType());
  return std::max<int64_t>(
      1, ptr.getPointeeType().getIntOrFloatBitWidth() / 8);
}

/// Loads `operand` of a dot in `loop`'s body in the order of its memory,
/// where AxisInfo says that moves wider vectors.
bool orientLoad(func::FuncOp func, scf::ForOp loop, Value operand) {
  auto load = operand.getDefiningOp<kd::LoadOp>();
  if (!load || load->getBlock() != loop.getBody() || !load->hasOneUse())
    return false;
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || type.getRank() != 2)
    return false;
  int64_t bytes = pointeeBytes(load.getPtr());
  Transposer transposer(func.getContext());
  Value ptrs = transposer.get(load.getPtr());
  Value mask = load.getMask() ? transposer.get(load.getMask()) : Value();
  Value other = load.getOther();
  if (other && isa<RankedTensorType>(other.getType()))
    other = transposer.get(other);
  if (!ptrs || (load.getMask() && !mask) || (load.getOther() && !other)) {
    transposer.undo();
    return false;
  }
  // The data decides: the transposed block's accesses must move wider
  // vectors than the block's own.
  kd::AxisInfoAnalysis axisInfo(func);
  // Wider vectors; or, without the alignment for vectors (sizes and strides
  // without divisibility facts), longer contiguous runs: the addresses of a
  // run then come from its first (the access lowering's immediates).
  auto runOf = [&](Value p) {
    return std::min<int64_t>(16 / bytes, axisInfo.get(p).contiguity);
  };
  int64_t wide = axisInfo.vectorElements(ptrs, bytes),
          wideNow = axisInfo.vectorElements(load.getPtr(), bytes);
  if (wide < wideNow || (wide == wideNow && runOf(ptrs) <= runOf(load.getPtr()))) {
    transposer.undo();
    return false;
  }
  transposer.keep();
  OpBuilder b(load);
  auto loaded = kd::LoadOp::create(b, load.getLoc(), ptrs, mask, other);
  loaded->setDiscardableAttrs(load->getDiscardableAttrDictionary());
  auto trans = kd::TransOp::create(b, load.getLoc(), type, loaded,
                                   b.getDenseI32ArrayAttr({1, 0}));
  load.replaceAllUsesWith(trans.getResult());
  load.erase();
  return true;
}

} // namespace

namespace kite::detail {
bool orientOperandLoads(func::FuncOp func, scf::ForOp loop,
                        ArrayRef<kd::DotOp> dots, bool wgmma) {
  bool changed = false;
  for (kd::DotOp dot : dots) {
    // Only where the staging reads the other orientation: f16/bf16 on both
    // engines (wgmma's transpose bits, ldmatrix.trans); tf32 only as a
    // K-major B on wgmma; fp8 on wgmma both (B K-major read as it is, an A
    // along M through the register dot).
    Type element = dot.getA().getType().getElementType();
    bool half = element.isF16() || element.isBF16();
    // (fp8's and tf32's A along M: loaded K x M and stored K-major from
    // registers by the register dot on wgmma.)
    if (half || (wgmma && (kd::isFp8(element) || dot.isTf32())))
      changed |= orientLoad(func, loop, dot.getA());
    if (half || (wgmma && (element.isF32() || kd::isFp8(element))))
      changed |= orientLoad(func, loop, dot.getB());
  }
  return changed;
}
} // namespace kite::detail
