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

void mlir::kite::populateElementwisePatterns(KiteTypeConverter &converter,
                                             const KiteLoweringState &state,
                                             RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering>(converter, patterns.getContext());
  if (!state.ieeeDivision)
    patterns.add<ApproxDivLowering>(converter, patterns.getContext(),
                                    /*benefit=*/2);
}
