//===- HostDescriptorTest.cpp - Host-made tensor descriptors (no GPU) -----===//
//
// kite::TensorDescriptor: the rules create() checks (TMA's: alignment,
// strides, box sizes), how a launch matches a descriptor to its
// `tensor_descriptor(dtype, [block])` parameter, and a kernel taking
// descriptors run in the interpreter (blocks hanging over the edges: reads
// past them give zeros, writes past them are dropped).
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <vector>

using namespace kite;

namespace {

const char *kCopy = R"(
@kernel
def copy2d(src: tensor_descriptor(f32, [BM, BN]), dst: tensor_descriptor(f32, [BM, BN]),
           BM: constexpr = 8, BN: constexpr = 16):
    i = program_id(0) * BM
    j = program_id(1) * BN
    dst.store([i, j], src.load([i, j]) * 2.0 + 1.0)
)";

/// A fake 16-byte aligned device address (create() does not dereference).
Arg fakeF16(uint64_t address) {
  return Arg(reinterpret_cast<uint16_t *>(address));
}

std::string errorOf(const Expected<TensorDescriptor> &d) {
  return d ? std::string() : d.error().str();
}

} // namespace

TEST(HostDescriptor, CreateChecksTmaRules) {
  Arg base = fakeF16(0x10000);
  EXPECT_TRUE(TensorDescriptor::create(base, {100, 64}, {64, 1}, {64, 32}));
  // Each rule, named in the message.
  EXPECT_NE(errorOf(TensorDescriptor::create(fakeF16(0x10008), {100, 64},
                                             {64, 1}, {64, 32}))
                .find("base address must be a multiple of 16 bytes"),
            std::string::npos);
  EXPECT_NE(
      errorOf(TensorDescriptor::create(base, {100, 60}, {60, 1}, {64, 32}))
          .find("multiples of 16 bytes"),
      std::string::npos);
  EXPECT_NE(
      errorOf(TensorDescriptor::create(base, {100, 64}, {64, 2}, {64, 32}))
          .find("last stride must be 1"),
      std::string::npos);
  EXPECT_NE(
      errorOf(TensorDescriptor::create(base, {100, 64}, {64, 1}, {512, 32}))
          .find("powers of two up to 256"),
      std::string::npos);
  EXPECT_NE(
      errorOf(TensorDescriptor::create(base, {100, 64}, {64, 1}, {48, 32}))
          .find("powers of two up to 256"),
      std::string::npos);
  EXPECT_NE(errorOf(TensorDescriptor::create(base, {0, 64}, {64, 1}, {64, 32}))
                .find("sizes must be in [1, 2^31)"),
            std::string::npos);
  EXPECT_NE(errorOf(TensorDescriptor::create(base, {100, 64}, {1}, {64, 32}))
                .find("as many dimensions"),
            std::string::npos);
  EXPECT_NE(errorOf(TensorDescriptor::create(base, {}, {}, {}))
                .find("1 to 5 dimensions"),
            std::string::npos);
  EXPECT_NE(errorOf(TensorDescriptor::create(Arg::pointer(0x10000), {100, 64},
                                             {64, 1}, {64, 32}))
                .find("typed pointer"),
            std::string::npos);
  EXPECT_NE(errorOf(TensorDescriptor::create(Arg(int32_t(3)), {100, 64},
                                             {64, 1}, {64, 32}))
                .find("must be a pointer"),
            std::string::npos);
  auto bad = TensorDescriptor::create(base, {100, 60}, {60, 1}, {64, 32});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::InvalidArgument);
}

TEST(HostDescriptor, ParametersAndArguments) {
  auto k = compileKite(kCopy, CompileOptions{}, "copy2d.kite");
  ASSERT_TRUE(k) << k.error().str();
  // Each descriptor is its base, 2 sizes and 2 strides on the GPU.
  const auto &params = k->params();
  ASSERT_EQ(params.size(), 10u);
  EXPECT_EQ(params[0].name, "src");
  EXPECT_TRUE(params[0].pointer);
  EXPECT_EQ(params[0].descriptorBlock, (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(params[1].name, "src.shape0");
  EXPECT_EQ(params[4].name, "src.strides1");
  EXPECT_TRUE(params[4].descriptorBlock.empty());
  EXPECT_EQ(params[5].name, "dst");

  std::vector<float> a(64 * 16), b(64 * 16);
  auto src = TensorDescriptor::create(Arg::host(a.data(), a.size()), {64, 16},
                                      {16, 1}, {8, 16});
  auto dst = TensorDescriptor::create(Arg::host(b.data(), b.size()), {64, 16},
                                      {16, 1}, {8, 16});
  ASSERT_TRUE(src && dst) << errorOf(src) << errorOf(dst);
  EXPECT_TRUE(k->checkArgs({*src, *dst}));
  // The GPU parameters themselves pass too.
  EXPECT_TRUE(k->checkArgs({Arg::host(a.data(), a.size()), int32_t(64),
                            int32_t(16), int32_t(16), int32_t(1), *dst}));
  // A descriptor whose block differs from the parameter's.
  auto other = TensorDescriptor::create(Arg::host(b.data(), b.size()), {64, 16},
                                        {16, 1}, {16, 16});
  ASSERT_TRUE(other);
  auto r = k->checkArgs({*src, *other});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().str().find("('dst'): expected a tensor descriptor of "
                                 "f32 with block shape [8, 16], got one of "
                                 "f32 with block shape [16, 16]"),
            std::string::npos)
      << r.error().str();
  // Of another element type.
  std::vector<int32_t> ints(64 * 16);
  auto wrongType = TensorDescriptor::create(Arg::host(ints.data(), ints.size()),
                                            {64, 16}, {16, 1}, {8, 16});
  ASSERT_TRUE(wrongType);
  EXPECT_FALSE(k->checkArgs({*src, *wrongType}));
  // Too few, and a descriptor where a scalar goes.
  r = k->checkArgs({*src});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().str().find("takes 2 argument(s)"), std::string::npos)
      << r.error().str();
  const char *scalarKernel = R"(
@kernel
def k(x: *f32, n: i32):
    store(x + arange(0, 16), full([16], 1.0, f32), mask=arange(0, 16) < n)
)";
  auto plain = compileKite(scalarKernel, CompileOptions{}, "k.kite");
  ASSERT_TRUE(plain) << plain.error().str();
  r = plain->checkArgs({*src, int32_t(3)});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().str().find("not a tensor_descriptor"), std::string::npos)
      << r.error().str();
}

TEST(HostDescriptor, InterpretedCopyOverTheEdges) {
  auto k = compileKite(kCopy, CompileOptions{}, "copy2d.kite");
  ASSERT_TRUE(k) << k.error().str();
  // 37 x 53 in a buffer with rows of 56 (strides need 16 bytes): blocks of
  // 8 x 16 hang over the bottom and the right edge.
  const int M = 37, N = 53, ld = 56;
  std::vector<float> src(size_t(M) * ld), dst(size_t(M) * ld, -7.f);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = float(i % 97) - 40.f;
  auto s = TensorDescriptor::create(Arg::host(src.data(), src.size()), {M, N},
                                    {ld, 1}, {8, 16});
  auto d = TensorDescriptor::create(Arg::host(dst.data(), dst.size()), {M, N},
                                    {ld, 1}, {8, 16});
  ASSERT_TRUE(s && d) << errorOf(s) << errorOf(d);
  auto ran = k->interpret(Grid((M + 7) / 8, (N + 15) / 16), {*s, *d});
  ASSERT_TRUE(ran) << ran.error().str();
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < ld; ++j) {
      size_t at = size_t(i) * ld + j;
      float want = j < N ? src[at] * 2.f + 1.f : -7.f; // past N: untouched
      ASSERT_EQ(dst[at], want) << "(" << i << ", " << j << ")";
    }
}

// An autotuned kernel's configurations may set the block shape: each builds
// its descriptors with its own, so any block of the right rank passes (the
// descriptor's block is the host's note, not what the kernel moves).
TEST(HostDescriptor, AutotunedBlocksComeFromTheConfiguration) {
  const char *src = R"(
@autotune(configs=[config(BM=8), config(BM=16)], key=["n"])
@kernel
def copy2d(src: tensor_descriptor(f32, [BM, 16]), dst: tensor_descriptor(f32, [BM, 16]),
           n: i32, BM: constexpr = 8):
    i = program_id(0) * BM
    j = program_id(1) * 16
    dst.store([i, j], src.load([i, j]) * 2.0 + 1.0)
)";
  auto k = compileKite(src, CompileOptions{}, "copy2d.kite");
  ASSERT_TRUE(k) << k.error().str();
  const int M = 37, N = 48;
  std::vector<float> a(size_t(M) * N), b(size_t(M) * N, -7.f);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = float(i % 89) - 30.f;
  for (int64_t bm : {8, 16}) {
    auto s = TensorDescriptor::create(Arg::host(a.data(), a.size()), {M, N},
                                      {N, 1}, {bm, 16});
    auto d = TensorDescriptor::create(Arg::host(b.data(), b.size()), {M, N},
                                      {N, 1}, {bm, 16});
    ASSERT_TRUE(s && d);
    EXPECT_TRUE(k->checkArgs({*s, *d, int32_t(M)})) << "block " << bm;
  }
  auto flat = TensorDescriptor::create(Arg::host(a.data(), a.size()),
                                       {int64_t(M) * N}, {1}, {16});
  ASSERT_TRUE(flat);
  auto s = TensorDescriptor::create(Arg::host(a.data(), a.size()), {M, N},
                                    {N, 1}, {16, 16});
  auto d = TensorDescriptor::create(Arg::host(b.data(), b.size()), {M, N},
                                    {N, 1}, {16, 16});
  ASSERT_TRUE(s && d);
  EXPECT_FALSE(k->checkArgs({*flat, *d, int32_t(M)})) << "a 1-D descriptor";
  // The interpreter runs the kernel as written (BM = 8) on these.
  auto ran = k->interpret(Grid((M + 7) / 8, N / 16), {*s, *d, int32_t(M)});
  ASSERT_TRUE(ran) << ran.error().str();
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(b[i], a[i] * 2.f + 1.f) << "element " << i;
}
