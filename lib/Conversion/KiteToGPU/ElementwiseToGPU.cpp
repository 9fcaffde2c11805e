//===- ElementwiseToGPU.cpp - arith and math on blocks ---------------------===//
//
// arith/math ops on blocks are elementwise, and every block of one shape has
// the same layout, so they lower by converting their types:
//   arith.addf %a, %b : tensor<1024xf32> => arith.addf : vector<8xf32>
// f32 division follows Triton: approximate div.full.f32 (inline PTX) unless
// IEEE division was asked for.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

namespace {

/// Pattern: <arith|math op> on tensors => the same op on per-thread vectors
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumRegions() != 0)
      return rewriter.notifyMatchFailure(op, "not an elementwise arith/math op");
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return rewriter.notifyMatchFailure(op, "result types not convertible");
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         op->getAttrs());
    Operation *newOp = rewriter.create(state);
    rewriter.replaceOp(op, newOp->getResults());
    return success();
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
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto divide = [&](Value a, Value b) -> Value {
      auto asmOp = LLVM::InlineAsmOp::create(
          rewriter, loc, rewriter.getF32Type(), ValueRange{a, b},
          "div.full.f32 $0, $1, $2;", "=f,f,f", /*has_side_effects=*/false,
          /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
          /*asm_dialect=*/LLVM::AsmDialectAttr(),
          /*operand_attrs=*/ArrayAttr());
      return asmOp.getResult(0);
    };
    auto vecType = dyn_cast<VectorType>(lhs.getType());
    if (!vecType) {
      rewriter.replaceOp(op, divide(lhs, rhs));
      return success();
    }
    Value result = arith::ConstantOp::create(
        rewriter, loc, vecType,
        DenseElementsAttr::get(vecType, rewriter.getF32FloatAttr(0)));
    for (int64_t e = 0; e < vecType.getNumElements(); ++e) {
      Value q = divide(extractRegister(rewriter, loc, lhs, e),
                       extractRegister(rewriter, loc, rhs, e));
      result = vector::InsertOp::create(rewriter, loc, q, result, e);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

/// Pattern: kite.inline_asm => one llvm.inline_asm per register (the
/// operands' and results' layouts agree: LayoutAssignment joins them);
/// several results come back as a struct.
struct InlineAsmLowering : OpConversionPattern<InlineAsmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(InlineAsmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Type> resultTypes, elemTypes;
    for (Type t : op.getResultTypes()) {
      Type c = getTypeConverter()->convertType(t);
      if (!c)
        return rewriter.notifyMatchFailure(op, "unconvertible result");
      resultTypes.push_back(c);
      elemTypes.push_back(getElementTypeOrSelf(c));
    }
    int64_t regs = 1;
    for (Type t : resultTypes)
      if (auto v = dyn_cast<VectorType>(t))
        regs = v.getNumElements();
    Type asmResult =
        elemTypes.size() == 1
            ? elemTypes[0]
            : Type(LLVM::LLVMStructType::getLiteral(getContext(), elemTypes));
    SmallVector<Value> results;
    for (Type t : resultTypes)
      results.push_back(isa<VectorType>(t) ? constantOf(rewriter, loc, t, 0)
                                           : Value());
    for (int64_t e = 0; e < regs; ++e) {
      SmallVector<Value> args;
      for (Value a : adaptor.getArgs())
        args.push_back(extractRegister(rewriter, loc, a, e));
      auto asmOp = LLVM::InlineAsmOp::create(
          rewriter, loc, asmResult, args, op.getAsmString(),
          op.getConstraints(), /*has_side_effects=*/!op.getPure(),
          /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
          /*asm_dialect=*/LLVM::AsmDialectAttr(),
          /*operand_attrs=*/ArrayAttr());
      for (size_t r = 0; r < resultTypes.size(); ++r) {
        Value v = asmOp.getResult(0);
        if (elemTypes.size() > 1)
          v = LLVM::ExtractValueOp::create(rewriter, loc, v, r);
        results[r] = isa<VectorType>(resultTypes[r])
                         ? vector::InsertOp::create(rewriter, loc, v,
                                                    results[r], e)
                               .getResult()
                         : v;
      }
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

void mlir::kite::populateElementwisePatterns(KiteTypeConverter &converter,
                                             const KiteLoweringState &state,
                                             RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering, InlineAsmLowering>(converter,
                                                       patterns.getContext());
  if (!state.ieeeDivision)
    patterns.add<ApproxDivLowering>(converter, patterns.getContext(),
                                    /*benefit=*/2);
}
