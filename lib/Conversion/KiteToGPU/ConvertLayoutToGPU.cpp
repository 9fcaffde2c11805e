//===- ConvertLayoutToGPU.cpp - Moving a block to another layout ----------===//
//
// kite.convert_layout is the one place a block changes how its elements are
// spread over threads and registers (layouts are per value:
// LayoutAssignment.cpp). Its operand keeps its producer's layout, its
// result takes its users'.
//
// The lowering: registers forwarded when both layouts place every element
// alike; otherwise through shared memory in a linear layout
// (exchangeLayout: row-major, the 16-byte chunks of rows of a multiple of
// 128 bytes swizzled by the row, so that a warp's writes of a fragment
// layout, whose lanes hold pieces of 8 rows, spread over all 32 banks),
// each side's addresses its layout composed with the buffer's
// (SharedAddresses), written and read in the widest runs of registers that
// are contiguous and aligned for every thread (16 bytes at most):
//   barrier; stores from the operand's layout; barrier; loads in the
//   result's layout.
// Where no staged dot operand is live (after a pipelined loop: see
// reusesStagingMemory) it uses the start of the kernel's shared memory,
// staging slots included, instead of scratch of its own: it first waits
// for the outstanding cp.async groups (the pipeline's last prefetches) and
// ends with a barrier, so that a later user may overwrite it.
//
// insertEpilogueConversions puts one before each store of a tensor-core
// dot's result shape where the shared memory it needs (none beyond the
// slots when it reuses them, else scratch of its own) leaves as many
// programs on an SM as before: the wgmma and mma.sync accumulators hold two consecutive
// columns of 8 rows a warp (8-byte stores, 8 rows a warp instruction); in
// the linear layout a warp writes 512 consecutive bytes of one row in
// 16-byte stores, with half the store and address instructions.
//
//===----------------------------------------------------------------------===//

#include "Scratch.h"
#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cstdint>
#include <set>

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {

/// The kite.dot_staged loops of `kernel` and, per loop, the span of its
/// block where staged operands may be live: from the first copy before it
/// (the prologue: kite.async_stage, or kite.tma_stage) to the last
/// kite.dot_wait after it. (The loop of a prologue's copies is not such a
/// loop: in a persistent kernel it is the tile loop, whose epilogue comes
/// after the tile's K loop and its final wait.)
SmallVector<std::pair<Operation *, Operation *>> stagingSpans(Operation *kernel) {
  std::set<Operation *> loops;
  auto add = [&](Operation *op) {
    Operation *loop = op->getParentOfType<scf::ForOp>();
    loops.insert(loop ? loop : op);
  };
  kernel->walk([&](DotStagedOp op) { add(op); });
  kernel->walk([&](StagedLoadOp op) { add(op); });
  SmallVector<std::pair<Operation *, Operation *>> spans;
  for (Operation *loop : loops) {
    Operation *first = loop, *last = loop;
    for (Operation *o = loop->getPrevNode(); o; o = o->getPrevNode())
      if (isa<AsyncStageOp, AsyncCopyOp, AsyncCommitOp, TmaStageOp>(o))
        first = o;
    for (Operation *o = loop->getNextNode(); o; o = o->getNextNode())
      if (isa<DotWaitOp, AsyncWaitOp>(o))
        last = o;
    spans.push_back({first, last});
  }
  return spans;
}

} // namespace

LinearLayout mlir::kite::exchangeLayout(ArrayRef<int64_t> shape,
                                        int64_t elemBytes) {
  int64_t rowLen = shape.empty() ? 1 : shape.back();
  int64_t numel = 1;
  for (int64_t d : shape)
    numel *= d;
  int64_t rowBytes = rowLen * elemBytes;
  bool swizzled = rowBytes % 128 == 0;
  return LinearLayout::probe(numel, [&](int64_t lin) {
    int64_t o = lin * elemBytes;
    if (swizzled)
      o ^= ((o / rowBytes) & 7) << 4;
    return o;
  });
}

LinearLayout mlir::kite::blockStagingLayout(ArrayRef<int64_t> shape,
                                            int64_t elemBytes) {
  int64_t rowBytes = (shape.empty() ? 1 : shape.back()) * elemBytes;
  if (shape.size() == 2 && rowBytes % 32 == 0)
    return SwizzledStaging::get(shape[0], 16, shape[1], elemBytes)
        .operandLayout(0);
  if (rowBytes % 128 == 0)
    return exchangeLayout(shape, elemBytes);
  int64_t numel = 1;
  for (int64_t d : shape)
    numel *= d;
  bool lines = rowBytes >= 16 && 128 % rowBytes == 0;
  return LinearLayout::probe(numel, [&](int64_t lin) {
    int64_t o = lin * elemBytes;
    if (lines)
      o ^= ((o / 128) & 7) << 4;
    return o;
  });
}

int64_t mlir::kite::stagedBlockBytes(RankedTensorType block) {
  return block.getNumElements() *
         std::max<int64_t>(1, block.getElementTypeBitWidth() / 8);
}

int64_t mlir::kite::convertLayoutBytes(ConvertLayoutOp op) {
  RankedTensorType type = op.getType();
  return llvm::alignTo(
      type.getNumElements() * elementBytes(type.getElementType()), 16);
}

bool mlir::kite::reusesStagingMemory(Operation *op) {
  auto kernel = op->getParentOfType<FunctionOpInterface>();
  if (!kernel)
    return false;
  // A producer warp in a tile loop (a persistent kernel) loads the next
  // tile into the slots while the others convert this one's result: no
  // reuse inside a loop around a staged dot.
  bool producer = false;
  kernel->walk([&](WarpIsProducerOp) { producer = true; });
  // Consumer groups (ping-pong): another group may be in its K loop at any
  // point of this one's.
  bool groups = false;
  kernel->walk([&](ConsumerGroupOp) { groups = true; });
  if (groups)
    return false;
  if (producer)
    for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
         loop = loop->getParentOfType<scf::ForOp>())
      if (loop->walk([](DotStagedOp) { return WalkResult::interrupt(); })
              .wasInterrupted())
        return false;
  for (auto [first, last] : stagingSpans(kernel)) {
    Operation *at = first->getBlock()->findAncestorOpInBlock(*op);
    if (!at)
      continue;
    if (!at->isBeforeInBlock(first) && !last->isBeforeInBlock(at))
      return false; // inside the span (or the loop itself)
  }
  return true;
}

bool mlir::kite::detail::waitForStagedCopies(OpBuilder &b, Location loc,
                                             Operation *op) {
  if (!reusesStagingMemory(op))
    return false;
  bool staged = false;
  op->getParentOfType<FunctionOpInterface>()->walk(
      [&](Operation *o) { staged |= isa<AsyncStageOp, AsyncCopyOp>(o); });
  // The pipeline's last prefetches may be in flight.
  if (staged)
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  return staged;
}

SmallVector<int64_t> mlir::kite::detail::registerRuns(const BlockedLayout &l, int64_t rowLen,
                                  int64_t maxWidth) {
  std::set<int64_t> bases;
  for (int64_t t = 0; t < l.numThreads; ++t)
    bases.insert(l.threadOffset(t));
  SmallVector<int64_t> runs(l.perThread, 0);
  for (int64_t e = 0; e < l.perThread;) {
    int64_t w = maxWidth;
    for (; w > 1; w /= 2) {
      if (e % w || e + w > l.perThread || rowLen % w)
        continue;
      bool ok = true;
      int64_t first = l.registerOffset(e);
      for (int64_t i = 1; i < w && ok; ++i)
        ok = l.registerOffset(e + i) == first + i;
      for (int64_t base : bases)
        ok = ok && (base + first) % w == 0;
      if (ok)
        break;
    }
    runs[e] = w;
    e += w;
  }
  return runs;
}

void mlir::kite::insertEpilogueConversions(Operation *kernel) {
  std::set<std::pair<int64_t, int64_t>> shapes;
  kernel->walk([&](DotStagedOp d) {
    if (d.getEngine() != DotEngine::FMA)
      shapes.insert({d.getType().getDimSize(0), d.getType().getDimSize(1)});
  });
  kernel->walk([&](DotOp d) {
    if (d.getEngine() != DotEngine::FMA)
      shapes.insert({d.getType().getDimSize(0), d.getType().getDimSize(1)});
  });
  if (shapes.empty())
    return;
  // Programs an SM holds by their shared memory (228 KB an SM, 1 KB of it
  // reserved per program): a conversion may grow the kernel's shared memory
  // as long as that number stays.
  auto programsPerSM = [](int64_t bytes) {
    return bytes ? 228 * 1024 / (bytes + 1024) : INT64_MAX;
  };
  int64_t before = kernelSharedMemoryBytes(kernel), now = before;
  SmallVector<StoreOp> stores;
  kernel->walk([&](StoreOp store) {
    auto type = dyn_cast<RankedTensorType>(store.getValue().getType());
    if (type && type.getRank() == 2 &&
        shapes.count({type.getDimSize(0), type.getDimSize(1)}) &&
        !store.getValue().getDefiningOp<ConvertLayoutOp>())
      stores.push_back(store);
  });
  for (StoreOp store : stores) {
    OpBuilder b(store);
    auto convert =
        ConvertLayoutOp::create(b, store.getLoc(), store.getValue().getType(),
                                store.getValue());
    // Reusing the staging slots it costs nothing beyond its own size;
    // otherwise (inside a pipelined loop, or beside a producer warp that
    // runs ahead into the next tile) it takes scratch before the slots.
    int64_t bytes = reusesStagingMemory(convert)
                        ? std::max(now, convertLayoutBytes(convert))
                        : now + convertLayoutBytes(convert);
    if (programsPerSM(bytes) < programsPerSM(before)) {
      convert->erase();
      continue;
    }
    now = bytes;
    store.getValueMutable().assign(convert.getResult());
  }
}

namespace {

/// Pattern: kite.convert_layout => the registers, or through shared memory.
struct ConvertLayoutLowering : OpConversionPattern<ConvertLayoutOp> {
  ConvertLayoutLowering(KiteTypeConverter &c, const KiteLoweringState &s,
                        MLIRContext *ctx)
      : OpConversionPattern(c, ctx), state(s) {}

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto &conv = *getTypeConverter<KiteTypeConverter>();
    BlockedLayout in = conv.getLayout(op.getSrc()),
                  out = conv.getLayout(op.getResult());
    if (in.placesLike(out)) {
      rewriter.replaceOp(op, adaptor.getSrc());
      return success();
    }
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type kiteElem = type.getElementType();
    auto resultType = cast<VectorType>(conv.convertType(op.getResult()));
    Type elem = resultType.getElementType();
    Type mem = Scratch::memoryType(elem);
    int64_t eb = elementBytes(kiteElem);
    int64_t rowLen = type.getRank() ? type.getShape().back() : 1;
    LinearLayout buffer = exchangeLayout(type.getShape(), eb);
    std::optional<LinearLayout> inBits = linearLayoutOf(op, in, "a source");
    if (!inBits)
      return failure();
    std::optional<LinearLayout> outBits = linearLayoutOf(op, out, "a result");
    if (!outBits)
      return failure();
    Scratch s(rewriter, loc, state);

    bool overStaging = waitForStagedCopies(rewriter, loc, op);
    s.barrier();

    auto vectorOf = [&](int64_t w) -> Type {
      return w == 1 ? mem : VectorType::get({w}, mem);
    };
    Value regs = adaptor.getSrc();
    auto inRuns = registerRuns(in, rowLen, std::max<int64_t>(1, 16 / eb));
    SharedAddresses inAddr(rewriter, loc, inBits->compose(buffer), 0, s.base);
    for (int64_t e = 0; e < in.perThread; ++e) {
      int64_t w = inRuns[e];
      if (!w)
        continue;
      auto memValue = [&](int64_t i) {
        Value v = extractRegister(rewriter, loc, regs, e + i);
        if (elem.isInteger(1))
          v = arith::ExtUIOp::create(rewriter, loc, mem, v);
        return v;
      };
      Value v;
      if (w == 1) {
        v = memValue(0);
      } else {
        v = constantOf(rewriter, loc, vectorOf(w), 0);
        for (int64_t i = 0; i < w; ++i)
          v = vector::InsertOp::create(rewriter, loc, memValue(i), v, i);
      }
      LLVM::StoreOp::create(rewriter, loc, v, inAddr.at(e), w * eb);
    }
    s.barrier();

    SharedAddresses outAddr(rewriter, loc, outBits->compose(buffer), 0,
                            s.base);
    Value result =
        loadRegisterRuns(rewriter, loc, out, resultType, rowLen, eb, outAddr);
    if (overStaging) // a later staging may overwrite what we read
      s.barrier();
    rewriter.replaceOp(op, result);
    return success();
  }
  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateConvertLayoutPatterns(KiteTypeConverter &converter,
                                               const KiteLoweringState &state,
                                               RewritePatternSet &patterns) {
  patterns.add<ConvertLayoutLowering>(converter, state, patterns.getContext());
}
