//===- UnrollLoops.cpp - Unroll loops by the factor the source asks ------===//
//
// kite-unroll-loops: see Passes.td. Each scf.for carrying
// kite.loop_unroll_factor (Triton's range(..., loop_unroll_factor=N)) is
// unrolled N times (MLIR's loopUnrollByFactor: a main loop taking N steps
// an iteration and, where the trip count is not known to be a multiple, an
// epilogue loop for the rest).
//
//===----------------------------------------------------------------------===//

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Dialect/Kite/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Pass/Pass.h"

namespace kite {
#define GEN_PASS_DEF_UNROLLLOOPS
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"
} // namespace kite

using namespace mlir;
namespace kd = mlir::kite;

namespace {

struct UnrollLoopsPass : public ::kite::impl::UnrollLoopsBase<UnrollLoopsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, int64_t>> loops;
    // Innermost first (a post-order walk): an outer loop's body is copied
    // with its inner loops already unrolled.
    getOperation()->walk([&](scf::ForOp loop) {
      auto factor = loop->getAttrOfType<IntegerAttr>(
          kd::KiteDialect::getLoopUnrollFactorAttrName());
      if (!factor)
        return;
      loop->removeAttr(kd::KiteDialect::getLoopUnrollFactorAttrName());
      if (factor.getInt() > 1)
        loops.push_back({loop, factor.getInt()});
    });
    for (auto [loop, factor] : loops)
      if (failed(loopUnrollByFactor(loop, uint64_t(factor)))) {
        loop.emitError() << "cannot unroll this loop by " << factor;
        return signalPassFailure();
      }
  }
};

} // namespace
