//===- AxisInfoTest.cpp - AxisInfo facts checked against evaluated blocks -===//
//
// Every claim of the analysis (contiguous runs, divisible run starts,
// constant runs) is checked on the values the IR really computes: a small
// evaluator runs each kernel for many random scalar arguments that respect
// the arguments' kite.divisibility, and every integer or pointer value is
// compared with what the analysis says about it. One wrong claim is a
// misaligned vector access on the GPU.
//
//===----------------------------------------------------------------------===//

#include "kite/Analysis/AxisInfo.h"
#include "kite/Dialect/Kite/IR/KiteDialect.h"
#include "kite/Registration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir;
using namespace mlir::kite;

namespace {

using Values = std::vector<int64_t>; // row-major elements (scalars: one)

/// Evaluates the integer and pointer values of a straight-line kernel.
class Evaluator {
public:
  llvm::DenseMap<Value, Values> values;

  bool run(func::FuncOp f, const std::vector<int64_t> &args) {
    for (auto [arg, v] : llvm::zip(f.getArguments(), args))
      values[arg] = {v};
    for (Operation &op : f.getBody().front()) {
      if (isa<func::ReturnOp, StoreOp>(op))
        continue;
      if (!eval(&op)) {
        ADD_FAILURE() << "cannot evaluate " << op.getName().getStringRef().str();
        return false;
      }
    }
    return true;
  }

private:
  static int64_t count(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getNumElements() : 1;
  }
  const Values &of(Value v) { return values[v]; }
  int64_t at(Value v, int64_t i) {
    const Values &x = of(v);
    return x.size() == 1 ? x[0] : x[i];
  }

  bool eval(Operation *op) {
    Value r = op->getResult(0);
    int64_t n = count(r);
    Values out(n);
    APInt c;
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto attr = cst.getValue();
      if (auto i = dyn_cast<IntegerAttr>(attr))
        out.assign(n, i.getInt());
      else if (auto d = dyn_cast<DenseIntElementsAttr>(attr))
        out.assign(n, d.getSplatValue<APInt>().getSExtValue());
      else
        return false;
    } else if (auto a = dyn_cast<ArangeOp>(op)) {
      for (int64_t i = 0; i < n; ++i)
        out[i] = a.getStart() + i;
    } else if (isa<SplatOp>(op)) {
      out.assign(n, at(op->getOperand(0), 0));
    } else if (isa<ExpandDimsOp>(op)) {
      out = of(op->getOperand(0));
    } else if (auto b = dyn_cast<BroadcastOp>(op)) {
      ArrayRef<int64_t> from = b.getSrc().getType().getShape();
      ArrayRef<int64_t> to = b.getType().getShape();
      for (int64_t i = 0; i < n; ++i) {
        int64_t rest = i, src = 0, stride = 1;
        for (int d = int(to.size()) - 1; d >= 0; --d) {
          int64_t coord = rest % to[d];
          rest /= to[d];
          src += (from[d] == 1 ? 0 : coord) * stride;
          stride *= from[d];
        }
        out[i] = at(b.getSrc(), src);
      }
    } else if (auto p = dyn_cast<AddPtrOp>(op)) {
      auto ptr = cast<PointerType>(getElementTypeOrSelf(p.getType()));
      int64_t bytes = ptr.getPointeeType().getIntOrFloatBitWidth() / 8;
      for (int64_t i = 0; i < n; ++i)
        out[i] = at(p.getPtr(), i) + at(p.getOffset(), i) * bytes;
    } else if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::RemSIOp,
                   arith::DivSIOp, arith::ExtSIOp>(op)) {
      for (int64_t i = 0; i < n; ++i) {
        int64_t x = at(op->getOperand(0), i);
        int64_t y = op->getNumOperands() > 1 ? at(op->getOperand(1), i) : 0;
        if (isa<arith::AddIOp>(op)) out[i] = x + y;
        else if (isa<arith::SubIOp>(op)) out[i] = x - y;
        else if (isa<arith::MulIOp>(op)) out[i] = x * y;
        else if (isa<arith::RemSIOp>(op)) out[i] = x % y;
        else if (isa<arith::DivSIOp>(op)) out[i] = x / y;
        else out[i] = x;
      }
    } else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      using P = arith::CmpIPredicate;
      for (int64_t i = 0; i < n; ++i) {
        int64_t x = at(cmp.getLhs(), i), y = at(cmp.getRhs(), i);
        switch (cmp.getPredicate()) {
        case P::slt: out[i] = x < y; break;
        case P::sle: out[i] = x <= y; break;
        case P::sgt: out[i] = x > y; break;
        case P::sge: out[i] = x >= y; break;
        case P::eq: out[i] = x == y; break;
        case P::ne: out[i] = x != y; break;
        default: return false;
        }
      }
    } else if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      for (int64_t i = 0; i < n; ++i)
        out[i] = at(sel.getCondition(), i) ? at(sel.getTrueValue(), i)
                                           : at(sel.getFalseValue(), i);
    } else {
      return false;
    }
    values[r] = std::move(out);
    return true;
  }
};

class AxisInfoTest : public ::testing::Test {
protected:
  AxisInfoTest() {
    DialectRegistry registry;
    ::kite::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `body` as kernel @k with `params`, evaluates it `trials` times
  /// with random arguments (multiples of 16 where the parameter says so; all
  /// positive, offsets taken modulo sizes are non-negative) and checks every
  /// value against the analysis. Returns the analysis of the last value.
  AxisInfo check(const std::string &params, const std::string &body,
                 int trials = 300) {
    std::string text = "func.func @k(" + params +
                       ") attributes {kite.kernel} {\n" + body + "\n return\n}";
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module) << text;
    if (!module)
      return {};
    auto f = *module->getOps<func::FuncOp>().begin();
    AxisInfoAnalysis analysis(f);
    std::mt19937_64 rng(7);
    for (int t = 0; t < trials; ++t) {
      std::vector<int64_t> args;
      for (unsigned i = 0; i < f.getNumArguments(); ++i) {
        auto div = f.getArgAttrOfType<IntegerAttr>(
            i, KiteDialect::getDivisibilityAttrName());
        int64_t v = int64_t(rng() % 5000) + 1;
        if (isa<PointerType>(f.getArgument(i).getType()))
          v = (v + 1000) * 4; // element aligned
        if (div)
          v = (v / 16 + 1) * 16;
        else if (t % 3 == 0)
          v = v | 1; // odd sizes and strides often
        args.push_back(v);
      }
      Evaluator e;
      if (!e.run(f, args))
        return {};
      for (auto &[value, elems] : e.values) {
        if (isa<BlockArgument>(value))
          continue;
        AxisInfo info = analysis.get(value);
        int64_t unit = 1;
        if (auto ptr = dyn_cast<PointerType>(getElementTypeOrSelf(value.getType())))
          unit = ptr.getPointeeType().getIntOrFloatBitWidth() / 8;
        std::string where;
        llvm::raw_string_ostream os(where);
        value.print(os);
        for (size_t s = 0; s < elems.size(); s += info.contiguity) {
          if (elems[s] % info.divisibility != 0) {
            ADD_FAILURE() << where << ": run start " << s << " = " << elems[s]
                          << " not divisible by " << info.divisibility;
            return {};
          }
          for (int64_t j = 1; j < info.contiguity && s + j < elems.size(); ++j)
            if (elems[s + j] != elems[s] + j * unit) {
              ADD_FAILURE() << where << ": not contiguous at " << s + j;
              return {};
            }
        }
        for (size_t s = 0; s < elems.size(); s += info.constancy)
          for (int64_t j = 1; j < info.constancy && s + j < elems.size(); ++j)
            if (elems[s + j] != elems[s]) {
              ADD_FAILURE() << where << ": not constant at " << s + j;
              return {};
            }
      }
    }
    Operation *last = &*std::prev(f.getBody().front().end(), 1);
    while (last->getNumResults() == 0)
      last = last->getPrevNode();
    return analysis.get(last->getResult(0));
  }
  MLIRContext context;
};

/// C pointers of a tutorial-style tile: c + (pid*128 + rows)[:, None] *
/// scm + arange(64)[None, :] (parameters %c, %pid, %scm).
static const char *kRowMajorTile = R"(
  %c128 = arith.constant 128 : i32
  %base = arith.muli %pid, %c128 : i32
  %r = kite.arange 0, 128 : tensor<128xi32>
  %bs = kite.splat %base : i32 -> tensor<128xi32>
  %offs = arith.addi %bs, %r : tensor<128xi32>
  %col = kite.expand_dims %offs axis 1 : tensor<128xi32> -> tensor<128x1xi32>
  %s = kite.splat %scm : i32 -> tensor<128x1xi32>
  %rows = arith.muli %s, %col : tensor<128x1xi32>
  %rb = kite.broadcast %rows : tensor<128x1xi32> -> tensor<128x64xi32>
  %r64 = kite.arange 0, 64 : tensor<64xi32>
  %cn = kite.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = kite.broadcast %cn : tensor<1x64xi32> -> tensor<128x64xi32>
  %o = arith.addi %rb, %cb : tensor<128x64xi32>
  %cs = kite.splat %c : !kite.ptr<f32> -> tensor<128x64x!kite.ptr<f32>>
  %p = kite.addptr %cs, %o : tensor<128x64x!kite.ptr<f32>>, tensor<128x64xi32>)";

// The tutorial matmul's output pointers with an odd row stride (the shape
// 4097x33x129 of the GPU suite): rows are contiguous along N but start at
// arbitrary addresses, so only 4-byte alignment is known.
TEST_F(AxisInfoTest, RowStrideTimesContiguousRows) {
  AxisInfo info = check(
      "%c: !kite.ptr<f32> {kite.divisibility = 16 : i32}, %pid: i32, %scm: i32",
      kRowMajorTile);
  EXPECT_EQ(info.contiguity, 64);
  EXPECT_EQ(info.divisibility, 4);
}

// The same with a row stride divisible by 16: 16-byte aligned rows.
TEST_F(AxisInfoTest, AlignedRowStride) {
  AxisInfo info = check(
      "%c: !kite.ptr<f32> {kite.divisibility = 16 : i32}, %pid: i32, "
      "%scm: i32 {kite.divisibility = 16 : i32}",
      kRowMajorTile);
  EXPECT_EQ(info.contiguity, 64);
  EXPECT_EQ(info.divisibility, 16); // the base pointer's
}

// Offsets modulo a size: contiguous runs survive when the size is divisible
// by 16, and are broken when it is odd.
// A select takes what both choices hold; runs of the choices' gcd start
// inside the longer side's runs, so that side's divisibility shrinks to
// what the shorter runs' starts have (here a 64-aligned run and pairs of a
// 16-aligned base: starts every 2 elements, divisible by 2 only). A block
// condition cuts runs to its own constant runs.
TEST_F(AxisInfoTest, SelectJoinsBothChoices) {
  std::string choices = R"(
  %c64 = arith.constant 64 : i32
  %base = arith.muli %pid, %c64 : i32
  %r = kite.arange 0, 64 : tensor<64xi32>
  %bs = kite.splat %base : i32 -> tensor<64xi32>
  %a = arith.addi %bs, %r : tensor<64xi32>
  %c2 = arith.constant dense<2> : tensor<64xi32>
  %pairs = arith.remsi %r, %c2 : tensor<64xi32>
  %xs = kite.splat %x : i32 -> tensor<64xi32>
  %b = arith.addi %xs, %pairs : tensor<64xi32>)";
  const char *params =
      "%pid: i32, %x: i32 {kite.divisibility = 16 : i32}, %n: i32";
  AxisInfo scalar = check(params, std::string(choices) + R"(
  %cond = arith.cmpi slt, %pid, %n : i32
  %s = arith.select %cond, %a, %b : tensor<64xi32>)");
  EXPECT_EQ(scalar.contiguity, 2);
  EXPECT_EQ(scalar.divisibility, 2);
  // Between a contiguous run and a splat of a multiple of 16: single
  // elements, whose values only the constant side's starts bound (a's
  // elements past its run start are not multiples of anything).
  AxisInfo constant = check(params, std::string(choices) + R"(
  %cond = arith.cmpi slt, %pid, %n : i32
  %s = arith.select %cond, %a, %xs : tensor<64xi32>)");
  EXPECT_EQ(constant.contiguity, 1);
  EXPECT_EQ(constant.divisibility, 1);
  // A block condition constant over the block (a splat against a splat)
  // keeps whole runs of one choice; one that changes every element (even or
  // odd places) between two contiguous choices keeps none.
  AxisInfo whole = check(params, std::string(choices) + R"(
  %ns = kite.splat %n : i32 -> tensor<64xi32>
  %cond = arith.cmpi slt, %bs, %ns : tensor<64xi32>
  %a2 = arith.addi %a, %bs : tensor<64xi32>
  %s = arith.select %cond, %a, %a2 : tensor<64xi1>, tensor<64xi32>)");
  EXPECT_EQ(whole.contiguity, 64);
  AxisInfo each = check(params, std::string(choices) + R"(
  %c0 = arith.constant dense<0> : tensor<64xi32>
  %even = arith.cmpi eq, %pairs, %c0 : tensor<64xi32>
  %a2 = arith.addi %a, %bs : tensor<64xi32>
  %s = arith.select %even, %a, %a2 : tensor<64xi1>, tensor<64xi32>)");
  EXPECT_EQ(each.contiguity, 1);
}

TEST_F(AxisInfoTest, RemainderBySize) {
  std::string body = R"(
  %c64 = arith.constant 64 : i32
  %base = arith.muli %pid, %c64 : i32
  %r = kite.arange 0, 64 : tensor<64xi32>
  %bs = kite.splat %base : i32 -> tensor<64xi32>
  %offs = arith.addi %bs, %r : tensor<64xi32>
  %ns = kite.splat %n : i32 -> tensor<64xi32>
  %m = arith.remsi %offs, %ns : tensor<64xi32>)";
  AxisInfo aligned = check("%pid: i32, %n: i32 {kite.divisibility = 16 : i32}", body);
  EXPECT_EQ(aligned.contiguity, 16);
  EXPECT_EQ(aligned.divisibility, 16);
  AxisInfo odd = check("%pid: i32, %n: i32", body);
  EXPECT_EQ(odd.contiguity, 1);
  EXPECT_EQ(odd.divisibility, 1);
}

// Sums and products of contiguous blocks: no run survives, and nothing is
// known to divide the elements.
TEST_F(AxisInfoTest, ContiguousTimesContiguous) {
  AxisInfo sum = check("%x: i32", R"(
  %r = kite.arange 0, 32 : tensor<32xi32>
  %s = arith.addi %r, %r : tensor<32xi32>)");
  EXPECT_EQ(sum.contiguity, 1);
  EXPECT_EQ(sum.divisibility, 1);
  AxisInfo product = check("%x: i32", R"(
  %r = kite.arange 0, 32 : tensor<32xi32>
  %c = arith.constant dense<8> : tensor<32xi32>
  %s = arith.muli %r, %c : tensor<32xi32>)");
  EXPECT_EQ(product.contiguity, 1);
  EXPECT_EQ(product.divisibility, 8);
}

// A loop-carried offset advanced by a multiple of 32 keeps that fact, so the
// pointer block formed from it inside the loop stays 16-byte aligned.
TEST_F(AxisInfoTest, LoopCarriedOffset) {
  const char *text = R"(
func.func @k(%a: !kite.ptr<f32> {kite.divisibility = 16 : i32}, %n: i32) attributes {kite.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0 : i64
  %step = arith.constant 32 : i64
  %r = kite.arange 0, 64 : tensor<64xi32>
  %as = kite.splat %a : !kite.ptr<f32> -> tensor<64x!kite.ptr<f32>>
  %p0 = kite.addptr %as, %r : tensor<64x!kite.ptr<f32>>, tensor<64xi32>
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%off = %z) -> (i64) : i32 {
    %os = kite.splat %off : i64 -> tensor<64xi64>
    %p = kite.addptr %p0, %os : tensor<64x!kite.ptr<f32>>, tensor<64xi64>
    %v = kite.load %p : tensor<64x!kite.ptr<f32>>
    kite.store %p, %v : tensor<64x!kite.ptr<f32>>
    %next = arith.addi %off, %step : i64
    scf.yield %next : i64
  }
  return
})";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  auto f = *module->getOps<func::FuncOp>().begin();
  AxisInfoAnalysis analysis(f);
  auto loop = *f.getBody().getOps<scf::ForOp>().begin();
  EXPECT_EQ(analysis.get(loop.getRegionIterArgs()[0]).divisibility, 32);
  EXPECT_EQ(analysis.get(loop.getResult(0)).divisibility, 32);
  LoadOp load = *loop.getBody()->getOps<LoadOp>().begin();
  AxisInfo p = analysis.get(load.getPtr());
  EXPECT_EQ(p.contiguity, 64);
  EXPECT_EQ(p.divisibility, 16);
  // Advanced by an odd amount instead: only element alignment is left.
  std::string odd = text;
  odd.replace(odd.find("%step = arith.constant 32"), 25, "%step = arith.constant 33");
  OwningOpRef<ModuleOp> oddModule = parseSourceString<ModuleOp>(odd, &context);
  ASSERT_TRUE(oddModule);
  auto g = *oddModule->getOps<func::FuncOp>().begin();
  AxisInfoAnalysis oddAnalysis(g);
  auto oddLoop = *g.getBody().getOps<scf::ForOp>().begin();
  LoadOp oddLoad = *oddLoop.getBody()->getOps<LoadOp>().begin();
  EXPECT_EQ(oddAnalysis.get(oddLoad.getPtr()).divisibility, 4);
}

// A loop over blocks (layer norm's `for off in range(0, N, BLOCK)`): the
// induction variable is a multiple of gcd(lower bound, step), so the block
// `off + arange(0, BLOCK)` stays aligned; a lower bound of 1 loses it.
TEST_F(AxisInfoTest, InductionVariableOfABlockLoop) {
  const char *text = R"(
func.func @k(%a: !kite.ptr<f16> {kite.divisibility = 16 : i32}, %n: i32) attributes {kite.kernel} {
  %lb = arith.constant 0 : i32
  %c1024 = arith.constant 1024 : i32
  scf.for %off = %lb to %n step %c1024 : i32 {
    %r = kite.arange 0, 1024 : tensor<1024xi32>
    %os = kite.splat %off : i32 -> tensor<1024xi32>
    %cols = arith.addi %os, %r : tensor<1024xi32>
    %as = kite.splat %a : !kite.ptr<f16> -> tensor<1024x!kite.ptr<f16>>
    %p = kite.addptr %as, %cols : tensor<1024x!kite.ptr<f16>>, tensor<1024xi32>
    %v = kite.load %p : tensor<1024x!kite.ptr<f16>>
    kite.store %p, %v : tensor<1024x!kite.ptr<f16>>
  }
  return
})";
  for (auto [lb, div, ptrDiv] :
       {std::tuple<int, int64_t, int64_t>{0, 1024, 16}, {1, 1, 2}}) {
    std::string src = text;
    if (lb)
      src.replace(src.find("%lb = arith.constant 0"), 22,
                  "%lb = arith.constant 1");
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(src, &context);
    ASSERT_TRUE(module);
    auto f = *module->getOps<func::FuncOp>().begin();
    AxisInfoAnalysis analysis(f);
    auto loop = *f.getBody().getOps<scf::ForOp>().begin();
    EXPECT_EQ(std::min<int64_t>(
                  analysis.get(loop.getInductionVar()).divisibility, 1024),
              div)
        << "lower bound " << lb;
    LoadOp load = *loop.getBody()->getOps<LoadOp>().begin();
    AxisInfo p = analysis.get(load.getPtr());
    EXPECT_EQ(p.contiguity, 1024);
    EXPECT_EQ(p.divisibility, ptrDiv) << "lower bound " << lb;
  }
}

} // namespace
