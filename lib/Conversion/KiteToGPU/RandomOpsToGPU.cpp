//===- RandomOpsToGPU.cpp - Philox4x32-10, bit-exact with Triton ----------===//
//
// Lowers kite.randint / rand / randn to Philox4x32 with 10 rounds on the
// per-thread vectors. Each multiply is one mul.wide.u32 (hi and lo words at
// once, one IMAD.WIDE.U32) instead of Triton's separate mul.hi and mul.lo. Key: the seed sign-extended to 64 bits;
// counter: (offset lo, offset hi or 0, 0, 0). See ../shared/notes/random.md.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

static constexpr uint32_t kRoundA = 0xD2511F53u;
static constexpr uint32_t kRoundB = 0xCD9E8D57u;
static constexpr uint32_t kKeyA = 0x9E3779B9u;
static constexpr uint32_t kKeyB = 0xBB67AE85u;

/// (lo, hi) words of the 64-bit product of the 32-bit `constant` and each
/// element of `value`, as one `mul.wide.u32` per element. (LLVM turns the
/// zext/mul i64 of arith.mului_extended into a 64-bit multiply, three times
/// the work on the GPU.)
static std::pair<Value, Value> mulWide(OpBuilder &b, Location loc,
                                       uint32_t constant, Value value) {
  Type i32 = b.getI32Type();
  auto pairType = LLVM::LLVMStructType::getLiteral(b.getContext(), {i32, i32});
  Value c = arith::ConstantIntOp::create(b, loc, i32, int64_t(constant));
  auto one = [&](Value x) -> std::pair<Value, Value> {
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, pairType, ValueRange{x, c},
        "{ .reg .b64 %t; mul.wide.u32 %t, $2, $3; mov.b64 {$0, $1}, %t; }",
        "=r,=r,r,r", /*has_side_effects=*/false, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
        ArrayAttr());
    Value pair = asmOp.getResult(0);
    return {LLVM::ExtractValueOp::create(b, loc, pair, 0),
            LLVM::ExtractValueOp::create(b, loc, pair, 1)};
  };
  auto vec = dyn_cast<VectorType>(value.getType());
  if (!vec)
    return one(value);
  Value lo = constantOf(b, loc, vec, 0), hi = lo;
  for (int64_t e = 0; e < vec.getNumElements(); ++e) {
    auto [l, h] = one(extractRegister(b, loc, value, e));
    lo = vector::InsertOp::create(b, loc, l, lo, e);
    hi = vector::InsertOp::create(b, loc, h, hi, e);
  }
  return {lo, hi};
}

/// The four output words of Philox4x32-10 for `seed` (i32/i64 scalar) and
/// `offset` (i32/i64, scalar or per-thread vector), as i32 values shaped
/// like the offset. Counter words known to be zero are tracked as null so
/// that the first round costs one multiply instead of two.
static SmallVector<Value, 4> philox(OpBuilder &b, Location loc, Value seed,
                                   Value offset) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Type shape = offset.getType();
  Type wordType = isa<VectorType>(shape)
                      ? Type(VectorType::get(cast<VectorType>(shape).getShape(), i32))
                      : i32;
  auto c = [&](Type t, int64_t v) { return constantOf(b, loc, t, v); };
  auto orZero = [&](Value v) { return v ? v : c(wordType, 0); };
  auto xorOpt = [&](Value a, Value x) -> Value {
    if (!a)
      return x;
    if (!x)
      return a;
    return arith::XOrIOp::create(b, loc, a, x);
  };

  // Key: seed sign-extended to 64 bits.
  Value seed64 = seed.getType().isInteger(64)
                     ? seed
                     : arith::ExtSIOp::create(b, loc, i64, seed).getResult();
  Value k0 = arith::TruncIOp::create(b, loc, i32, seed64);
  Value k1 = arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, seed64, c(i64, 32)));

  // Counter; null means zero.
  Value c0, c1, c2, c3;
  if (getElementTypeOrSelf(shape).isInteger(64)) {
    c0 = arith::TruncIOp::create(b, loc, wordType, offset);
    c1 = arith::TruncIOp::create(
        b, loc, wordType, arith::ShRUIOp::create(b, loc, offset, c(shape, 32)));
  } else {
    c0 = offset;
  }

  for (int round = 0; round < 10; ++round) {
    Value key0 = splatLike(b, loc, k0, wordType);
    Value key1 = splatLike(b, loc, k1, wordType);
    Value loB, hiB, loA, hiA;
    if (c2)
      std::tie(loB, hiB) = mulWide(b, loc, kRoundB, c2);
    if (c0)
      std::tie(loA, hiA) = mulWide(b, loc, kRoundA, c0);
    Value n0 = xorOpt(xorOpt(hiB, c1), key0);
    Value n2 = xorOpt(xorOpt(hiA, c3), key1);
    c0 = n0;
    c1 = loB;
    c2 = n2;
    c3 = loA;
    k0 = arith::AddIOp::create(b, loc, k0, c(i32, kKeyA));
    k1 = arith::AddIOp::create(b, loc, k1, c(i32, kKeyB));
  }
  return {orZero(c0), orZero(c1), orZero(c2), orZero(c3)};
}

/// Triton's uint_to_uniform_float: x < 0 ? ~x : x, to f32, times 2^-31.
static Value toUniform(OpBuilder &b, Location loc, Value word) {
  Type shape = word.getType();
  Value zero = constantOf(b, loc, shape, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, word, zero);
  Value flipped = arith::XOrIOp::create(b, loc, word, constantOf(b, loc, shape, -1));
  Value x = arith::SelectOp::create(b, loc, negative, flipped, word);
  Type f32 = b.getF32Type();
  Type floatType = isa<VectorType>(shape)
                       ? Type(VectorType::get(cast<VectorType>(shape).getShape(), f32))
                       : f32;
  Value f = arith::SIToFPOp::create(b, loc, floatType, x);
  TypedAttr scale = b.getF32FloatAttr(4.6566127342e-10f);
  Value s = isa<VectorType>(floatType)
                ? arith::ConstantOp::create(
                      b, loc, floatType,
                      DenseElementsAttr::get(cast<ShapedType>(floatType), scale))
                      .getResult()
                : arith::ConstantOp::create(b, loc, f32, scale).getResult();
  return arith::MulFOp::create(b, loc, f, s);
}

static Value floatConstant(OpBuilder &b, Location loc, Type type, float v) {
  TypedAttr attr = b.getF32FloatAttr(v);
  if (auto vec = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, vec,
                                     DenseElementsAttr::get(vec, attr));
  return arith::ConstantOp::create(b, loc, type, attr);
}

namespace {

/// Pattern: kite.randint s, off => word 0 of philox(s, off)
struct RandIntLowering : OpConversionPattern<RandIntOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandIntOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, philox(rewriter, op.getLoc(), adaptor.getSeed(),
                                  adaptor.getOffset())[0]);
    return success();
  }
};

/// Pattern: kite.rand s, off => uniform(word 0 of philox(s, off))
struct RandLowering : OpConversionPattern<RandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value word = philox(rewriter, op.getLoc(), adaptor.getSeed(),
                        adaptor.getOffset())[0];
    rewriter.replaceOp(op, toUniform(rewriter, op.getLoc(), word));
    return success();
  }
};

/// Pattern: kite.randn s, off => Box-Muller (cos branch) of words 0 and 1
struct RandNLowering : OpConversionPattern<RandNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto words = philox(rewriter, loc, adaptor.getSeed(), adaptor.getOffset());
    Value u1 = toUniform(rewriter, loc, words[0]);
    Value u2 = toUniform(rewriter, loc, words[1]);
    Type t = u1.getType();
    u1 = arith::MaximumFOp::create(rewriter, loc,
                                   floatConstant(rewriter, loc, t, 1.0e-7f), u1);
    Value th = arith::MulFOp::create(
        rewriter, loc, floatConstant(rewriter, loc, t, 6.283185307179586f), u2);
    Value r = math::SqrtOp::create(
        rewriter, loc,
        arith::MulFOp::create(rewriter, loc,
                              floatConstant(rewriter, loc, t, -2.0f),
                              math::LogOp::create(rewriter, loc, u1)));
    rewriter.replaceOpWithNewOp<arith::MulFOp>(
        op, r, math::CosOp::create(rewriter, loc, th));
    return success();
  }
};

} // namespace

void mlir::kite::populateRandomOpPatterns(KiteTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<RandIntLowering, RandLowering, RandNLowering>(
      converter, patterns.getContext());
}
