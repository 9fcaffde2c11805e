//===- LoopSlices.h - Cloning a loop body's address computations -*- C++
//-*-===//
//
// Helpers of the loop scheduling passes (kite-pipeline-loads,
// kite-stage-dot-operands): the side-effect-free slice of a loop body that
// computes some values, a mask guarded by a condition, and the cp.async
// ring's copies of one iteration, its prologue and its slots.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_PIPELINE_LOOPSLICES_H
#define KITE_LIB_PIPELINE_LOOPSLICES_H

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <utility>

namespace kite::detail {
using namespace mlir;
namespace kd = mlir::kite;

/// Whether `loop` holds an atomic: a load or copy moved ahead of it could
/// read memory before the atomic writes it, so such loops keep their order.
inline bool containsAtomics(scf::ForOp loop) {
  return loop
      ->walk([](Operation *op) {
        return isa<kd::AtomicRMWOp, kd::AtomicCASOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

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

/// Clones the ops of `slice` and then `loads` under `map` at `b`'s
/// insertion point, each load's mask guarded by `cond` (guardMask); returns
/// the cloned loads' values (a loop's loads issued for another iteration).
inline SmallVector<Value>
cloneGuardedLoads(OpBuilder &b, Location loc,
                  const llvm::SetVector<Operation *> &slice,
                  ArrayRef<kd::LoadOp> loads, IRMapping &map, Value cond) {
  for (Operation *op : slice)
    b.clone(*op, map);
  SmallVector<Value> out;
  for (kd::LoadOp load : loads) {
    Value ptr = map.lookupOrDefault(load.getPtr());
    Value mask = load.getMask() ? map.lookupOrDefault(load.getMask()) : Value();
    Value other =
        load.getOther() ? map.lookupOrDefault(load.getOther()) : Value();
    out.push_back(kd::LoadOp::create(
        b, load.getLoc(), ptr, guardMask(b, loc, mask, cond, ptr.getType()),
        other));
  }
  return out;
}

/// What it takes to issue some loads of a loop body in another iteration:
/// the side-effect-free ops of the body computing their operands (`slice`),
/// the iteration arguments those read (`usedArgs`, indices) and the ops
/// computing those arguments' next values (`advance`).
struct LoadSlices {
  llvm::SetVector<Operation *> slice, advance;
  SmallVector<unsigned> usedArgs;

  /// Fails when an operand depends on an op of the body with side effects
  /// or regions.
  static std::optional<LoadSlices> get(scf::ForOp loop,
                                       ArrayRef<kd::LoadOp> loads) {
    SmallVector<Operation *> ops(loads.begin(), loads.end());
    return get(loop, ArrayRef<Operation *>(ops));
  }
  static std::optional<LoadSlices> get(scf::ForOp loop,
                                       ArrayRef<Operation *> loads) {
    Block *body = loop.getBody();
    llvm::SmallPtrSet<Operation *, 8> forbidden;
    for (Operation &op : *body)
      if (!isMemoryEffectFree(&op) || op.getNumRegions())
        forbidden.insert(&op);
    LoadSlices s;
    for (Operation *load : loads)
      for (Value operand : load->getOperands())
        if (!collectSlice(operand, body, s.slice, forbidden))
          return std::nullopt;
    auto reads = [&](Value arg) {
      for (Operation *op : s.slice)
        if (llvm::is_contained(op->getOperands(), arg))
          return true;
      for (Operation *load : loads)
        if (llvm::is_contained(load->getOperands(), arg))
          return true;
      return false;
    };
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
      if (reads(arg)) {
        s.usedArgs.push_back(i);
        if (!collectSlice(yield.getOperand(i), body, s.advance, forbidden))
          return std::nullopt;
      }
    return s;
  }

  /// The values of the used arguments (`args`, in `usedArgs` order) and of
  /// the induction variable (`iv`) `d` iterations later, computed at `b`'s
  /// insertion point by cloning the advance ops; returned as a mapping of
  /// the body's values, with the induction variable's new value.
  std::pair<IRMapping, Value> ahead(OpBuilder &b, scf::ForOp loop, Value iv,
                                    SmallVector<Value> args, int64_t d) const {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    Value bodyIv = loop.getInductionVar();
    for (int64_t n = 0; n < d; ++n) {
      Value next = arith::AddIOp::create(b, loop.getLoc(), iv, loop.getStep());
      IRMapping adv;
      adv.map(bodyIv, iv);
      for (auto [k, i] : llvm::enumerate(usedArgs))
        adv.map(loop.getRegionIterArgs()[i], args[k]);
      for (Operation *op : advance)
        b.clone(*op, adv);
      for (auto [k, i] : llvm::enumerate(usedArgs))
        args[k] = adv.lookupOrDefault(yield.getOperand(i));
      iv = next;
    }
    IRMapping map;
    map.map(bodyIv, iv);
    for (auto [k, i] : llvm::enumerate(usedArgs))
      map.map(loop.getRegionIterArgs()[i], args[k]);
    return {map, iv};
  }

  /// `ahead` from the loop's first iteration (initial values) or from the
  /// current one (the body's own values).
  SmallVector<Value> initialArgs(scf::ForOp loop) const {
    SmallVector<Value> v;
    for (unsigned i : usedArgs)
      v.push_back(loop.getInitArgs()[i]);
    return v;
  }
  SmallVector<Value> currentArgs(scf::ForOp loop) const {
    SmallVector<Value> v;
    for (unsigned i : usedArgs)
      v.push_back(loop.getRegionIterArgs()[i]);
    return v;
  }
};

/// Starts a schedule's copies of one iteration (IRMapping: the body's
/// values at that iteration, the slice cloned; `more`: that iteration is
/// below the loop's bound, to guard the masks with) into ring slot `slot`.
using CopyIssue =
    llvm::function_ref<void(IRMapping &map, Value more, Value slot)>;

/// The copies of the iteration `d` after the one of `iv` and `args`
/// (LoadSlices::ahead) into `slot`, at `b`'s insertion point: the slice
/// cloned, the bound's guard, `issue`, one commit group (cp.async; TMA
/// copies, `commit` false, signal their slot's barrier instead).
inline void copyIteration(OpBuilder &b, scf::ForOp loop,
                          const LoadSlices &slices, Value iv,
                          SmallVector<Value> args, int64_t d, Value slot,
                          CopyIssue issue, bool commit = true) {
  auto [map, ivAt] = slices.ahead(b, loop, iv, std::move(args), d);
  for (Operation *op : slices.slice)
    b.clone(*op, map);
  Value more = arith::CmpIOp::create(
      b, loop.getLoc(), arith::CmpIPredicate::slt, ivAt, loop.getUpperBound());
  issue(map, more, slot);
  if (commit)
    kd::AsyncCommitOp::create(b, loop.getLoc());
}

/// A ring's prologue, before the loop: iterations 0 .. D-1 into slots
/// 0 .. D-1.
inline void copyPrologue(OpBuilder &b, scf::ForOp loop,
                         const LoadSlices &slices, int64_t D, CopyIssue issue,
                         bool commit = true) {
  for (int64_t d = 0; d < D; ++d)
    copyIteration(
        b, loop, slices, loop.getLowerBound(), slices.initialArgs(loop), d,
        arith::ConstantIntOp::create(b, loop.getLoc(), b.getI32Type(), d),
        issue, commit);
}

/// In the body: the iteration's index, (iv - lower bound) / step.
inline Value loopIndex(OpBuilder &b, scf::ForOp loop) {
  Location loc = loop.getLoc();
  return arith::DivSIOp::create(b, loc,
                                arith::SubIOp::create(b, loc,
                                                      loop.getInductionVar(),
                                                      loop.getLowerBound()),
                                loop.getStep());
}

/// (index + d) mod slots: the ring slot of the iteration d after `index`'s.
inline Value ringSlot(OpBuilder &b, Location loc, Value index, int64_t d,
                      int64_t slots) {
  auto c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  };
  Value at = d ? arith::AddIOp::create(b, loc, index, c(d)).getResult() : index;
  return arith::RemSIOp::create(b, loc, at, c(slots));
}

} // namespace kite::detail

#endif // KITE_LIB_PIPELINE_LOOPSLICES_H
