//===- PipelineLoads.cpp - Prefetch a dot's operands one iteration ahead ---===//
//
// kite-pipeline-loads: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Dialect/Kite/Transforms/Passes.h"
#include "LoopSlices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SetVector.h"

namespace kite {
#define GEN_PASS_DEF_PIPELINELOADS
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"
} // namespace kite

using namespace mlir;
namespace kd = mlir::kite;

namespace {

struct PipelineLoadsPass
    : public ::kite::impl::PipelineLoadsBase<PipelineLoadsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      pipeline(loop);
  }

  void pipeline(scf::ForOp loop) {
    Block *body = loop.getBody();
    if (::kite::detail::containsAtomics(loop))
      return;
    // Loads of blocks used only by dots of this body.
    SmallVector<kd::LoadOp> loads;
    for (Operation &op : *body)
      if (auto load = dyn_cast<kd::LoadOp>(op))
        if (isa<RankedTensorType>(load.getType()) && !load->use_empty() &&
            llvm::all_of(load->getUsers(), [&](Operation *u) {
              return isa<kd::DotOp>(u) && u->getBlock() == body;
            }))
          loads.push_back(load);
    if (loads.empty())
      return;
    auto slices = ::kite::detail::LoadSlices::get(loop, loads);
    if (!slices)
      return;
    Operation *firstDot = nullptr;
    for (kd::LoadOp load : loads)
      for (Operation *u : load->getUsers())
        if (!firstDot || u->isBeforeInBlock(firstDot))
          firstDot = u;

    IRRewriter rewriter(loop.getContext());
    Location loc = loop.getLoc();
    // Clones the slice and the loads under `map`, guarding the loads with
    // `cond`; returns the loaded values.
    auto cloneLoads = [&](OpBuilder &b, IRMapping &map, Value cond) {
      return ::kite::detail::cloneGuardedLoads(b, loc, slices->slice, loads,
                                               map, cond);
    };

    // Prologue: the first iteration's loads, before the loop.
    rewriter.setInsertionPoint(loop);
    auto [first, lb] = slices->ahead(rewriter, loop, loop.getLowerBound(),
                                     slices->initialArgs(loop), 0);
    Value runs = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                       lb, loop.getUpperBound());
    SmallVector<Value> prologue = cloneLoads(rewriter, first, runs);

    // Next iteration's loads, in the body before the first dot.
    SmallVector<Value> nextLoads;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(firstDot);
      auto [next, nextIv] = slices->ahead(rewriter, loop,
                                          loop.getInductionVar(),
                                          slices->currentArgs(loop), 1);
      Value more = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::slt, nextIv,
                                         loop.getUpperBound());
      nextLoads = cloneLoads(rewriter, next, more);
    }
    auto newLoop = loop.replaceWithAdditionalYields(
        rewriter, prologue, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>(nextLoads.begin(), nextLoads.end());
        });
    if (failed(newLoop))
      return;
    auto forOp = cast<scf::ForOp>(newLoop->getOperation());
    auto carried = forOp.getRegionIterArgs().take_back(loads.size());
    for (auto [load, arg] : llvm::zip(loads, carried)) {
      load.getResult().replaceAllUsesWith(arg);
      load.erase();
    }
  }
};
} // namespace
