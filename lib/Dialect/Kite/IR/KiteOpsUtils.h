//===- KiteOpsUtils.h - Helpers of the op verifiers -------------*- C++ -*-===//
//
// Shared by KiteOps.cpp and KiteShapeOps.cpp (the verifiers and folds of the
// ops that move elements).
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_DIALECT_KITE_IR_KITEOPSUTILS_H
#define KITE_LIB_DIALECT_KITE_IR_KITEOPSUTILS_H

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::kite::detail {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The shape of a block type, or the empty shape of a scalar.
inline ArrayRef<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

/// Prints a shape as `[a, b]`, or `scalar` for a rank-0 shape.
inline std::string shapeString(Type type) {
  if (!isa<RankedTensorType>(type))
    return "scalar";
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shapeOf(type), os);
  os << "]";
  return s;
}

inline bool sameShape(Type a, Type b) {
  return isa<RankedTensorType>(a) == isa<RankedTensorType>(b) &&
         shapeOf(a) == shapeOf(b);
}

/// The pointee type of a pointer or block-of-pointers type.
inline Type pointeeOf(Type ptrLike) {
  return cast<PointerType>(getElementTypeOrSelf(ptrLike)).getPointeeType();
}

/// Whether `v` is a constant i1 (scalar or splat block) equal to `value`.
inline bool isConstantBool(Value v, bool value) {
  return value ? matchPattern(v, m_One()) : matchPattern(v, m_Zero());
}

inline bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// Operand and result of a block op that moves elements keep their type.
inline LogicalResult verifySameElementType(Operation *op,
                                           RankedTensorType srcType,
                                           RankedTensorType resultType) {
  if (srcType.getElementType() == resultType.getElementType())
    return success();
  return op->emitOpError() << "result element type "
                           << resultType.getElementType()
                           << " does not match the operand element type "
                           << srcType.getElementType();
}

/// A custom reduce/scan's `combine` region: one block of two `element`
/// arguments ending in a kite.yield of an `element`; other kinds: empty.
inline LogicalResult verifyCombiner(Operation *op, Region &region,
                                    bool custom, Type element) {
  if (!custom) {
    if (!region.empty())
      return op->emitOpError() << "has a combine region but is not custom";
    return success();
  }
  if (!region.hasOneBlock())
    return op->emitOpError() << "custom needs a combine region (one block)";
  Block &block = region.front();
  if (block.getNumArguments() != 2 ||
      block.getArgument(0).getType() != element ||
      block.getArgument(1).getType() != element)
    return op->emitOpError() << "the combine region takes two " << element
                             << " arguments";
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield || yield.getValue().getType() != element)
    return op->emitOpError() << "the combine region must yield one "
                             << element;
  return success();
}

} // namespace mlir::kite::detail

#endif
