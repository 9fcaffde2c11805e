//===- PackByteSelects.cpp - Byte-threshold selects on packed halves
//-------===//
//
// kite-pack-byte-selects: see Passes.td.
//
// The form it rewrites, lane i of a pair of 16-bit floats (f16 or bf16)
// built for a 32-bit register:
//
//   b_i = byte k_i of the i32 word w_i   (and(lshr(w, 8k), 255), lshr(w, 24))
//   h_i = fptrunc(select(b_i >= t_i, x_i, +0.0))     (or the select after
//                                                    the fptrunc, or the
//                                                    zero first under <)
//   r   = insertelement(insertelement(_, h_0, 0), h_1, 1)
//
// becomes
//
//   v    = insertelement(insertelement(_, fptrunc x_0, 0), fptrunc x_1, 1)
//   mask = set.ge.u32.f16x2(prmt(w_0, w_1 | 0), t_0' | t_1' << 16)
//   r    = bitcast(and(bitcast v, mask))
//
// where t_i' is t_i clamped to [0, 256] (b_i is in [0, 255], so the compare
// keeps its answer), prmt spreads the two bytes to the two 16-bit halves and
// the f16x2 compare of two such halves (+0 and positive subnormals, ordered
// as the integers are) gives 0xFFFF or 0 a half. Two elements then take four
// instructions (a packed convert, prmt, set, and) instead of nine (a byte
// extract, a compare, a convert and a select each, and a move): what
// FlashAttention-style dropout does with its 8-bit keep decisions.
//
//===----------------------------------------------------------------------===//

#include "kite/Pipeline/Pipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"

namespace kite {
#define GEN_PASS_DECL_PACKBYTESELECTS
#define GEN_PASS_DEF_PACKBYTESELECTS
#include "kite/Pipeline/Passes.h.inc"
} // namespace kite

using namespace mlir;

namespace {

/// One lane: the value kept (`value`, of the lane's type, or `wide`, the f32
/// value to convert), the byte compared and the threshold.
struct MaskedLane {
  Value value;     // the 16-bit value when kept, or null
  Value wide;      // else the f32 value whose fptrunc is kept
  Value word;      // the i32 holding the byte
  unsigned byte;   // which byte of `word` (0 = least significant)
  Value threshold; // kept when byte >= threshold
  bool isSigned;   // the compare's signedness
};

bool isConstantInt(Value v, int64_t expected) {
  APInt value;
  return matchPattern(v, m_ConstantInt(&value)) &&
         value.getSExtValue() == expected;
}

/// `b` as byte `byte` of the i32 `word`.
bool matchByte(Value b, Value &word, unsigned &byte) {
  if (!b.getType().isInteger(32))
    return false;
  if (auto shr = b.getDefiningOp<LLVM::LShrOp>()) {
    if (isConstantInt(shr.getRhs(), 24)) {
      word = shr.getLhs();
      byte = 3;
      return true;
    }
    return false;
  }
  auto mask = b.getDefiningOp<LLVM::AndOp>();
  if (!mask)
    return false;
  Value src = mask.getLhs();
  if (!isConstantInt(mask.getRhs(), 255)) {
    if (!isConstantInt(mask.getLhs(), 255))
      return false;
    src = mask.getRhs();
  }
  if (auto shr = src.getDefiningOp<LLVM::LShrOp>()) {
    APInt shift;
    if (!matchPattern(shr.getRhs(), m_ConstantInt(&shift)))
      return false;
    int64_t s = shift.getSExtValue();
    if (s < 0 || s > 24 || s % 8 != 0)
      return false;
    word = shr.getLhs();
    byte = unsigned(s / 8);
    return true;
  }
  word = src;
  byte = 0;
  return true;
}

/// `cond` as "byte >= threshold" (`keepWhenTrue`) or its negation.
bool matchCompare(Value cond, bool keepWhenTrue, MaskedLane &lane) {
  auto cmp = cond.getDefiningOp<LLVM::ICmpOp>();
  if (!cmp)
    return false;
  using P = LLVM::ICmpPredicate;
  // Normalized to pred(byte, threshold).
  P pred = cmp.getPredicate();
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  if (matchByte(lhs, lane.word, lane.byte)) {
    lane.threshold = rhs;
  } else if (matchByte(rhs, lane.word, lane.byte)) {
    lane.threshold = lhs;
    switch (pred) {
    case P::uge:
      pred = P::ule;
      break;
    case P::ule:
      pred = P::uge;
      break;
    case P::ult:
      pred = P::ugt;
      break;
    case P::ugt:
      pred = P::ult;
      break;
    case P::sge:
      pred = P::sle;
      break;
    case P::sle:
      pred = P::sge;
      break;
    case P::slt:
      pred = P::sgt;
      break;
    case P::sgt:
      pred = P::slt;
      break;
    default:
      return false;
    }
  } else {
    return false;
  }
  // Kept when byte >= threshold: uge/sge when the select keeps on true,
  // ult/slt when it keeps on false.
  switch (pred) {
  case P::uge:
    lane.isSigned = false;
    return keepWhenTrue;
  case P::sge:
    lane.isSigned = true;
    return keepWhenTrue;
  case P::ult:
    lane.isSigned = false;
    return !keepWhenTrue;
  case P::slt:
    lane.isSigned = true;
    return !keepWhenTrue;
  default:
    return false;
  }
}

/// A select between `x` and +0.0: which operand is x, and the condition.
bool matchZeroSelect(LLVM::SelectOp sel, Value &x, bool &keepWhenTrue) {
  if (matchPattern(sel.getFalseValue(), m_PosZeroFloat())) {
    x = sel.getTrueValue();
    keepWhenTrue = true;
    return true;
  }
  if (matchPattern(sel.getTrueValue(), m_PosZeroFloat())) {
    x = sel.getFalseValue();
    keepWhenTrue = false;
    return true;
  }
  return false;
}

bool matchLane(Value h, MaskedLane &lane) {
  Value x;
  bool keepWhenTrue;
  if (auto trunc = h.getDefiningOp<LLVM::FPTruncOp>()) {
    auto sel = trunc.getArg().getDefiningOp<LLVM::SelectOp>();
    if (!sel || !sel.getType().isF32() || !sel->hasOneUse() ||
        !matchZeroSelect(sel, x, keepWhenTrue))
      return false;
    lane.value = nullptr;
    lane.wide = x;
    return matchCompare(sel.getCondition(), keepWhenTrue, lane);
  }
  auto sel = h.getDefiningOp<LLVM::SelectOp>();
  if (!sel || !matchZeroSelect(sel, x, keepWhenTrue))
    return false;
  lane.value = x;
  lane.wide = nullptr;
  return matchCompare(sel.getCondition(), keepWhenTrue, lane);
}

/// The threshold clamped to [0, 256]: the compare of a byte with it keeps
/// its answer, and the clamped value is a 16-bit pattern the f16 compare
/// orders as an integer.
Value clampThreshold(OpBuilder &b, Location loc, const MaskedLane &lane) {
  Type i32 = b.getI32Type();
  Value t = lane.threshold;
  Value top = LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(256));
  if (!lane.isSigned)
    return LLVM::UMinOp::create(b, loc, t, top);
  Value zero = LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0));
  return LLVM::SMinOp::create(b, loc, LLVM::SMaxOp::create(b, loc, t, zero),
                              top);
}

void rewrite(LLVM::InsertElementOp second, const MaskedLane lanes[2]) {
  OpBuilder b(second);
  Location loc = second.getLoc();
  Type i32 = b.getI32Type();
  auto vecType = cast<VectorType>(second.getType());
  Type half = vecType.getElementType();

  // The two 16-bit values, unmasked.
  Value values[2];
  for (int i = 0; i < 2; ++i)
    values[i] =
        lanes[i].value
            ? lanes[i].value
            : LLVM::FPTruncOp::create(b, loc, half, lanes[i].wide).getResult();
  auto first = second.getVector().getDefiningOp<LLVM::InsertElementOp>();
  Value v = LLVM::InsertElementOp::create(b, loc, first.getVector(), values[0],
                                          first.getPosition());
  v = LLVM::InsertElementOp::create(b, loc, v, values[1], second.getPosition());

  // Bytes to 16-bit halves: prmt's selector takes byte k of its first
  // operand as k and byte k of the second as 4 + k. With one word the
  // second operand is 0 and gives the halves' high bytes (selector 4);
  // with two, the halves are masked to their low bytes after.
  bool oneWord = lanes[0].word == lanes[1].word;
  unsigned b0 = lanes[0].byte;
  unsigned b1 = oneWord ? lanes[1].byte : 4 + lanes[1].byte;
  unsigned selector = b0 | (b1 << 8);
  if (oneWord)
    selector |= (4u << 4) | (4u << 12);
  Value second32 =
      oneWord ? LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0))
                    .getResult()
              : lanes[1].word;
  Value low = clampThreshold(b, loc, lanes[0]);
  Value high = lanes[0].threshold == lanes[1].threshold &&
                       lanes[0].isSigned == lanes[1].isSigned
                   ? low
                   : clampThreshold(b, loc, lanes[1]);
  Value thresholds = LLVM::OrOp::create(
      b, loc, low,
      LLVM::ShlOp::create(
          b, loc, high,
          LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(16))));
  std::string text = "{ .reg .b32 %kb; prmt.b32 %kb, $1, $2, " +
                     std::to_string(selector) + ";";
  if (!oneWord)
    text += " and.b32 %kb, %kb, 0x00FF00FF;";
  text += " set.ge.u32.f16x2 $0, %kb, $3; }";
  Value mask =
      LLVM::InlineAsmOp::create(
          b, loc, i32, ValueRange{lanes[0].word, second32, thresholds}, text,
          "=r,r,r,r", /*has_side_effects=*/false, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
          ArrayAttr())
          .getResult(0);
  Value bits = LLVM::BitcastOp::create(b, loc, i32, v);
  Value masked = LLVM::AndOp::create(b, loc, bits, mask);
  Value result = LLVM::BitcastOp::create(b, loc, vecType, masked);
  second.getResult().replaceAllUsesWith(result);
}

/// Erases `op` and then the operands' defining ops that it left unused.
void eraseDead(Operation *op) {
  SmallVector<Operation *> work{op};
  while (!work.empty()) {
    Operation *o = work.pop_back_val();
    if (!o->use_empty() || !isMemoryEffectFree(o))
      continue;
    SmallVector<Operation *> defs;
    for (Value operand : o->getOperands())
      if (Operation *d = operand.getDefiningOp())
        defs.push_back(d);
    o->erase();
    for (Operation *d : defs)
      if (d->use_empty())
        work.push_back(d);
  }
}

struct PackByteSelects : ::kite::impl::PackByteSelectsBase<PackByteSelects> {
  void runOnOperation() override {
    SmallVector<std::pair<LLVM::InsertElementOp, std::array<MaskedLane, 2>>>
        found;
    getOperation().walk([&](LLVM::InsertElementOp second) {
      auto vecType = dyn_cast<VectorType>(second.getType());
      if (!vecType || vecType.getNumElements() != 2 ||
          !(vecType.getElementType().isF16() ||
            vecType.getElementType().isBF16()) ||
          !isConstantInt(second.getPosition(), 1))
        return;
      auto first = second.getVector().getDefiningOp<LLVM::InsertElementOp>();
      if (!first || !first->hasOneUse() ||
          !isConstantInt(first.getPosition(), 0))
        return;
      std::array<MaskedLane, 2> lanes;
      if (!matchLane(first.getValue(), lanes[0]) ||
          !matchLane(second.getValue(), lanes[1]))
        return;
      found.push_back({second, lanes});
    });
    for (auto &[second, lanes] : found) {
      rewrite(second, lanes.data());
      eraseDead(second);
    }
  }
};
} // namespace
