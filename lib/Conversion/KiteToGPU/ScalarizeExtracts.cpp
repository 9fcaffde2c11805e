//===- ScalarizeExtracts.cpp - Compute registers where they are used -------===//
//
// After the lowering, a block is a per-thread vector and an access of one
// register group is a vector.extract of it. When the vector comes from
// elementwise ops (the epilogue's addresses and masks), LLVM materializes
// every register of it where the vector op stands, before the first use:
// with a large accumulator live (wgmma: 128 registers a thread) the
// addresses and masks of all its stores then do not fit beside it and
// ptxas spills. Here each extract of an elementwise result becomes the
// scalar op on the extracted operands, at the extract: a register is
// computed just before the access that needs it, and the vector op dies
// when nothing else reads it (CSE merges repeated scalars afterwards).
// Masks (i1 registers) are taken this way in every kernel: a vector of i1
// that stays whole reaches the NVPTX backend, which packs it into bits
// (shifts and ors for every lane, wanted or not: layer norm's 64-register
// rows spent more instructions on that than on their arithmetic).
//
//===----------------------------------------------------------------------===//

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {

/// extract(elementwise(a, b, ...), e) => elementwise(extract(a, e), ...);
/// extract(broadcast(s), e) => s.
struct ScalarizeExtract : OpRewritePattern<vector::ExtractOp> {
  ScalarizeExtract(MLIRContext *ctx, bool onlyMasks)
      : OpRewritePattern(ctx), onlyMasks(onlyMasks) {}
  bool onlyMasks;
  LogicalResult matchAndRewrite(vector::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    if (op.hasDynamicPosition() || op.getSourceVectorType().getRank() != 1 ||
        isa<VectorType>(op.getType()))
      return failure();
    if (onlyMasks && !op.getType().isInteger(1))
      return failure();
    // Only within a block: moving a loop-invariant computation into a loop
    // body would repeat it every iteration (LLVM does not hoist a
    // remainder by a variable back out: it may trap).
    // A mask may also move into the branches of an scf.if (a masked
    // access's partial-group path): a compare there is cheaper than a whole
    // vector of i1 kept alive across it.
    Operation *def = op.getSource().getDefiningOp();
    if (!def)
      return failure();
    if (def->getBlock() != op->getBlock()) {
      Operation *parent = op->getParentOp();
      while (parent && parent->getBlock() != def->getBlock() &&
             isa<scf::IfOp>(parent))
        parent = parent->getParentOp();
      if (!op.getType().isInteger(1) || !parent || !isa<scf::IfOp>(parent) ||
          parent->getBlock() != def->getBlock())
        return failure();
    }
    if (auto bcast = dyn_cast<vector::BroadcastOp>(def)) {
      if (isa<VectorType>(bcast.getSourceType()))
        return failure();
      rewriter.replaceOp(op, bcast.getSource());
      return success();
    }
    if (def->getNumResults() != 1 || def->getNumRegions() ||
        !def->hasTrait<OpTrait::Elementwise>() ||
        !isa<arith::ArithDialect>(def->getDialect()))
      return failure();
    int64_t pos = op.getStaticPosition()[0];
    SmallVector<Value> operands;
    for (Value v : def->getOperands()) {
      if (isa<VectorType>(v.getType()))
        operands.push_back(vector::ExtractOp::create(rewriter, op.getLoc(), v,
                                                     ArrayRef<int64_t>{pos}));
      else
        operands.push_back(v);
    }
    OperationState state(op.getLoc(), def->getName(), operands,
                         TypeRange{op.getType()}, def->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

} // namespace

void mlir::kite::scalarizeRegisterExtracts(Operation *root, bool onlyMasks) {
  RewritePatternSet patterns(root->getContext());
  patterns.add<ScalarizeExtract>(root->getContext(), onlyMasks);
  // Masks only: nothing else moves (no folding, constant hoisting or region
  // simplification), so the rest of the kernel stays as lowered.
  GreedyRewriteConfig config;
  if (onlyMasks)
    config.enableFolding(false).enableConstantCSE(false).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Disabled);
  (void)applyPatternsGreedily(root, std::move(patterns), config);
}
