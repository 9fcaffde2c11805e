//===- DescriptorGPUTest.cpp - Tensor descriptors and TMA on the GPU -------===//
//
// Kernels that read and write through in-kernel tensor descriptors
// (make_tensor_descriptor): a copy whose blocks hang over the tensor's
// edges, and the descriptor matmul, whose dot reads its operands with TMA on
// sm_90a (tensor maps the launch encodes) when the arguments are aligned:
// against a float64 reference on the host and bit for bit against the same
// kernel compiled with cp.async staging (CompileOptions::tma = false) and
// with a producer warp (CompileOptions::warpSpecialize), for shapes with
// ragged M, N and K tails. Skipped without a GPU.
//
//===----------------------------------------------------------------------===//

#include "GPUTestHelpers.h"
#include "TestHelpers.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <tuple>

using namespace kite;
using namespace kite::test;

namespace {

const char *kCopy = R"(
@kernel
def copy2d(src: *f32, dst: *f32, M: i32, N: i32, BM: constexpr = 16, BN: constexpr = 32):
    s = make_tensor_descriptor(src, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    d = make_tensor_descriptor(dst, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    i = program_id(0) * BM
    j = program_id(1) * BN
    d.store([i, j], s.load([i, j]) * 2.0 + 1.0)
)";

/// The descriptor matmul; with `transB`, B is given N x K (K contiguous)
/// and the dot reads its transpose, as Triton's tutorial 09 passes it.
std::string matmulSource(const std::string &dtype, bool transB = false) {
  std::string s = R"(
@kernel(num_warps=4, num_stages=3)
def matmul_desc(a_ptr: *T, b_ptr: *T, c_ptr: *f32, M: i32, N: i32, K: i32,
                BLOCK_M: constexpr = 128, BLOCK_N: constexpr = 128, BLOCK_K: constexpr = 64):
    a_desc = make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    acc = zeros((BLOCK_M, BLOCK_N), f32)
    for k in range(0, cdiv(K, BLOCK_K)):
        a = a_desc.load([program_id(0) * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, program_id(1) * BLOCK_N])
        acc = dot(a, b, acc)
    c_desc.store([program_id(0) * BLOCK_M, program_id(1) * BLOCK_N], acc)
)";
  auto replace = [&](const std::string &from, const std::string &to) {
    size_t at = s.find(from);
    s.replace(at, from.size(), to);
  };
  if (transB) {
    replace("shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N]",
            "shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K]");
    replace("b_desc.load([k * BLOCK_K, program_id(1) * BLOCK_N])",
            "b_desc.load([program_id(1) * BLOCK_N, k * BLOCK_K])");
    replace("dot(a, b, acc)", "dot(a, b.T, acc)");
  }
  for (size_t at = s.find("*T"); at != std::string::npos; at = s.find("*T"))
    s.replace(at, 2, "*" + dtype);
  return s;
}

/// The descriptor matmul compiled three ways: 0: cp.async staging, 1: TMA,
/// 2: TMA with a producer warp.
struct ThreeForms {
  std::vector<Kernel> kernels;
  std::string error; ///< why one did not compile (empty: all did)
};
ThreeForms compileThreeForms(const std::string &source,
                             std::map<std::string, double> constants,
                             int warps) {
  ThreeForms forms;
  for (int tma = 0; tma < 3; ++tma) {
    CompileOptions o;
    o.constants = constants;
    o.overrideNumWarps = warps;
    o.tma = tma >= 1;
    o.warpSpecialize = tma == 2;
    auto k = compileKite(source, o, "matmul_desc.kite");
    if (!k) {
      forms.error = k.error().str();
      return forms;
    }
    forms.kernels.push_back(std::move(*k));
  }
  return forms;
}

/// C (M x N f32, one NaN guard element past it) from each form, launched on
/// 128-row blocks of BLOCK_N columns; empty and `error` set on a failed
/// launch.
std::vector<std::vector<float>> runThreeForms(ThreeForms &forms, Arg a, Arg b,
                                              int M, int N, int K, int bn,
                                              std::string &error) {
  std::vector<std::vector<float>> results;
  for (Kernel &k : forms.kernels) {
    auto dc = DeviceBuffer<float>::fromHost(
                  std::vector<float>(size_t(M) * N + 1, std::nanf("")))
                  .value();
    auto ran = k.launch(Grid((M + 127) / 128, (N + bn - 1) / bn),
                        {a, b, Arg(dc), int32_t(M),
                         int32_t(N), int32_t(K)});
    if (!ran) {
      error = ran.error().str();
      return {};
    }
    results.push_back(dc.toHost().value());
  }
  return results;
}

} // namespace

TEST(GPU, DescriptorCopyOverTheEdges) {
  REQUIRE_GPU();
  auto k = compileKite(kCopy, CompileOptions{}, "copy2d.kite");
  ASSERT_TRUE(k) << k.error().str();
  const int M = 37, N = 53;
  auto src = randomValues(size_t(M) * N, 7);
  // One guard element past the end: the store must not reach it.
  auto ds = DeviceBuffer<float>::fromHost(src).value();
  auto dd = DeviceBuffer<float>::fromHost(
                std::vector<float>(size_t(M) * N + 1, -5.f))
                .value();
  ASSERT_TRUE(k->launch(Grid((M + 15) / 16, (N + 31) / 32),
                        {Arg(ds), Arg(dd), int32_t(M), int32_t(N)}));
  auto out = dd.toHost().value();
  for (size_t i = 0; i < src.size(); ++i)
    ASSERT_EQ(out[i], src[i] * 2.f + 1.f) << "element " << i;
  EXPECT_EQ(out.back(), -5.f) << "written past the tensor";
}

TEST(GPU, DescriptorMatmulWithTma) {
  REQUIRE_GPU();
  struct Config {
    int bn, warps;
  };
  struct Shape {
    int M, N, K;
  };
  for (const char *dtype : {"f16", "bf16"}) {
    bool bf16 = std::string(dtype) == "bf16";
    // transB: B given N x K and read through b.T (staged K-major).
    for (bool transB : {false, true})
    for (Config cfg : {Config{128, 4}, Config{256, 8}}) {
      ThreeForms forms = compileThreeForms(matmulSource(dtype, transB),
                                           {{"BLOCK_N", cfg.bn}}, cfg.warps);
      ASSERT_TRUE(forms.error.empty()) << forms.error;
      // Aligned (TMA on sm_90a), ragged tails in M, N and K; then sizes
      // that are not multiples of 8 (no TMA: the generic path).
      // KITE_TEST_QUICK=1 (the compute-sanitizer runs of scripts/gpu/run.sh):
      // two small shapes, one with a ragged K.
      std::vector<Shape> shapes =
          quickRun() ? std::vector<Shape>{{128, 128, 64}, {256, 256, 144}}
                     : std::vector<Shape>{{128, 128, 64},
                                          {1040, 528, 272},
                                          {256, 256, 1024},
                                          {100, 60, 36}};
      for (Shape sh : shapes) {
        const int M = sh.M, N = sh.N, K = sh.K;
        auto a = randomValues(size_t(M) * K, 11), b = randomValues(size_t(K) * N, 12);
        std::vector<uint16_t> ha(a.size()), hb(b.size());
        for (size_t i = 0; i < a.size(); ++i) {
          ha[i] = toHalfBits(a[i], bf16);
          a[i] = fromHalfBits(ha[i], bf16);
        }
        for (size_t i = 0; i < b.size(); ++i) {
          hb[i] = toHalfBits(b[i], bf16);
          b[i] = fromHalfBits(hb[i], bf16);
        }
        if (transB) // the device gets B^T, N x K
          for (int kk = 0; kk < K; ++kk)
            for (int n = 0; n < N; ++n)
              hb[size_t(n) * K + kk] = toHalfBits(b[size_t(kk) * N + n], bf16);
        auto da = DeviceBuffer<uint16_t>::fromHost(ha).value();
        auto db = DeviceBuffer<uint16_t>::fromHost(hb).value();
        std::string error;
        auto results = runThreeForms(forms, Arg(da), Arg(db), M, N, K, cfg.bn,
                                     error);
        ASSERT_EQ(results.size(), 3u) << error;
        std::string what = std::string(dtype) + " " + std::to_string(M) +
                           "x" + std::to_string(N) + "x" + std::to_string(K) +
                           " BLOCK_N=" + std::to_string(cfg.bn) +
                           (transB ? " B transposed" : "");
        EXPECT_TRUE(std::isnan(results[1].back())) << what << ": written past C";
        EXPECT_TRUE(std::isnan(results[2].back())) << what << ": written past C";
        double worst = 0;
        for (int m = 0; m < M; ++m)
          for (int n = 0; n < N; ++n) {
            auto [ref, mag] = dotFloat64(a, b, K, N, m, n);
            size_t i = size_t(m) * N + n;
            // TMA and cp.async stage the same bytes for the same wgmmas.
            ASSERT_EQ(results[1][i], results[0][i])
                << what << ": TMA and cp.async differ at (" << m << ", " << n << ")";
            ASSERT_EQ(results[2][i], results[0][i])
                << what << ": warp-specialized TMA and cp.async differ at ("
                << m << ", " << n << ")";
            worst = std::max(worst, std::fabs(results[1][i] - ref) / (mag + 1e-6));
          }
        EXPECT_LT(worst, 2e-4) << what;
      }
    }
  }
}

// Tutorial 09's persistent descriptor matmul (dsl-examples/
// persistent_matmul.kite): a few programs loop over many tiles, so the
// barrier ring's slots and phases go on from tile to tile, with K loops of
// 1 (fewer than the 2 stages ahead), 2, 5 and 16 iterations. TMA, TMA
// with a producer warp (which runs ahead into the next tiles) and cp.async
// (CompileOptions::tma = false) must agree bit for bit, and with float64
// (f16 output).
TEST(GPU, PersistentMatmulWithTma) {
  REQUIRE_GPU();
  Expected<Kernel> kernels[3] = {Error(ErrorCode::InvalidArgument, ""),
                                 Error(ErrorCode::InvalidArgument, ""),
                                 Error(ErrorCode::InvalidArgument, "")};
  const int programs = 7;
  for (int tma = 0; tma < 3; ++tma) {
    CompileOptions o;
    o.kernel = "matmul_descriptor_persistent";
    // The producer warp through the kernel's own WARP_SPECIALIZE
    // (range(..., warp_specialize=)), not the compile option.
    o.constants = {{"BLOCK_N", 128},
                   {"NUM_SMS", programs},
                   {"WARP_SPECIALIZE", tma == 2 ? 1 : 0}};
    o.tma = tma >= 1;
    kernels[tma] = compileKite(source("persistent_matmul.kite"), o,
                               "persistent_matmul.kite");
    ASSERT_TRUE(kernels[tma]) << kernels[tma].error().str();
  }
  for (int K : {40, 72, 320, 1024}) {
    const int M = 1000, N = 520;
    auto a = randomValues(size_t(M) * K, 21), b = randomValues(size_t(K) * N, 22);
    std::vector<uint16_t> ha(a.size()), hb(b.size());
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = fromHalfBits(ha[i] = toHalfBits(a[i], false), false);
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = fromHalfBits(hb[i] = toHalfBits(b[i], false), false);
    auto da = DeviceBuffer<uint16_t>::fromHost(ha).value();
    auto db = DeviceBuffer<uint16_t>::fromHost(hb).value();
    std::vector<uint16_t> results[3];
    for (int tma = 0; tma < 3; ++tma) {
      auto dc = DeviceBuffer<uint16_t>::fromHost(
                    std::vector<uint16_t>(size_t(M) * N + 1, 0x7e00))
                    .value();
      auto ran = kernels[tma]->launch(
          Grid(programs),
          {Arg(da), Arg(db), Arg(dc), int32_t(M), int32_t(N), int32_t(K)});
      ASSERT_TRUE(ran) << ran.error().str();
      results[tma] = dc.toHost().value();
    }
    std::string what = "1000x520x" + std::to_string(K);
    EXPECT_EQ(results[1].back(), 0x7e00) << what << ": written past C";
    EXPECT_EQ(results[2].back(), 0x7e00) << what << ": written past C";
    double worst = 0;
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        auto [ref, mag] = dotFloat64(a, b, K, N, m, n);
        size_t i = size_t(m) * N + n;
        ASSERT_EQ(results[1][i], results[0][i])
            << what << ": TMA and cp.async differ at (" << m << ", " << n << ")";
        ASSERT_EQ(results[2][i], results[0][i])
            << what << ": warp-specialized TMA and cp.async differ at (" << m
            << ", " << n << ")";
        double got = fromHalfBits(results[1][i], false);
        // f16 output: half an ulp of the result, beside the products' sum.
        worst = std::max(worst, std::fabs(got - ref) /
                                    (mag * 2e-4 + std::fabs(ref) * 1e-3 + 1e-6));
      }
    EXPECT_LE(worst, 1.0) << what;
  }
}

// The persistent descriptor matmul in 2-program clusters
// (matmul_descriptor_persistent_cluster: programs 2c and 2c + 1 take the
// tiles of a pair of rows, one each, so B's blocks are multicast to both):
// bit for bit the tiles of the kernel without clusters, with K loops of 1
// to 16 iterations, an odd number of tile rows (the second tile of the
// last pair lies below M: read as zeros, never stored) and programs that
// run out of pairs at different times than others. A grid that is not a
// whole number of clusters is an InvalidArgument error, not a launch
// failure.
TEST(GPU, PersistentMatmulInClusters) {
  REQUIRE_SM90("clusters need sm_90 or newer");
  const int programs = 8;
  CompileOptions plain;
  plain.kernel = "matmul_descriptor_persistent";
  plain.constants = {{"BLOCK_N", 128}, {"NUM_SMS", programs}};
  CompileOptions clustered;
  clustered.kernel = "matmul_descriptor_persistent_cluster";
  clustered.constants = {
      {"BLOCK_N", 128}, {"NUM_SMS", programs}, {"GROUP_SIZE_M", 2}};
  auto reference = compileKite(source("persistent_matmul.kite"), plain,
                               "persistent_matmul.kite");
  ASSERT_TRUE(reference) << reference.error().str();
  auto cluster = compileKite(source("persistent_matmul.kite"), clustered,
                             "persistent_matmul.kite");
  ASSERT_TRUE(cluster) << cluster.error().str();
  // KITE_TEST_QUICK=1 (compute-sanitizer in scripts/gpu/run.sh): two
  // shapes.
  std::vector<std::pair<int, int>> shapes = {
      {1000, 40}, {1000, 72}, {1100, 320}, {1100, 1024}, {130, 64}};
  if (quickRun())
    shapes = {{130, 64}, {1100, 320}};
  for (auto [M, K] : shapes) {
    const int N = 520;
    HalfOperands ops = halfOperands(M, N, K, 31, 32);
    DeviceBuffer<uint16_t> &da = ops.da, &db = ops.db;
    std::vector<uint16_t> results[2];
    for (int c = 0; c < 2; ++c) {
      auto dc = DeviceBuffer<uint16_t>::fromHost(
                    std::vector<uint16_t>(size_t(M) * N + 1, 0x7e00))
                    .value();
      auto ran =
          (c ? cluster : reference)
              ->launch(Grid(programs), {Arg(da), Arg(db), Arg(dc), int32_t(M),
                                        int32_t(N), int32_t(K)});
      ASSERT_TRUE(ran) << ran.error().str();
      ASSERT_TRUE(synchronize()) << "M = " << M << ", K = " << K;
      results[c] = dc.toHost().value();
    }
    std::string what = std::to_string(M) + "x520x" + std::to_string(K);
    EXPECT_EQ(results[1].back(), 0x7e00) << what << ": written past C";
    for (size_t i = 0; i + 1 < results[0].size(); ++i) {
      ASSERT_NE(results[0][i], 0x7e00) << what << ": not written at " << i;
      ASSERT_EQ(results[1][i], results[0][i])
          << what << ": clusters and single programs differ at (" << i / N
          << ", " << i % N << ")";
    }
  }
  auto buffer =
      DeviceBuffer<uint16_t>::fromHost(std::vector<uint16_t>(64)).value();
  // Programs at once (a persistent grid): one a SM for the single-program
  // kernel (over 114 KB of shared memory in the TMA variant, that of
  // sizes divisible by 16, never launched here), whole clusters of two for
  // the other (on the H100 every SM pairs up: 66 clusters).
  std::vector<Arg> someArgs = {Arg(buffer), Arg(buffer), Arg(buffer),
                               1024,        1024,        1024};
  const int sms = deviceMultiprocessors().value();
  auto alone = reference->maxActivePrograms(someArgs);
  ASSERT_TRUE(alone) << alone.error().str();
  EXPECT_EQ(*alone, sms);
  auto paired = cluster->maxActivePrograms(someArgs);
  ASSERT_TRUE(paired) << paired.error().str();
  EXPECT_EQ(*paired % 2, 0);
  EXPECT_GE(*paired, sms / 2);
  EXPECT_LE(*paired, sms);
  auto odd = cluster->launch(Grid(programs - 1),
                             {Arg(buffer), Arg(buffer), Arg(buffer), 8, 8, 8});
  ASSERT_FALSE(odd);
  EXPECT_EQ(odd.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(
      odd.error().message().find("not a multiple of the clusters (2, 1, 1)"),
      std::string::npos)
      << odd.error().str();
}

// Ping-pong consumer groups (range(..., ping_pong=True)): two warpgroups
// taking alternate tiles of each program, their K loops in turns. Against
// the same kernel with one consumer group, bit for bit: C (TMA stores from
// each group's own panels) and each tile's column sums (a reduction across
// the group's warps through its own scratch and named barrier), and C
// against float64. Programs with an odd number of tiles, with one tile
// (group 1 has none), K loops of 1 to 16 iterations, tiles clipped at M
// and N. Then the dsl-example's ping-pong forms (alone and in clusters of
// two sharing B) against its one-group form of the same 128x128 tiles.
TEST(GPU, PersistentMatmulPingPong) {
  REQUIRE_SM90("ping-pong runs with a producer warp: sm_90 or newer");
  const char *src = R"(
@kernel(num_warps=4, num_stages=3)
def pp(a_ptr: *f16, b_ptr: *f16, c_ptr: *f16, s_ptr: *f32, M: i32, N: i32, K: i32,
       PING_PONG: constexpr = 1, NUM_SMS: constexpr = 8):
    a_desc = make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[128, 64])
    b_desc = make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[64, 128])
    c_desc = make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[128, 128])
    num_n = cdiv(N, 128)
    k_tiles = cdiv(K, 64)
    for tile in range(program_id(0), cdiv(M, 128) * num_n, NUM_SMS,
                      warp_specialize=1, ping_pong=PING_PONG):
        pm = tile // num_n
        pn = tile % num_n
        acc = zeros((128, 128), f32)
        for k in range(k_tiles):
            acc = dot(a_desc.load([pm * 128, k * 64]), b_desc.load([k * 64, pn * 128]), acc)
        c_desc.store([pm * 128, pn * 128], acc.to(f16))
        store(s_ptr + tile * 128 + arange(0, 128), sum(acc, axis=0))
)";
  const int programs = 8;
  CompileOptions oneGroup;
  oneGroup.constants = {{"PING_PONG", 0}};
  Expected<Kernel> forms[2] = {compileKite(src, oneGroup, "pp.kite"),
                               compileKite(src, CompileOptions{}, "pp.kite")};
  for (auto &f : forms)
    ASSERT_TRUE(f) << f.error().str();
  std::vector<std::array<int, 3>> shapes = {{1000, 520, 40},
                                            {1100, 520, 1024},
                                            {130, 520, 64},
                                            {300, 250, 320},
                                            {128, 128, 128}};
  if (quickRun())
    shapes = {{130, 520, 64}, {300, 250, 320}};
  for (auto [M, N, K] : shapes) {
    std::string what =
        std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
    HalfOperands ops = halfOperands(M, N, K, 51, 52);
    const std::vector<float> &a = ops.a, &b = ops.b;
    DeviceBuffer<uint16_t> &da = ops.da, &db = ops.db;
    const int tiles = (M + 127) / 128 * ((N + 127) / 128);
    std::vector<uint16_t> c[2];
    std::vector<float> sums[2];
    for (int f = 0; f < 2; ++f) {
      auto dc = DeviceBuffer<uint16_t>::fromHost(
                    std::vector<uint16_t>(size_t(M) * N + 1, 0x7e00))
                    .value();
      auto ds = DeviceBuffer<float>::fromHost(
                    std::vector<float>(size_t(tiles) * 128, NAN))
                    .value();
      auto ran = forms[f]->launch(Grid(programs),
                                  {Arg(da), Arg(db), Arg(dc), Arg(ds),
                                   int32_t(M), int32_t(N), int32_t(K)});
      ASSERT_TRUE(ran) << ran.error().str();
      ASSERT_TRUE(synchronize()) << what;
      c[f] = dc.toHost().value();
      sums[f] = ds.toHost().value();
    }
    EXPECT_EQ(c[1].back(), 0x7e00) << what << ": written past C";
    for (size_t i = 0; i + 1 < c[0].size(); ++i)
      ASSERT_EQ(c[1][i], c[0][i])
          << what << ": ping-pong and one group differ at (" << i / N << ", "
          << i % N << ")";
    for (size_t i = 0; i < sums[0].size(); ++i) {
      ASSERT_FALSE(std::isnan(sums[1][i])) << what << ": sum " << i;
      ASSERT_EQ(sums[1][i], sums[0][i])
          << what << ": column sums differ at " << i;
    }
    double worst = 0;
    for (int m = 0; m < M; m += 7)
      for (int n = 0; n < N; ++n) {
        auto [ref, mag] = dotFloat64(a, b, K, N, m, n);
        double got = fromHalfBits(c[1][size_t(m) * N + n], false);
        worst =
            std::max(worst, std::fabs(got - ref) /
                                (mag * 2e-4 + std::fabs(ref) * 1e-3 + 1e-6));
      }
    EXPECT_LE(worst, 1.0) << what;
  }

  // The example's form (4 stages) against matmul_descriptor_persistent on
  // the same tiles (128x128, 8 warps in one group).
  CompileOptions one;
  one.kernel = "matmul_descriptor_persistent";
  one.constants = {{"BLOCK_N", 128}, {"NUM_SMS", programs}};
  CompileOptions two;
  two.kernel = "matmul_descriptor_persistent_ping_pong";
  two.constants = {{"NUM_SMS", programs}};
  CompileOptions paired;
  paired.kernel = "matmul_descriptor_persistent_ping_pong_cluster";
  paired.constants = {{"NUM_SMS", programs}, {"GROUP_SIZE_M", 2}};
  Expected<Kernel> example[3] = {compileKite(source("persistent_matmul.kite"),
                                             one, "persistent_matmul.kite"),
                                 compileKite(source("persistent_matmul.kite"),
                                             two, "persistent_matmul.kite"),
                                 compileKite(source("persistent_matmul.kite"),
                                             paired, "persistent_matmul.kite")};
  for (auto &f : example)
    ASSERT_TRUE(f) << f.error().str();
  const int M = 1000, N = 520, K = 320;
  HalfOperands ops = halfOperands(M, N, K, 53, 54);
  DeviceBuffer<uint16_t> &da = ops.da, &db = ops.db;
  std::vector<uint16_t> c[3];
  for (int f = 0; f < 3; ++f) {
    auto dc = DeviceBuffer<uint16_t>::fromHost(
                  std::vector<uint16_t>(size_t(M) * N, 0x7e00))
                  .value();
    auto ran = example[f]->launch(
        Grid(programs),
        {Arg(da), Arg(db), Arg(dc), int32_t(M), int32_t(N), int32_t(K)});
    ASSERT_TRUE(ran) << ran.error().str();
    ASSERT_TRUE(synchronize());
    c[f] = dc.toHost().value();
  }
  for (size_t i = 0; i < c[0].size(); ++i) {
    ASSERT_NE(c[0][i], 0x7e00) << "not written at " << i;
    ASSERT_EQ(c[1][i], c[0][i])
        << "the example's forms differ at (" << i / N << ", " << i % N << ")";
    ASSERT_EQ(c[2][i], c[0][i]) << "ping-pong in clusters differs at (" << i / N
                                << ", " << i % N << ")";
  }
}

// TMA stores in scratch of their own (a persistent kernel whose producer
// warp refills the slots while a tile is stored): the 128x256 f16 blocks'
// four panels take turns in two buffers. The dot's result (each register's
// panel known at compile time) against float64, and a block in a blocked
// layout (threads across the columns: each thread tests its registers'
// panels) copied exactly, on 3 tiles of 128 rows over 2 programs, the last
// tile clipped at M = 300.
TEST(GPU, TmaStoreRingOfPanels) {
  REQUIRE_SM90("TMA needs sm_90 or newer");
  const char *src = R"(
@kernel(num_warps=8, num_stages=2)
def ring(a_ptr: *f16, b_ptr: *f16, c_ptr: *f16, e_ptr: *f16, d_ptr: *f16,
         M: i32, N: i32, K: i32):
    a_desc = make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[128, 64])
    b_desc = make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[64, 256])
    c_desc = make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[128, 256])
    d_desc = make_tensor_descriptor(d_ptr, shape=[M, N], strides=[N, 1], block_shape=[128, 256])
    for tile in range(program_id(0), cdiv(M, 128), 2, warp_specialize=1):
        acc = zeros((128, 256), f32)
        for k in range(cdiv(K, 64)):
            acc = dot(a_desc.load([tile * 128, k * 64]), b_desc.load([k * 64, 0]), acc)
        c_desc.store([tile * 128, 0], acc.to(f16))
        rows = tile * 128 + arange(0, 128)
        cols = arange(0, 256)
        d_desc.store([tile * 128, 0], load(e_ptr + rows[:, None] * N + cols[None, :],
                                            mask=rows[:, None] < M, other=0.0))
)";
  auto k = compileKite(src, CompileOptions{}, "ring.kite");
  ASSERT_TRUE(k) << k.error().str();
  const int M = 300, N = 256, K = 128;
  auto a = randomValues(size_t(M) * K, 41), b = randomValues(size_t(K) * N, 42),
       e = randomValues(size_t(M) * N, 43);
  std::vector<uint16_t> ha(a.size()), hb(b.size()), he(e.size());
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = fromHalfBits(ha[i] = toHalfBits(a[i], false), false);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = fromHalfBits(hb[i] = toHalfBits(b[i], false), false);
  for (size_t i = 0; i < e.size(); ++i)
    he[i] = toHalfBits(e[i], false);
  auto da = DeviceBuffer<uint16_t>::fromHost(ha).value();
  auto db = DeviceBuffer<uint16_t>::fromHost(hb).value();
  auto de = DeviceBuffer<uint16_t>::fromHost(he).value();
  std::vector<uint16_t> nan(size_t(M) * N + 1, 0x7e00);
  auto dc = DeviceBuffer<uint16_t>::fromHost(nan).value();
  auto dd = DeviceBuffer<uint16_t>::fromHost(nan).value();
  auto ran = k->launch(Grid(2), {Arg(da), Arg(db), Arg(dc), Arg(de), Arg(dd),
                                 int32_t(M), int32_t(N), int32_t(K)});
  ASSERT_TRUE(ran) << ran.error().str();
  auto c = dc.toHost().value(), d = dd.toHost().value();
  EXPECT_EQ(c.back(), 0x7e00) << "written past C";
  EXPECT_EQ(d.back(), 0x7e00) << "written past D";
  double worst = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      size_t i = size_t(m) * N + n;
      ASSERT_EQ(d[i], he[i])
          << "D differs from E at (" << m << ", " << n << ")";
      auto [ref, mag] = dotFloat64(a, b, K, N, m, n);
      double got = fromHalfBits(c[i], false);
      worst = std::max(worst, std::fabs(got - ref) /
                                  (mag * 2e-4 + std::fabs(ref) * 1e-3 + 1e-6));
    }
  EXPECT_LE(worst, 1.0);
}

// fp8 (e4m3 and e5m2) on the GPU: the conversions agree bit for bit with
// the formats' definitions (the interpreter's test checks the same), and
// the descriptor matmul with B given N x K (fp8's wgmma reads both operands
// K-major) runs on fp8 wgmma (k32) through TMA and TMA with a producer
// warp, bit-identical, and with cp.async; all close to float64 of the same
// fp8 values (the tensor cores accumulate fp8 products with fewer mantissa
// bits than f32: a relative bound of 2e-3 of the sum of magnitudes).
TEST(GPU, Fp8ConversionsAndMatmul) {
  REQUIRE_GPU();
  const char *convert = R"(
@kernel
def fp8_convert(x_ptr: *f32, q4: *f8e4m3, q5: *f8e5m2, out: *f32, n: i32, BLOCK: constexpr = 1024):
    offs = program_id(0) * BLOCK + arange(0, BLOCK)
    m = offs < n
    x = load(x_ptr + offs, mask=m)
    store(q4 + offs, x.to(f8e4m3), mask=m)
    store(q5 + offs, x.to(f8e5m2), mask=m)
    a = load(q4 + offs, mask=m, other=0.0)
    b = load(q5 + offs, mask=m, other=0.0)
    store(out + offs, a + b.to(f32), mask=m)
)";
  auto conv = compileKite(convert, CompileOptions{}, "fp8_convert.kite");
  ASSERT_TRUE(conv) << conv.error().str();
  const int n = 5000;
  std::vector<float> x = randomValues(n, 3);
  for (int i = 0; i < n; ++i) // spread over the formats' ranges
    x[i] = std::ldexp(x[i], (i % 40) - 20);
  auto dx = DeviceBuffer<float>::fromHost(x).value();
  auto d4 = DeviceBuffer<uint8_t>::fromHost(std::vector<uint8_t>(n + 1, 0xaa)).value();
  auto d5 = DeviceBuffer<uint8_t>::fromHost(std::vector<uint8_t>(n + 1, 0xaa)).value();
  auto dout = DeviceBuffer<float>::fromHost(std::vector<float>(n, NAN)).value();
  ASSERT_TRUE(conv->launch(Grid((n + 1023) / 1024),
                           {Arg(dx), Arg(d4), Arg(d5), Arg(dout), int32_t(n)}));
  auto q4 = d4.toHost().value(), q5 = d5.toHost().value();
  auto out = dout.toHost().value();
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(q4[i], fp8Bits(x[i], false)) << "e4m3 of " << x[i];
    ASSERT_EQ(q5[i], fp8Bits(x[i], true)) << "e5m2 of " << x[i];
    ASSERT_EQ(out[i], float(fp8Value(q4[i], false) + fp8Value(q5[i], true)));
  }
  EXPECT_EQ(q4[n], 0xaa) << "written past the end";

  struct Config {
    int bn, bk, warps;
  };
  for (const char *dtype : {"f8e4m3", "f8e5m2"}) {
    bool e5m2 = std::string(dtype) == "f8e5m2";
    for (Config cfg : {Config{128, 128, 4}, Config{256, 64, 8}}) {
      ThreeForms forms =
          compileThreeForms(matmulSource(dtype, /*transB=*/true),
                            {{"BLOCK_N", cfg.bn}, {"BLOCK_K", cfg.bk}}, cfg.warps);
      ASSERT_TRUE(forms.error.empty()) << forms.error;
      for (auto [M, N, K] : {std::tuple{128, 256, 128}, {1040, 528, 1056}}) {
        auto a = randomValues(size_t(M) * K, 21), b = randomValues(size_t(N) * K, 22);
        std::vector<uint8_t> ha(a.size()), hb(b.size()); // b: N x K
        for (size_t i = 0; i < a.size(); ++i)
          a[i] = fp8Value(ha[i] = fp8Bits(a[i], e5m2), e5m2);
        for (size_t i = 0; i < b.size(); ++i)
          b[i] = fp8Value(hb[i] = fp8Bits(b[i], e5m2), e5m2);
        auto da = DeviceBuffer<uint8_t>::fromHost(ha).value();
        auto db = DeviceBuffer<uint8_t>::fromHost(hb).value();
        std::string error;
        auto results = runThreeForms(forms, Arg(da), Arg(db), M, N, K, cfg.bn,
                                     error);
        ASSERT_EQ(results.size(), 3u) << error;
        std::string what = std::string(dtype) + " " + std::to_string(M) + "x" +
                           std::to_string(N) + "x" + std::to_string(K) +
                           " BLOCK_N=" + std::to_string(cfg.bn) +
                           " BLOCK_K=" + std::to_string(cfg.bk);
        EXPECT_TRUE(std::isnan(results[1].back())) << what << ": written past C";
        double worst = 0;
        for (int m = 0; m < M; ++m)
          for (int nn = 0; nn < N; ++nn) {
            auto [ref, mag] =
                dotFloat64(a, b, K, N, m, nn, /*bTransposed=*/true);
            size_t i = size_t(m) * N + nn;
            // (The cp.async form of this kernel, descriptors lowered to
            // pointer blocks, is not staged by the operand stagings for
            // fp8: it runs the register dot on wgmma after the copies'
            // ring, another order of sums, so it is checked against
            // float64 only.)
            ASSERT_EQ(results[2][i], results[1][i])
                << what << ": warp-specialized TMA and TMA differ at (" << m
                << ", " << nn << ")";
            for (int v = 0; v < 2; ++v)
              worst = std::max(worst, std::fabs(results[v][i] - ref) / (mag + 1e-6));
          }
        EXPECT_LT(worst, 2e-3) << what;
      }
    }
  }
}

// Host-made descriptors (kite::TensorDescriptor for `tensor_descriptor(...)`
// parameters): the descriptor matmul written with them runs the same TMA
// staging as with in-kernel descriptors on the same arguments, bit for bit,
// with ragged M, N and K tails and C's rows padded (a row stride larger
// than N); a copy through host descriptors over the tensor's edges.
TEST(GPU, HostDescriptorsMatchInKernelOnes) {
  REQUIRE_GPU();
  const char *hostSource = R"(
@kernel(num_warps=4, num_stages=3)
def matmul_hd(a_desc: tensor_descriptor(f16, [BLOCK_M, BLOCK_K]),
              b_desc: tensor_descriptor(f16, [BLOCK_K, BLOCK_N]),
              c_desc: tensor_descriptor(f32, [BLOCK_M, BLOCK_N]), K: i32,
              BLOCK_M: constexpr = 128, BLOCK_N: constexpr = 128, BLOCK_K: constexpr = 64):
    acc = zeros((BLOCK_M, BLOCK_N), f32)
    for k in range(0, cdiv(K, BLOCK_K)):
        a = a_desc.load([program_id(0) * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, program_id(1) * BLOCK_N])
        acc = dot(a, b, acc)
    c_desc.store([program_id(0) * BLOCK_M, program_id(1) * BLOCK_N], acc)
)";
  auto host = compileKite(hostSource, CompileOptions{}, "matmul_hd.kite");
  ASSERT_TRUE(host) << host.error().str();
  auto inKernel =
      compileKite(matmulSource("f16"), CompileOptions{}, "matmul_desc.kite");
  ASSERT_TRUE(inKernel) << inKernel.error().str();
  struct Shape {
    int M, N, K;
  };
  for (Shape sh :
       {Shape{128, 128, 64}, Shape{1040, 528, 272}, Shape{100, 64, 40}}) {
    const int M = sh.M, N = sh.N, K = sh.K;
    HalfOperands ops = halfOperands(M, N, K, 21, 22);
    const std::vector<float> &a = ops.a, &b = ops.b;
    const DeviceBuffer<uint16_t> &da = ops.da, &db = ops.db;
    Grid grid((M + 127) / 128, (N + 127) / 128);
    // In-kernel descriptors: C dense (row stride N).
    auto dc0 = DeviceBuffer<float>::fromHost(
                   std::vector<float>(size_t(M) * N, std::nanf("")))
                   .value();
    ASSERT_TRUE(inKernel->launch(grid, {Arg(da), Arg(db), Arg(dc0), int32_t(M),
                                        int32_t(N), int32_t(K)}));
    // Host descriptors: C in rows of N + 4 (the 4 past N must stay NaN).
    const int ldc = N + 4;
    auto dc1 = DeviceBuffer<float>::fromHost(
                   std::vector<float>(size_t(M) * ldc, std::nanf("")))
                   .value();
    auto ad = TensorDescriptor::create(Arg(da), {M, K}, {K, 1}, {128, 64});
    auto bd = TensorDescriptor::create(Arg(db), {K, N}, {N, 1}, {64, 128});
    auto cd = TensorDescriptor::create(Arg(dc1), {M, N}, {ldc, 1}, {128, 128});
    ASSERT_TRUE(ad && bd && cd);
    auto ran = host->launch(grid, {*ad, *bd, *cd, int32_t(K)});
    ASSERT_TRUE(ran) << ran.error().str();
    auto c0 = dc0.toHost().value(), c1 = dc1.toHost().value();
    std::string what =
        std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
    double worst = 0;
    for (int m = 0; m < M; ++m) {
      for (int n = 0; n < N; ++n) {
        ASSERT_EQ(c1[size_t(m) * ldc + n], c0[size_t(m) * N + n])
            << what << ": host and in-kernel descriptors differ at (" << m
            << ", " << n << ")";
        auto [ref, mag] = dotFloat64(a, b, K, N, m, n);
        worst = std::max(worst, std::fabs(c1[size_t(m) * ldc + n] - ref) /
                                    (mag + 1e-6));
      }
      for (int n = N; n < ldc; ++n)
        ASSERT_TRUE(std::isnan(c1[size_t(m) * ldc + n]))
            << what << ": written past the row at (" << m << ", " << n << ")";
    }
    EXPECT_LT(worst, 2e-4) << what;
  }
  // A descriptor of the wrong block shape is refused at launch, naming both.
  auto dx =
      DeviceBuffer<uint16_t>::fromHost(std::vector<uint16_t>(64 * 64)).value();
  auto small = TensorDescriptor::create(Arg(dx), {64, 64}, {64, 1}, {64, 64});
  ASSERT_TRUE(small);
  auto refused =
      host->launch(Grid(1, 1), {*small, *small, *small, int32_t(64)});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().str().find("block shape [128, 64]"),
            std::string::npos)
      << refused.error().str();
}
