//===- RebaseNarrowPointers.cpp - Narrow pointer blocks as offsets ---------===//
//
// kite-rebase-narrow-pointers: see Passes.td.
//
//   %start = kite.addptr (kite.splat %base), %offs : tensor<..xptr>, tensor<..xi32>
//   scf.for ... {
//     %p = kite.addptr %start, (kite.splat %off)
// becomes
//   scf.for ... {
//     %b = kite.addptr %base, %off
//     %p = kite.addptr (kite.splat %b), %offs
//
// The odd-size tutorial matmul (f16, 128x128x32, 4 warps, sm_90a): 568 bytes
// of stack before, 136 after; 128x128x64 with 8 warps: 160 bytes, then none.
//
//===----------------------------------------------------------------------===//

#include "kite/Analysis/AxisInfo.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Dialect/Kite/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

#include <algorithm>

namespace kite {
#define GEN_PASS_DEF_REBASENARROWPOINTERS
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"
} // namespace kite

using namespace mlir;
namespace kd = mlir::kite;

namespace {

struct RebaseNarrowPointers
    : ::kite::impl::RebaseNarrowPointersBase<RebaseNarrowPointers> {
  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp func) {
      if (!kd::isKernel(func))
        return;
      kd::AxisInfoAnalysis axisInfo(func);
      SmallVector<kd::AddPtrOp> candidates;
      func.walk([&](kd::AddPtrOp op) {
        auto loop = op->getParentOfType<scf::ForOp>();
        auto type = dyn_cast<RankedTensorType>(op.getType());
        if (!loop || !type)
          return;
        auto start = op.getPtr().getDefiningOp<kd::AddPtrOp>();
        auto advance = op.getOffset().getDefiningOp<kd::SplatOp>();
        if (!start || !advance || loop->isAncestor(start) ||
            !start.getPtr().getDefiningOp<kd::SplatOp>() ||
            !cast<RankedTensorType>(start.getOffset().getType())
                 .getElementType()
                 .isInteger(32))
          return;
        Type pointee =
            cast<kd::PointerType>(type.getElementType()).getPointeeType();
        int64_t bytes =
            std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
        if (axisInfo.vectorElements(op.getResult(), bytes) * bytes >= 16)
          return;
        candidates.push_back(op);
      });
      IRRewriter rewriter(func.getContext());
      for (kd::AddPtrOp op : candidates) {
        auto start = op.getPtr().getDefiningOp<kd::AddPtrOp>();
        Value base = start.getPtr().getDefiningOp<kd::SplatOp>().getSrc();
        Value off = op.getOffset().getDefiningOp<kd::SplatOp>().getSrc();
        rewriter.setInsertionPoint(op);
        Location loc = op.getLoc();
        Value advanced =
            kd::AddPtrOp::create(rewriter, loc, base.getType(), base, off);
        Value splat = kd::SplatOp::create(rewriter, loc, op.getType(), advanced);
        rewriter.replaceOpWithNewOp<kd::AddPtrOp>(op, op.getType(), splat,
                                                  start.getOffset());
      }
    });
  }
};

} // namespace
