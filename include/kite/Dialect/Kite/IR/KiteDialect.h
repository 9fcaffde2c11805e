//===- KiteDialect.h - Kite dialect ------------------------------*- C++ -*-===//
//
// Declares the `kite` dialect, its types, attributes and operations. Include
// this one header to use the dialect.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_DIALECT_KITE_IR_KITEDIALECT_H
#define KITE_DIALECT_KITE_IR_KITEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h.inc"
#include "kite/Dialect/Kite/IR/KiteEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "kite/Dialect/Kite/IR/KiteTypes.h.inc"

#define GET_OP_CLASSES
#include "kite/Dialect/Kite/IR/KiteOps.h.inc"

namespace mlir::kite {

/// Triton's float8e4nv (f8E4M3FN) and float8e5 (f8E5M2).
inline bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// Reduction kinds: argmax/argmin (an i32 index result), the maximum-like
/// ones (max, argmax and their unsigned forms), and the unsigned ones
/// (integers compared as unsigned).
inline bool isArgReduce(ReduceKind k) {
  return k == ReduceKind::ArgMax || k == ReduceKind::ArgMin ||
         k == ReduceKind::ArgUMax || k == ReduceKind::ArgUMin;
}
inline bool isMaxReduce(ReduceKind k) {
  return k == ReduceKind::Max || k == ReduceKind::ArgMax ||
         k == ReduceKind::UMax || k == ReduceKind::ArgUMax;
}
inline bool isUnsignedReduce(ReduceKind k) {
  return k == ReduceKind::UMax || k == ReduceKind::UMin ||
         k == ReduceKind::ArgUMax || k == ReduceKind::ArgUMin;
}

/// `elementType` with the shape of `like`: a tensor if `like` is a ranked
/// tensor, the scalar itself otherwise.
Type getTypeWithShapeOf(Type like, Type elementType);

/// Whether `op` is a `func.func` marked as a Kite kernel.
bool isKernel(Operation *op);

/// The most elements a block may have (Triton's limit): every dimension and
/// their product. The frontend reports a larger block where it is formed;
/// the verifier of `kite.kernel` reports any block value in a kernel beyond
/// it (IR that does not come from the frontend), before the lowering would
/// try to materialize it.
constexpr int64_t kMaxBlockElements = int64_t(1) << 20;

/// A unit attribute on an f32 `arith.divf` or `math.sqrt`: round correctly
/// on the GPU (div.rn / sqrt.rn: Triton's div_rn, sqrt_rn), where the
/// unmarked ops are approximate (div.full, sqrt.approx) as in Triton.
constexpr llvm::StringLiteral kIeeeRoundingAttr = "kite.ieee";

/// A unit attribute on the `scf.if` that kite-version-full-blocks makes:
/// its then-branch is the kernel body for programs whose masked blocks are
/// full (masks folded to true), its else-branch the body as written.
constexpr llvm::StringLiteral kFullBlocksAttr = "kite.full_blocks";

} // namespace mlir::kite

#endif // KITE_DIALECT_KITE_IR_KITEDIALECT_H
