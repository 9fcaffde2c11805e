//===- MemoryOpsToGPU.cpp - addptr, load and store ------------------------===//
//
// Lowers pointer arithmetic and global memory accesses. Blocks of pointers
// are per-thread vectors of i64 addresses. A load or store of a block is cut
// into groups of consecutive registers; a group becomes one vector access
// (up to 16 bytes) when the AxisInfo facts prove its addresses consecutive
// and aligned, else one access per element. Every access is one predicated
// PTX instruction (inline asm `@p ld.global.v4.b32`): with branches, the
// registers merged after them made each load wait for the one before it
// (measured in SASS), serializing memory latency. Masks:
//   - uniform over the group (proved): one predicated vector access;
//   - otherwise: the vector access predicated on "whole group enabled",
//     plus per-element accesses predicated on "enabled and not whole group"
//     (ragged tails stay correct): loads joined by selects, in one basic
//     block; stores with the per-element ones in a branch taken only by
//     partial groups.
// Masked-off lanes are never accessed; a masked load yields `other` there
// (zero without `other`).
//
//===----------------------------------------------------------------------===//

#include "BlockAddresses.h"
#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/bit.h"


using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

/// The type a pointee is stored as in memory (i1 as i8, like Triton; fp8
/// as its bits).
static Type memoryType(Type pointee) {
  if (pointee.isInteger(1) || mlir::kite::isFp8(pointee))
    return IntegerType::get(pointee.getContext(), 8);
  return pointee;
}

/// The type an element is held as in registers (fp8: its bits).
static Type heldType(Type element) {
  if (mlir::kite::isFp8(element))
    return IntegerType::get(element.getContext(), 8);
  return element;
}

static int64_t memoryBytes(Type pointee) {
  return memoryType(pointee).getIntOrFloatBitWidth() / 8;
}

static Value toMemory(OpBuilder &b, Location loc, Value v, Type memType) {
  if (v.getType() == memType)
    return v;
  return arith::ExtUIOp::create(b, loc, memType, v);
}

static Value fromMemory(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  Value zero = constantOf(b, loc, v.getType(), 0);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
}

/// Chooses the vector width of an access to a block of pointers `ptrs`
/// with optional `mask`, from the layout and the AxisInfo facts.
AccessPlan mlir::kite::detail::planAccess(const KiteLoweringState &state,
                                          const BlockedLayout &layout,
                                          Value ptrs, Value mask,
                                          int64_t elementBytes) {
  AccessPlan plan;
  if (layout.isReplicated())
    return plan;
  int64_t width = std::min<int64_t>(
      layout.chunk, state.axisInfo.vectorElements(ptrs, elementBytes));
  plan.width = std::max<int64_t>(1, llvm::bit_floor(uint64_t(std::max<int64_t>(width, 1))));
  // Sub-word vectors other than a byte pair (one 16-bit word: the pairs of
  // an 8-bit dot operand in wgmma's register layout) would need byte
  // shuffles.
  if (plan.width * elementBytes < 4 && !(plan.width == 2 && elementBytes == 1))
    plan.width = 1;

  plan.uniformMask = !mask || state.axisInfo.get(mask).constancy >= plan.width;
  return plan;
}

namespace {

/// How a group of `width` elements of `elementBytes` each travels as PTX
/// registers: `count` words of `bits` (one vector access when count > 1).
struct WordPlan {
  unsigned bits;
  int64_t count;
};

static WordPlan wordsOf(int64_t width, int64_t elementBytes) {
  int64_t bytes = width * elementBytes;
  if (elementBytes == 8)
    return {64, width};
  if (bytes >= 4)
    return {32, bytes / 4};
  if (bytes == 2)
    return {16, 1}; // one element of 16 bits, or a pair of bytes
  assert(width == 1 && "sub-word groups are single elements or byte pairs");
  return {unsigned(elementBytes * 8), 1};
}

/// The inline-asm register class of a word (8-bit words live in 32-bit
/// registers: ld.u8 zero-extends, st.u8 truncates).
static StringRef registerClass(unsigned bits) {
  return bits == 64 ? "l" : bits == 16 ? "h" : "r";
}

static Type registerType(MLIRContext *ctx, unsigned bits) {
  return IntegerType::get(ctx, bits == 8 ? 32 : bits);
}

static StringRef ptxType(unsigned bits) {
  switch (bits) {
  case 8:
    return "u8";
  case 16:
    return "b16";
  case 32:
    return "b32";
  default:
    return "b64";
  }
}

/// The words of a group value (memType or vector<width x memType>).
static SmallVector<Value> toWords(OpBuilder &b, Location loc, Value group,
                                  WordPlan plan) {
  Type wordType = b.getIntegerType(plan.bits);
  Type regType = registerType(b.getContext(), plan.bits);
  if (!isa<VectorType>(group.getType())) {
    Value w = group;
    if (w.getType() != wordType)
      w = arith::BitcastOp::create(b, loc, wordType, w);
    if (regType != wordType)
      w = arith::ExtUIOp::create(b, loc, regType, w);
    return {w};
  }
  Value words = vector::BitCastOp::create(
      b, loc, VectorType::get({plan.count}, wordType), group);
  SmallVector<Value> result;
  for (int64_t i = 0; i < plan.count; ++i)
    result.push_back(vector::ExtractOp::create(b, loc, words, i));
  return result;
}

/// The group value of `groupType` made of `words` (inverse of toWords).
static Value fromWords(OpBuilder &b, Location loc, ArrayRef<Value> words,
                       Type groupType, WordPlan plan) {
  Type wordType = b.getIntegerType(plan.bits);
  if (!isa<VectorType>(groupType)) {
    Value w = words[0];
    if (w.getType() != wordType)
      w = arith::TruncIOp::create(b, loc, wordType, w);
    if (groupType != wordType)
      w = arith::BitcastOp::create(b, loc, groupType, w);
    return w;
  }
  Value vec = vector::FromElementsOp::create(
      b, loc, VectorType::get({plan.count}, wordType), words);
  return vector::BitCastOp::create(b, loc, cast<VectorType>(groupType), vec);
}

/// `{$first, ..., $(first + count - 1)}` or `$first`.
static std::string operandList(int64_t first, int64_t count) {
  if (count == 1)
    return "$" + std::to_string(first);
  std::string s = "{";
  for (int64_t i = 0; i < count; ++i)
    s += (i ? ", $" : "$") + std::to_string(first + i);
  return s + "}";
}

/// A predicate as the 32-bit word the access's inline asm tests (`setp`
/// inside the asm). Passing i1 predicates ("b") kept every mask bit in a
/// predicate register from the loads to the stores; with more than the 7
/// the hardware has, ptxas spilled them to local memory (seen in dropout).
static Value predicateWord(OpBuilder &b, Location loc, Value pred) {
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), pred);
}

/// One global load of `plan.count` words at address `addr` (i64), executed
/// only where `pred` (i1; null: always). Words not loaded take `others`.
/// Branch-free PTX (`@p ld.global.v4.b32`): the data dependency alone orders
/// the uses, so the load issues early and its latency overlaps other work.
static SmallVector<Value> loadWords(OpBuilder &b, Location loc, Value addr,
                                    Value pred, WordPlan plan,
                                    ArrayRef<Value> others,
                                    int64_t immediate = 0) {
  MLIRContext *ctx = b.getContext();
  Type regType = registerType(ctx, plan.bits);
  StringRef cls = registerClass(plan.bits);
  int64_t n = plan.count;
  SmallVector<Value> operands;
  std::string constraints, asmText;
  for (int64_t i = 0; i < n; ++i)
    constraints += (i ? ",=" : "=") + cls.str();
  int64_t next = n;
  std::string predIndex;
  if (pred) {
    operands.push_back(predicateWord(b, loc, pred));
    constraints += ",r";
    predIndex = std::to_string(next++);
    asmText += "@%kp ";
  }
  int64_t addrIndex = next++;
  operands.push_back(addr);
  constraints += ",l";
  asmText += "ld.global" + (n > 1 ? ".v" + std::to_string(n) : std::string()) +
             "." + ptxType(plan.bits).str() + " " + operandList(0, n) +
             ", [$" + std::to_string(addrIndex) +
             (immediate ? "+" + std::to_string(immediate) : std::string()) +
             "];";
  if (pred) {
    // Masked-off words keep `others`.
    std::string movs;
    for (int64_t i = 0; i < n; ++i) {
      operands.push_back(others[i]);
      constraints += "," + cls.str();
      movs += "mov.b" + std::to_string(plan.bits == 8 ? 32 : plan.bits) +
              " $" + std::to_string(i) + ", $" + std::to_string(next++) +
              "; ";
    }
    asmText = "{ .reg .pred %kp; setp.ne.b32 %kp, $" + predIndex + ", 0; " +
              movs + asmText + " }";
  }
  Type resultType =
      n == 1 ? regType
             : LLVM::LLVMStructType::getLiteral(
                   ctx, SmallVector<Type>(n, regType));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, resultType, operands, asmText, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
      ArrayAttr());
  Value result = asmOp.getResult(0);
  if (n == 1)
    return {result};
  SmallVector<Value> words;
  for (int64_t i = 0; i < n; ++i)
    words.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
  return words;
}

/// One global store of `words` at `addr` (i64), executed only where `pred`
/// (i1; null: always), as branch-free PTX (`@p st.global.v4.b32`).
static void storeWords(OpBuilder &b, Location loc, Value addr, Value pred,
                       WordPlan plan, ArrayRef<Value> words,
                       int64_t immediate = 0) {
  SmallVector<Value> operands;
  std::string constraints, asmText;
  int64_t next = 0;
  if (pred) {
    operands.push_back(predicateWord(b, loc, pred));
    constraints += "r,";
    asmText += "{ .reg .pred %kp; setp.ne.b32 %kp, $" + std::to_string(next++) +
               ", 0; @%kp ";
  }
  int64_t addrIndex = next++;
  operands.push_back(addr);
  constraints += "l";
  for (Value w : words) {
    operands.push_back(w);
    constraints += "," + registerClass(plan.bits).str();
  }
  int64_t n = plan.count;
  asmText += "st.global" + (n > 1 ? ".v" + std::to_string(n) : std::string()) +
             "." + ptxType(plan.bits).str() + " [$" +
             std::to_string(addrIndex) +
             (immediate ? "+" + std::to_string(immediate) : std::string()) +
             "], " + operandList(next, n) + ";" +
             (pred ? " }" : "");
  LLVM::InlineAsmOp::create(b, loc, Type(), operands, asmText, constraints,
                            /*has_side_effects=*/true, /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            LLVM::AsmDialectAttr(), ArrayAttr());
}

/// Registers [offset, offset + width) of a per-thread vector (one register
/// as a scalar when width is 1).
static Value slice(OpBuilder &b, Location loc, Value vec, int64_t offset,
                   int64_t width) {
  if (width == 1)
    return extractRegister(b, loc, vec, offset);
  SmallVector<int64_t> indices;
  for (int64_t i = 0; i < width; ++i)
    indices.push_back(offset + i);
  return vector::ShuffleOp::create(b, loc, vec, vec, indices);
}

/// The AND of registers [offset, offset + width) of an i1 vector.
static Value allOf(OpBuilder &b, Location loc, Value mask, int64_t offset,
                   int64_t width) {
  Value all = extractRegister(b, loc, mask, offset);
  for (int64_t i = 1; i < width; ++i)
    all = arith::AndIOp::create(b, loc, all,
                                extractRegister(b, loc, mask, offset + i));
  return all;
}

/// Emits `body` (at the rewriter's insertion point) in a branch taken when
/// `all` is false: the per-element accesses of a partially enabled group.
/// Returns the branch's value of `type` (zeros when not taken), or null for
/// no type.
static Value ifNotAll(OpBuilder &b, Location loc, Value all, Type type,
                      function_ref<Value()> body) {
  Value t = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Value notAll = arith::XOrIOp::create(b, loc, all, t);
  SmallVector<Type> types;
  if (type)
    types.push_back(type);
  auto ifOp = scf::IfOp::create(b, loc, types, notAll, /*withElse=*/bool(type));
  OpBuilder::InsertionGuard guard(b);
  if (!type) { // The then block already ends in its yield.
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    body();
    return Value();
  }
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, body());
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, loc, constantOf(b, loc, type, 0));
  return ifOp.getResult(0);
}

/// Pattern: kite.addptr p, off => getelementptr (scalar) or
///          addrs + sext(off) * sizeof(T) (blocks)
struct AddPtrLowering : OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = memoryType(
        cast<PointerType>(getElementTypeOrSelf(op.getType())).getPointeeType());
    Value ptr = adaptor.getPtr(), offset = adaptor.getOffset();
    if (!isa<VectorType>(ptr.getType())) {
      rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
          op, ptr.getType(), pointee, ptr, ValueRange{offset});
      return success();
    }
    auto vecType = cast<VectorType>(ptr.getType());
    if (!getElementTypeOrSelf(offset.getType()).isInteger(64))
      offset = arith::ExtSIOp::create(rewriter, loc, vecType, offset);
    Value bytes = constantOf(rewriter, loc, vecType,
                             pointee.getIntOrFloatBitWidth() / 8);
    Value scaled = arith::MulIOp::create(rewriter, loc, offset, bytes);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, ptr, scaled);
    return success();
  }
};

/// Pattern: kite.load => grouped predicated `ld.global[.vN]` (no branches)
struct LoadLowering : OpConversionPattern<LoadOp> {
  LoadLowering(KiteTypeConverter &converter, const KiteLoweringState &state,
               MLIRContext *context)
      : OpConversionPattern(converter, context), state(state) {}

  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = heldType(getElementTypeOrSelf(op.getType()));
    Type memType = memoryType(pointee);
    int64_t elementBytes = memoryBytes(pointee);
    Value ptrs = adaptor.getPtr(), mask = adaptor.getMask();
    Value other = adaptor.getOther();
    Type resultType = getTypeConverter()->convertType(op.getResult());

    // The registers' addresses (set below for blocks).
    BlockAddresses addresses(ptrs);
    BlockedLayout layout;
    // One group of `w` elements at register `g` (`g` is ignored for scalars).
    auto loadGroup = [&](int64_t g, int64_t w, Value pred,
                         Value groupOther) -> Value {
      Type memGroup = w == 1 ? memType : Type(VectorType::get({w}, memType));
      Type group = w == 1 ? pointee : Type(VectorType::get({w}, pointee));
      RunAddress addr = addresses.run(rewriter, loc, g);
      if (!pred) // Unmasked: a plain LLVM load, which LLVM may optimize.
        return fromMemory(
            rewriter, loc,
            LLVM::LoadOp::create(
                rewriter, loc, memGroup,
                toPointer(rewriter, loc, fullAddress(rewriter, loc, addr)),
                w * elementBytes),
            group);
      WordPlan plan = wordsOf(w, elementBytes);
      SmallVector<Value> others;
      {
        Value o = groupOther ? toMemory(rewriter, loc, groupOther, memGroup)
                             : constantOf(rewriter, loc, memGroup, 0);
        others = toWords(rewriter, loc, o, plan);
      }
      auto words =
          loadWords(rewriter, loc, addr.base, pred, plan, others, addr.bytes);
      return fromMemory(rewriter, loc,
                        fromWords(rewriter, loc, words, memGroup, plan), group);
    };

    if (!isa<VectorType>(ptrs.getType())) {
      rewriter.replaceOp(op, loadGroup(0, 1, mask, other));
      return success();
    }

    auto &converter = *getTypeConverter<KiteTypeConverter>();
    layout = converter.getLayout(op.getPtr());
    AccessPlan plan =
        planAccess(state, layout, op.getPtr(), op.getMask(), elementBytes);
    int64_t w = plan.width;
    addresses = BlockAddresses(rewriter, converter, state, op, op.getPtr(),
                               ptrs, layout, elementBytes);
    SmallVector<Value> elements;
    for (int64_t g = 0; g < layout.perThread; g += w) {
      Value groupOther = other ? slice(rewriter, loc, other, g, w) : Value();
      Value value;
      if (!mask || plan.uniformMask || w == 1) {
        Value pred = mask ? extractRegister(rewriter, loc, mask, g) : Value();
        value = loadGroup(g, w, pred, groupOther);
      } else {
        // The vector load where the whole group is enabled; the elements of
        // a partial group (ragged tail) load one by one, predicated on
        // "enabled and not the whole group"; a select joins the two. No
        // branch: in one basic block ptxas schedules the uses (the select)
        // late, after independent work; with the tail in a branch, seeded
        // dropout at odd n lost 10% (2136 against 2348 GB/s at 2^24+1 on
        // the H100; vector add and dropout alike either way).
        Value all = allOf(rewriter, loc, mask, g, w);
        Value vec = loadGroup(g, w, all, groupOther);
        Value t = arith::ConstantIntOp::create(rewriter, loc,
                                               rewriter.getI1Type(), 1);
        Value notAll = arith::XOrIOp::create(rewriter, loc, all, t);
        SmallVector<Value> parts;
        for (int64_t i = 0; i < w; ++i) {
          Value m = extractRegister(rewriter, loc, mask, g + i);
          m = arith::AndIOp::create(rewriter, loc, m, notAll);
          Value o = other ? extractRegister(rewriter, loc, other, g + i)
                          : Value();
          parts.push_back(loadGroup(g + i, 1, m, o));
        }
        Value partial = vector::FromElementsOp::create(
            rewriter, loc, cast<VectorType>(vec.getType()), parts);
        Value joined = arith::SelectOp::create(rewriter, loc, all, vec, partial);
        for (int64_t i = 0; i < w; ++i)
          elements.push_back(vector::ExtractOp::create(rewriter, loc, joined, i));
        continue;
      }
      if (w == 1) {
        elements.push_back(value);
        continue;
      }
      for (int64_t i = 0; i < w; ++i)
        elements.push_back(vector::ExtractOp::create(rewriter, loc, value, i));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, cast<VectorType>(resultType), elements);
    return success();
  }

private:
  const KiteLoweringState &state;
};

/// Pattern: kite.store => grouped predicated `st.global[.vN]` (no branches)
struct StoreLowering : OpConversionPattern<StoreOp> {
  StoreLowering(KiteTypeConverter &converter, const KiteLoweringState &state,
                MLIRContext *context)
      : OpConversionPattern(converter, context), state(state) {}

  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = heldType(getElementTypeOrSelf(op.getValue().getType()));
    Type memType = memoryType(pointee);
    int64_t elementBytes = memoryBytes(pointee);
    Value ptrs = adaptor.getPtr(), mask = adaptor.getMask();
    Value value = adaptor.getValue();

    // The registers' addresses (blocks: below).
    BlockAddresses addresses(ptrs);
    BlockedLayout layout;
    auto storeGroup = [&](int64_t g, int64_t w, Value pred) {
      Type memGroup = w == 1 ? memType : Type(VectorType::get({w}, memType));
      WordPlan plan = wordsOf(w, elementBytes);
      Value v = isa<VectorType>(value.getType())
                    ? slice(rewriter, loc, value, g, w)
                    : value;
      v = toMemory(rewriter, loc, v, memGroup);
      RunAddress addr = addresses.run(rewriter, loc, g);
      if (!pred) { // Unmasked: a plain LLVM store.
        LLVM::StoreOp::create(
            rewriter, loc, v,
            toPointer(rewriter, loc, fullAddress(rewriter, loc, addr)),
            w * elementBytes);
        return;
      }
      storeWords(rewriter, loc, addr.base, pred, plan,
                 toWords(rewriter, loc, v, plan), addr.bytes);
    };

    if (!isa<VectorType>(ptrs.getType())) {
      // Every thread holds the scalar: thread 0 alone stores it, so that
      // the store is ordered before that thread's later atomics (a lock's
      // release) and no copy lands late.
      Value first = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, threadId(rewriter, loc),
          arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 0));
      storeGroup(0, 1,
                 mask ? arith::AndIOp::create(rewriter, loc, mask, first).getResult()
                      : first);
      rewriter.eraseOp(op);
      return success();
    }

    auto &converter = *getTypeConverter<KiteTypeConverter>();
    layout = converter.getLayout(op.getPtr());
    if (Value owner = ownerPredicate(rewriter, loc, layout)) {
      // Several threads hold each element: only the owner's copy is stored.
      Value owners = splatLike(rewriter, loc, owner, ptrs.getType());
      mask = mask ? arith::AndIOp::create(rewriter, loc, mask, owners).getResult()
                  : owners;
    }
    AccessPlan plan =
        planAccess(state, layout, op.getPtr(), op.getMask(), elementBytes);
    if (layout.isReplicated())
      plan.uniformMask = false;
    int64_t w = plan.width;
    addresses = BlockAddresses(rewriter, converter, state, op, op.getPtr(),
                               ptrs, layout, elementBytes);
    for (int64_t g = 0; g < layout.perThread; g += w) {
      if (!mask || plan.uniformMask || w == 1) {
        storeGroup(g, w,
                   mask ? extractRegister(rewriter, loc, mask, g) : Value());
        continue;
      }
      Value all = allOf(rewriter, loc, mask, g, w);
      storeGroup(g, w, all);
      ifNotAll(rewriter, loc, all, Type(), [&]() -> Value {
        for (int64_t i = 0; i < w; ++i)
          storeGroup(g + i, 1, extractRegister(rewriter, loc, mask, g + i));
        return Value();
      });
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  const KiteLoweringState &state;
};

} // namespace

void mlir::kite::populateMemoryOpPatterns(KiteTypeConverter &converter,
                                          const KiteLoweringState &state,
                                          RewritePatternSet &patterns) {
  patterns.add<AddPtrLowering>(converter, patterns.getContext());
  patterns.add<LoadLowering, StoreLowering>(converter, state,
                                            patterns.getContext());
}
