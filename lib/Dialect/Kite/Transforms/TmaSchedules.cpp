//===- TmaSchedules.cpp - TMA staging of a K loop's dot (sm_90a) ----------===//
//
// kite-stage-dot-operands' TMA schedules (DotSchedules.h): the operands of a
// dot read through tensor descriptors (TmaOperands.cpp says which) arrive
// by TMA into the swizzled staging, with an mbarrier per slot; optionally a
// producer warp issues the copies alone (docs/lowering.md). The producers'
// shared pieces and attention's producer warpgroup: TmaProducers.cpp.
//
//===----------------------------------------------------------------------===//

#include "DotSchedules.h"
#include "LoopSlices.h"
#include "TmaOperands.h"

#include "kite/Analysis/ClusterUniformity.h"
#include "kite/Conversion/KiteToGPU/KiteToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
namespace kd = mlir::kite;

namespace kite::detail {

std::array<Value, 2>
TmaSchedules::tensorMapParams(func::FuncOp func, kd::DotOp dot,
                              std::array<kd::DescriptorLoadOp, 2> loads) {
  SmallVector<int64_t> shape = dotShapeOf(dot);
  auto staging = kd::SwizzledStaging::get(
      shape[0], shape[1], shape[2],
      dot.getA().getType().getElementTypeBitWidth() / 8,
      /*bKMajor=*/bool(transposedB(dot)));
  std::array<Value, 2> maps;
  for (int operand = 0; operand < 2; ++operand)
    maps[operand] = tensorMapParam(
        func, loads[operand].getDesc().getDefiningOp<kd::MakeTensorDescOp>(),
        operand, staging);
  return maps;
}

/// The kernel parameter (a CUtensorMap the runtime encodes at launch)
/// standing for `make` as operand `operand` of a dot staged as `staging`:
/// appended to `func`'s parameters with a kite.tensor_map attribute that
/// says how to encode it from the other parameters (docs/lowering.md).
Value TmaSchedules::tensorMapParam(func::FuncOp func, kd::MakeTensorDescOp make,
                                   int operand,
                                   const kd::SwizzledStaging &staging) {
  return tensorMap(func, make,
                   operand == 0 ? staging.aSwizzle : staging.bSwizzle);
}

Value TmaSchedules::tensorMap(func::FuncOp func, kd::MakeTensorDescOp make,
                              int64_t swizzle) {
  auto key = std::make_pair(make.getOperation(), swizzle);
  if (auto it = tensorMaps.find(key); it != tensorMaps.end())
    return it->second;
  Value param = ::kite::detail::appendTensorMap(func, make, swizzle);
  tensorMaps[key] = param;
  return param;
}

/// The slot and the barrier phase of the K iteration with index `index`
/// (counted from the kernel's start) in a ring of `slots`.
static Value slotOf(IRRewriter &rewriter, Location loc, Value index,
                    int64_t slots) {
  Type i32 = rewriter.getI32Type();
  return arith::RemSIOp::create(
      rewriter, loc, index,
      arith::ConstantIntOp::create(rewriter, loc, i32, slots));
}
static Value phaseOf(IRRewriter &rewriter, Location loc, Value index,
                     int64_t slots) {
  Type i32 = rewriter.getI32Type();
  return arith::AndIOp::create(
      rewriter, loc,
      arith::DivSIOp::create(
          rewriter, loc, index,
          arith::ConstantIntOp::create(rewriter, loc, i32, slots)),
      arith::ConstantIntOp::create(rewriter, loc, i32, 1));
}

/// The number of iterations of `loop` (a constant positive step), at the
/// insertion point.
Value tripCount(IRRewriter &rewriter, Location loc, scf::ForOp loop) {
  Type i32 = rewriter.getI32Type();
  Value one = arith::ConstantIntOp::create(rewriter, loc, i32, 1);
  Value span = arith::SubIOp::create(rewriter, loc, loop.getUpperBound(),
                                     loop.getLowerBound());
  Value step = loop.getStep();
  Value trips = arith::DivSIOp::create(
      rewriter, loc,
      arith::AddIOp::create(rewriter, loc, span,
                            arith::SubIOp::create(rewriter, loc, step, one)),
      step);
  return arith::MaxSIOp::create(
      rewriter, loc, trips, arith::ConstantIntOp::create(rewriter, loc, i32, 0));
}

/// Gives the tile loop `outer` (around a K loop) one more iteration
/// argument, from `init` (0 when null): the number of K iterations of the
/// tiles before (`count`, whose yield the caller sets: count + the K loop's
/// trip count). Returns the new tile loop, or none when it could not grow.
static std::optional<std::pair<scf::ForOp, Value>>
carryCount(IRRewriter &rewriter, scf::ForOp outer, Value init = {}) {
  rewriter.setInsertionPoint(outer);
  if (!init)
    init = arith::ConstantIntOp::create(rewriter, outer.getLoc(),
                                        rewriter.getI32Type(), 0);
  auto grown = outer.replaceWithAdditionalYields(
      rewriter, ValueRange{init}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>{args[0]}; // set by the caller
      });
  if (failed(grown))
    return std::nullopt;
  auto grownFor = cast<scf::ForOp>(grown->getOperation());
  return std::make_pair(grownFor, Value(grownFor.getRegionIterArgs().back()));
}

/// Sets the last yield operand of `outer` (its count) to count + `trips`.
static void yieldCount(IRRewriter &rewriter, Location loc, scf::ForOp outer,
                       Value count, Value trips) {
  auto yield = cast<scf::YieldOp>(outer.getBody()->getTerminator());
  yield->setOperand(yield->getNumOperands() - 1,
                    arith::AddIOp::create(rewriter, loc, count, trips));
}

/// Stages `dot`'s operands (`loads`, descriptor loads) with TMA, as the
/// cp.async path does (S + 1 slots, S - 1 blocks in flight, the dot
/// waited for one iteration later), with an mbarrier per slot:
///   before:   tma_init (the barriers); tma_stage(0..D-1) -> slots 0..D-1
///   loop k:   tma_wait slot k % S', phase (k / S') & 1  (then a barrier)
///             acc = dot_staged slot k % S'
///             tma_stage(k + D) -> slot (k + D) % S'      (one thread)
///             dot_wait 1
/// The stages past the loop's end are predicated off, never waited for.
/// In a tile loop (a persistent kernel) k counts from the kernel's start:
/// the barriers are initialized before the tile loop, which carries the
/// count (docs/lowering.md, "Persistent kernels").
void TmaSchedules::stageWithTma(func::FuncOp func, scf::ForOp loop,
                                kd::DotOp dot,
                                std::array<kd::DescriptorLoadOp, 2> loads,
                                int64_t stages) {
  Block *body = loop.getBody();
  kd::TransOp trans = transposedB(dot); // B loaded N x K: staged K-major
  SmallVector<Operation *> ops = {loads[0], loads[1]};
  auto slices = ::kite::detail::LoadSlices::get(loop, ops);
  if (!slices)
    return; // kite-lower-descriptors lowers them to pointer blocks
  RankedTensorType aType = dot.getA().getType();
  Type element = aType.getElementType();
  SmallVector<int64_t> dotShape = dotShapeOf(dot);
  std::array<Value, 2> maps = tensorMapParams(func, dot, loads);

  IRRewriter rewriter(loop.getContext());
  Location loc = loop.getLoc();
  const int64_t S = stages, D = S - 1, slots = S + 1;
  Type i32 = rewriter.getI32Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(rewriter, loc, i32, v).getResult();
  };
  Value iv = loop.getInductionVar();
  auto stageAt = [&](IRMapping &map, Value ivAt, Value slot) {
    for (Operation *op : slices->slice)
      rewriter.clone(*op, map);
    Value more = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                       ivAt, loop.getUpperBound());
    for (auto [operand, load] : llvm::enumerate(loads)) {
      SmallVector<Value> offsets;
      for (Value o : load.getOffsets())
        offsets.push_back(map.lookupOrDefault(o));
      kd::TmaStageOp::create(rewriter, load.getLoc(), maps[operand], offsets,
                             more, slot, int32_t(operand), dotShape,
                             /*producer=*/false,
                             /*transposed=*/operand == 1 && trans,
                             /*multicast=*/1, /*b_place=*/nullptr);
    }
  };
  // A loop nested in a tile loop (a persistent kernel, TmaOperands.cpp):
  // the barriers are initialized once, before the tile loop, which carries
  // `count`, the K iterations of the tiles before; each tile's slots and
  // phases go on from there (every stage that is issued is waited for
  // once, in order, so barrier b has completed one phase per earlier
  // iteration k with k % slots == b).
  auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
  Value count;
  if (outer) {
    auto grown = carryCount(rewriter, outer);
    if (!grown)
      return; // kite-lower-descriptors lowers them to pointer blocks
    std::tie(outer, count) = *grown;
    rewriter.setInsertionPoint(outer);
  } else {
    rewriter.setInsertionPoint(loop);
  }
  kd::TmaInitOp::create(rewriter, loc, slots, /*arrivals=*/2);
  rewriter.setInsertionPoint(loop);
  // The index of the loop's iteration `k` counted from the start of the
  // kernel.
  auto globalIndex = [&](Value k) {
    return count ? arith::AddIOp::create(rewriter, loc, count, k).getResult()
                 : k;
  };
  SlotStart start;
  if (outer) {
    start.slot = slotOf(rewriter, loc, count, slots);
    start.phase = phaseOf(rewriter, loc, count, slots);
    yieldCount(rewriter, loc, outer, count, tripCount(rewriter, loc, loop));
  }
  for (int64_t d = 0; d < D; ++d) {
    auto [map, ivAt] = slices->ahead(rewriter, loop, loop.getLowerBound(),
                                     slices->initialArgs(loop), d);
    stageAt(map, ivAt,
            count ? slotOf(rewriter, loc, globalIndex(constant(d)), slots)
                  : constant(d));
  }
  rewriter.setInsertionPoint(dot);
  Value index = globalIndex(arith::DivSIOp::create(
      rewriter, loc,
      arith::SubIOp::create(rewriter, loc, iv, loop.getLowerBound()),
      loop.getStep()));
  Value slot = slotOf(rewriter, loc, index, slots);
  Value phase = phaseOf(rewriter, loc, index, slots);
  kd::TmaWaitOp::create(rewriter, loc, slot, phase);
  std::optional<unsigned> carried = carriedAccumulator(dot, body);
  auto staged = kd::DotStagedOp::create(
      rewriter, dot.getLoc(), dot.getType(), dot.getAcc(), slot,
      aType.getDimSize(1), slots, kd::DotEngine::WGMMA, TypeAttr::get(element),
      /*b_k_major=*/bool(trans), /*a=*/Value(), /*b_place=*/nullptr,
      /*a_place=*/nullptr, /*b_slot=*/Value());
  auto [map, ivAt] =
      slices->ahead(rewriter, loop, iv, slices->currentArgs(loop), D);
  Value aheadSlot = slotOf(
      rewriter, loc, arith::AddIOp::create(rewriter, loc, index, constant(D)),
      slots);
  stageAt(map, ivAt, aheadSlot);
  Value result = kd::DotWaitOp::create(rewriter, dot.getLoc(), dot.getType(),
                                       staged.getResult(), carried ? 1 : 0);
  rewriter.replaceOp(dot, result);
  if (trans)
    rewriter.eraseOp(trans);
  for (kd::DescriptorLoadOp load : loads)
    rewriter.eraseOp(load);
  if (carried) {
    rewriter.setInsertionPointAfter(loop);
    waitAroundLoop(rewriter, loop, *carried);
  }
  carrySlots(rewriter, loop, slot, aheadSlot, phase, D, slots, start);
}

/// For each operand (A, B) of a dot staged by a producer warp, the programs
/// its copies are multicast to: the cluster's size when the kernel runs in
/// clusters (sm_90a) and every program of a cluster stages that very block
/// at the same point (its offsets and the loops and branches around the
/// load are cluster-uniform: ClusterUniformity.h), so each program copies
/// its share of the block's panels into all of them; 1 otherwise (also
/// when the panels do not split evenly).
std::array<int64_t, 2>
TmaSchedules::multicastOf(func::FuncOp func, kd::DotOp dot,
                          std::array<kd::DescriptorLoadOp, 2> loads) {
  std::array<int32_t, 3> dims = kd::ClusterUniformity::clusterDimsOf(func);
  int64_t size = int64_t(dims[0]) * dims[1] * dims[2];
  std::array<int64_t, 2> out = {1, 1};
  if (size == 1)
    return out;
  kd::ClusterUniformity uniformity(func, dims);
  SmallVector<int64_t> shape = dotShapeOf(dot);
  int64_t eb = dot.getA().getType().getElementTypeBitWidth() / 8;
  auto staging = kd::SwizzledStaging::get(shape[0], shape[1], shape[2], eb,
                                          /*bKMajor=*/bool(transposedB(dot)));
  for (int operand = 0; operand < 2; ++operand) {
    kd::DescriptorLoadOp load = loads[operand];
    int64_t cols = load.getType().getDimSize(1);
    int64_t panels =
        cols / (operand == 0 ? staging.aPanelElems() : staging.bPanelElems());
    if (panels % size || !uniformity.uniformControl(load) ||
        !llvm::all_of(load.getOffsets(),
                      [&](Value v) { return uniformity.isUniform(v); }))
      continue;
    out[operand] = size;
  }
  return out;
}

/// Warp specialization of a TMA-staged loop (option warp-specialize): a
/// producer warp beyond the num_warps runs the loop's copies alone,
///   kernel entry:  tma_init (full and empty barriers)
///                  if warp_is_producer: for k: wait empty[k % S'] (its
///                    previous use released), tma_stage A, B -> k % S'
///                    (producer); exit
///   loop k:        tma_wait full[k % S'] (no barrier); dot_staged;
///                  dot_wait 1; tma_release slot of dot k - 1 (k > 0)
/// so the warps computing blocks never wait for each other in the loop
/// and never compute an address. In a tile loop (a persistent kernel) the
/// producer runs the tile loop too, so it loads the next tile while the
/// others finish this one and store it; k then counts from the kernel's
/// start (the tile loop carries it), and each tile releases its last slot
/// after its loop. False (nothing changed) when the copies' offsets depend
/// on loop-carried values or on ops that cannot be repeated by the
/// producer.
///
/// `pingPong` (range(..., ping_pong=True) on the tile loop): two consumer
/// groups of `warps` warps (kite.consumer_groups = 2), group g computing
/// tiles g, g + 2, ... of the tile loop (its lower bound moved by g steps,
/// its step doubled); the producer's order is theirs interleaved, so
/// group g's count starts at g trips and grows by 2 trips a tile (the K
/// loop's trip count must be the same for every tile). The groups issue
/// their K loops in turns (kite.turn_wait before, kite.turn_pass after,
/// before the last product is waited for), so one group's epilogue runs
/// while the other's products keep the tensor cores busy. Where ping-pong
/// cannot apply, a located error (`failed` set; true returned).
bool TmaSchedules::stageWithProducerWarp(
    func::FuncOp func, scf::ForOp loop, kd::DotOp dot,
    std::array<kd::DescriptorLoadOp, 2> loads, int64_t warps, int64_t stages,
    bool pingPong) {
  Block *body = loop.getBody();
  kd::TransOp trans = transposedB(dot); // B loaded N x K: staged K-major
  SmallVector<Operation *> ops = {loads[0], loads[1]};
  auto slices = ::kite::detail::LoadSlices::get(loop, ops);
  if (!slices || !slices->usedArgs.empty())
    return false;
  auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
  SmallVector<Value> needed = {loop.getLowerBound(), loop.getUpperBound(),
                               loop.getStep()};
  if (outer)
    llvm::append_range(needed, ValueRange{outer.getLowerBound(),
                                          outer.getUpperBound(),
                                          outer.getStep()});
  for (Operation *op : slices->slice)
    llvm::append_range(needed, op->getOperands());
  for (kd::DescriptorLoadOp load : loads)
    llvm::append_range(needed, load.getOffsets());
  auto deps = producerDependencies(func, loop, outer, needed);
  if (!deps)
    return false;
  // The tile loop's bounds must not depend on the tile loop itself.
  if (outer)
    for (Value v : {outer.getLowerBound(), outer.getUpperBound(),
                    outer.getStep()})
      if (Operation *def = v.getDefiningOp();
          def && def->getBlock() != &func.getBody().front())
        return false;

  RankedTensorType aType = dot.getA().getType();
  Type element = aType.getElementType();
  SmallVector<int64_t> dotShape = dotShapeOf(dot);
  std::array<Value, 2> maps = tensorMapParams(func, dot, loads);
  std::array<int64_t, 2> multicast = multicastOf(func, dot, loads);
  // Programs a cluster that release each slot (each one's producer fills a
  // share of every program's slot), 1 without multicast.
  const int64_t cluster = std::max(multicast[0], multicast[1]);
  const int64_t groups = pingPong ? 2 : 1;
  if (pingPong) {
    auto refuse = [&](const Twine &why) {
      (outer ? outer : loop).emitError() << "range()'s ping_pong " << why;
      failed = true;
      return true;
    };
    if (!outer)
      return refuse("needs a tile loop around the K loop (a persistent "
                    "kernel): the consumer groups take turns over its "
                    "iterations");
    if (!llvm::all_of(ValueRange{loop.getLowerBound(), loop.getUpperBound(),
                                 loop.getStep()},
                      [&](Value v) { return outer.isDefinedOutsideOfLoop(v); }))
      return refuse("needs the K loop's bounds computed before the tile loop "
                    "(the same number of K iterations for every tile)");
    if (warps != 4)
      return refuse("runs two consumer groups of one warpgroup each: it needs "
                    "num_warps = 4, got " +
                    Twine(warps));
  }
  const int64_t slots = stages + 1;
  IRRewriter rewriter(loop.getContext());
  Location loc = loop.getLoc();
  Type i32 = rewriter.getI32Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(rewriter, loc, i32, v).getResult();
  };
  // The producer, at the kernel's entry.
  Block *entry = &func.getBody().front();
  rewriter.setInsertionPointToStart(entry);
  kd::TmaInitOp::create(rewriter, loc, slots, /*arrivals=*/2,
                        /*consumer_arrivals=*/warps * cluster, cluster);
  Value isProducer =
      kd::WarpIsProducerOp::create(rewriter, loc, rewriter.getI1Type());
  auto branch = scf::IfOp::create(rewriter, loc, isProducer,
                                  /*withElseRegion=*/false);
  rewriter.setInsertionPointToStart(&branch.getThenRegion().front());
  IRMapping outside;
  for (Operation *op : deps->entry)
    rewriter.clone(*op, outside);
  // The producer's K loop from (slot, phase), in the insertion block;
  // returns the (slot, phase) after it.
  auto produce = [&](IRMapping &map, Value slot0,
                     Value phase0) -> SmallVector<Value> {
    auto producer = producerLoop(
        rewriter, loc, loop, *slices, map, slot0, phase0, slots,
        [&](IRMapping &inner, Value slot) {
          Value yes = arith::ConstantIntOp::create(rewriter, loc,
                                                   rewriter.getI1Type(), 1);
          for (auto [operand, load] : llvm::enumerate(loads)) {
            SmallVector<Value> offsets;
            for (Value o : load.getOffsets())
              offsets.push_back(inner.lookupOrDefault(o));
            kd::TmaStageOp::create(rewriter, load.getLoc(), maps[operand],
                                   offsets, yes, slot, int32_t(operand),
                                   dotShape, /*producer=*/true,
                                   /*transposed=*/operand == 1 && trans,
                                   multicast[operand], /*b_place=*/nullptr);
          }
        });
    return SmallVector<Value>(producer.getResults());
  };
  if (outer) {
    auto tiles = scf::ForOp::create(
        rewriter, loc, outside.lookupOrDefault(outer.getLowerBound()),
        outside.lookupOrDefault(outer.getUpperBound()),
        outside.lookupOrDefault(outer.getStep()),
        ValueRange{constant(0), constant(0)});
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(tiles.getBody());
    IRMapping map = outside;
    map.map(outer.getInductionVar(), tiles.getInductionVar());
    for (Operation *op : deps->tile)
      rewriter.clone(*op, map);
    scf::YieldOp::create(rewriter, loc,
                         produce(map, tiles.getRegionIterArgs()[0],
                                 tiles.getRegionIterArgs()[1]));
  } else {
    produce(outside, constant(0), constant(0));
  }
  kd::ExitOp::create(rewriter, loc);

  // Ping-pong: the consumer group's tiles, and group 0's first turn (passed
  // by the last group).
  Value group, tileTrips;
  if (groups > 1) {
    func->setAttr(kd::KiteDialect::getConsumerGroupsAttrName(),
                  rewriter.getI32IntegerAttr(int32_t(groups)));
    rewriter.setInsertionPointAfter(branch);
    group = kd::ConsumerGroupOp::create(rewriter, loc, i32);
    auto last = scf::IfOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, group,
                              constant(groups - 1)),
        /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(&last.getThenRegion().front());
    kd::TurnPassOp::create(rewriter, loc);
    rewriter.setInsertionPoint(outer);
    Value step = outer.getStep();
    outer.getLowerBoundMutable().assign(arith::AddIOp::create(
        rewriter, loc, outer.getLowerBound(),
        arith::MulIOp::create(rewriter, loc, group, step)));
    outer.getStepMutable().assign(
        arith::MulIOp::create(rewriter, loc, step, constant(groups)));
    tileTrips = tripCount(rewriter, loc, loop);
  }

  // The consumers. In a tile loop, `count` (carried by it) is the number of
  // K iterations before this tile's.
  Value count, trips;
  SlotStart start;
  if (outer) {
    auto grown = carryCount(
        rewriter, outer,
        groups > 1
            ? arith::MulIOp::create(rewriter, loc, group, tileTrips).getResult()
            : Value());
    if (!grown)
      return false; // cannot happen for an scf.for; the producer stays dead
    std::tie(outer, count) = *grown;
    rewriter.setInsertionPoint(loop);
    start.slot = slotOf(rewriter, loc, count, slots);
    start.phase = phaseOf(rewriter, loc, count, slots);
    trips = groups > 1 ? tileTrips : tripCount(rewriter, loc, loop);
    yieldCount(rewriter, loc, outer, count,
               groups > 1 ? arith::MulIOp::create(rewriter, loc, trips,
                                                  constant(groups))
                                .getResult()
                          : trips);
  }
  rewriter.setInsertionPoint(dot);
  Value now = constant(0), phase = constant(0);
  kd::TmaWaitOp::create(rewriter, loc, now, phase, /*empty=*/false,
                        /*nosync=*/true);
  std::optional<unsigned> carried = carriedAccumulator(dot, body);
  auto staged = kd::DotStagedOp::create(
      rewriter, dot.getLoc(), dot.getType(), dot.getAcc(), now,
      aType.getDimSize(1), slots, kd::DotEngine::WGMMA, TypeAttr::get(element),
      /*b_k_major=*/bool(trans), /*a=*/Value(), /*b_place=*/nullptr,
      /*a_place=*/nullptr, /*b_slot=*/Value());
  Value result = kd::DotWaitOp::create(rewriter, dot.getLoc(), dot.getType(),
                                       staged.getResult(), carried ? 1 : 0);
  // Dot k - 1 is done (wait 1): its slot goes back to the producer; with
  // every dot waited for at once, this one's.
  if (carried) {
    Value prev = previousSlot(rewriter, loc, now, slots);
    Value notFirst =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                              loop.getInductionVar(), loop.getLowerBound());
    kd::TmaReleaseOp::create(rewriter, loc, prev, notFirst, cluster);
  } else {
    Value yes =
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI1Type(), 1);
    kd::TmaReleaseOp::create(rewriter, loc, now, yes, cluster);
  }
  rewriter.replaceOp(dot, result);
  if (trans)
    rewriter.eraseOp(trans);
  for (kd::DescriptorLoadOp load : loads)
    rewriter.eraseOp(load);
  if (carried) {
    rewriter.setInsertionPointAfter(loop);
    Operation *waited = waitAroundLoop(rewriter, loop, *carried);
    // In a tile loop the producer goes on: the tile's last dot (waited for
    // right after the loop) releases its slot, count + trips - 1, if the
    // loop ran.
    if (outer) {
      rewriter.setInsertionPointAfter(waited);
      Value last = arith::AddIOp::create(
          rewriter, loc, count,
          arith::SubIOp::create(rewriter, loc, trips, constant(1)));
      Value ran = arith::CmpIOp::create(rewriter, loc,
                                        arith::CmpIPredicate::sgt, trips,
                                        constant(0));
      kd::TmaReleaseOp::create(
          rewriter, loc, slotOf(rewriter, loc, last, slots), ran, cluster);
    }
  }
  // The group's turn: its K loop's products issued in turn with the other
  // group's; passed on before the last one is waited for.
  if (groups > 1) {
    rewriter.setInsertionPoint(loop);
    kd::TurnWaitOp::create(rewriter, loc);
    rewriter.setInsertionPointAfter(loop);
    kd::TurnPassOp::create(rewriter, loc);
  }
  // No program of a cluster exits while its peers may still release its
  // slots or copy into them.
  if (cluster > 1) {
    bool placed = false;
    func.walk([&](kd::ClusterBarrierOp) { placed = true; });
    if (!placed)
      func.walk([&](func::ReturnOp ret) {
        rewriter.setInsertionPoint(ret);
        kd::ClusterBarrierOp::create(rewriter, ret.getLoc());
      });
  }
  carrySlots(rewriter, loop, now, Value(), phase, /*D=*/0, slots, start);
  return true;
}

} // namespace kite::detail
