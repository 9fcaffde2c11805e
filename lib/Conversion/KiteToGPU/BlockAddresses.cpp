//===- BlockAddresses.cpp - The addresses of a block access ---------------===//
//
// Segments of registers sharing an address register, and addresses formed
// at the access from a base and i32 offsets (see BlockAddresses.h).
//
//===----------------------------------------------------------------------===//

#include "BlockAddresses.h"
#include "Utils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"

#include <numeric>

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

/// The segments' first registers (see BlockAddresses.h).
static SmallVector<int64_t> segmentFirsts(const KiteLoweringState &state,
                                          const BlockedLayout &layout,
                                          Value ptrs) {
  SmallVector<int64_t> first(layout.perThread);
  std::iota(first.begin(), first.end(), 0);
  if (layout.isReplicated())
    return first;
  uint64_t c =
      uint64_t(std::max<int64_t>(state.axisInfo.get(ptrs).contiguity, 1));
  c &= ~c + 1; // its largest power of two: runs of c stay aligned
  if (c <= 1)
    return first;
  if (LinearLayout::of(layout)) {
    DenseMap<int64_t, int64_t> firstOfRun;
    for (int64_t e = 0; e < layout.perThread; ++e) {
      int64_t runIndex = layout.registerOffset(e) / int64_t(c);
      first[e] = firstOfRun.try_emplace(runIndex, e).first->second;
    }
    return first;
  }
  int64_t run = std::gcd<int64_t>(std::max<int64_t>(layout.chunk, 1), c);
  run &= ~run + 1;
  for (int64_t e = 0; e < layout.perThread; ++e)
    first[e] = e - e % run;
  return first;
}

/// The dimensions (bits) along which the block `v` is constant, as far as
/// its definition shows: splats, broadcasts and elementwise ops of them
/// (dimensions of size 1 count).
static unsigned constantDims(Value v, int depth) {
  auto type = cast<RankedTensorType>(v.getType());
  unsigned all = (1u << type.getRank()) - 1, ones = 0;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.getDimSize(d) == 1)
      ones |= 1u << d;
  Operation *op = v.getDefiningOp();
  if (!op || depth == 0)
    return ones;
  if (isa<SplatOp>(op))
    return all;
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
        dense && dense.isSplat())
      return all;
  if (auto b = dyn_cast<BroadcastOp>(op))
    return ones | constantDims(b.getSrc(), depth - 1);
  if (!op->hasTrait<OpTrait::Elementwise>())
    return ones;
  unsigned dims = all;
  for (Value operand : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(operand.getType());
    if (!t || t.getShape() != type.getShape())
      return ones;
    dims &= constantDims(operand, depth - 1);
  }
  return dims | ones;
}

/// How many different values of the block `v` a thread of `layout` holds,
/// as far as constantDims shows (the thread's elements projected onto the
/// other dimensions).
static int64_t distinctInThread(Value v, const BlockedLayout &layout) {
  auto type = cast<RankedTensorType>(v.getType());
  unsigned constant = constantDims(v, 6);
  llvm::DenseSet<int64_t> keys;
  for (int64_t e = 0; e < layout.perThread; ++e) {
    int64_t linear = layout.registerOffset(e), key = 0, scale = 1;
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      int64_t size = type.getDimSize(d);
      if (!(constant & (1u << d)))
        key += (linear % size) * scale;
      linear /= size;
      scale *= size;
    }
    keys.insert(key);
  }
  return keys.size();
}

BlockAddresses::BlockAddresses(ConversionPatternRewriter &rewriter,
                               const KiteTypeConverter &converter,
                               const KiteLoweringState &state,
                               Operation *access, Value ptrs, Value converted,
                               const BlockedLayout &layout,
                               int64_t elementBytes)
    : addrs(converted), layout(&layout), elementBytes(elementBytes),
      first(segmentFirsts(state, layout, ptrs)) {
  auto loop = access->getParentOfType<scf::ForOp>();
  auto add = ptrs.getDefiningOp<AddPtrOp>();
  if (!loop || !add || !isa<RankedTensorType>(add.getPtr().getType()) ||
      !getElementTypeOrSelf(add.getOffset().getType()).isInteger(32) ||
      !loop.isDefinedOutsideOfLoop(add.getOffset()))
    return;
  auto lowered = [&](Value v) -> Value {
    if (!converter.getLayout(v).placesLike(layout))
      return Value();
    Value l = rewriter.getRemappedValue(v);
    return l && isa<VectorType>(l.getType()) ? l : Value();
  };
  // A sum of two terms that a thread holds fewer of than their sums.
  auto sum = add.getOffset().getDefiningOp<arith::AddIOp>();
  if (!sum || distinctInThread(sum.getLhs(), layout) +
                      distinctInThread(sum.getRhs(), layout) >=
                  distinctInThread(sum.getResult(), layout))
    return;
  Value p = lowered(add.getPtr()), lhs = lowered(sum.getLhs()),
        rhs = lowered(sum.getRhs());
  if (!p || !lhs || !rhs)
    return;
  base = p;
  terms = {lhs, rhs};
}

/// Register `e` of a block of addresses (i64), or the address of a scalar
/// !llvm.ptr<1>.
static Value addressOf(OpBuilder &b, Location loc, Value addrs, int64_t e) {
  if (isa<LLVM::LLVMPointerType>(addrs.getType()))
    return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), addrs);
  return extractRegister(b, loc, addrs, e);
}

Value BlockAddresses::formed(OpBuilder &b, Location loc, int64_t e) {
  if (!base)
    return addressOf(b, loc, addrs, e);
  // One per register and block (an address formed in a branch does not
  // reach the code after it).
  if (Value cached = cache.lookup(e);
      cached && cached.getParentBlock() == b.getInsertionBlock())
    return cached;
  SmallVector<Value> operands = {extractRegister(b, loc, terms[0], e),
                                 extractRegister(b, loc, terms[1], e),
                                 addressOf(b, loc, base, e)};
  std::string text = "{ .reg .b32 %ko; add.s32 %ko, $1, $2; "
                     "mad.wide.s32 $0, %ko, " +
                     std::to_string(elementBytes) + ", $3; }";
  Value address =
      LLVM::InlineAsmOp::create(
          b, loc, b.getI64Type(), operands, text, "=l,r,r,l",
          /*has_side_effects=*/false, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
          ArrayAttr())
          .getResult(0);
  cache[e] = address;
  return address;
}

RunAddress BlockAddresses::run(OpBuilder &b, Location loc, int64_t e) {
  if (!layout || first[e] == e)
    return {formed(b, loc, e), 0};
  int64_t f = first[e];
  return {formed(b, loc, f),
          (layout->registerOffset(e) - layout->registerOffset(f)) *
              elementBytes};
}

Value mlir::kite::detail::fullAddress(OpBuilder &b, Location loc,
                                      RunAddress a) {
  if (!a.bytes)
    return a.base;
  return arith::AddIOp::create(
      b, loc, a.base,
      arith::ConstantIntOp::create(b, loc, b.getI64Type(), a.bytes));
}
