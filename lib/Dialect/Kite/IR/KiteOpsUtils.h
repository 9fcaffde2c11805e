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

/// The blocks a reduce/scan combines (`verb`: "reduce"/"scan"): of one
/// shape and of numbers; their element types into `elements`.
inline LogicalResult verifyCombinedBlocks(Operation *op, ValueRange srcs,
                                          StringRef verb,
                                          SmallVectorImpl<Type> &elements) {
  auto first = cast<RankedTensorType>(srcs.front().getType());
  for (Value src : srcs) {
    auto type = cast<RankedTensorType>(src.getType());
    if (type.getShape() != first.getShape())
      return op->emitOpError() << verb << "s blocks of one shape, got " << first
                               << " and " << type;
    Type element = type.getElementType();
    if (isa<PointerType>(element) || element.isInteger(1))
      return op->emitOpError()
             << "cannot " << verb << " a block of " << element;
    elements.push_back(element);
  }
  return success();
}

/// A custom reduce/scan's `combine` region: one block taking two sides of
/// `elements` (all of the first side, then all of the second) and ending
/// in a kite.yield of one of each; other kinds: empty.
inline LogicalResult verifyCombiner(Operation *op, Region &region, bool custom,
                                    TypeRange elements) {
  if (!custom) {
    if (!region.empty())
      return op->emitOpError() << "has a combine region but is not custom";
    return success();
  }
  if (!region.hasOneBlock())
    return op->emitOpError() << "custom needs a combine region (one block)";
  Block &block = region.front();
  size_t n = elements.size();
  auto describe = [&](InFlightDiagnostic &&d) -> InFlightDiagnostic && {
    llvm::interleaveComma(elements, d);
    return std::move(d);
  };
  bool argsOk = block.getNumArguments() == 2 * n;
  for (size_t i = 0; argsOk && i < 2 * n; ++i)
    argsOk = block.getArgument(i).getType() == elements[i % n];
  if (!argsOk && n == 1)
    return op->emitOpError()
           << "the combine region takes two " << elements[0] << " arguments";
  if (!argsOk)
    return describe(op->emitOpError()
                    << "the combine region takes two sides of (")
           << ") as its " << 2 * n << " arguments";
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (yield && TypeRange(yield.getValues().getTypes()) == elements)
    return success();
  if (n == 1)
    return op->emitOpError()
           << "the combine region must yield one " << elements[0];
  return describe(op->emitOpError()
                  << "the combine region must yield one each of (")
         << ")";
}

} // namespace mlir::kite::detail

#endif
