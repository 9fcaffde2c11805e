//===- LayoutAssignment.cpp - Which layout each block value takes ----------===//
//
// A block's layout (BlockedLayout: how its elements are spread over the
// threads and registers) is a property of the value, not of its shape:
//   - values that must share a layout form a class: the same-shape block
//     operands and results of an op (elementwise arithmetic, addptr, a
//     load's pointers, mask, fill value and result, a store's pointers,
//     value and mask, a staged copy's pointers and mask), and what goes
//     around a loop or out of an if (init, iteration argument, yield,
//     result);
//   - the class of a dot's result takes the dot's layout: the wgmma or
//     mma.sync accumulator (WgmmaTile, MmaTile) or the register-tiled FMA
//     dot's (DotTile); tensor-core dots first when two dots meet;
//   - the class of the A operand of a kite.dot on wgmma (from registers)
//     takes wgmma's register layout for A (WgmmaTile::aLayout), unless a
//     load in the dot's loop makes it; so does the `a` of a
//     kite.dot_staged (its slot holds only B);
//   - the class of a tf32 B's pointers staged for wgmma (K-major) takes
//     BlockedLayout::getKMajorCopy (4-byte copies without bank conflicts);
//   - the class of a kite.convert_layout's result, unless a dot's layout
//     reached it, takes the linear layout in 16-byte runs of its element
//     type (the epilogue's stores: ConvertLayoutToGPU.cpp);
//   - the class of a reduction of a block whose class has a dot's layout
//     (or a slice of one) takes that layout's slice (BlockedLayout::slice:
//     attention's row max and sum need no exchange beyond the lanes of a
//     row, and m[:, None] against the accumulator is a register shuffle);
//     an expand_dims of such a block keeps its places. Where a slice would
//     make an expand_dims exchange data (its result's class has another
//     layout), the slice is withdrawn and its class keeps the linear
//     layout;
//   - every other class takes the linear layout of its shape.
// Ops whose operands and results may differ in layout (broadcast,
// expand_dims, reduce, a dot's A and B, splat, arange, convert_layout) join
// nothing: their lowerings work from each side's own layout. Layouts of one
// shape may hold different numbers of registers a thread (a slice of a wgmma
// accumulator's 128 rows: 2, the linear layout's: 1): the type conversion is
// per value (a context-aware conversion: KiteTypeConverter's getLayout(Value)).
//
// Before the conversion, separateLayoutLeaves gives every use of a cheap
// block in a kernel with a dot (splat, arange, broadcast, expand_dims,
// constant, and side-effect-free arith on those) its own copy: after CSE
// one row-offset block can serve both a dot operand's address computation
// and the epilogue, which would otherwise put the operand's pointers into
// the accumulator's layout (for a 64x128x64 matmul, B's 64x128 pointers:
// 4-byte copies instead of 16).
//
//===----------------------------------------------------------------------===//

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::kite;

namespace {

bool isBlock(Value v) { return isa<RankedTensorType>(v.getType()); }

/// Ops whose block operands and results need not share a layout.
bool joinsNothing(Operation *op) {
  return isa<BroadcastOp, ExpandDimsOp, ReduceOp, SplatOp, ArangeOp, TransOp,
             ReshapeOp, ScanOp, ConvertLayoutOp, JoinOp, SplitOp,
             SortOp>(op);
}

/// Ops that separateLayoutLeaves copies per use.
bool isLeaf(Operation *op) {
  if (isa<SplatOp, ArangeOp, BroadcastOp, ExpandDimsOp>(op))
    return true;
  auto constant = dyn_cast<arith::ConstantOp>(op);
  return constant && isa<RankedTensorType>(constant.getType());
}

} // namespace

void mlir::kite::separateLayoutLeaves(Operation *kernel) {
  bool dots = false;
  kernel->walk([&](Operation *op) {
    if (isa<DotOp, DotStagedOp>(op))
      dots = true;
  });
  if (!dots)
    return;
  // Cheap: a leaf, or side-effect-free arith on cheap blocks and scalars
  // (index arithmetic on aranges: the offsets of an operand's rows that
  // the epilogue's pointers and masks use too).
  llvm::DenseSet<Operation *> cheap;
  SmallVector<Operation *> order;
  kernel->walk([&](Operation *op) {
    if (op->getNumResults() != 1 ||
        !isa<RankedTensorType>(op->getResult(0).getType()))
      return;
    bool ok = isLeaf(op);
    if (!ok && isa<arith::ArithDialect>(op->getDialect()) && isPure(op)) {
      ok = true;
      for (Value v : op->getOperands())
        if (isBlock(v) && !cheap.count(v.getDefiningOp()))
          ok = false;
    }
    if (!ok)
      return;
    cheap.insert(op);
    order.push_back(op);
  });
  // Users first: a copy adds uses to its operands, which come earlier.
  for (Operation *op : llvm::reverse(order)) {
    Value result = op->getResult(0);
    // Of every shape: a row's offsets, `offs_m`, that index a load of one
    // value per row, `M + offs_m`, and the rows of a 2-D block,
    // `offs_m[:, None]` (the load may then take the slice of a product's
    // layout that its `m[None, :]` is read in, each thread loading what it
    // holds, while the 2-D block's rows come from the same offsets
    // computed in its own layout); the column offsets a microscaled dot's
    // two scale blocks share (each block then takes its operand's places).
    if (result.use_empty() || result.hasOneUse())
      continue;
    OpBuilder b(op);
    b.setInsertionPointAfter(op);
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : result.getUses())
      uses.push_back(&use);
    // The first use keeps the op; each other use gets a copy.
    for (OpOperand *use : llvm::drop_begin(uses))
      use->set(b.clone(*op)->getResult(0));
  }
}

void KiteTypeConverter::assignLayouts(Operation *kernel) {
  auto join = [&](Value a, Value b) {
    if (isBlock(a) && isBlock(b) &&
        cast<RankedTensorType>(a.getType()).getShape() ==
            cast<RankedTensorType>(b.getType()).getShape())
      classes.unionSets(a, b);
  };
  // Joins the blocks among `values` that have the shape of the first one.
  auto joinAll = [&](ValueRange values) {
    Value first;
    for (Value v : values) {
      if (!isBlock(v))
        continue;
      if (!first) {
        first = v;
        classes.insert(v);
        continue;
      }
      if (cast<RankedTensorType>(v.getType()).getShape() ==
          cast<RankedTensorType>(first.getType()).getShape())
        classes.unionSets(first, v);
    }
  };
  kernel->walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [init, arg, result] :
           llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                     loop.getResults()))
        if (isBlock(arg)) {
          join(init, arg);
          join(arg, result);
        }
      return;
    }
    if (auto yield = dyn_cast<scf::YieldOp>(op)) {
      if (!isa<scf::ForOp, scf::IfOp>(op->getParentOp()))
        return;
      for (auto [v, result] :
           llvm::zip(yield.getOperands(), op->getParentOp()->getResults()))
        if (isBlock(v))
          join(v, result);
      return;
    }
    if (isa<ReduceOp, ScanOp>(op)) {
      // Blocks reduced or scanned together are combined register by
      // register: one layout for them, and one for their results.
      joinAll(op->getOperands());
      joinAll(op->getResults());
      return;
    }
    if (joinsNothing(op))
      return;
    if (auto dot = dyn_cast<DotOp>(op)) {
      join(dot.getAcc(), dot.getResult());
      return;
    }
    if (auto dot = dyn_cast<DotStagedOp>(op)) {
      // (An A read from registers takes wgmma's layout for A, whatever
      // its shape: a tf32 A of the accumulator's shape is not in its
      // layout.)
      join(dot.getAcc(), dot.getResult());
      return;
    }
    if (auto g = dyn_cast<GatherOp>(op)) { // the source: through shared memory
      join(g.getIndex(), g.getResult());
      return;
    }
    if (auto h = dyn_cast<HistogramOp>(op)) { // the bins: through shared memory
      if (h.getMask())
        join(h.getSrc(), h.getMask());
      return;
    }
    SmallVector<Value> values(op->getOperands());
    values.append(op->result_begin(), op->result_end());
    joinAll(values);
  });

  // Anchoring, again without the slices that would need an exchange at an
  // expand_dims (anchorLayouts) until none does.
  DenseSet<Value> unsliced;
  while (true) {
    classLayouts.clear();
    anchorLayouts(kernel, unsliced);
    bool withdrawn = false;
    kernel->walk([&](ExpandDimsOp op) {
      if (getLayout(op.getSrc()).placesLike(getLayout(op.getResult())))
        return;
      for (Value v : {op.getSrc(), op.getResult()}) {
        auto leader = classes.findLeader(v);
        if (leader == classes.member_end())
          continue; // in no class: no slice to withdraw
        auto it = sliceOrigins.find(*leader);
        if (it != sliceOrigins.end() && unsliced.insert(it->second).second)
          withdrawn = true;
      }
    });
    if (!withdrawn)
      break;
  }
}

void KiteTypeConverter::anchorLayouts(Operation *kernel,
                                      const DenseSet<Value> &unsliced) {
  sliceOrigins.clear();
  // The leaders of the classes whose layout comes from a dot (directly, or
  // as a reduction's slice or its expand_dims).
  DenseSet<Value> fromDots;
  auto anchor = [&](Value result, const BlockedLayout &layout) {
    classes.insert(result);
    Value leader = *classes.findLeader(result);
    classLayouts.try_emplace(leader, layout);
  };
  auto leaderOf = [&](Value v) {
    classes.insert(v);
    return *classes.findLeader(v);
  };
  // The dots' layouts: tensor-core accumulators first (staged dots, then
  // dots from registers).
  auto anchorTensorCore = [&](Value result, DotEngine engine) {
    auto type = cast<RankedTensorType>(result.getType());
    int64_t M = type.getDimSize(0), N = type.getDimSize(1);
    if (engine == DotEngine::WGMMA) {
      if (auto tile = getWgmmaTile(M, N))
        anchor(result, tile->layout());
    } else if (engine == DotEngine::MMA) {
      if (auto tile = getMmaTile(M, N))
        anchor(result, tile->layout());
    }
  };
  kernel->walk([&](DotStagedOp dot) {
    anchorTensorCore(dot.getResult(), dot.getEngine());
  });
  kernel->walk([&](DotOp dot) {
    anchorTensorCore(dot.getResult(), dot.getEngine());
  });
  kernel->walk([&](Operation *op) {
    Value result;
    if (auto dot = dyn_cast<DotOp>(op);
        dot && dot.getEngine() == DotEngine::FMA)
      result = dot.getResult();
    else if (auto dot = dyn_cast<DotStagedOp>(op);
             dot && dot.getEngine() == DotEngine::FMA)
      result = dot.getResult();
    if (!result)
      return;
    auto type = cast<RankedTensorType>(result.getType());
    if (auto tile = getDotTile(type.getDimSize(0), type.getDimSize(1)))
      anchor(result, tile->layout());
  });
  for (auto &[leader, layout] : classLayouts)
    fromDots.insert(leader);
  // The A operand of a dot on wgmma from registers, unless a load in the
  // dot's loop makes it (there 16-byte loads and a store to the staging
  // beat 4-byte loads): wgmma's register layout for A (WgmmaTile::aLayout),
  // so that it is read from registers (attention's q; its p is in the
  // previous product's accumulator layout, which is the same places).
  kernel->walk([&](DotOp dot) {
    if (dot.getEngine() != DotEngine::WGMMA)
      return;
    RankedTensorType a = dot.getA().getType();
    auto tile = getWgmmaTile(a.getDimSize(0), dot.getType().getDimSize(1));
    if (!tile || a.getElementTypeBitWidth() != 16)
      return; // (wgmma's register A here is f16/bf16's)
    auto layout = tile->aLayout(a.getDimSize(1));
    auto load = dot.getA().getDefiningOp<LoadOp>();
    if (!layout ||
        (load && load->getParentRegion() == dot->getParentRegion()))
      return;
    anchor(dot.getA(), *layout);
  });
  // A staged dot that reads A from registers (its slot holds only B). An
  // A that is the transposition of a block read from a ring (an fp8 or
  // tf32 A lying M-major) is read in the transposed places: the
  // transposition moves nothing.
  kernel->walk([&](DotStagedOp dot) {
    Value a = dot.getA();
    if (!a)
      return;
    auto type = dot.getType();
    auto tile = getWgmmaTile(type.getDimSize(0), type.getDimSize(1));
    auto aType = cast<RankedTensorType>(a.getType());
    auto layout =
        tile ? tile->aLayout(dot.getK(), aType.getElementTypeBitWidth() / 8)
             : std::nullopt;
    if (!layout)
      return;
    anchor(a, *layout);
    auto trans = a.getDefiningOp<TransOp>();
    if (!trans || !trans.getSrc().getDefiningOp<StagedLoadOp>())
      return;
    if (auto read = layout->untranspose(trans.getSrc().getType().getShape(),
                                        trans.getOrder()))
      anchor(trans.getSrc(), *read);
  });
  // Reductions of blocks in a dot's layout take its slice (attention's row
  // max and sum: no exchange, and x[:, None] moves nothing), expand_dims
  // of those the same places; in program order, so chains follow.
  kernel->walk([&](Operation *op) {
    Value src, result;
    std::optional<BlockedLayout> layout;
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      src = reduce.getSrc();
      result = reduce.getResult();
      if (!isBlock(result) || !fromDots.count(leaderOf(src)) ||
          unsliced.count(leaderOf(result)))
        return;
      layout = getLayout(src).slice(reduce.getSrc().getType().getShape(),
                                    reduce.getAxis());
    } else if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
      src = expand.getSrc();
      result = expand.getResult();
      if (!fromDots.count(leaderOf(src)))
        return;
      layout = getLayout(src);
    } else {
      return;
    }
    if (!layout)
      return;
    Value leader = leaderOf(result);
    if (classLayouts.count(leader))
      return;
    anchor(result, *layout);
    fromDots.insert(leader);
    if (isa<ReduceOp>(op))
      sliceOrigins[leader] = leader;
    else if (auto it = sliceOrigins.find(leaderOf(src));
             it != sliceOrigins.end())
      sliceOrigins[leader] = it->second;
  });
  // Back from a dot's layout through reshapes and broadcasts: a reshape's
  // source takes its result's layout (layouts are digits over the
  // row-major index, which a reshape keeps: it moves nothing), and a
  // broadcast's source the result's layout with the broadcast dimensions
  // sliced away (each thread then holds what its result registers repeat:
  // a register shuffle). Sources whose class has a layout already keep it;
  // chains follow until nothing changes. (Attention's dropout decisions:
  // Philox words of a (BLOCK_M, 1, 1, 4, 1) counter block broadcast to
  // (BLOCK_M, 1, 8, 4, 2) and reshaped to the accumulator's shape, each
  // thread computing only the evaluations of its own elements.) Like the
  // reductions' slices, these are withdrawn where an expand_dims of the
  // class would then exchange data.
  //
  // The operands of a dot on the tensor cores from registers start such
  // chains too (their class keeps its layout: wgmma's for A, else the
  // linear one): a microscaled dot's scales, one per 32 elements along K,
  // broadcast and reshaped to the operand's shape, are then loaded where
  // the operand's elements are, not exchanged.
  //
  // A B whose class multiplies by a broadcast or reshaped block (factors
  // per group of rows along K: a microscaled B's scales) takes one column
  // a thread, not 16-byte runs of a row: its factors then come from the
  // few K groups its rows span (2 a thread at K = 64), not from 16 columns
  // each (mxfp8 128x128x64 on 8 warps, H100: 93 TFLOP/s with 16-byte runs,
  // 152 with column pairs, 163-172 with single columns).
  DenseSet<Value> scaled;
  kernel->walk([&](arith::MulFOp mul) {
    if (!isBlock(mul.getResult()) ||
        llvm::none_of(mul->getOperands(), [](Value v) {
          return isa_and_nonnull<BroadcastOp, ReshapeOp>(v.getDefiningOp());
        }))
      return;
    auto leader = classes.findLeader(mul.getResult());
    if (leader != classes.member_end())
      scaled.insert(*leader);
  });
  // (A B stored to a ring slot by kite.stage_operand, for a product read
  // from the slot, is such an operand too.)
  auto anchorOperand = [&](Value operand, bool isB) {
    Value leader = leaderOf(operand);
    if (!classLayouts.count(leader))
      anchor(
          operand,
          isB && scaled.count(leader)
              ? BlockedLayout::get(
                    cast<RankedTensorType>(operand.getType()).getNumElements(),
                    numThreads, 1)
              : getLayout(operand));
    fromDots.insert(leader);
  };
  // A K x (N or M) block of fp8 or tf32 stored K-major (wgmma reads them
  // K-major only) by a register dot or a kite.stage_operand: in the layout
  // that exchanges its elements in registers, 4 x 4 a thread (fp8: 4-byte
  // stores along K; f32: 16-byte ones). B as it is; A read through a
  // transposition of its K x M block (memory along M).
  auto anchorKMajor = [&](Value block) {
    auto type = cast<RankedTensorType>(block.getType());
    if (!classLayouts.count(leaderOf(block)))
      if (auto layout = BlockedLayout::getKMajorExchange(
              type.getDimSize(0), type.getDimSize(1), numThreads))
        anchor(block, *layout);
  };
  kernel->walk([&](Operation *op) {
    if (auto dot = dyn_cast<DotOp>(op)) {
      if (dot.getEngine() != DotEngine::WGMMA &&
          dot.getEngine() != DotEngine::MMA)
        return;
      Type bElement = dot.getB().getType().getElementType();
      if (dot.getEngine() == DotEngine::WGMMA &&
          (isFp8(bElement) || bElement.isF32()) && !stagedTranspose(dot))
        anchorKMajor(dot.getB());
      // A read through a transposition and stored K-major (its staging
      // says so: wgmma's fp8/tf32; mma's M-major A is stored as its source
      // lies, no exchange in registers).
      if (TransOp trans = stagedTransposeA(dot);
          trans && !registerDotStaging(dot).aMMajor)
        anchorKMajor(trans.getSrc());
      anchorOperand(dot.getA(), false);
      anchorOperand(dot.getB(), true);
    } else if (auto stage = dyn_cast<StageOperandOp>(op)) {
      // (A K x N B or K x M A's transpose, stored K-major.)
      if (stage.getElementBytes() != 2 &&
          (stage.getOperand() == 1) != stage.getTransposed())
        anchorKMajor(stage.getValue());
      anchorOperand(stage.getValue(), stage.getOperand() == 1);
    }
  });
  for (bool changed = true; changed;) {
    changed = false;
    kernel->walk([&](Operation *op) {
      Value src, result;
      std::optional<BlockedLayout> layout;
      if (auto trans = dyn_cast<TransOp>(op)) {
        // A small block (at most 4 elements a thread: the [N, K / 32]
        // scales of a microscaled B), where scattered loads cost less than
        // an exchange through shared memory; not a transposition a wgmma
        // dot's staging takes care of.
        RankedTensorType type = trans.getSrc().getType();
        if (isElidedTranspose(trans) || type.getNumElements() > 4 * numThreads)
          return;
        src = trans.getSrc();
        result = trans.getResult();
      } else if (auto reshape = dyn_cast<ReshapeOp>(op)) {
        src = reshape.getSrc();
        result = reshape.getResult();
      } else if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
        // A size-1 dimension does not change the row-major index either
        // (the attention backward's m[None, :], loaded in the loop: each
        // thread loads the columns it holds of the product).
        src = expand.getSrc();
        result = expand.getResult();
      } else if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
        src = broadcast.getSrc();
        result = broadcast.getResult();
      } else {
        return;
      }
      if (!isBlock(src) || !fromDots.count(leaderOf(result)))
        return;
      Value leader = leaderOf(src);
      if (classLayouts.count(leader) || unsliced.count(leader))
        return;
      layout = getLayout(result);
      if (auto trans = dyn_cast<TransOp>(op))
        layout = layout->untranspose(trans.getSrc().getType().getShape(),
                                     trans.getOrder());
      if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
        // Slice the broadcast dimensions away, the last first; the
        // source's size-1 dimensions do not change its row-major index.
        SmallVector<int64_t> shape(broadcast.getType().getShape());
        ArrayRef<int64_t> from = broadcast.getSrc().getType().getShape();
        for (int64_t d = int64_t(shape.size()) - 1; d >= 0 && layout; --d) {
          if (from[d] != 1 || shape[d] == 1)
            continue;
          layout = layout->slice(shape, d);
          shape[d] = 1;
        }
      }
      if (!layout)
        return;
      anchor(src, *layout);
      fromDots.insert(leader);
      sliceOrigins[leader] = leader;
      changed = true;
    });
  }
  // The pointers of a tf32 B staged K-major for wgmma: copied one element
  // at a time, in the layout whose shared-memory writes do not conflict.
  kernel->walk([&](AsyncStageOp op) {
    if (op.getEngine() != DotEngine::WGMMA || op.getOperand() != 1 ||
        op.getTransposed())
      return;
    RankedTensorType type = op.getPtr().getType();
    if (!cast<PointerType>(type.getElementType()).getPointeeType().isF32())
      return;
    if (auto layout = BlockedLayout::getKMajorCopy(
            type.getDimSize(0), type.getDimSize(1), numThreads))
      anchor(op.getPtr(), *layout);
  });
  // A layout conversion's result: the linear layout in 16-byte runs of its
  // own element type (a warp's accesses then cover consecutive bytes),
  // unless a dot's layout reached its class first (then it converts
  // nothing).
  kernel->walk([&](ConvertLayoutOp op) {
    RankedTensorType type = op.getType();
    int64_t bytes = isa<PointerType>(type.getElementType())
                        ? 8
                        : std::max<int64_t>(
                              1, type.getElementTypeBitWidth() / 8);
    anchor(op.getResult(), BlockedLayout::get(type.getNumElements(),
                                              numThreads,
                                              std::max<int64_t>(1, 16 / bytes)));
  });
}

BlockedLayout KiteTypeConverter::getLayout(Value value) const {
  auto type = cast<RankedTensorType>(value.getType());
  auto leader = classes.findLeader(value);
  if (leader != classes.member_end()) {
    auto it = classLayouts.find(*leader);
    if (it != classLayouts.end())
      return it->second;
  }
  return getLayout(type);
}
