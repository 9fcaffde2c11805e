//===- BenchAttention.cpp - The attention rows --------------------------===//
//
// kite-bench's attention parts: tutorial 06's forward ("attention", with
// and without dropout) and backward ("attnbwd") in several block
// configurations (KITE_BENCH_BLOCKS picks them).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

using namespace kite;

namespace kitebench {

/// The comma-separated integers of environment variable `name` (none if
/// unset).
static std::vector<int> envInts(const char *name) {
  std::vector<int> out;
  for (const char *p = std::getenv(name); p && *p;) {
    char *end;
    long v = std::strtol(p, &end, 10);
    if (end == p)
      break;
    out.push_back(int(v));
    p = *end == ',' ? end + 1 : end;
  }
  return out;
}

namespace {
/// attention.kite's inputs on the device (Q, K, V: [Z, H, N, D] f16 from
/// Philox; Out; M) and its launch arguments over them (p = 0.1, seed
/// 1234), freed at the end of the scope.
struct AttnInputs {
  AttnInputs(const Kernel &fill, int Z, int H, int N, int D) {
    size_t n = size_t(Z) * H * N * D;
    for (int32_t seed : {11, 12, 13})
      buffers.push_back(filled(fill, n, 2, seed));
    buffers.push_back(deviceAlloc(n * 2).value());
    buffers.push_back(deviceAlloc(size_t(Z) * H * N * 4).value());
    synchronize().value();
    for (uint64_t p : buffers)
      args.push_back(Arg::pointer(p));
    args.push_back(float(1 / std::sqrt(double(D))));
    int sz = H * N * D, sh = N * D, sm = D;
    for (int t = 0; t < 4; ++t) // Q, K, V, Out: batch, head, row strides
      for (int stride : {sz, sh, sm})
        args.push_back(stride);
    args.insert(args.end(), {H, N, 0.1f, int32_t(1234)});
  }
  ~AttnInputs() {
    for (uint64_t p : buffers)
      deviceFree(p);
  }
  std::vector<uint64_t> buffers;
  std::vector<Arg> args;
};

/// One attention row of kite-bench's JSON lines.
void printAttnRow(const std::string &blocks, const std::string &choice, int Z,
                  int H, int N, int D, bool causal, bool dropout, double ms) {
  double flops = 4.0 * Z * H * double(N) * N * D * (causal ? 0.5 : 1);
  std::printf("{\"impl\": \"kite\", \"kernel\": \"attention\", "
              "\"blocks\": \"%s\", %s"
              "\"Z\": %d, \"H\": %d, \"N_CTX\": %d, \"HEAD_DIM\": %d, "
              "\"causal\": %s, \"dropout\": %s, \"us\": %.1f, "
              "\"tflops\": %.2f}\n",
              blocks.c_str(),
              choice.empty() ? ""
                             : ("\"choice\": \"" + choice + "\", ").c_str(),
              Z, H, N, D, causal ? "true" : "false", dropout ? "0.1" : "0",
              ms * 1e3, flops / ms / 1e9);
  std::fflush(stdout);
}
} // namespace

int runAttention() {
  // Attention forward (tutorial 06, dsl-examples/attention.kite): f16, Z = 4
  // batches of H = 32 heads (the tutorial's benchmark), head dims 64 and
  // 128, causal and not, in four block configurations (BLOCK_M x BLOCK_N
  // on warps: the example's 128x64 on 8 warps first).
  struct AttnConfig {
    int bm, bn, warps;
    int stages = 0; ///< 0: the kernel's own
    int maxnreg = 0; ///< 0: ptxas's choice (and the runtime's)
    /// As the JSON rows name it: "128x64 w8 s2 r128".
    std::string row() const {
      return std::to_string(bm) + "x" + std::to_string(bn) + " w" +
             std::to_string(warps) +
             (stages ? " s" + std::to_string(stages) : std::string()) +
             (maxnreg ? " r" + std::to_string(maxnreg) : std::string());
    }
  };
  std::vector<AttnConfig> attnConfigs =
      quick ? std::vector<AttnConfig>{{128, 64, 8}}
            : std::vector<AttnConfig>{{128, 64, 8}, {64, 64, 4}, {128, 128, 8},
                                      {128, 64, 4}};
  // KITE_BENCH_BLOCKS=128x64w8,32x64w4s2,128x64w8r128
  // (BMxBNwWARPS[sSTAGES][rMAXNREG], any): these attention configurations
  // instead of the lists below (forward and backward alike).
  const char *blocksEnv = std::getenv("KITE_BENCH_BLOCKS");
  std::vector<AttnConfig> chosen;
  for (const char *p = blocksEnv; p && *p;) {
    AttnConfig c{0, 0, 0};
    int used = 0;
    if (std::sscanf(p, "%dx%dw%d%n", &c.bm, &c.bn, &c.warps, &used) != 3) {
      std::fprintf(stderr, "KITE_BENCH_BLOCKS: expected BMxBNwW[sS], got '%s'\n", p);
      return 2;
    }
    p += used;
    if (*p == 's') {
      c.stages = int(std::strtol(p + 1, const_cast<char **>(&p), 10));
    }
    if (*p == 'r')
      c.maxnreg = int(std::strtol(p + 1, const_cast<char **>(&p), 10));
    chosen.push_back(c);
    if (*p == ',')
      ++p;
  }
  if (!chosen.empty())
    attnConfigs = chosen;

  std::vector<int> lengths =
      quick ? std::vector<int>{1024} : std::vector<int>{1024, 4096, 16384};
  // KITE_BENCH_LENGTHS=4096, KITE_BENCH_HEAD_DIMS=128, KITE_BENCH_CAUSAL=0
  // (or 1): only these rows (e.g. for one kernel under ncu).
  if (std::vector<int> only = envInts("KITE_BENCH_LENGTHS"); !only.empty())
    lengths = only;
  std::vector<int> headDims = envInts("KITE_BENCH_HEAD_DIMS");
  if (headDims.empty())
    headDims = {64, 128};
  std::vector<int> causalOnly = envInts("KITE_BENCH_CAUSAL");
  for (AttnConfig cfg : part("attention") ? attnConfigs
                                          : std::vector<AttnConfig>{}) {
    Kernel fill = load("bench/fill.kite", "fill_f16");
    const int Z0 = 4, H0 = 32;
    // With dropout (p = 0.1, attention.kite's DROPOUT = 1): the first
    // configuration only (its blocks are 64 columns wide).
    for (int D : headDims)
      for (int mode : {0, 1, 2, 3}) {
        bool causal = mode & 1, dropout = mode >= 2;
        if (!causalOnly.empty() && causalOnly[0] != int(causal))
          continue;
        if (dropout && std::getenv("KITE_BENCH_DROPOUT") &&
            std::string(std::getenv("KITE_BENCH_DROPOUT")) == "0")
          continue;
        if (dropout && (cfg.bn % 64 || cfg.bm != attnConfigs[0].bm ||
                        cfg.bn != attnConfigs[0].bn ||
                        cfg.warps != attnConfigs[0].warps))
          continue;
        CompileOptions o;
        o.constants = {{"HEAD_DIM", D}, {"STAGE", causal ? 3 : 1},
                       {"BLOCK_M", cfg.bm}, {"BLOCK_N", cfg.bn},
                       {"DROPOUT", dropout ? 1 : 0}};
        o.overrideNumWarps = cfg.warps;
        o.overrideNumStages = cfg.stages;
        o.overrideMaxRegisters = cfg.maxnreg;
        Kernel attn = load("dsl-examples/attention.kite", "", o);
        std::optional<Kernel> tmaKernel, wsKernel, persistKernel;
        if (const char *t = std::getenv("KITE_BENCH_ATTN_TMA");
            !(t && std::string(t) == "0") && !dropout && cfg.warps == 8) {
          CompileOptions to = o;
          to.constants.erase("DROPOUT");
          tmaKernel = load("dsl-examples/attention_tma.kite", "attn_fwd", to);
          // The copies by a producer warpgroup; and its persistent form
          // (one program an SM walking the tiles).
          to.warpSpecialize = true;
          wsKernel = load("dsl-examples/attention_tma.kite", "attn_fwd", to);
          persistKernel =
              load("dsl-examples/attention_tma.kite", "attn_fwd_persist", to);
        }
        const int sms = deviceMultiprocessors().value();
        for (int N : lengths) {
          // KITE_BENCH_PROGRAMS=P: Z = 1 and as many heads as give P
          // programs (one wave at P = #SMs: the time of one program, for
          // a fit of time against the length).
          int Z = Z0, H = H0;
          if (const char *p = std::getenv("KITE_BENCH_PROGRAMS")) {
            Z = 1;
            H = std::max(1, std::atoi(p) / int(cdiv(N, cfg.bm)));
          }
          AttnInputs in(fill, Z, H, N, D);
          Grid grid(uint32_t(cdiv(N, cfg.bm)), uint32_t(Z * H));
          double ms = timeMs([&] { attn.launch(grid, in.args).value(); }, 10,
                             /*settle=*/true);
          printAttnRow(cfg.row(), "", Z, H, N, D, causal, dropout, ms);
          // Also dsl-examples/attention_tma.kite (K and V through host
          // tensor descriptors: TMA on sm_90a), the same blocks, as
          // "<blocks> tma", and with a producer warpgroup as "<blocks> tma
          // ws" (8-warp configurations, which the producer needs;
          // KITE_BENCH_ATTN_TMA=0: neither).
          if (tmaKernel) {
            auto half = [](uint64_t p) {
              return Arg(reinterpret_cast<uint16_t *>(p));
            };
            int64_t rows = int64_t(Z) * H * N;
            auto dk = TensorDescriptor::create(half(in.buffers[1]), {rows, D},
                                               {D, 1}, {cfg.bn, D})
                          .value();
            auto dv = TensorDescriptor::create(half(in.buffers[2]), {rows, D},
                                               {D, 1}, {cfg.bn, D})
                          .value();
            int sz = H * N * D, sh = N * D, sm = D;
            std::vector<Arg> args = {Arg::pointer(in.buffers[0]),
                                     dk,
                                     dv,
                                     Arg::pointer(in.buffers[3]),
                                     Arg::pointer(in.buffers[4]),
                                     float(1 / std::sqrt(double(D))),
                                     sz,
                                     sh,
                                     sm,
                                     sz,
                                     sh,
                                     sm,
                                     H,
                                     N};
            // Each form's outputs agree with the pointer kernel's (the same
            // inputs, order of operations and blocks: bit for bit).
            size_t outs = size_t(Z) * H * N * D;
            std::vector<uint16_t> ref(outs), got(outs);
            copyToHost(ref.data(), in.buffers[3], outs * 2).value();
            auto measure = [&](const Kernel &k, const std::string &form, Grid g,
                               const std::vector<Arg> &args) {
              double ms = timeMs([&] { k.launch(g, args).value(); }, 10,
                                 /*settle=*/true);
              copyToHost(got.data(), in.buffers[3], outs * 2).value();
              size_t differ = 0;
              for (size_t i = 0; i < outs; ++i)
                differ += ref[i] != got[i];
              std::fprintf(stderr,
                           "attention %s d%d N=%d causal=%d: %zu of %zu "
                           "outputs differ from the pointer kernel's\n",
                           form.c_str(), D, N, int(causal), differ, outs);
              printAttnRow(cfg.row() + " " + form, "", Z, H, N, D, causal,
                           dropout, ms);
            };
            measure(*tmaKernel, "tma", grid, args);
            measure(*wsKernel, "tma ws", grid, args);
            // The persistent form takes Z too (before H).
            std::vector<Arg> pargs = args;
            pargs.insert(pargs.end() - 2, Arg(Z));
            int64_t tiles = cdiv(N, cfg.bm) * Z * H;
            measure(*persistKernel, "tma ws persist",
                    Grid(uint32_t(std::min<int64_t>(sms, tiles))), pargs);
          }
        }
      }
  }

  // "tuned": the example autotuned over the configurations above, given
  // from the host (CompileOptions::autotuneConfigs, key N_CTX), as
  // Triton's column is its autotuned best. KITE_BENCH_TUNED=0 leaves it
  // out.
  const char *tunedEnv = std::getenv("KITE_BENCH_TUNED");
  bool tunedRows = part("attention") && attnConfigs.size() > 1 &&
                   !(tunedEnv && std::string(tunedEnv) == "0");
  for (int D : tunedRows ? headDims : std::vector<int>{})
    for (int causal : {0, 1}) {
      if (!causalOnly.empty() && causalOnly[0] != causal)
        continue;
      Kernel fill = load("bench/fill.kite", "fill_f16");
      const int Z = 4, H = 32;
      CompileOptions o;
      o.constants = {
          {"HEAD_DIM", D}, {"STAGE", causal ? 3 : 1}, {"DROPOUT", 0}};
      for (const AttnConfig &cfg : attnConfigs) {
        TuningConfig c;
        c.constants = {{"BLOCK_M", cfg.bm}, {"BLOCK_N", cfg.bn}};
        c.numWarps = cfg.warps;
        c.numStages = cfg.stages;
        c.maxRegisters = cfg.maxnreg;
        o.autotuneConfigs.push_back(c);
      }
      o.autotuneKey = {"N_CTX"};
      Kernel attn = load("dsl-examples/attention.kite", "", o);
      for (int N : lengths) {
        AttnInputs in(fill, Z, H, N, D);
        auto grid = [&](const TuningConfig &c) {
          return Grid(uint32_t(cdiv(N, int64_t(c.constants.at("BLOCK_M")))),
                      uint32_t(Z * H));
        };
        TuningConfig chosen = attn.tune(grid, in.args).value();
        double ms = timeMs([&] { attn.launch(grid, in.args).value(); }, 10,
                           /*settle=*/true);
        printAttnRow("tuned", chosen.str(), Z, H, N, D, causal, false, ms);
      }
    }

  // Attention backward (tutorial 06, dsl-examples/attention_bwd.kite):
  // the preprocess (Delta) and the dQ/dK/dV kernel, timed together, after
  // one forward for Out and M. BLOCK_M1 x BLOCK_N1 (dK, dV; BLOCK_M2 =
  // BLOCK_N1, BLOCK_N2 = BLOCK_M1) on warps.
  std::vector<AttnConfig> bwdConfigs =
      quick ? std::vector<AttnConfig>{{32, 128, 8}}
            : std::vector<AttnConfig>{{32, 128, 8}, {32, 64, 4}, {64, 64, 4}};
  if (!chosen.empty())
    bwdConfigs = chosen;
  for (AttnConfig cfg : part("attnbwd") ? bwdConfigs : std::vector<AttnConfig>{}) {
    Kernel fill = load("bench/fill.kite", "fill_f16");
    const int Z = 4, H = 32;
    std::vector<int> lengths = quick ? std::vector<int>{1024}
                                     : std::vector<int>{1024, 4096, 16384};
    for (int D : {64, 128})
      for (bool causal : {false, true}) {
        CompileOptions fo;
        fo.constants = {{"HEAD_DIM", D}, {"STAGE", causal ? 3 : 1},
                        {"BLOCK_M", 128}, {"BLOCK_N", 64}};
        Kernel fwd = load("dsl-examples/attention.kite", "", fo);
        CompileOptions po;
        po.constants = {{"HEAD_DIM", D}, {"BLOCK_M", cfg.bn}};
        Kernel pre = load("dsl-examples/attention_bwd.kite",
                          "attn_bwd_preprocess", po);
        CompileOptions bo;
        bo.constants = {{"HEAD_DIM", D}, {"CAUSAL", causal ? 1 : 0},
                        {"BLOCK_M1", cfg.bm}, {"BLOCK_N1", cfg.bn},
                        {"BLOCK_M2", cfg.bn}, {"BLOCK_N2", cfg.bm}};
        bo.overrideNumWarps = cfg.warps;
        bo.overrideNumStages = cfg.stages;
        Kernel bwd = load("dsl-examples/attention_bwd.kite", "attn_bwd", bo);
        for (int N : lengths) {
          size_t n = size_t(Z) * H * N * D, rows = size_t(Z) * H * N;
          uint64_t q = filled(fill, n, 2, 11), k = filled(fill, n, 2, 12),
                   v = filled(fill, n, 2, 13), dout = filled(fill, n, 2, 14);
          uint64_t out = deviceAlloc(n * 2).value(),
                   m = deviceAlloc(rows * 4).value(),
                   delta = deviceAlloc(rows * 4).value(),
                   dq = deviceAlloc(n * 2).value(),
                   dk = deviceAlloc(n * 2).value(),
                   dv = deviceAlloc(n * 2).value();
          int sz = H * N * D, sh = N * D, sm = D;
          float scale = float(1 / std::sqrt(double(D)));
          fwd.launch(Grid(uint32_t(cdiv(N, 128)), uint32_t(Z * H)),
                     {Arg::pointer(q), Arg::pointer(k), Arg::pointer(v),
                      Arg::pointer(out), Arg::pointer(m), scale, sz, sh, sm,
                      sz, sh, sm, sz, sh, sm, sz, sh, sm, H, N, 0.f,
                      int32_t(0)})
              .value();
          synchronize().value();
          Grid grid(uint32_t(cdiv(N, cfg.bn)), uint32_t(Z * H));
          std::vector<Arg> preArgs = {Arg::pointer(out), Arg::pointer(dout),
                                      Arg::pointer(delta), N};
          std::vector<Arg> args = {Arg::pointer(q),  Arg::pointer(k),
                                   Arg::pointer(v),  scale,
                                   Arg::pointer(dout), Arg::pointer(dq),
                                   Arg::pointer(dk), Arg::pointer(dv),
                                   Arg::pointer(m),  Arg::pointer(delta),
                                   H, N};
          double ms = timeMs(
              [&] {
                pre.launch(grid, preArgs).value();
                bwd.launch(grid, args).value();
              },
              10, /*settle=*/true);
          double flops = 10.0 * Z * H * double(N) * N * D * (causal ? 0.5 : 1);
          std::printf(
              "{\"impl\": \"kite\", \"kernel\": \"attention_bwd\", "
              "\"blocks\": \"%dx%d w%d%s%s\", "
              "\"Z\": %d, \"H\": %d, \"N_CTX\": %d, \"HEAD_DIM\": %d, "
              "\"causal\": %s, \"us\": %.1f, \"tflops\": %.2f}\n",
              cfg.bm, cfg.bn, cfg.warps,
              cfg.stages ? (" s" + std::to_string(cfg.stages)).c_str() : "",
              cfg.maxnreg ? (" r" + std::to_string(cfg.maxnreg)).c_str() : "",
              Z, H, N, D, causal ? "true" : "false", ms * 1e3,
              flops / ms / 1e9);
          std::fflush(stdout);
          for (uint64_t p : {q, k, v, dout, out, m, delta, dq, dk, dv})
            deviceFree(p);
        }
      }
  }
  return 0;
}

} // namespace kitebench
