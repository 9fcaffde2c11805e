//===- LaunchTypingTest.cpp - Kernels typed at launch (CI, no GPU) ---------===//
//
// Triton-style kernels with unannotated parameters, compiled by the runtime
// per signature from the launch's arguments (docs/runtime.md, "Kernels
// typed at launch"), run in the interpreter: two signatures of one kernel
// kept apart, None arguments, bools, a string constexpr, the errors.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace kite;

namespace {

// In the style of library code: untyped pointers and scalars, an optional
// weight (None), a flag and a string constexpr.
const char *kSource = R"(
import triton
import triton.language as tl


@triton.jit
def _scale_rows(Y_ptr, X_ptr, W_ptr, n_cols, alpha, add_one,
                mode: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(X_ptr + row * n_cols + offs, mask=mask, other=0.0)
    y = x * alpha
    if W_ptr is not None:
        y = y * tl.load(W_ptr + offs, mask=mask, other=0.0)
    if add_one:
        y = y + 1
    if mode == "square":
        y = y * y
    tl.store(Y_ptr + row * n_cols + offs, y, mask=mask)
)";

CompileOptions options(const char *mode = "'plain'") {
  CompileOptions o;
  o.defines["mode"] = mode;
  o.constants["BLOCK_SIZE"] = 64;
  return o;
}

template <typename T> std::vector<T> iota(size_t n, T scale) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = T(i) * scale;
  return v;
}

TEST(LaunchTyping, TwoSignaturesOfOneKernel) {
  auto k = compileKite(kSource, options(), "scale.py");
  ASSERT_TRUE(k) << k.error().str();
  ASSERT_EQ(k->name(), "_scale_rows");
  // The parameters launches pass, untyped until a launch types them.
  ASSERT_EQ(k->params().size(), 6u);
  EXPECT_EQ(k->params()[0].name, "Y_ptr");
  EXPECT_EQ(k->params()[0].type, ScalarType::Any);
  const int rows = 3, cols = 50;
  for (int round = 0; round < 2; ++round) {
    // f32 buffers, an f32 alpha, an i32 n.
    auto x = iota<float>(rows * cols, 0.5f);
    std::vector<float> y(rows * cols, NAN);
    auto ok = k->interpret(rows, {y, x, Arg::none(), int32_t(cols), 2.0f,
                                  false});
    ASSERT_TRUE(ok) << ok.error().str();
    for (int i = 0; i < rows * cols; ++i)
      ASSERT_EQ(y[i], x[i] * 2.0f) << i;
    // f64 buffers and alpha, an i64 n: another kernel (f64 data read as
    // f32 would give other values).
    auto xd = iota<double>(rows * cols, 0.25);
    std::vector<double> yd(rows * cols, NAN);
    ok = k->interpret(rows, {yd, xd, Arg::none(), int64_t(cols), 3.0, false});
    ASSERT_TRUE(ok) << ok.error().str();
    for (int i = 0; i < rows * cols; ++i)
      ASSERT_EQ(yd[i], xd[i] * 3.0) << i;
  }
}

TEST(LaunchTyping, NoneAndBoolArguments) {
  auto k = compileKite(kSource, options(), "scale.py").value();
  const int cols = 40;
  auto x = iota<float>(cols, 1.0f);
  auto w = iota<float>(cols, 0.5f);
  std::vector<float> y(cols, NAN);
  // A weight and add_one = true.
  auto ok = k.interpret(1, {y, x, w, int32_t(cols), 1.0f, true});
  ASSERT_TRUE(ok) << ok.error().str();
  for (int i = 0; i < cols; ++i)
    ASSERT_EQ(y[i], x[i] * w[i] + 1) << i;
  // None for the weight: the kernel does not read it.
  ok = k.interpret(1, {y, x, Arg::none(), int32_t(cols), 1.0f, true});
  ASSERT_TRUE(ok) << ok.error().str();
  for (int i = 0; i < cols; ++i)
    ASSERT_EQ(y[i], x[i] + 1) << i;
}

TEST(LaunchTyping, StringConstexpr) {
  auto k = compileKite(kSource, options("'square'"), "scale.py").value();
  const int cols = 10;
  auto x = iota<float>(cols, 1.0f);
  std::vector<float> y(cols, NAN);
  auto ok = k.interpret(1, {y, x, Arg::none(), int32_t(cols), 2.0f, false});
  ASSERT_TRUE(ok) << ok.error().str();
  for (int i = 0; i < cols; ++i)
    ASSERT_EQ(y[i], 4 * x[i] * x[i]) << i;
}

TEST(LaunchTyping, Errors) {
  auto k = compileKite(kSource, options(), "scale.py").value();
  std::vector<float> x(8), y(8);
  // A raw pointer cannot type a parameter.
  auto ok = k.interpret(1, {y, Arg::hostBytes(x.data(), 32), Arg::none(),
                            int32_t(8), 1.0f, false});
  ASSERT_FALSE(ok);
  EXPECT_EQ(ok.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(ok.error().message().find("argument 1 ('X_ptr')"),
            std::string::npos)
      << ok.error().message();
  EXPECT_NE(ok.error().message().find("untyped pointer"), std::string::npos);
  // Too few arguments.
  ok = k.interpret(1, {y, x});
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().message().find("takes 6 argument(s), got 2"),
            std::string::npos)
      << ok.error().message();
  // A scalar where the kernel adds offsets to a pointer: the signature's
  // kernel does not compile, and says where.
  ok = k.interpret(1, {y, 1.0f, Arg::none(), int32_t(8), 1.0f, false});
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().message().find("scale.py:"), std::string::npos)
      << ok.error().message();
  // PTX exists per signature.
  auto ptx = k.ptx();
  ASSERT_FALSE(ptx);
  EXPECT_NE(ptx.error().message().find("typed at launch"), std::string::npos);
}

TEST(LaunchTyping, SignatureInTheOptions) {
  // Typed by the options, the kernel is an ordinary one: PTX without a
  // launch, and each signature its own cache key.
  CompileOptions o = options();
  o.chip = "sm_90";
  o.defines["W_ptr"] = "None";
  o.signature = {{"Y_ptr", "*fp32"}, {"X_ptr", "*fp32"},
                 {"n_cols", "i32"},  {"alpha", "fp32"},
                 {"add_one", "i32"}};
  auto f32 = compileKite(kSource, o, "scale.py");
  ASSERT_TRUE(f32) << f32.error().str();
  EXPECT_EQ(f32->params().size(), 5u);
  EXPECT_EQ(f32->params()[0].type, ScalarType::F32);
  EXPECT_TRUE(f32->params()[0].pointer);
  auto ptx = f32->ptx();
  ASSERT_TRUE(ptx) << ptx.error().str();
  EXPECT_NE(ptx->find(".entry _scale_rows"), std::string::npos);
  o.signature["Y_ptr"] = "*bf16";
  o.signature["X_ptr"] = "*bf16";
  auto bf16 = compileKite(kSource, o, "scale.py").value();
  EXPECT_NE(f32->cacheKey(), bf16.cacheKey());
  EXPECT_EQ(bf16.params()[0].type, ScalarType::BF16);
  // A type the signature cannot name.
  o.signature["X_ptr"] = "*float7";
  auto bad = compileKite(kSource, o, "scale.py");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("signature type '*float7'"),
            std::string::npos)
      << bad.error().message();
}

} // namespace

// Host tensor descriptors for unannotated parameters (Triton passes
// TensorDescriptor objects to `desc` parameters): typed at launch by their
// element type and block shape, tensordesc<f32[8, 16]>; another block
// shape is another kernel.
TEST(LaunchTyping, TensorDescriptorArguments) {
  const char *source = R"(
import triton
import triton.language as tl

@triton.jit
def copy_tiles(src_desc, dst_desc, scale, BM: tl.constexpr, BN: tl.constexpr):
    x = src_desc.load([tl.program_id(0) * BM, tl.program_id(1) * BN])
    dst_desc.store([tl.program_id(0) * BM, tl.program_id(1) * BN], x * scale)
)";
  const int M = 37, N = 53, ld = 56;
  std::vector<float> src(size_t(M) * ld), dst(size_t(M) * ld, -7.f);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = float(i % 97) - 40.f;
  for (auto [bm, bn] : {std::pair<int, int>{8, 16}, {16, 32}}) {
    CompileOptions o;
    o.constants = {{"BM", bm}, {"BN", bn}};
    auto k = compileKite(source, o, "copy.py");
    ASSERT_TRUE(k) << k.error().str();
    auto s = TensorDescriptor::create(Arg::host(src.data(), src.size()),
                                      {M, N}, {ld, 1}, {bm, bn});
    auto d = TensorDescriptor::create(Arg::host(dst.data(), dst.size()),
                                      {M, N}, {ld, 1}, {bm, bn});
    ASSERT_TRUE(s && d);
    std::fill(dst.begin(), dst.end(), -7.f);
    auto ran = k->interpret(Grid((M + bm - 1) / bm, (N + bn - 1) / bn),
                            {*s, *d, 2.0f});
    ASSERT_TRUE(ran) << ran.error().str();
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < ld; ++j) {
        size_t at = size_t(i) * ld + j;
        ASSERT_EQ(dst[at], j < N ? src[at] * 2.f : -7.f)
            << bm << "x" << bn << " (" << i << ", " << j << ")";
      }
  }
  // A descriptor where the kernel wants a number: the signature's kernel
  // does not compile, and says where.
  CompileOptions o;
  o.constants = {{"BM", 8}, {"BN", 16}};
  auto k = compileKite(source, o, "copy.py").value();
  auto s = TensorDescriptor::create(Arg::host(src.data(), src.size()), {M, N},
                                    {ld, 1}, {8, 16})
               .value();
  auto ran = k.interpret(Grid(5, 4), {s, s, s});
  ASSERT_FALSE(ran);
  EXPECT_NE(ran.error().message().find("copy.py:"), std::string::npos)
      << ran.error().message();
}

// @triton.heuristics: the lambdas read the launch's arguments (numbers,
// None or not, constexprs, earlier heuristics) and give constexprs, one
// typed kernel per value, as Triton's launcher evaluates them.
TEST(LaunchTyping, HeuristicsEvaluatedAtLaunch) {
  const char *source = R"(
import triton
import triton.language as tl

@triton.heuristics({
    "BLOCK_SIZE": lambda args: triton.next_power_of_2(args["n_cols"]),
    "EVEN": lambda args: args["n_cols"] % args["BLOCK_SIZE"] == 0,
    "HAS_W": lambda args: args["W"] is not None,
})
@triton.jit
def scale(Y, X, W, n_cols, alpha, BLOCK_SIZE: tl.constexpr, EVEN: tl.constexpr,
          HAS_W: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    if EVEN:
        x = tl.load(X + row * n_cols + offs)
    else:
        x = tl.load(X + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    if HAS_W:
        x = x * tl.load(W + offs, mask=offs < n_cols, other=0.0)
    tl.store(Y + row * n_cols + offs, x * alpha, mask=offs < n_cols)
)";
  auto k = compileKite(source, CompileOptions{}, "scale.py");
  ASSERT_TRUE(k) << k.error().str();
  // The launch passes the runtime parameters only.
  ASSERT_EQ(k->params().size(), 5u);
  const int rows = 3;
  for (int cols : {50, 64, 100, 7}) {
    for (bool withW : {false, true}) {
      auto x = iota<float>(rows * cols, 0.5f);
      auto w = iota<float>(cols, 0.25f);
      std::vector<float> y(rows * cols, NAN);
      Arg wArg = withW ? Arg(w) : Arg::none();
      auto ok = k->interpret(rows, {y, x, wArg, int32_t(cols), 3.0f});
      ASSERT_TRUE(ok) << cols << ": " << ok.error().str();
      for (int i = 0; i < rows * cols; ++i)
        ASSERT_EQ(y[i], x[i] * (withW ? w[i % cols] : 1.0f) * 3.0f)
            << cols << " " << withW << " " << i;
    }
  }
  // A value the host gives wins over the heuristic.
  CompileOptions o;
  o.constants = {{"BLOCK_SIZE", 128}};
  auto fixed = compileKite(source, o, "scale.py").value();
  auto x = iota<float>(100, 1.0f);
  std::vector<float> y(100, NAN);
  ASSERT_TRUE(fixed.interpret(1, {y, x, Arg::none(), int32_t(100), 1.0f}));
  EXPECT_EQ(y[99], 99.0f);
}

TEST(LaunchTyping, HeuristicsThatCannotBeEvaluated) {
  const char *source = R"(
import triton
import triton.language as tl

@triton.heuristics({"BLOCK": lambda args: args["X"].numel()})
@triton.jit
def k1(X, n, BLOCK: tl.constexpr):
    tl.store(X + tl.arange(0, BLOCK), 1.0)

@triton.heuristics({"BLOCK": lambda args: args["n"] // args["missing"]})
@triton.jit
def k2(X, n, BLOCK: tl.constexpr):
    tl.store(X + tl.arange(0, BLOCK), 1.0)
)";
  std::vector<float> x(16);
  for (const char *name : {"k1", "k2"}) {
    CompileOptions o;
    o.kernel = name;
    auto k = compileKite(source, o, "h.py");
    ASSERT_TRUE(k) << k.error().str();
    auto ran = k->interpret(1, {x, int32_t(16)});
    ASSERT_FALSE(ran) << name;
    EXPECT_EQ(ran.error().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(ran.error().message().find("@triton.heuristics' BLOCK"),
              std::string::npos)
        << ran.error().message();
    EXPECT_NE(ran.error().message().find(
                  std::string(name) == "k1" ? "does not evaluate"
                                            : "args['missing']"),
              std::string::npos)
        << ran.error().message();
  }
}

// Heuristics that read an @autotune configuration's constexprs (Triton's
// matmul: EVEN_K from BLOCK_K): evaluated per configuration, as Triton runs
// the heuristics after the tuner's choice.
TEST(LaunchTyping, HeuristicsOverAutotuneConfigs) {
  const char *source = R"(
import triton
import triton.language as tl

@triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 16})],
                 key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def total(X, Out, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        if EVEN:
            acc += tl.load(X + offs)
        else:
            acc += tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Out, tl.sum(acc, 0))
)";
  auto k = compileKite(source, CompileOptions{}, "total.py");
  ASSERT_TRUE(k) << k.error().str();
  for (int n : {48, 64, 40}) {
    auto x = iota<float>(n, 1.0f);
    std::vector<float> out(1, NAN);
    // As written the kernel runs its first configuration (BLOCK 32): at
    // n = 48 EVEN must be false there (an unmasked last block would read
    // past x, which the interpreter reports).
    auto ok = k->interpret(1, {x, out, int32_t(n)});
    ASSERT_TRUE(ok) << n << ": " << ok.error().str();
    EXPECT_EQ(out[0], float(n) * (n - 1) / 2) << n;
    // Each configuration carries its own value.
    const std::vector<TuningConfig> &configs = k->configs();
    ASSERT_EQ(configs.size(), 2u);
    EXPECT_EQ(configs[0].constants.at("EVEN"), n % 32 == 0 ? 1.0 : 0.0) << n;
    EXPECT_EQ(configs[1].constants.at("EVEN"), n % 16 == 0 ? 1.0 : 0.0) << n;
  }
  EXPECT_EQ(k->autotuneKey(), std::vector<std::string>{"n"});
}

// Host arithmetic as Python's where 64 bits allow, an error where they do
// not (never a wrapped value).
TEST(LaunchTyping, HeuristicsArithmetic) {
  auto run = [](const std::string &lambda, int32_t n) {
    std::string source = R"(
import triton
import triton.language as tl

@triton.heuristics({"V": lambda args: )" + lambda + R"(})
@triton.jit
def k(X, n, V: tl.constexpr):
    tl.store(X, V)
)";
    auto k = compileKite(source, CompileOptions{}, "h.py").value();
    std::vector<float> x(1, NAN);
    auto ok = k.interpret(1, {x, n});
    return ok ? std::to_string(x[0]) : ok.error().message();
  };
  EXPECT_EQ(run("args['n'] // 4", -7), std::to_string(-2.0f)); // floors
  EXPECT_EQ(run("args['n'] % 4", -7), std::to_string(1.0f));
  EXPECT_EQ(run("args['n'] / 4", -7), std::to_string(-1.75f));
  EXPECT_EQ(run("triton.cdiv(args['n'], 4)", 9), std::to_string(3.0f));
  EXPECT_EQ(run("max(args['n'], 16) if args['n'] > 0 else 1", 5),
            std::to_string(16.0f));
  EXPECT_EQ(run("abs(args['n'])", -5), std::to_string(5.0f));
  EXPECT_NE(run("args['n'] * 4611686018427387904 * 4", 3).find("overflows"),
            std::string::npos);
  EXPECT_NE(run("args['n'] // 0", 3).find("divides by zero"),
            std::string::npos);
}
