//===- StageDotOperands.cpp - cp.async pipelining of a K loop's dot --------===//
//
// kite-stage-dot-operands: see Passes.td.
//
// With S slots (kite.num_stages, default kDotStages = 3; 1 disables the
// pass) and D = S - 1 blocks in flight:
//   prologue:  stage(0) -> slot 0; commit; ... stage(D-1) -> slot D-1; commit
//   loop k:    async_wait D-1      (block k landed; everyone is done with
//                                   the slot about to be refilled)
//              stage(k+D) -> slot (k+D) % S; commit   (masked off past the end)
//              acc = dot_staged acc, slot k % S
//   after:     async_wait 0
// One barrier per iteration; the global loads no longer pass through
// registers, which leaves them to the accumulator and the operand fragments.
//
//===----------------------------------------------------------------------===//

#include "LoopSlices.h"
#include "TmaOperands.h"

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Pipeline/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SetVector.h"

#include <map>

namespace kite {
#define GEN_PASS_DECL_STAGEDOTOPERANDS
#define GEN_PASS_DEF_STAGEDOTOPERANDS
#include "kite/Pipeline/Passes.h.inc"
} // namespace kite

using namespace mlir;
namespace kd = mlir::kite;
using ::kite::detail::guardMask;

namespace {

/// A load of blocks of `element` in `body` with one use (the dot), whose
/// masked-off elements are 0 (or that has no mask).
kd::LoadOp stageableLoad(Value v, Block *body, Type element) {
  auto load = v.getDefiningOp<kd::LoadOp>();
  if (!load || load->getBlock() != body || !load->hasOneUse())
    return {};
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || type.getElementType() != element)
    return {};
  if (Value other = load.getOther()) {
    DenseFPElementsAttr dense;
    if (!matchPattern(other, m_Constant(&dense)) || !dense.isSplat() ||
        !dense.getSplatValue<APFloat>().isPosZero())
      return {};
  }
  return load;
}

struct StageDotOperands
    : ::kite::impl::StageDotOperandsBase<StageDotOperands> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!kd::isKernel(func))
        continue;
      int64_t warps = numWarps;
      if (auto attr = func->getAttrOfType<IntegerAttr>(
              kd::KiteDialect::getNumWarpsAttrName()))
        warps = attr.getInt();
      int64_t stages = kd::kDotStages;
      if (auto attr = func->getAttrOfType<IntegerAttr>(
              kd::KiteDialect::getNumStagesAttrName()))
        stages = attr.getInt();
      if (stages < 2)
        continue; // num_stages = 1: no copies in flight, nothing to stage
      kd::KiteTypeConverter conv(ctx, 32 * warps, func);
      SmallVector<scf::ForOp> loops;
      func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops)
        stage(func, loop, conv, warps, stages);
    }
  }

  /// The compute capability of the target chip (sm_90a: 90), 0 if unknown.
  int64_t chipVersion() const {
    StringRef name = chip;
    unsigned version = 0;
    if (!name.consume_front("sm_") ||
        name.take_while(llvm::isDigit).getAsInteger(10, version))
      return 0;
    return version;
  }

  /// Whether both of `loads` (the operands of `dot`, whose result takes
  /// `tile`'s layout) can be copied with cp.async into the swizzled staging.
  bool copyable(func::FuncOp func, kd::DotOp dot, ArrayRef<kd::LoadOp> loads,
                const kd::KiteTypeConverter &conv,
                const kd::BlockedLayout &tile, int64_t elemBytes) {
    kd::AxisInfoAnalysis axisInfo(func);
    for (kd::LoadOp load : loads) {
      auto type = cast<RankedTensorType>(load.getPtr().getType());
      // The layout the pointers will have: the accumulator's when they
      // share its layout class (KiteTypeConverter::getLayout(Value)), else
      // the linear one of their shape. (The lowering separates shared
      // leaves first, so its classes are no coarser than these.)
      kd::BlockedLayout layout =
          conv.shareLayout(load.getPtr(), dot.getResult())
              ? tile
              : conv.getLayout(load.getPtr());
      if (!kd::swizzledCopyWidth(axisInfo, layout, load.getPtr(),
                                 load.getMask(), type.getDimSize(1),
                                 elemBytes))
        return false;
    }
    return true;
  }

  /// The engine `dot`, fed by `loads`, runs on:
  ///   - wgmma: an sm_90a target, f16 or bf16 operands, a shape that splits
  ///     into m64nNk16 instructions over the warpgroups;
  ///   - mma (mma.sync): an sm_80+ target, f16 or bf16 operands or f32 ones
  ///     multiplied as tf32, a shape that splits into 16x16 blocks of
  ///     m16n8 instructions over the warps;
  ///   - fma otherwise (f32 operands on the register-tiled path).
  /// The tensor-core engines also need operand blocks that cp.async can
  /// copy in groups of at least 4 bytes into the swizzled staging.
  std::optional<kd::DotEngine>
  chooseEngine(func::FuncOp func, kd::DotOp dot, ArrayRef<kd::LoadOp> loads,
               const kd::KiteTypeConverter &conv, int64_t warps) {
    RankedTensorType aType = dot.getA().getType(), bType = dot.getB().getType();
    Type element = aType.getElementType();
    int64_t M = aType.getDimSize(0), K = aType.getDimSize(1),
            N = bType.getDimSize(1);
    bool half = element.isF16() || element.isBF16();
    bool tf32 = element.isF32() &&
                dot.getPrecision() == kd::InputPrecision::TF32;
    int64_t version = chipVersion();
    if (chip == "sm_90a" && half && K % 16 == 0)
      if (auto tile = kd::WgmmaTile::choose(M, N, warps))
        if (copyable(func, dot, loads, conv, tile->layout(), 2))
          return kd::DotEngine::WGMMA;
    if (version >= 80 && (half || tf32) && K % (tf32 ? 8 : 16) == 0)
      if (auto tile = kd::MmaTile::choose(M, N, warps))
        if (copyable(func, dot, loads, conv, tile->layout(), tf32 ? 4 : 2))
          return kd::DotEngine::MMA;
    if (element.isF32() &&
        kd::isRegisterTiledDot(aType, bType, dot.getType(), conv))
      return kd::DotEngine::FMA;
    return std::nullopt;
  }

  void stage(func::FuncOp func, scf::ForOp loop,
             const kd::KiteTypeConverter &conv, int64_t warps,
             int64_t stages) {
    Block *body = loop.getBody();
    APInt step;
    if (!matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
        !step.isStrictlyPositive())
      return;
    // Copies issued ahead of an atomic in the same loop could read memory
    // before the atomic writes it: such loops keep their order.
    if (loop->walk([](Operation *op) {
              return isa<kd::AtomicRMWOp, kd::AtomicCASOp>(op)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            }).wasInterrupted())
      return;
    SmallVector<kd::DotOp> dots;
    for (Operation &op : *body)
      if (auto dot = dyn_cast<kd::DotOp>(op))
        dots.push_back(dot);
    if (dots.size() != 1)
      return;
    kd::DotOp dot = dots.front();
    if (auto tma = ::kite::detail::tmaOperands(dot, chip, warps, stages)) {
      if (!warpSpecialize ||
          !stageWithProducerWarp(func, loop, dot, *tma, warps, stages))
        stageWithTma(func, loop, dot, *tma, stages);
      return;
    }
    Type element = dot.getA().getType().getElementType();
    kd::LoadOp loads[2] = {stageableLoad(dot.getA(), body, element),
                           stageableLoad(dot.getB(), body, element)};
    if (!loads[0] || !loads[1] || loads[0] == loads[1])
      return;
    std::optional<kd::DotEngine> chosen =
        chooseEngine(func, dot, loads, conv, warps);
    if (!chosen)
      return;
    const bool wgmma = *chosen == kd::DotEngine::WGMMA;
    auto slices = ::kite::detail::LoadSlices::get(loop, loads);
    if (!slices)
      return;

    IRRewriter rewriter(loop.getContext());
    Location loc = loop.getLoc();
    // With wgmma the dot of iteration k may still read its slot during
    // iteration k + 1 (wgmma.wait_group 1): one more slot than blocks in
    // flight plus the one computed on.
    const int64_t S = stages, D = S - 1, slots = wgmma ? S + 1 : S;
    const kd::DotEngine engine = *chosen;
    RankedTensorType aType = dot.getA().getType(), bType = dot.getB().getType();
    SmallVector<int64_t> dotShape = {aType.getDimSize(0), bType.getDimSize(1),
                                     aType.getDimSize(1)};
    Type i32 = rewriter.getI32Type();
    auto constant = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, i32, v).getResult();
    };
    Value iv = loop.getInductionVar();
    // Starts the copies of the iteration `map` describes into `slot`,
    // masked off unless `ivAt` < the upper bound.
    auto stageAt = [&](IRMapping &map, Value ivAt, Value slot) {
      for (Operation *op : slices->slice)
        rewriter.clone(*op, map);
      Value more = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::slt, ivAt,
                                         loop.getUpperBound());
      for (auto [operand, load] : llvm::enumerate(loads)) {
        Value ptr = map.lookupOrDefault(load.getPtr());
        Value mask = load.getMask() ? map.lookupOrDefault(load.getMask())
                                    : Value();
        Value guarded = guardMask(rewriter, loc, mask, more, ptr.getType());
        kd::AsyncStageOp::create(rewriter, load.getLoc(), ptr, guarded, slot,
                                 int32_t(operand), dotShape, engine);
      }
      kd::AsyncCommitOp::create(rewriter, loc);
    };
    // Prologue: the first D iterations' blocks.
    rewriter.setInsertionPoint(loop);
    for (int64_t d = 0; d < D; ++d) {
      auto [map, ivAt] = slices->ahead(rewriter, loop, loop.getLowerBound(),
                                       slices->initialArgs(loop), d);
      stageAt(map, ivAt, constant(d));
    }
    // The body: wait for this iteration's block, start iteration k + D's,
    // compute on this one.
    rewriter.setInsertionPoint(dot);
    kd::AsyncWaitOp::create(rewriter, loc, D - 1,
                            /*async_proxy=*/wgmma && proxyFence);
    Value index = arith::DivSIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, iv, loop.getLowerBound()),
        loop.getStep());
    // Starts the copies of iteration k + D.
    Value aheadSlot;
    auto stageAhead = [&] {
      auto [map, ivAt] = slices->ahead(rewriter, loop, iv,
                                       slices->currentArgs(loop), D);
      aheadSlot = arith::RemSIOp::create(
          rewriter, loc, arith::AddIOp::create(rewriter, loc, index, constant(D)),
          constant(slots));
      stageAt(map, ivAt, aheadSlot);
    };
    // FMA: the copies start before the dot computes. wgmma: the dot is
    // issued first (it runs asynchronously, beside dot k - 1), then the
    // copies start (into the slot of dot k - 2, which everyone waited for
    // before the barrier), then the wait for dot k - 1.
    if (!wgmma)
      stageAhead();
    Value slot = arith::RemSIOp::create(rewriter, loc, index, constant(slots));
    // wgmma: the product is asynchronous. When the accumulator only goes
    // around the loop (iteration argument -> dot -> yield), iteration k
    // waits for dot k - 1 only (pending 1) and the loop's result for the
    // last one; otherwise each dot is waited for at once.
    std::optional<unsigned> carried;
    if (wgmma)
      carried = carriedAccumulator(dot, body);
    auto staged = kd::DotStagedOp::create(
        rewriter, dot.getLoc(), dot.getType(), dot.getAcc(), slot,
        aType.getDimSize(1), slots, engine,
        engine != kd::DotEngine::FMA ? TypeAttr::get(element) : TypeAttr());
    Value result = staged.getResult();
    if (wgmma) {
      stageAhead();
      result = kd::DotWaitOp::create(rewriter, dot.getLoc(), dot.getType(),
                                     result, carried ? 1 : 0);
    }
    rewriter.replaceOp(dot, result);
    for (kd::LoadOp load : loads)
      rewriter.eraseOp(load);
    // Nothing may still be writing the slots after the loop.
    rewriter.setInsertionPointAfter(loop);
    kd::AsyncWaitOp::create(rewriter, loc, 0);
    if (carried)
      waitAroundLoop(rewriter, loop, *carried);
    carrySlots(rewriter, loop, slot, aheadSlot, Value(), D, slots);
  }

  /// The iteration argument (its index among the loop's results) of an
  /// accumulator that only goes around the loop (iteration argument -> dot
  /// -> yield): its wgmma is waited for one iteration later.
  static std::optional<unsigned> carriedAccumulator(kd::DotOp dot,
                                                    Block *body) {
    auto arg = dyn_cast<BlockArgument>(dot.getAcc());
    if (arg && arg.getOwner() == body && arg.getArgNumber() > 0 &&
        arg.hasOneUse() && dot->hasOneUse() &&
        isa<scf::YieldOp>(*dot->getUsers().begin()) &&
        dot->getUses().begin()->getOperandNumber() == arg.getArgNumber() - 1)
      return arg.getArgNumber() - 1;
    return std::nullopt;
  }

  /// A carried wgmma accumulator: the loop's result passes through a wait
  /// for the last dot (at the rewriter's insertion point, after the loop).
  static void waitAroundLoop(IRRewriter &rewriter, scf::ForOp loop,
                             unsigned carried) {
    Location loc = loop.getLoc();
    Value out = loop.getResult(carried);
    auto done = kd::DotWaitOp::create(rewriter, loc, out.getType(), out, 0);
    out.replaceAllUsesExcept(done.getResult(), done);
    // The initial accumulator also passes through a (no-op) wait before
    // the loop: its registers then have one definition that dominates
    // both the loop and the path that skips it. Otherwise LLVM
    // materializes the initial constant on each edge, the skipping path
    // defines the registers the loop's wgmmas accumulate into with plain
    // moves, and ptxas serializes every wgmma of the kernel (C7515).
    rewriter.setInsertionPoint(loop);
    OpOperand &init = loop.getInitArgsMutable()[carried];
    init.set(kd::DotWaitOp::create(rewriter, loc, init.get().getType(),
                                   init.get(), 0));
  }

  /// The kernel parameter (a CUtensorMap the runtime encodes at launch)
  /// standing for `make` as operand `operand` of a dot staged as `staging`:
  /// appended to `func`'s parameters with a kite.tensor_map attribute that
  /// says how to encode it from the other parameters (docs/lowering.md).
  Value tensorMapParam(func::FuncOp func, kd::MakeTensorDescOp make,
                       int operand, const kd::SwizzledStaging &staging) {
    auto key = std::make_pair(make.getOperation(), operand);
    if (auto it = tensorMaps.find(key); it != tensorMaps.end())
      return it->second;
    MLIRContext *ctx = func.getContext();
    Builder b(ctx);
    // A parameter's index, or -(c + 1) for a constant c.
    auto encode = [&](Value v) -> int64_t {
      if (auto arg = dyn_cast<BlockArgument>(v))
        return arg.getArgNumber();
      APInt c;
      (void)matchPattern(v, m_ConstantInt(&c));
      return -c.getSExtValue() - 1;
    };
    SmallVector<int64_t> shape, strides;
    for (Value v : make.getShape())
      shape.push_back(encode(v));
    for (Value v : make.getStrides())
      strides.push_back(encode(v));
    RankedTensorType block = make.getType().getBlockType();
    int64_t swizzle = operand == 0 ? staging.aSwizzle : staging.bSwizzle;
    SmallVector<int64_t> box = {block.getDimSize(0),
                                swizzle / staging.elemBytes};
    NamedAttrList attrs;
    attrs.set("base", b.getI64IntegerAttr(encode(make.getBase())));
    attrs.set("shape", b.getDenseI64ArrayAttr(shape));
    attrs.set("strides", b.getDenseI64ArrayAttr(strides));
    attrs.set("box", b.getDenseI64ArrayAttr(box));
    attrs.set("swizzle", b.getI64IntegerAttr(swizzle));
    unsigned index = func.getNumArguments();
    (void)func.insertArgument(
        index, make.getType(),
        b.getDictionaryAttr({b.getNamedAttr(
            kd::KiteDialect::getTensorMapAttrName(),
            attrs.getDictionary(ctx))}),
        make.getLoc());
    Value param = func.getArgument(index);
    tensorMaps[key] = param;
    return param;
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
  void stageWithTma(func::FuncOp func, scf::ForOp loop, kd::DotOp dot,
                    std::array<kd::DescriptorLoadOp, 2> loads,
                    int64_t stages) {
    Block *body = loop.getBody();
    SmallVector<Operation *> ops = {loads[0], loads[1]};
    auto slices = ::kite::detail::LoadSlices::get(loop, ops);
    if (!slices)
      return; // kite-lower-descriptors lowers them to pointer blocks
    RankedTensorType aType = dot.getA().getType(), bType = dot.getB().getType();
    Type element = aType.getElementType();
    SmallVector<int64_t> dotShape = {aType.getDimSize(0), bType.getDimSize(1),
                                     aType.getDimSize(1)};
    auto staging = kd::SwizzledStaging::get(dotShape[0], dotShape[1],
                                            dotShape[2], 2);
    Value maps[2];
    for (int operand = 0; operand < 2; ++operand)
      maps[operand] = tensorMapParam(
          func, loads[operand].getDesc().getDefiningOp<kd::MakeTensorDescOp>(),
          operand, staging);

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
      Value more = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::slt, ivAt,
                                         loop.getUpperBound());
      for (auto [operand, load] : llvm::enumerate(loads)) {
        SmallVector<Value> offsets;
        for (Value o : load.getOffsets())
          offsets.push_back(map.lookupOrDefault(o));
        kd::TmaStageOp::create(rewriter, load.getLoc(), maps[operand],
                               offsets, more, slot, int32_t(operand),
                               dotShape);
      }
    };
    rewriter.setInsertionPoint(loop);
    kd::TmaInitOp::create(rewriter, loc, slots, /*arrivals=*/2);
    for (int64_t d = 0; d < D; ++d) {
      auto [map, ivAt] = slices->ahead(rewriter, loop, loop.getLowerBound(),
                                       slices->initialArgs(loop), d);
      stageAt(map, ivAt, constant(d));
    }
    rewriter.setInsertionPoint(dot);
    Value index = arith::DivSIOp::create(
        rewriter, loc,
        arith::SubIOp::create(rewriter, loc, iv, loop.getLowerBound()),
        loop.getStep());
    Value slot = arith::RemSIOp::create(rewriter, loc, index, constant(slots));
    Value phase = arith::AndIOp::create(
        rewriter, loc,
        arith::DivSIOp::create(rewriter, loc, index, constant(slots)),
        constant(1));
    kd::TmaWaitOp::create(rewriter, loc, slot, phase);
    std::optional<unsigned> carried = carriedAccumulator(dot, body);
    auto staged = kd::DotStagedOp::create(
        rewriter, dot.getLoc(), dot.getType(), dot.getAcc(), slot,
        aType.getDimSize(1), slots, kd::DotEngine::WGMMA,
        TypeAttr::get(element));
    auto [map, ivAt] =
        slices->ahead(rewriter, loop, iv, slices->currentArgs(loop), D);
    Value aheadSlot = arith::RemSIOp::create(
        rewriter, loc, arith::AddIOp::create(rewriter, loc, index, constant(D)),
        constant(slots));
    stageAt(map, ivAt, aheadSlot);
    Value result = kd::DotWaitOp::create(rewriter, dot.getLoc(),
                                         dot.getType(), staged.getResult(),
                                         carried ? 1 : 0);
    rewriter.replaceOp(dot, result);
    for (kd::DescriptorLoadOp load : loads)
      rewriter.eraseOp(load);
    if (carried) {
      rewriter.setInsertionPointAfter(loop);
      waitAroundLoop(rewriter, loop, *carried);
    }
    carrySlots(rewriter, loop, slot, aheadSlot, phase, D, slots);
  }

  /// The values `values` (defined outside `loop`) depend on, as ops of the
  /// kernel's entry block to clone (in block order), or none when one
  /// depends on an op with side effects or regions, or the loop is nested.
  static std::optional<SmallVector<Operation *>>
  entryDependencies(func::FuncOp func, scf::ForOp loop,
                    ArrayRef<Value> values) {
    Block *entry = &func.getBody().front();
    if (loop->getBlock() != entry)
      return std::nullopt;
    llvm::SetVector<Operation *> deps;
    SmallVector<Value> work(values.begin(), values.end());
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (arg.getOwner() == loop.getBody())
          continue; // the induction variable: the producer's own
        if (arg.getOwner() != entry)
          return std::nullopt;
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (loop->isAncestor(def))
        continue; // the slice's own ops, cloned with the induction variable
      if (def->getBlock() != entry || def->getNumRegions() ||
          !isMemoryEffectFree(def))
        return std::nullopt;
      if (deps.insert(def))
        for (Value operand : def->getOperands())
          work.push_back(operand);
    }
    SmallVector<Operation *> ordered(deps.begin(), deps.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    return ordered;
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
  /// and never compute an address. False (nothing changed) when the copies'
  /// offsets depend on loop-carried values or on ops that cannot be
  /// repeated at the kernel's entry.
  bool stageWithProducerWarp(func::FuncOp func, scf::ForOp loop,
                             kd::DotOp dot,
                             std::array<kd::DescriptorLoadOp, 2> loads,
                             int64_t warps, int64_t stages) {
    Block *body = loop.getBody();
    SmallVector<Operation *> ops = {loads[0], loads[1]};
    auto slices = ::kite::detail::LoadSlices::get(loop, ops);
    if (!slices || !slices->usedArgs.empty())
      return false;
    SmallVector<Value> needed = {loop.getLowerBound(), loop.getUpperBound(),
                                 loop.getStep()};
    for (Operation *op : slices->slice)
      llvm::append_range(needed, op->getOperands());
    for (kd::DescriptorLoadOp load : loads)
      llvm::append_range(needed, load.getOffsets());
    auto deps = entryDependencies(func, loop, needed);
    if (!deps)
      return false;

    RankedTensorType aType = dot.getA().getType(), bType = dot.getB().getType();
    Type element = aType.getElementType();
    SmallVector<int64_t> dotShape = {aType.getDimSize(0), bType.getDimSize(1),
                                     aType.getDimSize(1)};
    auto staging = kd::SwizzledStaging::get(dotShape[0], dotShape[1],
                                            dotShape[2], 2);
    Value maps[2];
    for (int operand = 0; operand < 2; ++operand)
      maps[operand] = tensorMapParam(
          func, loads[operand].getDesc().getDefiningOp<kd::MakeTensorDescOp>(),
          operand, staging);
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
                          /*consumer_arrivals=*/warps);
    Value isProducer =
        kd::WarpIsProducerOp::create(rewriter, loc, rewriter.getI1Type());
    auto branch = scf::IfOp::create(rewriter, loc, isProducer,
                                    /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(&branch.getThenRegion().front());
    IRMapping outside;
    for (Operation *op : *deps)
      rewriter.clone(*op, outside);
    auto producer = scf::ForOp::create(
        rewriter, loc, outside.lookupOrDefault(loop.getLowerBound()),
        outside.lookupOrDefault(loop.getUpperBound()),
        outside.lookupOrDefault(loop.getStep()),
        ValueRange{constant(0), constant(0)});
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(producer.getBody());
      Value slot = producer.getRegionIterArgs()[0];
      Value phase = producer.getRegionIterArgs()[1];
      // The slot's previous use released (a fresh barrier passes parity 1).
      kd::TmaWaitOp::create(
          rewriter, loc, slot,
          arith::XOrIOp::create(rewriter, loc, phase, constant(1)),
          /*empty=*/true, /*nosync=*/true);
      IRMapping map = outside;
      map.map(loop.getInductionVar(), producer.getInductionVar());
      for (Operation *op : slices->slice)
        rewriter.clone(*op, map);
      Value yes = arith::ConstantIntOp::create(rewriter, loc,
                                               rewriter.getI1Type(), 1);
      for (auto [operand, load] : llvm::enumerate(loads)) {
        SmallVector<Value> offsets;
        for (Value o : load.getOffsets())
          offsets.push_back(map.lookupOrDefault(o));
        auto stage = kd::TmaStageOp::create(
            rewriter, load.getLoc(), maps[operand], offsets, yes, slot,
            int32_t(operand), dotShape);
        stage.setProducer(true);
      }
      Value next = arith::AddIOp::create(rewriter, loc, slot, constant(1));
      Value wrap = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::eq, next,
                                         constant(slots));
      scf::YieldOp::create(
          rewriter, loc,
          ValueRange{arith::SelectOp::create(rewriter, loc, wrap, constant(0),
                                             next),
                     arith::SelectOp::create(
                         rewriter, loc, wrap,
                         arith::XOrIOp::create(rewriter, loc, phase,
                                               constant(1)),
                         phase)});
    }
    kd::ExitOp::create(rewriter, loc);

    // The consumers' loop.
    rewriter.setInsertionPoint(dot);
    Value now = constant(0), phase = constant(0);
    kd::TmaWaitOp::create(rewriter, loc, now, phase, /*empty=*/false,
                          /*nosync=*/true);
    std::optional<unsigned> carried = carriedAccumulator(dot, body);
    auto staged = kd::DotStagedOp::create(
        rewriter, dot.getLoc(), dot.getType(), dot.getAcc(), now,
        aType.getDimSize(1), slots, kd::DotEngine::WGMMA,
        TypeAttr::get(element));
    Value result = kd::DotWaitOp::create(rewriter, dot.getLoc(),
                                         dot.getType(), staged.getResult(),
                                         carried ? 1 : 0);
    // Dot k - 1 is done (wait 1): its slot goes back to the producer; with
    // every dot waited for at once, this one's.
    if (carried) {
      Value prev = arith::SelectOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, now,
                                constant(0)),
          constant(slots - 1),
          arith::SubIOp::create(rewriter, loc, now, constant(1)));
      Value notFirst = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ne, loop.getInductionVar(),
          loop.getLowerBound());
      kd::TmaReleaseOp::create(rewriter, loc, prev, notFirst);
    } else {
      Value yes = arith::ConstantIntOp::create(rewriter, loc,
                                               rewriter.getI1Type(), 1);
      kd::TmaReleaseOp::create(rewriter, loc, now, yes);
    }
    rewriter.replaceOp(dot, result);
    for (kd::DescriptorLoadOp load : loads)
      rewriter.eraseOp(load);
    if (carried) {
      rewriter.setInsertionPointAfter(loop);
      waitAroundLoop(rewriter, loop, *carried);
    }
    carrySlots(rewriter, loop, now, Value(), phase, /*D=*/0, slots);
    return true;
  }

  /// The descriptors made parameters so far, by descriptor and operand.
  std::map<std::pair<Operation *, int>, Value> tensorMaps;

  /// Replaces the slot of this iteration (`slot`, k mod S) and the one D
  /// ahead (`ahead`) by iteration arguments that step by one and wrap
  /// around at S: no division or remainder in the loop (S is 3 or 5 as
  /// often as a power of two), and no per-address arithmetic LLVM derives
  /// from one.
  /// With `phase` (TMA: the parity of slot's barrier, (k / S) & 1), a
  /// further argument that flips whenever this iteration's slot wraps;
  /// without `ahead` (a warp-specialized loop stages nothing ahead), none
  /// for it.
  static void carrySlots(IRRewriter &rewriter, scf::ForOp loop, Value slot,
                         Value ahead, Value phase, int64_t D, int64_t slots) {
    Location loc = loop.getLoc();
    Type i32 = rewriter.getI32Type();
    rewriter.setInsertionPoint(loop);
    SmallVector<Value> inits = {
        arith::ConstantIntOp::create(rewriter, loc, i32, 0)};
    if (ahead)
      inits.push_back(arith::ConstantIntOp::create(rewriter, loc, i32, D % slots));
    if (phase)
      inits.push_back(arith::ConstantIntOp::create(rewriter, loc, i32, 0));
    auto grown = loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &b, Location l, ArrayRef<BlockArgument> args) {
          SmallVector<Value> next;
          Value one = arith::ConstantIntOp::create(b, l, i32, 1);
          Value zero = arith::ConstantIntOp::create(b, l, i32, 0);
          Value end = arith::ConstantIntOp::create(b, l, i32, slots);
          Value firstWraps;
          for (BlockArgument arg : args.take_front(ahead ? 2 : 1)) {
            Value n = arith::AddIOp::create(b, l, arg, one);
            Value wrap = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                               n, end);
            if (!firstWraps)
              firstWraps = wrap;
            next.push_back(arith::SelectOp::create(b, l, wrap, zero, n));
          }
          if (phase) {
            Value flipped = arith::XOrIOp::create(b, l, args.back(), one);
            next.push_back(
                arith::SelectOp::create(b, l, firstWraps, flipped, args.back()));
          }
          return next;
        });
    if (failed(grown))
      return; // the remainders stay: correct, slower
    auto forOp = cast<scf::ForOp>(grown->getOperation());
    auto args = forOp.getRegionIterArgs();
    size_t at = args.size() - inits.size();
    rewriter.replaceAllUsesWith(slot, args[at++]);
    if (ahead)
      rewriter.replaceAllUsesWith(ahead, args[at++]);
    if (phase)
      rewriter.replaceAllUsesWith(phase, args[at]);
  }
};

} // namespace
