//===- AxisInfo.cpp - Contiguity, divisibility and constancy --------------===//
//
// Transfer functions of the AxisInfo analysis (see AxisInfo.h). Every rule
// errs on the safe side: an unknown op yields {1, 1, 1}, except that
// elementwise ops keep the constancy common to their operands.
//
//===----------------------------------------------------------------------===//

#include "kite/Analysis/AxisInfo.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include <numeric>

using namespace mlir;
using namespace mlir::kite;

/// Largest power of two dividing `v` (capped; 0 is divisible by anything).
static int64_t powerOfTwoFactor(int64_t v) {
  if (v == 0)
    return AxisInfo::kMaxDivisibility;
  uint64_t u = static_cast<uint64_t>(v);
  return std::min<int64_t>(static_cast<int64_t>(u & (~u + 1)),
                           AxisInfo::kMaxDivisibility);
}

static int64_t numElements(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getNumElements();
  return 1;
}

/// What divides `x` at the starts of runs of `runs` elements: within a
/// longer contiguous run starting at a multiple of d, the element at offset
/// j * runs is only known to be a multiple of gcd(d, runs) (times `unit`
/// bytes for pointers); with runs = 1, of nothing.
static int64_t divisibilityAt(AxisInfo x, int64_t runs, int64_t unit = 1) {
  if (x.contiguity <= runs)
    return x.divisibility;
  return std::gcd(x.divisibility, runs * unit);
}

static int64_t capMul(int64_t a, int64_t b) {
  return std::min<int64_t>(a * b, AxisInfo::kMaxDivisibility);
}

/// Byte size of the pointee of a pointer or block of pointers.
static int64_t pointeeBytes(Type type) {
  auto ptr = cast<PointerType>(getElementTypeOrSelf(type));
  return std::max<int64_t>(1, ptr.getPointeeType().getIntOrFloatBitWidth() / 8);
}

AxisInfoAnalysis::AxisInfoAnalysis(Operation *root) {
  if (auto func = dyn_cast<func::FuncOp>(root)) {
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      AxisInfo info;
      if (auto div = func.getArgAttrOfType<IntegerAttr>(
              i, KiteDialect::getDivisibilityAttrName()))
        info.divisibility = div.getInt();
      infos[arg] = info;
    }
  }
  for (Region &region : root->getRegions())
    for (Block &block : region)
      visitBlock(block);
}

int64_t AxisInfoAnalysis::vectorElements(Value ptrs,
                                         int64_t elementBytes) const {
  AxisInfo info = get(ptrs);
  int64_t width = std::min<int64_t>(16 / elementBytes, info.contiguity);
  width = std::min<int64_t>(width, info.divisibility / elementBytes);
  return std::max<int64_t>(width, 1);
}

/// The step of a contiguous run of values of `type`: the pointee's bytes
/// for pointers, else 1.
static int64_t unitOf(Type type) {
  return isa<PointerType>(getElementTypeOrSelf(type)) ? pointeeBytes(type) : 1;
}

/// `x` with its contiguous and constant runs cut to their gcd with `runs`;
/// the shorter runs' starts divisible by what divisibilityAt says.
static AxisInfo cutRuns(AxisInfo x, int64_t runs, int64_t unit) {
  AxisInfo c;
  c.contiguity = std::gcd(x.contiguity, runs);
  c.divisibility = divisibilityAt(x, c.contiguity, unit);
  c.constancy = std::gcd(x.constancy, runs);
  return c;
}

/// What holds of both `a` and `b`, values of `type` (runs of the gcd are
/// runs of both; their starts, inside a longer run of one side, are
/// multiples of what divisibilityAt says).
static AxisInfo join(AxisInfo a, AxisInfo b, Type type) {
  int64_t unit = unitOf(type);
  AxisInfo j;
  j.contiguity = std::gcd(a.contiguity, b.contiguity);
  j.divisibility = std::gcd(divisibilityAt(a, j.contiguity, unit),
                            divisibilityAt(b, j.contiguity, unit));
  j.constancy = std::gcd(a.constancy, b.constancy);
  return j;
}

static bool differs(AxisInfo a, AxisInfo b) {
  return a.contiguity != b.contiguity || a.divisibility != b.divisibility ||
         a.constancy != b.constancy;
}

void AxisInfoAnalysis::visitBlock(Block &block) {
  for (Operation &op : block)
    visitOp(&op);
}

void AxisInfoAnalysis::visitOp(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    // Loop-carried values: start from what holds on entry and weaken by what
    // the body yields until nothing changes (every step lowers a divisor, so
    // this ends; the cap is a safety net that falls back to "unknown").
    SmallVector<AxisInfo> carried;
    for (Value init : loop.getInitArgs())
      carried.push_back(get(init));
    Block *body = loop.getBody();
    // The induction variable: lb + i * step, a multiple of what divides
    // both (a loop over blocks, `range(0, N, BLOCK)`, keeps its loads wide).
    AxisInfo iv;
    iv.divisibility = std::gcd(get(loop.getLowerBound()).divisibility,
                               get(loop.getStep()).divisibility);
    infos[loop.getInductionVar()] = iv;
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    for (int round = 0;; ++round) {
      for (auto [arg, info] : llvm::zip(loop.getRegionIterArgs(), carried))
        infos[arg] = info;
      visitBlock(*body);
      bool changed = false;
      for (auto [info, next] : llvm::zip(carried, yield.getOperands())) {
        AxisInfo joined = join(info, get(next), next.getType());
        changed |= differs(joined, info);
        info = joined;
      }
      if (!changed)
        break;
      if (round == 16)
        for (AxisInfo &info : carried)
          info = AxisInfo();
    }
    for (auto [result, info] : llvm::zip(loop.getResults(), carried))
      infos[result] = info;
    return;
  }
  for (Region &region : op->getRegions())
    for (Block &block : region)
      visitBlock(block);
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    // A result holds what both branches' yields hold.
    if (branch.getNumResults() == 0 || branch.getElseRegion().empty())
      return;
    auto thenYield = branch.thenYield(), elseYield = branch.elseYield();
    for (unsigned i = 0; i < branch.getNumResults(); ++i)
      infos[branch.getResult(i)] =
          join(get(thenYield.getOperand(i)), get(elseYield.getOperand(i)),
               branch.getResult(i).getType());
    return;
  }
  visit(op);
}

AxisInfo AxisInfoAnalysis::get(Value value) const {
  auto it = infos.find(value);
  if (it != infos.end())
    return it->second;
  return AxisInfo();
}

void AxisInfoAnalysis::visit(Operation *op) {
  if (op->getNumResults() != 1)
    return;
  Value result = op->getResult(0);
  int64_t n = numElements(result);
  auto operand = [&](unsigned i) { return get(op->getOperand(i)); };
  AxisInfo info;

  // Integer constants, scalar or splat.
  APInt constant;
  if (matchPattern(result, m_ConstantInt(&constant))) {
    info.divisibility = powerOfTwoFactor(constant.getSExtValue());
    info.constancy = n;
    infos[result] = info;
    return;
  }

  if (isa<ConvertLayoutOp>(op)) {
    infos[result] = operand(0); // the same values
    return;
  }
  if (auto hint = dyn_cast<HintOp>(op)) {
    // The user's word, on top of what is known.
    info = operand(0);
    if (auto d = hint.getDivisibility())
      info.divisibility = std::max(info.divisibility, int64_t(*d));
    if (auto c = hint.getContiguity())
      info.contiguity = std::max(info.contiguity, int64_t(*c));
    if (auto k = hint.getConstancy())
      info.constancy = std::max(info.constancy, int64_t(*k));
    infos[result] = info;
    return;
  }
  if (auto arange = dyn_cast<ArangeOp>(op)) {
    info.contiguity = n;
    info.divisibility = powerOfTwoFactor(arange.getStart());
  } else if (isa<SplatOp>(op)) {
    info.divisibility = operand(0).divisibility;
    info.constancy = n;
  } else if (isa<ExpandDimsOp>(op)) {
    // The row-major linear index is unchanged by inserting a size-1 dim.
    info = operand(0);
  } else if (auto bcast = dyn_cast<BroadcastOp>(op)) {
    AxisInfo src = operand(0);
    ArrayRef<int64_t> from = bcast.getSrc().getType().getShape();
    ArrayRef<int64_t> to = bcast.getType().getShape();
    int64_t last = to.back();
    if (from.back() == 1 && last > 1) {
      info.constancy = last;
    } else {
      info.contiguity = std::gcd(src.contiguity, last);
      info.constancy = std::gcd(src.constancy, last);
    }
    info.divisibility = divisibilityAt(src, info.contiguity);
  } else if (isa<AddPtrOp>(op)) {
    AxisInfo p = operand(0), off = operand(1);
    int64_t bytes = pointeeBytes(result.getType());
    info.contiguity = std::max(std::gcd(p.contiguity, off.constancy),
                               std::gcd(off.contiguity, p.constancy));
    info.divisibility =
        std::gcd(divisibilityAt(p, info.contiguity, bytes),
                 capMul(divisibilityAt(off, info.contiguity), bytes));
    info.constancy = std::gcd(p.constancy, off.constancy);
  } else if (isa<arith::AddIOp>(op)) {
    AxisInfo a = operand(0), b = operand(1);
    info.contiguity = std::max(std::gcd(a.contiguity, b.constancy),
                               std::gcd(b.contiguity, a.constancy));
    info.divisibility = std::gcd(divisibilityAt(a, info.contiguity),
                                 divisibilityAt(b, info.contiguity));
    info.constancy = std::gcd(a.constancy, b.constancy);
  } else if (isa<arith::SubIOp>(op)) {
    AxisInfo a = operand(0), b = operand(1);
    info.contiguity = std::gcd(a.contiguity, b.constancy);
    info.divisibility = std::gcd(divisibilityAt(a, info.contiguity),
                                 divisibilityAt(b, info.contiguity));
    info.constancy = std::gcd(a.constancy, b.constancy);
  } else if (isa<arith::MulIOp>(op)) {
    AxisInfo a = operand(0), b = operand(1);
    // Every element is a run of its own: a contiguous operand's divisibility
    // held only at its run starts.
    info.divisibility = capMul(divisibilityAt(a, 1), divisibilityAt(b, 1));
    info.constancy = std::gcd(a.constancy, b.constancy);
  } else if (isa<arith::RemSIOp, arith::RemUIOp>(op)) {
    // x % n with n constant over runs: an aligned run of g values (g
    // dividing x's run length and start, and n) cannot wrap inside, so runs
    // of g stay contiguous. Signed remainders assume x >= 0 there, as
    // Triton's analysis does (offsets modulo a size).
    AxisInfo a = operand(0), b = operand(1);
    info.constancy = std::gcd(a.constancy, b.constancy);
    if (b.constancy == n || numElements(op->getOperand(1)) == 1)
      info.contiguity = std::gcd(std::gcd(a.contiguity, a.divisibility),
                                 b.divisibility);
    info.divisibility = std::gcd(divisibilityAt(a, info.contiguity),
                                 divisibilityAt(b, info.contiguity));
  } else if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp>(op)) {
    info = operand(0);
  } else if (isa<arith::SelectOp>(op)) {
    // Each element is one of the two choices': what both hold. A block
    // condition may switch between them inside a run: runs are cut to the
    // condition's constant runs (Triton's rule).
    AxisInfo a = operand(1), b = operand(2);
    if (isa<RankedTensorType>(op->getOperand(0).getType())) {
      int64_t c = operand(0).constancy, unit = unitOf(result.getType());
      a = cutRuns(a, c, unit);
      b = cutRuns(b, c, unit);
    }
    info = join(a, b, result.getType());
  } else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    AxisInfo a = operand(0), b = operand(1);
    info.constancy = std::gcd(a.constancy, b.constancy);
    // A contiguous run compared against a constant run changes value at most
    // once, at the constant; when the run starts and the constant are both
    // multiples of g, runs of g stay on one side of it.
    auto contiguousVsConstant = [](AxisInfo c, AxisInfo k) {
      if (c.contiguity <= 1)
        return int64_t(1);
      int64_t g = std::gcd(std::gcd(c.contiguity, c.divisibility),
                           std::gcd(k.divisibility, k.constancy));
      return g;
    };
    using P = arith::CmpIPredicate;
    P pred = cmp.getPredicate();
    if (pred == P::slt || pred == P::ult || pred == P::sge || pred == P::uge)
      info.constancy = std::max(info.constancy, contiguousVsConstant(a, b));
    else if (pred == P::sgt || pred == P::ugt || pred == P::sle ||
             pred == P::ule)
      info.constancy = std::max(info.constancy, contiguousVsConstant(b, a));
  } else if (op->getNumOperands() > 0 &&
             isa<arith::ArithDialect>(op->getDialect())) {
    // Any other elementwise op: equal inputs give equal outputs.
    int64_t k = n;
    for (Value v : op->getOperands())
      k = std::gcd(k, get(v).constancy);
    info.constancy = k;
  }
  if (n == 1)
    info.contiguity = info.constancy = 1;
  infos[result] = info;
}
