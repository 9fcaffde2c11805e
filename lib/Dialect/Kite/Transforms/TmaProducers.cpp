//===- TmaProducers.cpp - Producer warps and warpgroups of TMA rings ------===//
//
// What the warp-specialized TMA schedules share (DotSchedules.h): the ring's
// slot arithmetic, a producer's loop over a staged loop's iterations, the
// ops a producer repeats to compute its copies' offsets, and the producer
// warpgroup of register dots (attention, RegisterDotSchedule.cpp) with its
// ring, which several loops of a kernel, and a persistent kernel's tiles,
// share (docs/lowering.md, "Attention's products by TMA").
//
//===----------------------------------------------------------------------===//

#include "DotSchedules.h"
#include "LoopSlices.h"

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
namespace kd = mlir::kite;

namespace kite::detail {

Value previousSlot(IRRewriter &rewriter, Location loc, Value slot,
                   int64_t slots) {
  Type i32 = rewriter.getI32Type();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, i32, v);
  };
  return arith::SelectOp::create(
      rewriter, loc,
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, slot,
                            constant(0)),
      constant(slots - 1),
      arith::SubIOp::create(rewriter, loc, slot, constant(1)));
}

/// A producer's loop over `loop`'s iterations at the insertion point, its
/// slot and phase from (slot0, phase0): each iteration waits until its
/// slot's previous use is released (a fresh barrier passes parity 1: the
/// first round waits for nothing), repeats `slices` at its induction
/// variable (over `map`, the producer's copies of values from outside the
/// loop), calls `issue` (the copies into the slot) and goes on to the next
/// slot, flipping the phase where the ring wraps.
scf::ForOp
producerLoop(IRRewriter &rewriter, Location loc, scf::ForOp loop,
             const LoadSlices &slices, const IRMapping &map, Value slot0,
             Value phase0, int64_t slots,
             llvm::function_ref<void(IRMapping &inner, Value slot)> issue) {
  Type i32 = rewriter.getI32Type();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, i32, v);
  };
  auto producer = scf::ForOp::create(
      rewriter, loc, map.lookupOrDefault(loop.getLowerBound()),
      map.lookupOrDefault(loop.getUpperBound()),
      map.lookupOrDefault(loop.getStep()), ValueRange{slot0, phase0});
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(producer.getBody());
  Value slot = producer.getRegionIterArgs()[0];
  Value phase = producer.getRegionIterArgs()[1];
  kd::TmaWaitOp::create(
      rewriter, loc, slot,
      arith::XOrIOp::create(rewriter, loc, phase, constant(1)),
      /*empty=*/true, /*nosync=*/true);
  IRMapping inner = map;
  inner.map(loop.getInductionVar(), producer.getInductionVar());
  for (Operation *op : slices.slice)
    rewriter.clone(*op, inner);
  issue(inner, slot);
  Value next = arith::AddIOp::create(rewriter, loc, slot, constant(1));
  Value wrap = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                     next, constant(slots));
  scf::YieldOp::create(
      rewriter, loc,
      ValueRange{
          arith::SelectOp::create(rewriter, loc, wrap, constant(0), next),
          arith::SelectOp::create(
              rewriter, loc, wrap,
              arith::XOrIOp::create(rewriter, loc, phase, constant(1)),
              phase)});
  return producer;
}

/// The ops the producer must repeat to compute `values` (used in `loop`):
/// pure ops of the kernel's entry block (`entry`, in block order) and, when
/// `loop` sits in a tile loop `outer` of the entry block, pure ops of the
/// tile loop's body before `loop` (`tile`, in block order), which may use
/// the tile loop's induction variable. None when a value depends on
/// anything else (an op with side effects or regions, a loop-carried
/// value), or the loop is nested deeper.
std::optional<ProducerDependencies>
producerDependencies(func::FuncOp func, scf::ForOp loop, scf::ForOp outer,
                     ArrayRef<Value> values) {
  Block *entry = &func.getBody().front();
  Block *tileBody = outer ? outer.getBody() : nullptr;
  if (loop->getBlock() != (outer ? tileBody : entry) ||
      (outer && outer->getBlock() != entry))
    return std::nullopt;
  llvm::SetVector<Operation *> deps;
  SmallVector<Value> work(values.begin(), values.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == loop.getBody() && arg.getArgNumber() == 0)
        continue; // the induction variable: the producer's own
      if (outer && arg.getOwner() == tileBody && arg.getArgNumber() == 0)
        continue; // the tile loop's: the producer's tile loop's
      if (arg.getOwner() != entry)
        return std::nullopt;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (loop->isAncestor(def))
      continue; // the slice's own ops, cloned with the induction variable
    if ((def->getBlock() != entry && def->getBlock() != tileBody) ||
        def->getNumRegions() || !isMemoryEffectFree(def))
      return std::nullopt;
    if (deps.insert(def))
      for (Value operand : def->getOperands())
        work.push_back(operand);
  }
  ProducerDependencies out;
  for (Operation *op : deps)
    (op->getBlock() == entry ? out.entry : out.tile).push_back(op);
  auto inOrder = [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  };
  llvm::sort(out.entry, inOrder);
  llvm::sort(out.tile, inOrder);
  return out;
}

TmaSchedules::ProducerRing &TmaSchedules::produceRegisterDots(
    IRRewriter &rewriter, func::FuncOp func, scf::ForOp loop, scf::ForOp outer,
    const LoadSlices &slices, const ProducerDependencies &deps, int64_t slots,
    int64_t slotBytes, int64_t arrivals, int64_t consumerWarps,
    llvm::function_ref<void(IRMapping &, Value, Value)> issue) {
  Location loc = loop.getLoc();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                        v);
  };
  ProducerRing *ring = nullptr;
  if (auto it = producerRings.find(func); it != producerRings.end())
    ring = &it->second;
  if (!ring) {
    // At the kernel's entry: full and empty barriers, then the producer's
    // branch (its loops go before its kite.exit).
    Block *entry = &func.getBody().front();
    rewriter.setInsertionPointToStart(entry);
    kd::TmaInitOp::create(rewriter, loc, slots, arrivals,
                          /*consumer_arrivals=*/consumerWarps,
                          /*cluster_size=*/1);
    Value isProducer =
        kd::WarpIsProducerOp::create(rewriter, loc, rewriter.getI1Type());
    auto branch = scf::IfOp::create(rewriter, loc, isProducer,
                                    /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(&branch.getThenRegion().front());
    // The producer is a warpgroup (setmaxnreg works on whole ones) that
    // keeps 24 registers a thread and gives the rest to the two consumer
    // warpgroups: 240 each (per SM sub-partition: 2 x 32 x 240 + 32 x 24
    // of 16384). With a producer warp instead, 9 warps, no thread could
    // have more than 168 (3 warps on one sub-partition), where ptxas
    // serializes attention's wgmmas.
    kd::SetMaxRegistersOp::create(rewriter, loc, 24, /*increase=*/false);
    ProducerRing fresh;
    fresh.slot = constant(0);
    fresh.phase = constant(0);
    fresh.exit = kd::ExitOp::create(rewriter, loc);
    fresh.slots = slots;
    fresh.slotBytes = slotBytes;
    if (outer) {
      // The producer's tile loop, over the tiles of the consumers' (its
      // bounds are the entry's); the ring's counters go around it.
      rewriter.setInsertionPoint(fresh.exit);
      for (Operation *op : deps.entry)
        if (!fresh.outside.contains(op->getResult(0)))
          rewriter.clone(*op, fresh.outside);
      fresh.tiles = scf::ForOp::create(
          rewriter, loc, fresh.outside.lookupOrDefault(outer.getLowerBound()),
          fresh.outside.lookupOrDefault(outer.getUpperBound()),
          fresh.outside.lookupOrDefault(outer.getStep()),
          ValueRange{fresh.slot, fresh.phase});
      OpBuilder::InsertionGuard inTiles(rewriter);
      rewriter.setInsertionPointToStart(fresh.tiles.getBody());
      scf::YieldOp::create(rewriter, loc, fresh.tiles.getRegionIterArgs());
      fresh.slot = fresh.tiles.getRegionIterArgs()[0];
      fresh.phase = fresh.tiles.getRegionIterArgs()[1];
    }
    rewriter.setInsertionPointAfter(branch);
    kd::SetMaxRegistersOp::create(rewriter, loc, 240, /*increase=*/true);
    ring = &(producerRings[func] = fresh);
  }
  {
    // The producer's loop for this one: for k: wait until slot k % slots
    // is released, copy iteration k's Bs into it (in a tile loop: in the
    // producer's, after the tile's ops it repeats).
    IRMapping &outside = ring->outside;
    rewriter.setInsertionPoint(ring->tiles ? ring->tiles.getOperation()
                                           : ring->exit);
    for (Operation *op : deps.entry)
      if (!outside.contains(op->getResult(0))) {
        Operation *copy = rewriter.clone(*op, outside);
        ring->inTile.map(op->getResults(), copy->getResults());
      }
    IRMapping *map = &outside;
    if (ring->tiles) {
      Operation *yield = ring->tiles.getBody()->getTerminator();
      rewriter.setInsertionPoint(yield);
      IRMapping &inTile = ring->inTile;
      for (auto [from, to] : outside.getValueMap())
        if (!inTile.contains(from))
          inTile.map(from, to);
      inTile.map(outer.getInductionVar(), ring->tiles.getInductionVar());
      for (Operation *op : deps.tile)
        if (!inTile.contains(op->getResult(0)))
          rewriter.clone(*op, inTile);
      map = &inTile;
    }
    auto producer =
        producerLoop(rewriter, loc, loop, slices, *map, ring->slot, ring->phase,
                     slots, [&](IRMapping &inner, Value slot) {
                       issue(inner,
                             arith::ConstantIntOp::create(
                                 rewriter, loc, rewriter.getI1Type(), 1),
                             slot);
                     });
    ring->slot = producer.getResult(0);
    ring->phase = producer.getResult(1);
    if (ring->tiles)
      ring->tiles.getBody()->getTerminator()->setOperands(
          producer.getResults());
  }
  return *ring;
}

} // namespace kite::detail
