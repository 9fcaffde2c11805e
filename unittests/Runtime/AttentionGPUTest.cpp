//===- AttentionGPUTest.cpp - Dots from registers and attention on the GPU -===//
//
// Dots that no K loop stages (operands computed in registers or loaded
// whole, kite.dot engine = wgmma on sm_90a, mma on sm_80): a chain of two products, the
// second's A the first's result rounded to f16 (attention's P V), B
// transposed, bf16, several block shapes and warp counts; against float64
// on the host and the Kite interpreter. Then the attention forward example
// (dsl-examples/attention.kite), causal and not, head dims 64 and 128,
// sequence lengths that are not multiples of the blocks, against a float64
// softmax(Q K^T * scale) V. Skipped without a GPU.
//
//===----------------------------------------------------------------------===//

#include "GPUTestHelpers.h"
#include "TestHelpers.h"

#include <cmath>
#include <functional>
#include <random>

using namespace kite;
using namespace kite::test;

namespace {

// C = (A B^T)_f16 D with A: M x K, B: N x K, D: N x P (row-major blocks,
// one program, no loop).
const char *kChain = R"(
@kernel
def chain(a_ptr: *DT, b_ptr: *DT, d_ptr: *DT, c_ptr: *f32,
          M: constexpr = 64, N: constexpr = 64, K: constexpr = 64, P: constexpr = 64):
    rm = arange(0, M)
    rn = arange(0, N)
    rk = arange(0, K)
    rp = arange(0, P)
    a = load(a_ptr + rm[:, None] * K + rk[None, :])
    b = load(b_ptr + rn[:, None] * K + rk[None, :])
    s = dot(a, b.T)
    d = load(d_ptr + rn[:, None] * P + rp[None, :])
    c = dot(s.to(DT), d)
    store(c_ptr + rm[:, None] * P + rp[None, :], c)
)";

std::vector<float> randomHalfs(size_t n, unsigned seed, bool bf16,
                               std::vector<uint16_t> &bits) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  bits.resize(n);
  for (size_t i = 0; i < n; ++i) {
    bits[i] = toHalfBits(dist(gen), bf16);
    v[i] = fromHalfBits(bits[i], bf16);
  }
  return v;
}

} // namespace

TEST(GPU, RegisterDotsOnTensorCores) {
  REQUIRE_GPU();
  struct Case {
    const char *dtype;
    int M, N, K, P, warps;
  };
  // The device's own chip (wgmma on an H100), then sm_80 (mma.sync, which
  // the H100 runs too).
  for (const char *chip : {"", "sm_80"})
  for (Case c : {Case{"f16", 64, 64, 64, 64, 4}, Case{"f16", 128, 64, 128, 128, 8},
                 Case{"bf16", 128, 128, 64, 64, 4}, Case{"f16", 64, 32, 16, 32, 4}}) {
    bool bf16 = std::string(c.dtype) == "bf16";
    std::string src = kChain;
    for (size_t at = src.find("DT"); at != std::string::npos;
         at = src.find("DT"))
      src.replace(at, 2, c.dtype);
    CompileOptions o;
    o.constants = {{"M", c.M}, {"N", c.N}, {"K", c.K}, {"P", c.P}};
    o.overrideNumWarps = c.warps;
    o.chip = chip;
    auto k = compileKite(src, o, "chain.kite");
    ASSERT_TRUE(k) << k.error().str();
    std::vector<uint16_t> ha, hb, hd;
    auto a = randomHalfs(size_t(c.M) * c.K, 1, bf16, ha);
    auto b = randomHalfs(size_t(c.N) * c.K, 2, bf16, hb);
    auto d = randomHalfs(size_t(c.N) * c.P, 3, bf16, hd);
    auto da = DeviceBuffer<uint16_t>::fromHost(ha).value();
    auto db = DeviceBuffer<uint16_t>::fromHost(hb).value();
    auto dd = DeviceBuffer<uint16_t>::fromHost(hd).value();
    auto dc = DeviceBuffer<float>::fromHost(
                  std::vector<float>(size_t(c.M) * c.P, NAN))
                  .value();
    auto run = k->launch(Grid(1), {Arg(da), Arg(db), Arg(dd), Arg(dc)});
    ASSERT_TRUE(run) << run.error().str();
    auto out = dc.toHost().value();
    // The interpreter runs the same kernel (its dots in f32 with the same
    // f16 rounding of S).
    std::vector<float> ref(size_t(c.M) * c.P, NAN);
    auto interp = k->interpret(Grid(1), {ha, hb, hd, ref});
    ASSERT_TRUE(interp) << interp.error().str();
    std::string what = std::string(c.dtype) + " " + std::to_string(c.M) + "x" +
                       std::to_string(c.N) + "x" + std::to_string(c.K) + "x" +
                       std::to_string(c.P) + " on " +
                       std::to_string(c.warps) + " warps" +
                       (*chip ? std::string(" for ") + chip : "");
    // float64 of S = A B^T, rounded as the kernel rounds it.
    std::vector<double> s(size_t(c.M) * c.N);
    for (int m = 0; m < c.M; ++m)
      for (int n = 0; n < c.N; ++n) {
        double acc = 0;
        for (int kk = 0; kk < c.K; ++kk)
          acc += double(a[size_t(m) * c.K + kk]) * b[size_t(n) * c.K + kk];
        s[size_t(m) * c.N + n] = acc;
      }
    double worst = 0, worstInterp = 0;
    for (int m = 0; m < c.M; ++m)
      for (int p = 0; p < c.P; ++p) {
        double acc = 0, mag = 0;
        for (int n = 0; n < c.N; ++n) {
          double sv = s[size_t(m) * c.N + n];
          acc += sv * d[size_t(n) * c.P + p];
          mag += std::fabs(sv * d[size_t(n) * c.P + p]);
        }
        size_t i = size_t(m) * c.P + p;
        ASSERT_FALSE(std::isnan(out[i])) << what << ": (" << m << ", " << p
                                         << ") not written";
        // S is rounded to f16/bf16 before the second product: 2^-8 (bf16)
        // or 2^-11 of each term.
        worst = std::max(worst, std::fabs(out[i] - acc) / (mag + 1e-3));
        worstInterp = std::max(worstInterp, double(std::fabs(out[i] - ref[i])) /
                                                (mag + 1e-3));
      }
    EXPECT_LT(worst, bf16 ? 8e-3 : 1e-3) << what;
    EXPECT_LT(worstInterp, bf16 ? 8e-3 : 1e-3) << what << " (interpreter)";
  }
}

/// Whether attention.kite's dropout (its dropout_decisions) keeps weight (i, j)
/// of head zh: byte 2g + e of Philox evaluation (i * cdiv(N, 64) + j / 64)
/// * 4 + c under key (seed, zh), 7 rounds, for j = 64a + 8g + 2c + e.
static bool attentionKeeps(uint32_t seed, int zh, int N, int i, int j,
                           int threshold) {
  uint32_t c[4] = {uint32_t((i * ((N + 63) / 64) + j / 64) * 4 + ((j >> 1) & 3)),
                   0, 0, 0};
  philox4x32(seed, uint32_t(zh), c, /*rounds=*/7);
  int byte = ((j >> 3) & 7) * 2 + (j & 1);
  return int((c[byte / 4] >> (8 * (byte % 4))) & 255) >= threshold;
}

/// Attention's outputs against float64: Out (f16 bits) and M (each row's
/// log2 of the softmax denominator of s * log2(e)) of Z * H = `heads` heads
/// of N x D from the f16 inputs q, k and v (as floats), scaled by `scale`,
/// causal or not; `dropout(zh, i, j, p)`, if given, is weight (i, j) after
/// the softmax's sum. Out within 2e-3 (P and Out are f16, 2^-11 relative;
/// Triton's tutorial test allows 1e-2), M within 1e-4; no NaN in Out.
static void expectAttentionMatches(
    const std::vector<float> &q, const std::vector<float> &k,
    const std::vector<float> &v, const std::vector<uint16_t> &out,
    const std::vector<float> &m, int heads, int N, int D, bool causal,
    float scale, const std::string &what,
    const std::function<double(int, int, int, double)> &dropout = nullptr) {
  double worst = 0, worstM = 0;
  std::vector<double> s(N);
  for (int zh = 0; zh < heads; ++zh) {
    size_t base = size_t(zh) * N * D;
    for (int i = 0; i < N; ++i) {
      int last = causal ? i : N - 1;
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j <= last; ++j) {
        double dotv = 0;
        for (int e = 0; e < D; ++e)
          dotv +=
              double(q[base + size_t(i) * D + e]) * k[base + size_t(j) * D + e];
        s[j] = dotv * scale;
        mx = std::max(mx, s[j]);
      }
      for (int j = 0; j <= last; ++j)
        sum += (s[j] = std::exp(s[j] - mx));
      worstM =
          std::max(worstM, std::fabs(m[size_t(zh) * N + i] -
                                     (mx + std::log(sum)) / std::log(2.0)));
      for (int j = 0; dropout && j <= last; ++j)
        s[j] = dropout(zh, i, j, s[j]);
      for (int e = 0; e < D; ++e) {
        double o = 0;
        for (int j = 0; j <= last; ++j)
          o += s[j] * v[base + size_t(j) * D + e];
        float got = fromHalfBits(out[base + size_t(i) * D + e], false);
        ASSERT_FALSE(std::isnan(got)) << what << ": row " << i;
        worst = std::max(worst, std::fabs(got - o / sum));
      }
    }
  }
  EXPECT_LT(worst, 2e-3) << what;
  EXPECT_LT(worstM, 1e-4) << what << " (M)";
}

TEST(GPU, AttentionAgreesWithFloat64) {
  REQUIRE_GPU();
  std::string src = source("attention.kite");
  ASSERT_FALSE(src.empty());
  struct Case {
    int Z, H, N, D;
    bool causal;
    const char *chip; // "": the device's (wgmma); sm_80: mma.sync
    bool dropout = false; // p = 0.2, the host's own mask in the reference
  };
  std::vector<Case> cases = {Case{1, 2, 1000, 64, false, ""},
                             Case{1, 2, 1000, 64, true, ""},
                             Case{2, 1, 129, 128, false, ""},
                             Case{2, 1, 129, 128, true, ""},
                             Case{1, 1, 256, 64, true, ""},
                             Case{1, 2, 1000, 64, true, "sm_80"},
                             Case{2, 1, 129, 128, false, "sm_80"},
                             Case{1, 2, 1000, 64, true, "", true},
                             Case{2, 1, 129, 128, false, "", true},
                             Case{1, 2, 1000, 64, false, "sm_80", true}};
  if (quickRun()) // compute-sanitizer: each form once, short lengths
    cases = {Case{1, 1, 256, 64, true, ""}, Case{2, 1, 129, 128, false, ""},
             Case{1, 1, 200, 64, false, "", true},
             Case{1, 1, 200, 64, true, "sm_80"}};
  for (Case c : cases) {
    CompileOptions o;
    o.constants = {{"HEAD_DIM", c.D}, {"STAGE", c.causal ? 3 : 1},
                   {"DROPOUT", c.dropout ? 1 : 0}};
    const float dropP = 0.2f;
    const int seed = 77, threshold = int(dropP * 256.f + 0.5f);
    o.chip = c.chip;
    auto k = compileKite(src, o, "attention.kite");
    ASSERT_TRUE(k) << k.error().str();
    size_t n = size_t(c.Z) * c.H * c.N * c.D;
    std::vector<uint16_t> hq, hk, hv;
    auto q = randomHalfs(n, 4, false, hq), kk = randomHalfs(n, 5, false, hk),
         v = randomHalfs(n, 6, false, hv);
    auto dq = DeviceBuffer<uint16_t>::fromHost(hq).value();
    auto dk = DeviceBuffer<uint16_t>::fromHost(hk).value();
    auto dv = DeviceBuffer<uint16_t>::fromHost(hv).value();
    auto dout =
        DeviceBuffer<uint16_t>::fromHost(std::vector<uint16_t>(n, 0x7e00)).value();
    auto dm = DeviceBuffer<float>::fromHost(
                  std::vector<float>(size_t(c.Z) * c.H * c.N, NAN))
                  .value();
    float scale = 1.f / std::sqrt(float(c.D));
    int sz = c.H * c.N * c.D, sh = c.N * c.D, sm = c.D;
    auto run = k->launch(Grid(uint32_t((c.N + 127) / 128), uint32_t(c.Z * c.H)),
                         {Arg(dq), Arg(dk), Arg(dv), Arg(dout), Arg(dm), scale,
                          sz, sh,
                          sm, sz, sh, sm, sz, sh, sm, sz, sh, sm, c.H, c.N,
                          dropP, seed});
    ASSERT_TRUE(run) << run.error().str();
    auto out = dout.toHost().value();
    auto m = dm.toHost().value();
    std::string what = "Z=" + std::to_string(c.Z) + " H=" + std::to_string(c.H) +
                       " N_CTX=" + std::to_string(c.N) +
                       " HEAD_DIM=" + std::to_string(c.D) +
                       (c.causal ? " causal" : "") +
                       (c.dropout ? " dropout" : "") + " " + c.chip;
    std::function<double(int, int, int, double)> dropout;
    if (c.dropout)
      dropout = [&](int zh, int i, int j, double p) {
        return attentionKeeps(seed, zh, c.N, i, j, threshold)
                   ? p * 256.0 / (256 - threshold)
                   : 0.0;
      };
    ASSERT_NO_FATAL_FAILURE(expectAttentionMatches(
        q, kk, v, out, m, c.Z * c.H, c.N, c.D, c.causal, scale, what, dropout));
  }
}

// Tutorial 06's forward with K and V read through host tensor descriptors
// (dsl-examples/attention_tma.kite): on sm_90a TMA stages both products'
// Bs, and with warp specialization a producer warpgroup issues the copies
// of both of the kernel's loops; its persistent form (attn_fwd_persist)
// on fewer programs than tiles. Against float64 at lengths that are not
// multiples of the blocks (the last block's rows past N_CTX are the next
// head's: masked), causal and not, head dims 64 and 128.
TEST(GPU, AttentionWithDescriptorsOnTma) {
  REQUIRE_GPU();
  std::string src = source("attention_tma.kite");
  ASSERT_FALSE(src.empty());
  struct Case {
    int Z, H, N, D;
    bool causal, specialize;
    int blockN = 64;
    // attn_fwd_persist on this many programs (each walks several tiles,
    // some one more than others); 0: attn_fwd, a program a tile.
    int programs = 0;
  };
  std::vector<Case> cases = {
      Case{1, 2, 1000, 64, false, false}, Case{1, 2, 1000, 64, true, false},
      Case{2, 1, 129, 128, false, false}, Case{2, 1, 200, 128, true, false},
      Case{1, 3, 256, 128, false, true}, Case{1, 2, 1000, 128, false, true},
      Case{2, 1, 700, 128, true, true}, Case{1, 2, 1000, 64, true, true},
      Case{2, 1, 512, 64, false, true}, Case{1, 2, 384, 128, false, true, 128},
      Case{1, 1, 0, 128, false, true},
      // Persistent: the producer walks the tiles too, the ring's
      // counters go from one tile to the next.
      Case{2, 3, 1000, 128, false, true, 64, 5},
      Case{2, 3, 1000, 128, true, true, 64, 7},
      Case{1, 2, 333, 64, true, true, 64, 2},
      Case{2, 1, 700, 64, false, true, 64, 3},
      Case{1, 2, 1000, 128, true, false, 64, 3},
      Case{1, 1, 200, 128, false, true, 64, 4},
      Case{1, 1, 0, 128, true, true, 64, 3},
      Case{2, 2, 640, 128, true, true, 64, 3},
      // 128x128 blocks with the producer: at head dim 128 a ring of 2
      // stages and the extra slot (64 KB a slot).
      Case{1, 2, 1000, 128, true, true, 128, 3},
      Case{2, 1, 700, 128, false, true, 128, 2},
      Case{1, 2, 700, 64, true, true, 128, 3}};
  if (quickRun()) // compute-sanitizer: each form once, short lengths
    cases = {Case{1, 1, 200, 128, true, false},
             Case{1, 2, 333, 64, false, true},
             Case{1, 2, 333, 64, true, true, 64, 2},
             Case{1, 1, 300, 128, true, true, 64, 2},
             Case{1, 1, 300, 128, false, true, 128, 2}};
  for (Case c : cases) {
    CompileOptions o;
    o.kernel = c.programs ? "attn_fwd_persist" : "attn_fwd";
    o.constants = {
        {"HEAD_DIM", c.D}, {"STAGE", c.causal ? 3 : 1}, {"BLOCK_N", c.blockN}};
    o.warpSpecialize = c.specialize;
    auto k = compileKite(src, o, "attention_tma.kite");
    ASSERT_TRUE(k) << k.error().str();
    size_t n = size_t(c.Z) * c.H * c.N * c.D;
    std::vector<uint16_t> hq, hk, hv;
    auto q = randomHalfs(n, 14, false, hq), kk = randomHalfs(n, 15, false, hk),
         v = randomHalfs(n, 16, false, hv);
    hq.resize(n + 8), hk.resize(n + 8), hv.resize(n + 8); // no empty buffers
    auto dq = DeviceBuffer<uint16_t>::fromHost(hq).value();
    auto dk = DeviceBuffer<uint16_t>::fromHost(hk).value();
    auto dv = DeviceBuffer<uint16_t>::fromHost(hv).value();
    auto dout =
        DeviceBuffer<uint16_t>::fromHost(std::vector<uint16_t>(n + 8, 0x7e00))
            .value();
    auto dm = DeviceBuffer<float>::fromHost(
                  std::vector<float>(size_t(c.Z) * c.H * c.N + 1, NAN))
                  .value();
    int64_t rows = std::max<int64_t>(1, int64_t(c.Z) * c.H * c.N);
    auto descK = TensorDescriptor::create(Arg(dk), {rows, c.D}, {c.D, 1},
                                          {c.blockN, c.D});
    auto descV = TensorDescriptor::create(Arg(dv), {rows, c.D}, {c.D, 1},
                                          {c.blockN, c.D});
    ASSERT_TRUE(descK && descV);
    float scale = 1.f / std::sqrt(float(c.D));
    int sz = c.H * c.N * c.D, sh = c.N * c.D, sm = c.D;
    std::vector<Arg> args = {Arg(dq), *descK, *descV, Arg(dout), Arg(dm),
                             scale,   sz,     sh,     sm,        sz,
                             sh,      sm,     c.H,    c.N};
    if (c.programs)
      args.insert(args.end() - 2, Arg(c.Z));
    auto run =
        k->launch(c.programs ? Grid(uint32_t(c.programs))
                             : Grid(uint32_t(std::max(1, (c.N + 127) / 128)),
                                    uint32_t(c.Z * c.H)),
                  args);
    ASSERT_TRUE(run) << run.error().str();
    auto out = dout.toHost().value();
    auto m = dm.toHost().value();
    std::string what =
        "Z=" + std::to_string(c.Z) + " H=" + std::to_string(c.H) +
        " N_CTX=" + std::to_string(c.N) + " HEAD_DIM=" + std::to_string(c.D) +
        " BLOCK_N=" + std::to_string(c.blockN) + (c.causal ? " causal" : "") +
        (c.specialize ? " warp-specialized" : "") +
        (c.programs
             ? " persistent on " + std::to_string(c.programs) + " programs"
             : "");
    ASSERT_NO_FATAL_FAILURE(expectAttentionMatches(
        q, kk, v, out, m, c.Z * c.H, c.N, c.D, c.causal, scale, what));
    // Nothing written past Out and M.
    EXPECT_EQ(out[n], 0x7e00) << what;
    EXPECT_TRUE(std::isnan(m[size_t(c.Z) * c.H * c.N])) << what;
  }
}

// The backward (dsl-examples/attention_bwd.kite) after the forward: dQ, dK
// and dV against a float64 backward of the same f16 inputs, at lengths that
// are not multiples of the blocks, causal and not, head dims 64 and 128,
// wgmma (sm_90a) and mma.sync (sm_80), in the tutorial's blocks (8 warps)
// and in 32 x 64 blocks on 4 warps.
TEST(GPU, AttentionBackwardAgreesWithFloat64) {
  REQUIRE_GPU();
  std::string fwdSrc = source("attention.kite"), bwdSrc = source("attention_bwd.kite");
  ASSERT_FALSE(fwdSrc.empty());
  ASSERT_FALSE(bwdSrc.empty());
  struct Case {
    int Z, H, N, D;
    bool causal;
    const char *chip;
    int block1 = 128, warps = 8; // BLOCK_N1 = BLOCK_M2
    int block2 = 32;             // BLOCK_M1 = BLOCK_N2
  };
  for (Case c : {Case{1, 2, 1000, 64, false, ""}, Case{1, 2, 1000, 64, true, ""},
                 Case{2, 1, 129, 128, false, ""}, Case{2, 1, 129, 128, true, ""},
                 Case{1, 1, 256, 64, true, ""},
                 Case{1, 2, 333, 64, true, "", 64, 4},
                 // 64 x 64 on 4 warps: the host program's blocks for d64.
                 Case{1, 2, 1000, 64, false, "", 64, 4, 64},
                 Case{1, 2, 333, 64, true, "", 64, 4, 64},
                 Case{1, 2, 1000, 64, true, "sm_80"},
                 Case{2, 1, 129, 128, false, "sm_80"}}) {
    std::string what = "Z=" + std::to_string(c.Z) + " H=" + std::to_string(c.H) +
                       " N_CTX=" + std::to_string(c.N) +
                       " HEAD_DIM=" + std::to_string(c.D) +
                       (c.causal ? " causal" : "") + " blocks " +
                       std::to_string(c.block2) + "x" +
                       std::to_string(c.block1) + " " + c.chip;
    CompileOptions fo;
    fo.constants = {{"HEAD_DIM", c.D}, {"STAGE", c.causal ? 3 : 1}};
    fo.chip = c.chip;
    auto fwd = compileKite(fwdSrc, fo, "attention.kite");
    ASSERT_TRUE(fwd) << fwd.error().str();
    CompileOptions po;
    po.kernel = "attn_bwd_preprocess";
    po.constants = {{"HEAD_DIM", c.D}, {"BLOCK_M", c.block1}};
    po.chip = c.chip;
    auto pre = compileKite(bwdSrc, po, "attention_bwd.kite");
    ASSERT_TRUE(pre) << pre.error().str();
    CompileOptions bo;
    bo.kernel = "attn_bwd";
    bo.constants = {{"HEAD_DIM", c.D}, {"CAUSAL", c.causal ? 1 : 0},
                    {"BLOCK_N1", c.block1}, {"BLOCK_M2", c.block1},
                    {"BLOCK_M1", c.block2}, {"BLOCK_N2", c.block2}};
    bo.overrideNumWarps = c.warps;
    bo.chip = c.chip;
    auto bwd = compileKite(bwdSrc, bo, "attention_bwd.kite");
    ASSERT_TRUE(bwd) << bwd.error().str();
    size_t n = size_t(c.Z) * c.H * c.N * c.D, rows = size_t(c.Z) * c.H * c.N;
    std::vector<uint16_t> hq, hk, hv, hdo;
    auto q = randomHalfs(n, 4, false, hq), kk = randomHalfs(n, 5, false, hk),
         v = randomHalfs(n, 6, false, hv), gO = randomHalfs(n, 7, false, hdo);
    auto bq = DeviceBuffer<uint16_t>::fromHost(hq).value();
    auto bk = DeviceBuffer<uint16_t>::fromHost(hk).value();
    auto bv = DeviceBuffer<uint16_t>::fromHost(hv).value();
    auto bdo = DeviceBuffer<uint16_t>::fromHost(hdo).value();
    auto nan16 = std::vector<uint16_t>(n, 0x7e00);
    auto bout = DeviceBuffer<uint16_t>::fromHost(nan16).value();
    auto bdq = DeviceBuffer<uint16_t>::fromHost(nan16).value();
    auto bdk = DeviceBuffer<uint16_t>::fromHost(nan16).value();
    auto bdv = DeviceBuffer<uint16_t>::fromHost(nan16).value();
    auto bm = DeviceBuffer<float>::allocate(rows).value();
    auto bdelta = DeviceBuffer<float>::allocate(rows).value();
    float scale = 1.f / std::sqrt(float(c.D));
    int sz = c.H * c.N * c.D, sh = c.N * c.D, sm = c.D;
    auto run = fwd->launch(Grid(uint32_t((c.N + 127) / 128), uint32_t(c.Z * c.H)),
                           {Arg(bq), Arg(bk), Arg(bv), Arg(bout), Arg(bm), scale,
                            sz, sh, sm, sz, sh, sm, sz, sh, sm, sz, sh, sm, c.H,
                            c.N, 0.f, 0});
    ASSERT_TRUE(run) << run.error().str();
    Grid grid(uint32_t((c.N + c.block1 - 1) / c.block1), uint32_t(c.Z * c.H));
    run = pre->launch(grid, {Arg(bout), Arg(bdo), Arg(bdelta), c.N});
    ASSERT_TRUE(run) << run.error().str();
    run = bwd->launch(grid, {Arg(bq), Arg(bk), Arg(bv), scale, Arg(bdo),
                             Arg(bdq), Arg(bdk), Arg(bdv), Arg(bm),
                             Arg(bdelta), c.H, c.N});
    ASSERT_TRUE(run) << run.error().str();
    auto gq = bdq.toHost().value(), gk = bdk.toHost().value(),
         gv = bdv.toHost().value();
    double worst[3] = {0, 0, 0}; // dQ, dK, dV
    const int N = c.N, D = c.D;
    for (int zh = 0; zh < c.Z * c.H; ++zh) {
      size_t base = size_t(zh) * N * D;
      auto at = [&](const std::vector<float> &t, int row, int col) {
        return double(t[base + size_t(row) * D + col]);
      };
      std::vector<double> p(size_t(N) * N, 0.0), o(size_t(N) * D, 0.0),
          ds(size_t(N) * N, 0.0);
      for (int i = 0; i < N; ++i) {
        int last = c.causal ? i : N - 1;
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j <= last; ++j) {
          double d = 0;
          for (int e = 0; e < D; ++e)
            d += at(q, i, e) * at(kk, j, e);
          p[size_t(i) * N + j] = d * scale;
          mx = std::max(mx, d * scale);
        }
        for (int j = 0; j <= last; ++j)
          sum += (p[size_t(i) * N + j] = std::exp(p[size_t(i) * N + j] - mx));
        for (int j = 0; j <= last; ++j)
          p[size_t(i) * N + j] /= sum;
        for (int j = 0; j <= last; ++j)
          for (int e = 0; e < D; ++e)
            o[size_t(i) * D + e] += p[size_t(i) * N + j] * at(v, j, e);
        double delta = 0;
        for (int e = 0; e < D; ++e)
          delta += at(gO, i, e) * o[size_t(i) * D + e];
        for (int j = 0; j <= last; ++j) {
          double dp = 0;
          for (int e = 0; e < D; ++e)
            dp += at(gO, i, e) * at(v, j, e);
          ds[size_t(i) * N + j] = p[size_t(i) * N + j] * (dp - delta);
        }
      }
      for (int r = 0; r < N; ++r)
        for (int e = 0; e < D; ++e) {
          double wq = 0, wk = 0, wv = 0;
          for (int j = 0; j < N; ++j) {
            wq += ds[size_t(r) * N + j] * at(kk, j, e) * scale;
            wk += ds[size_t(j) * N + r] * at(q, j, e) * scale;
            wv += p[size_t(j) * N + r] * at(gO, j, e);
          }
          size_t idx = base + size_t(r) * D + e;
          double got[3] = {fromHalfBits(gq[idx], false), fromHalfBits(gk[idx], false),
                           fromHalfBits(gv[idx], false)};
          double want[3] = {wq, wk, wv};
          for (int t = 0; t < 3; ++t) {
            ASSERT_FALSE(std::isnan(got[t])) << what << ": gradient " << t
                                             << " row " << r << " col " << e;
            worst[t] = std::max(worst[t], std::fabs(got[t] - want[t]));
          }
        }
    }
    // Triton's test of the tutorial allows 1e-2 on the gradients.
    EXPECT_LT(worst[0], 1e-2) << what << " (dQ)";
    EXPECT_LT(worst[1], 1e-2) << what << " (dK)";
    EXPECT_LT(worst[2], 1e-2) << what << " (dV)";
  }
}
