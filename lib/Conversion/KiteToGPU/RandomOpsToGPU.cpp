//===- RandomOpsToGPU.cpp - Philox4x32, bit-exact with Triton -------------===//
//
// Lowers kite.randint / rand / randn / randint4x to Philox4x32 with the
// op's rounds (10 unless n_rounds= said otherwise). Key: the
// seed sign-extended to 64 bits; counter: (offset lo, offset hi or 0, 0, 0).
// See ../shared/notes/random.md.
//
// The rounds are written out once per op as a straight-line PTX block
// (PhiloxProgram) and instantiated as one `llvm.inline_asm` per register of
// the offsets: MLIR and LLVM then handle one opaque op per element instead
// of some eighty arithmetic ops on vectors, which was most of the compile
// time of a kernel such as seeded dropout (ptxas sees the same
// instructions). Words that do not depend on the offset (the round keys,
// and the first rounds' words that start from zero or from the key) are
// computed once per thread in ordinary IR and enter the block as operands.
// Each multiply is one mul.wide.u32 (hi and lo words at once, one
// IMAD.WIDE.U32) instead of Triton's separate mul.hi and mul.lo, and each
// three-way xor one lop3.b32.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::kite;
using namespace mlir::kite::detail;

static constexpr uint32_t kRoundA = 0xD2511F53u;
static constexpr uint32_t kRoundB = 0xCD9E8D57u;
static constexpr uint32_t kKeyA = 0x9E3779B9u;
static constexpr uint32_t kKeyB = 0xBB67AE85u;

/// (lo, hi) words of the 64-bit product of the 32-bit `constant` and the
/// i32 scalar `value`, as one `mul.wide.u32`. (LLVM turns the zext/mul i64
/// of arith.mului_extended into a 64-bit multiply, three times the work on
/// the GPU.)
static std::pair<Value, Value> mulWide(OpBuilder &b, Location loc,
                                       uint32_t constant, Value value) {
  Type i32 = b.getI32Type();
  auto pairType = LLVM::LLVMStructType::getLiteral(b.getContext(), {i32, i32});
  Value c = arith::ConstantIntOp::create(b, loc, i32, int64_t(constant));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, pairType, ValueRange{value, c},
      "{ .reg .b64 %t; mul.wide.u32 %t, $2, $3; mov.b64 {$0, $1}, %t; }",
      "=r,=r,r,r", /*has_side_effects=*/false, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
      ArrayAttr());
  Value pair = asmOp.getResult(0);
  return {LLVM::ExtractValueOp::create(b, loc, pair, 0),
          LLVM::ExtractValueOp::create(b, loc, pair, 1)};
}

namespace {

/// Philox4x32 of one counter as a PTX block. Each word of the state is
/// zero, a thread-uniform IR value (computed before the block, an operand
/// of it), or a register of the block (it depends on the counter's
/// per-element inputs). Built once per op; `instantiate` emits the block
/// for one element.
class PhiloxProgram {
public:
  struct Word {
    enum Kind { Zero, Uniform, Register } kind = Zero;
    Value uniform; ///< Uniform: the IR value
    int reg = -1;  ///< Register: %kx<reg>, or an input (-1 - input index)
  };

  /// `inputs` counter words per element (1 or 2: the offset's low and high
  /// words); `k0`, `k1` the key. Runs the rounds; `outputs` are the words
  /// wanted at the end.
  PhiloxProgram(OpBuilder &b, Location loc, int inputs, Value k0, Value k1,
                int rounds, ArrayRef<int> outputs)
      : b(b), loc(loc), numInputs(inputs) {
    Word c[4];
    for (int i = 0; i < inputs; ++i)
      c[i] = Word{Word::Register, Value(), -1 - i};
    for (int round = 0; round < rounds; ++round) {
      Word loB, hiB, loA, hiA;
      std::tie(loB, hiB) = mul(kRoundB, c[2]);
      std::tie(loA, hiA) = mul(kRoundA, c[0]);
      Word key0{Word::Uniform, k0}, key1{Word::Uniform, k1};
      c[0] = xor3(hiB, c[1], key0);
      c[2] = xor3(hiA, c[3], key1);
      c[1] = loB;
      c[3] = loA;
      if (round == rounds - 1)
        break;
      Type i32 = b.getI32Type();
      k0 = arith::AddIOp::create(
          b, loc, k0, arith::ConstantIntOp::create(b, loc, i32, int64_t(kKeyA)));
      k1 = arith::AddIOp::create(
          b, loc, k1, arith::ConstantIntOp::create(b, loc, i32, int64_t(kKeyB)));
    }
    for (int w : outputs)
      results.push_back(c[w]);
    finish();
  }

  /// The wanted words for one element whose counter inputs are `in` (i32).
  SmallVector<Value> instantiate(ValueRange in) {
    assert(int(in.size()) == numInputs && "one value per counter input");
    Type i32 = b.getI32Type();
    SmallVector<Value> words;
    Value asmResult;
    if (numOutputs > 0) {
      SmallVector<Value> operands(in.begin(), in.end());
      operands.append(uniformOperands.begin(), uniformOperands.end());
      Type type = i32;
      if (numOutputs > 1)
        type = LLVM::LLVMStructType::getLiteral(
            b.getContext(), SmallVector<Type>(numOutputs, i32));
      asmResult =
          LLVM::InlineAsmOp::create(
              b, loc, type, operands, text, constraints,
              /*has_side_effects=*/false, /*is_align_stack=*/false,
              LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
              ArrayAttr())
              .getResult(0);
    }
    int output = 0;
    for (const Word &w : results) {
      switch (w.kind) {
      case Word::Zero:
        words.push_back(arith::ConstantIntOp::create(b, loc, i32, 0));
        break;
      case Word::Uniform:
        words.push_back(w.uniform);
        break;
      case Word::Register:
        if (w.reg < 0) { // an input, unchanged (not after a round)
          words.push_back(in[-1 - w.reg]);
          break;
        }
        words.push_back(numOutputs == 1
                            ? asmResult
                            : LLVM::ExtractValueOp::create(b, loc, asmResult,
                                                           output)
                                  .getResult());
        ++output;
        break;
      }
    }
    return words;
  }

private:
  struct Instruction {
    enum Kind { MulWide, Xor } kind;
    int dst[2];                 ///< MulWide: lo, hi; Xor: dst[0]
    SmallVector<Word, 3> srcs;  ///< registers or operands
    uint32_t constant = 0;      ///< MulWide's factor
  };

  std::pair<Word, Word> mul(uint32_t constant, Word x) {
    switch (x.kind) {
    case Word::Zero:
      return {Word{}, Word{}};
    case Word::Uniform: {
      auto [lo, hi] = mulWide(b, loc, constant, x.uniform);
      return {Word{Word::Uniform, lo}, Word{Word::Uniform, hi}};
    }
    case Word::Register:
      break;
    }
    Instruction inst{Instruction::MulWide, {newReg(), newReg()}, {x}, constant};
    code.push_back(inst);
    return {Word{Word::Register, Value(), inst.dst[0]},
            Word{Word::Register, Value(), inst.dst[1]}};
  }

  /// a ^ b ^ c: the uniform terms are combined in IR first.
  Word xor3(Word a, Word x, Word y) {
    SmallVector<Word, 3> regs;
    Value uniform;
    for (const Word &w : {a, x, y}) {
      if (w.kind == Word::Register)
        regs.push_back(w);
      else if (w.kind == Word::Uniform)
        uniform = uniform ? arith::XOrIOp::create(b, loc, uniform, w.uniform)
                                .getResult()
                          : w.uniform;
    }
    if (regs.empty())
      return uniform ? Word{Word::Uniform, uniform} : Word{};
    if (uniform)
      regs.push_back(Word{Word::Uniform, uniform});
    if (regs.size() == 1)
      return regs[0];
    Instruction inst{Instruction::Xor, {newReg(), -1}, regs, 0};
    code.push_back(inst);
    return Word{Word::Register, Value(), inst.dst[0]};
  }

  int newReg() { return numRegs++; }

  /// Drops the instructions no result needs and prints the block:
  /// outputs $0.., the counter inputs next, the uniform operands last.
  void finish() {
    llvm::SmallDenseSet<int> live;
    for (const Word &w : results)
      if (w.kind == Word::Register && w.reg >= 0) {
        live.insert(w.reg);
        ++numOutputs;
      }
    SmallVector<const Instruction *> kept;
    for (auto it = code.rbegin(); it != code.rend(); ++it) {
      bool needed = live.contains(it->dst[0]) ||
                    (it->kind == Instruction::MulWide && live.contains(it->dst[1]));
      if (!needed)
        continue;
      kept.push_back(&*it);
      for (const Word &s : it->srcs)
        if (s.kind == Word::Register && s.reg >= 0)
          live.insert(s.reg);
    }
    std::reverse(kept.begin(), kept.end());
    // The registers that remain, numbered in order of definition.
    llvm::SmallDenseMap<int, int> number;
    for (const Instruction *inst : kept)
      for (int d : inst->dst)
        if (d >= 0)
          number.try_emplace(d, int(number.size()));
    auto reg = [&](int r) { return "%kx" + std::to_string(number.lookup(r)); };

    auto operand = [&](const Word &w) -> std::string {
      if (w.kind == Word::Register)
        return w.reg >= 0 ? reg(w.reg)
                          : "$" + std::to_string(numOutputs + (-1 - w.reg));
      auto found = llvm::find(uniformOperands, w.uniform);
      size_t index = found - uniformOperands.begin();
      if (found == uniformOperands.end())
        uniformOperands.push_back(w.uniform);
      return "$" + std::to_string(numOutputs + numInputs + index);
    };
    std::string body;
    for (const Instruction *inst : kept) {
      if (inst->kind == Instruction::MulWide) {
        body += "\n\tmul.wide.u32 %kw, " + operand(inst->srcs[0]) + ", " +
                std::to_string(inst->constant) + ";\n\tmov.b64 {" +
                reg(inst->dst[0]) + ", " + reg(inst->dst[1]) + "}, %kw;";
      } else if (inst->srcs.size() == 2) {
        body += "\n\txor.b32 " + reg(inst->dst[0]) + ", " +
                operand(inst->srcs[0]) + ", " + operand(inst->srcs[1]) + ";";
      } else {
        body += "\n\tlop3.b32 " + reg(inst->dst[0]) + ", " +
                operand(inst->srcs[0]) + ", " + operand(inst->srcs[1]) + ", " +
                operand(inst->srcs[2]) + ", 0x96;";
      }
    }
    int output = 0;
    for (const Word &w : results)
      if (w.kind == Word::Register && w.reg >= 0)
        body += "\n\tmov.b32 $" + std::to_string(output++) + ", " +
                reg(w.reg) + ";";
    text = "{\n\t.reg .b32 %kx<" + std::to_string(number.size()) +
           ">;\n\t.reg .b64 %kw;" + body + "\n\t}";
    for (int i = 0; i < numOutputs; ++i)
      constraints += "=r,";
    for (size_t i = 0; i < numInputs + uniformOperands.size(); ++i)
      constraints += "r,";
    constraints.pop_back();
  }

  OpBuilder &b;
  Location loc;
  int numInputs;
  int numRegs = 0;
  int numOutputs = 0;
  SmallVector<Instruction> code;
  SmallVector<Word, 2> results;
  SmallVector<Value> uniformOperands;
  std::string text, constraints;
};

} // namespace

/// Words `wanted` of Philox4x32 with `rounds` rounds for `seed` (i32/i64
/// scalar; the key is its sign extension to 64 bits) and the counters in
/// `counters` (scalars, or per-thread vectors of one shape), as i32 values
/// of that shape: `inputs` turns one element of each counter value into the
/// element's `numInputs` counter words (the rest are 0).
static SmallVector<Value, 4>
runPhilox(OpBuilder &b, Location loc, Value seed, ValueRange counters,
          int numInputs, int rounds, ArrayRef<int> wanted,
          function_ref<SmallVector<Value, 4>(ValueRange)> inputs) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value seed64 = seed.getType().isInteger(64)
                     ? seed
                     : arith::ExtSIOp::create(b, loc, i64, seed).getResult();
  Value k0 = arith::TruncIOp::create(b, loc, i32, seed64);
  Value k1 = arith::TruncIOp::create(
      b, loc, i32,
      arith::ShRUIOp::create(b, loc, seed64,
                             arith::ConstantIntOp::create(b, loc, i64, 32)));
  PhiloxProgram program(b, loc, numInputs, k0, k1, rounds, wanted);
  auto vec = dyn_cast<VectorType>(counters.front().getType());
  if (!vec)
    return SmallVector<Value, 4>(program.instantiate(inputs(counters)));
  auto wordType = VectorType::get(vec.getShape(), i32);
  SmallVector<Value, 4> words;
  for (size_t w = 0; w < wanted.size(); ++w)
    words.push_back(constantOf(b, loc, wordType, 0));
  for (int64_t e = 0; e < vec.getNumElements(); ++e) {
    SmallVector<Value, 4> element;
    for (Value c : counters)
      element.push_back(extractRegister(b, loc, c, e));
    SmallVector<Value> out = program.instantiate(inputs(element));
    for (size_t w = 0; w < wanted.size(); ++w)
      words[w] = vector::InsertOp::create(b, loc, out[w], words[w], e);
  }
  return words;
}

/// Words `wanted` of Philox4x32 for `seed` and `offset` (i32/i64, scalar
/// or per-thread vector): the counter (offset low, offset high, 0, 0).
static SmallVector<Value, 4> philox(OpBuilder &b, Location loc, Value seed,
                                    Value offset, int rounds,
                                    ArrayRef<int> wanted) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  bool wide = getElementTypeOrSelf(offset.getType()).isInteger(64);
  return runPhilox(b, loc, seed, offset, wide ? 2 : 1, rounds, wanted,
                   [&](ValueRange element) -> SmallVector<Value, 4> {
                     if (!wide)
                       return {element[0]};
                     Value hi = arith::ShRUIOp::create(
                         b, loc, element[0],
                         arith::ConstantIntOp::create(b, loc, i64, 32));
                     return {arith::TruncIOp::create(b, loc, i32, element[0]),
                             arith::TruncIOp::create(b, loc, i32, hi)};
                   });
}

/// Triton's uint_to_uniform_float: x < 0 ? ~x : x, to f32, times 2^-31.
static Value toUniform(OpBuilder &b, Location loc, Value word) {
  Type shape = word.getType();
  Value zero = constantOf(b, loc, shape, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, word, zero);
  Value flipped = arith::XOrIOp::create(b, loc, word, constantOf(b, loc, shape, -1));
  Value x = arith::SelectOp::create(b, loc, negative, flipped, word);
  Type f32 = b.getF32Type();
  Type floatType = isa<VectorType>(shape)
                       ? Type(VectorType::get(cast<VectorType>(shape).getShape(), f32))
                       : f32;
  Value f = arith::SIToFPOp::create(b, loc, floatType, x);
  TypedAttr scale = b.getF32FloatAttr(4.6566127342e-10f);
  Value s = isa<VectorType>(floatType)
                ? arith::ConstantOp::create(
                      b, loc, floatType,
                      DenseElementsAttr::get(cast<ShapedType>(floatType), scale))
                      .getResult()
                : arith::ConstantOp::create(b, loc, f32, scale).getResult();
  return arith::MulFOp::create(b, loc, f, s);
}

static Value floatConstant(OpBuilder &b, Location loc, Type type, float v) {
  TypedAttr attr = b.getF32FloatAttr(v);
  if (auto vec = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, vec,
                                     DenseElementsAttr::get(vec, attr));
  return arith::ConstantOp::create(b, loc, type, attr);
}

namespace {

/// Pattern: kite.randint s, off => word 0 of philox(s, off)
struct RandIntLowering : OpConversionPattern<RandIntOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandIntOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, philox(rewriter, op.getLoc(), adaptor.getSeed(),
                                  adaptor.getOffset(), op.getRounds(), {0})[0]);
    return success();
  }
};

/// Pattern: kite.randint4x s, off => words 0-3 of one philox(s, off)
struct RandInt4xLowering : OpConversionPattern<RandInt4xOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandInt4xOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto words = philox(rewriter, op.getLoc(), adaptor.getSeed(),
                        adaptor.getOffset(), op.getRounds(), {0, 1, 2, 3});
    rewriter.replaceOp(op, ValueRange(words));
    return success();
  }
};

/// Pattern: kite.philox s, c0, c1, c2, c3 => the four words of Philox4x32
/// of that counter (one PTX block an element, all four words registers).
struct PhiloxLowering : OpConversionPattern<PhiloxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PhiloxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Value counters[4] = {adaptor.getC0(), adaptor.getC1(), adaptor.getC2(),
                         adaptor.getC3()};
    b.replaceOp(op, ValueRange(runPhilox(b, op.getLoc(), adaptor.getSeed(),
                                         counters, 4, op.getRounds(),
                                         {0, 1, 2, 3}, [](ValueRange element) {
                                           return SmallVector<Value, 4>(
                                               element.begin(), element.end());
                                         })));
    return success();
  }
};

/// Pattern: kite.rand s, off => uniform(word 0 of philox(s, off))
struct RandLowering : OpConversionPattern<RandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value word = philox(rewriter, op.getLoc(), adaptor.getSeed(),
                        adaptor.getOffset(), op.getRounds(), {0})[0];
    rewriter.replaceOp(op, toUniform(rewriter, op.getLoc(), word));
    return success();
  }
};

/// Pattern: kite.randn s, off => Box-Muller (cos branch) of words 0 and 1
struct RandNLowering : OpConversionPattern<RandNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto words = philox(rewriter, loc, adaptor.getSeed(), adaptor.getOffset(),
                        op.getRounds(), {0, 1});
    Value u1 = toUniform(rewriter, loc, words[0]);
    Value u2 = toUniform(rewriter, loc, words[1]);
    Type t = u1.getType();
    u1 = arith::MaximumFOp::create(rewriter, loc,
                                   floatConstant(rewriter, loc, t, 1.0e-7f), u1);
    Value th = arith::MulFOp::create(
        rewriter, loc, floatConstant(rewriter, loc, t, 6.283185307179586f), u2);
    Value r = math::SqrtOp::create(
        rewriter, loc,
        arith::MulFOp::create(rewriter, loc,
                              floatConstant(rewriter, loc, t, -2.0f),
                              math::LogOp::create(rewriter, loc, u1)));
    rewriter.replaceOpWithNewOp<arith::MulFOp>(
        op, r, math::CosOp::create(rewriter, loc, th));
    return success();
  }
};

} // namespace

void mlir::kite::populateRandomOpPatterns(KiteTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<RandIntLowering, RandInt4xLowering, PhiloxLowering, RandLowering, RandNLowering>(
      converter, patterns.getContext());
}
