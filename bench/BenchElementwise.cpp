//===- BenchElementwise.cpp - 1-D, row, math and perceptron rows --------===//
//
// kite-bench's memory-bound and elementwise parts: vector add, dropout and
// seeded dropout beside the device copy ("1d"); softmax and layer norm
// forward and backward over rows ("rows"); libdevice asin, sigmoid, a
// histogram, sort and topk rows, tutorial 04's exercises, dot_scaled on
// mxfp8 ("mxfp8") and a W8A16 matmul ("w8a16") ("math"); the
// autotuned perceptron layer
// ("perceptron").
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
#include <string>
#include <vector>

using namespace kite;

namespace kitebench {

namespace {

/// A configuration of the mxfp8 rows: blocks, warps, stages.
struct MxConfig {
  int bm, bn, bk, warps, stages;
  std::string str() const {
    return std::to_string(bm) + "x" + std::to_string(bn) + "x" +
           std::to_string(bk) + " w" + std::to_string(warps) + " s" +
           std::to_string(stages);
  }
};

/// The configurations in environment variable `var`
/// ("BMxBNxBK:WARPS:STAGES,...", e.g. "128x128x32:8:4"), else `defaults`.
std::vector<MxConfig> configsFrom(const char *var,
                                  std::vector<MxConfig> defaults) {
  const char *env = std::getenv(var);
  if (!env)
    return defaults;
  std::vector<MxConfig> configs;
  for (const char *p = env; *p;) {
    MxConfig c{};
    int used = 0;
    if (std::sscanf(p, "%dx%dx%d:%d:%d%n", &c.bm, &c.bn, &c.bk, &c.warps,
                    &c.stages, &used) != 5) {
      std::fprintf(stderr, "%s: expected BMxBNxBK:WARPS:STAGES,... at '%s'\n",
                   var, p);
      std::exit(2);
    }
    configs.push_back(c);
    p += used;
    if (*p == ',')
      ++p;
  }
  return configs;
}

/// 128x128x64 on 4 warps (the kernel's default, Triton's best), 128x128
/// on 8 warps with BLOCK_K 32 / 64, 128x256x32 on 8; 3 stages; or
/// KITE_BENCH_MXFP8="BMxBNxBK:WARPS:STAGES,...".
std::vector<MxConfig> mxConfigs() {
  return configsFrom("KITE_BENCH_MXFP8", {{128, 128, 64, 4, 3},
                                          {128, 128, 32, 8, 3},
                                          {128, 128, 64, 8, 3},
                                          {128, 256, 32, 8, 3}});
}

} // namespace

void runElementwise() {
  Kernel fillF32 = load("bench/fill.kite", "fill_f32");
  Kernel fillKeep = load("bench/fill.kite", "fill_keep");
  Kernel add = load("dsl-examples/vector_add.kite");
  Kernel dropout = load("dsl-examples/dropout.kite");
  Kernel seeded = load("dsl-examples/seeded_dropout.kite");

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

  // Elementwise math (tutorial 07's libdevice asin, the sigmoid example,
  // SELU through map_elementwise: bench/kernels/selu.kite)
  // for n = 2^20, 2^24, 2^26 and 2^24 + 1, f32 in and out (8 bytes an
  // element, the copy of the same run beside them); asin's inputs lie in
  // [-1, 1).
  if (part("math")) {
    Kernel asin = load("dsl-examples/libdevice.kite");
    Kernel sig = load("dsl-examples/sigmoid.kite");
    Kernel selu = load("bench/selu.kite");
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
                             {"sigmoid", &sig},
                             {"selu (map_elementwise)", &selu}}) {
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

  // A histogram (dsl-examples/histogram.kite, Triton's tl.histogram) of n
  // uniform values in 256 bins; GB/s of the values read. The counts
  // accumulate over the timed runs (not zeroed: the time is the kernel's).
  if (part("math")) {
    Kernel hist = load("dsl-examples/histogram.kite");
    Kernel fillBins = load("bench/fill.kite", "fill_bins");
    std::vector<int> logs =
        quick ? std::vector<int>{24} : std::vector<int>{20, 24, 26};
    for (int lg : logs) {
      size_t n = size_t(1) << lg;
      uint64_t x = filled(fillBins, n, 4, 21);
      uint64_t h = deviceAlloc(256 * 4).value();
      std::vector<int32_t> zero(256, 0);
      copyToDevice(h, zero.data(), 256 * 4).value();
      synchronize().value();
      double ms = timeMs(
          [&] {
            hist.launch(uint32_t(cdiv(n, 8192)),
                        {Arg::pointer(x), Arg::pointer(h), int32_t(n)})
                .value();
          },
          25);
      std::printf("{\"impl\": \"kite\", \"kernel\": \"histogram\", "
                  "\"log2n\": %d, \"extra\": 0, \"us\": %.2f, "
                  "\"GBps\": %.1f}\n",
                  lg, ms * 1e3, 4.0 * n / ms / 1e6);
      std::fflush(stdout);
      deviceFree(x);
      deviceFree(h);
    }
  }

  // Rows sorted and their k largest (bench/kernels/sort.kite: Triton's
  // tl.sort, tl.topk), f32, M rows of N: GB/s of the rows read and the
  // result written. (N, K, rows a program): 32 x 128 (a routing's top 8 of
  // 128 experts), 4 x 1024 (rows across the 4 warps).
  if (part("math")) {
    Kernel fill = load("bench/fill.kite", "fill_f32");
    struct SortShape {
      int n, k, rows;
    };
    for (SortShape sh : {SortShape{128, 8, 32}, SortShape{1024, 16, 4}}) {
      const int M = (1 << 23) / sh.n;
      size_t total = size_t(M) * sh.n;
      uint64_t x = filled(fill, total, 4, 31),
               y = deviceAlloc(total * 4).value();
      synchronize().value();
      CompileOptions o;
      o.constants = {{"N", sh.n}, {"ROWS", sh.rows}};
      Kernel sorter = load("bench/sort.kite", "sort_rows", o);
      o.constants["K"] = sh.k;
      Kernel top = load("bench/sort.kite", "topk_rows", o);
      uint32_t grid = uint32_t(cdiv(M, sh.rows));
      double ms = timeMs(
          [&] {
            sorter.launch(grid, {Arg::pointer(x), Arg::pointer(y), M}).value();
          },
          25);
      std::printf("{\"impl\": \"kite\", \"kernel\": \"sort\", \"rows\": %d, "
                  "\"cols\": %d, \"k\": %d, \"us\": %.2f, \"GBps\": %.1f}\n",
                  M, sh.n, sh.n, ms * 1e3, 8.0 * total / ms / 1e6);
      ms = timeMs(
          [&] {
            top.launch(grid, {Arg::pointer(x), Arg::pointer(y), M}).value();
          },
          25);
      std::printf("{\"impl\": \"kite\", \"kernel\": \"topk\", \"rows\": %d, "
                  "\"cols\": %d, \"k\": %d, \"us\": %.2f, \"GBps\": %.1f}\n",
                  M, sh.n, sh.k, ms * 1e3,
                  4.0 * (total + size_t(M) * sh.k) / ms / 1e6);
      std::fflush(stdout);
      deviceFree(x);
      deviceFree(y);
    }
  }

  // Triton's softmax builtin (bench/kernels/sort.kite's softmax_builtin),
  // one row of N f32 a program, 4096 rows: GB/s of the rows read and
  // written.
  if (part("math")) {
    Kernel fill = load("bench/fill.kite", "fill_f32");
    for (int n : {1024, 4096}) {
      const int M = 4096;
      size_t total = size_t(M) * n;
      uint64_t x = filled(fill, total, 4, 37),
               y = deviceAlloc(total * 4).value();
      synchronize().value();
      CompileOptions o;
      o.constants = {{"N", n}};
      Kernel sm = load("bench/sort.kite", "softmax_builtin", o);
      double ms = timeMs(
          [&] {
            sm.launch(uint32_t(M), {Arg::pointer(x), Arg::pointer(y)}).value();
          },
          25);
      std::printf("{\"impl\": \"kite\", \"kernel\": \"softmax builtin\", "
                  "\"rows\": %d, \"cols\": %d, \"k\": 0, \"us\": %.2f, "
                  "\"GBps\": %.1f}\n",
                  M, n, ms * 1e3, 8.0 * total / ms / 1e6);
      std::fflush(stdout);
      deviceFree(x);
      deviceFree(y);
    }
  }

  // W8A16: tutorial 03's matmul with int8 weights converted to f16 in the K
  // loop (bench/kernels/matmul_w8a16.kite), per-column f16 scales on C;
  // TFLOP/s. Also alone: KITE_BENCH_ONLY=w8a16.
  if (part("math") || part("w8a16")) {
    Kernel fillHalf = load("bench/fill.kite", "fill_f16");
    Kernel fillInt8 = load("bench/fill.kite", "fill_i8");
    // KITE_BENCH_W8A16="BMxBNxBK:WARPS:STAGES,..." instead of these.
    std::vector<MxConfig> configs =
        configsFrom("KITE_BENCH_W8A16", {{128, 256, 64, 8, 3},
                                         {128, 256, 64, 8, 2},
                                         {128, 128, 64, 4, 2},
                                         {256, 128, 64, 8, 3}});
    for (int size : {2048, 4096, 8192}) {
      const int M = size, N = size, K = size;
      uint64_t a = filled(fillHalf, size_t(M) * K, 2, 61);
      uint64_t b = filled(fillInt8, size_t(K) * N, 1, 62);
      uint64_t scale = filled(fillHalf, size_t(N), 2, 63);
      uint64_t c = deviceAlloc(size_t(M) * N * 2).value();
      synchronize().value();
      for (MxConfig cfg : configs) {
        CompileOptions o;
        o.constants = {{"BLOCK_M", cfg.bm}, {"BLOCK_N", cfg.bn},
                       {"BLOCK_K", cfg.bk}};
        o.overrideNumWarps = cfg.warps;
        o.overrideNumStages = cfg.stages;
        Kernel mm = load("bench/matmul_w8a16.kite", "", o);
        uint32_t grid = uint32_t(cdiv(M, cfg.bm) * cdiv(N, cfg.bn));
        double ms = timeMs(
            [&] {
              mm.launch(grid, {Arg::pointer(a), Arg::pointer(b),
                               Arg::pointer(scale), Arg::pointer(c), M, N, K})
                  .value();
            },
            25);
        std::printf("{\"impl\": \"kite\", \"kernel\": \"w8a16 matmul\", "
                    "\"M\": %d, \"N\": %d, \"K\": %d, \"config\": "
                    "\"%dx%dx%d w%d s%d\", \"us\": %.2f, \"tflops\": "
                    "%.1f}\n",
                    M, N, K, cfg.bm, cfg.bn, cfg.bk, cfg.warps, cfg.stages,
                    ms * 1e3, 2.0 * M * N * K / ms / 1e9);
        std::fflush(stdout);
      }
      for (uint64_t p : {a, b, scale, c})
        deviceFree(p);
    }
  }

  // dot_scaled: tutorial 03's matmul on mxfp8 (bench/kernels/matmul_mxfp8.kite:
  // e4m3 bytes, e8m0 scales per 32 along K, bf16 out) in the configurations
  // of mxConfigs(); TFLOP/s. Also alone: KITE_BENCH_ONLY=mxfp8.
  if (part("math") || part("mxfp8")) {
    Kernel fillBytes = load("bench/fill.kite", "fill_f8e4m3");
    Kernel fillScales = load("bench/fill.kite", "fill_scales");
    for (int size : {2048, 4096}) {
      const int M = size, N = size, K = size;
      uint64_t a = filled(fillBytes, size_t(M) * K, 1, 51);
      uint64_t b = filled(fillBytes, size_t(K) * N, 1, 52);
      uint64_t sa = filled(fillScales, size_t(M) * K / 32, 1, 53);
      uint64_t sb = filled(fillScales, size_t(N) * K / 32, 1, 54);
      uint64_t c = deviceAlloc(size_t(M) * N * 2).value();
      synchronize().value();
      for (const MxConfig &cfg : mxConfigs()) {
        CompileOptions o;
        o.constants = {{"BLOCK_M", cfg.bm}, {"BLOCK_N", cfg.bn},
                       {"BLOCK_K", cfg.bk}};
        o.overrideNumWarps = cfg.warps;
        o.overrideNumStages = cfg.stages;
        Kernel mm = load("bench/matmul_mxfp8.kite", "", o);
        uint32_t grid = uint32_t(cdiv(M, cfg.bm) * cdiv(N, cfg.bn));
        double ms = timeMs(
            [&] {
              mm.launch(grid,
                        {Arg::pointer(a), Arg::pointer(sa), Arg::pointer(b),
                         Arg::pointer(sb), Arg::pointer(c), M, N, K})
                  .value();
            },
            25);
        std::printf("{\"impl\": \"kite\", \"kernel\": \"mxfp8 dot_scaled\", "
                    "\"M\": %d, \"N\": %d, \"K\": %d, \"config\": "
                    "\"%s\", \"us\": %.2f, \"tflops\": %.1f}\n",
                    M, N, K, cfg.str().c_str(), ms * 1e3,
                    2.0 * M * N * K / ms / 1e9);
        std::fflush(stdout);
      }
      for (uint64_t p : {a, b, sa, sb, c})
        deviceFree(p);
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
}

} // namespace kitebench
