//===- StagedLoads.cpp - cp.async staging of a dot's computed operands ----===//
//
// The K loops whose dot reads operands computed in the loop from loads
// (dot_scaled: e4m3 bytes upcast and multiplied by their scales; any
// elementwise function of loaded blocks): neither operand is a load the
// operand stagings can copy, so without this each iteration would load,
// convert and multiply with the loads' latency in full view. Instead, as
// Triton pipelines such loads, the loads the operands are computed from are
// issued iterations ahead:
//   - a load whose rows copy in groups of 4 bytes or more goes through
//     shared memory: kite.async_copy into a ring of S slots, S - 1
//     iterations ahead, and kite.staged_load in its place reads the block
//     back in whatever layout its users give it (wgmma's register layout
//     for A, one column a thread for a scaled B);
//   - a small load that cannot be copied so (the scales, 2 bytes a row at
//     BLOCK_K = 64) is loaded into registers one iteration ahead and
//     carried around the loop (as kite-pipeline-loads does for a dot's
//     direct operands).
//
//   prologue:  copies of iterations 0 .. D-1 into slots 0 .. D-1 (D = S - 1),
//              one commit each; the registers' loads of iteration 0
//   loop k:    async_wait D-1            (iteration k's blocks landed, every
//                                         thread done reading slot k - 1)
//              copies of iteration k + D into slot (k + D) % S; commit
//              the registers' loads of iteration k + 1
//              staged_load slot k % S    (in each load's place)
//              ... the conversions and the dot, as before
//   after:     async_wait 0
// The dot itself stays a dot of register operands (chooseRegisterEngines:
// wgmma on sm_90a, A from registers, B through the staging), except for
// the asynchronous product (sm_90a; f16, bf16, fp8, tf32): where A is one
// of the copied loads (it lands as wgmma's K-major A: blockStagingLayout;
// W8A16: A in f16, B int8 converted; fp8 x @ W with W K x N), the product
// reads A from the ring (S + 1 slots), the computed B is stored into a
// ring of two slots of its own (kite.stage_operand; K-major for fp8 and
// tf32, from the block or from the one it is the transpose of), and each
// product is waited for one iteration later, while the next B converts.
// A tf32 A loaded K x M and transposed is read from its slot into wgmma's
// register layout for A instead (the wgmmas take A from registers), and a
// B loaded N x K and transposed, which lands as wgmma's K-major B, is read
// by the product where it landed (beside an A read from the ring or from
// registers). A computed A (an fp8 A loaded K x M and transposed) is
// stored beside B the same way:
//   prologue:  copies of iterations 0 .. D-1; async_wait D-1
//   loop k:    copies of k + D -> slot (k + D) % (S + 1)
//              b = staged_load ...; b16 = the conversions
//              stage_operand b16 -> B's slot k % 2 (stores, proxy fence)
//              acc = dot_wait acc pending 0   (product k - 1)
//              async_wait D-1                 (k + 1's copies; the barrier)
//              acc = dot_staged acc slot k % (S + 1) b_slot k % 2
//   after:     async_wait 0; dot_wait acc pending 0
//
//===----------------------------------------------------------------------===//

#include "DotSchedules.h"
#include "LoopSlices.h"
#include "TmaOperands.h"

#include "kite/Analysis/AxisInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
namespace kd = mlir::kite;

namespace kite::detail {

namespace {

/// The loads of `body` that `dot`'s operands are computed from through
/// side-effect-free ops of the body, in body order.
SmallVector<kd::LoadOp> operandLoads(kd::DotOp dot, Block *body) {
  llvm::SetVector<kd::LoadOp> loads;
  llvm::SmallPtrSet<Operation *, 32> seen;
  SmallVector<Value> work = {dot.getA(), dot.getB()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body || !seen.insert(def).second)
      continue;
    if (auto load = dyn_cast<kd::LoadOp>(def)) {
      if (isa<RankedTensorType>(load.getType()))
        loads.insert(load);
      continue;
    }
    if (def->getNumRegions() || !isMemoryEffectFree(def))
      continue;
    for (Value operand : def->getOperands())
      work.push_back(operand);
  }
  SmallVector<kd::LoadOp> ordered(loads.begin(), loads.end());
  llvm::sort(ordered, [](kd::LoadOp a, kd::LoadOp b) {
    return a->isBeforeInBlock(b);
  });
  return ordered;
}

/// How a dot runs asynchronously (sm_90a): A read by wgmma from the copies'
/// ring (one of the copied loads), from registers (the transposition of a
/// copied block, read from its slot in wgmma's register layout for A) or
/// stored beside B; B read from the copies' ring (the transposition of a
/// copied N x K block, which lands as wgmma's K-major B) or stored into
/// the operands' ring by kite.stage_operand; each product waited for in
/// the next iteration.
struct AsyncProduct {
  unsigned carried; ///< the accumulator's iteration argument
  /// A's index among the copied loads (read from the copies' ring), or
  /// none: A is read from registers or stored into the operands' ring.
  std::optional<size_t> aLoad;
  /// The index among the copied loads of the block B is the transposition
  /// of (read K-major from the copies' ring), or none: B is stored.
  std::optional<size_t> bLoad;
  /// Whether A (the transposition of a copied K x M block) is read from
  /// registers.
  bool aInRegisters = false;
  /// A's and B's bytes in a slot of the operands' ring (two slots, after
  /// the copies' ring; 0: not stored).
  int64_t aBytes = 0, bBytes = 0;
  int64_t elemBytes = 2;
  /// Whether the blocks stored are the blocks the operands are the
  /// kite.trans of (an fp8 or tf32 A loaded K x M, B loaded N x K: stored
  /// K-major from their memory's order, as wgmma reads them), not the
  /// operands.
  bool aTransposed = false, bTransposed = false;
  /// Whether the product reads the copies' ring (which then takes a slot
  /// more: product k reads its slot while iteration k + 1 refills one).
  bool readsCopies() const { return aLoad || bLoad; }
};

/// Whether the product's store takes the block `operand` is the transpose
/// of: fp8 and tf32 (stored K-major from either order), read through a
/// kite.trans the dot alone reads.
bool storedTransposed(kd::DotOp dot, Value operand, int64_t elemBytes) {
  return elemBytes != 2 && transposedOperand(dot, operand);
}

/// The asynchronous form of `dot` in `body`, if it takes one: wgmma (the
/// shape splits into m64nN instructions over the warpgroups; f16, bf16,
/// fp8 or tf32 operands) and an accumulator that only goes around the
/// loop. A is one of:
///   - a load in the loop (`copied`) that lands in the ring as wgmma's
///     K-major A (blockStagingLayout: rows of a multiple of 32 bytes);
///   - tf32, the transposition of a copied K x M block: read from its slot
///     into wgmma's register layout for A (one element a register, so the
///     reads are the stores the operands' ring would take, without the
///     store, the fence and wgmma's read of it; fp8 would read four rows
///     a register);
///   - (with `storeComputedA`) computed in the loop by an op that is not
///     a load: stored into the operands' ring.
/// B, where A is not stored, is read from the copies' ring when it is the
/// transposition of a copied N x K block that lands as wgmma's K-major B;
/// else it is stored.
std::optional<AsyncProduct> asyncProduct(kd::DotOp dot, Block *body,
                                         ArrayRef<kd::LoadOp> copied,
                                         StringRef chip, int64_t warps,
                                         bool storeComputedA) {
  if (chip != "sm_90a")
    return std::nullopt;
  RankedTensorType aType = dot.getA().getType();
  Type element = aType.getElementType();
  SmallVector<int64_t> shape = dotShapeOf(dot);
  const int64_t M = shape[0], N = shape[1], K = shape[2];
  const int64_t eb = aType.getElementTypeBitWidth() / 8;
  std::optional<kd::WgmmaTile> tile = kd::WgmmaTile::choose(M, N, warps);
  if (!(element.isF16() || element.isBF16() || kd::isFp8(element) ||
        dot.isTf32()) ||
      dot.getB().getType().getElementType() != element || K * eb % 32 ||
      N % 16 || !tile)
    return std::nullopt;
  std::optional<unsigned> carried = carriedAccumulator(dot, body);
  if (!carried)
    return std::nullopt;
  AsyncProduct async{*carried};
  async.elemBytes = eb;
  // The index of the copied load `v` is, when it has no other user.
  auto copiedIndex = [&](Value v) -> std::optional<size_t> {
    auto load = v.getDefiningOp<kd::LoadOp>();
    const auto *it = llvm::find(copied, load);
    if (!load || it == copied.end() || !load->hasOneUse())
      return std::nullopt;
    return size_t(it - copied.begin());
  };
  // Whether a copied `block` lies in its slot as `layout` says.
  auto landsAs = [&](Value block, const kd::LinearLayout &layout) {
    return kd::blockStagingLayout(
               cast<RankedTensorType>(block.getType()).getShape(), eb) ==
           layout;
  };
  auto readB = [&]() {
    kd::TransOp trans = transposedOperand(dot, dot.getB());
    if (trans)
      if (std::optional<size_t> i = copiedIndex(trans.getSrc()))
        if (landsAs(trans.getSrc(),
                    kd::SwizzledStaging::get(M, N, K, eb, /*bKMajor=*/true)
                        .operandLayout(1, /*transposed=*/true))) {
          async.bLoad = i;
          return;
        }
    async.bTransposed = storedTransposed(dot, dot.getB(), eb);
    async.bBytes = llvm::alignTo(N * K * eb, 1024);
  };
  auto load = dot.getA().getDefiningOp<kd::LoadOp>();
  if (load) {
    std::optional<size_t> i = copiedIndex(load);
    if (!i || !landsAs(load, kd::SwizzledStaging::get(M, N, K, eb)
                                 .operandLayout(0)))
      return std::nullopt; // a load in another layout, or not copied
    async.aLoad = i;
    readB();
    return async;
  }
  kd::TransOp aTrans = transposedOperand(dot, dot.getA());
  if (eb == 4 && aTrans && copiedIndex(aTrans.getSrc()) &&
      tile->aLayout(K, eb)) {
    async.aInRegisters = true;
    readB();
    return async;
  }
  // A computed in the loop is stored too (with `storeComputedA`), B
  // beside it; not an A made before the loop (stored again each
  // iteration, it would cost more than it saves).
  Operation *def = dot.getA().getDefiningOp();
  if (!storeComputedA || !def || def->getBlock() != body)
    return std::nullopt;
  async.aTransposed = storedTransposed(dot, dot.getA(), eb);
  async.aBytes = llvm::alignTo(M * K * eb, 1024);
  async.bTransposed = storedTransposed(dot, dot.getB(), eb);
  async.bBytes = llvm::alignTo(N * K * eb, 1024);
  return async;
}

} // namespace

bool stageOperandLoads(func::FuncOp func, scf::ForOp loop, kd::DotOp dot,
                       StringRef chip, int64_t warps, int64_t stages,
                       bool storeComputedA, bool loadedOperands) {
  if (chipVersion(chip) < 80 || stages < 2)
    return false; // cp.async is sm_80's
  Block *body = loop.getBody();
  // Only where an operand is computed: a dot of two loads is the operand
  // stagings' (or stays as it is because they could not take it).
  auto loaded = [&](Value v) {
    auto load = v.getDefiningOp<kd::LoadOp>();
    return load && load->getBlock() == body;
  };
  if (loaded(dot.getA()) && loaded(dot.getB()) && !loadedOperands)
    return false;
  Type aElement = dot.getA().getType().getElementType();
  if (!(aElement.isF16() || aElement.isBF16() ||
        (chip == "sm_90a" && (kd::isFp8(aElement) || dot.isTf32()))))
    return false; // the register dot's tensor-core engines

  const int64_t threads = 32 * warps;
  kd::KiteTypeConverter conv(loop.getContext(), threads, func);
  kd::AxisInfoAnalysis axisInfo(func);
  SmallVector<kd::LoadOp> copied, carried;
  SmallVector<int64_t> offsets;
  int64_t slotBytes = 0;
  for (kd::LoadOp load : operandLoads(dot, body)) {
    auto ptrType = cast<RankedTensorType>(load.getPtr().getType());
    auto type = cast<RankedTensorType>(load.getType());
    Type element = type.getElementType();
    if (!element.isIntOrFloat() || element.isInteger(1))
      continue;
    int64_t eb = std::max(1u, element.getIntOrFloatBitWidth() / 8);
    // Without the load its pointers take the linear layout of their shape
    // (nothing else pulls their class): the copy's groups.
    if (zeroFilled(load) &&
        kd::swizzledCopyWidth(axisInfo, conv.getLayout(ptrType),
                              load.getPtr(), load.getMask(),
                              ptrType.getShape().back(), eb)) {
      copied.push_back(load);
      offsets.push_back(slotBytes);
      slotBytes += llvm::alignTo(kd::stagedBlockBytes(type), 128);
    } else if (type.getNumElements() <= 8 * threads) {
      carried.push_back(load);
    }
  }
  if (copied.empty())
    return false;
  // The asynchronous product: A first in the slot (1024-byte aligned, as
  // the swizzle works on address bits), the others after it; one slot more
  // than blocks in flight plus the one computed on (the product of
  // iteration k reads its slot while iteration k + 1 refills one). B's
  // staging takes a ring of two slots after the copies' ring (product k
  // reads slot k mod 2 until iteration k + 1 waits for it).
  std::optional<AsyncProduct> async =
      asyncProduct(dot, body, copied, chip, warps, storeComputedA);
  auto slotsFor = [&](int64_t stages) {
    return async && async->readsCopies() ? stages + 1 : stages;
  };
  // The ring's layout for the product (asynchronous or not): each copied
  // block's offset in a slot, and the slot's bytes.
  const SmallVector<int64_t> plainOffsets = offsets;
  const int64_t plainSlotBytes = slotBytes;
  auto place = [&]() {
    offsets = plainOffsets;
    slotBytes = plainSlotBytes;
    if (async && !async->readsCopies()) {
      slotBytes = llvm::alignTo(slotBytes, 1024);
    } else if (async) {
      // The blocks the product reads first, each on 1024 bytes (the
      // swizzle's atom), the others after them.
      auto read = [&](size_t i) {
        return i == async->aLoad || i == async->bLoad;
      };
      slotBytes = 0;
      for (bool first : {true, false})
        for (auto [i, load] : llvm::enumerate(copied)) {
          if (read(i) != first)
            continue;
          offsets[i] = slotBytes;
          slotBytes += llvm::alignTo(
              kd::stagedBlockBytes(cast<RankedTensorType>(load.getType())),
              first ? 1024 : 128);
        }
      slotBytes = llvm::alignTo(slotBytes, 1024);
    }
  };
  // The operands' ring: two slots of [A (when computed), B].
  auto ringBytes = [&](int64_t stages) {
    return slotsFor(stages) * slotBytes +
           (async ? 2 * (async->aBytes + async->bBytes) : 0);
  };
  // The ring beside the scratch of the kernel's other ops (the register
  // dot's staging among them, unless the product is asynchronous).
  int64_t scratch = 0, otherScratch = 0;
  func.walk([&](Operation *op) {
    int64_t bytes = kd::sharedMemoryBytes(op);
    scratch = std::max(scratch, bytes);
    if (op != dot.getOperation())
      otherScratch = std::max(otherScratch, bytes);
  });
  auto fits = [&](int64_t stages) {
    int64_t room = llvm::alignTo(async ? otherScratch : scratch, 1024);
    return room + ringBytes(stages) <= kd::kMaxSharedMemory;
  };
  // The most stages up to the asked ones (at least 2) whose rings fit.
  const int64_t asked = stages;
  auto plan = [&] {
    place();
    stages = asked;
    while (stages > 2 && !fits(stages))
      --stages;
    return fits(stages);
  };
  // The asynchronous product where its rings fit (its own ring and A's
  // extra slot cost room), else the register dot's.
  bool fit = plan();
  if (!fit && async) {
    async.reset();
    fit = plan();
  }
  if (!fit)
    return false;
  SmallVector<Operation *> all(copied.begin(), copied.end());
  all.append(carried.begin(), carried.end());
  if (!LoadSlices::get(loop, ArrayRef<Operation *>(all)))
    return false;

  IRRewriter rewriter(loop.getContext());
  Location loc = loop.getLoc();
  Type i32 = rewriter.getI32Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(rewriter, loc, i32, v).getResult();
  };

  // The registers' loads, one iteration ahead (the loop grows; the body
  // block and its ops move with it).
  if (!carried.empty()) {
    auto slices = LoadSlices::get(loop, carried);
    auto loadAt = [&](IRMapping &map, Value cond) {
      return cloneGuardedLoads(rewriter, loc, slices->slice, carried, map,
                               cond);
    };
    rewriter.setInsertionPoint(loop);
    auto [first, lb] = slices->ahead(rewriter, loop, loop.getLowerBound(),
                                     slices->initialArgs(loop), 0);
    SmallVector<Value> prologue = loadAt(
        first, arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                     lb, loop.getUpperBound()));
    rewriter.setInsertionPointToStart(body);
    auto [next, nextIv] = slices->ahead(rewriter, loop, loop.getInductionVar(),
                                        slices->currentArgs(loop), 1);
    SmallVector<Value> ahead = loadAt(
        next, arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                    nextIv, loop.getUpperBound()));
    auto grown = loop.replaceWithAdditionalYields(
        rewriter, prologue, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return ahead;
        });
    if (failed(grown))
      return false; // nothing of the body changed but unused clones
    loop = cast<scf::ForOp>(grown->getOperation());
    for (auto [load, arg] :
         llvm::zip(carried, loop.getRegionIterArgs().take_back(carried.size()))) {
      load.getResult().replaceAllUsesWith(arg);
      rewriter.eraseOp(load);
    }
  }

  // The copies, S - 1 iterations ahead.
  auto slices = LoadSlices::get(loop, copied);
  if (!slices)
    return false; // (cannot fail: the same slices as above)
  const int64_t S = stages, D = S - 1, slots = slotsFor(S);
  auto issue = [&](IRMapping &map, Value more, Value slot) {
    for (auto [load, offset] : llvm::zip(copied, offsets)) {
      Value ptr = map.lookupOrDefault(load.getPtr());
      Value mask = load.getMask() ? map.lookupOrDefault(load.getMask())
                                  : Value();
      kd::AsyncCopyOp::create(
          rewriter, load.getLoc(), ptr,
          guardMask(rewriter, loc, mask, more, ptr.getType()), slot,
          rewriter.getDenseI64ArrayAttr({offset, slotBytes}),
          rewriter.getI64IntegerAttr(slots));
    }
  };
  rewriter.setInsertionPoint(loop);
  copyPrologue(rewriter, loop, *slices, D, issue);
  // The wait for iteration k's copies (and the barrier after which every
  // thread is done with slot k - 1): at the loop's top; for the
  // asynchronous product, before the loop and then at the end of each
  // iteration (for iteration k + 1's), where its barrier also publishes
  // the stored B and follows the wait for product k - 1: one barrier an
  // iteration.
  if (async) {
    kd::AsyncWaitOp::create(rewriter, loc, D - 1);
    rewriter.setInsertionPointToStart(loop.getBody());
  } else {
    rewriter.setInsertionPointToStart(loop.getBody());
    kd::AsyncWaitOp::create(rewriter, loc, D - 1);
  }
  Value index = loopIndex(rewriter, loop);
  Value slot = ringSlot(rewriter, loc, index, 0, slots);
  Value aheadSlot = ringSlot(rewriter, loc, index, D, slots);
  copyIteration(rewriter, loop, *slices, loop.getInductionVar(),
                slices->currentArgs(loop), D, aheadSlot, issue);
  for (auto [i, load] : llvm::enumerate(copied)) {
    if (async && (i == async->aLoad || i == async->bLoad))
      continue; // read by the product from its slot
    rewriter.setInsertionPoint(load);
    rewriter.replaceOpWithNewOp<kd::StagedLoadOp>(
        load, load.getType(), slot,
        rewriter.getDenseI64ArrayAttr({offsets[i], slotBytes}),
        rewriter.getI64IntegerAttr(slots));
  }
  if (async) {
    // The stored operands into their slot (stores and a proxy fence); the
    // wait for product k - 1, which ran while these converted; the wait
    // for iteration k + 1's copies and the barrier (every thread's
    // operands stored, every warpgroup's product k - 1 done: the slot it
    // read may be refilled at the next iteration's top); then product k,
    // issued asynchronously.
    rewriter.setInsertionPoint(dot);
    Location at = dot.getLoc();
    SmallVector<int64_t> shape = dotShapeOf(dot);
    // The operands' ring: [A (when stored), B (when stored)] a slot.
    const int64_t start = slots * slotBytes;
    const int64_t operandSlot = async->aBytes + async->bBytes;
    Value operandIndex;
    if (operandSlot)
      operandIndex = arith::AndIOp::create(rewriter, loc, index, constant(1));
    // The block a store takes: the operand or its transpose's source
    // (the operands as they are now: a copied load is a staged_load).
    auto stored = [&](Value operand, bool transposed) {
      return transposed ? operand.getDefiningOp<kd::TransOp>().getSrc()
                        : operand;
    };
    auto unit = [&](bool on) {
      return on ? rewriter.getUnitAttr() : UnitAttr();
    };
    auto placeAt = [&](int64_t offset, int64_t bytes) {
      return rewriter.getDenseI64ArrayAttr({offset, bytes});
    };
    auto store = [&](Value value, int operand, DenseI64ArrayAttr where,
                     bool transposed) {
      kd::StageOperandOp::create(rewriter, at, stored(value, transposed),
                                 operandIndex, where,
                                 rewriter.getI64IntegerAttr(2),
                                 rewriter.getI32IntegerAttr(operand),
                                 rewriter.getDenseI64ArrayAttr(shape),
                                 unit(transposed));
    };
    // A: in the copies' slot, in registers, or stored.
    Value aSlot = slot, aRegs;
    DenseI64ArrayAttr aPlace;
    if (async->aLoad) {
      aPlace = placeAt(offsets[*async->aLoad], slotBytes);
    } else if (async->aInRegisters) {
      aRegs = dot.getA();
    } else {
      aPlace = placeAt(start, operandSlot);
      aSlot = operandIndex;
      store(dot.getA(), 0, aPlace, async->aTransposed);
    }
    // B: in the copies' slot (the dot's slot: A is not stored), or stored
    // into a ring of its own (b_slot).
    DenseI64ArrayAttr bPlace;
    Value bSlot;
    if (async->bLoad) {
      bPlace = placeAt(offsets[*async->bLoad], slotBytes);
    } else {
      bPlace = placeAt(start + async->aBytes, operandSlot);
      bSlot = operandIndex;
      if (aRegs)
        aSlot = operandIndex; // (the slot then names B's ring alone)
      store(dot.getB(), 1, bPlace, async->bTransposed);
    }
    Value done =
        kd::DotWaitOp::create(rewriter, at, dot.getType(), dot.getAcc(), 0);
    kd::AsyncWaitOp::create(rewriter, loc, D - 1);
    Type element = dot.getA().getType().getElementType();
    // (wgmma reads fp8 and tf32 K-major only: their B is stored so, and a
    // B read from the copies' ring is.)
    auto staged = kd::DotStagedOp::create(
        rewriter, at, dot.getType(), done, aSlot, shape[2], slots,
        kd::DotEngine::WGMMA, TypeAttr::get(element),
        /*b_k_major=*/async->elemBytes != 2 || async->bLoad, aRegs, bPlace,
        aPlace, bSlot);
    // (The transpositions the stores and the ring's reads took in their
    // place, and the loads the product reads where they landed.)
    SmallVector<kd::TransOp, 2> transposes;
    for (Value operand : {dot.getA(), dot.getB()})
      if (auto trans = operand.getDefiningOp<kd::TransOp>())
        transposes.push_back(trans);
    rewriter.replaceOp(dot, staged.getResult());
    for (kd::TransOp trans : transposes)
      if (trans->use_empty())
        rewriter.eraseOp(trans);
    for (std::optional<size_t> read : {async->aLoad, async->bLoad})
      if (read)
        rewriter.eraseOp(copied[*read]);
  }
  SmallVector<unsigned, 1> waits;
  if (async)
    waits.push_back(async->carried);
  drainAfterLoop(rewriter, loop, waits);
  carrySlots(rewriter, loop, slot, aheadSlot, Value(), D, slots);
  return true;
}

} // namespace kite::detail
