//===- KiteShapeOps.cpp - Ops that move elements: verifiers, folds --------===//
//
// hint, scan, sort, flip, join, split, inline_asm, trans, reshape, broadcast
// and expand_dims (split from KiteOps.cpp along this seam).
//
//===----------------------------------------------------------------------===//

#include "KiteOpsUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

//===----------------------------------------------------------------------===//
// broadcast
//===----------------------------------------------------------------------===//

LogicalResult HintOp::verify() {
  int64_t n = 1;
  if (auto type = dyn_cast<RankedTensorType>(getSrc().getType()))
    n = type.getNumElements();
  auto check = [&](const char *name,
                   std::optional<uint64_t> raw) -> LogicalResult {
    if (!raw)
      return success();
    int64_t value = int64_t(*raw);
    if (value < 1)
      return emitOpError() << name << " must be positive, got " << value;
    if (std::string(name) != "divisibility" && (value > n || n % value))
      return emitOpError() << name << " " << value
                           << " must divide the block's " << n << " elements";
    return success();
  };
  if (failed(check("divisibility", getDivisibility())) ||
      failed(check("contiguity", getContiguity())) ||
      failed(check("constancy", getConstancy())))
    return failure();
  return success();
}

LogicalResult MapElementwiseOp::verify() {
  if (getSrcs().empty() || getResults().empty())
    return emitOpError() << "needs a block and a result";
  auto shape = cast<RankedTensorType>(getSrcs()[0].getType()).getShape();
  for (Value v : llvm::concat<const Value>(getSrcs(), getResults()))
    if (cast<RankedTensorType>(v.getType()).getShape() != shape)
      return emitOpError() << "takes and gives blocks of one shape, got "
                           << getSrcs()[0].getType() << " and " << v.getType();
  int64_t pack = getPack();
  int64_t numel =
      cast<RankedTensorType>(getSrcs()[0].getType()).getNumElements();
  if (pack < 1 || (pack & (pack - 1)) || numel % pack)
    return emitOpError() << "pack must be a power of two dividing the " << numel
                         << " elements, got " << pack;
  Block &block = getBody().front();
  if (int64_t(block.getNumArguments()) != int64_t(getSrcs().size()) * pack)
    return emitOpError() << "the body takes " << pack
                         << " element(s) of each of the " << getSrcs().size()
                         << " blocks, it takes " << block.getNumArguments();
  for (BlockArgument arg : block.getArguments()) {
    Value src = getSrcs()[arg.getArgNumber() / pack];
    if (arg.getType() != cast<RankedTensorType>(src.getType()).getElementType())
      return emitOpError()
             << "the body's argument " << arg.getArgNumber() << " is "
             << arg.getType() << ", its block's "
             << "elements "
             << cast<RankedTensorType>(src.getType()).getElementType();
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield ||
      int64_t(yield.getValues().size()) != int64_t(getResults().size()) * pack)
    return emitOpError() << "the body must yield " << pack
                         << " element(s) of each of the " << getResults().size()
                         << " results";
  for (auto [n, v] : llvm::enumerate(yield.getValues())) {
    Value r = getResults()[n / pack];
    if (v.getType() != cast<RankedTensorType>(r.getType()).getElementType())
      return emitOpError() << "the body yields " << v.getType()
                           << " for a result of " << r.getType();
  }
  WalkResult bad = getBody().walk([&](Operation *op) {
    if (llvm::any_of(op->getResultTypes(),
                     [](Type t) { return isa<RankedTensorType>(t); }) ||
        !isMemoryEffectFree(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (bad.wasInterrupted())
    return emitOpError() << "the body computes with elements only: no "
                            "blocks, no memory";
  return success();
}

LogicalResult ScanOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       ValueRange operands, DictionaryAttr,
                                       OpaqueProperties, RegionRange,
                                       SmallVectorImpl<Type> &inferred) {
  // One result per block, of its type.
  for (Value v : operands)
    inferred.push_back(v.getType());
  return success();
}

LogicalResult ScanOp::verify() {
  if (getSrcs().empty())
    return emitOpError() << "needs a block to scan";
  if (getSrcs().size() > 1 && getKind() != ScanKind::Custom)
    return emitOpError() << "scans several blocks only with a custom "
                            "combine, not "
                         << stringifyScanKind(getKind());
  auto type = getSrc().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= type.getRank())
    return emitOpError() << "axis " << axis << " is out of range for a rank-"
                         << type.getRank() << " block";
  SmallVector<Type> elements;
  if (failed(verifyCombinedBlocks(*this, getSrcs(), "scan", elements)))
    return failure();
  return verifyCombiner(*this, getCombiner(), getKind() == ScanKind::Custom,
                        elements);
}

LogicalResult SortOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  // The source's type, its last dimension k where k is given (checked by
  // the verifier; a k that makes no type is reported here).
  auto type = dyn_cast<RankedTensorType>(adaptor.getSrc().getType());
  if (!type || type.getRank() == 0)
    return emitOptionalError(location, "'kite.sort' sorts a block, not ",
                             adaptor.getSrc().getType());
  std::optional<uint64_t> k = adaptor.getK();
  if (!k) {
    inferred.push_back(type);
    return success();
  }
  if (*k < 1 || int64_t(*k) > type.getShape().back())
    return emitOptionalError(location, "'kite.sort' keeps k = ", int64_t(*k),
                             " of each row; k must lie in [1, ",
                             type.getShape().back(), "]");
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = int64_t(*k);
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

LogicalResult SortOp::verify() {
  auto type = getSrc().getType();
  int64_t rank = type.getRank(), dim = getDim();
  if (dim != rank - 1)
    return emitOpError() << "sorts along the last dimension only (" << rank - 1
                         << "), not " << dim;
  int64_t n = type.getShape().back();
  if (n < 1 || (n & (n - 1)))
    return emitOpError() << "needs a power-of-two length to sort, got " << n;
  if (getMerge() && getK())
    return emitOpError() << "merges whole rows: merge and k do not go "
                            "together";
  if (std::optional<uint64_t> k = getK(); k && (*k & (*k - 1)))
    return emitOpError() << "keeps a power-of-two number of elements of each "
                            "row, not "
                         << *k;
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = getType().getShape().back();
  if (getType().getShape() != ArrayRef<int64_t>(shape) ||
      getType().getElementType() != type.getElementType() ||
      (!getK() && getType() != type))
    return emitOpError() << "result " << getType()
                         << " does not match the sorted " << type;
  Type e = type.getElementType();
  if (isa<PointerType>(e) || e.isInteger(1))
    return emitOpError() << "sorts numbers, not " << e;
  if (getUnsignedOrder() && !isa<IntegerType>(e))
    return emitOpError() << "compares integers as unsigned, not " << e;
  return success();
}

LogicalResult GatherOp::verify() {
  auto src = getSrc().getType(), index = getIndex().getType();
  auto result = getType();
  int64_t rank = src.getRank(), axis = getAxis();
  if (!isa<IntegerType>(index.getElementType()) ||
      index.getElementType().isInteger(1))
    return emitOpError() << "needs an integer index, got "
                         << index.getElementType();
  if (index.getRank() != rank)
    return emitOpError() << "source and index must have one rank, got " << rank
                         << " and " << index.getRank();
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " is out of range for a rank-"
                         << rank << " block";
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && index.getDimSize(d) != src.getDimSize(d))
      return emitOpError() << "index dimension " << d << " ("
                           << index.getDimSize(d)
                           << ") must match the source's (" << src.getDimSize(d)
                           << "): only axis " << axis << " may differ";
  if (result.getShape() != index.getShape() ||
      result.getElementType() != src.getElementType())
    return emitOpError() << "result type " << result
                         << " should have the index's shape and the "
                            "source's element type";
  return success();
}

LogicalResult HistogramOp::verify() {
  auto src = getSrc().getType();
  if (src.getRank() != 1)
    return emitOpError() << "takes a 1-D block, got rank " << src.getRank();
  if (!isa<IntegerType>(src.getElementType()) ||
      src.getElementType().isInteger(1))
    return emitOpError() << "counts integers, got " << src.getElementType();
  if (getMask() && getMask().getType().getShape() != src.getShape())
    return emitOpError() << "mask shape must match the source's";
  if (getType().getRank() != 1)
    return emitOpError() << "result must be 1-D (one count a bin)";
  return success();
}

LogicalResult FlipOp::verify() {
  int64_t rank = getSrc().getType().getRank(), dim = getDim();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for a rank-"
                         << rank << " block";
  return success();
}

/// Whether `joined` is `part`'s shape with a trailing 2, same element type.
static LogicalResult verifyJoined(Operation *op, RankedTensorType part,
                                  RankedTensorType joined) {
  SmallVector<int64_t> want(part.getShape());
  want.push_back(2);
  if (joined.getShape() != ArrayRef<int64_t>(want) ||
      joined.getElementType() != part.getElementType())
    return op->emitOpError()
           << "needs " << joined << " to be " << part
           << "'s shape with a last dimension of 2 (same element type)";
  return success();
}

int64_t InlineAsmOp::registersPerCall(Type element, int64_t pack) {
  if (pack == 1)
    return 1;
  int64_t bits = element.getIntOrFloatBitWidth();
  if (bits >= 32)
    return pack;
  return (pack * bits) % 32 ? 0 : pack * bits / 32;
}

LogicalResult InlineAsmOp::verify() {
  int64_t pack = getPack();
  if (pack < 1 || pack > 64 || (pack & (pack - 1)))
    return emitOpError() << "pack must be a power of two in [1, 64], got "
                         << pack;
  if (getResults().empty())
    return emitOpError() << "needs at least one result";
  // One shape for every block operand and result.
  std::optional<ArrayRef<int64_t>> shape;
  for (Type t : llvm::concat<Type>(getArgs().getTypes(), getResultTypes())) {
    auto block = dyn_cast<RankedTensorType>(t);
    if (!block)
      continue;
    if (shape && *shape != block.getShape())
      return emitOpError() << "blocks of different shapes: " << t;
    shape = block.getShape();
  }
  for (Type t : getResultTypes())
    if (shape && !isa<RankedTensorType>(t))
      return emitOpError() << "a scalar result " << t
                           << " beside block operands";
  // With pack > 1 every operand is a block, and elements narrower than 32
  // bits fill 32-bit registers.
  size_t wantOutputs = 0, wantInputs = 0;
  for (auto [isResult, t] : llvm::concat<std::pair<bool, Type>>(
           llvm::map_range(getResultTypes(),
                           [](Type t) { return std::make_pair(true, t); }),
           llvm::map_range(getArgs().getTypes(),
                           [](Type t) { return std::make_pair(false, t); }))) {
    if (pack > 1 && !isa<RankedTensorType>(t))
      return emitOpError() << "pack " << pack << " needs blocks, got " << t;
    Type element = getElementTypeOrSelf(t);
    if (pack > 1 && element.isInteger(1))
      return emitOpError() << "pack " << pack
                           << " of i1 elements: convert them to i8 or i32";
    int64_t regs = registersPerCall(element, pack);
    if (!regs)
      return emitOpError() << "pack " << pack << " of " << element
                           << " elements does not fill 32-bit registers "
                              "(pack x bits must be a multiple of 32)";
    (isResult ? wantOutputs : wantInputs) += size_t(regs);
  }
  // "=..." outputs, then the inputs, one a register, each in the grammar
  // Triton accepts (LLVM's NVPTX backend crashes or aborts on others: an
  // empty one, a tied operand "1", an explicit register "{r1}").
  StringRef c = getConstraints();
  SmallVector<StringRef> items;
  c.split(items, ',', -1, /*KeepEmpty=*/true);
  bool sawInput = false;
  for (StringRef item : items) {
    StringRef t = item.trim();
    bool output = t.consume_front("=");
    if (!llvm::is_contained({"r", "f", "h", "l", "d", "n"}, t) ||
        (output && t == "n"))
      return emitOpError()
             << "constraints \"" << c << "\": '" << item.trim()
             << "' is not one of =r, =f, =h, =l, =d (outputs) or r, f, h, "
                "l, d, n (inputs), comma-separated";
    if (output && sawInput)
      return emitOpError() << "constraints \"" << c
                           << "\": the outputs (=...) come before the inputs";
    sawInput |= !output;
  }
  // $N names operand N (outputs first); $$ is a '$'.
  size_t operands = items.size();
  StringRef text = getAsmString();
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$')
      continue;
    if (i + 1 < text.size() && text[i + 1] == '$') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    bool braced = j < text.size() && text[j] == '{';
    j += braced;
    size_t start = j;
    while (j < text.size() && llvm::isDigit(text[j]))
      ++j;
    unsigned index = 0;
    if (j == start || text.substr(start, j - start).getAsInteger(10, index) ||
        (braced && (j >= text.size() || text[j] != '}')))
      return emitOpError() << "asm string: '$' at offset " << i
                           << " must be followed by an operand number ($0, "
                              "${1}) or another '$'";
    if (index >= operands)
      return emitOpError() << "asm string names $" << index << ", but the "
                           << "constraints have " << operands
                           << " operands ($0 .. $" << operands - 1 << ")";
    i = j - !braced;
  }
  auto [outputs, inputs] = countConstraints(c);
  if (outputs != wantOutputs || inputs != wantInputs)
    return emitOpError() << "constraints \"" << c << "\" name " << outputs
                         << " outputs and " << inputs << " inputs; "
                         << (pack == 1 ? "the op has "
                                       : "with pack " + std::to_string(pack) +
                                             " the op needs ")
                         << wantOutputs
                         << (pack == 1 ? " results and " : " output and ")
                         << wantInputs
                         << (pack == 1 ? " arguments" : " input registers");
  return success();
}

std::pair<size_t, size_t> InlineAsmOp::countConstraints(StringRef c) {
  SmallVector<StringRef> parts;
  c.split(parts, ',', -1, /*KeepEmpty=*/false);
  size_t outputs = llvm::count_if(
      parts, [](StringRef p) { return p.trim().starts_with("="); });
  return {outputs, parts.size() - outputs};
}

void InlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (getPure())
    return;
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

LogicalResult JoinOp::verify() {
  return verifyJoined(*this, getLhs().getType(), getType());
}

LogicalResult SplitOp::verify() {
  return verifyJoined(*this, getLhs().getType(), getSrc().getType());
}

LogicalResult TransOp::verify() {
  auto srcType = getSrc().getType();
  auto resultType = getType();
  if (failed(verifySameElementType(*this, srcType, resultType)))
    return failure();
  ArrayRef<int32_t> order = getOrder();
  int64_t rank = srcType.getRank();
  SmallVector<bool> seen(rank, false);
  if (int64_t(order.size()) != rank)
    return emitOpError() << "order has " << order.size()
                         << " entries for a rank-" << rank << " operand";
  for (int32_t d : order) {
    if (d < 0 || d >= rank || seen[d])
      return emitOpError() << "order must be a permutation of [0, " << rank
                           << ")";
    seen[d] = true;
  }
  if (resultType.getRank() != rank)
    return emitOpError() << "result rank differs from the operand's";
  for (int64_t i = 0; i < rank; ++i)
    if (resultType.getDimSize(i) != srcType.getDimSize(order[i]))
      return emitOpError() << "result dimension " << i << " is "
                           << resultType.getDimSize(i)
                           << " but operand dimension " << order[i] << " is "
                           << srcType.getDimSize(order[i]);
  return success();
}

// trans with the identity order -> its operand; trans(trans(x)) that
// composes to the identity -> x.
OpFoldResult TransOp::fold(FoldAdaptor) {
  ArrayRef<int32_t> order = getOrder();
  auto identity = [](ArrayRef<int32_t> o) {
    for (size_t i = 0; i < o.size(); ++i)
      if (o[i] != int32_t(i))
        return false;
    return true;
  };
  if (identity(order))
    return getSrc();
  if (auto inner = getSrc().getDefiningOp<TransOp>()) {
    ArrayRef<int32_t> first = inner.getOrder();
    SmallVector<int32_t> composed;
    for (int32_t d : order)
      composed.push_back(first[d]);
    if (identity(composed))
      return inner.getSrc();
  }
  return {};
}

LogicalResult ReshapeOp::verify() {
  auto srcType = getSrc().getType();
  auto resultType = getType();
  if (failed(verifySameElementType(*this, srcType, resultType)))
    return failure();
  if (srcType.getNumElements() != resultType.getNumElements())
    return emitOpError() << "operand has " << srcType.getNumElements()
                         << " elements but the result "
                         << resultType.getNumElements();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto srcType = getSrc().getType();
  auto resultType = getType();
  if (failed(verifySameElementType(*this, srcType, resultType)))
    return failure();
  if (srcType.getRank() != resultType.getRank())
    return emitOpError() << "operand rank " << srcType.getRank()
                         << " differs from result rank "
                         << resultType.getRank()
                         << "; use kite.expand_dims to add dimensions";
  for (auto [i, from, to] : llvm::enumerate(srcType.getShape(),
                                            resultType.getShape()))
    if (from != to && from != 1)
      return emitOpError() << "cannot broadcast dimension " << i << " of size "
                           << from << " to " << to
                           << "; only size-1 dimensions broadcast";
  return success();
}

// broadcast(x : T -> T) -> x; broadcast(dense splat) -> dense splat
OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto dense = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return dense.resizeSplat(cast<ShapedType>(getType()));
  return {};
}

namespace {
/// Pattern: shape_op(splat(x)) => splat(x) of the result's shape, for a
/// shape op that only places its elements (broadcast, expand_dims).
template <typename ShapeOp>
struct ShapeOfSplat : OpRewritePattern<ShapeOp> {
  using OpRewritePattern<ShapeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return rewriter.notifyMatchFailure(op, "operand is not a kite.splat");
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};
} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ShapeOfSplat<BroadcastOp>>(context);
}

//===----------------------------------------------------------------------===//
// expand_dims
//===----------------------------------------------------------------------===//

LogicalResult ExpandDimsOp::verify() {
  auto srcType = getSrc().getType();
  auto resultType = getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > srcType.getRank())
    return emitOpError() << "axis " << axis << " is out of range [0, "
                         << srcType.getRank() << "] for a rank-"
                         << srcType.getRank() << " operand";
  SmallVector<int64_t> expected(srcType.getShape());
  expected.insert(expected.begin() + axis, 1);
  auto expectedType =
      RankedTensorType::get(expected, srcType.getElementType());
  if (resultType != expectedType)
    return emitOpError() << "result type " << resultType << " should be "
                         << expectedType;
  return success();
}

// expand_dims(dense splat) -> dense splat
OpFoldResult ExpandDimsOp::fold(FoldAdaptor adaptor) {
  if (auto dense = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return dense.resizeSplat(cast<ShapedType>(getType()));
  return {};
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<ShapeOfSplat<ExpandDimsOp>>(context);
}

