//===- KiteDialectTest.cpp - C++ API of the kite dialect ------------------===//
//
// Builds kite IR through the C++ API (types, builders, helpers) and checks
// what the builders infer and what the verifiers accept.
//
//===----------------------------------------------------------------------===//

#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Registration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::kite;

namespace {

class KiteDialectTest : public ::testing::Test {
protected:
  KiteDialectTest() {
    DialectRegistry registry;
    ::kite::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
};

TEST_F(KiteDialectTest, PointeeTypes) {
  Builder b(&context);
  for (Type t : {Type(b.getI1Type()), Type(b.getI8Type()), Type(b.getI16Type()),
                 Type(b.getI32Type()), Type(b.getI64Type()), Type(b.getF16Type()),
                 Type(b.getBF16Type()), Type(b.getF32Type()), Type(b.getF64Type())})
    EXPECT_TRUE(PointerType::isValidPointeeType(t));
  EXPECT_FALSE(PointerType::isValidPointeeType(b.getIntegerType(7)));
  EXPECT_FALSE(PointerType::isValidPointeeType(b.getIndexType()));
  EXPECT_FALSE(PointerType::isValidPointeeType(
      RankedTensorType::get({4}, b.getF32Type())));
}

TEST_F(KiteDialectTest, ShapeHelpers) {
  Builder b(&context);
  auto block = RankedTensorType::get({16, 8}, b.getF32Type());
  EXPECT_EQ(getElementTypeOrSelf(block), b.getF32Type());
  EXPECT_EQ(getElementTypeOrSelf(b.getI32Type()), b.getI32Type());
  EXPECT_EQ(getTypeWithShapeOf(block, b.getI1Type()),
            RankedTensorType::get({16, 8}, b.getI1Type()));
  EXPECT_EQ(getTypeWithShapeOf(b.getF16Type(), b.getI1Type()), b.getI1Type());
}

TEST_F(KiteDialectTest, BuildKernel) {
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  auto module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module.getBody());
  auto ptrType = PointerType::get(&context, b.getF32Type());
  auto func = func::FuncOp::create(
      b, loc, "copy", b.getFunctionType({ptrType, ptrType, b.getI32Type()}, {}));
  func->setAttr(KiteDialect::getKernelAttrName(), b.getUnitAttr());
  func->setAttr(KiteDialect::getNumWarpsAttrName(), b.getI32IntegerAttr(4));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);

  auto offsType = RankedTensorType::get({128}, b.getI32Type());
  auto ptrsType = RankedTensorType::get({128}, ptrType);
  Value offs = ArangeOp::create(b, loc, offsType, 0, 128);
  Value n = SplatOp::create(b, loc, offsType, entry->getArgument(2));
  Value mask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, offs, n);
  Value src = SplatOp::create(b, loc, ptrsType, entry->getArgument(0));
  src = AddPtrOp::create(b, loc, ptrsType, src, offs);
  auto load = LoadOp::create(b, loc, src, mask);
  // The builder infers the loaded type from the pointers.
  EXPECT_EQ(load.getType(), RankedTensorType::get({128}, b.getF32Type()));
  Value dst = SplatOp::create(b, loc, ptrsType, entry->getArgument(1));
  dst = AddPtrOp::create(b, loc, ptrsType, dst, offs);
  StoreOp::create(b, loc, dst, load, mask);
  func::ReturnOp::create(b, loc);

  EXPECT_TRUE(succeeded(verify(module)));
  EXPECT_TRUE(isKernel(func));
  module->erase();
}

TEST_F(KiteDialectTest, VerifierRejectsBadArange) {
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  auto module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module.getBody());
  ArangeOp::create(b, loc, RankedTensorType::get({12}, b.getI32Type()), 0, 12);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  EXPECT_TRUE(failed(verify(module)));
  EXPECT_NE(message.find("must be a power of two"), std::string::npos)
      << message;
  module->erase();
}

} // namespace
