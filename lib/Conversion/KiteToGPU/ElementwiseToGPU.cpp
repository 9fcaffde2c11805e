//===- ElementwiseToGPU.cpp - arith and math on blocks ---------------------===//
//
// arith/math ops on blocks are elementwise, and every block of one shape has
// the same layout, so they lower by converting their types:
//   arith.addf %a, %b : tensor<1024xf32> => arith.addf : vector<8xf32>
// f32 division follows Triton: approximate div.full.f32 (inline PTX) unless
// IEEE division was asked for (the ieee-division option for the kernel,
// div_rn / sqrt_rn for one op: marked kite.ieee, div.rn / sqrt.rn).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {

/// Pattern: <arith|math op> on tensors => the same op on per-thread vectors
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(TypeConverter &converter, const KiteLoweringState &state,
                      MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context),
        state(state) {}
  const KiteLoweringState &state;
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumRegions() != 0)
      return rewriter.notifyMatchFailure(op, "not an elementwise arith/math op");
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResults(),
                                                resultTypes)))
      return rewriter.notifyMatchFailure(op, "result types not convertible");
    OperationState result(op->getLoc(), op->getName(), operands, resultTypes,
                          op->getAttrs());
    Operation *newOp = rewriter.create(result);
    // fp fusion: the multiply and the add of a*b+c may become one fma. Not
    // a product with several users: NVPTX fuses aggressively, folding the
    // multiply into each add that reads it, which keeps both factors live
    // where the product alone was (layer norm backward's `w * dy`, summed
    // and used again: 32 more registers a thread).
    bool sharedProduct =
        isa<arith::MulFOp>(op) && !op->getResult(0).hasOneUse();
    allowContraction(newOp, state.fpFusion && !sharedProduct);
    rewriter.replaceOp(op, newOp->getResults());
    return success();
  }
};

/// An f32 PTX instruction (`text`, `constraints`: one f32 result, f32
/// operands) applied to `operands`: once for scalars, once per register
/// for blocks (all operands in one layout).
Value perRegisterAsm(OpBuilder &b, Location loc, StringRef text,
                     StringRef constraints, ValueRange operands) {
  auto apply = [&](ValueRange args) -> Value {
    return LLVM::InlineAsmOp::create(
               b, loc, b.getF32Type(), args, text, constraints,
               /*has_side_effects=*/false, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None,
               /*asm_dialect=*/LLVM::AsmDialectAttr(),
               /*operand_attrs=*/ArrayAttr())
        .getResult(0);
  };
  auto vecType = dyn_cast<VectorType>(operands.front().getType());
  if (!vecType)
    return apply(operands);
  SmallVector<Value> elems;
  for (int64_t e = 0; e < vecType.getNumElements(); ++e) {
    SmallVector<Value> args;
    for (Value v : operands)
      args.push_back(extractRegister(b, loc, v, e));
    elems.push_back(apply(args));
  }
  return vector::FromElementsOp::create(b, loc, vecType, elems);
}

/// Pattern: f32 math.exp2 => ex2.approx.ftz.f32 per element (Triton's
/// exp2: one MUFU.EX2; the non-ftz form LLVM emits for llvm.exp2.f32 adds
/// a compare and two multiplies to scale denormal results, a third of the
/// arithmetic of attention's softmax). Results below 2^-126 flush to 0.
struct Exp2Lowering : OpConversionPattern<math::Exp2Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(math::Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "only f32 exp2 is approximated");
    rewriter.replaceOp(op, perRegisterAsm(rewriter, op.getLoc(),
                                          "ex2.approx.ftz.f32 $0, $1;", "=f,f",
                                          adaptor.getOperand()));
    return success();
  }
};

/// Pattern: f32 math.exp => ex2.approx.f32(x * log2(e)) per element, as
/// Triton lowers `tl.exp` (one multiply and MUFU.EX2; libdevice's
/// __nv_expf is about eight instructions with a range reduction). Not
/// flushed: results below 2^-126 stay denormal, as in Triton. Relative
/// error about 2^-22 for |x| small, growing with |x| by the rounding of
/// x * log2(e) (Triton's numerics exactly).
struct ExpLowering : OpConversionPattern<math::ExpOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(math::ExpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "only f32 exp is approximated");
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    Value log2e = arith::ConstantOp::create(
        rewriter, loc, rewriter.getF32FloatAttr(1.4426950408889634));
    if (auto vecType = dyn_cast<VectorType>(x.getType()))
      log2e = vector::BroadcastOp::create(rewriter, loc, vecType, log2e);
    Value scaled = arith::MulFOp::create(rewriter, loc, x, log2e);
    rewriter.replaceOp(op, perRegisterAsm(rewriter, loc,
                                          "ex2.approx.f32 $0, $1;", "=f,f",
                                          scaled));
    return success();
  }
};

/// Pattern: x * broadcast(exp2(a - b)) (or exp) on a block of f32: an
/// online softmax's rescale of what it accumulated under an older maximum
/// (attention's `acc * alpha[:, None]`, alpha = exp2(m_old - m_new)). The
/// factor is exactly 1 wherever the running maximum did not move, which
/// in the steady state of a long row is most rows (all of them when the
/// kernel moves its maximum only past a threshold, as FlashAttention-4
/// does: docs/tutorials/attention.md). Each warp votes, and skips the
/// multiplies when every factor it holds is 1: a branch uniform over the
/// warp, x * 1 == x exactly. Only where the block has several registers
/// for each factor register (the vote and the branch cost 3 or 4
/// instructions).
struct OnlineRescaleLowering : OpConversionPattern<arith::MulFOp> {
  using OpConversionPattern::OpConversionPattern;

  /// The broadcast source when `v` is such a factor.
  static Value rescaleFactor(Value v) {
    auto bcast = v.getDefiningOp<BroadcastOp>();
    if (!bcast)
      return Value();
    Value src = bcast.getSrc(), factor = src;
    if (auto expand = factor.getDefiningOp<ExpandDimsOp>())
      factor = expand.getSrc();
    Operation *exp = factor.getDefiningOp();
    if (!exp || !isa<math::Exp2Op, math::ExpOp>(exp) ||
        !exp->getOperand(0).getDefiningOp<arith::SubFOp>())
      return Value();
    return src;
  }

  LogicalResult
  matchAndRewrite(arith::MulFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not a block of f32");
    auto vecType = dyn_cast_or_null<VectorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!vecType)
      return rewriter.notifyMatchFailure(op, "one register a thread");
    for (int side = 0; side < 2; ++side) {
      Value src = rescaleFactor(op->getOperand(side));
      if (!src)
        continue;
      Value factors = rewriter.getRemappedValue(src);
      if (!factors)
        continue;
      int64_t regs = 1;
      if (auto v = dyn_cast<VectorType>(factors.getType()))
        regs = v.getNumElements();
      if (vecType.getNumElements() < 8 * regs)
        continue;
      Location loc = op.getLoc();
      Value one = arith::ConstantFloatOp::create(
          rewriter, loc, rewriter.getF32Type(), APFloat(1.0f));
      Value allOne;
      for (int64_t r = 0; r < regs; ++r) {
        Value eq = arith::CmpFOp::create(
            rewriter, loc, arith::CmpFPredicate::OEQ,
            extractRegister(rewriter, loc, factors, r), one);
        allOne = allOne ? arith::AndIOp::create(rewriter, loc, allOne, eq) : eq;
      }
      Value lanes = arith::ConstantIntOp::create(rewriter, loc,
                                                 rewriter.getI32Type(), -1);
      Value skip =
          NVVM::VoteSyncOp::create(rewriter, loc, rewriter.getI1Type(), lanes,
                                   allOne, NVVM::VoteSyncKind::all);
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{vecType}, skip,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(rewriter, loc, adaptor.getOperands()[1 - side]);
      // One multiply per register: LLVM speculates a branch holding a
      // single vector multiply (cost 1) into selects of its elements.
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      SmallVector<Value> products;
      for (int64_t e = 0; e < vecType.getNumElements(); ++e)
        products.push_back(arith::MulFOp::create(
            rewriter, loc, extractRegister(rewriter, loc, adaptor.getLhs(), e),
            extractRegister(rewriter, loc, adaptor.getRhs(), e)));
      scf::YieldOp::create(
          rewriter, loc,
          vector::FromElementsOp::create(rewriter, loc, vecType, products)
              .getResult());
      rewriter.replaceOp(op, ifOp.getResults());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not an online rescale");
  }
};

/// Pattern: arith.divf (f32) => div.full.f32 per element (inline PTX)
struct ApproxDivLowering : OpConversionPattern<arith::DivFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "only f32 division is approximated");
    if (op->hasAttr(kIeeeRoundingAttr))
      return rewriter.notifyMatchFailure(op, "div_rn: rounded correctly");
    rewriter.replaceOp(op, perRegisterAsm(rewriter, op.getLoc(),
                                          "div.full.f32 $0, $1, $2;", "=f,f,f",
                                          {adaptor.getLhs(), adaptor.getRhs()}));
    return success();
  }
};

/// Pattern: f32 arith.divf / math.sqrt marked kite.ieee (div_rn, sqrt_rn)
/// => div.rn.f32 / sqrt.rn.f32 per element. Spelled out: an unmarked f32
/// sqrt becomes libdevice's __nv_sqrtf, which is approximate.
template <typename Op>
struct IeeeLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32() ||
        !op->hasAttr(kIeeeRoundingAttr))
      return rewriter.notifyMatchFailure(op, "not an f32 op marked kite.ieee");
    bool div = std::is_same_v<Op, arith::DivFOp>;
    rewriter.replaceOp(op, perRegisterAsm(rewriter, op.getLoc(),
                                          div ? "div.rn.f32 $0, $1, $2;"
                                              : "sqrt.rn.f32 $0, $1;",
                                          div ? "=f,f,f" : "=f,f",
                                          adaptor.getOperands()));
    return success();
  }
};

} // namespace

/// Pattern: kite.map_elementwise => its body once per register: the
/// body's ops (scalar arith, math, scf.if) cloned with its arguments mapped
/// to the register's elements (the operands' and results' layouts agree:
/// LayoutAssignment joins them), the yielded values inserted into the
/// results.
struct MapElementwiseLowering : OpConversionPattern<MapElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MapElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Type> resultTypes;
    for (Value r : op->getResults()) {
      Type c = getTypeConverter()->convertType(r);
      if (!c)
        return rewriter.notifyMatchFailure(op, "unconvertible result");
      resultTypes.push_back(c);
    }
    int64_t regs = 1; // elements a thread holds
    if (auto v = dyn_cast<VectorType>(resultTypes[0]))
      regs = v.getNumElements();
    SmallVector<Value> results;
    for (Type t : resultTypes)
      results.push_back(isa<VectorType>(t) ? constantOf(rewriter, loc, t, 0)
                                           : Value());
    // pack > 1: registers e .. e + pack - 1 must be consecutive elements
    // (the layout's register bits below log2(pack) its index's).
    int64_t pack = op.getPack();
    if (pack > 1) {
      auto *conv = getTypeConverter<KiteTypeConverter>();
      std::optional<LinearLayout> l = linearLayoutOf(
          op, conv->getLayout(op->getResult(0)), "the mapped blocks");
      if (!l)
        return failure();
      auto bases = l->bases(LinearLayout::In::Register);
      bool runs = regs % pack == 0;
      for (int64_t i = 0; runs && (int64_t(1) << i) < pack; ++i)
        runs = i < int64_t(bases.size()) && bases[i] == (int64_t(1) << i);
      if (!runs)
        return op.emitOpError()
               << "pack " << pack << ": each thread must hold runs of " << pack
               << " consecutive elements, and this block's layout gives it "
               << regs << " element(s) in runs of fewer (use pack=1, or a "
               << "larger block or fewer warps)";
    }
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    int64_t numSrcs = int64_t(adaptor.getSrcs().size());
    for (int64_t e = 0; e < regs; e += pack) {
      IRMapping map;
      for (int64_t k = 0; k < numSrcs; ++k)
        for (int64_t j = 0; j < pack; ++j)
          map.map(body.getArgument(unsigned(k * pack + j)),
                  extractRegister(rewriter, loc, adaptor.getSrcs()[k], e + j));
      for (Operation &inner : body.without_terminator())
        rewriter.clone(inner, map);
      for (auto [n, v] : llvm::enumerate(yield.getValues())) {
        int64_t k = int64_t(n) / pack, at = e + int64_t(n) % pack;
        Value x = map.lookupOrDefault(v);
        results[k] = results[k] ? vector::InsertOp::create(rewriter, loc, x,
                                                           results[k], at)
                                      .getResult()
                                : x;
      }
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Pattern: kite.inline_asm => one llvm.inline_asm per register (the
/// operands' and results' layouts agree: LayoutAssignment joins them);
/// several results come back as a struct.
struct InlineAsmLowering : OpConversionPattern<InlineAsmOp> {
  using OpConversionPattern::OpConversionPattern;

  /// Elements narrower than 32 bits travel `32 / bits` to a 32-bit
  /// register when a call takes several (pack > 1).
  static bool packed(Type element, int64_t pack) {
    return pack > 1 && element.getIntOrFloatBitWidth() < 32;
  }

  LogicalResult
  matchAndRewrite(InlineAsmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t pack = op.getPack();
    SmallVector<Type> resultTypes, elemTypes;
    for (Value r : op->getResults()) {
      Type c = getTypeConverter()->convertType(r);
      if (!c)
        return rewriter.notifyMatchFailure(op, "unconvertible result");
      resultTypes.push_back(c);
      elemTypes.push_back(getElementTypeOrSelf(c));
    }
    int64_t regs = 1; // elements a thread holds
    for (Type t : resultTypes)
      if (auto v = dyn_cast<VectorType>(t))
        regs = v.getNumElements();
    if (regs % pack)
      return op.emitOpError()
             << "pack " << pack << ": each thread holds " << regs
             << " element(s) of the block, not a multiple of pack (use a "
                "larger block or fewer warps)";
    Type i32 = rewriter.getI32Type();
    // The asm's outputs: per result, its registers of one call.
    SmallVector<Type> fields;
    for (Type e : elemTypes)
      fields.append(size_t(InlineAsmOp::registersPerCall(e, pack)),
                    packed(e, pack) ? i32 : e);
    Type asmResult =
        fields.size() == 1
            ? fields[0]
            : Type(LLVM::LLVMStructType::getLiteral(getContext(), fields));
    SmallVector<Value> results;
    for (Type t : resultTypes)
      results.push_back(isa<VectorType>(t) ? constantOf(rewriter, loc, t, 0)
                                           : Value());
    for (int64_t first = 0; first < regs; first += pack) {
      SmallVector<Value> args;
      for (Value a : adaptor.getArgs()) {
        Type e = getElementTypeOrSelf(a.getType());
        if (!packed(e, pack)) {
          for (int64_t k = 0; k < pack; ++k)
            args.push_back(extractRegister(rewriter, loc, a, first + k));
          continue;
        }
        int64_t per = 32 / e.getIntOrFloatBitWidth();
        auto groupType = VectorType::get({per}, e);
        for (int64_t g = 0; g < pack; g += per) {
          Value group = LLVM::UndefOp::create(rewriter, loc, groupType);
          for (int64_t j = 0; j < per; ++j)
            group = vector::InsertOp::create(
                rewriter, loc, extractRegister(rewriter, loc, a, first + g + j),
                group, j);
          args.push_back(LLVM::BitcastOp::create(rewriter, loc, i32, group));
        }
      }
      auto asmOp = LLVM::InlineAsmOp::create(
          rewriter, loc, asmResult, args, op.getAsmString(),
          op.getConstraints(), /*has_side_effects=*/!op.getPure(),
          /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
          /*asm_dialect=*/LLVM::AsmDialectAttr(),
          /*operand_attrs=*/ArrayAttr());
      int64_t field = 0;
      auto next = [&]() -> Value {
        Value v = asmOp.getResult(0);
        if (fields.size() > 1)
          v = LLVM::ExtractValueOp::create(rewriter, loc, v, field);
        ++field;
        return v;
      };
      for (size_t r = 0; r < resultTypes.size(); ++r) {
        if (!isa<VectorType>(resultTypes[r])) {
          results[r] = next(); // a scalar call (pack 1)
          continue;
        }
        auto place = [&](Value v, int64_t at) {
          results[r] =
              vector::InsertOp::create(rewriter, loc, v, results[r], at)
                  .getResult();
        };
        Type e = elemTypes[r];
        if (!packed(e, pack)) {
          for (int64_t k = 0; k < pack; ++k)
            place(next(), first + k);
          continue;
        }
        int64_t per = 32 / e.getIntOrFloatBitWidth();
        auto groupType = VectorType::get({per}, e);
        for (int64_t g = 0; g < pack; g += per) {
          Value group =
              LLVM::BitcastOp::create(rewriter, loc, groupType, next());
          for (int64_t j = 0; j < per; ++j)
            place(vector::ExtractOp::create(rewriter, loc, group, j),
                  first + g + j);
        }
      }
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// `n` elements of `v` (a vector, or a scalar for n = 1).
static SmallVector<Value> elementsOf(OpBuilder &b, Location loc, Value v,
                                     int64_t n) {
  SmallVector<Value> out;
  for (int64_t e = 0; e < n; ++e)
    out.push_back(extractRegister(b, loc, v, e));
  return out;
}

/// The inverse: a vector of `type`, or the scalar.
static Value fromElements(OpBuilder &b, Location loc, ArrayRef<Value> elems,
                          Type type) {
  auto vec = dyn_cast<VectorType>(type);
  if (!vec)
    return elems.front();
  Value out = LLVM::UndefOp::create(b, loc, vec);
  for (auto [e, v] : llvm::enumerate(elems))
    out = vector::InsertOp::create(b, loc, v, out, int64_t(e));
  return out;
}

Value mlir::kite::detail::fp8ToF32(OpBuilder &b, Location loc, Value bits,
                                   Type fp8) {
  return fp8PairToF32(b, loc, bits, bits, fp8).first;
}

std::pair<Value, Value> mlir::kite::detail::fp8PairToF32(OpBuilder &b,
                                                         Location loc, Value lo,
                                                         Value hi, Type fp8) {
  auto i8x2 = VectorType::get({2}, b.getI8Type());
  Value pair = LLVM::UndefOp::create(b, loc, i8x2);
  pair = vector::InsertOp::create(b, loc, lo, pair, int64_t(0));
  pair = vector::InsertOp::create(b, loc, hi, pair, int64_t(1));
  // cvt.rn.f16x2.e4m3x2 / .e5m2x2 (sm_89+; exact), then f16 -> f32.
  Value halves = NVVM::ConvertF8x2ToF16x2Op::create(
      b, loc, VectorType::get({2}, b.getF16Type()), pair, b.getBoolAttr(false),
      TypeAttr::get(fp8));
  auto f32 = b.getF32Type();
  auto half = [&](int64_t i) -> Value {
    return LLVM::FPExtOp::create(
        b, loc, f32, vector::ExtractOp::create(b, loc, halves, i));
  };
  return {half(0), half(1)};
}

namespace {

/// Pattern: arith.extf from fp8 and arith.truncf to fp8, two elements at a
/// time through the hardware's paired conversions (sm_89+): to fp8,
/// cvt.rn.satfinite.{e4m3,e5m2}x2.f32 (round to nearest even, saturating;
/// the frontend clamps first, so the saturation never decides); from fp8,
/// cvt.rn.f16x2.{e4m3,e5m2}x2 (exact) and a widening to f32 where asked.
struct Fp8ConvertLowering : ConversionPattern {
  Fp8ConvertLowering(TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/2,
                          context) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(op))
      return failure();
    Type from = getElementTypeOrSelf(op->getOperand(0).getType());
    Type to = getElementTypeOrSelf(op->getResult(0).getType());
    if (!isFp8(from) && !isFp8(to))
      return failure();
    Type resultType = getTypeConverter()->convertType(op->getResult(0));
    Location loc = op->getLoc();
    int64_t n = 1;
    if (auto vec = dyn_cast<VectorType>(operands[0].getType()))
      n = vec.getNumElements();
    SmallVector<Value> in = elementsOf(rewriter, loc, operands[0], n), out;
    if (isFp8(to)) {
      if (!from.isF32())
        return op->emitOpError() << "converts " << from << " to " << to
                                 << "; only f32 converts to fp8 directly";
      auto i8x2 = VectorType::get({2}, rewriter.getI8Type());
      for (int64_t e = 0; e < n; e += 2) {
        Value lo = in[e], hi = e + 1 < n ? in[e + 1] : in[e];
        // The first operand lands in the upper byte (element 1).
        Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
            rewriter, loc, i8x2, hi, lo, NVVM::FPRoundingMode::RN,
            NVVM::SaturationMode::SATFINITE, /*relu=*/false, to);
        out.push_back(vector::ExtractOp::create(rewriter, loc, pair, 0));
        if (e + 1 < n)
          out.push_back(vector::ExtractOp::create(rewriter, loc, pair, 1));
      }
    } else {
      if (!to.isF32() && !to.isF16())
        return op->emitOpError() << "converts " << from << " to " << to
                                 << "; fp8 converts to f16 or f32 directly";
      for (int64_t e = 0; e < n; e += 2) {
        auto [x0, x1] = fp8PairToF32(rewriter, loc, in[e],
                                     e + 1 < n ? in[e + 1] : in[e], from);
        for (Value x : {x0, x1}) {
          if (int64_t(out.size()) == n)
            break;
          out.push_back(to.isF32() ? x
                                   : LLVM::FPTruncOp::create(
                                         rewriter, loc, to, x)
                                         .getResult());
        }
      }
    }
    rewriter.replaceOp(op, fromElements(rewriter, loc, out, resultType));
    return success();
  }
};

/// Pattern: arith.sitofp / arith.uitofp of i8 blocks to f16 (int8
/// weights dequantized in a matmul's K loop), two elements at a time
/// without the conversion unit (I2F issues at a quarter of the ALU's rate
/// and held the W8A16 loop): the two bytes (sign bit flipped for sitofp)
/// become the low bytes of the f16 pair 1024 + x (0x64xx: in [1024, 2048)
/// f16 steps by 1), and one f16x2 subtraction of 1024 (1152 for sitofp)
/// leaves x, exactly.
struct ByteToHalfLowering : ConversionPattern {
  ByteToHalfLowering(TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/2,
                          context) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::SIToFPOp, arith::UIToFPOp>(op))
      return failure();
    Type from = getElementTypeOrSelf(op->getOperand(0).getType());
    Type to = getElementTypeOrSelf(op->getResult(0).getType());
    auto vec = dyn_cast<VectorType>(operands[0].getType());
    if (!from.isInteger(8) || !to.isF16() || !vec ||
        vec.getNumElements() < 2)
      return failure();
    const bool isSigned = isa<arith::SIToFPOp>(op);
    Location loc = op->getLoc();
    Type resultType = getTypeConverter()->convertType(op->getResult(0));
    int64_t n = vec.getNumElements();
    SmallVector<Value> in = elementsOf(rewriter, loc, operands[0], n), out;
    Type i32 = rewriter.getI32Type();
    auto f16x2 = VectorType::get({2}, rewriter.getF16Type());
    auto c32 = [&](uint32_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, i32, int64_t(v));
    };
    Value bias = arith::ConstantOp::create(
        rewriter, loc, f16x2,
        DenseElementsAttr::get(
            f16x2, rewriter.getF16FloatAttr(isSigned ? 1152.0 : 1024.0)
                       .getValue()));
    auto halvesOf = [&](Value w) {
      Value halves = arith::SubFOp::create(
          rewriter, loc, LLVM::BitcastOp::create(rewriter, loc, f16x2, w),
          bias);
      out.push_back(vector::ExtractOp::create(rewriter, loc, halves, 0));
      out.push_back(vector::ExtractOp::create(rewriter, loc, halves, 1));
    };
    // Four bytes at a time: the word they make (where they were loaded as
    // one, LLVM folds it back to the load's register), the sign bits
    // flipped at once, and each pair placed under the 0x64 bytes by one
    // prmt (bytes 4-7 of its pool are 0x64): 5 instructions a word.
    int64_t e = 0;
    for (; e + 4 <= n; e += 4) {
      Value word = LLVM::BitcastOp::create(
          rewriter, loc, i32,
          vector::FromElementsOp::create(
              rewriter, loc, VectorType::get({4}, rewriter.getI8Type()),
              ArrayRef<Value>(in).slice(e, 4)));
      if (isSigned)
        word = arith::XOrIOp::create(rewriter, loc, word, c32(0x80808080u));
      for (uint32_t selector : {0x4140u, 0x4342u})
        halvesOf(NVVM::PermuteOp::create(rewriter, loc, i32, word,
                                         c32(0x64646464u), c32(selector),
                                         NVVM::PermuteMode::DEFAULT));
    }
    for (; e < n; e += 2) {
      Value lo = arith::ExtUIOp::create(rewriter, loc, i32, in[e]);
      Value hi = arith::ExtUIOp::create(rewriter, loc, i32,
                                        in[e + 1 < n ? e + 1 : e]);
      Value w = arith::OrIOp::create(
          rewriter, loc, lo, arith::ShLIOp::create(rewriter, loc, hi, c32(16)));
      if (isSigned)
        w = arith::XOrIOp::create(rewriter, loc, w, c32(0x00800080));
      w = arith::OrIOp::create(rewriter, loc, w, c32(0x64006400));
      Value halves = arith::SubFOp::create(
          rewriter, loc, LLVM::BitcastOp::create(rewriter, loc, f16x2, w),
          bias);
      out.push_back(vector::ExtractOp::create(rewriter, loc, halves, 0));
      if (e + 1 < n)
        out.push_back(vector::ExtractOp::create(rewriter, loc, halves, 1));
    }
    rewriter.replaceOp(op, fromElements(rewriter, loc, out, resultType));
    return success();
  }
};

} // namespace

void mlir::kite::populateElementwisePatterns(KiteTypeConverter &converter,
                                             const KiteLoweringState &state,
                                             RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering>(converter, state, patterns.getContext());
  patterns.add<Exp2Lowering, ExpLowering, OnlineRescaleLowering>(
      converter, patterns.getContext(), /*benefit=*/2);
  patterns.add<IeeeLowering<arith::DivFOp>, IeeeLowering<math::SqrtOp>>(
      converter, patterns.getContext(), /*benefit=*/3);
  patterns.add<InlineAsmLowering, Fp8ConvertLowering, MapElementwiseLowering,
               ByteToHalfLowering>(converter, patterns.getContext());
  if (!state.ieeeDivision)
    patterns.add<ApproxDivLowering>(converter, patterns.getContext(),
                                    /*benefit=*/2);
}
