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
// This file chooses the engine and holds this cp.async schedule; a dot fed
// by tensor descriptors on sm_90a takes the TMA schedules instead
// (TmaSchedules.cpp); what they share is in DotSchedules.cpp.
//
//===----------------------------------------------------------------------===//

#include "DotSchedules.h"
#include "LoopSlices.h"
#include "TmaOperands.h"

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Dialect/Kite/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace kite {
#define GEN_PASS_DEF_STAGEDOTOPERANDS
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"
} // namespace kite

using namespace mlir;
namespace kd = mlir::kite;
using ::kite::detail::guardMask;

namespace {

struct StageDotOperands
    : ::kite::impl::StageDotOperandsBase<StageDotOperands> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!kd::isKernel(func))
        continue;
      int64_t warps = ::kite::detail::kernelWarps(func, numWarps);
      int64_t stages = ::kite::detail::kernelStages(func);
      kd::KiteTypeConverter conv(ctx, 32 * warps, func);
      SmallVector<scf::ForOp> loops;
      // Outer loops first: staging a loop nested in another may replace
      // the outer one (TMA in a persistent kernel's tile loop carries its
      // slot count there), never the loops inside the staged one.
      func.walk<WalkOrder::PreOrder>(
          [&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops)
        stage(func, loop, conv, warps, stages);
      chooseRegisterEngines(func, warps);
    }
    if (tmaSchedules.failed)
      signalPassFailure();
  }

  /// The dots no K loop stages (their operands computed in registers, or
  /// loaded outside a loop of their own: attention's two products, a dot
  /// of whole blocks; fp8 with B along N): f16/bf16 ones (fp8 on wgmma)
  /// run on the tensor cores from
  /// registers, the operands passing through shared memory (kite.dot
  /// engine = wgmma on sm_90a where the shape splits into m64nNk16
  /// instructions over the warpgroups, else engine = mma on sm_80+ where
  /// it splits into 16x16 blocks of mma.sync over the warps); the others
  /// stay on the FMA paths.
  void chooseRegisterEngines(func::FuncOp func, int64_t warps) {
    int64_t version = ::kite::detail::chipVersion(chip);
    if (version < 80)
      return;
    llvm::DenseSet<const void *> warned; // one warning a source location
    func.walk([&](kd::DotOp dot) {
      RankedTensorType a = dot.getA().getType();
      Type element = a.getElementType();
      int64_t M = a.getDimSize(0), K = a.getDimSize(1),
              N = dot.getType().getDimSize(1);
      // fp8 (both operands of one type) and tf32 on wgmma only: it reads
      // their B K-major, stored so from registers (the register dot has no
      // tf32 mma.sync).
      bool fp8 = kd::isFp8(element) &&
                 dot.getB().getType().getElementType() == element;
      bool tf32 = dot.isTf32();
      if (!(element.isF16() || element.isBF16() || fp8 || tf32) ||
          K % (fp8 ? 32 : tf32 ? 8 : 16) || N % 16)
        return;
      if (chip == "sm_90a" && kd::WgmmaTile::choose(M, N, warps)) {
        dot.setEngine(kd::DotEngine::WGMMA);
        return;
      }
      if (fp8 || tf32)
        return;
      if (kd::MmaTile::choose(M, N, warps))
        dot.setEngine(kd::DotEngine::MMA);
      // A shape wgmma takes on fewer warps: say so (mma.sync with operands
      // exchanged through shared memory ran attention's backward at a
      // fifth of the speed of 4 warps on the H100).
      if (chip == "sm_90a" &&
          warned.insert(dot.getLoc().getAsOpaquePointer()).second)
        for (int64_t fewer = warps / 2; fewer >= 4; fewer /= 2)
          if (kd::WgmmaTile::choose(M, N, fewer)) {
            dot.emitWarning()
                << "this " << M << "x" << N << " product does not split "
                << "over " << warps / 4 << " warpgroups for wgmma (each "
                << "needs 64 rows, or whole 128-byte column panels), so it "
                << "runs on " << (dot.getEngine() == kd::DotEngine::MMA
                                      ? "mma.sync"
                                      : "the FMA units")
                << ", much slower: use " << fewer << " warps";
            break;
          }
    });
  }

  /// Whether both of `loads` (the operands of `dot`, whose result takes
  /// `tile`'s layout) can be copied with cp.async into the swizzled staging;
  /// `kMajorB`: B is staged K-major from a K x N block (tf32 on wgmma), one
  /// element a copy, in the layout LayoutAssignment gives such pointers. (A
  /// B loaded transposed, N x K, is copied like A: rows of K.)
  bool copyable(func::FuncOp func, kd::DotOp dot, ArrayRef<kd::LoadOp> loads,
                const kd::KiteTypeConverter &conv,
                const kd::BlockedLayout &tile, int64_t elemBytes,
                bool kMajorB = false) {
    kd::AxisInfoAnalysis axisInfo(func);
    for (auto [operand, constLoad] : llvm::enumerate(loads)) {
      kd::LoadOp load = constLoad;
      auto type = cast<RankedTensorType>(load.getPtr().getType());
      // The layout the pointers will have: the accumulator's when they
      // share its layout class (KiteTypeConverter::getLayout(Value)), else
      // the linear one of their shape. (The lowering separates shared
      // leaves first, so its classes are no coarser than these.)
      bool kMajor = kMajorB && operand == 1;
      std::optional<kd::BlockedLayout> layout;
      if (conv.shareLayout(load.getPtr(), dot.getResult()))
        layout = tile;
      else if (kMajor)
        layout = kd::BlockedLayout::getKMajorCopy(
            type.getDimSize(0), type.getDimSize(1), conv.getNumThreads());
      if (!layout)
        layout = conv.getLayout(load.getPtr());
      if (!kd::swizzledCopyWidth(axisInfo, *layout, load.getPtr(),
                                 load.getMask(),
                                 kMajor ? 1 : type.getDimSize(1), elemBytes))
        return false;
    }
    return true;
  }

  /// The engine `dot`, fed by `loads`, runs on:
  ///   - wgmma: an sm_90a target, f16 or bf16 operands or f32 ones
  ///     multiplied as tf32, a shape that splits into m64nNk16 (tf32: k8)
  ///     instructions over the warpgroups;
  ///   - mma (mma.sync): an sm_80+ target, f16 or bf16 operands or f32 ones
  ///     multiplied as tf32, a shape that splits into 16x16 blocks of
  ///     m16n8 instructions over the warps;
  ///   - fma otherwise (f32 operands on the register-tiled path).
  /// The tensor-core engines also need operand blocks that cp.async can
  /// copy in groups of at least 4 bytes into the swizzled staging.
  /// `transposedB`: B's load is N x K (the dot reads its kite.trans), which
  /// only wgmma reads (K-major, no transposing copies).
  std::optional<kd::DotEngine>
  chooseEngine(func::FuncOp func, kd::DotOp dot, ArrayRef<kd::LoadOp> loads,
               const kd::KiteTypeConverter &conv, int64_t warps,
               bool transposedB, bool transposedA) {
    RankedTensorType aType = dot.getA().getType(), bType = dot.getB().getType();
    Type element = aType.getElementType();
    int64_t M = aType.getDimSize(0), K = aType.getDimSize(1),
            N = bType.getDimSize(1);
    bool half = element.isF16() || element.isBF16();
    // tf32 and fp8 wgmma read K-major only. A tf32 B along N is copied
    // element by element into its K-major staging where the copies' ring
    // cannot take it (stage(): B stored K-major from registers); an A along
    // M (loaded K x M, read through a kite.trans) is a computed operand
    // (stage()). fp8 has no transposing copy (1-byte elements): its B must
    // come transposed, its A as it is.
    bool tf32 = dot.isTf32() && !transposedA;
    bool fp8 = mlir::kite::isFp8(element) && transposedB && !transposedA;
    int64_t eb = tf32 ? 4 : fp8 ? 1 : 2;
    int64_t version = ::kite::detail::chipVersion(chip);
    if (chip == "sm_90a" && (half || tf32 || fp8) && K * eb % 32 == 0)
      if (auto tile = kd::WgmmaTile::choose(M, N, warps))
        if (copyable(func, dot, loads, conv, tile->layout(), eb,
                     /*kMajorB=*/tf32 && !transposedB))
          return kd::DotEngine::WGMMA;
    // mma.sync reads transposed f16/bf16 operands through the other kind
    // of ldmatrix; tf32 only A K-major, B N-major.
    if ((transposedB || transposedA) && !half)
      return std::nullopt;
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
    // Every schedule copies with cp.async (or TMA), sm_80's and later's:
    // older chips keep their loads (LLVM cannot select cp.async there).
    if (::kite::detail::chipVersion(chip) < 80)
      return;
    Block *body = loop.getBody();
    APInt step;
    if (!matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
        !step.isStrictlyPositive())
      return;
    if (::kite::detail::containsAtomics(loop))
      return;
    SmallVector<kd::DotOp> dots;
    for (Operation &op : *body)
      if (auto dot = dyn_cast<kd::DotOp>(op))
        dots.push_back(dot);
    // range(..., num_stages=, warp_specialize=) on this loop, else on the
    // tile loop around it, overrides the kernel's and the option's.
    stages = ::kite::detail::loopStages(loop, stages);
    if (stages < 2)
      return; // num_stages = 1: no copies in flight
    bool specialize =
        ::kite::detail::loopWarpSpecialize(loop).value_or(warpSpecialize);
    // The tensor cores read an operand in either orientation (wgmma's
    // transpose bits, ldmatrix and ldmatrix.trans): an operand whose memory
    // runs along M (A) or K (B) is loaded in that order (its transpose,
    // read through a kite.trans).
    ::kite::detail::orientOperandLoads(func, loop, dots, chip == "sm_90a");
    // Dots with A in registers and B loaded in the loop (attention).
    if (::kite::detail::stageRegisterDots(func, loop, dots, chip, warps, stages,
                                          tmaSchedules, specialize))
      return;
    if (dots.size() != 1)
      return;
    kd::DotOp dot = dots.front();
    if (auto tma = ::kite::detail::tmaOperands(dot, chip, warps, stages)) {
      // ping_pong takes effect with the producer warp.
      bool pingPong = specialize && ::kite::detail::loopPingPong(loop);
      if (!specialize || !tmaSchedules.stageWithProducerWarp(
                             func, loop, dot, *tma, warps, stages, pingPong)) {
        if (pingPong) {
          Operation *at = loop->getParentOfType<scf::ForOp>();
          (at ? at : loop.getOperation())->emitError()
              << "range()'s ping_pong needs the producer-warp schedule, which "
                 "this K loop cannot take (its copies' offsets depend on "
                 "values the producer warp cannot compute)";
          tmaSchedules.failed = true;
          return;
        }
        tmaSchedules.stageWithTma(func, loop, dot, *tma, stages);
      }
      return;
    }
    Type element = dot.getA().getType().getElementType();
    // B may be read through a transposition of an N x K block (Triton's
    // dot(a, b.T), B given K-contiguous): staged K-major, row for row.
    Value bLoaded = dot.getB();
    kd::TransOp trans = ::kite::detail::transposedB(dot);
    if (trans)
      bLoaded = trans.getSrc();
    // Likewise an f16/bf16 A through a transposition of a K x M block:
    // staged M-major.
    Value aLoaded = dot.getA();
    kd::TransOp transA = ::kite::detail::transposedA(dot);
    if (transA)
      aLoaded = transA.getSrc();
    kd::LoadOp loads[2] = {
        ::kite::detail::stageableLoad(aLoaded, body, element),
        ::kite::detail::stageableLoad(bLoaded, body, element)};
    if (!loads[0] || !loads[1] || loads[0] == loads[1]) {
      // An operand computed from loads (dot_scaled): those loads ahead.
      ::kite::detail::stageOperandLoads(func, loop, dot, chip, warps, stages,
                                        storeComputedA);
      return;
    }
    // fp8 and tf32 with B's memory along N (x @ W, W given K x N): wgmma
    // reads them K-major only, so both blocks go through the copies' ring
    // in 16-byte copies and B is stored K-major from registers (exchanged
    // there, as Triton transposes on chip), for the asynchronous product.
    // (An A whose memory runs along M is computed, a kite.trans, and takes
    // that path above.) A tf32 B also has a copy that transposes, one
    // 4-byte copy an element into a K-major staging (the H100, 4096^3: 174
    // against 222 TFLOP/s): it stays for the loops the ring cannot take,
    // and tf32 on shapes wgmma does not split keeps mma.sync's staging.
    bool fp8 = kd::isFp8(element);
    if (chip == "sm_90a" && (fp8 || dot.isTf32()) && !trans &&
        (fp8 || kd::WgmmaTile::choose(dot.getType().getDimSize(0),
                                      dot.getType().getDimSize(1), warps)) &&
        ::kite::detail::stageOperandLoads(func, loop, dot, chip, warps, stages,
                                          storeComputedA,
                                          /*loadedOperands=*/true))
      return;
    std::optional<kd::DotEngine> chosen =
        chooseEngine(func, dot, loads, conv, warps, bool(trans), bool(transA));
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
    RankedTensorType aType = dot.getA().getType();
    SmallVector<int64_t> dotShape = ::kite::detail::dotShapeOf(dot);
    Value iv = loop.getInductionVar();
    // Starts the copies of the iteration `map` describes into `slot`.
    auto issue = [&](IRMapping &map, Value more, Value slot) {
      for (auto [operand, load] : llvm::enumerate(loads)) {
        Value ptr = map.lookupOrDefault(load.getPtr());
        Value mask = load.getMask() ? map.lookupOrDefault(load.getMask())
                                    : Value();
        Value guarded = guardMask(rewriter, loc, mask, more, ptr.getType());
        kd::AsyncStageOp::create(rewriter, load.getLoc(), ptr, guarded, slot,
                                 int32_t(operand), dotShape, engine,
                                 /*transposed=*/operand == 1 ? bool(trans)
                                                             : bool(transA),
                                 /*b_place=*/nullptr);
      }
    };
    // Prologue: the first D iterations' blocks.
    rewriter.setInsertionPoint(loop);
    ::kite::detail::copyPrologue(rewriter, loop, *slices, D, issue);
    // The body: wait for this iteration's block, start iteration k + D's,
    // compute on this one.
    rewriter.setInsertionPoint(dot);
    kd::AsyncWaitOp::create(rewriter, loc, D - 1,
                            /*async_proxy=*/wgmma && proxyFence);
    Value index = ::kite::detail::loopIndex(rewriter, loop);
    // Starts the copies of iteration k + D.
    Value aheadSlot;
    auto stageAhead = [&] {
      aheadSlot = ::kite::detail::ringSlot(rewriter, loc, index, D, slots);
      ::kite::detail::copyIteration(rewriter, loop, *slices, iv,
                                    slices->currentArgs(loop), D, aheadSlot,
                                    issue);
    };
    // FMA: the copies start before the dot computes. wgmma: the dot is
    // issued first (it runs asynchronously, beside dot k - 1), then the
    // copies start (into the slot of dot k - 2, which everyone waited for
    // before the barrier), then the wait for dot k - 1.
    if (!wgmma)
      stageAhead();
    Value slot = ::kite::detail::ringSlot(rewriter, loc, index, 0, slots);
    // wgmma: the product is asynchronous. When the accumulator only goes
    // around the loop (iteration argument -> dot -> yield), iteration k
    // waits for dot k - 1 only (pending 1) and the loop's result for the
    // last one; otherwise each dot is waited for at once.
    std::optional<unsigned> carried;
    if (wgmma)
      carried = ::kite::detail::carriedAccumulator(dot, body);
    auto staged = kd::DotStagedOp::create(
        rewriter, dot.getLoc(), dot.getType(), dot.getAcc(), slot,
        aType.getDimSize(1), slots, engine,
        engine != kd::DotEngine::FMA ? TypeAttr::get(element) : TypeAttr(),
        /*b_k_major=*/(wgmma && element.isF32()) || trans, /*a=*/Value(),
        /*b_place=*/nullptr, /*a_place=*/nullptr, /*b_slot=*/Value(),
        /*a_m_major=*/bool(transA));
    // (fp8 reaches wgmma only with a transposed B: b_k_major.)
    Value result = staged.getResult();
    if (wgmma) {
      stageAhead();
      result = kd::DotWaitOp::create(rewriter, dot.getLoc(), dot.getType(),
                                     result, carried ? 1 : 0);
    }
    rewriter.replaceOp(dot, result);
    if (trans)
      rewriter.eraseOp(trans);
    if (transA)
      rewriter.eraseOp(transA);
    for (kd::LoadOp load : loads)
      rewriter.eraseOp(load);
    // Nothing may still be writing the slots after the loop.
    SmallVector<unsigned, 1> waits;
    if (carried)
      waits.push_back(*carried);
    ::kite::detail::drainAfterLoop(rewriter, loop, waits);
    ::kite::detail::carrySlots(rewriter, loop, slot, aheadSlot, Value(), D,
                               slots);
  }


  ::kite::detail::TmaSchedules tmaSchedules;
};

} // namespace
