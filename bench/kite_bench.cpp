//===- kite_bench.cpp - Kite's kernel benchmarks on the GPU
//----------------===//
//
//   kite-bench DIR [--quick]     (KITE_BENCH_ONLY=1d,rows,math,perceptron,
//                                 attention,matmul,fp8: some parts; "matmul"
//                                 includes the fp8 rows; "tuned" alone: only
//                                 the autotuned matmul rows)
//
// Times, through the runtime, the tutorial kernels compiled from DIR's
// dsl-examples/*.kite and bench/*.kite, and prints one JSON line per
// measurement:
//   - vector add, dropout, seeded dropout for n = 2^20 .. 2^28 elements, and
//     a device-to-device copy of n floats measured the same way (the
//     bandwidth ceiling of the same run);
//   - the tutorial matmul in f32 (exact and tf32), f16 and bf16 inputs at
//   1024^3, 4096^3,
//     8192^3 and 4096x4096x512; tutorial 09's persistent forms; fp8 (e4m3)
//     with per-tensor scales, also at 8192x8192x4096;
//   - softmax (f32) and layer norm forward (f16) over 4096 rows of 256 to
//     16384 columns;
//   - elementwise math: tutorial 07's libdevice asin and a sigmoid, f32;
//   - a perceptron layer, sigmoid(X W + b) in f16, autotuned;
//   - the attention forward (tutorial 06), f16, 4 x 32 heads, head dims 64
//     and 128, causal and not.
// Protocol: inputs generated on the device with Philox (never zeros);
// before every timed launch the L2 is flushed (a 256 MB memset); CUDA
// events around the launch; 3 warm-up runs; the median of 25 runs (10 for
// matmul). --quick: 2^20 and 2^24 only, matmul at 1024^3.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace kite;

static std::string root;

static Kernel load(const std::string &path, const std::string &kernel = "",
                   CompileOptions o = {}) {
  o.kernel = kernel;
  return compileFile(root + "/" + path, o).value();
}

/// Device buffer of n elements of `bytes` each, filled by `fill`.
static uint64_t filled(const Kernel &fill, size_t n, size_t bytes,
                       int32_t seed) {
  uint64_t p = deviceAlloc(n * bytes).value();
  fill.launch(cdiv(n, 1024), {Arg::pointer(p), int32_t(n), seed}).value();
  return p;
}

static uint64_t flushBuffer;
static const size_t kFlushBytes = size_t(256) << 20;

/// Median milliseconds of `run`, each run after an L2 flush.
/// The median of at least `reps` timed runs, each after an L2 flush. With
/// `settle` (the matmul rows, as bench_triton.py's Triton and cuBLAS rows):
/// 300 ms idle first, warm-up runs for 25 ms and timed runs for at least
/// 100 ms (Triton's do_bench defaults). Right after heavy kernels (the
/// 8192^3 matmuls) the H100 runs the next ones up to 25% slower for a few
/// hundred milliseconds (4096x4096x512 f16: 63.8 us instead of 50.8 after
/// 8 s of 8192^3 matmuls), which a 1 ms measurement took for the kernel's
/// speed; longer warm-ups instead let sustained power limits lower the
/// clocks of the large shapes.
static double timeMs(const std::function<void()> &run, int reps,
                     bool settle = false) {
  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t) {
    return std::chrono::duration<double, std::milli>(clock::now() - t).count();
  };
  Event start = Event::create().value(), stop = Event::create().value();
  if (settle) {
    synchronize().value();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  auto t0 = clock::now();
  for (int w = 0; w < 3 || (settle && since(t0) < 25); ++w) {
    if (settle)
      memsetDevice(flushBuffer, 0, kFlushBytes).value();
    run();
    synchronize().value();
  }
  t0 = clock::now();
  std::vector<double> ms;
  for (int r = 0; r < reps || (settle && since(t0) < 100 && r < 1000); ++r) {
    memsetDevice(flushBuffer, uint8_t(r), kFlushBytes).value();
    start.record().value();
    run();
    stop.record().value();
    ms.push_back(Event::elapsedMs(start, stop).value());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kite-bench DIR [--quick]\n");
    return 2;
  }
  root = argv[1];
  bool quick = argc > 2 && std::strcmp(argv[2], "--quick") == 0;
  // The kernels' optimized code from the first launch: a tiered compile's
  // quick tier would otherwise run the first launches of every size. (The
  // optimized code is the same either way: same PTX, same cache key.)
  setenv("KITE_TIERED", "0", /*overwrite=*/0);
  flushBuffer = deviceAlloc(kFlushBytes).value();
  Kernel fillF32 = load("bench/fill.kite", "fill_f32");
  Kernel fillKeep = load("bench/fill.kite", "fill_keep");
  Kernel add = load("dsl-examples/vector_add.kite");
  Kernel dropout = load("dsl-examples/dropout.kite");
  Kernel seeded = load("dsl-examples/seeded_dropout.kite");

  // KITE_BENCH_ONLY=1d,rows,matmul (any of them): only those parts.
  const char *onlyEnv = std::getenv("KITE_BENCH_ONLY");
  std::string only =
      onlyEnv ? onlyEnv : "1d,rows,math,perceptron,attention,attnbwd,matmul";
  auto part = [&](const char *name) {
    return only.find(name) != std::string::npos;
  };
  // (log2 n, extra): n = 2^log2n + extra; the odd sizes (extra 1) run
  // every program but the last without masked-off elements.
  std::vector<std::pair<int, int>> logs =
      !part("1d") ? std::vector<std::pair<int, int>>{}
      : quick     ? std::vector<std::pair<int, int>>{{20, 0}, {24, 0}}
                  : std::vector<std::pair<int, int>>{
                        {20, 0}, {22, 0}, {24, 0}, {26, 0}, {28, 0},
                        {24, 1}, {26, 1}};
  for (auto [lg, extra] : logs) {
    size_t n = (size_t(1) << lg) + extra;
    uint64_t x = filled(fillF32, n, 4, 1), y = filled(fillF32, n, 4, 2);
    uint64_t keep = filled(fillKeep, n, 4, 3);
    uint64_t out = deviceAlloc(n * 4).value();
    synchronize().value();
    uint32_t grid = cdiv(n, 1024);
    double copy = timeMs([&] { copyDeviceToDevice(out, x, n * 4).value(); }, 25);
    struct Case {
      const char *name;
      double bytesPerElement;
      std::function<void()> run;
    };
    Case cases[] = {
        {"vector_add", 12, [&] {
           add.launch(grid, {Arg::pointer(x), Arg::pointer(y), Arg::pointer(out),
                             int32_t(n)}).value();
         }},
        {"dropout", 12, [&] {
           dropout.launch(grid, {Arg::pointer(x), Arg::pointer(keep),
                                 Arg::pointer(out), int32_t(n), 0.5f}).value();
         }},
        {"seeded_dropout", 8, [&] {
           seeded.launch(grid, {Arg::pointer(x), Arg::pointer(out), int32_t(n),
                                0.5f, int32_t(123)}).value();
         }},
    };
    double copyGBps = 8.0 * n / copy / 1e6;
    std::printf("{\"impl\": \"copy\", \"kernel\": \"copy\", \"log2n\": %d, "
                "\"extra\": %d, \"us\": %.2f, \"GBps\": %.1f}\n",
                lg, extra, copy * 1e3, copyGBps);
    for (Case &c : cases) {
      double ms = timeMs(c.run, 25);
      double gbps = c.bytesPerElement * n / ms / 1e6;
      std::printf("{\"impl\": \"kite\", \"kernel\": \"%s\", \"log2n\": %d, "
                  "\"extra\": %d, \"us\": %.2f, \"GBps\": %.1f, "
                  "\"copy_GBps\": %.1f}\n",
                  c.name, lg, extra, ms * 1e3, gbps, copyGBps);
    }
    std::fflush(stdout);
    for (uint64_t p : {x, y, keep, out})
      deviceFree(p);
  }

  // Softmax (tutorial 02, f32) and layer norm forward (tutorial 05, f16)
  // over 4096 rows, one program per row; GB/s counts the row read once and
  // written once (Triton's tutorial figure).
  if (part("rows")) {
    Kernel fillF16 = load("bench/fill.kite", "fill_f16");
    const int rows = 4096;
    std::vector<int> widths =
        quick ? std::vector<int>{1024, 4096}
              : std::vector<int>{256, 512, 781, 1024, 2048, 4096, 8192, 16384};
    for (int cols : widths) {
      int block = 1;
      while (block < cols)
        block *= 2;
      size_t n = size_t(rows) * cols;
      CompileOptions o;
      o.constants = {{"BLOCK_SIZE", block}};
      Kernel softmax = load("dsl-examples/softmax.kite", "", o);
      uint64_t x = filled(fillF32, n, 4, 6);
      uint64_t y = deviceAlloc(n * 4).value();
      synchronize().value();
      double ms = timeMs(
          [&] {
            softmax.launch(rows, {Arg::pointer(y), Arg::pointer(x), cols, cols,
                                  rows, cols})
                .value();
          },
          25);
      double copy = timeMs([&] { copyDeviceToDevice(y, x, n * 4).value(); }, 25);
      std::printf("{\"impl\": \"kite\", \"kernel\": \"softmax\", \"rows\": %d, "
                  "\"cols\": %d, \"us\": %.2f, \"GBps\": %.1f, \"copy_GBps\": %.1f}\n",
                  rows, cols, ms * 1e3, 8.0 * n / ms / 1e6, 8.0 * n / copy / 1e6);
      std::fflush(stdout);
      deviceFree(x);
      deviceFree(y);

      // Layer norm: the tutorial's block (at most 64 KB of f16) and warps.
      CompileOptions lo;
      lo.constants = {{"BLOCK_SIZE", std::min(block, 32768)}};
      lo.overrideNumWarps = std::clamp(std::min(block, 32768) / 256, 1, 8);
      Kernel ln = load("dsl-examples/layer_norm.kite", "", lo);
      uint64_t hx = filled(fillF16, n, 2, 7), hw = filled(fillF16, cols, 2, 8),
               hb = filled(fillF16, cols, 2, 9);
      uint64_t hy = deviceAlloc(n * 2).value();
      uint64_t mean = deviceAlloc(rows * 4).value(),
               rstd = deviceAlloc(rows * 4).value();
      synchronize().value();
      ms = timeMs(
          [&] {
            ln.launch(rows, {Arg::pointer(hx), Arg::pointer(hy), Arg::pointer(hw),
                             Arg::pointer(hb), Arg::pointer(mean),
                             Arg::pointer(rstd), cols, cols, 1e-5f})
                .value();
          },
          25);
      copy = timeMs([&] { copyDeviceToDevice(hy, hx, n * 2).value(); }, 25);
      std::printf("{\"impl\": \"kite\", \"kernel\": \"layer_norm\", \"rows\": %d, "
                  "\"cols\": %d, \"us\": %.2f, \"GBps\": %.1f, \"copy_GBps\": %.1f}\n",
                  rows, cols, ms * 1e3, 4.0 * n / ms / 1e6, 4.0 * n / copy / 1e6);
      std::fflush(stdout);

      // Layer norm backward (tutorial 05's two kernels, with the forward's
      // mean and rstd): dx fused with the lock-guarded partial dw/db sums of
      // GROUP_SIZE_M groups, then their reduction; the tutorial's block,
      // warps and groups. Timed with the locks' reset, as Triton's side.
      int bwdBlock = std::min(block, 32768);
      int group = cols <= 1024   ? 256
                  : cols <= 4096 ? 128
                  : cols <= 8192 ? 96
                                 : 64;
      CompileOptions dxo;
      dxo.constants = {{"BLOCK_SIZE_N", bwdBlock}, {"GROUP_SIZE_M", group}};
      dxo.overrideNumWarps = std::clamp(bwdBlock / 256, 1, 8);
      Kernel dxk = load("dsl-examples/layer_norm_bwd.kite",
                        "_layer_norm_bwd_dx_fused", dxo);
      Kernel dwdb = load("dsl-examples/layer_norm_bwd.kite",
                         "_layer_norm_bwd_dwdb");
      uint64_t hdy = filled(fillF16, n, 2, 10);
      uint64_t hdx = deviceAlloc(n * 2).value();
      uint64_t pdw = deviceAlloc(size_t(group) * cols * 2).value(),
               pdb = deviceAlloc(size_t(group) * cols * 2).value();
      uint64_t locks = deviceAlloc(size_t(group) * 2 * 4).value();
      uint64_t fdw = deviceAlloc(size_t(cols) * 2).value(),
               fdb = deviceAlloc(size_t(cols) * 2).value();
      synchronize().value();
      ms = timeMs(
          [&] {
            memsetDevice(locks, 0, size_t(group) * 2 * 4).value();
            dxk.launch(rows, {Arg::pointer(hdx), Arg::pointer(hdy),
                              Arg::pointer(pdw), Arg::pointer(pdb),
                              Arg::pointer(hx), Arg::pointer(hw),
                              Arg::pointer(mean), Arg::pointer(rstd),
                              Arg::pointer(locks), cols, cols})
                .value();
            dwdb.launch(cdiv(cols, 128),
                        {Arg::pointer(pdw), Arg::pointer(pdb),
                         Arg::pointer(fdw), Arg::pointer(fdb),
                         std::min(group, rows), cols})
                .value();
          },
          25);
      // Bytes: x and dy read, dx written (the tutorial's figure).
      copy = timeMs([&] { copyDeviceToDevice(hdx, hx, n * 2).value(); }, 25);
      std::printf("{\"impl\": \"kite\", \"kernel\": \"layer_norm_bwd\", "
                  "\"rows\": %d, \"cols\": %d, \"us\": %.2f, \"GBps\": %.1f, "
                  "\"copy_GBps\": %.1f}\n",
                  rows, cols, ms * 1e3, 6.0 * n / ms / 1e6, 4.0 * n / copy / 1e6);
      std::fflush(stdout);
      for (uint64_t p : {hx, hw, hb, hy, mean, rstd, hdy, hdx, pdw, pdb, locks,
                         fdw, fdb})
        deviceFree(p);
    }
  }

  // Elementwise math (tutorial 07's libdevice asin, the sigmoid example)
  // for n = 2^20, 2^24, 2^26 and 2^24 + 1, f32 in and out (8 bytes an
  // element, the copy of the same run beside them); asin's inputs lie in
  // [-1, 1).
  if (part("math")) {
    Kernel asin = load("dsl-examples/libdevice.kite");
    Kernel sig = load("dsl-examples/sigmoid.kite");
    Kernel fillUnit = load("bench/fill.kite", "fill_unit");
    std::vector<std::pair<int, int>> sizes =
        quick ? std::vector<std::pair<int, int>>{{24, 0}}
              : std::vector<std::pair<int, int>>{{20, 0}, {24, 0}, {26, 0}, {24, 1}};
    for (auto [lg, extra] : sizes) {
      size_t n = (size_t(1) << lg) + extra;
      uint64_t x = filled(fillUnit, n, 4, 6);
      uint64_t y = deviceAlloc(n * 4).value();
      synchronize().value();
      uint32_t grid = uint32_t(cdiv(n, 1024));
      double copy = timeMs([&] { copyDeviceToDevice(y, x, n * 4).value(); }, 25);
      for (auto [name, k] : {std::pair<const char *, Kernel *>{"asin", &asin},
                             {"sigmoid", &sig}}) {
        double ms = timeMs([&] {
          k->launch(grid, {Arg::pointer(x), Arg::pointer(y), int32_t(n)}).value();
        }, 25);
        std::printf("{\"impl\": \"kite\", \"kernel\": \"%s\", \"log2n\": %d, "
                    "\"extra\": %d, \"us\": %.2f, \"GBps\": %.1f, "
                    "\"copy_GBps\": %.1f}\n",
                    name, lg, extra, ms * 1e3, 8.0 * n / ms / 1e6,
                    8.0 * n / copy / 1e6);
      }
      std::fflush(stdout);
      deviceFree(x);
      deviceFree(y);
    }
  }

  // Tutorial 04's exercises (dsl-examples/dropout_exercises.kite): seeded
  // dropout of a 4096 x 4096 matrix with a seed per row (GB/s: 8 bytes an
  // element), and a sparse JL transform of 4096 x 4096 to 256 columns
  // (GFLOP/s of the dense product it stands for).
  if (part("math")) {
    Kernel drop = load("dsl-examples/dropout_exercises.kite", "seeded_dropout_rows");
    Kernel jl = load("dsl-examples/dropout_exercises.kite", "sparse_jl");
    Kernel fill = load("bench/fill.kite", "fill_f32");
    const int rows = 4096, cols = 4096, k = 256;
    size_t n = size_t(rows) * cols;
    uint64_t x = filled(fill, n, 4, 14), y = deviceAlloc(n * 4).value();
    uint64_t seeds = deviceAlloc(rows * 4).value();
    std::vector<int32_t> hs(rows);
    for (int r = 0; r < rows; ++r)
      hs[r] = 17 + r;
    copyToDevice(seeds, hs.data(), rows * 4).value();
    synchronize().value();
    double ms = timeMs([&] {
      drop.launch(Grid(rows, uint32_t(cdiv(cols, 1024))),
                  {Arg::pointer(x), Arg::pointer(y), Arg::pointer(seeds), cols,
                   cols, cols, 0.3f}).value();
    }, 25);
    std::printf("{\"impl\": \"kite\", \"kernel\": \"seeded_dropout_rows\", "
                "\"rows\": %d, \"cols\": %d, \"us\": %.2f, \"GBps\": %.1f}\n",
                rows, cols, ms * 1e3, 8.0 * n / ms / 1e6);
    ms = timeMs([&] {
      jl.launch(Grid(uint32_t(cdiv(rows, 32)), uint32_t(cdiv(k, 32))),
                {Arg::pointer(x), Arg::pointer(y), rows, cols, k, 99}).value();
    }, 10);
    std::printf("{\"impl\": \"kite\", \"kernel\": \"sparse_jl\", "
                "\"rows\": %d, \"cols\": %d, \"k\": %d, \"us\": %.2f, "
                "\"gflops\": %.1f}\n",
                rows, cols, k, ms * 1e3, 2.0 * rows * cols * k / ms / 1e6);
    std::fflush(stdout);
    for (uint64_t p : {x, y, seeds})
      deviceFree(p);
  }

  // The perceptron layer (dsl-examples/perceptron.kite): Y = sigmoid(X W +
  // b) in f16, autotuned (outside the timing) like the matmul rows.
  if (part("perceptron")) {
    Kernel layer = load("dsl-examples/perceptron.kite");
    Kernel fill16 = load("bench/fill.kite", "fill_f16");
    Kernel fill32 = load("bench/fill.kite", "fill_f32");
    struct PShape {
      int M, N, K;
    };
    std::vector<PShape> pshapes =
        quick ? std::vector<PShape>{{4096, 4096, 4096}}
              : std::vector<PShape>{{1024, 1024, 1024}, {4096, 4096, 4096},
                                    {8192, 8192, 8192}};
    for (PShape s : pshapes) {
      uint64_t x = filled(fill16, size_t(s.M) * s.K, 2, 7);
      uint64_t w = filled(fill16, size_t(s.K) * s.N, 2, 8);
      uint64_t b = filled(fill32, size_t(s.N), 4, 9);
      uint64_t y = deviceAlloc(size_t(s.M) * s.N * 2).value();
      synchronize().value();
      std::vector<Arg> args = {Arg::pointer(x), Arg::pointer(w), Arg::pointer(b),
                               Arg::pointer(y), s.M, s.N, s.K, s.K, s.N, s.N};
      auto grid = [&](const TuningConfig &t) {
        return Grid(uint32_t(cdiv(s.M, int(t.constants.at("BLOCK_M"))) *
                             cdiv(s.N, int(t.constants.at("BLOCK_N")))));
      };
      auto tuned = layer.tune(grid, args);
      if (tuned) {
        double ms = timeMs([&] { layer.launch(grid, args).value(); }, 10,
                           /*settle=*/true);
        std::printf("{\"impl\": \"kite\", \"kernel\": \"perceptron\", "
                    "\"config\": \"%s\", \"M\": %d, \"N\": %d, \"K\": %d, "
                    "\"us\": %.1f, \"tflops\": %.2f}\n",
                    tuned->str().c_str(), s.M, s.N, s.K, ms * 1e3,
                    2.0 * s.M * double(s.N) * s.K / ms / 1e9);
        std::fflush(stdout);
      } else {
        std::fprintf(stderr, "kite-bench: autotuning failed: %s\n",
                     tuned.error().str().c_str());
      }
      for (uint64_t p : {x, w, b, y})
        deviceFree(p);
    }
  }

  // Attention forward (tutorial 06, dsl-examples/attention.kite): f16, Z = 4
  // batches of H = 32 heads (the tutorial's benchmark), head dims 64 and
  // 128, causal and not, in four block configurations (BLOCK_M x BLOCK_N
  // on warps: the example's 128x64 on 8 warps first).
  struct AttnConfig {
    int bm, bn, warps;
    int stages = 0; ///< 0: the kernel's own
    int maxnreg = 0; ///< 0: ptxas's choice (and the runtime's)
    std::string name() const {
      return std::to_string(bm) + "x" + std::to_string(bn) + "w" +
             std::to_string(warps) +
             (stages ? "s" + std::to_string(stages) : std::string()) +
             (maxnreg ? "r" + std::to_string(maxnreg) : std::string());
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

  for (AttnConfig cfg : part("attention") ? attnConfigs
                                          : std::vector<AttnConfig>{}) {
    Kernel fill = load("bench/fill.kite", "fill_f16");
    const int Z = 4, H = 32;
    std::vector<int> lengths = quick ? std::vector<int>{1024}
                                     : std::vector<int>{1024, 4096, 16384};
    // With dropout (p = 0.1, attention.kite's DROPOUT = 1): the first
    // configuration only (its blocks are 64 columns wide).
    for (int D : {64, 128})
      for (int mode : {0, 1, 2, 3}) {
        bool causal = mode & 1, dropout = mode >= 2;
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
        for (int N : lengths) {
          size_t n = size_t(Z) * H * N * D;
          uint64_t q = filled(fill, n, 2, 11), k = filled(fill, n, 2, 12),
                   v = filled(fill, n, 2, 13);
          uint64_t out = deviceAlloc(n * 2).value();
          uint64_t m = deviceAlloc(size_t(Z) * H * N * 4).value();
          synchronize().value();
          int sz = H * N * D, sh = N * D, sm = D;
          std::vector<Arg> args = {Arg::pointer(q), Arg::pointer(k),
                                   Arg::pointer(v), Arg::pointer(out),
                                   Arg::pointer(m),
                                   float(1 / std::sqrt(double(D))),
                                   sz, sh, sm, sz, sh, sm, sz, sh, sm,
                                   sz, sh, sm, H, N, 0.1f, int32_t(1234)};
          Grid grid(uint32_t(cdiv(N, cfg.bm)), uint32_t(Z * H));
          double ms = timeMs([&] { attn.launch(grid, args).value(); }, 10,
                             /*settle=*/true);
          double flops = 4.0 * Z * H * double(N) * N * D * (causal ? 0.5 : 1);
          std::printf(
              "{\"impl\": \"kite\", \"kernel\": \"attention\", "
              "\"blocks\": \"%dx%d w%d%s%s\", "
              "\"Z\": %d, \"H\": %d, \"N_CTX\": %d, \"HEAD_DIM\": %d, "
              "\"causal\": %s, \"dropout\": %s, \"us\": %.1f, "
              "\"tflops\": %.2f}\n",
              cfg.bm, cfg.bn, cfg.warps,
              cfg.stages ? (" s" + std::to_string(cfg.stages)).c_str() : "",
              cfg.maxnreg ? (" r" + std::to_string(cfg.maxnreg)).c_str() : "",
              Z, H, N, D, causal ? "true" : "false", dropout ? "0.1" : "0",
              ms * 1e3, flops / ms / 1e9);
          std::fflush(stdout);
          for (uint64_t p : {q, k, v, out, m})
            deviceFree(p);
        }
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

  // "fp8" alone: only the fp8 rows (they run with "matmul" too).
  bool fp8Only = part("fp8") && !part("matmul");
  // "tuned": only the autotuned matmul rows (f32, tf32, f16, bf16), for
  // scripts/gpu/ab_tuned.sh's interleaved runs beside Triton's.
  bool tunedOnly = part("tuned") && !part("matmul") && !fp8Only;
  if (!part("matmul") && !fp8Only && !tunedOnly)
    return 0;
  struct Shape {
    int M, N, K;
  };
  std::vector<Shape> shapes = !part("matmul") && !fp8Only && !tunedOnly
                                  ? std::vector<Shape>{}
                              : quick ? std::vector<Shape>{{1024, 1024, 1024}}
                                      : std::vector<Shape>{{1024, 1024, 1024},
                                                           {4096, 4096, 4096},
                                                           {8192, 8192, 8192},
                                                           {4096, 4096, 512}};
  // Blocks: the f32 kernel's defaults (64x64x32, 4 warps, 3 stages), and
  // large blocks for large problems (128x256x16, 8 warps, 2 stages: 16x8
  // register tiles, A staged k-major), both exact f32 (FMA); f32 as tf32
  // (mma.sync) with 128x128x32 on 4 warps; f16/bf16 (wgmma on an H100)
  // with 64x128x64 on 4 warps and 4 stages (small problems) and 256x128x64
  // on 8 warps and 3 stages (large ones). Warps and stages 0: the kernel's
  // own.
  // "tma": the same matmul with its operands read through tensor
  // descriptors (bench/kernels/matmul_*_tma.kite: TMA on sm_90a).
  struct Variant {
    const char *dtype, *kernel, *fill;
    size_t bytes;
    int bm, bn, bk, warps, stages;
    const char *suffix = "";
    bool ws = false; ///< TMA with a producer warp (warp specialization)
  };
  for (Variant v :
       fp8Only || tunedOnly
           ? std::vector<Variant>{}
           : std::vector<Variant>{
                 Variant{"f32", "dsl-examples/matmul.kite", "fill_f32", 4, 64,
                         64, 32, 0, 0},
                 Variant{"f32", "dsl-examples/matmul.kite", "fill_f32", 4, 128,
                         256, 16, 8, 2},
                 Variant{"tf32", "bench/matmul_tf32.kite", "fill_f32", 4, 128,
                         128, 32, 4, 3},
                 Variant{"f16", "bench/matmul_f16.kite", "fill_f16", 2, 64, 128,
                         64, 4, 4},
                 Variant{"f16", "bench/matmul_f16.kite", "fill_f16", 2, 256,
                         128, 64, 8, 3},
                 Variant{"bf16", "bench/matmul_bf16.kite", "fill_bf16", 2, 64,
                         128, 64, 4, 4},
                 Variant{"bf16", "bench/matmul_bf16.kite", "fill_bf16", 2, 256,
                         128, 64, 8, 3},
                 Variant{"f16", "bench/matmul_f16_tma.kite", "fill_f16", 2, 128,
                         256, 64, 8, 3, " TMA"},
                 Variant{"bf16", "bench/matmul_bf16_tma.kite", "fill_bf16", 2,
                         128, 256, 64, 8, 3, " TMA"},
                 Variant{"f16", "bench/matmul_f16_tma.kite", "fill_f16", 2, 128,
                         256, 64, 8, 3, " TMA+WS", true},
                 Variant{"bf16", "bench/matmul_bf16_tma.kite", "fill_bf16", 2,
                         128, 256, 64, 8, 3, " TMA+WS", true}}) {
    CompileOptions blocks;
    blocks.constants = {{"BLOCK_M", v.bm}, {"BLOCK_N", v.bn},
                        {"BLOCK_K", v.bk}};
    blocks.overrideNumWarps = v.warps;
    blocks.overrideNumStages = v.stages;
    blocks.warpSpecialize = v.ws;
    Kernel mm = load(v.kernel, "", blocks);
    Kernel fill = load("bench/fill.kite", v.fill);
    for (Shape s : shapes) {
      uint64_t a = filled(fill, size_t(s.M) * s.K, v.bytes, 4);
      uint64_t b = filled(fill, size_t(s.K) * s.N, v.bytes, 5);
      uint64_t c = deviceAlloc(size_t(s.M) * s.N * 4).value();
      synchronize().value();
      uint32_t grid = cdiv(s.M, v.bm) * cdiv(s.N, v.bn);
      double ms = timeMs(
          [&] {
            mm.launch(grid, {Arg::pointer(a), Arg::pointer(b), Arg::pointer(c),
                             s.M, s.N, s.K, s.K, 1, s.N, 1, s.N, 1})
                .value();
          },
          10, /*settle=*/true);
      double tflops = 2.0 * s.M * double(s.N) * s.K / ms / 1e9;
      std::printf("{\"impl\": \"kite\", \"kernel\": \"matmul\", \"dtype\": \"%s\", "
                  "\"blocks\": \"%dx%dx%d%s\", "
                  "\"M\": %d, \"N\": %d, \"K\": %d, \"us\": %.1f, "
                  "\"tflops\": %.2f}\n",
                  v.dtype, v.bm, v.bn, v.bk, v.suffix, s.M, s.N, s.K, ms * 1e3,
                  tflops);
      std::fflush(stdout);
      for (uint64_t p : {a, b, c})
        deviceFree(p);
    }
  }
  // Triton tutorial 09 (dsl-examples/persistent_matmul.kite): f16 in and
  // out, one program per SM looping over the tiles, 128x256x64 on 8 warps,
  // 3 stages (the tutorial's fp16 configuration); "persistent" reads the
  // operands through pointer blocks (cp.async), "persistent TMA" through
  // tensor descriptors, "persistent TMA+WS s2" with a producer warp.
  // The same kernels with bf16 in and out (the example's text with its
  // f16 types replaced), beside Triton's tutorial 09 likewise.
  for (const char *dtype : {"f16", "bf16"}) {
  const bool bf16 = std::strcmp(dtype, "bf16") == 0;
  if (!shapes.empty() && !fp8Only && !tunedOnly) {
    const int sms = deviceMultiprocessors().value();
    Kernel fill = load("bench/fill.kite", bf16 ? "fill_bf16" : "fill_f16");
    // The descriptor form also with a producer warp ("TMA+WS").
    // With the producer running ahead into the next tile, the epilogue's
    // conversion cannot reuse the slots: it needs 66 KB of its own, which
    // 2 stages (3 slots) leave room for ("TMA+WS s2"; with 3 stages there
    // is none, and the 4-byte stores from the fragments lost: 645 against
    // 700 TFLOP/s at 4096^3, 313 against 499 at 4096x4096x512).
    struct Form {
      const char *kernel, *suffix;
      bool ws;
      int stages;
    };
    // (The descriptor kernel's defaults are the producer warp and 2
    // stages; without it, 3 stages.)
    for (Form f : {Form{"matmul_persistent", "", false, 0},
                   Form{"matmul_descriptor_persistent", " TMA", false, 3},
                   Form{"matmul_descriptor_persistent", " TMA+WS s2", true, 0}}) {
      const char *form = f.kernel;
      bool descriptors = std::strcmp(form, "matmul_descriptor_persistent") == 0;
      CompileOptions o;
      o.constants = {{"NUM_SMS", sms}};
      if (descriptors)
        o.constants["WARP_SPECIALIZE"] = f.ws ? 1 : 0;
      o.overrideNumStages = f.stages;
      Kernel mm = [&] {
        if (!bf16)
          return load("dsl-examples/persistent_matmul.kite", form, o);
        std::ifstream in(root + "/dsl-examples/persistent_matmul.kite");
        std::stringstream text;
        text << in.rdbuf();
        std::string src = text.str();
        for (const char *from : {"*f16", "to(f16)"})
          for (size_t at; (at = src.find(from)) != std::string::npos;)
            src.replace(at, std::strlen(from),
                        std::string(from).replace(from[0] == '*' ? 1 : 3, 3,
                                                  "bf16"));
        o.kernel = form;
        return compileKite(src, o, "persistent_matmul.kite (bf16)").value();
      }();
      for (Shape s : shapes) {
        uint64_t a = filled(fill, size_t(s.M) * s.K, 2, 4);
        uint64_t b = filled(fill, size_t(s.K) * s.N, 2, 5);
        uint64_t c = deviceAlloc(size_t(s.M) * s.N * 2).value();
        synchronize().value();
        uint32_t grid = std::min<uint32_t>(
            uint32_t(sms), cdiv(s.M, 128) * cdiv(s.N, 256));
        std::vector<Arg> args = {Arg::pointer(a), Arg::pointer(b),
                                 Arg::pointer(c), s.M, s.N, s.K};
        if (!descriptors)
          args.insert(args.end(), {s.K, 1, s.N, 1, s.N, 1});
        double ms = timeMs([&] { mm.launch(grid, args).value(); }, 10,
                           /*settle=*/true);
        double tflops = 2.0 * s.M * double(s.N) * s.K / ms / 1e9;
        std::printf("{\"impl\": \"kite\", \"kernel\": \"matmul\", \"dtype\": \"%s\", "
                    "\"blocks\": \"128x256x64 persistent%s\", "
                    "\"M\": %d, \"N\": %d, \"K\": %d, \"us\": %.1f, "
                    "\"tflops\": %.2f}\n",
                    dtype, f.suffix, s.M, s.N, s.K, ms * 1e3, tflops);
        std::fflush(stdout);
        for (uint64_t p : {a, b, c})
          deviceFree(p);
      }
    }
  }
  }
  // fp8 (dsl-examples/fp8_matmul.kite): A and B in e4m3, B given N x K,
  // per-tensor scales, C in bf16 (torch._scaled_mm's operation), with
  // tutorial 09's fp8 configuration, 128x256x128 on 8 warps: "fp8 ptr" the
  // tutorial-03 tiling through pointer blocks (cp.async, 3 stages),
  // "persistent TMA" and "persistent TMA+WS s2" the persistent descriptor
  // kernel without and with a producer warp. Also at 8192x8192x4096.
  if (!shapes.empty() && !tunedOnly) {
    const int sms = deviceMultiprocessors().value();
    Kernel fill = load("bench/fill.kite", "fill_f8e4m3");
    std::vector<Shape> fp8Shapes = shapes;
    if (!quick)
      fp8Shapes.push_back({8192, 8192, 4096});
    auto scale = DeviceBuffer<float>::fromHost(std::vector<float>{1.0f}).value();
    struct Form {
      const char *kernel, *suffix;
      bool ws;
      int stages;
    };
    for (Form f : {Form{"matmul_fp8", "", false, 0},
                   Form{"matmul_fp8_descriptor_persistent", " persistent TMA", false, 3},
                   Form{"matmul_fp8_descriptor_persistent", " persistent TMA+WS s2", true, 0}}) {
      bool persistent = f.suffix[0] != 0;
      CompileOptions o;
      if (persistent)
        o.constants = {{"NUM_SMS", sms}, {"WARP_SPECIALIZE", f.ws ? 1 : 0}};
      o.overrideNumStages = f.stages;
      Kernel mm = load("dsl-examples/fp8_matmul.kite", f.kernel, o);
      for (Shape s : fp8Shapes) {
        uint64_t a = filled(fill, size_t(s.M) * s.K, 1, 4);
        uint64_t b = filled(fill, size_t(s.N) * s.K, 1, 5);
        uint64_t c = deviceAlloc(size_t(s.M) * s.N * 2).value();
        synchronize().value();
        uint32_t tiles = cdiv(s.M, 128) * cdiv(s.N, 256);
        uint32_t grid = persistent ? std::min<uint32_t>(uint32_t(sms), tiles) : tiles;
        std::vector<Arg> args = {Arg::pointer(a), Arg::pointer(b), Arg::pointer(c),
                                 scale, scale, s.M, s.N, s.K};
        if (!persistent)
          args.insert(args.end(), {s.K, s.K, s.N});
        double ms = timeMs([&] { mm.launch(grid, args).value(); }, 10,
                           /*settle=*/true);
        double tflops = 2.0 * s.M * double(s.N) * s.K / ms / 1e9;
        std::printf("{\"impl\": \"kite\", \"kernel\": \"matmul\", \"dtype\": \"fp8\", "
                    "\"blocks\": \"128x256x128%s\", "
                    "\"M\": %d, \"N\": %d, \"K\": %d, \"us\": %.1f, "
                    "\"tflops\": %.2f}\n",
                    f.suffix, s.M, s.N, s.K, ms * 1e3, tflops);
        std::fflush(stdout);
        for (uint64_t p : {a, b, c})
          deviceFree(p);
      }
    }
  }
  // Autotuned f32 (exact), tf32, f16 and bf16 (bench/kernels/matmul_*_tuned.kite):
  // the runtime times their configurations on the first launch of each
  // shape (outside the timing) and launches the fastest.
  // "TMA tuned": the same configurations reading A and B through tensor
  // descriptors (bench/kernels/matmul_*_tma_tuned.kite).
  for (std::string variant :
       fp8Only     ? std::vector<std::string>{}
       : tunedOnly ? std::vector<std::string>{"f32", "tf32", "f16", "bf16"}
                   : std::vector<std::string>{"f32", "tf32", "f16", "bf16",
                                              "f16_tma", "bf16_tma"}) {
    bool tma = variant.find("_tma") != std::string::npos;
    std::string dtypeText = variant.substr(0, variant.find('_'));
    const char *dtype = dtypeText.c_str();
    Kernel mm = load("bench/matmul_" + variant + "_tuned.kite");
    // tf32: f32 inputs (multiplied as tf32).
    bool f32Inputs = dtypeText == "f32" || dtypeText == "tf32";
    Kernel fill = load("bench/fill.kite",
                       std::string("fill_") + (f32Inputs ? "f32" : dtype));
    size_t bytes = f32Inputs ? 4 : 2;
    for (Shape s : shapes) {
      uint64_t a = filled(fill, size_t(s.M) * s.K, bytes, 4);
      uint64_t b = filled(fill, size_t(s.K) * s.N, bytes, 5);
      uint64_t c = deviceAlloc(size_t(s.M) * s.N * 4).value();
      synchronize().value();
      std::vector<Arg> args = {Arg::pointer(a), Arg::pointer(b), Arg::pointer(c),
                               s.M, s.N, s.K, s.K, 1, s.N, 1, s.N, 1};
      auto grid = [&](const TuningConfig &t) {
        return Grid(uint32_t(cdiv(s.M, int(t.constants.at("BLOCK_M"))) *
                             cdiv(s.N, int(t.constants.at("BLOCK_N")))));
      };
      auto t0 = std::chrono::steady_clock::now();
      auto tuned = mm.tune(grid, args);
      if (!tuned) { // reported, and the rest of the benchmark still runs
        std::fprintf(stderr, "kite-bench: autotuning failed: %s\n",
                     tuned.error().str().c_str());
        for (uint64_t p : {a, b, c})
          deviceFree(p);
        continue;
      }
      TuningConfig chosen = *tuned;
      double tuneMs = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - t0)
                          .count();
      double ms = timeMs([&] { mm.launch(grid, args).value(); }, 10,
                         /*settle=*/true);
      double tflops = 2.0 * s.M * double(s.N) * s.K / ms / 1e9;
      std::printf("{\"impl\": \"kite\", \"kernel\": \"matmul\", \"dtype\": \"%s\", "
                  "\"blocks\": \"%s\", \"config\": \"%s\", \"tune_ms\": %.1f, "
                  "\"M\": %d, \"N\": %d, \"K\": %d, \"us\": %.1f, "
                  "\"tflops\": %.2f}\n",
                  dtype, tma ? "TMA tuned" : "tuned", chosen.str().c_str(),
                  tuneMs, s.M, s.N, s.K, ms * 1e3, tflops);
      std::fflush(stdout);
      for (uint64_t p : {a, b, c})
        deviceFree(p);
    }
  }
  return 0;
}
