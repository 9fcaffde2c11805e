//===- Passes.h - Kite conversion passes --------------------------*- C++ -*-===//
//
// Declarations and registration of the conversions declared in Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_CONVERSION_PASSES_H
#define KITE_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kite {

#define GEN_PASS_DECL
#include "kite/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kite/Conversion/Passes.h.inc"

} // namespace mlir::kite

#endif // KITE_CONVERSION_PASSES_H
