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
    if (!element.isF16() && !element.isBF16())
      return emitOpError() << "engine = " << engine
                           << " needs f16 or bf16 operands, got " << element;
    int64_t mAlign = getEngine() == DotEngine::WGMMA ? 64 : 16;
    if (m % mAlign || n % 16 || k % 16)
      return emitOpError() << "engine = " << engine << " needs M % " << mAlign
                           << ", N % 16 and K % 16 to be 0, got " << m << "x"
                           << n << "x" << k;
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

//===----------------------------------------------------------------------===//
// async_stage
//===----------------------------------------------------------------------===//

/// The checks the ops that stage a dot operand share: `shape` is a dot's
/// [M, N, K] and `operand` 0 (A) or 1 (B).
static LogicalResult verifyDotOperandOf(Operation *op, ArrayRef<int64_t> shape,
                                        int64_t operand) {
  if (shape.size() != 3)
    return op->emitOpError() << "dot shape must be [M, N, K]";
  if (operand != 0 && operand != 1)
    return op->emitOpError()
           << "operand must be 0 (A) or 1 (B), got " << operand;
  return success();
}

/// `block` has the shape of operand `operand` of a dot of `shape` (A: M x
/// K; B: K x N, or N x K `transposed`).
static LogicalResult verifyDotOperandShape(Operation *op,
                                           RankedTensorType block,
                                           ArrayRef<int64_t> shape,
                                           int64_t operand, bool transposed) {
  SmallVector<int64_t> expected =
      operand == 0 ? SmallVector<int64_t>{shape[0], shape[2]}
      : transposed ? SmallVector<int64_t>{shape[1], shape[2]}
                   : SmallVector<int64_t>{shape[2], shape[1]};
  if (block.getShape() != ArrayRef<int64_t>(expected))
    return op->emitOpError() << "block shape " << shapeString(block)
                             << " is not the dot's operand " << operand
                             << (transposed ? " shape (transposed)" : " shape");
  return success();
}

LogicalResult AsyncStageOp::verify() {
  ArrayRef<int64_t> shape = getDotShape();
  int64_t operand = getOperand();
  if (failed(verifyDotOperandOf(*this, shape, operand)))
    return failure();
  auto type = getPtr().getType();
  auto pointee = cast<PointerType>(type.getElementType()).getPointeeType();
  if (getEngine() == DotEngine::FMA && !pointee.isF32())
    return emitOpError() << "stages f32 blocks only for the fma engine, got "
                         << pointee;
  if (getEngine() == DotEngine::MMA && !pointee.isF16() &&
      !pointee.isBF16() && !pointee.isF32())
    return emitOpError() << "stages f16, bf16 or f32 blocks only for the mma "
                            "engine, got "
                         << pointee;
  if (getEngine() == DotEngine::WGMMA && !pointee.isF16() &&
      !pointee.isBF16() && !pointee.isF32() &&
      !mlir::kite::isFp8(pointee))
    return emitOpError() << "stages fp8, f16, bf16 or f32 blocks only for the "
                            "wgmma engine, got "
                         << pointee;
  if (getTransposed() && (operand != 1 || getEngine() != DotEngine::WGMMA))
    return emitOpError() << "stages a transposed block only as B of the "
                            "wgmma engine";
  if (std::optional<ArrayRef<int64_t>> place = getBPlace()) {
    if (operand != 1 || getEngine() != DotEngine::WGMMA)
      return emitOpError() << "places a block with b_place only as B of the "
                              "wgmma engine";
    if (place->size() != 2 || (*place)[0] < 0 || (*place)[1] <= (*place)[0])
      return emitOpError() << "b_place must be [offset, slot bytes] with the "
                              "offset inside the slot";
  }
  if (failed(
          verifyDotOperandShape(*this, type, shape, operand, getTransposed())))
    return failure();
  if (!sameShape(getMask().getType(), type))
    return emitOpError() << "mask shape " << shapeString(getMask().getType())
                         << " does not match pointer shape "
                         << shapeString(type);
  return success();
}

/// The checks kite.async_copy and kite.staged_load share: a block of
/// `element` fits at `place` ([offset, slot bytes], the offset 16-byte
/// aligned) of a ring of `slots`.
static LogicalResult verifyRingPlace(Operation *op, RankedTensorType block,
                                     Type element, ArrayRef<int64_t> place,
                                     int64_t slots) {
  if (!element.isIntOrFloat() || element.isInteger(1))
    return op->emitOpError() << "stages blocks of numbers (not i1 or "
                                "pointers), got "
                             << element;
  if (place.size() != 2 || place[0] < 0 || place[0] % 16 || place[1] <= 0)
    return op->emitOpError() << "place must be [offset, slot bytes] with a "
                                "16-byte aligned offset";
  int64_t bytes =
      block.getNumElements() * std::max(1u, element.getIntOrFloatBitWidth() / 8);
  if (place[0] + bytes > place[1])
    return op->emitOpError()
           << "block of " << bytes << " bytes at offset " << place[0]
           << " does not fit a slot of " << place[1] << " bytes";
  if (slots < 1)
    return op->emitOpError() << "needs at least one slot, got " << slots;
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  RankedTensorType type = getPtr().getType();
  if (!sameShape(getMask().getType(), type))
    return emitOpError() << "mask shape " << shapeString(getMask().getType())
                         << " does not match pointer shape "
                         << shapeString(type);
  return verifyRingPlace(
      *this, type,
      cast<PointerType>(type.getElementType()).getPointeeType(), getPlace(),
      int64_t(getSlots()));
}

LogicalResult StagedLoadOp::verify() {
  RankedTensorType type = getType();
  return verifyRingPlace(*this, type, type.getElementType(), getPlace(),
                         int64_t(getSlots()));
}

LogicalResult DotStagedOp::verify() {
  std::optional<Type> operand = getOperandType();
  if (getEngine() == DotEngine::WGMMA) {
    bool fp8 = operand && mlir::kite::isFp8(*operand);
    if (!operand ||
        !(operand->isF16() || operand->isBF16() || operand->isF32() || fp8))
      return emitOpError() << "with engine = wgmma needs operand_type f16, "
                              "bf16, f32 (tf32) or fp8";
    int64_t step = operand->isF32() ? 8 : fp8 ? 32 : 16;
    if (getK() % step)
      return emitOpError() << "with engine = wgmma needs k a multiple of "
                           << step << ", got " << getK();
    if ((operand->isF32() || fp8) && !getBKMajor())
      return emitOpError() << "with engine = wgmma and " << *operand
                           << " operands needs b_k_major (wgmma transposes "
                              "f16 and bf16 only)";
  } else if (getBKMajor()) {
    return emitOpError() << "b_k_major needs engine = wgmma";
  } else if (getEngine() == DotEngine::MMA) {
    if (!operand || !(operand->isF16() || operand->isBF16() ||
                      operand->isF32()))
      return emitOpError() << "with engine = mma needs operand_type f16, "
                              "bf16 or f32 (tf32)";
    int64_t step = operand->isF32() ? 8 : 16;
    if (getK() % step)
      return emitOpError() << "with engine = mma needs k a multiple of "
                           << step << ", got " << getK();
  } else if (operand && !operand->isF32()) {
    return emitOpError() << "with engine = fma stages f32 operands, got "
                         << *operand;
  }
  if (getStages() < 1)
    return emitOpError() << "needs at least one slot, got " << getStages();
  if (std::optional<ArrayRef<int64_t>> place = getBPlace()) {
    if (getBSlot()) {
      if (place->size() != 2 || (*place)[0] < 0 || (*place)[1] <= 0 ||
          (*place)[0] % 1024 || (*place)[1] % 1024)
        return emitOpError() << "b_place must be [ring start, slot bytes], "
                                "both 1024-byte aligned, with b_slot";
    } else if (place->size() != 2 || (*place)[0] < 0 ||
               (*place)[1] <= (*place)[0]) {
      return emitOpError() << "b_place must be [offset, slot bytes] with the "
                              "offset inside the slot";
    }
  }
  if (getBSlot() && !getAPlace())
    return emitOpError() << "reads B from a ring of its own (b_slot) only "
                            "with a_place and b_place";
  if (Value a = getA()) {
    auto aType = cast<RankedTensorType>(a.getType());
    if (getEngine() != DotEngine::WGMMA || !getBPlace())
      return emitOpError() << "reads A from registers only with engine = "
                              "wgmma and b_place";
    if (aType.getRank() != 2 || aType.getDimSize(0) != getType().getDimSize(0) ||
        aType.getDimSize(1) != int64_t(getK()) ||
        aType.getElementType() != *getOperandType())
      return emitOpError() << "needs A of " << getType().getDimSize(0) << "x"
                           << getK() << "x" << *getOperandType() << ", got "
                           << aType;
  } else if (std::optional<ArrayRef<int64_t>> aPlace = getAPlace()) {
    std::optional<ArrayRef<int64_t>> bPlace = getBPlace();
    if (getEngine() != DotEngine::WGMMA || !bPlace)
      return emitOpError() << "places A with a_place only with engine = "
                              "wgmma and b_place";
    if (aPlace->size() != 2 || (*aPlace)[0] < 0 || (*aPlace)[1] <= 0 ||
        (!getBSlot() &&
         ((*aPlace)[0] >= (*aPlace)[1] || (*aPlace)[1] != (*bPlace)[1])) ||
        (*aPlace)[0] % 1024 || (*aPlace)[1] % 1024)
      return emitOpError() << "a_place must be [offset, slot bytes] (inside "
                              "the slot, of b_place's slot bytes, without "
                              "b_slot), both 1024-byte aligned";
  } else if (getBPlace()) {
    return emitOpError() << "with b_place needs A in registers (a) or at "
                            "a_place";
  }
  if (getA() && getAPlace())
    return emitOpError() << "reads A from registers (a) or at a_place, not "
                            "both";
  return success();
}

LogicalResult StageOperandOp::verify() {
  ArrayRef<int64_t> shape = getDotShape();
  int64_t operand = getOperand();
  if (failed(verifyDotOperandOf(*this, shape, operand)))
    return failure();
  RankedTensorType type = getValue().getType();
  if (failed(verifyDotOperandShape(*this, type, shape, operand,
                                   /*transposed=*/false)))
    return failure();
  ArrayRef<int64_t> place = getPlace();
  if (place.size() != 2 || place[0] < 0 || place[0] % 1024 || place[1] % 1024)
    return emitOpError() << "place must be [offset, slot bytes], both "
                            "1024-byte aligned (the swizzle's atoms)";
  int64_t bytes = llvm::alignTo(type.getNumElements() * 2, 1024);
  if (bytes > place[1] || (place[0] < place[1] && place[0] + bytes > place[1]))
    return emitOpError() << "block of " << bytes << " bytes at offset "
                         << place[0] << " does not fit a slot of " << place[1]
                         << " bytes";
  if (getSlots() < 1)
    return emitOpError() << "needs at least one slot, got " << getSlots();
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

LogicalResult MakeTensorDescOp::verify() {
  RankedTensorType block = getType().getBlockType();
  size_t rank = block.getRank();
  if (getShape().size() != rank || getStrides().size() != rank)
    return emitOpError() << "takes one shape and one stride a dimension of "
                         << shapeString(block) << ", got "
                         << getShape().size() << " and "
                         << getStrides().size();
  if (getBase().getType().getPointeeType() != block.getElementType())
    return emitOpError() << "base points to "
                         << getBase().getType().getPointeeType()
                         << ", the blocks hold " << block.getElementType();
  return success();
}

/// A descriptor access: one offset a dimension of the block.
static LogicalResult verifyDescriptorOffsets(Operation *op,
                                             RankedTensorType block,
                                             size_t offsets) {
  if (offsets != size_t(block.getRank()))
    return op->emitOpError() << "takes " << block.getRank()
                             << " offsets, got " << offsets;
  return success();
}

LogicalResult DescriptorLoadOp::verify() {
  RankedTensorType block = getDesc().getType().getBlockType();
  if (failed(verifyDescriptorOffsets(*this, block, getOffsets().size())))
    return failure();
  if (getType() != block)
    return emitOpError() << "result " << getType()
                         << " is not the descriptor's block " << block;
  return success();
}

LogicalResult DescriptorStoreOp::verify() {
  RankedTensorType block = getDesc().getType().getBlockType();
  if (failed(verifyDescriptorOffsets(*this, block, getOffsets().size())))
    return failure();
  if (getValue().getType() != block)
    return emitOpError() << "value " << getValue().getType()
                         << " is not the descriptor's block " << block;
  return success();
}

LogicalResult TmaStoreOp::verify() {
  RankedTensorType block = getDesc().getType().getBlockType();
  if (block.getRank() != 2 || getOffsets().size() != 2)
    return emitOpError() << "stores 2-D blocks at two offsets";
  if (getValue().getType() != block)
    return emitOpError() << "value " << getValue().getType()
                         << " is not the descriptor's block " << block;
  Type element = block.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return emitOpError() << "stores f16, bf16 or f32 blocks, got " << element;
  int64_t rowBytes = block.getDimSize(1) * element.getIntOrFloatBitWidth() / 8;
  if (block.getDimSize(0) > 256 || rowBytes % 32)
    return emitOpError() << "needs at most 256 rows of a multiple of 32 "
                            "bytes, got "
                         << block.getDimSize(0) << " rows of " << rowBytes;
  return success();
}

LogicalResult TmaInitOp::verify() {
  if (getSlots() < 1 || getSlots() > 16)
    return emitOpError() << "takes 1 to 16 slots, got " << getSlots();
  if (getArrivals() < 1)
    return emitOpError() << "needs a positive arrival count";
  return success();
}

LogicalResult TmaStageOp::verify() {
  ArrayRef<int64_t> shape = getDotShape();
  int64_t operand = getOperand();
  if (failed(verifyDotOperandOf(*this, shape, operand)))
    return failure();
  RankedTensorType block = getDesc().getType().getBlockType();
  Type element = block.getElementType();
  if (!element.isF16() && !element.isBF16() &&
      !mlir::kite::isFp8(element))
    return emitOpError() << "stages fp8, f16 or bf16 blocks, got " << element;
  if (getTransposed() && operand != 1)
    return emitOpError() << "stages a transposed block only as B";
  if (failed(
          verifyDotOperandShape(*this, block, shape, operand, getTransposed())))
    return failure();
  if (getOffsets().size() != 2)
    return emitOpError() << "takes 2 offsets, got " << getOffsets().size();
  if (block.getDimSize(1) * block.getElementTypeBitWidth() / 8 % 32 ||
      block.getDimSize(0) > 256)
    return emitOpError() << "blocks of at most 256 rows of 32-byte multiples";
  return success();
}
