//===- TypeConverter.cpp - Kite blocks to per-thread vectors --------------===//
//
// The blocked layout and the type converter of the kite -> gpu lowering:
// tensor<... x T> -> vector<E x T> (E elements per thread), blocks of
// pointers -> vector<E x i64> addresses, !kite.ptr -> !llvm.ptr<1>.
//
//===----------------------------------------------------------------------===//

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace mlir::kite;

BlockedLayout BlockedLayout::get(int64_t numel, int64_t numThreads,
                                 int64_t vectorWidth) {
  BlockedLayout layout;
  layout.numel = numel;
  layout.numThreads = numThreads;
  int64_t perThread = numel / numThreads;
  layout.chunk = std::clamp<int64_t>(perThread, 1, vectorWidth);
  layout.perThread = std::max<int64_t>(perThread, 1);
  return layout;
}

KiteTypeConverter::KiteTypeConverter(MLIRContext *context, int64_t numThreads,
                                     int64_t vectorWidth)
    : numThreads(numThreads), vectorWidth(vectorWidth) {
  addConversion([](Type type) { return type; });
  addConversion([context](PointerType) -> Type {
    return LLVM::LLVMPointerType::get(context, /*addressSpace=*/1);
  });
  addConversion([this, context](RankedTensorType type) -> Type {
    Type element = type.getElementType();
    if (isa<PointerType>(element))
      element = IntegerType::get(context, 64);
    return VectorType::get({getLayout(type).perThread}, element);
  });
  auto materialize = [](OpBuilder &builder, Type type, ValueRange inputs,
                        Location loc) -> Value {
    return UnrealizedConversionCastOp::create(builder, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}

BlockedLayout KiteTypeConverter::getLayout(RankedTensorType type) const {
  return BlockedLayout::get(type.getNumElements(), numThreads, vectorWidth);
}
