//===- KiteOps.cpp - Kite dialect operations -------------------------------===//
//
// Verifiers, custom assembly, folds and canonicalization patterns of the
// `kite` operations. Verifier messages name the operand and what was expected.
//
//===----------------------------------------------------------------------===//

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

#include "KiteOpsUtils.h"

//===----------------------------------------------------------------------===//
// program_id, num_programs
//===----------------------------------------------------------------------===//

static LogicalResult verifyGridAxis(Operation *op, int32_t axis) {
  if (axis < 0 || axis > 2)
    return op->emitOpError() << "axis must be 0, 1 or 2, got " << axis;
  return success();
}

LogicalResult ProgramIdOp::verify() { return verifyGridAxis(*this, getAxis()); }

/// kite.turn_wait / kite.turn_pass: only in a kernel of several consumer
/// groups (what kite-stage-dot-operands makes of range(...,
/// ping_pong=True)).
static LogicalResult verifyTurn(Operation *op) {
  auto kernel = op->getParentOfType<FunctionOpInterface>();
  if (!kernel)
    return success();
  auto groups = kernel->getAttrOfType<IntegerAttr>(
      KiteDialect::getConsumerGroupsAttrName());
  if (!groups || groups.getInt() < 2)
    return op->emitOpError()
           << "needs a kernel of two consumer groups ('"
           << KiteDialect::getConsumerGroupsAttrName()
           << "' = 2, as kite-stage-dot-operands makes for range(..., "
              "ping_pong=True))";
  return success();
}
LogicalResult TurnWaitOp::verify() { return verifyTurn(*this); }
LogicalResult TurnPassOp::verify() { return verifyTurn(*this); }
LogicalResult NumProgramsOp::verify() {
  return verifyGridAxis(*this, getAxis());
}

//===----------------------------------------------------------------------===//
// arange
//===----------------------------------------------------------------------===//

LogicalResult ArangeOp::verify() {
  int64_t start = getStart(), end = getEnd();
  auto type = getType();
  if (type.getRank() != 1)
    return emitOpError() << "result must be a 1-D block, got rank "
                         << type.getRank();
  if (end <= start)
    return emitOpError() << "end (" << end << ") must be greater than start ("
                         << start << ")";
  int64_t length = end - start;
  if (!isPowerOfTwo(length))
    return emitOpError() << "length end - start = " << length
                         << " must be a power of two";
  if (length > (int64_t(1) << 20))
    return emitOpError() << "length " << length
                         << " exceeds the maximum block size 2^20";
  if (type.getDimSize(0) != length)
    return emitOpError() << "result has " << type.getDimSize(0)
                         << " elements but the range [" << start << ", " << end
                         << ") has " << length;
  return success();
}

//===----------------------------------------------------------------------===//
// splat
//===----------------------------------------------------------------------===//

LogicalResult SplatOp::verify() {
  Type elementType = getType().getElementType();
  if (elementType != getSrc().getType())
    return emitOpError() << "result element type " << elementType
                         << " does not match the scalar type "
                         << getSrc().getType();
  return success();
}

// splat(constant c) -> dense<c>
OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  auto type = cast<ShapedType>(getType());
  if (auto value = dyn_cast_if_present<IntegerAttr>(adaptor.getSrc()))
    return DenseElementsAttr::get(type, value.getValue());
  if (auto value = dyn_cast_if_present<FloatAttr>(adaptor.getSrc()))
    return DenseElementsAttr::get(type, value.getValue());
  return {};
}

//===----------------------------------------------------------------------===//
// addptr
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  Type ptrType = getPtr().getType(), offsetType = getOffset().getType();
  if (!sameShape(ptrType, offsetType))
    return emitOpError() << "offset shape " << shapeString(offsetType)
                         << " does not match pointer shape "
                         << shapeString(ptrType);
  Type offsetElement = getElementTypeOrSelf(offsetType);
  if (!offsetElement.isInteger(32) && !offsetElement.isInteger(64))
    return emitOpError() << "offsets must be i32 or i64, got "
                         << offsetElement;
  return success();
}

// addptr(p, 0) -> p
OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(getOffset(), m_Zero()))
    return getPtr();
  return {};
}

//===----------------------------------------------------------------------===//
// load
//===----------------------------------------------------------------------===//

void LoadOp::build(OpBuilder &builder, OperationState &state, Value ptr,
                   Value mask, Value other) {
  Type resultType = getTypeWithShapeOf(ptr.getType(), pointeeOf(ptr.getType()));
  build(builder, state, resultType, ptr, mask, other);
}

/// Parses `ptr-operand (`,` operand)* attr-dict `:` type`, the trailing
/// operands' types being derived from the pointer type by `typesFor`.
static ParseResult
parsePositionalMemOp(OpAsmParser &parser, OperationState &result,
                     SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                     Type &ptrType) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(ptrType))
    return failure();
  if (operands.empty())
    return parser.emitError(loc, "expected a pointer operand");
  Type element = getElementTypeOrSelf(ptrType);
  if (!isa<PointerType>(element))
    return parser.emitError(loc, "expected a pointer or block of pointers "
                                 "type after ':', got ")
           << ptrType;
  return success();
}

ParseResult LoadOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand, 3> operands;
  Type ptrType;
  SMLoc loc = parser.getCurrentLocation();
  if (parsePositionalMemOp(parser, result, operands, ptrType))
    return failure();
  if (operands.size() > 3)
    return parser.emitError(loc, "expected at most 3 operands (ptr, mask, "
                                 "other), got ")
           << operands.size();
  Type valueType = getTypeWithShapeOf(ptrType, pointeeOf(ptrType));
  Type maskType =
      getTypeWithShapeOf(ptrType, IntegerType::get(parser.getContext(), 1));
  Type types[] = {ptrType, maskType, valueType};
  for (auto [operand, type] : llvm::zip(operands, types))
    if (parser.resolveOperand(operand, type, result.operands))
      return failure();
  auto &props = result.getOrAddProperties<LoadOp::Properties>();
  props.operandSegmentSizes = {1, operands.size() > 1 ? 1 : 0,
                               operands.size() > 2 ? 1 : 0};
  result.addTypes(valueType);
  return success();
}

void LoadOp::print(OpAsmPrinter &p) {
  p << ' ' << getPtr();
  if (getMask())
    p << ", " << getMask();
  if (getOther())
    p << ", " << getOther();
  p.printOptionalAttrDict((*this)->getAttrs(),
                          /*elidedAttrs=*/{getOperandSegmentSizesAttrName()});
  p << " : " << getPtr().getType();
}

LogicalResult LoadOp::verify() {
  Type ptrType = getPtr().getType();
  Type expected = getTypeWithShapeOf(ptrType, pointeeOf(ptrType));
  if (getType() != expected)
    return emitOpError() << "result type " << getType()
                         << " does not match the pointer type " << ptrType
                         << "; expected " << expected;
  if (Value mask = getMask(); mask && !sameShape(mask.getType(), ptrType))
    return emitOpError() << "mask shape " << shapeString(mask.getType())
                         << " does not match pointer shape "
                         << shapeString(ptrType);
  if (Value other = getOther()) {
    if (!getMask())
      return emitOpError() << "'other' requires a mask";
    if (other.getType() != expected)
      return emitOpError() << "'other' has type " << other.getType()
                           << " but the loaded value has type " << expected;
  }
  return success();
}

// load(p, splat(false), other) -> other
OpFoldResult LoadOp::fold(FoldAdaptor) {
  if (getMask() && getOther() && isConstantBool(getMask(), false))
    return getOther();
  return {};
}

namespace {
/// Pattern: load(p, splat(true)[, other]) => load(p)
struct LoadDropTrueMask : OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getMask() || !isConstantBool(op.getMask(), true))
      return rewriter.notifyMatchFailure(op, "mask is not constant true");
    rewriter.replaceOpWithNewOp<LoadOp>(op, op.getPtr());
    return success();
  }
};

/// Pattern: store(p, v, splat(true)) => store(p, v)
/// Pattern: store(p, v, splat(false)) => (erased)
struct StoreConstantMask : OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreOp op,
                                PatternRewriter &rewriter) const override {
    Value mask = op.getMask();
    if (mask && isConstantBool(mask, false)) {
      rewriter.eraseOp(op);
      return success();
    }
    if (mask && isConstantBool(mask, true)) {
      rewriter.modifyOpInPlace(op, [&] { op.getMaskMutable().clear(); });
      return success();
    }
    return rewriter.notifyMatchFailure(op, "mask is absent or not constant");
  }
};
} // namespace

void LoadOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<LoadDropTrueMask>(context);
}

//===----------------------------------------------------------------------===//
// store
//===----------------------------------------------------------------------===//

ParseResult StoreOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand, 3> operands;
  Type ptrType;
  SMLoc loc = parser.getCurrentLocation();
  if (parsePositionalMemOp(parser, result, operands, ptrType))
    return failure();
  if (operands.size() < 2 || operands.size() > 3)
    return parser.emitError(loc, "expected 2 or 3 operands (ptr, value, "
                                 "mask), got ")
           << operands.size();
  Type valueType = getTypeWithShapeOf(ptrType, pointeeOf(ptrType));
  Type maskType =
      getTypeWithShapeOf(ptrType, IntegerType::get(parser.getContext(), 1));
  Type types[] = {ptrType, valueType, maskType};
  for (auto [operand, type] : llvm::zip(operands, types))
    if (parser.resolveOperand(operand, type, result.operands))
      return failure();
  return success();
}

void StoreOp::print(OpAsmPrinter &p) {
  p << ' ' << getPtr() << ", " << getValue();
  if (getMask())
    p << ", " << getMask();
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : " << getPtr().getType();
}

LogicalResult StoreOp::verify() {
  Type ptrType = getPtr().getType();
  Type expected = getTypeWithShapeOf(ptrType, pointeeOf(ptrType));
  if (getValue().getType() != expected)
    return emitOpError() << "stored value has type " << getValue().getType()
                         << " but the pointer type " << ptrType
                         << " expects " << expected;
  if (Value mask = getMask(); mask && !sameShape(mask.getType(), ptrType))
    return emitOpError() << "mask shape " << shapeString(mask.getType())
                         << " does not match pointer shape "
                         << shapeString(ptrType);
  return success();
}

void StoreOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<StoreConstantMask>(context);
}

//===----------------------------------------------------------------------===//
// atomic_rmw, atomic_cas
//===----------------------------------------------------------------------===//

/// The value type an atomic on `ptrType` takes: the pointee with its shape.
static LogicalResult verifyAtomicTypes(Operation *op, Type ptrType,
                                       ArrayRef<Value> values, Type result) {
  Type expected = getTypeWithShapeOf(ptrType, pointeeOf(ptrType));
  for (Value v : values)
    if (v.getType() != expected)
      return op->emitOpError() << "operand type " << v.getType()
                               << " should be " << expected
                               << " (the pointee with the pointers' shape)";
  if (result != expected)
    return op->emitOpError() << "result type " << result << " should be "
                             << expected;
  return success();
}

LogicalResult AtomicRMWOp::verify() {
  Type ptrType = getPtr().getType();
  if (failed(verifyAtomicTypes(*this, ptrType, {getValue()}, getType())))
    return failure();
  if (Value mask = getMask(); mask && !sameShape(mask.getType(), ptrType))
    return emitOpError() << "mask shape " << shapeString(mask.getType())
                         << " does not match pointer shape "
                         << shapeString(ptrType);
  Type e = pointeeOf(ptrType);
  unsigned bits = e.isIntOrFloat() ? e.getIntOrFloatBitWidth() : 0;
  bool isInt = isa<IntegerType>(e) && bits >= 32;
  bool ok = false;
  switch (getKind()) {
  case AtomicKind::Add:
    ok = isInt || e.isF16() || e.isBF16() || e.isF32() || e.isF64();
    break;
  case AtomicKind::Max:
  case AtomicKind::Min:
    ok = isInt || e.isF32() || e.isF64();
    break;
  case AtomicKind::UMax:
  case AtomicKind::UMin:
    ok = isInt;
    break;
  case AtomicKind::And:
  case AtomicKind::Or:
  case AtomicKind::Xor:
    ok = isInt;
    break;
  case AtomicKind::Xchg:
    ok = isInt || e.isF32() || e.isF64();
    break;
  }
  if (!ok)
    return emitOpError() << "atomic " << stringifyAtomicKind(getKind())
                         << " does not take " << e;
  return success();
}

LogicalResult AtomicCASOp::verify() {
  Type ptrType = getPtr().getType();
  if (failed(verifyAtomicTypes(*this, ptrType, {getCmp(), getValue()},
                               getType())))
    return failure();
  Type e = pointeeOf(ptrType);
  if (!(e.isInteger(32) || e.isInteger(64) || e.isF32() || e.isF64()))
    return emitOpError() << "atomic_cas takes 32- and 64-bit types, got "
                         << e;
  return success();
}

//===----------------------------------------------------------------------===//
// rand, randint, randn
//===----------------------------------------------------------------------===//

/// Philox rounds an op may ask for (Triton's n_rounds).
static constexpr int32_t kMaxPhiloxRounds = 64;

static LogicalResult verifyRandom(Operation *op, Type offsetType,
                                  Type resultType, Type expectedElement) {
  auto rounds = op->getAttrOfType<IntegerAttr>("rounds");
  if (rounds && (rounds.getInt() < 1 || rounds.getInt() > kMaxPhiloxRounds))
    return op->emitOpError() << "rounds must be 1 .. " << kMaxPhiloxRounds
                             << ", got " << rounds.getInt();
  Type offsetElement = getElementTypeOrSelf(offsetType);
  if (!offsetElement.isInteger(32) && !offsetElement.isInteger(64))
    return op->emitOpError() << "offsets must be i32 or i64, got "
                             << offsetElement;
  Type expected = getTypeWithShapeOf(offsetType, expectedElement);
  if (resultType != expected)
    return op->emitOpError() << "result type " << resultType << " should be "
                             << expected << " (" << expectedElement
                             << " with the offsets' shape)";
  return success();
}

LogicalResult RandInt4xOp::verify() {
  for (Value r : getResults())
    if (failed(verifyRandom(*this, getOffset().getType(), r.getType(),
                            IntegerType::get(getContext(), 32))))
      return failure();
  return success();
}

LogicalResult PhiloxOp::verify() {
  if (!getElementTypeOrSelf(getC0().getType()).isInteger(32))
    return emitOpError() << "counter words must be i32, got "
                         << getC0().getType();
  if (getRounds() < 1 || getRounds() > kMaxPhiloxRounds)
    return emitOpError() << "rounds must be 1 .. " << kMaxPhiloxRounds
                         << ", got " << getRounds();
  return success();
}

LogicalResult RandIntOp::verify() {
  return verifyRandom(*this, getOffset().getType(), getType(),
                      IntegerType::get(getContext(), 32));
}
LogicalResult RandOp::verify() {
  return verifyRandom(*this, getOffset().getType(), getType(),
                      Float32Type::get(getContext()));
}
LogicalResult RandNOp::verify() {
  return verifyRandom(*this, getOffset().getType(), getType(),
                      Float32Type::get(getContext()));
}

//===----------------------------------------------------------------------===//
// dot
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  auto aType = getA().getType(), bType = getB().getType();
  auto accType = getAcc().getType();
  if (aType.getRank() != 2 || bType.getRank() != 2 || accType.getRank() != 2)
    return emitOpError() << "operands must be 2-D blocks, got ranks "
                         << aType.getRank() << ", " << bType.getRank()
                         << " and " << accType.getRank();
  if (aType.getElementType() != bType.getElementType())
    return emitOpError() << "a and b must have the same element type, got "
                         << aType.getElementType() << " and "
                         << bType.getElementType();
  if (!accType.getElementType().isF32())
    return emitOpError() << "accumulator must be f32, got "
                         << accType.getElementType();
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1);
  int64_t kb = bType.getDimSize(0), n = bType.getDimSize(1);
  if (k != kb)
    return emitOpError() << "inner dimensions differ: a is " << m << "x" << k
                         << " but b is " << kb << "x" << n;
  if (accType.getDimSize(0) != m || accType.getDimSize(1) != n)
    return emitOpError() << "accumulator must be " << m << "x" << n << ", got "
                         << accType.getDimSize(0) << "x"
                         << accType.getDimSize(1);
  if (getEngine() != DotEngine::FMA) {
    StringRef engine = stringifyDotEngine(getEngine());
    Type element = aType.getElementType();
    bool wgmma = getEngine() == DotEngine::WGMMA;
    // wgmma also multiplies fp8 (both operands of one type, k32 steps)
    // and f32 as tf32 (k8 steps).
    bool fp8 = wgmma && isFp8(element) && bType.getElementType() == element;
    bool tf32 = wgmma && isTf32();
    if (!element.isF16() && !element.isBF16() && !fp8 && !tf32)
      return emitOpError() << "engine = " << engine << " needs f16 or bf16"
                           << (wgmma ? " (or fp8, or f32 as tf32) " : " ")
                           << "operands, got " << element;
    int64_t mAlign = wgmma ? 64 : 16, kAlign = fp8 ? 32 : tf32 ? 8 : 16;
    if (m % mAlign || n % 16 || k % kAlign)
      return emitOpError() << "engine = " << engine << " needs M % " << mAlign
                           << ", N % 16 and K % " << kAlign
                           << " to be 0, got " << m << "x" << n << "x" << k;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  if (getSrcs().empty())
    return emitOpError() << "needs a block to reduce";
  if (getResults().size() != getSrcs().size())
    return emitOpError() << "has " << getResults().size() << " results for "
                         << getSrcs().size() << " blocks";
  ReduceKind kind = getKind();
  if (getSrcs().size() > 1 && kind != ReduceKind::Custom)
    return emitOpError() << "reduces several blocks only with a custom "
                            "combine, not "
                         << stringifyReduceKind(kind);
  auto srcType = getSrc().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= srcType.getRank())
    return emitOpError() << "axis " << axis << " is out of range for a rank-"
                         << srcType.getRank() << " block";
  SmallVector<Type> elements;
  if (failed(verifyCombinedBlocks(*this, getSrcs(), "reduce", elements)))
    return failure();
  Type element = elements.front();
  if ((kind == ReduceKind::Xor || kind == ReduceKind::Or) &&
      !isa<IntegerType>(element))
    return emitOpError() << stringifyReduceKind(kind)
                         << " reduces integers, got " << element;
  if (isUnsignedReduce(kind) && !isa<IntegerType>(element))
    return emitOpError() << stringifyReduceKind(kind)
                         << " compares integers as unsigned, got " << element;
  bool arg = isArgReduce(kind);
  SmallVector<int64_t> shape(srcType.getShape());
  shape.erase(shape.begin() + axis);
  for (auto [n, result] : llvm::enumerate(getResults())) {
    // argmax/argmin: the i32 index along the axis.
    Type resultElement =
        arg ? Type(IntegerType::get(getContext(), 32)) : elements[n];
    Type expected = shape.empty()
                        ? resultElement
                        : Type(RankedTensorType::get(shape, resultElement));
    if (result.getType() != expected)
      return emitOpError() << "result type " << result.getType()
                           << " should be " << expected;
  }
  return verifyCombiner(*this, getCombiner(), kind == ReduceKind::Custom,
                        elements);
}

#define GET_OP_CLASSES
#include "kite/Dialect/Kite/IR/KiteOps.cpp.inc"
