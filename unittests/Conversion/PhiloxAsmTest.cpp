//===- PhiloxAsmTest.cpp - The lowered Philox, evaluated on the CPU -------===//
//
// kite.randint / kite.randn lower to a straight-line PTX block per element
// (RandomOpsToGPU.cpp) whose operands are computed in ordinary IR. Without a
// GPU, this test lowers ops with constant seeds and offsets, then evaluates
// what the lowering produced: the IR feeding the block (arith on i32/i64,
// the uniform mul.wide of the first rounds) and the PTX text of every
// inline_asm it meets (mul.wide.u32, mov.b64 unpacking, xor.b32, lop3.b32,
// mov.b32). The words must equal Random123's Philox4x32-10 and the Triton
// known answers of ../shared/notes/random.md.
//
//===----------------------------------------------------------------------===//

#include "kite/Conversion/Passes.h"
#include "kite/Registration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// Random123's Philox4x32-10: the reference.
std::array<uint32_t, 4> philoxReference(std::array<uint32_t, 4> c, uint32_t k0,
                                        uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    uint64_t a = uint64_t(0xD2511F53u) * c[0], b = uint64_t(0xCD9E8D57u) * c[2];
    c = {uint32_t(b >> 32) ^ c[1] ^ k0, uint32_t(b), uint32_t(a >> 32) ^ c[3] ^ k1,
         uint32_t(a)};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

/// Evaluates, on demand, the scalar values the lowering computes.
class Evaluator {
public:
  /// The value of `v` as a 64-bit pattern (i32 values zero-extended).
  uint64_t eval(Value v) {
    auto found = known.find(v.getAsOpaquePointer());
    if (found != known.end())
      return found->second;
    Operation *op = v.getDefiningOp();
    EXPECT_NE(op, nullptr) << "a block argument reaches the random words";
    if (!op)
      return 0;
    unsigned bits = v.getType().getIntOrFloatBitWidth();
    uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    uint64_t r = 0;
    if (auto c = dyn_cast<arith::ConstantIntOp>(op)) {
      r = uint64_t(c.value());
    } else if (auto x = dyn_cast<arith::XOrIOp>(op)) {
      r = eval(x.getLhs()) ^ eval(x.getRhs());
    } else if (auto a = dyn_cast<arith::AddIOp>(op)) {
      r = eval(a.getLhs()) + eval(a.getRhs());
    } else if (auto s = dyn_cast<arith::ShRUIOp>(op)) {
      r = eval(s.getLhs()) >> eval(s.getRhs());
    } else if (auto t = dyn_cast<arith::TruncIOp>(op)) {
      r = eval(t.getIn());
    } else if (auto e = dyn_cast<arith::ExtSIOp>(op)) {
      unsigned from = e.getIn().getType().getIntOrFloatBitWidth();
      r = uint64_t(llvm::SignExtend64(eval(e.getIn()), from));
    } else if (auto x = dyn_cast<LLVM::ExtractValueOp>(op)) {
      r = eval(x.getContainer(), x.getPosition()[0]);
    } else if (auto a = dyn_cast<LLVM::InlineAsmOp>(op)) {
      r = runAsm(a)[0];
    } else {
      ADD_FAILURE() << "unexpected op " << op->getName().getStringRef().str();
    }
    r &= mask;
    known[v.getAsOpaquePointer()] = r;
    return r;
  }

  /// Field `index` of an inline_asm's struct result.
  uint64_t eval(Value container, int64_t index) {
    auto a = container.getDefiningOp<LLVM::InlineAsmOp>();
    EXPECT_TRUE(a) << "extractvalue of something else than an inline_asm";
    if (!a)
      return 0;
    return runAsm(a)[index];
  }

  /// Runs the PTX of `op` on its evaluated operands; its outputs in order.
  std::vector<uint64_t> runAsm(LLVM::InlineAsmOp op) {
    auto found = asmResults.find(op.getOperation());
    if (found != asmResults.end())
      return found->second;
    unsigned outputs = llvm::count(op.getConstraints(), '=');
    std::vector<uint64_t> operands(outputs);
    for (Value in : op.getOperands())
      operands.push_back(eval(in));
    std::map<std::string, uint64_t> regs;
    auto read = [&](llvm::StringRef s) -> uint64_t {
      s = s.trim();
      if (s.consume_front("$"))
        return operands[std::stoul(s.str())];
      if (s.starts_with("%")) {
        EXPECT_TRUE(regs.count(s.str())) << "read before write: " << s.str();
        return regs[s.str()];
      }
      uint64_t v = 0;
      EXPECT_FALSE(s.getAsInteger(0, v)) << "operand " << s.str();
      return v;
    };
    auto write = [&](llvm::StringRef s, uint64_t v) {
      s = s.trim();
      if (s.consume_front("$"))
        operands[std::stoul(s.str())] = v;
      else
        regs[s.str()] = v;
    };
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(op.getAsmString()).split(lines, ';');
    for (llvm::StringRef line : lines) {
      line = line.trim(" \t\n{}");
      if (line.empty() || line.starts_with(".reg"))
        continue;
      auto [opcode, rest] = line.split(' ');
      llvm::SmallVector<llvm::StringRef> args;
      if (opcode == "mov.b64") { // mov.b64 {lo, hi}, wide;
        auto [pair, wide] = rest.rsplit(',');
        auto [lo, hi] = pair.trim(" {}").split(',');
        uint64_t w = read(wide);
        write(lo, uint32_t(w));
        write(hi, w >> 32);
        continue;
      }
      rest.split(args, ',');
      if (opcode == "mul.wide.u32") {
        write(args[0], uint64_t(uint32_t(read(args[1]))) * uint32_t(read(args[2])));
      } else if (opcode == "xor.b32") {
        write(args[0], uint32_t(read(args[1]) ^ read(args[2])));
      } else if (opcode == "lop3.b32") {
        uint32_t a = read(args[1]), b = read(args[2]), c = read(args[3]);
        uint32_t lut = read(args[4]), out = 0;
        for (int bit = 0; bit < 32; ++bit) {
          int index = (a >> bit & 1) << 2 | (b >> bit & 1) << 1 | (c >> bit & 1);
          out |= (lut >> index & 1) << bit;
        }
        write(args[0], out);
      } else if (opcode == "mov.b32") {
        write(args[0], uint32_t(read(args[1])));
      } else {
        ADD_FAILURE() << "unexpected PTX: " << line.str();
      }
    }
    operands.resize(outputs);
    asmResults[op.getOperation()] = operands;
    return operands;
  }

private:
  std::map<const void *, uint64_t> known;
  std::map<Operation *, std::vector<uint64_t>> asmResults;
};

class PhiloxAsmTest : public ::testing::Test {
protected:
  PhiloxAsmTest() {
    DialectRegistry registry;
    ::kite::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Lowers `op` ("randint" or "randn") of a constant seed and offset and
  /// returns the words the Philox block produces (1 or 2), and the number
  /// of multiplies in it.
  std::pair<std::vector<uint64_t>, int> lowered(const std::string &op,
                                                int64_t seed, int seedBits,
                                                int64_t offset, int offsetBits) {
    std::string st = "i" + std::to_string(seedBits);
    std::string ot = "i" + std::to_string(offsetBits);
    std::string result = op == "randint" ? "i32" : "f32";
    std::string source =
        "func.func @k(%p: !kite.ptr<" + result + ">) attributes {kite.kernel} {\n"
        "  %seed = arith.constant " + std::to_string(seed) + " : " + st + "\n"
        "  %off = arith.constant " + std::to_string(offset) + " : " + ot + "\n"
        "  %w = kite." + op + " %seed, %off : " + st + ", " + ot + " -> " +
        result + "\n"
        "  kite.store %p, %w : !kite.ptr<" + result + ">\n"
        "  return\n}\n";
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    if (!module)
      return {};
    PassManager pm(&context);
    pm.addPass(mlir::kite::createConvertKiteToGPU());
    EXPECT_TRUE(succeeded(pm.run(*module)));
    LLVM::InlineAsmOp block;
    module->walk([&](LLVM::InlineAsmOp a) {
      if (a.getAsmString().contains("%kx")) {
        EXPECT_FALSE(block) << "one Philox block for one scalar offset";
        block = a;
      }
    });
    EXPECT_TRUE(block);
    if (!block)
      return {};
    Evaluator e;
    int multiplies = 0;
    llvm::StringRef text = block.getAsmString();
    for (size_t at = text.find("mul.wide"); at != llvm::StringRef::npos;
         at = text.find("mul.wide", at + 1))
      ++multiplies;
    return {e.runAsm(block), multiplies};
  }

  MLIRContext context;
};

TEST(PhiloxReference, Random123KnownAnswers) {
  EXPECT_EQ(philoxReference({0, 0, 0, 0}, 0, 0),
            (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philoxReference({~0u, ~0u, ~0u, ~0u}, ~0u, ~0u),
            (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philoxReference({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                            0xa4093822, 0x299f31d0),
            (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// Triton 3.6.0's tl.randint words for i32 seeds and offsets (random.md).
TEST_F(PhiloxAsmTest, TritonKnownAnswers) {
  struct Row {
    int32_t seed;
    uint32_t words[3];
  } rows[] = {{0, {0x6627e8d5, 0xf8e4cca4, 0xed8385b7}},
              {42, {0x9ceaf053, 0xfcdb2127, 0x090f01d4}},
              {123, {0x11237cdc, 0xa3c0144e, 0x2f9196b0}},
              {-1, {0x72a47709, 0x19fed511, 0x0c2d0cf3}},
              {512, {0x38c86f57, 0x13f010b0, 0xa9631b93}}};
  int64_t offsets[] = {0, 1, 1024};
  for (const Row &row : rows)
    for (int i = 0; i < 3; ++i) {
      auto [words, multiplies] = lowered("randint", row.seed, 32, offsets[i], 32);
      ASSERT_EQ(words.size(), 1u);
      EXPECT_EQ(words[0], row.words[i]) << "seed " << row.seed << " offset "
                                        << offsets[i];
      // i32 offsets: one multiply in round 1 is seed-only (outside the
      // block), and of round 10 only the one feeding word 0 is kept.
      EXPECT_EQ(multiplies, 17);
    }
  // The i64 seed 0xffffffff (key (0xffffffff, 0)) with i64 offsets.
  uint32_t expect[] = {0xf60ba7e1, 0x87c8813c, 0x2bddf193};
  for (int i = 0; i < 3; ++i) {
    auto [words, multiplies] = lowered("randint", 0xffffffffLL, 64, offsets[i], 64);
    ASSERT_EQ(words.size(), 1u);
    EXPECT_EQ(words[0], expect[i]) << "offset " << offsets[i];
    EXPECT_EQ(multiplies, 18);
  }
}

// Other seeds and offsets, including offsets with a high word, against the
// reference; randn's block yields words 0 and 1.
TEST_F(PhiloxAsmTest, AgreesWithTheReference) {
  int64_t seeds[] = {7, -123456789, 0x7fffffff};
  int64_t offsets[] = {3, 0x7ffffffe, -5, 0x123456789abLL};
  for (int64_t seed : seeds)
    for (int64_t offset : offsets)
      for (int seedBits : {32, 64})
        for (int offsetBits : {32, 64}) {
          if (offsetBits == 32 && int32_t(offset) != offset)
            continue;
          uint64_t key = uint64_t(seedBits == 32 ? int64_t(int32_t(seed)) : seed);
          uint64_t counter = uint64_t(offset);
          std::array<uint32_t, 4> c = {uint32_t(counter),
                                       offsetBits == 64 ? uint32_t(counter >> 32) : 0,
                                       0, 0};
          auto want = philoxReference(c, uint32_t(key), uint32_t(key >> 32));
          std::string where = "seed " + std::to_string(seed) + "/i" +
                              std::to_string(seedBits) + " offset " +
                              std::to_string(offset) + "/i" +
                              std::to_string(offsetBits);
          auto [words, m1] = lowered("randint", seed, seedBits, offset, offsetBits);
          ASSERT_EQ(words.size(), 1u) << where;
          EXPECT_EQ(words[0], want[0]) << where;
          auto [pair, m2] = lowered("randn", seed, seedBits, offset, offsetBits);
          ASSERT_EQ(pair.size(), 2u) << where;
          EXPECT_EQ(pair[0], want[0]) << where;
          EXPECT_EQ(pair[1], want[1]) << where;
        }
}

} // namespace
