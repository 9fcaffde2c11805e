//===- CarryPointerOffsets.cpp - Loop-invariant pointer blocks -------------===//
//
// kite-carry-pointer-offsets: see Passes.td.
//
//   %r = scf.for ... iter_args(%p = %p0) {
//     ... uses of %p ...
//     %q = kite.addptr %p, (kite.splat %s)
//     scf.yield %q
//   }
// becomes
//   %r' = scf.for ... iter_args(%off = 0 : i64) {
//     %p = kite.addptr %p0, (kite.splat %off)
//     ... uses of %p ...
//     scf.yield %off + sext(%s)
//   }
//   %r = kite.addptr %p0, (kite.splat %r')
//
// A carried block of pointers costs two registers per element for the whole
// loop, and LLVM does not shrink a vector carried around a loop to the lanes
// that are used. With one carried scalar, the block is loop-invariant: only
// the addresses an access really uses (one per vector) are formed each
// iteration. Sums are i64, so nothing wraps that did not before.
//
//===----------------------------------------------------------------------===//

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Dialect/Kite/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace kite {
#define GEN_PASS_DEF_CARRYPOINTEROFFSETS
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"
} // namespace kite

using namespace mlir;
namespace kd = mlir::kite;

namespace {

/// The scalar offset `s` if iteration argument `i` of `loop` is advanced by
/// `addptr(arg, splat(s))` or by a splat constant (a folded splat, e.g.
/// `BLOCK_K * stride` once the stride is specialized to 1); a constant is
/// materialized before the loop.
Value uniformAdvance(IRRewriter &rewriter, scf::ForOp loop, unsigned i) {
  BlockArgument arg = loop.getRegionIterArgs()[i];
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  if (!type || !isa<kd::PointerType>(type.getElementType()))
    return {};
  auto add = loop.getYieldedValues()[i].getDefiningOp<kd::AddPtrOp>();
  if (!add || add.getPtr() != arg)
    return {};
  if (auto splat = add.getOffset().getDefiningOp<kd::SplatOp>())
    return splat.getSrc();
  DenseIntElementsAttr dense;
  if (!matchPattern(add.getOffset(), m_Constant(&dense)) || !dense.isSplat())
    return {};
  rewriter.setInsertionPoint(loop);
  return arith::ConstantOp::create(
      rewriter, loop.getLoc(),
      rewriter.getIntegerAttr(dense.getElementType(),
                              dense.getSplatValue<APInt>()));
}

/// Rewrites iteration argument `i` of `loop` (see the file comment); returns
/// the new loop.
scf::ForOp carryOffset(IRRewriter &rewriter, scf::ForOp loop, unsigned i,
                       Value step) {
  Location loc = loop.getLoc();
  Type i64 = rewriter.getI64Type();
  Value init = loop.getInitArgs()[i];
  rewriter.setInsertionPoint(loop);
  Value zero = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
  auto grown = loop.replaceWithAdditionalYields(
      rewriter, zero, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location l, ArrayRef<BlockArgument> args) {
        Value s = step.getType() == i64
                      ? step
                      : arith::ExtSIOp::create(b, l, i64, step).getResult();
        return SmallVector<Value>{arith::AddIOp::create(b, l, args[0], s)};
      });
  if (failed(grown))
    return loop;
  auto forOp = cast<scf::ForOp>(grown->getOperation());
  BlockArgument arg = forOp.getRegionIterArgs()[i];
  BlockArgument off = forOp.getRegionIterArgs().back();
  auto type = cast<RankedTensorType>(arg.getType());
  auto offType = RankedTensorType::get(type.getShape(), i64);
  // The block at this iteration, from the invariant start and the offset.
  rewriter.setInsertionPointToStart(forOp.getBody());
  Value splat = kd::SplatOp::create(rewriter, loc, offType, off);
  Value current = kd::AddPtrOp::create(rewriter, loc, type, init, splat);
  rewriter.replaceAllUsesExcept(arg, current, current.getDefiningOp());
  // The argument itself is now passed through unchanged (and folded away).
  auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
  rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(i, arg); });
  // After the loop: the start plus the final offset.
  rewriter.setInsertionPointAfter(forOp);
  Value endSplat =
      kd::SplatOp::create(rewriter, loc, offType, forOp.getResults().back());
  Value end = kd::AddPtrOp::create(rewriter, loc, type, init, endSplat);
  rewriter.replaceAllUsesWith(forOp.getResult(i), end);
  return forOp;
}

struct CarryPointerOffsets
    : ::kite::impl::CarryPointerOffsetsBase<CarryPointerOffsets> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
        Value step = uniformAdvance(rewriter, loop, i);
        if (!step || !isa<IntegerType>(step.getType()))
          continue;
        loop = carryOffset(rewriter, loop, i, step);
      }
    }
  }
};

} // namespace
