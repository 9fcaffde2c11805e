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
// wgmma on sm_90a, A from registers, B through the staging).
//
//===----------------------------------------------------------------------===//

#include "DotSchedules.h"
#include "LoopSlices.h"

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

} // namespace

bool stageOperandLoads(func::FuncOp func, scf::ForOp loop, kd::DotOp dot,
                       StringRef chip, int64_t warps, int64_t stages) {
  if (chipVersion(chip) < 80 || stages < 2)
    return false; // cp.async is sm_80's
  Block *body = loop.getBody();
  // Only where an operand is computed: a dot of two loads is the operand
  // stagings' (or stays as it is because they could not take it).
  auto loaded = [&](Value v) {
    auto load = v.getDefiningOp<kd::LoadOp>();
    return load && load->getBlock() == body;
  };
  if (loaded(dot.getA()) && loaded(dot.getB()))
    return false;
  Type aElement = dot.getA().getType().getElementType();
  if (!(aElement.isF16() || aElement.isBF16()))
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
  // The ring beside the scratch of the kernel's other ops (the register
  // dot's staging among them).
  int64_t scratch = 0;
  func.walk([&](Operation *op) {
    scratch = std::max(scratch, kd::sharedMemoryBytes(op));
  });
  scratch = llvm::alignTo(scratch, 1024);
  while (stages > 2 && scratch + stages * slotBytes > kd::kMaxSharedMemory)
    --stages;
  if (scratch + stages * slotBytes > kd::kMaxSharedMemory)
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
  const int64_t S = stages, D = S - 1;
  auto copyAt = [&](IRMapping &map, Value ivAt, Value slot) {
    for (Operation *op : slices->slice)
      rewriter.clone(*op, map);
    Value more = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                       ivAt, loop.getUpperBound());
    for (auto [load, offset] : llvm::zip(copied, offsets)) {
      Value ptr = map.lookupOrDefault(load.getPtr());
      Value mask = load.getMask() ? map.lookupOrDefault(load.getMask())
                                  : Value();
      kd::AsyncCopyOp::create(
          rewriter, load.getLoc(), ptr,
          guardMask(rewriter, loc, mask, more, ptr.getType()), slot,
          rewriter.getDenseI64ArrayAttr({offset, slotBytes}),
          rewriter.getI64IntegerAttr(S));
    }
    kd::AsyncCommitOp::create(rewriter, loc);
  };
  rewriter.setInsertionPoint(loop);
  for (int64_t d = 0; d < D; ++d) {
    auto [map, ivAt] = slices->ahead(rewriter, loop, loop.getLowerBound(),
                                     slices->initialArgs(loop), d);
    copyAt(map, ivAt, constant(d));
  }
  rewriter.setInsertionPointToStart(loop.getBody());
  kd::AsyncWaitOp::create(rewriter, loc, D - 1);
  Value iv = loop.getInductionVar();
  Value index = arith::DivSIOp::create(
      rewriter, loc,
      arith::SubIOp::create(rewriter, loc, iv, loop.getLowerBound()),
      loop.getStep());
  Value slot = arith::RemSIOp::create(rewriter, loc, index, constant(S));
  Value aheadSlot = arith::RemSIOp::create(
      rewriter, loc, arith::AddIOp::create(rewriter, loc, index, constant(D)),
      constant(S));
  {
    auto [map, ivAt] =
        slices->ahead(rewriter, loop, iv, slices->currentArgs(loop), D);
    copyAt(map, ivAt, aheadSlot);
  }
  for (auto [load, offset] : llvm::zip(copied, offsets)) {
    rewriter.setInsertionPoint(load);
    rewriter.replaceOpWithNewOp<kd::StagedLoadOp>(
        load, load.getType(), slot,
        rewriter.getDenseI64ArrayAttr({offset, slotBytes}),
        rewriter.getI64IntegerAttr(S));
  }
  rewriter.setInsertionPointAfter(loop);
  kd::AsyncWaitOp::create(rewriter, loc, 0);
  carrySlots(rewriter, loop, slot, aheadSlot, Value(), D, S);
  return true;
}

} // namespace kite::detail
