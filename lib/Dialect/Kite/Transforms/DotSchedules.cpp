//===- DotSchedules.cpp - What the staged-dot schedules share ------------===//

#include "DotSchedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
namespace kd = mlir::kite;

namespace kite::detail {

bool zeroFilled(kd::LoadOp load) {
  Value other = load.getOther();
  if (!other)
    return true;
  if (matchPattern(other, m_Zero()) || matchPattern(other, m_PosZeroFloat()))
    return true;
  DenseElementsAttr dense;
  if (!matchPattern(other, m_Constant(&dense)) || !dense.isSplat())
    return false;
  if (isa<FloatType>(dense.getElementType()))
    return dense.getSplatValue<APFloat>().isPosZero();
  return dense.getSplatValue<APInt>().isZero();
}

bool stageableContents(kd::LoadOp load, Type element) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  return type && type.getElementType() == element && zeroFilled(load);
}

int64_t chipVersion(StringRef chip) {
  unsigned version = 0;
  if (!chip.consume_front("sm_") ||
      chip.take_while(llvm::isDigit).getAsInteger(10, version))
    return 0;
  return version;
}

kd::LoadOp stageableLoad(Value v, Block *body, Type element) {
  auto load = v.getDefiningOp<kd::LoadOp>();
  if (!load || load->getBlock() != body || !load->hasOneUse() ||
      !stageableContents(load, element))
    return {};
  return load;
}

SmallVector<int64_t> dotShapeOf(kd::DotOp dot) {
  RankedTensorType aType = dot.getA().getType(), bType = dot.getB().getType();
  return {aType.getDimSize(0), bType.getDimSize(1), aType.getDimSize(1)};
}

std::optional<unsigned> carriedAccumulator(kd::DotOp dot, Block *body) {
  auto arg = dyn_cast<BlockArgument>(dot.getAcc());
  if (arg && arg.getOwner() == body && arg.getArgNumber() > 0 &&
      arg.hasOneUse() && dot->hasOneUse() &&
      isa<scf::YieldOp>(*dot->getUsers().begin()) &&
      dot->getUses().begin()->getOperandNumber() == arg.getArgNumber() - 1)
    return arg.getArgNumber() - 1;
  return std::nullopt;
}

Operation *waitAroundLoop(IRRewriter &rewriter, scf::ForOp loop,
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
  return done;
}

/// Moves `loop` and the waits for its accumulators after it (up to
/// `last`) into an scf.if that runs them where the loop runs at least once;
/// where it does not, the values they give are the loop's initial ones.
/// The path that skips the loop then reaches the code after it without a
/// wait: where both versions of a kernel (kite-version-full-blocks) share
/// their epilogue once LLVM merges them, a wait on that path makes ptxas
/// serialize every wgmma of the kernel (C7515). Nothing changes where a
/// value of those ops has no initial counterpart. Leaves the rewriter
/// after them.
static void runWhereItRuns(IRRewriter &rewriter, scf::ForOp loop,
                           Operation *last) {
  rewriter.setInsertionPointAfter(last);
  SmallVector<Operation *> ops;
  for (Operation *op = loop; op; op = op->getNextNode()) {
    ops.push_back(op);
    if (op == last)
      break;
  }
  llvm::SmallPtrSet<Operation *, 8> moved(ops.begin(), ops.end());
  auto inside = [&](Operation *user) {
    Operation *op = loop->getBlock()->findAncestorOpInBlock(*user);
    return op && moved.count(op);
  };
  // The values used after the ops, and what they are without the loop.
  SmallVector<Value> escaping, skipped;
  for (Operation *op : ops)
    for (Value v : op->getResults()) {
      if (llvm::all_of(v.getUsers(), inside))
        continue;
      Value fromLoop = v;
      if (auto wait = dyn_cast<kd::DotWaitOp>(op))
        fromLoop = wait.getAcc();
      auto result = dyn_cast<OpResult>(fromLoop);
      if (!result || result.getOwner() != loop)
        return;
      escaping.push_back(v);
      skipped.push_back(loop.getInitArgs()[result.getResultNumber()]);
    }
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value ran = arith::CmpIOp::create(rewriter, loc,
                                    loop.getUnsignedCmp()
                                        ? arith::CmpIPredicate::ult
                                        : arith::CmpIPredicate::slt,
                                    loop.getLowerBound(), loop.getUpperBound());
  auto ifOp = scf::IfOp::create(rewriter, loc, ValueRange(escaping).getTypes(),
                                ran, /*withElseRegion=*/true);
  for (auto [i, v] : llvm::enumerate(escaping))
    v.replaceUsesWithIf(ifOp.getResult(i), [&](OpOperand &use) {
      return !inside(use.getOwner()) && !ifOp->isAncestor(use.getOwner());
    });
  Block *then = ifOp.thenBlock();
  for (Operation *op : ops)
    op->moveBefore(then, then->end());
  rewriter.setInsertionPointToEnd(then);
  scf::YieldOp::create(rewriter, loc, escaping);
  rewriter.setInsertionPointToEnd(ifOp.elseBlock());
  scf::YieldOp::create(rewriter, loc, skipped);
  rewriter.setInsertionPointAfter(ifOp);
}

void drainAfterLoop(IRRewriter &rewriter, scf::ForOp loop,
                    ArrayRef<unsigned> carried) {
  Operation *last = loop;
  for (unsigned i : carried) {
    rewriter.setInsertionPointAfter(last);
    last = waitAroundLoop(rewriter, loop, i);
  }
  // (Only in a version of the kernel: elsewhere nothing merges the path
  // that skips the loop with another loop's, and the scf.if costs
  // registers: the attention backward's 168 -> 188.)
  bool versioned = false;
  for (Operation *op = loop->getParentOp(); op; op = op->getParentOp())
    versioned |= op->hasAttr(kd::kFullBlocksAttr);
  if (!carried.empty() && versioned)
    runWhereItRuns(rewriter, loop, last);
  else
    rewriter.setInsertionPointAfter(last);
  // (After the loop's scf.if: a copy of the prologue may be in flight,
  // zero-filling its slot, where the loop does not run.)
  kd::AsyncWaitOp::create(rewriter, loop.getLoc(), 0);
}

scf::ForOp carrySlots(IRRewriter &rewriter, scf::ForOp loop, Value slot,
                      Value ahead, Value phase, int64_t D, int64_t slots,
                      SlotStart start) {
  Location loc = loop.getLoc();
  Type i32 = rewriter.getI32Type();
  rewriter.setInsertionPoint(loop);
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, i32, v);
  };
  Value first = start.slot ? start.slot : constant(0);
  SmallVector<Value> inits = {first};
  if (ahead)
    inits.push_back(
        start.slot ? Value(arith::RemSIOp::create(
                         rewriter, loc,
                         arith::AddIOp::create(rewriter, loc, first,
                                               constant(D)),
                         constant(slots)))
                   : constant(D % slots));
  if (phase)
    inits.push_back(start.phase ? start.phase : constant(0));
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
          Value wrap =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, n, end);
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
    return {}; // the remainders stay: correct, slower
  auto forOp = cast<scf::ForOp>(grown->getOperation());
  auto args = forOp.getRegionIterArgs();
  size_t at = args.size() - inits.size();
  rewriter.replaceAllUsesWith(slot, args[at++]);
  if (ahead)
    rewriter.replaceAllUsesWith(ahead, args[at++]);
  if (phase)
    rewriter.replaceAllUsesWith(phase, args[at]);
  return forOp;
}

} // namespace kite::detail
