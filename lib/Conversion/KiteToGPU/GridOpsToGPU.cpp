//===- GridOpsToGPU.cpp - program_id and num_programs ---------------------===//
//
// Pattern: kite.program_id axis   => gpu.block_id  (x|y|z) cast to i32
// Pattern: kite.num_programs axis => gpu.grid_dim  (x|y|z) cast to i32
//
//===----------------------------------------------------------------------===//

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::kite;

namespace {
template <typename KiteOp, typename GpuOp>
struct GridOpLowering : OpConversionPattern<KiteOp> {
  using OpConversionPattern<KiteOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(KiteOp op, typename KiteOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    static const gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                                          gpu::Dimension::z};
    Value index = GpuOp::create(rewriter, op.getLoc(), dims[op.getAxis()]);
    rewriter.replaceOpWithNewOp<arith::IndexCastUIOp>(
        op, rewriter.getI32Type(), index);
    return success();
  }
};
} // namespace

void mlir::kite::populateGridOpPatterns(KiteTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<GridOpLowering<ProgramIdOp, gpu::BlockIdOp>,
               GridOpLowering<NumProgramsOp, gpu::GridDimOp>>(
      converter, patterns.getContext());
}
