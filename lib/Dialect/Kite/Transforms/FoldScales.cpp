//===- FoldScales.cpp - A block's scalar scales where they cost least -----===//
//
// kite-fold-scales: see Passes.td.
//
// Softmax as users write it scales every element before the row's
// maximum and exponentiates with `exp`:
//   qk = qk * sm_scale
//   m = maximum(m_i, max(qk, 1))
//   p = exp(qk - m[:, None])
// which costs, per element, a multiply for the maximum, a subtract, a
// multiply by log2(e) and the ex2 (tutorial 06 does it in two: the
// maximum of the unscaled block, then one fma). Two rewrites, each exact
// or within the approximation `exp` already is:
//
//   max(x * splat(s)) -> (s >= 0 ? max(x) : min(x)) * s
//   min(x * splat(s)) -> (s >= 0 ? min(x) : max(x)) * s
//       Rounding is monotone, so the maximum of the rounded products is
//       the rounded product of the maximum (or of the minimum, for s < 0):
//       bit for bit the same (NaN propagates either way), but for the sign
//       of a zero when s is 0. The choice is a uniform branch on a scalar,
//       each side one reduction.
//
//   exp(P - broadcast(r)) -> exp2(P * log2(e) + broadcast(r * -log2(e)))
//   exp(x * splat(s) - broadcast(r))
//                         -> exp2(x * splat(s * log2(e)) + broadcast(r * -log2(e)))
//       `exp` is lowered to ex2.approx(y * log2(e)) anyway; this folds the
//       multiply into the subtraction (one fma an element, the row's term
//       once a row). The argument's rounding differs from (P - r) * log2(e)
//       by an ulp of the larger term: not with fp fusion off
//       (`fold-exp=false`, which the pipeline passes from `fpFusion`).
//
//===----------------------------------------------------------------------===//

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Dialect/Kite/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kite {
#define GEN_PASS_DEF_FOLDSCALES
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"
} // namespace kite

using namespace mlir;
namespace kd = mlir::kite;

namespace {

constexpr double kLog2e = 1.4426950408889634;

/// `v` as `x * splat(s)` (either side): x and the scalar s.
static bool matchScaled(Value v, Value &x, Value &s) {
  auto mul = v.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  for (auto [a, b] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())}) {
    if (auto splat = b.getDefiningOp<kd::SplatOp>()) {
      x = a;
      s = splat.getSrc();
      return true;
    }
  }
  return false;
}

/// `s` (a float scalar) as a value of `type` (the scalar or a splat).
static Value splatTo(PatternRewriter &rw, Location loc, Value s, Type type) {
  if (type == s.getType())
    return s;
  return kd::SplatOp::create(rw, loc, type, s);
}

static Value scalarConst(PatternRewriter &rw, Location loc, Type type,
                         double v) {
  return arith::ConstantOp::create(rw, loc, type, rw.getFloatAttr(type, v));
}

/// max/min of a block scaled by a scalar: the reduction of the unscaled
/// block, scaled once a result.
struct ScaledExtremum : OpRewritePattern<kd::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(kd::ReduceOp op,
                                PatternRewriter &rw) const override {
    kd::ReduceKind kind = op.getKind();
    if ((kind != kd::ReduceKind::Max && kind != kd::ReduceKind::Min) ||
        op.getSrcs().size() != 1 || op->getNumResults() != 1)
      return failure();
    Value x, s;
    if (!isa<FloatType>(op.getSrc().getType().getElementType()) ||
        !matchScaled(op.getSrc(), x, s) || !isa<FloatType>(s.getType()))
      return failure();
    Location loc = op.getLoc();
    Type resultType = op.getType();
    auto other = kind == kd::ReduceKind::Max ? kd::ReduceKind::Min
                                             : kd::ReduceKind::Max;
    auto reduce = [&](OpBuilder &b, kd::ReduceKind k) {
      return kd::ReduceOp::create(b, loc, resultType, x,
                                  kd::ReduceKindAttr::get(rw.getContext(), k),
                                  op.getAxisAttr())
          .getResult();
    };
    Value chosen;
    FloatAttr constant;
    if (matchPattern(s, m_Constant(&constant))) {
      chosen = reduce(rw, constant.getValue().isNegative() ? other : kind);
    } else {
      Value zero = scalarConst(rw, loc, s.getType(), 0.0);
      Value nonNegative =
          arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OGE, s, zero);
      // (The branches' yields give the result type.)
      auto branch = scf::IfOp::create(
          rw, loc, nonNegative,
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, reduce(b, kind));
          },
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, reduce(b, other));
          });
      chosen = branch.getResult(0);
    }
    rw.replaceOpWithNewOp<arith::MulFOp>(
        op, chosen, splatTo(rw, loc, s, resultType));
    return success();
  }
};

/// exp(P - r), r broadcast or splat: exp2(P * log2e + r * -log2e), the
/// multiply folded into P's own scale where P is a scaled block.
struct ExpOfDifference : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rw) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.getElementType().isF32())
      return failure();
    auto sub = op.getOperand().getDefiningOp<arith::SubFOp>();
    if (!sub)
      return failure();
    Value rhs = sub.getRhs();
    Operation *rowDef = rhs.getDefiningOp();
    if (!rowDef || !isa<kd::BroadcastOp, kd::SplatOp>(rowDef))
      return failure();
    Value row = rowDef->getOperand(0);
    Location loc = op.getLoc();
    Type f32 = type.getElementType();
    // The row's term, once a row.
    Value negLog2e = scalarConst(rw, loc, f32, -kLog2e);
    Value rowTerm = arith::MulFOp::create(
        rw, loc, row, splatTo(rw, loc, negLog2e, row.getType()));
    Value rowBlock =
        isa<kd::BroadcastOp>(rowDef)
            ? kd::BroadcastOp::create(rw, loc, type, rowTerm).getResult()
            : kd::SplatOp::create(rw, loc, type, rowTerm).getResult();
    // The element's term: P * log2e, or x * (s * log2e).
    Value x, s, elem;
    Value log2e = scalarConst(rw, loc, f32, kLog2e);
    if (matchScaled(sub.getLhs(), x, s) && s.getType() == f32) {
      Value scale = arith::MulFOp::create(rw, loc, s, log2e);
      elem = arith::MulFOp::create(rw, loc, x, splatTo(rw, loc, scale, type));
    } else {
      elem = arith::MulFOp::create(rw, loc, sub.getLhs(),
                                   splatTo(rw, loc, log2e, type));
    }
    Value arg = arith::AddFOp::create(rw, loc, elem, rowBlock);
    rw.replaceOpWithNewOp<math::Exp2Op>(op, arg);
    return success();
  }
};

struct FoldScales : ::kite::impl::FoldScalesBase<FoldScales> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ScaledExtremum>(&getContext());
    if (foldExp)
      patterns.add<ExpOfDifference>(&getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    getOperation()->walk([&](func::FuncOp func) {
      if (!func->hasAttr("kite.kernel") || func.isExternal())
        return;
      if (failed(applyPatternsGreedily(func, frozen)))
        signalPassFailure();
    });
  }
};

} // namespace
