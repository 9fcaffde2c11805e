//===- LowerDescriptors.cpp - Descriptor accesses as masked pointer blocks ===//
//
// kite-lower-descriptors: see Passes.td. For a block of shape [B0, ..., Bn)
// at offsets (o0, ..., on) of a descriptor (base, shape, strides):
//   offs_k = o_k + arange(0, B_k), expanded along dimension k
//   ptrs   = base + sum_k offs_k * stride_k      (broadcast to the block)
//   mask   = AND_k (0 <= offs_k < shape_k)
// then kite.load ptrs, mask, 0 or kite.store ptrs, value, mask: the blocks
// a Triton kernel writes by hand, which every later pass knows.
//
//===----------------------------------------------------------------------===//

#include "TmaOperands.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Dialect/Kite/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace kite {
#define GEN_PASS_DEF_LOWERDESCRIPTORS
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"
} // namespace kite

using namespace mlir;
namespace kd = mlir::kite;

namespace {

/// Pointers and mask of the block at `offsets` of the descriptor `make`.
std::pair<Value, Value> blockAddresses(OpBuilder &b, Location loc,
                                       kd::MakeTensorDescOp make,
                                       ValueRange offsets) {
  RankedTensorType block = make.getType().getBlockType();
  ArrayRef<int64_t> full = block.getShape();
  int64_t rank = block.getRank();
  auto ptrType = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, make.getBase().getType());
  };
  auto broadcast = [&](Value v, ArrayRef<int64_t> shape) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape() == shape)
      return v;
    return kd::BroadcastOp::create(
        b, loc, RankedTensorType::get(shape, t.getElementType()), v);
  };
  auto splat = [&](Value scalar, ArrayRef<int64_t> shape) -> Value {
    return kd::SplatOp::create(
        b, loc, RankedTensorType::get(shape, scalar.getType()), scalar);
  };
  Value ptrs, mask;
  for (int64_t k = 0; k < rank; ++k) {
    int64_t n = full[k];
    Value offs = arith::AddIOp::create(
        b, loc,
        kd::ArangeOp::create(b, loc,
                             RankedTensorType::get({n}, b.getI32Type()),
                             b.getI32IntegerAttr(0), b.getI32IntegerAttr(n)),
        splat(offsets[k], {n}));
    // Along dimension k, 1 elsewhere.
    SmallVector<int64_t> shape = {n};
    for (int64_t axis = 0; axis < rank; ++axis) {
      if (axis == k)
        continue;
      shape.insert(shape.begin() + axis, 1);
      offs = kd::ExpandDimsOp::create(
          b, loc, RankedTensorType::get(shape, b.getI32Type()), offs,
          b.getI32IntegerAttr(axis));
    }
    auto widen = [&](Value v, Type to) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getElementType() == to)
        return v;
      return arith::ExtSIOp::create(
          b, loc, RankedTensorType::get(t.getShape(), to), v);
    };
    // 0 <= offs < shape_k, compared in the wider of the two types.
    Value bound = make.getShape()[k];
    Type cmpType = bound.getType().getIntOrFloatBitWidth() > 32
                       ? bound.getType()
                       : b.getI32Type();
    Value wide = widen(offs, cmpType);
    if (bound.getType() != cmpType)
      bound = arith::ExtSIOp::create(b, loc, cmpType, bound);
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(
                    RankedTensorType::get(shape, cmpType),
                    b.getIntegerAttr(cmpType, 0)));
    Value inside = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, wide,
                              splat(bound, shape)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, wide, zero));
    // offs_k * stride_k in the stride's type (at least i32).
    Value stride = make.getStrides()[k];
    Type mulType = stride.getType().getIntOrFloatBitWidth() > 32
                       ? stride.getType()
                       : b.getI32Type();
    if (stride.getType() != mulType)
      stride = arith::ExtSIOp::create(b, loc, mulType, stride);
    Value step = arith::MulIOp::create(b, loc, widen(offs, mulType),
                                       splat(stride, shape));
    if (!ptrs) {
      ptrs = kd::AddPtrOp::create(b, loc, ptrType(shape),
                                  splat(make.getBase(), shape), step);
      mask = inside;
      continue;
    }
    // Broadcast both sides to their common shape (the block's, from the
    // second dimension on).
    SmallVector<int64_t> common(full.begin(), full.end());
    ptrs = kd::AddPtrOp::create(b, loc, ptrType(common),
                                broadcast(ptrs, common),
                                broadcast(step, common));
    mask = arith::AndIOp::create(b, loc, broadcast(mask, common),
                                 broadcast(inside, common));
  }
  return {broadcast(ptrs, full), broadcast(mask, full)};
}

struct LowerDescriptors
    : ::kite::impl::LowerDescriptorsBase<LowerDescriptors> {
  using Base::Base;

  void runOnOperation() override {
    // A descriptor made in a loop from values the loop does not change (a
    // block pointer's, which the frontend carries through the loop with
    // the rest of it) is made before the loop instead, where TMA can take
    // it (the loop-invariant code motion of the GPU stage comes too late
    // for that).
    getOperation().walk([&](kd::MakeTensorDescOp make) {
      for (auto loop = make->getParentOfType<scf::ForOp>();
           loop && llvm::all_of(
                       make->getOperands(),
                       [&](Value v) { return loop.isDefinedOutsideOfLoop(v); });
           loop = make->getParentOfType<scf::ForOp>())
        loop.moveOutOfLoop(make);
    });
    SmallVector<Operation *> accesses;
    getOperation().walk([&](Operation *op) {
      if (isa<kd::DescriptorLoadOp, kd::DescriptorStoreOp>(op))
        accesses.push_back(op);
    });
    llvm::SmallPtrSet<Operation *, 4> keep;
    if (keepTma)
      getOperation().walk([&](kd::DotOp dot) {
        auto func = dot->getParentOfType<func::FuncOp>();
        if (auto loads = ::kite::detail::tmaOperands(
                dot, chip, ::kite::detail::kernelWarps(func, numWarps),
                ::kite::detail::loopStages(dot->getParentOp(),
                                           ::kite::detail::kernelStages(func))))
          for (kd::DescriptorLoadOp load : *loads)
            keep.insert(load);
      });
    // The Bs of dots that read A from registers (attention's products).
    if (keepTma)
      getOperation().walk([&](scf::ForOp loop) {
        auto func = loop->getParentOfType<func::FuncOp>();
        for (kd::DescriptorLoadOp load : ::kite::detail::tmaRegisterDotLoads(
                 loop, chip, ::kite::detail::kernelWarps(func, numWarps),
                 ::kite::detail::loopStages(
                     loop, ::kite::detail::kernelStages(func))))
          keep.insert(load);
      });
    // One tensor map per descriptor the kept loads read (a descriptor read
    // by several loops, or as A and B, may take two; counted once here),
    // at most 4 a kernel: each kernel of the module counts its own.
    llvm::DenseMap<Operation *, llvm::SmallPtrSet<Value, 4>> keptDescs;
    for (Operation *op : keep)
      keptDescs[op->getParentOfType<func::FuncOp>()].insert(op->getOperand(0));
    llvm::DenseMap<Operation *, int64_t> mapsLeft;
    getOperation().walk([&](func::FuncOp func) {
      mapsLeft[func] = 4 - int64_t(keptDescs.lookup(func).size());
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : accesses) {
      if (keep.contains(op))
        continue;
      Value desc = op->getOperand(0);
      auto make = desc.getDefiningOp<kd::MakeTensorDescOp>();
      if (!make) {
        op->emitOpError() << "reads a descriptor that is not made in the "
                             "kernel (kite.make_tensor_descriptor); "
                             "descriptors passed as parameters are not "
                             "supported yet";
        return signalPassFailure();
      }
      rewriter.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (auto load = dyn_cast<kd::DescriptorLoadOp>(op)) {
        auto [ptrs, mask] =
            blockAddresses(rewriter, loc, make, load.getOffsets());
        RankedTensorType type = load.getType();
        Type element = type.getElementType();
        Attribute zero = isa<FloatType>(element)
                             ? Attribute(rewriter.getFloatAttr(element, 0))
                             : Attribute(rewriter.getIntegerAttr(element, 0));
        Value other = arith::ConstantOp::create(
            rewriter, loc, DenseElementsAttr::get(type, zero));
        rewriter.replaceOp(load,
                           kd::LoadOp::create(rewriter, loc, ptrs, mask, other));
        continue;
      }
      auto store = cast<kd::DescriptorStoreOp>(op);
      // A TMA store while the runtime's tensor maps last (4 a kernel, the
      // dots' operands first).
      int64_t &left = mapsLeft[store->getParentOfType<func::FuncOp>()];
      if (keepTma && left > 0 && ::kite::detail::tmaStore(store, chip)) {
        --left;
        RankedTensorType block = store.getValue().getType();
        int64_t rowBytes =
            block.getDimSize(1) * block.getElementTypeBitWidth() / 8;
        int64_t swizzle = rowBytes % 128 == 0 ? 128 : rowBytes % 64 == 0 ? 64 : 32;
        Value map = ::kite::detail::appendTensorMap(
            store->getParentOfType<func::FuncOp>(), make, swizzle);
        kd::TmaStoreOp::create(rewriter, loc, map, store.getOffsets(),
                               store.getValue());
        rewriter.eraseOp(store);
        continue;
      }
      auto [ptrs, mask] =
          blockAddresses(rewriter, loc, make, store.getOffsets());
      kd::StoreOp::create(rewriter, loc, ptrs, store.getValue(), mask);
      rewriter.eraseOp(store);
    }
    // Descriptors no access reads any more.
    getOperation().walk([&](kd::MakeTensorDescOp make) {
      if (make->use_empty())
        make->erase();
    });
  }
};

} // namespace
