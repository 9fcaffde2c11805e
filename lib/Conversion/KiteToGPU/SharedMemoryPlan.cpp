//===- SharedMemoryPlan.cpp - What a kernel's shared memory holds --------===//
//
// How many bytes of the kernel's one shared-memory buffer each op needs,
// and where the parts go: the scratch of the ops that exchange data
// between threads (sharedMemoryBytes), the staging rings of the dots'
// operands after the consumer groups' scratch (kernelStagingOffset; the
// rings sized by the ops that fill them), the mbarriers after the data
// (kernelBarrierOffset), and the staging placement each staged op reads
// (stagingOf). The lowerings (SharedMemoryOpsToGPU.cpp, TensorCoreStaging,
// WgmmaToGPU, TmaToGPU, ConvertLayoutToGPU) and KiteToGPUPass's buffer
// declaration all ask here.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"
#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cstdlib>
#include <string_view>

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

int64_t mlir::kite::sharedMemoryBytes(Operation *op,
                                      const KiteTypeConverter *conv) {
  if (conv && isa<ReshapeOp, TransOp, BroadcastOp>(op) &&
      movesInRegisters(op, *conv))
    return 0;
  if (auto b = dyn_cast<BroadcastOp>(op))
    return b.getSrc().getType().getNumElements() ==
                       b.getType().getNumElements() ||
                   broadcastArangeSource(b)
               ? 0
               : blockBytes(b.getSrc().getType());
  // Atomics whose elements other threads hold copies of: the owners'
  // results, one per element.
  if (isa<AtomicRMWOp, AtomicCASOp>(op)) {
    Type t = op->getResult(0).getType();
    auto block = dyn_cast<RankedTensorType>(t);
    return block ? blockBytes(block) : elementBytes(t);
  }
  if (auto r = dyn_cast<ReduceOp>(op)) {
    // The warps' partials (AxisOpsToGPU.cpp): per result element at most
    // one per warp along the axis (the kernel's warps, 32 when it does not
    // say), for each block reduced (several: a custom reduce of a tuple),
    // then argmax/argmin's i32 indices. Softmax over 16384 columns
    // needs 32 bytes, not the block's 64 KB (which took L1 away from
    // layer norm's second and third passes over a row).
    RankedTensorType src = r.getSrc().getType();
    int64_t axisLen = src.getDimSize(r.getAxis());
    int64_t warps = 32;
    if (auto f = op->getParentOfType<func::FuncOp>())
      if (auto attr = f->getAttrOfType<IntegerAttr>(
              KiteDialect::getNumWarpsAttrName()))
        warps = attr.getInt();
    int64_t slots = src.getNumElements() / axisLen * std::min(axisLen, warps);
    bool arg = isArgReduce(r.getKind());
    int64_t bytes = arg ? 4 * slots : 0;
    for (Value s : r.getSrcs()) // one after another, 4-byte aligned
      bytes += llvm::alignTo(
          slots * elementBytes(
                      cast<RankedTensorType>(s.getType()).getElementType()),
          4);
    return bytes;
  }
  // trans and reshape exchange unless their layouts allow otherwise
  // (movesInRegisters, with the layouts).
  if (auto sc = dyn_cast<ScanOp>(op)) { // one block at a time
    int64_t bytes = 0;
    for (Value src : sc.getSrcs())
      bytes = std::max(bytes, blockBytes(cast<RankedTensorType>(src.getType())));
    return bytes;
  }
  if (auto t = dyn_cast<TransOp>(op))
    return isElidedTranspose(t) ? 0 : blockBytes(t.getSrc().getType());
  if (auto f = dyn_cast<FlipOp>(op))
    return blockBytes(f.getSrc().getType());
  if (auto so = dyn_cast<SortOp>(op)) { // keys of 4 or 8 bytes
    RankedTensorType src = so.getSrc().getType();
    unsigned bits = src.getElementType().getIntOrFloatBitWidth();
    return src.getNumElements() * (bits == 64 ? 8 : 4);
  }
  if (auto g = dyn_cast<GatherOp>(op))
    return blockBytes(g.getSrc().getType());
  if (auto h = dyn_cast<HistogramOp>(op))
    return 4 * h.getType().getNumElements();
  if (auto j = dyn_cast<JoinOp>(op))
    return blockBytes(j.getType());
  if (auto sp = dyn_cast<SplitOp>(op))
    return blockBytes(sp.getSrc().getType());
  if (auto r = dyn_cast<ReshapeOp>(op))
    return blockBytes(r.getSrc().getType());
  if (auto t = dyn_cast<TmaStoreOp>(op))
    return reusesStagingMemory(t) ? 0 : tmaStoreBytes(t);
  if (auto c = dyn_cast<ConvertLayoutOp>(op))
    return reusesStagingMemory(c) ? 0 : convertLayoutBytes(c);
  if (auto d = dyn_cast<DotOp>(op)) {
    auto a = d.getA().getType();
    // wgmma/mma: both operands in their swizzled layouts (WgmmaToGPU.cpp,
    // MmaToGPU.cpp).
    if (d.getEngine() != DotEngine::FMA)
      return registerDotStaging(d).bytes();
    // Operands staged as f32 (DotStaging; the generic path needs no more).
    return DotStaging{a.getDimSize(0), d.getB().getType().getDimSize(1),
                      a.getDimSize(1)}
        .bytes();
  }
  return 0;
}

/// The largest scratch any op of `kernel` needs.
static int64_t scratchBytes(Operation *kernel, const KiteTypeConverter *conv) {
  int64_t bytes = 0;
  kernel->walk([&](Operation *op) {
    bytes = std::max(bytes, mlir::kite::sharedMemoryBytes(op, conv));
  });
  return bytes;
}

TmaStorePanels mlir::kite::tmaStorePanels(TmaStoreOp op) {
  RankedTensorType type = op.getValue().getType();
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t eb = type.getElementTypeBitWidth() / 8;
  int64_t swizzle = SwizzledStaging::get(rows, 16, cols, eb).aSwizzle;
  int64_t count = cols * eb / swizzle;
  // Scratch of its own (a producer warp refills the slots meanwhile): a
  // ring of two panels keeps the slots' room (128x256 f16: 32 KB, not 64).
  int64_t atOnce =
      reusesStagingMemory(op) ? count : std::min<int64_t>(count, 2);
  return {count, atOnce, rows * swizzle};
}

bool mlir::kite::defersTmaStoreReads(Operation *kernel,
                                     const KiteTypeConverter *conv) {
  bool stores = false, other = false;
  kernel->walk([&](Operation *op) {
    if (auto t = dyn_cast<TmaStoreOp>(op)) {
      stores = true;
      other |= reusesStagingMemory(t);
    } else {
      // (A layout conversion may write the start of shared memory without
      // scratch bytes of its own: reusesStagingMemory.)
      other |= isa<ConvertLayoutOp>(op) || sharedMemoryBytes(op, conv) > 0;
    }
  });
  return stores && !other;
}

int64_t mlir::kite::tmaStoreBytes(TmaStoreOp op) {
  // The swizzled panels (TmaToGPU.cpp), 1024-byte aligned.
  TmaStorePanels panels = tmaStorePanels(op);
  return llvm::alignTo(panels.atOnce * panels.bytes, 1024);
}

bool mlir::kite::kernelUsesTensorCores(Operation *kernel) {
  bool found = false;
  kernel->walk([&](DotStagedOp op) {
    found |= op.getEngine() != DotEngine::FMA;
  });
  kernel->walk([&](DotOp op) { found |= op.getEngine() != DotEngine::FMA; });
  // A TMA store's swizzled panels need the same 1024-byte alignment.
  kernel->walk([&](TmaStoreOp) { found = true; });
  return found;
}

/// A staging's B placed as `place` says ([offset, slot bytes]), if given.
static SwizzledStaging placed(SwizzledStaging st,
                              std::optional<ArrayRef<int64_t>> place) {
  if (place) {
    st.bPlace = (*place)[0];
    st.slotBytes = (*place)[1];
  }
  return st;
}

SwizzledStaging mlir::kite::stagingOf(DotStagedOp op) {
  auto type = op.getType();
  std::optional<Type> operand = op.getOperandType();
  int64_t bytes = operand ? operand->getIntOrFloatBitWidth() / 8 : 2;
  SwizzledStaging st =
      placed(SwizzledStaging::get(type.getDimSize(0), type.getDimSize(1),
                                  op.getK(), bytes, op.getBKMajor(),
                                  op.getAMMajor()),
             op.getBPlace());
  if (std::optional<ArrayRef<int64_t>> aPlace = op.getAPlace())
    st.aPlace = (*aPlace)[0];
  return st;
}

SwizzledStaging mlir::kite::stagingOf(StageOperandOp op) {
  ArrayRef<int64_t> shape = op.getDotShape();
  SwizzledStaging st =
      SwizzledStaging::get(shape[0], shape[1], shape[2], op.getElementBytes(),
                           /*bKMajor=*/op.getOperand() == 1 && op.isKMajor());
  ArrayRef<int64_t> place = op.getPlace();
  if (op.getOperand() == 0)
    st.aPlace = place[0];
  else
    st.bPlace = place[0];
  st.slotBytes = place[1];
  return st;
}

SwizzledStaging mlir::kite::registerDotStaging(DotOp op) {
  RankedTensorType a = op.getA().getType();
  // B K-major: read through a transposition of its N x K block, or fp8
  // or tf32 on wgmma (it reads them K-major only; the K x N registers are
  // stored so). A M-major: an mma dot's f16/bf16 A read through a
  // transposition of its K x M block (ldmatrix.trans reads it).
  Type bElement = op.getB().getType().getElementType();
  bool bKMajor = bool(stagedTranspose(op)) ||
                 (op.getEngine() == DotEngine::WGMMA &&
                  (isFp8(bElement) || bElement.isF32()));
  bool aMMajor =
      op.getEngine() == DotEngine::MMA && bool(stagedTransposeA(op));
  return SwizzledStaging::get(a.getDimSize(0), op.getType().getDimSize(1),
                              a.getDimSize(1), a.getElementTypeBitWidth() / 8,
                              bKMajor, aMMajor);
}

/// The kite.trans [1, 0] `operand` of a tensor-core dot (wgmma or mma)
/// is, when the dot is its only user.
static TransOp soleTranspose(DotOp dot, Value operand) {
  if (dot.getEngine() != DotEngine::WGMMA && dot.getEngine() != DotEngine::MMA)
    return {};
  auto trans = operand.getDefiningOp<TransOp>();
  if (!trans || !trans->hasOneUse() ||
      trans.getOrder() != ArrayRef<int32_t>{1, 0})
    return {};
  return trans;
}

TransOp mlir::kite::stagedTranspose(DotOp dot) {
  return soleTranspose(dot, dot.getB());
}

TransOp mlir::kite::stagedTransposeA(DotOp dot) {
  Type element = dot.getA().getType().getElementType();
  // wgmma: fp8 and tf32, stored K-major (the staging it reads for f16/bf16
  // A from registers is K-major too; the registers convert). mma: f16 and
  // bf16, stored M-major (ldmatrix.trans has no 32-bit form).
  bool staged = dot.getEngine() == DotEngine::WGMMA
                    ? isFp8(element) || element.isF32()
                    : element.isF16() || element.isBF16();
  return staged ? soleTranspose(dot, dot.getA()) : TransOp();
}

bool mlir::kite::isElidedTranspose(TransOp trans) {
  if (!trans->hasOneUse())
    return false;
  auto dot = dyn_cast<DotOp>(*trans->user_begin());
  return dot && (stagedTranspose(dot) == trans ||
                 stagedTransposeA(dot) == trans);
}

SwizzledStaging mlir::kite::stagingOf(AsyncStageOp op) {
  ArrayRef<int64_t> shape = op.getDotShape();
  Type element = cast<PointerType>(op.getPtr().getType().getElementType())
                     .getPointeeType();
  // wgmma transposes f16/bf16 operands only: its tf32 B is staged K-major,
  // and so is a B staged from its transpose; an A staged from its
  // transpose is M-major.
  bool b = op.getOperand() == 1;
  return placed(SwizzledStaging::get(shape[0], shape[1], shape[2],
                                     element.getIntOrFloatBitWidth() / 8,
                                     (b && op.getTransposed()) ||
                                         (op.getEngine() == DotEngine::WGMMA &&
                                          element.isF32()),
                                     !b && op.getTransposed()),
                op.getBPlace());
}

int64_t mlir::kite::kernelConsumerGroups(Operation *kernel) {
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(
          KiteDialect::getConsumerGroupsAttrName()))
    return attr.getInt();
  return 1;
}

int64_t mlir::kite::kernelGroupScratchBytes(Operation *kernel,
                                            const KiteTypeConverter *conv) {
  return llvm::alignTo(scratchBytes(kernel, conv),
                       kernelUsesTensorCores(kernel) ? 1024 : 16);
}

int64_t mlir::kite::kernelStagingOffset(Operation *kernel,
                                        const KiteTypeConverter *conv) {
  return kernelConsumerGroups(kernel) * kernelGroupScratchBytes(kernel, conv);
}

int64_t mlir::kite::kernelBarrierCount(Operation *kernel) {
  int64_t count = 0;
  kernel->walk([&](TmaInitOp op) {
    count = std::max<int64_t>(
        count, op.getSlots() * (op.getConsumerArrivals() ? 2 : 1));
  });
  return count;
}

/// The buffer without the mbarriers.
static int64_t dataBytes(Operation *kernel, const KiteTypeConverter *conv);

int64_t mlir::kite::kernelBarrierOffset(Operation *kernel,
                                        const KiteTypeConverter *conv) {
  return llvm::alignTo(dataBytes(kernel, conv), 8);
}

int64_t mlir::kite::kernelSharedMemoryBytes(Operation *kernel,
                                            const KiteTypeConverter *conv) {
  int64_t barriers = kernelBarrierCount(kernel);
  if (!barriers)
    return dataBytes(kernel, conv);
  return kernelBarrierOffset(kernel, conv) + 8 * barriers;
}

static int64_t dataBytes(Operation *kernel, const KiteTypeConverter *conv) {
  int64_t staging = 0;
  kernel->walk([&](DotStagedOp op) {
    if (op.getAPlace() || op.getBSlot())
      return; // its rings are sized by the ops that fill them
    auto type = op.getType();
    int64_t M = type.getDimSize(0), N = type.getDimSize(1), K = op.getK();
    int64_t slot = op.getEngine() != DotEngine::FMA
                       ? stagingOf(op).bytes()
                       : DotStaging{M, N, K}.bytes();
    staging = std::max(staging, int64_t(op.getStages()) * slot);
  });
  // The rings of staged loads (kite.async_copy; loops that stage a dot's
  // operands this way have no kite.dot_staged).
  kernel->walk([&](AsyncCopyOp op) {
    staging = std::max(staging, int64_t(op.getSlots()) * op.getPlace()[1]);
  });
  // (A stage_operand ring may start after another ring: slot s at
  // place[0] + s * place[1].)
  kernel->walk([&](StageOperandOp op) {
    ArrayRef<int64_t> place = op.getPlace();
    int64_t slots = op.getSlots();
    int64_t bytes = op.getBlockBytes();
    staging = std::max(
        {staging, slots * place[1], place[0] + (slots - 1) * place[1] + bytes});
  });
  // kite.convert_layout ops where no staged operand is live use the buffer
  // from its start (ConvertLayoutToGPU.cpp).
  int64_t reuse = 0;
  kernel->walk([&](ConvertLayoutOp op) {
    if (reusesStagingMemory(op))
      reuse = std::max(reuse, convertLayoutBytes(op));
  });
  kernel->walk([&](TmaStoreOp op) {
    if (reusesStagingMemory(op))
      reuse = std::max(reuse, tmaStoreBytes(op));
  });
  return std::max(reuse, staging ? mlir::kite::kernelStagingOffset(kernel,
                                                                   conv) +
                                       staging
                                 : scratchBytes(kernel, conv));
}
