//===- RaiseToDescriptors.cpp - A K loop's pointer loads as descriptor loads ===//
//
// kite-raise-to-descriptors: see Passes.td. Triton's tutorial 03 reads its
// operands through pointer blocks,
//   offs_am = (pid_m * BLOCK_M + arange(0, BLOCK_M)) % M
//   a_ptrs  = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
//   a = load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
//   a_ptrs += BLOCK_K * stride_ak                 (each K iteration)
// which addresses the block at (pid_m * BLOCK_M, k * BLOCK_K) of the tensor
// (a_ptr, [M, K], [stride_am, stride_ak]), except that rows past M wrap
// around to the first rows where a descriptor reads zeros. Those rows
// differ only in rows of the dot's result, and when every store of that
// result (through elementwise ops) is masked with the rows' own bound, no
// such row is ever written: the loads are then descriptor loads, which
// take TMA on sm_90a.
//
//===----------------------------------------------------------------------===//

#include "TmaOperands.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Dialect/Kite/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"

namespace kite {
#define GEN_PASS_DEF_RAISETODESCRIPTORS
#include "kite/Dialect/Kite/Transforms/Passes.h.inc"
} // namespace kite

using namespace mlir;
namespace kd = mlir::kite;

namespace {

std::optional<int64_t> constantInt(Value v) {
  APInt c;
  if (v && matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// `v` without a kite.broadcast around it.
Value unbroadcast(Value v) {
  if (auto b = v.getDefiningOp<kd::BroadcastOp>())
    return b.getSrc();
  return v;
}

/// The scalar of a kite.splat, else null.
Value splatOf(Value v) {
  if (auto s = v.getDefiningOp<kd::SplatOp>())
    return s.getSrc();
  return {};
}

/// Whether `v` is kite.arange 0, n.
bool isArange(Value v, int64_t n) {
  auto r = v.getDefiningOp<kd::ArangeOp>();
  return r && r.getStart() == 0 && r.getEnd() == n;
}

/// `o` where `sum` is splat(o) + arange(0, n) (either order), else null.
Value offsetOf(Value sum, int64_t n) {
  auto add = sum.getDefiningOp<arith::AddIOp>();
  if (!add)
    return {};
  for (int i = 0; i < 2; ++i)
    if (isArange(add->getOperand(i), n))
      if (Value o = splatOf(add->getOperand(1 - i)))
        return o;
  return {};
}

/// One dimension of a 2-D pointer block's offsets: index * stride, the
/// index along `dim` one of
///   Advancing: arange(0, n), moved along by the loop (the K dimension);
///   Wrapped:   (o + arange(0, n)) % bound;
///   Checked:   o + arange(0, n), masked with < bound.
struct Dimension {
  enum Kind { Advancing, Wrapped, Checked } kind = Advancing;
  int dim = 0;
  Value stride;           ///< null: a constant stride, strideConst
  int64_t strideConst = 1;
  Value sum;              ///< o + arange (Wrapped, Checked)
  Value offset, bound;    ///< o and the bound (Wrapped, Checked)
};

/// Matches one term of a pointer block's offsets: broadcast(expand_dims(
/// index) [* splat(stride)]).
std::optional<Dimension> matchTerm(Value term, ArrayRef<int64_t> shape) {
  term = unbroadcast(term);
  Dimension d;
  Value e = term;
  if (auto mul = term.getDefiningOp<arith::MulIOp>()) {
    e = {};
    for (int i = 0; i < 2 && !e; ++i) {
      Value other = mul->getOperand(1 - i);
      if (Value s = splatOf(other)) {
        if (auto c = constantInt(s))
          d.strideConst = *c;
        else
          d.stride = s;
        e = mul->getOperand(i);
      } else if (auto c = constantInt(other)) {
        d.strideConst = *c;
        e = mul->getOperand(i);
      }
    }
    if (!e)
      return std::nullopt;
  }
  auto expand = e.getDefiningOp<kd::ExpandDimsOp>();
  if (!expand || expand.getType().getRank() != 2)
    return std::nullopt;
  d.dim = 1 - int(expand.getAxis());
  int64_t n = shape[d.dim];
  Value index = expand.getSrc();
  if (cast<RankedTensorType>(index.getType()).getRank() != 1 ||
      !cast<RankedTensorType>(index.getType()).getElementType().isInteger(32))
    return std::nullopt;
  if (isArange(index, n)) {
    d.kind = Dimension::Advancing;
    return d;
  }
  if (auto rem = index.getDefiningOp<arith::RemSIOp>()) {
    d.kind = Dimension::Wrapped;
    d.sum = rem.getLhs();
    d.offset = offsetOf(d.sum, n);
    d.bound = splatOf(rem.getRhs());
    if (!d.offset || !d.bound)
      return std::nullopt;
    return d;
  }
  d.kind = Dimension::Checked;
  d.sum = index;
  d.offset = offsetOf(index, n);
  if (!d.offset)
    return std::nullopt;
  return d; // its bound comes from the mask
}

/// The leaves of an arith.andi tree (without broadcasts).
void conjuncts(Value mask, SmallVectorImpl<Value> &out) {
  mask = unbroadcast(mask);
  if (auto a = mask.getDefiningOp<arith::AndIOp>()) {
    conjuncts(a.getLhs(), out);
    conjuncts(a.getRhs(), out);
    return;
  }
  out.push_back(mask);
}

/// (index, bound) where `leaf` is expand_dims(index, axis) < splat(bound)
/// on a 2-D block, and the dimension the index runs along.
struct Comparison {
  Value index, bound;
  int dim = 0;
};
std::optional<Comparison> matchComparison(Value leaf) {
  auto cmp = leaf.getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::slt)
    return std::nullopt;
  auto expand = cmp.getLhs().getDefiningOp<kd::ExpandDimsOp>();
  Value bound = splatOf(cmp.getRhs());
  if (!expand || !bound || expand.getType().getRank() != 2)
    return std::nullopt;
  return Comparison{expand.getSrc(), bound, 1 - int(expand.getAxis())};
}

/// A pointer load of a K loop that reads what a descriptor load would.
struct Raisable {
  kd::LoadOp load;
  BlockArgument ptrs;           ///< the loop's pointer block argument
  Value base;
  std::array<Value, 2> shape;   ///< per dimension (values)
  std::array<Value, 2> strides; ///< null: strideConst
  std::array<int64_t, 2> strideConst = {1, 1};
  std::array<Value, 2> offsets; ///< of the block in the loop
  int k = 0;                    ///< the dimension the loop advances
  /// The wrapped dimension (or -1), its o + arange and bound.
  int wrapped = -1;
  Value wrapSum, wrapBound;
};

/// Whether `load` (in `loop`'s body) reads, at iteration i, the block at
/// (o, i * BLOCK_K) or (i * BLOCK_K, o) of a 2-D tensor, as described at the
/// top of the file.
std::optional<Raisable> matchLoad(kd::LoadOp load, scf::ForOp loop) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || type.getRank() != 2)
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  // A zero fill (or none) where masked off.
  if (Value other = load.getOther()) {
    Value fill = splatOf(other) ? splatOf(other) : other;
    if (!matchPattern(fill, m_Zero()) && !matchPattern(fill, m_AnyZeroFloat()))
      return std::nullopt;
  }
  auto ptrs = dyn_cast<BlockArgument>(load.getPtr());
  if (!ptrs || ptrs.getOwner() != loop.getBody() ||
      ptrs.getArgNumber() < loop.getNumInductionVars())
    return std::nullopt;
  Value init = loop.getTiedLoopInit(ptrs)->get();
  Value next = loop.getTiedLoopYieldedValue(ptrs)->get();

  // init = splat(base) + terms, through addptr chains and addi trees (and
  // broadcasts of both: `a_ptr + rows[:, None] * s + cols[None, :]` adds
  // the rows to a column of pointers first).
  SmallVector<Value> terms;
  Value base;
  SmallVector<Value> work;
  for (Value p = unbroadcast(init); !base; p = unbroadcast(p)) {
    if (Value b = splatOf(p)) {
      base = b;
      break;
    }
    auto add = p.getDefiningOp<kd::AddPtrOp>();
    if (!add)
      return std::nullopt;
    work.push_back(add.getOffset());
    p = add.getPtr();
  }
  while (!work.empty()) {
    Value v = unbroadcast(work.pop_back_val());
    if (auto add = v.getDefiningOp<arith::AddIOp>()) {
      work.push_back(add.getLhs());
      work.push_back(add.getRhs());
      continue;
    }
    terms.push_back(v);
  }
  if (terms.size() != 2)
    return std::nullopt;
  std::array<std::optional<Dimension>, 2> dims;
  for (Value t : terms) {
    std::optional<Dimension> d = matchTerm(t, shape);
    if (!d || dims[d->dim])
      return std::nullopt;
    dims[d->dim] = d;
  }
  int k = -1;
  for (int d = 0; d < 2; ++d)
    if (dims[d]->kind == Dimension::Advancing) {
      if (k >= 0)
        return std::nullopt;
      k = d;
    }
  if (k < 0)
    return std::nullopt;
  const Dimension &ad = *dims[k];
  const Dimension &od = *dims[1 - k];

  // The loop's step of the pointers: BLOCK_K along dimension k.
  auto step = next.getDefiningOp<kd::AddPtrOp>();
  if (!step || step.getPtr() != ptrs)
    return std::nullopt;
  std::optional<int64_t> advance;
  Value inc = step.getOffset();
  Value incScalar = splatOf(inc);
  std::optional<int64_t> incConst = constantInt(incScalar ? incScalar : inc);
  if (!ad.stride) {
    if (incConst && ad.strideConst != 0 && *incConst % ad.strideConst == 0)
      advance = *incConst / ad.strideConst;
  } else if (auto mul = incScalar ? incScalar.getDefiningOp<arith::MulIOp>()
                                  : arith::MulIOp()) {
    for (int i = 0; i < 2; ++i)
      if (mul->getOperand(i) == ad.stride)
        advance = constantInt(mul->getOperand(1 - i));
  }
  if (!advance || *advance != shape[k])
    return std::nullopt;

  // The mask: dimension k's index < S - coordinate, where the coordinate
  // is the iteration's i * BLOCK_K; a Checked dimension's o + arange <
  // bound; nothing else.
  Raisable r;
  r.load = load;
  r.ptrs = ptrs;
  r.base = base;
  Value mask = load.getMask();
  if (!mask)
    return std::nullopt;
  SmallVector<Value> leaves;
  conjuncts(mask, leaves);
  Value iv = loop.getInductionVar();
  std::optional<int64_t> lb = constantInt(loop.getLowerBound());
  std::optional<int64_t> loopStep = constantInt(loop.getStep());
  bool sawK = false, sawChecked = false;
  for (Value leaf : leaves) {
    std::optional<Comparison> c = matchComparison(leaf);
    if (!c)
      return std::nullopt;
    if (c->dim == k && isArange(c->index, shape[k]) && !sawK) {
      auto sub = c->bound.getDefiningOp<arith::SubIOp>();
      if (!sub || lb != 0)
        return std::nullopt;
      Value coord = sub.getRhs();
      bool ok = false;
      if (coord == iv)
        ok = loopStep == shape[k];
      else if (auto mul = coord.getDefiningOp<arith::MulIOp>())
        for (int i = 0; i < 2; ++i)
          ok |= mul->getOperand(i) == iv &&
                constantInt(mul->getOperand(1 - i)) == shape[k] &&
                loopStep == 1;
      if (!ok)
        return std::nullopt;
      r.shape[k] = sub.getLhs();
      r.offsets[k] = coord;
      sawK = true;
      continue;
    }
    if (c->dim != k && od.kind == Dimension::Checked && c->index == od.sum &&
        !sawChecked) {
      r.shape[1 - k] = c->bound;
      sawChecked = true;
      continue;
    }
    return std::nullopt;
  }
  if (!sawK || (od.kind == Dimension::Checked) != sawChecked)
    return std::nullopt;
  if (od.kind == Dimension::Wrapped) {
    r.shape[1 - k] = od.bound;
    r.wrapped = 1 - k;
    r.wrapSum = od.sum;
    r.wrapBound = od.bound;
  }
  r.offsets[1 - k] = od.offset;
  r.k = k;
  for (int d = 0; d < 2; ++d) {
    r.strides[d] = dims[d]->stride;
    r.strideConst[d] = dims[d]->strideConst;
  }
  for (Value v : llvm::concat<Value>(r.offsets, r.shape))
    if (!v.getType().isInteger(32))
      return std::nullopt;
  return r;
}

/// A row (dim 0) or column (dim 1) of a dot's result that a raised load
/// fills with zeros where the pointer load wrapped around: stored only
/// where sum < bound.
struct RowBound {
  int dim;
  Value sum, bound;
};

/// Whether `mask` (of a 2-D store) has the conjunct sum < bound along dim.
bool hasBound(Value mask, const RowBound &rb) {
  if (!mask)
    return false;
  SmallVector<Value> leaves;
  conjuncts(mask, leaves);
  for (Value leaf : leaves)
    if (std::optional<Comparison> c = matchComparison(leaf))
      if (c->dim == rb.dim && c->index == rb.sum && c->bound == rb.bound)
        return true;
  return false;
}

/// Whether the rows of `dot`'s result named in `bounds` are never written
/// where they are out of bounds: the dot accumulates in `loop` (its result
/// only yielded, the carried value read only by it), and the loop's result
/// reaches memory only through elementwise ops of the same shape and
/// kite.store ops whose masks bound each such row.
bool onlyMaskedStores(kd::DotOp dot, scf::ForOp loop,
                      ArrayRef<RowBound> bounds) {
  if (bounds.empty())
    return true;
  if (!dot->hasOneUse())
    return false;
  OpOperand &use = *dot->getUses().begin();
  if (use.getOwner() != loop.getBody()->getTerminator())
    return false;
  unsigned index = use.getOperandNumber();
  BlockArgument carried = loop.getRegionIterArgs()[index];
  if (!carried.hasOneUse() || carried.getUses().begin()->getOwner() != dot ||
      dot.getAcc() != carried)
    return false;
  auto shape = dot.getType().getShape();
  SmallVector<Value> work = {loop.getResult(index)};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (Operation *user : v.getUsers()) {
      if (auto store = dyn_cast<kd::StoreOp>(user)) {
        if (!llvm::all_of(bounds, [&](const RowBound &rb) {
              return hasBound(store.getMask(), rb);
            }))
          return false;
        continue;
      }
      if (!user->hasTrait<OpTrait::Elementwise>() ||
          user->getNumRegions() != 0 || !isMemoryEffectFree(user))
        return false;
      for (Value result : user->getResults()) {
        auto t = dyn_cast<RankedTensorType>(result.getType());
        if (!t || t.getShape() != shape)
          return false;
        work.push_back(result);
      }
    }
  }
  return true;
}

/// Whether dimension `d` of `r`'s tensor has a stride of one element.
bool unitStride(const Raisable &r, int d) {
  return r.strides[d] ? constantInt(r.strides[d]) == 1 : r.strideConst[d] == 1;
}

struct RaiseToDescriptors
    : ::kite::impl::RaiseToDescriptorsBase<RaiseToDescriptors> {
  using Base::Base;

  void runOnOperation() override {
    if (chip != "sm_90a")
      return;
    SmallVector<kd::DotOp> dots;
    getOperation().walk([&](kd::DotOp dot) { dots.push_back(dot); });
    for (kd::DotOp dot : dots)
      raise(dot);
  }

  void raise(kd::DotOp dot) {
    auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
    if (!loop)
      return;
    auto func = dot->getParentOfType<func::FuncOp>();
    // The operands: A, and B or the N x K block it is the transpose of.
    kd::TransOp trans = ::kite::detail::transposedB(dot);
    std::array<OpOperand *, 2> uses = {
        &dot->getOpOperand(0),
        trans ? &trans->getOpOperand(0) : &dot->getOpOperand(1)};
    std::array<std::optional<Raisable>, 2> raisable;
    SmallVector<RowBound> bounds;
    for (int i = 0; i < 2; ++i) {
      Value operand = uses[i]->get();
      if (operand.getDefiningOp<kd::DescriptorLoadOp>())
        continue;
      auto load = operand.getDefiningOp<kd::LoadOp>();
      if (!load || load->getBlock() != loop.getBody() || !load->hasOneUse())
        return;
      raisable[i] = matchLoad(load, loop);
      if (!raisable[i])
        return;
      const Raisable &r = *raisable[i];
      if (!::kite::detail::isLaunchValue(r.base, func) ||
          !llvm::all_of(r.shape,
                        [&](Value v) {
                          return ::kite::detail::isLaunchValue(v, func);
                        }) ||
          !llvm::all_of(r.strides, [&](Value v) {
            return !v || ::kite::detail::isLaunchValue(v, func);
          }))
        return;
      // K must be the dot's reduction dimension: A's columns, B's rows
      // (the columns of the N x K block B is the transpose of).
      int kDim = i == 0 || trans ? 1 : 0;
      if (r.k != kDim)
        return;
      if (r.wrapped >= 0)
        bounds.push_back({i == 0 ? 0 : 1, r.wrapSum, r.wrapBound});
    }
    if ((!raisable[0] && !raisable[1]) ||
        !onlyMaskedStores(dot, loop, bounds))
      return;

    // The descriptors, at the kernel's entry; the loads where the pointer
    // loads were. Kept only if the dot then takes TMA.
    OpBuilder b(&getContext());
    SmallVector<Operation *> made;
    std::array<Value, 2> before = {uses[0]->get(), uses[1]->get()};
    Block &entry = func.getBody().front();
    for (int i = 0; i < 2; ++i) {
      if (!raisable[i])
        continue;
      Raisable &r = *raisable[i];
      Location loc = r.load.getLoc();
      b.setInsertionPointToStart(&entry);
      auto atEntry = [&](Value v) -> Value {
        if (isa<BlockArgument>(v))
          return v;
        Operation *c = b.clone(*v.getDefiningOp());
        made.push_back(c);
        return c->getResult(0);
      };
      SmallVector<Value> shape, strides;
      for (int d = 0; d < 2; ++d) {
        shape.push_back(atEntry(r.shape[d]));
        if (r.strides[d]) {
          strides.push_back(atEntry(r.strides[d]));
        } else {
          auto c = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                r.strideConst[d]);
          made.push_back(c);
          strides.push_back(c);
        }
      }
      auto blockType = cast<RankedTensorType>(r.load.getType());
      SmallVector<Value> offsets(r.offsets.begin(), r.offsets.end());
      // The tensor's unit stride decides its orientation (TMA reads rows of
      // the innermost dimension): a B whose K rows are contiguous (an
      // nn.Linear weight, stride_bk = 1) is the N x K tensor it is the
      // transpose of, loaded N x K and read through a kite.trans, the form
      // the staging takes K-major.
      bool transposed = i == 1 && !trans && unitStride(r, 0) &&
                        !unitStride(r, 1);
      if (transposed) {
        std::swap(shape[0], shape[1]);
        std::swap(strides[0], strides[1]);
        std::swap(offsets[0], offsets[1]);
        blockType = RankedTensorType::get(
            {blockType.getDimSize(1), blockType.getDimSize(0)},
            blockType.getElementType());
      }
      auto make = kd::MakeTensorDescOp::create(
          b, loc, kd::TensorDescType::get(&getContext(), blockType),
          r.base, shape, strides);
      make->setAttr(kd::KiteDialect::getRaisedAttrName(), b.getUnitAttr());
      made.push_back(make);
      b.setInsertionPoint(r.load);
      Value load =
          kd::DescriptorLoadOp::create(b, loc, blockType, make, offsets);
      made.push_back(load.getDefiningOp());
      if (transposed) {
        load = kd::TransOp::create(b, loc, r.load.getType(), load,
                                   b.getDenseI32ArrayAttr({1, 0}));
        made.push_back(load.getDefiningOp());
      }
      uses[i]->set(load);
    }
    auto revert = [&] {
      for (int i = 0; i < 2; ++i)
        uses[i]->set(before[i]);
      for (Operation *op : llvm::reverse(made))
        op->erase();
    };
    if (!::kite::detail::tmaOperands(
            dot, chip, ::kite::detail::kernelWarps(func, numWarps),
            ::kite::detail::loopStages(loop,
                                       ::kite::detail::kernelStages(func))))
      return revert();

    // The pointer loads go, and with them the pointers the loop carried
    // for them alone (yielded unchanged, the canonicalizer drops them).
    for (int i = 0; i < 2; ++i) {
      if (!raisable[i])
        continue;
      Raisable &r = *raisable[i];
      r.load->erase();
      OpOperand *yielded = loop.getTiedLoopYieldedValue(r.ptrs);
      Operation *stepOp = yielded->get().getDefiningOp();
      if (r.ptrs.hasOneUse() && stepOp && stepOp->hasOneUse() &&
          loop.getTiedLoopResult(r.ptrs).use_empty()) {
        yielded->set(r.ptrs);
        stepOp->erase();
      }
    }
  }
};

} // namespace
