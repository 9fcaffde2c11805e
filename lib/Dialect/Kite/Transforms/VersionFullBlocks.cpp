//===- VersionFullBlocks.cpp - A mask-free path for full blocks -----------===//
//
// kite-version-full-blocks: see Passes.td.
//
// The tutorials' one-dimensional kernels mask every access with
//   mask = offsets < n,   offsets = pid * BLOCK + arange(0, BLOCK)
// When n is not known to be a multiple of the vector width, the lowering
// cannot prove a mask uniform over a 16-byte group and pays, for every
// group, a vector access guarded by "whole group enabled" plus per-element
// accesses for a ragged group (issued, though predicated off, by every
// program). Yet all programs but the last see a mask that is all true.
//
// This pass finds such masks (a comparison of `s + arange(lo, hi)` against
// a splat of a scalar `n`, or a conjunction of them), computes the scalar
// condition under which each is all true (`s + hi - 1 < n` in 64 bits, so
// that no element can wrap), and versions the kernel body that follows the
// definitions of those scalars:
//
//   if all masks are all true:  the body, each such mask a constant true
//                               (loads and stores then fold their masks)
//   else:                       the body as written
//
// Offsets taken modulo a size (tutorial 03's `(pid_n * BLOCK_N +
// arange(0, BLOCK_N)) % N`, whose wrapped rows or columns are never
// stored) are versioned the same way: where `s + arange(lo, hi)` cannot
// wrap (0 <= s, s + hi - 1 < n) the remainder is its left operand, whose
// runs are contiguous; AxisInfo cannot see that for an n of unknown
// divisibility (runs of 1), so each element of a matmul operand's rows
// would take its own address. Only remainders that hide contiguity
// (AxisInfo's runs shorter than the operand's, and than 16) and reach a
// load's addresses; kernels with dots take this versioning (the body's
// K loop is copied; both copies' rings share the staging memory), not the
// masks'.
//
// Only where it pays: some load or store through the mask could be a vector
// access that the mask is not proved uniform over, or (uniform-masks, the
// default) any vector access through such a mask: with n a multiple of 16
// each 16-byte group still pays a predicate, and seeded dropout at 2^24
// ran at 0.96x the copy rate with them, 0.985x without (H100). Kernels with dots,
// tensor descriptors or shared-memory staging are left alone (their size
// would double for an epilogue's sake), and so are kernels whose body is
// large.
//
//===----------------------------------------------------------------------===//

#include "MaskRanges.h"

#include "kite/Analysis/AxisInfo.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Dialect/Kite/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace kite {
#define GEN_PASS_DEF_VERSIONFULLBLOCKS
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"
} // namespace kite

using namespace mlir;
namespace kd = mlir::kite;
using ::kite::detail::matchRange;
using ::kite::detail::pointeeBytes;
using ::kite::detail::raggedVector;

namespace {

/// A mask's "all true" condition: start + last OP limit, where OP is < or
/// <= (signed or unsigned) and start/limit are scalars (start may be absent:
/// 0) or constants.
struct Bound {
  Value start;   // i32/i64 scalar, or null for 0
  int64_t last;  // the largest element of the arange
  Value limit;   // scalar, or null when `constLimit` is used
  int64_t constLimit = 0;
  bool isUnsigned = false;
  bool inclusive = false;
};

/// The scalar every element of `v` equals (a splat), or a constant.
static bool matchLimit(Value v, bool isUnsigned, Value &limit,
                       int64_t &constant) {
  if (auto splat = v.getDefiningOp<kd::SplatOp>()) {
    limit = splat.getSrc();
    return true;
  }
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value))) {
    limit = {};
    constant = isUnsigned ? int64_t(value.getZExtValue()) : value.getSExtValue();
    return true;
  }
  return false;
}

/// The bounds whose conjunction makes the i1 block `mask` all true.
static bool matchMask(Value mask, SmallVectorImpl<Bound> &bounds) {
  if (auto both = mask.getDefiningOp<arith::AndIOp>())
    return matchMask(both.getLhs(), bounds) && matchMask(both.getRhs(), bounds);
  auto cmp = mask.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return false;
  using P = arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  Value block = cmp.getLhs(), other = cmp.getRhs();
  // `n > offsets` is `offsets < n`.
  switch (pred) {
  case P::sgt: pred = P::slt; std::swap(block, other); break;
  case P::sge: pred = P::sle; std::swap(block, other); break;
  case P::ugt: pred = P::ult; std::swap(block, other); break;
  case P::uge: pred = P::ule; std::swap(block, other); break;
  default: break;
  }
  if (pred != P::slt && pred != P::sle && pred != P::ult && pred != P::ule)
    return false;
  // 64-bit arithmetic on 32-bit offsets cannot overflow (i64 offsets could).
  if (getElementTypeOrSelf(block.getType()).getIntOrFloatBitWidth() > 32)
    return false;
  Bound b;
  b.isUnsigned = pred == P::ult || pred == P::ule;
  b.inclusive = pred == P::sle || pred == P::ule;
  if (!matchRange(block, b.start, b.last) ||
      !matchLimit(other, b.isUnsigned, b.limit, b.constLimit))
    return false;
  bounds.push_back(b);
  return true;
}

/// The defining op of `v` in `block`'s top level, or null for an argument
/// of `block`; fails (returns false) when `v` is defined elsewhere.
static bool topLevelDef(Value v, Block &block, Operation *&def) {
  def = nullptr;
  if (!v)
    return true;
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == &block;
  def = v.getDefiningOp();
  return def->getBlock() == &block;
}

/// `v` (an i32 or i64 scalar) widened to i64.
static Value widen(OpBuilder &b, Location loc, Value v, bool isUnsigned) {
  if (v.getType().isInteger(64))
    return v;
  if (isUnsigned)
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  return arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
}

/// A remainder `(s + arange(lo, hi)) % n` (n a splat or a constant) and the
/// bound under which it is its left operand.
static bool matchRem(Operation *op, Bound &bound) {
  if (!isa<arith::RemSIOp, arith::RemUIOp>(op) ||
      !isa<RankedTensorType>(op->getResult(0).getType()) ||
      getElementTypeOrSelf(op->getResult(0).getType()).getIntOrFloatBitWidth() >
          32)
    return false;
  bound = Bound();
  bound.isUnsigned = isa<arith::RemUIOp>(op);
  return matchRange(op->getOperand(0), bound.start, bound.last) &&
         matchLimit(op->getOperand(1), bound.isUnsigned, bound.limit,
                    bound.constLimit);
}

/// Whether `v` reaches the addresses of a load through side-effect-free ops.
static bool feedsLoadAddress(Value v) {
  SmallVector<Value> work = {v};
  llvm::SmallPtrSet<Operation *, 32> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    for (OpOperand &use : x.getUses()) {
      Operation *user = use.getOwner();
      if (auto load = dyn_cast<kd::LoadOp>(user)) {
        if (use.get() == load.getPtr())
          return true;
        continue;
      }
      // Into a loop: the iteration argument it starts (tutorial 03's
      // pointer blocks, advanced each iteration).
      if (auto loop = dyn_cast<scf::ForOp>(user)) {
        for (auto [init, arg] :
             llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs()))
          if (init == x)
            work.push_back(arg);
        continue;
      }
      if (!seen.insert(user).second || user->getNumRegions() ||
          !isMemoryEffectFree(user))
        continue;
      for (Value r : user->getResults())
        work.push_back(r);
    }
  }
  return false;
}

struct VersionFullBlocks
    : ::kite::impl::VersionFullBlocksBase<VersionFullBlocks> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp func) {
      if (func->hasAttr("kite.kernel") && !func.isExternal())
        version(func);
    });
  }

  void version(func::FuncOp func) {
    Block &entry = func.getBody().front();
    auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator());
    if (!ret || ret.getNumOperands())
      return;
    int64_t ops = 0;
    bool excluded = false, dots = false;
    func.walk([&](Operation *op) {
      ++ops;
      dots |= isa<kd::DotOp>(op);
      if (isa<kd::DotStagedOp, kd::AsyncStageOp, kd::AsyncCopyOp,
              kd::TmaStageOp, kd::MakeTensorDescOp, kd::DescriptorLoadOp,
              kd::DescriptorStoreOp>(op))
        excluded = true;
    });
    if (excluded || ops > maxOps)
      return;

    kd::AxisInfoAnalysis info(func);
    SmallVector<Value> masks;
    SmallVector<Bound> bounds;
    // The remainders worth versioning: top-level ones whose runs AxisInfo
    // cuts short, reaching a load's addresses.
    SmallVector<Operation *> rems;
    for (Operation &op : entry) {
      Bound bound;
      if (!matchRem(&op, bound))
        continue;
      int64_t runs = info.get(op.getResult(0)).contiguity;
      if (runs >= std::min<int64_t>(16, info.get(op.getOperand(0)).contiguity) ||
          !feedsLoadAddress(op.getResult(0)))
        continue;
      rems.push_back(&op);
      bounds.push_back(bound);
      if (!bound.isUnsigned && bound.start) {
        // A signed remainder is its operand for 0 <= s only.
        Bound nonNegative;
        nonNegative.start = {};
        nonNegative.last = 0;
        nonNegative.limit = bound.start;
        nonNegative.inclusive = true;
        bounds.push_back(nonNegative);
      }
    }

    // The masks worth versioning (not in kernels with dots: their size
    // would double for an epilogue's sake): top-level values whose all-true
    // condition is known, used by a load or store that could otherwise be
    // wider.
    if (!dots)
    func.walk([&](Operation *op) {
      Value ptr, mask;
      if (auto load = dyn_cast<kd::LoadOp>(op))
        ptr = load.getPtr(), mask = load.getMask();
      else if (auto store = dyn_cast<kd::StoreOp>(op))
        ptr = store.getPtr(), mask = store.getMask();
      if (!mask || llvm::is_contained(masks, mask))
        return;
      Operation *def;
      if (!topLevelDef(mask, entry, def) || !def)
        return;
      if (!raggedVector(info, ptr, mask, pointeeBytes(ptr), uniformMasks))
        return;
      SmallVector<Bound> these;
      if (!matchMask(mask, these))
        return;
      masks.push_back(mask);
      bounds.append(these);
    });
    if (masks.empty() && rems.empty())
      return;

    // The body is versioned after the last of the scalars the condition
    // reads.
    Operation *after = nullptr;
    for (const Bound &b : bounds)
      for (Value v : {b.start, b.limit}) {
        Operation *def;
        if (!topLevelDef(v, entry, def))
          return;
        if (def && (!after || after->isBeforeInBlock(def)))
          after = def;
      }
    Block::iterator first = after ? std::next(after->getIterator())
                                  : entry.begin();
    OpBuilder b(&entry, first);
    Location loc = func.getLoc();
    Value cond;
    for (const Bound &bound : bounds) {
      Value start = bound.start
                        ? widen(b, loc, bound.start, bound.isUnsigned)
                        : arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0)
                              .getResult();
      Value last = arith::AddIOp::create(
          b, loc, start,
          arith::ConstantIntOp::create(b, loc, b.getI64Type(), bound.last));
      Value limit =
          bound.limit
              ? widen(b, loc, bound.limit, bound.isUnsigned)
              : arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                             bound.constLimit)
                    .getResult();
      // No element wraps when the largest fits below the limit.
      auto pred = bound.isUnsigned
                      ? (bound.inclusive ? arith::CmpIPredicate::ule
                                         : arith::CmpIPredicate::ult)
                      : (bound.inclusive ? arith::CmpIPredicate::sle
                                         : arith::CmpIPredicate::slt);
      Value c = arith::CmpIOp::create(b, loc, pred, last, limit);
      cond = cond ? arith::AndIOp::create(b, loc, cond, c).getResult() : c;
    }
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/true);
    ifOp->setAttr(kd::kFullBlocksAttr, b.getUnitAttr());

    // Then: a copy of the body with the masks all true.
    Block *thenBlock = ifOp.thenBlock();
    OpBuilder tb = OpBuilder::atBlockBegin(thenBlock);
    IRMapping map;
    for (Value m : masks) {
      auto type = cast<RankedTensorType>(m.getType());
      Value t = arith::ConstantOp::create(
          tb, loc, DenseElementsAttr::get(type, true));
      map.map(m, t);
    }
    // Remainders before the versioned body (their scalars defined earlier
    // than the condition's last): their operands, defined before them, in
    // the full copy.
    for (Operation *rem : rems)
      if (rem->isBeforeInBlock(ifOp))
        map.map(rem->getResult(0), rem->getOperand(0));
    Block::iterator end = ifOp->getIterator();
    SmallVector<Operation *> body;
    for (Operation &op : llvm::make_range(std::next(end), Block::iterator(ret)))
      body.push_back(&op);
    tb.setInsertionPoint(thenBlock->getTerminator());
    for (Operation *op : body) {
      if (op->getNumResults() == 1 && llvm::is_contained(masks, op->getResult(0)))
        continue;
      if (llvm::is_contained(rems, op)) { // no wrap: the operand itself
        map.map(op->getResult(0), map.lookupOrDefault(op->getOperand(0)));
        continue;
      }
      tb.clone(*op, map);
    }
    // Else: the body as written.
    Block *elseBlock = ifOp.elseBlock();
    elseBlock->getOperations().splice(elseBlock->begin(), entry.getOperations(),
                                      std::next(end), Block::iterator(ret));
  }
};

} // namespace
