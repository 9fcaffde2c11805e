//===- SplitFullIterations.cpp - Loops' full iterations without masks -----===//
//
// kite-split-full-iterations: see Passes.td.
//
// Users mask every iteration of a loop over a dimension:
//   for start_n in range(0, N, BLOCK_N):
//       cols = start_n + arange(0, BLOCK_N)
//       k = load(K + ..., mask=cols[None, :] < N)
//       qk = where(cols[None, :] < N, qk, -inf)
// (tutorial 06 as users write it; tutorial 03's K tail, `offs_k < K - k *
// BLOCK_K`; a layer norm's column loop). All iterations but the last see
// masks that are all true, yet each pays the comparisons, the selects and
// the predicated accesses. This pass finds, in an innermost scf.for, the
// block comparisons `s + arange(lo, hi) < n` (through expand_dims,
// broadcast and reshape; `<` or `<=`, signed) whose scalars are affine in
// the induction variable with a constant coefficient and otherwise read
// values defined outside the loop, such that the mask is all true on a
// prefix of the iterations:
//   s(iv) = a * iv + S0,  n(iv) = c * iv + N0,  D = a - c > 0
//   all true  <=>  s + hi - 1 < n  <=>  D * iv < N0 - S0 - (hi - 1)
//             <=>  iv < T = ceildiv(N0 - S0 - (hi - 1), D)
// and splits the loop at the first iteration that is not full:
//   mid = lb + ceildiv(max(0, min(ub, T) - lb), step) * step  (at most ub)
//   for iv in [lb, mid):  the body, each such mask a constant true
//   for iv in [mid, ub):  the body as written
// in 64-bit arithmetic. The kernel computes s and n in their own (32-bit)
// type; every node of their expressions is affine in iv, hence monotone,
// so evaluating each at the first and the last full iteration and finding
// it within its type's range proves no node wraps in between (otherwise
// mid = lb: every iteration runs as written).
//
// Later passes treat the two loops as any two loops: the staging of a dot's
// operands pipelines each (their rings share the staging memory), masks
// that fold to true leave plain loads. Only innermost loops of at most
// `max-ops` ops with a masked load or store, and only where it pays: some
// such mask selects data (a `where` on every element: attention's scores),
// or, in a loop without a dot, guards an access that could be a wider
// vector than AxisInfo proves the mask uniform over. A dot's K tail alone
// (tutorial 03) is left as written: its operand loads are copies into the
// staging either way, the mask a copy's size.
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
#include "mlir/Pass/Pass.h"

#include <set>
#include <tuple>

namespace kite {
#define GEN_PASS_DEF_SPLITFULLITERATIONS
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"
} // namespace kite

using namespace mlir;
namespace kd = mlir::kite;
using namespace ::kite::detail;

namespace {

/// A mask `s + arange(.., last + 1) < n` (or <=) of the loop.
struct FullMask {
  Operation *cmp;
  Value start; // scalar s, or null for a bare arange
  int64_t last;
  Value limit;
  bool inclusive;
  int64_t slope; // D = coef(s) - coef(n) > 0
};

class Splitter {
public:
  explicit Splitter(scf::ForOp loop) : loop(loop) {}

  /// `v`'s coefficient of iv when it is affine in iv through the loop's
  /// integer add, sub, multiply by constants and sign extension; values
  /// defined outside the loop and constants are its constant terms.
  std::optional<int64_t> coefficient(Value v) {
    int64_t coef = 0;
    if (!addCoefficient(v, coef, 1))
      return std::nullopt;
    return coef;
  }

  /// Adds `scale` x v's coefficient to `coef` (each at most 2^31 in
  /// magnitude).
  bool addCoefficient(Value v, int64_t &coef, int64_t scale) {
    constexpr int64_t kMax = int64_t(1) << 31;
    if (!v.getType().isSignlessInteger() ||
        v.getType().getIntOrFloatBitWidth() > 64 || std::abs(scale) > kMax)
      return false;
    if (v == loop.getInductionVar()) {
      coef += scale;
      return std::abs(coef) <= kMax;
    }
    if (loop.isDefinedOutsideOfLoop(v) || matchPattern(v, m_Constant()))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    APInt c;
    if (auto add = dyn_cast<arith::AddIOp>(def))
      return addCoefficient(add.getLhs(), coef, scale) &&
             addCoefficient(add.getRhs(), coef, scale);
    if (auto sub = dyn_cast<arith::SubIOp>(def))
      return addCoefficient(sub.getLhs(), coef, scale) &&
             addCoefficient(sub.getRhs(), coef, -scale);
    if (auto mul = dyn_cast<arith::MulIOp>(def)) {
      Value x = mul.getLhs(), y = mul.getRhs();
      if (!matchPattern(y, m_ConstantInt(&c)))
        std::swap(x, y);
      if (!matchPattern(y, m_ConstantInt(&c)) || c.getSignificantBits() > 32)
        return false;
      return addCoefficient(x, coef, scale * c.getSExtValue());
    }
    if (auto ext = dyn_cast<arith::ExtSIOp>(def))
      return addCoefficient(ext.getIn(), coef, scale);
    return false;
  }

  /// `v` evaluated in 64 bits with iv = `iv64`; each node's value is
  /// appended to `values` with its width.
  Value emit(OpBuilder &b, Location loc, Value v, Value iv64,
             DenseMap<Value, Value> &memo,
             SmallVectorImpl<std::pair<Value, unsigned>> &values) {
    if (Value known = memo.lookup(v))
      return known;
    Type i64 = b.getI64Type();
    Value r;
    APInt c;
    if (v == loop.getInductionVar()) {
      r = iv64;
    } else if (matchPattern(v, m_ConstantInt(&c))) {
      r = arith::ConstantIntOp::create(b, loc, i64, c.getSExtValue());
    } else if (loop.isDefinedOutsideOfLoop(v)) {
      r = v.getType().isInteger(64) ? v
                                    : arith::ExtSIOp::create(b, loc, i64, v)
                                          .getResult();
    } else {
      Operation *def = v.getDefiningOp();
      auto operand = [&](unsigned i) {
        return emit(b, loc, def->getOperand(i), iv64, memo, values);
      };
      if (isa<arith::AddIOp>(def))
        r = arith::AddIOp::create(b, loc, operand(0), operand(1));
      else if (isa<arith::SubIOp>(def))
        r = arith::SubIOp::create(b, loc, operand(0), operand(1));
      else if (isa<arith::MulIOp>(def))
        r = arith::MulIOp::create(b, loc, operand(0), operand(1));
      else // extsi
        r = operand(0);
      // (A leaf, iv or a value of the kernel, is within its type.)
      values.push_back({r, v.getType().getIntOrFloatBitWidth()});
    }
    memo[v] = r;
    return r;
  }

  scf::ForOp loop;
};

static int64_t countOps(Operation *op) {
  int64_t n = 0;
  op->walk([&](Operation *) { ++n; });
  return n;
}

/// The values a mask's elements reach unchanged: through shape ops and
/// conjunctions.
static void maskUses(Value mask, SmallVectorImpl<OpOperand *> &uses) {
  SmallVector<Value> work = {mask};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<kd::ExpandDimsOp, kd::BroadcastOp, kd::ReshapeOp, arith::AndIOp>(
              user)) {
        if (seen.insert(user).second)
          work.push_back(user->getResult(0));
        continue;
      }
      uses.push_back(&use);
    }
  }
}

/// Whether running `m` as all true buys more than the loop's size: it
/// selects data (a `where` on every element), or, in a loop without a dot
/// (whose masked operand loads the staging takes as copies either way), it
/// guards an access that could be a wider vector than the mask is proved
/// uniform over.
static bool pays(const FullMask &m, bool dots,
                 const kd::AxisInfoAnalysis &info) {
  SmallVector<OpOperand *> uses;
  maskUses(m.cmp->getResult(0), uses);
  for (OpOperand *use : uses) {
    Operation *user = use->getOwner();
    if (auto select = dyn_cast<arith::SelectOp>(user))
      if (use->get() == select.getCondition())
        return true;
    if (dots)
      continue;
    Value ptr;
    if (auto load = dyn_cast<kd::LoadOp>(user); load && use->get() == load.getMask())
      ptr = load.getPtr();
    if (auto store = dyn_cast<kd::StoreOp>(user); store && use->get() == store.getMask())
      ptr = store.getPtr();
    if (ptr && raggedVector(info, ptr, use->get(), pointeeBytes(ptr),
                            /*uniform=*/false))
      return true;
  }
  return false;
}

/// Whether no iteration of `loop` can have `m` all true because the loop
/// starts where the full blocks end: `for s in range(n // c * c, ...)` with
/// the mask `s + arange(0, B) < n`, c <= B (the remainder loop users write
/// after a loop over whole blocks, as dsl-examples/attention.kite does).
/// n // c * c >= n - c + 1 >= n - (B - 1), for truncating division too.
static bool startsPastFullBlocks(scf::ForOp loop, const FullMask &m) {
  if (m.start != loop.getInductionVar() || m.inclusive)
    return false;
  auto mul = loop.getLowerBound().getDefiningOp<arith::MulIOp>();
  if (!mul)
    return false;
  for (auto [q, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())}) {
    APInt cv, dv;
    Operation *div = q.getDefiningOp();
    if (!div || !isa<arith::DivSIOp, arith::FloorDivSIOp>(div) ||
        div->getOperand(0) != m.limit ||
        !matchPattern(div->getOperand(1), m_ConstantInt(&dv)) ||
        !matchPattern(c, m_ConstantInt(&cv)) || cv != dv)
      continue;
    int64_t block = cv.getSExtValue();
    if (block > 0 && block <= m.last + 1)
      return true;
  }
  return false;
}

struct SplitFullIterations
    : ::kite::impl::SplitFullIterationsBase<SplitFullIterations> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp func) {
      if (!func->hasAttr("kite.kernel") || func.isExternal())
        return;
      SmallVector<scf::ForOp> loops;
      func.walk([&](scf::ForOp loop) {
        bool inner = true;
        loop.getBody()->walk([&](Operation *op) {
          if (isa<LoopLikeOpInterface>(op))
            inner = false;
        });
        if (inner)
          loops.push_back(loop);
      });
      if (loops.empty())
        return;
      kd::AxisInfoAnalysis info(func);
      for (scf::ForOp loop : loops)
        split(loop, info);
    });
  }

  /// The masks of `loop` that are all true on a prefix of its iterations.
  SmallVector<FullMask> findMasks(scf::ForOp loop, Splitter &sp) {
    SmallVector<FullMask> masks;
    loop.getBody()->walk([&](arith::CmpIOp cmp) {
      auto type = dyn_cast<RankedTensorType>(cmp.getType());
      if (!type || getElementTypeOrSelf(cmp.getLhs().getType())
                           .getIntOrFloatBitWidth() > 32)
        return;
      using P = arith::CmpIPredicate;
      P pred = cmp.getPredicate();
      Value block = cmp.getLhs(), other = cmp.getRhs();
      switch (pred) {
      case P::sgt: pred = P::slt; std::swap(block, other); break;
      case P::sge: pred = P::sle; std::swap(block, other); break;
      default: break;
      }
      if (pred != P::slt && pred != P::sle)
        return;
      FullMask m{cmp, {}, 0, {}, pred == P::sle, 0};
      if (!matchRange(block, m.start, m.last, /*shapes=*/true))
        return;
      auto splat = throughShapes(other).getDefiningOp<kd::SplatOp>();
      if (!splat)
        return;
      m.limit = splat.getSrc();
      std::optional<int64_t> s =
          m.start ? sp.coefficient(m.start) : std::optional<int64_t>(0);
      std::optional<int64_t> n = sp.coefficient(m.limit);
      if (!s || !n || *s - *n <= 0)
        return;
      m.slope = *s - *n;
      masks.push_back(m);
    });
    return masks;
  }

  void split(scf::ForOp loop, const kd::AxisInfoAnalysis &info) {
    Value iv = loop.getInductionVar();
    APInt step;
    if (!iv.getType().isSignlessInteger() ||
        iv.getType().getIntOrFloatBitWidth() > 64 ||
        !matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
        !step.isStrictlyPositive() || countOps(loop) > maxOps)
      return;
    bool masked = false;
    loop.getBody()->walk([&](Operation *op) {
      if (auto load = dyn_cast<kd::LoadOp>(op))
        masked |= bool(load.getMask());
      if (auto store = dyn_cast<kd::StoreOp>(op))
        masked |= bool(store.getMask());
    });
    if (!masked)
      return;
    Splitter sp(loop);
    SmallVector<FullMask> masks = findMasks(loop, sp);
    if (llvm::any_of(masks, [&](const FullMask &m) {
          return startsPastFullBlocks(loop, m);
        }))
      return;
    bool dots = false;
    loop.getBody()->walk([&](Operation *op) { dots |= isa<kd::DotOp>(op); });
    if (llvm::none_of(masks, [&](const FullMask &m) { return pays(m, dots, info); }))
      return;

    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Type i64 = b.getI64Type();
    auto cst = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
    };
    auto wide = [&](Value v) {
      return v.getType().isInteger(64)
                 ? v
                 : arith::ExtSIOp::create(b, loc, i64, v).getResult();
    };
    Value lb = wide(loop.getLowerBound()), ub = wide(loop.getUpperBound());
    Value step64 = cst(step.getSExtValue());

    // iv < T for each mask: T = ceildiv(N0 - S0 - last (+1), D).
    Value zero = cst(0);
    Value bound = ub;
    SmallVector<std::pair<Value, unsigned>> ignored;
    std::set<std::tuple<void *, void *, int64_t, bool, int64_t>> seenBounds;
    for (const FullMask &m : masks) {
      if (!seenBounds
               .insert({m.start.getAsOpaquePointer(),
                        m.limit.getAsOpaquePointer(), m.last, m.inclusive,
                        m.slope})
               .second)
        continue;
      DenseMap<Value, Value> memo;
      Value s0 = m.start ? sp.emit(b, loc, m.start, zero, memo, ignored) : zero;
      Value n0 = sp.emit(b, loc, m.limit, zero, memo, ignored);
      Value r = arith::SubIOp::create(
          b, loc, arith::SubIOp::create(b, loc, n0, s0),
          cst(m.last - (m.inclusive ? 1 : 0)));
      Value t = arith::CeilDivSIOp::create(b, loc, r, cst(m.slope));
      bound = arith::MinSIOp::create(b, loc, bound, t);
    }
    // The full iterations: k = ceildiv(max(0, bound - lb), step).
    Value span = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, bound, lb), zero);
    Value k = arith::CeilDivSIOp::create(b, loc, span, step64);
    // Every node of every mask's scalars within its type at the first and
    // the last full iteration, or no full iteration.
    Value lastIv = arith::AddIOp::create(
        b, loc, lb,
        arith::MulIOp::create(
            b, loc, arith::MaxSIOp::create(
                        b, loc, arith::SubIOp::create(b, loc, k, cst(1)), zero),
            step64));
    Value fits;
    for (Value at : {lb, lastIv}) {
      DenseMap<Value, Value> memo;
      SmallVector<std::pair<Value, unsigned>> values;
      for (const FullMask &m : masks) {
        if (m.start)
          sp.emit(b, loc, m.start, at, memo, values);
        sp.emit(b, loc, m.limit, at, memo, values);
      }
      for (auto [v, bits] : values) {
        if (bits >= 64)
          continue;
        Value lo = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v,
                                         cst(-(int64_t(1) << (bits - 1))));
        Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v,
                                         cst(int64_t(1) << (bits - 1)));
        Value both = arith::AndIOp::create(b, loc, lo, hi);
        fits = fits ? arith::AndIOp::create(b, loc, fits, both).getResult()
                    : both;
      }
    }
    if (fits)
      k = arith::SelectOp::create(b, loc, fits, k, zero);
    Value mid = arith::MinSIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, lb,
                              arith::MulIOp::create(b, loc, k, step64)),
        ub);
    if (!iv.getType().isInteger(64))
      mid = arith::TruncIOp::create(b, loc, iv.getType(), mid);

    // The full iterations: a copy of the loop up to mid, its masks true.
    IRMapping map;
    auto full = cast<scf::ForOp>(b.clone(*loop, map));
    full.setUpperBound(mid);
    for (const FullMask &m : masks) {
      Operation *copy = map.lookup(m.cmp->getResult(0)).getDefiningOp();
      OpBuilder cb(copy);
      auto type = cast<RankedTensorType>(copy->getResult(0).getType());
      Value t = arith::ConstantOp::create(cb, loc,
                                          DenseElementsAttr::get(type, true));
      copy->getResult(0).replaceAllUsesWith(t);
      copy->erase();
    }
    // The rest as written, from mid on.
    loop.setLowerBound(mid);
    loop.getInitArgsMutable().assign(full.getResults());
  }
};

} // namespace
