//===- RematerializeBroadcasts.cpp - Compute broadcasts where they are used ===//
//
// kite-rematerialize-broadcasts: see Passes.td.
//
// A broadcast that repeats elements is a data exchange between threads
// (shared memory and two barriers). When its operand is computed by cheap
// ops from aranges, splats and constants, each thread can instead compute
// the elements it holds: the broadcast (and the expand_dims before it) is
// moved through the elementwise ops towards the leaves, where
//   broadcast(splat x)              folds to splat x,
//   broadcast(dense splat)          folds to a constant,
//   broadcast(expand_dims*(arange)) is lowered from each thread's
//                                   coordinates (no exchange).
// The ops are duplicated at the larger shape when their results have other
// users; integer arithmetic on a few registers is far cheaper than a
// barrier, in particular inside a loop (the K-tail masks of a matmul).
//
//===----------------------------------------------------------------------===//

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Dialect/Kite/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kite {
#define GEN_PASS_DEF_REMATERIALIZEBROADCASTS
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"
} // namespace kite

using namespace mlir;
namespace kd = mlir::kite;

namespace {

/// An elementwise op whose every operand is a block of its result's shape
/// (arith/math elementwise ops, kite.addptr).
bool isBlockElementwise(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() ||
      !isMemoryEffectFree(op))
    return false;
  if (!isa<kd::AddPtrOp>(op) && !op->hasTrait<OpTrait::Elementwise>())
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return false;
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || t.getShape() != type.getShape())
      return false;
  }
  return true;
}

/// Whether every element of `v` can be computed by any thread from its
/// coordinates alone: aranges, splats, splat constants, and elementwise ops,
/// expand_dims and broadcasts of those. `budget` bounds the ops visited.
bool isRecomputable(Value v, int &budget) {
  if (--budget < 0)
    return false;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false; // a loop's carried block, a kernel argument
  if (isa<kd::ArangeOp, kd::SplatOp>(def))
    return true;
  if (matchPattern(v, m_Constant())) {
    DenseElementsAttr dense;
    return matchPattern(v, m_Constant(&dense)) && dense.isSplat();
  }
  if (isa<kd::ExpandDimsOp, kd::BroadcastOp>(def))
    return isRecomputable(def->getOperand(0), budget);
  if (!isBlockElementwise(def))
    return false;
  for (Value operand : def->getOperands())
    if (!isRecomputable(operand, budget))
      return false;
  return true;
}

bool isRecomputable(Value v) {
  int budget = 256;
  return isRecomputable(v, budget);
}

/// The shape of `like` with `element` as element type.
RankedTensorType withElement(RankedTensorType like, Type element) {
  return RankedTensorType::get(like.getShape(), element);
}

/// Clones elementwise `op` at `shape`, its operands rebuilt by `reshape`.
Value cloneAtShape(PatternRewriter &rewriter, Operation *op,
                   RankedTensorType shape,
                   function_ref<Value(Value, RankedTensorType)> reshape) {
  SmallVector<Value> operands;
  for (Value v : op->getOperands()) {
    auto t = cast<RankedTensorType>(v.getType());
    operands.push_back(reshape(v, withElement(shape, t.getElementType())));
  }
  Type resultElem =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  state.addTypes(withElement(shape, resultElem));
  state.addAttributes(op->getAttrs());
  return rewriter.create(state)->getResult(0);
}

/// Pattern: broadcast(f(x, y)) => f(broadcast(x), broadcast(y)), for a
/// recomputable elementwise f; broadcast(broadcast(x)) => broadcast(x).
struct SinkBroadcast : OpRewritePattern<kd::BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(kd::BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    Operation *def = op.getSrc().getDefiningOp();
    if (!def)
      return failure();
    if (auto inner = dyn_cast<kd::BroadcastOp>(def)) {
      rewriter.replaceOpWithNewOp<kd::BroadcastOp>(op, op.getType(),
                                                   inner.getSrc());
      return success();
    }
    if (!isBlockElementwise(def) || !isRecomputable(op.getSrc()))
      return failure();
    Location loc = op.getLoc();
    rewriter.replaceOp(
        op, cloneAtShape(rewriter, def, op.getType(),
                         [&](Value v, RankedTensorType t) -> Value {
                           return kd::BroadcastOp::create(rewriter, loc, t, v);
                         }));
    return success();
  }
};

/// Pattern: expand_dims(f(x, y)) => f(expand_dims(x), expand_dims(y)) when
/// the result is only broadcast (so the broadcast can then sink further).
struct SinkExpandDims : OpRewritePattern<kd::ExpandDimsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(kd::ExpandDimsOp op,
                                PatternRewriter &rewriter) const override {
    Operation *def = op.getSrc().getDefiningOp();
    if (!def || !isBlockElementwise(def) || op->use_empty())
      return failure();
    for (Operation *user : op->getUsers())
      if (!isa<kd::BroadcastOp, kd::ExpandDimsOp>(user))
        return failure();
    if (!isRecomputable(op.getSrc()))
      return failure();
    Location loc = op.getLoc();
    uint32_t axis = op.getAxis();
    rewriter.replaceOp(
        op, cloneAtShape(rewriter, def, op.getType(),
                         [&](Value v, RankedTensorType t) -> Value {
                           return kd::ExpandDimsOp::create(rewriter, loc, t, v,
                                                           axis);
                         }));
    return success();
  }
};

struct RematerializeBroadcasts
    : ::kite::impl::RematerializeBroadcastsBase<RematerializeBroadcasts> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<SinkBroadcast, SinkExpandDims>(ctx);
    kd::BroadcastOp::getCanonicalizationPatterns(patterns, ctx);
    kd::ExpandDimsOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
