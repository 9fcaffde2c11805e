//===- Registration.cpp - Register Kite's dialects and passes -------------===//
//
// Registers the kite dialect with the upstream dialects and passes Kite uses.
//
//===----------------------------------------------------------------------===//

#include "kite/Registration.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void kite::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::kite::KiteDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect>();
  mlir::func::registerInlinerExtension(registry);
}

void kite::registerAllPasses() {
  // Generic transformations (canonicalize, cse, inline, ...).
  mlir::registerTransformsPasses();
}
