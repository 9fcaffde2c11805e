//===- TmaToGPU.cpp - TMA staging of a dot's operands (sm_90a) -------------===//
//
// kite.tma_init, tma_stage and tma_wait (made by kite-stage-dot-operands)
// as mbarriers and cp.async.bulk.tensor: each staging slot (the layout of
// SwizzledStaging, which wgmma reads) has an mbarrier after the rest of the
// kernel's shared memory (kernelBarrierOffset). One thread expects each
// operand's bytes on the slot's barrier and starts one TMA copy per panel
// of the operand (a box of rows x swizzle bytes, the tensor map's box), in
// the swizzle mode of the panel; everyone waits on the barrier's phase.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"
#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {

/// The mbarrier of staging slot `slot` (i32): its full one, or its empty one.
Value barrierPointer(OpBuilder &b, Location loc, const KiteLoweringState &state,
                     Value slot, bool empty = false) {
  if (empty)
    slot = arith::AddIOp::create(b, loc, slot,
                                 i32Const(b, loc, state.barrierSlots));
  Value base = LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3),
      state.sharedMemory);
  Value bytes = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, slot, i32Const(b, loc, 8)),
      i32Const(b, loc, state.barrierOffset));
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{bytes});
}

/// Whether this thread is its consumer group's first (the program's first
/// without groups).
Value firstThread(OpBuilder &b, Location loc) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                               threadId(b, loc), i32Const(b, loc, 0));
}

/// Whether this thread is the program's thread `index` (all groups
/// counted: the producer warp's first is groups x numThreads).
Value programThread(OpBuilder &b, Location loc, int64_t index) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                               rawThreadId(b, loc), i32Const(b, loc, index));
}

struct TmaInitLowering : OpConversionPattern<TmaInitOp> {
  TmaInitLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                  MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(TmaInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value first = programThread(rewriter, loc, 0);
    auto init = [&](int64_t s, bool empty, int64_t count) {
      NVVM::MBarrierInitOp::create(
          rewriter, loc,
          barrierPointer(rewriter, loc, state, i32Const(rewriter, loc, s),
                         empty),
          i32Const(rewriter, loc, count), first);
    };
    for (int64_t s = 0; s < int64_t(op.getSlots()); ++s) {
      init(s, false, op.getArrivals());
      if (op.getConsumerArrivals())
        init(s, true, op.getConsumerArrivals());
    }
    // The initialized barriers, visible to the async proxy (the TMA's
    // complete_tx) and to every thread, the producer warp's too (bar.sync
    // 0 of all the program's threads); in a cluster, to every thread of
    // the cluster (whose copies and releases reach these barriers).
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    if (op.getClusterSize() > 1) {
      NVVM::ClusterArriveOp::create(rewriter, loc, /*aligned=*/nullptr);
      NVVM::ClusterWaitOp::create(rewriter, loc, /*aligned=*/nullptr);
    } else {
      NVVM::Barrier0Op::create(rewriter, loc);
    }
    rewriter.eraseOp(op);
    return success();
  }
  const KiteLoweringState &state;
};

struct TmaStageLowering : OpConversionPattern<TmaStageOp> {
  TmaStageLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                   MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(TmaStageOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape = op.getDotShape();
    RankedTensorType block = op.getDesc().getType().getBlockType();
    int64_t eb = block.getElementTypeBitWidth() / 8;
    SwizzledStaging staging =
        SwizzledStaging::get(shape[0], shape[1], shape[2], eb,
                             /*bKMajor=*/op.getTransposed());
    if (std::optional<ArrayRef<int64_t>> place = op.getBPlace()) {
      staging.bPlace = (*place)[0];
      staging.slotBytes = (*place)[1];
    }
    bool isA = op.getOperand() == 0;
    int64_t rows = block.getDimSize(0), cols = block.getDimSize(1);
    int64_t swz = isA ? staging.aSwizzle : staging.bSwizzle;
    int64_t panelElems = swz / eb, panelBytes = rows * swz;
    Value on = arith::AndIOp::create(
        rewriter, loc, adaptor.getPred(),
        op.getProducer()
            ? programThread(rewriter, loc,
                            state.consumerGroups * state.numThreads)
            : firstThread(rewriter, loc));
    Value bar = barrierPointer(rewriter, loc, state, adaptor.getSlot());
    // The Bs of dots with A in registers (attention's K and V), issued
    // among the consumers' work: a branch around them, so that the other
    // warps skip them (predicated, each warp would run the loop ptxas
    // makes around a TMA copy whose coordinates it cannot prove uniform:
    // some 20 instructions a copy, 0.9x at head dim 128).
    std::optional<OpBuilder::InsertionGuard> inBranch;
    if (op.getBPlace() && !op.getProducer() && op.getMulticast() == 1) {
      auto branch = scf::IfOp::create(rewriter, loc, on,
                                      /*withElseRegion=*/false);
      inBranch.emplace(rewriter);
      rewriter.setInsertionPointToStart(&branch.getThenRegion().front());
      on = Value();
    }
    NVVM::MBarrierArriveExpectTxOp::create(
        rewriter, loc, /*res=*/Type(), bar,
        i32Const(rewriter, loc, rows * cols * eb), NVVM::MemScopeKind::CTA,
        /*relaxed=*/false, on);
    Value slot = slotPointer(rewriter, loc, state, adaptor.getSlot(),
                             staging.bytes());
    ValueRange offsets = adaptor.getOffsets();
    // Multicast: this program copies panels rank, rank + n, ... into the
    // slot of every program of the cluster (and signals each one's
    // barrier at the same offset); the others copy the rest.
    int64_t multicast = op.getMulticast();
    Value rank, mask;
    if (multicast > 1) {
      rank = NVVM::ClusterId::create(rewriter, loc, rewriter.getI32Type());
      mask = LLVM::ConstantOp::create(
          rewriter, loc, rewriter.getI16Type(),
          rewriter.getI16IntegerAttr(int16_t((1 << multicast) - 1)));
    }
    for (int64_t p = 0; p < cols / panelElems; ++p) {
      Value issue = on;
      if (multicast > 1 && on)
        issue = arith::AndIOp::create(
            rewriter, loc, on,
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, rank,
                                  i32Const(rewriter, loc, p % multicast)));
      int64_t at = (isA ? 0 : staging.bOffset()) + p * panelBytes;
      Value dst = LLVM::GEPOp::create(rewriter, loc, slot.getType(),
                                      rewriter.getI8Type(), slot,
                                      ArrayRef<LLVM::GEPArg>{int32_t(at)});
      // Coordinates innermost first: the panel's column, then the row.
      Value col = arith::AddIOp::create(rewriter, loc, offsets[1],
                                        i32Const(rewriter, loc, p * panelElems));
      // The shared::cluster form (a predicate needs it): this program's
      // own shared memory (with multicast, the same offset in each
      // program's).
      Value clusterDst = LLVM::AddrSpaceCastOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext(), 7),
          dst);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, loc, clusterDst, adaptor.getDesc(),
          ValueRange{col, offsets[0]}, bar, /*im2colOffsets=*/ValueRange{},
          /*multicastMask=*/mask,
          /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
          /*isCTAOnly=*/false, /*group=*/NVVM::CTAGroupKindAttr(), issue);
    }
    rewriter.eraseOp(op);
    return success();
  }
  const KiteLoweringState &state;
};

struct TmaWaitLowering : OpConversionPattern<TmaWaitOp> {
  TmaWaitLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                  MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(TmaWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = barrierPointer(rewriter, loc, state, adaptor.getSlot(),
                               op.getEmpty());
    NVVM::MBarrierTryWaitParityOp::create(rewriter, loc, bar,
                                          adaptor.getPhase(),
                                          i32Const(rewriter, loc, 0x989680));
    // Everyone is done with the slot the next copies refill (its dot was
    // waited for in the previous iteration).
    if (!op.getNosync())
      gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
  const KiteLoweringState &state;
};

/// kite.tma_store: the block's registers into the swizzled panels of the
/// scratch buffer (its layout composed with the panels', SharedAddresses),
/// visible to the async proxy; then one thread stores each panel (a box of
/// rows x swizzle bytes) with cp.async.bulk.tensor and waits until the
/// panels have been read, so the buffer is free for the next op after its
/// barrier (the global writes complete on their own; the TMA clips what
/// lies outside the tensor). In scratch of its own (tmaStorePanels) the
/// panels take turns in a ring of two buffers.
struct TmaStoreLowering : OpConversionPattern<TmaStoreOp> {
  TmaStoreLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                   MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(TmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    Location loc = op.getLoc();
    RankedTensorType type = op.getValue().getType();
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    int64_t eb = type.getElementTypeBitWidth() / 8;
    // The panels: a SwizzledStaging A operand of the block's shape.
    SwizzledStaging panels = SwizzledStaging::get(rows, 16, cols, eb);
    int64_t swz = panels.aSwizzle, panelElems = swz / eb;
    TmaStorePanels ring = tmaStorePanels(op);
    BlockedLayout l = conv.getLayout(op.getValue());
    std::optional<LinearLayout> linear = linearLayoutOf(op, l, "a value");
    if (!linear)
      return failure();
    // The scratch, or where no staged operand is live the kernel's shared
    // memory from its start (the staging slots: their last copies, cp.async
    // ones included, are complete first).
    Scratch s(rewriter, loc, state);
    waitForStagedCopies(rewriter, loc, op);
    // Deferred: the previous store's copies may still read the buffer.
    if (state.deferTmaStoreReads)
      NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, loc, 0,
                                           rewriter.getUnitAttr());
    s.barrier(); // the buffer's previous users are done
    LinearLayout addresses = linear->compose(panels.operandLayout(0));
    Value first = firstThread(rewriter, loc);
    ValueRange offsets = adaptor.getOffsets();
    // One thread stores panel p from `src` with cp.async.bulk.tensor (its
    // own bulk group); everyone commits (the others' groups are empty).
    auto storePanel = [&](int64_t p, Value src) {
      // Coordinates innermost first: the panel's column, then the row.
      Value col = arith::AddIOp::create(rewriter, loc, offsets[1],
                                        i32Const(rewriter, loc, p * panelElems));
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, loc, adaptor.getDesc(), src, ValueRange{col, offsets[0]},
          /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE, first);
      NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    };
    auto fenceAndSync = [&] {
      // The generic proxy's writes, visible to the TMA (async proxy).
      NVVM::FenceProxyOp::create(
          rewriter, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      s.barrier();
    };
    auto panelAt = [&](Value base, int64_t bytes) {
      return LLVM::GEPOp::create(rewriter, loc, base.getType(),
                                 rewriter.getI8Type(), base,
                                 ArrayRef<LLVM::GEPArg>{int32_t(bytes)})
          .getResult();
    };
    if (ring.atOnce == ring.count) {
      // Every panel at once, then their stores.
      SharedAddresses at(rewriter, loc, addresses, 0, s.base);
      storeRegisterRuns(rewriter, loc, l, adaptor.getValue(), eb, at);
      fenceAndSync();
      for (int64_t p = 0; p < ring.count; ++p)
        storePanel(p, panelAt(s.base, p * ring.bytes));
    } else {
      // A ring of `atOnce` panel buffers: panel p goes to buffer
      // p % atOnce once the store of panel p - atOnce has read it; each
      // thread writes the registers of panel p's columns (known from the
      // register where the layout's thread bits leave the panel bits
      // alone, as in wgmma's accumulator; else tested per thread).
      int64_t mask = (cols - 1) & ~(panelElems - 1);
      int64_t shift = llvm::Log2_64(panelElems);
      Value threadBits =
          applyLinear(rewriter, loc, *linear, LinearLayout::In::Thread,
                      threadId(rewriter, loc));
      for (int64_t p = 0; p < ring.count; ++p) {
        int64_t slot = p % ring.atOnce;
        if (p >= ring.atOnce) {
          NVVM::CpAsyncBulkWaitGroupOp::create(
              rewriter, loc, int32_t(ring.atOnce - 1), rewriter.getUnitAttr());
          s.barrier();
        }
        // Panel p's addresses (p * panel bytes into the block's panels)
        // moved to its buffer.
        SharedAddresses at(rewriter, loc, addresses, 0,
                           panelAt(s.base, (slot - p) * ring.bytes));
        RegisterSubset only{*linear, mask, p << shift, threadBits};
        storeRegisterRuns(rewriter, loc, l, adaptor.getValue(), eb, at, &only);
        fenceAndSync();
        storePanel(p, panelAt(s.base, slot * ring.bytes));
      }
    }
    // Every thread waits for its groups' reads of shared memory (deferred:
    // at the next store, or the kernel's return).
    if (!state.deferTmaStoreReads)
      NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, loc, 0,
                                           rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
  const KiteLoweringState &state;
};

/// Lane 0 of each warp arrives on the slot's empty barrier.
struct TmaReleaseLowering : OpConversionPattern<TmaReleaseOp> {
  TmaReleaseLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                     MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(TmaReleaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lane = arith::RemUIOp::create(rewriter, loc, threadId(rewriter, loc),
                                        i32Const(rewriter, loc, 32));
    Value on = arith::AndIOp::create(
        rewriter, loc, adaptor.getPred(),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane,
                              i32Const(rewriter, loc, 0)));
    auto ifOp = scf::IfOp::create(rewriter, loc, on, /*withElse=*/false);
    rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value bar = barrierPointer(rewriter, loc, state, adaptor.getSlot(), true);
    int64_t cluster = op.getClusterSize();
    if (cluster == 1) {
      NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), bar, Value(),
                                     NVVM::MemScopeKind::CTA, false);
    } else {
      // The slot's barrier in each program of the cluster (mapa). The
      // slot was read by this warp's wgmmas, complete (waited for) before
      // this arrive: its default release at CTA scope orders them, as
      // CUTLASS's cluster pipelines do (a release at cluster scope is a
      // cluster-wide fence on every release: the loop ran at half speed).
      auto clusterPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
      for (int64_t r = 0; r < cluster; ++r) {
        Value remote = NVVM::MapaOp::create(rewriter, loc, clusterPtr, bar,
                                            i32Const(rewriter, loc, r));
        NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), remote, Value(),
                                       NVVM::MemScopeKind::CTA, false);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
  const KiteLoweringState &state;
};

/// kite.warp_is_producer: a thread past the block-computing ones.
struct WarpIsProducerLowering : OpConversionPattern<WarpIsProducerOp> {
  WarpIsProducerLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                         MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(WarpIsProducerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOp(
        op,
        arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::uge,
            rawThreadId(rewriter, loc),
            i32Const(rewriter, loc, state.consumerGroups * state.numThreads)));
    return success();
  }
  const KiteLoweringState &state;
};

/// kite.set_max_registers: setmaxnreg.
struct SetMaxRegistersLowering : OpConversionPattern<SetMaxRegistersOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SetMaxRegistersOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::SetMaxRegisterOp::create(
        rewriter, op.getLoc(), int32_t(op.getCount()),
        op.getIncrease() ? NVVM::SetMaxRegisterAction::increase
                         : NVVM::SetMaxRegisterAction::decrease);
    rewriter.eraseOp(op);
    return success();
  }
};

/// kite.consumer_group: the thread's index over numThreads.
struct ConsumerGroupLowering : OpConversionPattern<ConsumerGroupOp> {
  ConsumerGroupLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                        MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(ConsumerGroupOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, consumerGroup(rewriter, op.getLoc(), state));
    return success();
  }
  const KiteLoweringState &state;
};

/// kite.turn_wait / kite.turn_pass: group g's turn is named barrier
/// turnBarrierId(G, g) of two groups' threads; g waits on it (bar.sync),
/// the group before it arrives (bar.arrive, no wait). Each phase pairs one
/// pass with one wait: a group passes the turn again only after waiting
/// for its own, which comes after the other group's wait.
template <typename Op, bool Pass>
struct TurnLowering : OpConversionPattern<Op> {
  TurnLowering(KiteTypeConverter &c, const KiteLoweringState &s,
               MLIRContext *ctx)
      : OpConversionPattern<Op>(c, ctx), state(s) {}
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const int64_t groups = state.consumerGroups;
    if (groups < 2)
      return rewriter.notifyMatchFailure(op, "a kernel of one consumer group");
    Value group = consumerGroup(rewriter, loc, state);
    if (Pass)
      group = arith::RemUIOp::create(
          rewriter, loc,
          arith::AddIOp::create(rewriter, loc, group,
                                i32Const(rewriter, loc, 1)),
          i32Const(rewriter, loc, groups));
    Value id = arith::AddIOp::create(
        rewriter, loc, group,
        i32Const(rewriter, loc, turnBarrierId(groups, 0)));
    Value threads = i32Const(rewriter, loc, 2 * state.numThreads);
    if (Pass)
      NVVM::BarrierArriveOp::create(rewriter, loc, id, threads);
    else
      NVVM::BarrierOp::create(rewriter, loc, Type(), id, threads,
                              NVVM::BarrierReductionAttr(), Value());
    rewriter.eraseOp(op);
    return success();
  }
  const KiteLoweringState &state;
};

/// kite.cluster_barrier: barrier.cluster.arrive (release) and .wait
/// (acquire), every thread.
struct ClusterBarrierLowering : OpConversionPattern<ClusterBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::ClusterArriveOp::create(rewriter, op.getLoc(), /*aligned=*/nullptr);
    NVVM::ClusterWaitOp::create(rewriter, op.getLoc(), /*aligned=*/nullptr);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

Value mlir::kite::detail::rawThreadId(OpBuilder &b, Location loc) {
  return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
}

Value mlir::kite::detail::consumerGroup(OpBuilder &b, Location loc,
                                        const KiteLoweringState &state) {
  if (state.consumerGroups == 1)
    return i32Const(b, loc, 0);
  return arith::DivUIOp::create(b, loc, rawThreadId(b, loc),
                                i32Const(b, loc, state.numThreads));
}

namespace {

struct ExitLowering : OpConversionPattern<ExitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::Exit::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::kite::populateTmaPatterns(KiteTypeConverter &converter,
                                     const KiteLoweringState &state,
                                     RewritePatternSet &patterns) {
  patterns
      .add<TmaInitLowering, TmaStageLowering, TmaStoreLowering, TmaWaitLowering,
           TmaReleaseLowering, WarpIsProducerLowering, ConsumerGroupLowering,
           TurnLowering<TurnWaitOp, false>, TurnLowering<TurnPassOp, true>>(
          converter, state, patterns.getContext());
  patterns.add<ExitLowering, ClusterBarrierLowering, SetMaxRegistersLowering>(
      converter, patterns.getContext());
}
