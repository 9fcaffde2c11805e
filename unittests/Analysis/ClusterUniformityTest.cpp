//===- ClusterUniformityTest.cpp - Values alike in a cluster's programs ---===//
//
// Each claim of ClusterUniformity is checked against the programs of a
// cluster: a small evaluator runs the kernel's scalar ops for every program
// id of several clusters (with random kernel parameters) and a value the
// analysis calls uniform must be the same in all programs of each cluster.
// The test also pins the rules that matter for multicast: program_id // 2
// is uniform in clusters of 2 along x, program_id % 2 is not, a loop over
// uniform bounds has a uniform index, and control under a non-uniform
// branch is not uniform.
//
//===----------------------------------------------------------------------===//

#include "kite/Analysis/ClusterUniformity.h"
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

class ClusterUniformityTest : public ::testing::Test {
protected:
  ClusterUniformityTest() {
    DialectRegistry registry;
    ::kite::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(const std::string &body) {
    std::string text =
        "func.func @k(%n: i32, %m: i32) attributes {kite.kernel, "
        "kite.cluster_dims = array<i32: 2, 1, 1>} {\n" +
        body + "  return\n}\n";
    return parseSourceString<ModuleOp>(text, &context);
  }

  /// The value named `name` (its result's name in the printed IR is not
  /// kept: the op carrying the discardable attribute {name = "..."}).
  static Value named(func::FuncOp f, StringRef name) {
    Value found;
    f.walk([&](Operation *op) {
      if (auto n = op->getAttrOfType<StringAttr>("name"))
        if (n.getValue() == name)
          found = op->getResult(0);
    });
    return found;
  }

  /// Evaluates the scalar i32 ops of the entry block for program `pid`.
  static std::optional<int64_t> eval(func::FuncOp f, Value target, int64_t pid,
                                     int64_t n, int64_t m) {
    llvm::DenseMap<Value, int64_t> v;
    v[f.getArgument(0)] = n;
    v[f.getArgument(1)] = m;
    for (Operation &op : f.getBody().front()) {
      auto in = [&](int i) { return v.lookup(op.getOperand(i)); };
      int64_t r;
      if (auto c = dyn_cast<arith::ConstantIntOp>(op))
        r = c.value();
      else if (isa<ProgramIdOp>(op))
        r = pid;
      else if (isa<arith::DivSIOp>(op))
        r = in(0) / in(1);
      else if (isa<arith::RemSIOp>(op))
        r = in(0) % in(1);
      else if (isa<arith::AddIOp>(op))
        r = in(0) + in(1);
      else if (isa<arith::MulIOp>(op))
        r = in(0) * in(1);
      else
        continue;
      v[op.getResult(0)] = r;
      if (op.getResult(0) == target)
        return r;
    }
    return std::nullopt;
  }

  MLIRContext context;
};

TEST_F(ClusterUniformityTest, ClaimsHoldInEveryCluster) {
  auto module = parse(R"(
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %c3 = arith.constant 3 : i32
  %pid = kite.program_id 0 {name = "pid"}
  %cl = arith.divsi %pid, %c2 {name = "cluster"} : i32
  %q = arith.divsi %pid, %c4 {name = "quad"} : i32
  %t = arith.divsi %pid, %c3 {name = "third"} : i32
  %r = arith.remsi %pid, %c2 {name = "rank"} : i32
  %a = arith.muli %cl, %n {name = "scaled"} : i32
  %b = arith.addi %a, %m {name = "shifted"} : i32
  %row = arith.muli %cl, %c2 : i32
  %mine = arith.addi %row, %r {name = "mine"} : i32
)");
  ASSERT_TRUE(module);
  auto f = *module->getOps<func::FuncOp>().begin();
  ClusterUniformity u(f, ClusterUniformity::clusterDimsOf(f));
  std::mt19937 rng(7);
  std::map<std::string, bool> expected = {
      {"pid", false},  {"cluster", true}, {"quad", true},    {"third", false},
      {"rank", false}, {"scaled", true},  {"shifted", true}, {"mine", false}};
  for (auto &[name, uniform] : expected) {
    Value v = named(f, name);
    ASSERT_TRUE(v) << name;
    EXPECT_EQ(u.isUniform(v), uniform) << name;
    if (!u.isUniform(v))
      continue;
    // A claim: the same value in both programs of each cluster.
    for (int trial = 0; trial < 20; ++trial) {
      int64_t n = int64_t(rng() % 1000), m = int64_t(rng() % 1000);
      for (int64_t c = 0; c < 40; ++c) {
        auto first = eval(f, v, 2 * c, n, m),
             second = eval(f, v, 2 * c + 1, n, m);
        ASSERT_TRUE(first && second) << name << " not evaluated";
        EXPECT_EQ(*first, *second) << name << " differs in cluster " << c;
      }
    }
  }
}

TEST_F(ClusterUniformityTest, LoopsAndBranches) {
  auto module = parse(R"(
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %pid = kite.program_id 0
  %cl = arith.divsi %pid, %c2 : i32
  %r = arith.remsi %pid, %c2 : i32
  scf.for %i = %cl to %n step %c2 : i32 {
    %x = arith.muli %i, %m {name = "uniformIndex"} : i32
    scf.for %j = %r to %n step %c1 : i32 {
      %y = arith.addi %j, %c1 {name = "rankIndex"} : i32
    }
  }
  %cond = arith.cmpi slt, %r, %c1 : i32
  scf.if %cond {
    %z = arith.addi %cl, %c1 {name = "underRank"} : i32
  }
  %ucond = arith.cmpi slt, %cl, %n : i32
  scf.if %ucond {
    %w = arith.addi %cl, %c1 {name = "underCluster"} : i32
  }
)");
  ASSERT_TRUE(module);
  auto f = *module->getOps<func::FuncOp>().begin();
  ClusterUniformity u(f, ClusterUniformity::clusterDimsOf(f));
  Value x = named(f, "uniformIndex"), y = named(f, "rankIndex"),
        z = named(f, "underRank"), w = named(f, "underCluster");
  ASSERT_TRUE(x && y && z && w);
  EXPECT_TRUE(u.isUniform(x));
  EXPECT_TRUE(u.uniformControl(x.getDefiningOp()));
  EXPECT_FALSE(u.isUniform(y));
  EXPECT_FALSE(u.uniformControl(y.getDefiningOp()));
  // The value is alike, the control that reaches it is not.
  EXPECT_TRUE(u.isUniform(z));
  EXPECT_FALSE(u.uniformControl(z.getDefiningOp()));
  EXPECT_TRUE(u.uniformControl(w.getDefiningOp()));
}

TEST_F(ClusterUniformityTest, WithoutClustersProgramIdIsAlike) {
  auto module = parseSourceString<ModuleOp>(R"(
func.func @k(%n: i32) attributes {kite.kernel} {
  %pid = kite.program_id 0 {name = "pid"}
  return
}
)",
                                            &context);
  ASSERT_TRUE(module);
  auto f = *module->getOps<func::FuncOp>().begin();
  auto dims = ClusterUniformity::clusterDimsOf(f);
  EXPECT_EQ(dims, (std::array<int32_t, 3>{1, 1, 1}));
  ClusterUniformity u(f, dims);
  EXPECT_TRUE(u.isUniform(named(f, "pid"))); // a cluster of one program
}

} // namespace
