//===- LoopSlices.h - Cloning a loop body's address computations -*- C++ -*-===//
//
// Helpers of the loop scheduling passes (kite-pipeline-loads,
// kite-stage-dot-operands): the side-effect-free slice of a loop body that
// computes some values, and a mask guarded by a condition.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_PIPELINE_LOOPSLICES_H
#define KITE_LIB_PIPELINE_LOOPSLICES_H

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace kite::detail {
using namespace mlir;
namespace kd = mlir::kite;

/// Adds to `slice` (in body order) the ops of `body` that `v` depends on.
/// Fails on an op with side effects or regions, or on a dependence on an
/// op in `forbidden`.
inline bool collectSlice(Value v, Block *body, llvm::SetVector<Operation *> &slice,
                  const llvm::SmallPtrSetImpl<Operation *> &forbidden) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != body)
    return true; // block argument, or defined outside the loop
  if (slice.contains(def))
    return true;
  if (forbidden.contains(def) || def->getNumRegions() ||
      !isMemoryEffectFree(def))
    return false;
  for (Value operand : def->getOperands())
    if (!collectSlice(operand, body, slice, forbidden))
      return false;
  slice.insert(def);
  return true;
}

/// `mask AND cond` for a load (the mask may be absent).
inline Value guardMask(OpBuilder &b, Location loc, Value mask, Value cond,
                Type ptrType) {
  Type maskType = b.getI1Type();
  if (auto t = dyn_cast<RankedTensorType>(ptrType))
    maskType = RankedTensorType::get(t.getShape(), b.getI1Type());
  Value splat = isa<RankedTensorType>(maskType)
                    ? kd::SplatOp::create(b, loc, maskType, cond).getResult()
                    : cond;
  if (!mask)
    return splat;
  return arith::AndIOp::create(b, loc, mask, splat);
}

} // namespace kite::detail

#endif // KITE_LIB_PIPELINE_LOOPSLICES_H
