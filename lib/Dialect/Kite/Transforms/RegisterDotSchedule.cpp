//===- RegisterDotSchedule.cpp - cp.async staging of B for register-A dots -===//
//
// The loops whose dots read A from registers (attention: q @ k^T with q
// loaded before the loop, p @ v with p computed in the loop) and B from a
// load in the loop (k, v): on sm_90a each B is copied with cp.async into
// the swizzled staging, S - 1 iterations ahead, and the dot reads it there
// with A in registers (kite.dot_staged with `a` and `b_place`); one ring of
// S slots, each holding every dot's B (placed one after another, 1024-byte
// aligned), one commit group per iteration:
//
//   prologue:  stage the Bs of iterations 0 .. D-1 (D = S - 1) into slots
//              0 .. D-1, one commit each
//   loop k:    async_wait D-1 async_proxy   (iteration k's Bs landed; every
//                                           thread is done with iteration
//                                           k-1's slot, refilled next)
//              stage the Bs of iteration k + D into slot (k + D) % S; commit
//              each dot: dot_staged a = A, slot k % S; dot_wait pending P
//                        just before the first op that reads the product
//                        (P: the products issued in between; wgmmas
//                        complete in order)
//   after:     async_wait 0
// When the last dot's result only goes around the loop (attention's acc)
// and is read after the first dot, its wait moves to the next iteration,
// after the first dot's: it runs beside the next iteration's barrier,
// copies and first product. Where the loop's resident registers leave
// room, each product is issued as early as its operands allow (the
// attention backward's v @ do.T beside the exp2 of k @ q.T's product);
// elsewhere products that only feed their own accumulator around the loop
// are chained, with no wait in it. A deferred or chained product's slot
// may be read while the next iteration refills one: S + 1 slots then.
// A load that two dots read as B (one through its transposition, at the
// same bytes) is copied once.
//
// Without it such a loop loads B into registers (one iteration ahead:
// kite-pipeline-loads) and stores it into the scratch buffer before each
// product (two barriers a product).
//
//===----------------------------------------------------------------------===//

#include "DotSchedules.h"
#include "LoopSlices.h"
#include "TmaOperands.h"

#include "kite/Analysis/AxisInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
namespace kd = mlir::kite;

namespace kite::detail {

namespace {

/// One dot of the loop and what staging its B takes.
struct RegisterDot {
  kd::DotOp dot;
  kd::LoadOp load;    ///< B's load (N x K when read through `trans`)
  kd::DescriptorLoadOp desc; ///< or B's descriptor load (TMA)
  kd::TransOp trans;  ///< B = trans(load), staged K-major; or null
  kd::WgmmaTile tile; ///< the accumulator's
  kd::BlockedLayout aLayout; ///< the register layout A must have
  int64_t offset = 0; ///< B's bytes into the slot
  /// B's placement in its staging, in the load's own indices (element ->
  /// byte from B's start).
  std::optional<kd::LinearLayout> bytes;
  /// Whether an earlier dot copies the same load to the same bytes (the
  /// attention backward's k read as k.T by one product and k by another):
  /// this one reads that copy.
  bool shared = false;
  /// B's swizzle width in bytes (the tensor map's box, TMA).
  int64_t swizzle = 0;
  /// [M, N, K] of the dot (which the staging replaces).
  SmallVector<int64_t> shape;
  Operation *loaded() {
    return load ? load.getOperation() : desc.getOperation();
  }
};

/// A load in `body` that the dots of `dots` read as B (directly or through
/// a kite.trans that only such a dot reads) and nothing else reads, of
/// `element`, its masked-off elements 0: what the staging copies in the
/// dots' place (once, where they agree on its bytes).
kd::LoadOp stageableSharedLoad(Value v, Block *body, Type element,
                               ArrayRef<kd::DotOp> dots) {
  auto load = v.getDefiningOp<kd::LoadOp>();
  if (!load || load->getBlock() != body || !readOnlyAsB(load, dots))
    return {};
  return ::kite::detail::stageableContents(load, element) ? load
                                                          : kd::LoadOp();
}

/// What staging a loop's register dots takes (planRegisterDots): the dots
/// and their places in a slot, the copies' slices, the ring (stages, slots:
/// one more where a product's slot is read after the next refill), which
/// products are issued early, chained or waited for in the next iteration.
struct RegisterDotPlan {
  SmallVector<RegisterDot, 2> staged;
  int64_t slotBytes = 0;
  std::optional<LoadSlices> slices;
  bool byTma = false; ///< Bs by TMA (descriptor loads), else cp.async
  bool issueEarly = false;
  SmallVector<int64_t> chained; ///< per dot, its iteration argument or -1
  int64_t deferred = -1;        ///< the last dot's iteration argument or -1
  int64_t stages = 0, slots = 0;
};

/// Whether a producer warpgroup may take a loop's copies at all: Bs by TMA,
/// warp specialization asked for, two consumer warpgroups (producerFor
/// then needs the last product's wait deferred, and more).
bool producerMayTake(bool byTma, bool specialize, int64_t warps) {
  return byTma && specialize && warps == 8;
}

/// The plan for `loop`'s `dots` (A in registers, B loaded in the loop), or
/// none where they cannot be staged so; `specialize`: warp specialization
/// is asked for.
std::optional<RegisterDotPlan>
planRegisterDots(func::FuncOp func, scf::ForOp loop, ArrayRef<kd::DotOp> dots,
                 StringRef chip, int64_t warps, int64_t stages,
                 bool specialize) {
  // Bs read through tensor descriptors: TMA copies them (every dot's, or
  // none: tmaRegisterDotLoads).
  SmallVector<kd::DescriptorLoadOp> tmaLoads =
      tmaRegisterDotLoads(loop, chip, warps, stages);
  const bool byTma = !tmaLoads.empty();
  Block *body = loop.getBody();
  // The layout classes as the lowering will see them (the dots' results in
  // one class with what they feed elementwise).
  kd::KiteTypeConverter conv(loop.getContext(), 32 * warps, func);
  kd::AxisInfoAnalysis axisInfo(func);
  SmallVector<RegisterDot, 2> staged;
  int64_t slotBytes = 0;
  for (kd::DotOp dot : dots) {
    RankedTensorType aType = dot.getA().getType();
    Type element = aType.getElementType();
    int64_t M = aType.getDimSize(0), K = aType.getDimSize(1),
            N = dot.getType().getDimSize(1);
    std::optional<kd::WgmmaTile> tile = registerDotTile(dot, warps);
    if (!tile)
      return std::nullopt;
    std::optional<kd::BlockedLayout> aLayout = tile->aLayout(K);
    if (!aLayout)
      return std::nullopt;
    // A: made outside the loop (it takes aLayout), or in the class of a
    // dot's result whose accumulator layout is aLayout (p from s).
    Value a = dot.getA();
    if (a.getDefiningOp<kd::LoadOp>() &&
        a.getDefiningOp()->getBlock() == body)
      return std::nullopt; // a K loop's A: the two-operand schedule's
    Operation *aDef = a.getDefiningOp();
    bool aOk = !loop->isAncestor(
        aDef ? aDef : cast<BlockArgument>(a).getOwner()->getParentOp());
    for (kd::DotOp other : dots) {
      if (!conv.shareLayout(a, other.getResult()))
        continue;
      auto otherTile = kd::WgmmaTile::choose(
          other.getType().getDimSize(0), other.getType().getDimSize(1), warps);
      aOk = otherTile && otherTile->layout().placesLike(*aLayout);
    }
    if (!aOk)
      return std::nullopt;
    RegisterDot r{dot,   {},      {}, ::kite::detail::transposedB(dot),
                  *tile, *aLayout};
    Value bLoaded = r.trans ? r.trans.getSrc() : dot.getB();
    if (byTma) {
      r.desc = bLoaded.getDefiningOp<kd::DescriptorLoadOp>();
      if (!r.desc || !llvm::is_contained(tmaLoads, r.desc))
        return std::nullopt;
    } else {
      r.load = stageableSharedLoad(bLoaded, body, element, dots);
      if (!r.load)
        return std::nullopt;
      auto ptrType = cast<RankedTensorType>(r.load.getPtr().getType());
      if (!kd::swizzledCopyWidth(axisInfo, conv.getLayout(r.load.getPtr()),
                                 r.load.getPtr(), r.load.getMask(),
                                 ptrType.getDimSize(1),
                                 element.getIntOrFloatBitWidth() / 8))
        return std::nullopt;
    }
    kd::SwizzledStaging st = kd::SwizzledStaging::get(
        M, N, K, element.getIntOrFloatBitWidth() / 8, bool(r.trans));
    r.swizzle = st.bSwizzle;
    r.shape = dotShapeOf(dot);
    // A load an earlier dot copies already, to the same bytes for each of
    // its elements (B read N-major as loaded, or K-major through its
    // transposition: the same rows when its row bytes choose the same
    // swizzle), is copied once.
    r.bytes = st.operandLayout(1, bool(r.trans));
    for (RegisterDot &o : staged)
      if (o.loaded() == r.loaded() && !o.shared && *o.bytes == *r.bytes) {
        r.offset = o.offset;
        r.shared = true;
        break;
      }
    if (!r.shared) {
      r.offset = slotBytes;
      slotBytes += st.bBytes();
    }
    staged.push_back(r);
  }
  // A load read by several dots at different bytes is copied once for each
  // (correct, but twice the traffic): not worth a schedule of its own.
  for (RegisterDot &r : staged)
    for (RegisterDot &o : staged)
      if (&r != &o && r.loaded() == o.loaded() && !r.shared && !o.shared)
        return std::nullopt;
  // Dots whose As share a layout class must want the same layout.
  for (RegisterDot &r : staged)
    for (RegisterDot &o : staged)
      if (conv.shareLayout(r.dot.getA(), o.dot.getA()) &&
          !r.aLayout.placesLike(o.aLayout))
        return std::nullopt;
  SmallVector<Operation *> loads;
  for (RegisterDot &r : staged)
    if (!r.shared)
      loads.push_back(r.loaded());
  auto slices = LoadSlices::get(loop, ArrayRef<Operation *>(loads));
  if (!slices)
    return std::nullopt;

  // The registers a thread holds through the loop: the blocks carried
  // around it and the As made before it (f16 pairs). Issuing a product
  // early (below) keeps its accumulator live beside what the body computes
  // meanwhile: worth it where this leaves room (the attention backward at
  // head dim 64: 96 registers, 1.1x), not where it does not (head dim 128:
  // 192, where the early products made ptxas spill: 0.8x).
  int64_t resident = 0;
  for (BlockArgument arg : loop.getRegionIterArgs())
    if (auto type = dyn_cast<RankedTensorType>(arg.getType())) {
      // Pointers (blocks of them carried around a loop that
      // kite-carry-pointer-offsets did not turn into offsets) take 64 bits.
      Type element = type.getElementType();
      int64_t bits =
          element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
      resident += conv.getLayout(arg).perThread *
                  std::max<int64_t>(32, bits) / 32;
    }
  llvm::SmallPtrSet<Value, 4> outsideAs;
  for (RegisterDot &r : staged)
    if (!loop->isAncestor(r.dot.getA().getParentBlock()->getParentOp()) &&
        outsideAs.insert(r.dot.getA()).second)
      resident += conv.getLayout(r.dot.getA()).perThread / 2;
  const bool issueEarly = resident <= 128;
  // Dots whose result only goes around the loop into their own
  // accumulator (the attention backward's dV and dK): chained as a K
  // loop's wgmmas are (wgmmas into one accumulator are ordered), with no
  // wait in the loop and one after it. (Where products are issued early,
  // the waits of the others cover them, and chaining only held registers
  // longer: 168 -> 194 at head dim 64 on 4 warps.)
  SmallVector<int64_t> chained(staged.size(), -1); // the iteration argument
  for (auto [n, r] : llvm::enumerate(staged)) {
    if (issueEarly)
      break;
    kd::DotOp d = r.dot;
    if (!d->hasOneUse() || !isa<scf::YieldOp>(*d->user_begin()))
      continue;
    unsigned i = d->use_begin()->getOperandNumber();
    BlockArgument arg = loop.getRegionIterArgs()[i];
    if (arg.hasOneUse() && d.getAcc() == arg)
      chained[n] = i;
  }
  // The last dot's result only goes around the loop (yield operand i),
  // read after the first dot in the next iteration (attention's acc, read
  // by acc * alpha): its wait moves there, after the first dot's (wgmmas
  // complete in order), so that it runs beside the next iteration's
  // barrier, copies and first product.
  int64_t deferred = -1; // the iteration argument, if any
  if (staged.size() >= 2 && chained.back() < 0) {
    kd::DotOp last = staged.back().dot, first = staged.front().dot;
    if (last->hasOneUse() && isa<scf::YieldOp>(*last->user_begin())) {
      unsigned i = last->use_begin()->getOperandNumber();
      BlockArgument arg = loop.getRegionIterArgs()[i];
      if (llvm::all_of(arg.getUsers(), [&](Operation *user) {
            Operation *at = body->findAncestorOpInBlock(*user);
            return at && first->isBeforeInBlock(at);
          }))
        deferred = i;
    }
  }
  // A deferred or chained dot's slot may still be read while the next
  // iteration refills one: one slot more. The ring within shared memory
  // (leaving room for the scratch of the other ops): the extra slot goes
  // first, then stages, down to 2.
  auto dropExtraSlot = [&] {
    deferred = -1;
    for (int64_t &c : chained)
      c = -1;
  };
  auto extraSlot = [&] {
    return deferred >= 0 || llvm::any_of(chained, [](int64_t c) { return c >= 0; });
  };
  const int64_t budget = kd::kMaxSharedMemory - 16 * 1024;
  // With warp specialization the deferred wait is what lets a producer
  // warpgroup take the copies (producerFor): there stages go first
  // (attention's 128x128 blocks at head dim 128: 64 KB a slot, 2 stages
  // and the extra slot).
  if (producerMayTake(byTma, specialize, warps) && deferred >= 0)
    while (stages > 2 && (stages + 1) * slotBytes > budget)
      --stages;
  if (extraSlot() && (stages + 1) * slotBytes > budget)
    dropExtraSlot();
  // Nor where the extra slot would leave one program on an SM instead of
  // two: a 4-warp kernel's registers allow two (attention's 64x64 blocks
  // at d128: 96 KB a program, 128 KB with the slot: 1.2x slower on the
  // H100); 8-warp ones take most of the registers anyway.
  auto programsPerSM = [](int64_t bytes) {
    return (228 * 1024) / (bytes + 4 * 1024);
  };
  if (extraSlot() && warps <= 4 &&
      programsPerSM((stages + 1) * slotBytes) < 2 &&
      programsPerSM(stages * slotBytes) >= 2)
    dropExtraSlot();
  while (stages > 2 && stages * slotBytes > budget)
    --stages;
  if (stages * slotBytes > budget)
    return std::nullopt;
  RegisterDotPlan plan;
  plan.staged = std::move(staged);
  plan.slotBytes = slotBytes;
  plan.slices = std::move(slices);
  plan.byTma = byTma;
  plan.issueEarly = issueEarly;
  plan.chained = std::move(chained);
  plan.deferred = deferred;
  plan.stages = stages;
  plan.slots = extraSlot() ? stages + 1 : stages;
  return plan;
}

/// A producer warpgroup issues the TMA copies (`specialize`, 8 warps):
/// where the last product's wait is deferred (its slot is then released
/// in the next iteration) and the copies' offsets follow from the
/// induction variable and ops of the kernel's entry the producer can
/// repeat. Every loop of the kernel with dots must be one of the entry
/// block's whose Bs TMA stages (the causal kernel's two, or whole blocks
/// and a partial last one): the producer runs their copies one loop after
/// the other through one ring, which the consumers' loops continue.
/// `ring`: the kernel's producer ring so far, if any. None where the
/// copies stay with the consumers.
std::optional<ProducerDependencies>
producerFor(func::FuncOp func, scf::ForOp loop, const RegisterDotPlan &plan,
            const TmaSchedules::ProducerRing *ring, StringRef chip,
            int64_t warps, bool specialize) {
  const RegisterDotPlan &p = plan;
  if (!producerMayTake(p.byTma, specialize, warps) || p.deferred < 0 ||
      !p.slices->usedArgs.empty() ||
      !llvm::all_of(p.chained, [](int64_t c) { return c < 0; }))
    return std::nullopt;
  bool allLoopsTake =
      !func.walk([&](scf::ForOp other) {
             if (other == loop || other.getOps<kd::DotOp>().empty())
               return WalkResult::advance();
             return tmaRegisterDotLoads(other, chip, warps, p.stages).empty()
                        ? WalkResult::interrupt()
                        : WalkResult::advance();
           })
           .wasInterrupted();
  // A new producer only from the kernel's first loop with dots (its copies
  // start at the kernel's entry: no loop before may use the ring's slots
  // and barriers), also before the tile loop around it, if any.
  bool firstLoop = true;
  for (Operation *at = loop; at && at != func; at = at->getParentOp())
    for (Operation *op = at->getPrevNode(); op && firstLoop;
         op = op->getPrevNode())
      op->walk([&](scf::ForOp other) {
        if (!other.getOps<kd::DotOp>().empty())
          firstLoop = false;
      });
  // A persistent kernel's loops (in a tile loop of the kernel's entry): the
  // producer walks the tiles too. A ring's loops are all in one tile loop,
  // or all in the entry.
  auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
  bool sameTiles =
      !ring ||
      (ring->tiles ? outer.getOperation() == ring->consumerTiles : !outer);
  if (!allLoopsTake || !sameTiles ||
      !(ring ? ring->slots == p.slots && ring->slotBytes == p.slotBytes
             : firstLoop))
    return std::nullopt;
  SmallVector<Value> needed = {loop.getLowerBound(), loop.getUpperBound(),
                               loop.getStep()};
  if (outer)
    llvm::append_range(needed,
                       ValueRange{outer.getLowerBound(), outer.getUpperBound(),
                                  outer.getStep()});
  for (Operation *op : p.slices->slice)
    llvm::append_range(needed, op->getOperands());
  for (const RegisterDot &r : p.staged)
    if (kd::DescriptorLoadOp desc = r.desc; !r.shared)
      llvm::append_range(needed, desc.getOffsets());
  return producerDependencies(func, loop, outer, needed);
}

/// Where the loop's products (`issued`, in the body's order; the copies'
/// last op `commit`) are issued and waited for: each as early as its
/// operands allow where the plan says so, each wait before the first op
/// that reads the product (the last product's, where deferred, in the next
/// iteration). Returns that deferred wait (null if none).
Operation *placeProducts(IRRewriter &rewriter, scf::ForOp loop,
                         const RegisterDotPlan &plan,
                         ArrayRef<kd::DotStagedOp> issued, Operation *commit) {
  Block *body = loop.getBody();
  // Each product is issued as early as its operands allow (after this
  // iteration's copies are started): the backward's v @ do.T, which reads
  // only the staging, goes right after k @ q.T, and runs while exp2 makes
  // P from the first. Products issued at one place keep their order.
  llvm::SmallPtrSet<Operation *, 4> hoisted;
  for (kd::DotStagedOp dot :
       plan.issueEarly ? issued : ArrayRef<kd::DotStagedOp>()) {
    Operation *at = commit;
    for (Value v : dot->getOperands())
      if (Operation *def = v.getDefiningOp())
        if (Operation *anc = body->findAncestorOpInBlock(*def);
            anc && at->isBeforeInBlock(anc))
          at = anc;
    while (at->getNextNode() && hoisted.count(at->getNextNode()))
      at = at->getNextNode();
    if (at != dot && at->isBeforeInBlock(dot))
      dot->moveAfter(at);
    hoisted.insert(dot);
  }
  // The products issued in the body after `from` (the loop's start if
  // null) and before `to`.
  auto issuedBetween = [&](Operation *from, Operation *to) {
    int64_t n = 0;
    for (kd::DotStagedOp dot : issued)
      n += (!from || from->isBeforeInBlock(dot)) && dot->isBeforeInBlock(to);
    return n;
  };
  // Before the first op that reads `value` in the body: a wait for it,
  // which the ops from there on read. What the body computes in between
  // (the backward's exp2 beside v @ do.T, attention's dropout decisions)
  // runs while the tensor cores work. wgmmas complete in order: with the
  // products issued after it (`pending`) still allowed to run, it is
  // complete.
  auto waitBeforeFirstUse = [&](Value value,
                                Operation *issuedAt) -> Operation * {
    Operation *first = nullptr;
    for (Operation *user : value.getUsers()) {
      Operation *at = body->findAncestorOpInBlock(*user);
      if (at && (!first || at->isBeforeInBlock(first)))
        first = at;
    }
    if (!first)
      return nullptr;
    rewriter.setInsertionPoint(first);
    int64_t pending = issuedBetween(issuedAt, first);
    auto wait = kd::DotWaitOp::create(rewriter, value.getLoc(),
                                      cast<RankedTensorType>(value.getType()),
                                      value, pending);
    value.replaceAllUsesExcept(wait.getResult(), wait);
    return wait;
  };
  for (auto [n, issuedDot] : llvm::enumerate(issued)) {
    if (plan.chained[n] >= 0 || (plan.deferred >= 0 && n + 1 == issued.size()))
      continue;
    kd::DotStagedOp dot = issuedDot;
    waitBeforeFirstUse(dot.getResult(), dot);
  }
  // The previous iteration's last product: every product of this
  // iteration was issued after it.
  if (plan.deferred < 0)
    return nullptr;
  return waitBeforeFirstUse(loop.getRegionIterArgs()[plan.deferred], nullptr);
}

} // namespace

bool stageRegisterDots(func::FuncOp func, scf::ForOp loop,
                       ArrayRef<kd::DotOp> dots, StringRef chip, int64_t warps,
                       int64_t stages, TmaSchedules &tma, bool specialize) {
  if (chip != "sm_90a" || stages < 2 || dots.empty())
    return false;
  std::optional<RegisterDotPlan> plan =
      planRegisterDots(func, loop, dots, chip, warps, stages, specialize);
  if (!plan)
    return false;
  SmallVector<RegisterDot, 2> &staged = plan->staged;
  std::optional<LoadSlices> &slices = plan->slices;
  const int64_t slotBytes = plan->slotBytes;
  const bool byTma = plan->byTma;
  ArrayRef<int64_t> chained = plan->chained;
  const int64_t deferred = plan->deferred;
  IRRewriter rewriter(loop.getContext());
  Location loc = loop.getLoc();
  const int64_t S = plan->stages, D = S - 1, slots = plan->slots;
  TmaSchedules::ProducerRing *ring = nullptr;
  if (auto it = tma.producerRings.find(func); it != tma.producerRings.end())
    ring = &it->second;
  auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
  std::optional<ProducerDependencies> deps =
      producerFor(func, loop, *plan, ring, chip, warps, specialize);
  const bool byProducer = deps.has_value();
  if (ring && !byProducer) {
    // An earlier loop's copies are the producer's: this one cannot take
    // another schedule (its barriers are the ring's).
    bool inOtherTiles =
        ring->tiles ? outer.getOperation() != ring->consumerTiles : bool(outer);
    loop.emitError() << "warp specialization: this loop cannot share the "
                        "producer warpgroup of the kernel's earlier loop ("
                     << (inOtherTiles
                             ? "the producer walks the tile loop of the "
                               "earlier loop, and this loop is not in it"
                             : "its products' staging differs, or its "
                               "copies' offsets need values the producer "
                               "cannot compute")
                     << ")";
    tma.failed = true;
    return true;
  }
  // Starts the copies of the iteration `map` describes into `slot`.
  auto issue = [&](IRMapping &map, Value more, Value slot) {
    for (RegisterDot &r : staged) {
      if (r.shared)
        continue;
      if (byTma) {
        // One thread expects B's bytes on the slot's barrier and copies
        // its panels (the tensor map's boxes) into B's place in the slot.
        Value tensorMap = tma.tensorMap(
            func, r.desc.getDesc().getDefiningOp<kd::MakeTensorDescOp>(),
            r.swizzle);
        SmallVector<Value> offsets;
        for (Value o : r.desc.getOffsets())
          offsets.push_back(map.lookupOrDefault(o));
        kd::TmaStageOp::create(
            rewriter, r.desc.getLoc(), tensorMap, offsets, more, slot,
            /*operand=*/1, r.shape, /*producer=*/byProducer,
            /*transposed=*/bool(r.trans), /*multicast=*/1,
            rewriter.getDenseI64ArrayAttr({r.offset, slotBytes}));
        continue;
      }
      Value ptr = map.lookupOrDefault(r.load.getPtr());
      Value mask = r.load.getMask() ? map.lookupOrDefault(r.load.getMask())
                                    : Value();
      Value guarded = guardMask(rewriter, loc, mask, more, ptr.getType());
      kd::AsyncStageOp::create(
          rewriter, r.load.getLoc(), ptr, guarded, slot, /*operand=*/1, r.shape,
          kd::DotEngine::WGMMA,
          /*transposed=*/bool(r.trans),
          rewriter.getDenseI64ArrayAttr({r.offset, slotBytes}));
    }
  };
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                        v);
  };
  int64_t copied =
      llvm::count_if(staged, [](RegisterDot &r) { return !r.shared; });
  if (byProducer) {
    bool fresh = !ring;
    ring = &tma.produceRegisterDots(rewriter, func, loop, outer, *slices, *deps,
                                    slots, slotBytes,
                                    /*arrivals=*/copied, warps, issue);
    if (fresh && outer) {
      // The consumers' tile loop carries the ring's counters from one
      // tile's last loop to the next tile's first (set below, after each
      // loop).
      rewriter.setInsertionPoint(outer);
      SmallVector<Value> zeros = {constant(0), constant(0)};
      auto grown = outer.replaceWithAdditionalYields(
          rewriter, zeros, /*replaceInitOperandUsesInLoop=*/false,
          [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
            return SmallVector<Value>(args.begin(), args.end());
          });
      if (failed(grown)) {
        outer.emitError() << "warp specialization: could not carry the "
                             "ring's counters through this tile loop";
        tma.failed = true;
        return true;
      }
      outer = cast<scf::ForOp>(grown->getOperation());
      unsigned n = outer.getNumRegionIterArgs();
      ring->consumerTiles = outer;
      ring->consumerTileArg = n - 2;
      ring->consumerSlot = outer.getRegionIterArgs()[n - 2];
      ring->consumerPhase = outer.getRegionIterArgs()[n - 1];
    }
  } else {
    rewriter.setInsertionPoint(loop);
    // TMA: an mbarrier a slot, which each copy of a slot's Bs arrives on
    // (initialized before each staged loop: the previous one's copies were
    // all waited for, and its drain below has every thread past its
    // waits).
    if (byTma)
      kd::TmaInitOp::create(rewriter, loc, slots, /*arrivals=*/copied);
    copyPrologue(rewriter, loop, *slices, D, issue, /*commit=*/!byTma);
  }
  // Before the first dot: wait for this iteration's Bs (and for every
  // thread to be done with the slot refilled next), start iteration
  // k + D's.
  rewriter.setInsertionPoint(staged.front().dot);
  if (!byTma)
    kd::AsyncWaitOp::create(rewriter, loc, D - 1, /*async_proxy=*/true);
  Value slot, phase, aheadSlot;
  if (byProducer) {
    // The slot and phase are carried (carrySlots replaces these); no
    // barrier: the warpgroups run apart.
    slot = constant(0);
    phase = constant(0);
    kd::TmaWaitOp::create(rewriter, loc, slot, phase, /*empty=*/false,
                          /*nosync=*/true);
  } else {
    Value index = loopIndex(rewriter, loop);
    slot = ringSlot(rewriter, loc, index, 0, slots);
    if (byTma) {
      phase = arith::AndIOp::create(
          rewriter, loc,
          arith::DivSIOp::create(rewriter, loc, index, constant(slots)),
          constant(1));
      kd::TmaWaitOp::create(rewriter, loc, slot, phase);
    }
    aheadSlot = ringSlot(rewriter, loc, index, D, slots);
  }
  if (!byTma)
    copyIteration(rewriter, loop, *slices, loop.getInductionVar(),
                  slices->currentArgs(loop), D, aheadSlot, issue);
  Operation *commit = &*std::prev(rewriter.getInsertionPoint());
  SmallVector<kd::DotStagedOp> issued;
  for (RegisterDot &r : staged) {
    rewriter.setInsertionPoint(r.dot);
    RankedTensorType aType = r.dot.getA().getType();
    Type element = aType.getElementType();
    auto dotStaged = kd::DotStagedOp::create(
        rewriter, r.dot.getLoc(), r.dot.getType(), r.dot.getAcc(), slot,
        aType.getDimSize(1), slots, kd::DotEngine::WGMMA,
        TypeAttr::get(element),
        /*b_k_major=*/bool(r.trans), r.dot.getA(),
        rewriter.getDenseI64ArrayAttr({r.offset, slotBytes}),
        /*a_place=*/nullptr, /*b_slot=*/Value());
    issued.push_back(dotStaged);
    rewriter.replaceOp(r.dot, dotStaged.getResult());
    if (r.trans)
      rewriter.eraseOp(r.trans);
  }
  // TMA: the copies of iteration k + D start right after the first
  // product is issued. One thread issues them (and waits out their
  // issue); before the product, its warpgroup's product would wait for it
  // (0.9x at head dim 128 on the H100).
  if (byTma && !byProducer) {
    rewriter.setInsertionPointAfter(issued.front());
    copyIteration(rewriter, loop, *slices, loop.getInductionVar(),
                  slices->currentArgs(loop), D, aheadSlot, issue,
                  /*commit=*/false);
  }
  for (RegisterDot &r : staged)
    if (!r.shared)
      rewriter.eraseOp(r.loaded());
  // The previous iteration's last product, waited for in this iteration
  // (placeProducts): with a producer warp, that product was the last to
  // read the previous iteration's slot, which goes back to the producer
  // (each warp's lane 0 arrives on its empty barrier; not in the first
  // iteration).
  Operation *deferredWait =
      placeProducts(rewriter, loop, *plan, issued, commit);
  if (byProducer && deferredWait) {
    rewriter.setInsertionPointAfter(deferredWait);
    Value prev = previousSlot(rewriter, loc, slot, slots);
    Value notFirst =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                              loop.getInductionVar(), loop.getLowerBound());
    kd::TmaReleaseOp::create(rewriter, loc, prev, notFirst,
                             /*cluster_size=*/1);
  }
  SmallVector<unsigned> waits;
  for (int64_t i : chained)
    if (i >= 0)
      waits.push_back(unsigned(i));
  if (deferred >= 0)
    waits.push_back(unsigned(deferred));
  drainAfterLoop(rewriter, loop, waits);
  Operation *drained = &*std::prev(rewriter.getInsertionPoint());
  SlotStart start;
  if (byProducer && ring->consumerSlot) {
    start.slot = ring->consumerSlot;
    start.phase = ring->consumerPhase;
  }
  scf::ForOp grown =
      carrySlots(rewriter, loop, slot, aheadSlot, phase, D, slots, start);
  if (byProducer) {
    if (!grown) {
      loop.emitError() << "warp specialization: could not carry the ring's "
                          "counters through this loop";
      tma.failed = true;
      return true;
    }
    // The loop's last slot goes back to the producer once its last product
    // is waited for (the drain), for a later loop's copies; if it ran.
    unsigned n = grown.getNumResults();
    Value last = grown.getResult(n - 2);
    ring->consumerSlot = last;
    ring->consumerPhase = grown.getResult(n - 1);
    if (ring->tiles) {
      // The next tile starts where this loop ends (the last loop's set
      // last).
      Operation *yield =
          ring->consumerTiles->getRegion(0).front().getTerminator();
      yield->setOperand(ring->consumerTileArg, ring->consumerSlot);
      yield->setOperand(ring->consumerTileArg + 1, ring->consumerPhase);
    }
    rewriter.setInsertionPointAfter(drained);
    Value prev = previousSlot(rewriter, loc, last, slots);
    Value ran =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                              grown.getLowerBound(), grown.getUpperBound());
    kd::TmaReleaseOp::create(rewriter, loc, prev, ran, /*cluster_size=*/1);
  }
  return true;
}

} // namespace kite::detail
