//===- BenchMatmul.cpp - The matmul and fp8 rows ------------------------===//
//
// kite-bench's matmul parts: tutorial 03's matmul in f32 (exact and
// tf32), f16 and bf16 in fixed blocks, with tensor descriptors (TMA, warp
// specialization) and autotuned; tutorial 09's persistent forms; fp8
// ("matmul"; "fp8" alone: the fp8 rows; "tuned" alone: the autotuned
// rows).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace kite;

namespace kitebench {

namespace {
/// A persistent kernel's form in the benchmark: the kernel, the suffix of
/// its row name, a producer warp (WARP_SPECIALIZE) and its stages (0: the
/// kernel's own).
struct Form {
  const char *kernel, *suffix;
  bool ws;
  int stages;
};
} // namespace

/// KITE_BENCH_ROUNDS (default 1): how many times the persistent and fp8
/// forms are timed in turn for each shape.
static int benchRounds() {
  const char *env = std::getenv("KITE_BENCH_ROUNDS");
  return env ? std::max(1, std::atoi(env)) : 1;
}

/// KITE_BENCH_PERSISTENT_EXTRA: "FORM:NAME=V,...;..." rows with other
/// constants (stages: num_stages, warps: num_warps) for FORM ws, cluster,
/// pp (f16/bf16) or fp8ws.
struct ExtraForm {
  std::string prefix, settings;
  std::map<std::string, double> extra;
};
static std::vector<ExtraForm> extraForms() {
  std::vector<ExtraForm> out;
  const char *env = std::getenv("KITE_BENCH_PERSISTENT_EXTRA");
  if (!env)
    return out;
  std::stringstream variants(env);
  for (std::string variant; std::getline(variants, variant, ';');) {
    size_t colon = variant.find(':');
    if (colon == std::string::npos)
      continue;
    ExtraForm f{variant.substr(0, colon), variant.substr(colon + 1), {}};
    std::stringstream items(f.settings);
    for (std::string item; std::getline(items, item, ',');)
      if (size_t eq = item.find('='); eq != std::string::npos)
        f.extra[item.substr(0, eq)] = std::atof(item.c_str() + eq + 1);
    out.push_back(std::move(f));
  }
  return out;
}

/// An ExtraForm's settings applied to `o`.
static void applyExtra(CompileOptions &o,
                       const std::map<std::string, double> &extra) {
  for (auto &[name, value] : extra) {
    if (name == "stages")
      o.overrideNumStages = int(value);
    else if (name == "warps")
      o.overrideNumWarps = int(value);
    else
      o.constants[name] = value;
  }
}

/// The text of `path` (under the benchmark's root) with its f16 pointers
/// and `.to(f16)` made bf16 when `bf16` (tutorial 09's kernels in bf16).
static std::string kernelText(const std::string &path, bool bf16) {
  std::ifstream in(root + "/" + path);
  std::stringstream text;
  text << in.rdbuf();
  std::string src = text.str();
  if (bf16)
    for (const char *from : {"*f16", "to(f16)"})
      for (size_t at; (at = src.find(from)) != std::string::npos;)
        src.replace(
            at, std::strlen(from),
            std::string(from).replace(from[0] == '*' ? 1 : 3, 3, "bf16"));
  return src;
}

void runMatmul() {
  // "fp8" alone: only the fp8 rows (they run with "matmul" too).
  bool fp8Only = part("fp8") && !part("matmul");
  // "tuned": only the autotuned matmul rows (f32, tf32, f16, bf16), for
  // scripts/gpu/ab_tuned.sh's interleaved runs beside Triton's.
  bool tunedOnly = part("tuned") && !part("matmul") && !fp8Only;
  // "persistent": only tutorial 09's f16/bf16 rows (its forms side by side).
  bool persistentOnly =
      part("persistent") && !part("matmul") && !fp8Only && !tunedOnly;
  if (!part("matmul") && !fp8Only && !tunedOnly && !persistentOnly)
    return;
  struct Shape {
    int M, N, K;
  };
  std::vector<Shape> shapes =
      !part("matmul") && !fp8Only && !tunedOnly && !persistentOnly
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
  // descriptors (bench/kernels/matmul_*_tma.kite: TMA on sm_90a); "block
  // ptr": the f16 one written with block pointers
  // (bench/kernels/matmul_f16_block_ptr.kite).
  struct Variant {
    const char *dtype, *kernel, *fill;
    size_t bytes;
    int bm, bn, bk, warps, stages;
    const char *suffix = "";
    bool ws = false; ///< TMA with a producer warp (warp specialization)
    /// A, B and C passed as host-made tensor descriptors
    /// (bench/kernels/matmul_*_host_desc.kite).
    bool hostDesc = false;
  };
  for (Variant v :
       fp8Only || tunedOnly || persistentOnly
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
                 Variant{"f16", "bench/matmul_f16_block_ptr.kite", "fill_f16",
                         2, 64, 128, 64, 4, 4, " block ptr"},
                 Variant{"f16", "bench/matmul_f16_block_ptr.kite", "fill_f16",
                         2, 256, 128, 64, 8, 3, " block ptr"},
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
                         128, 256, 64, 8, 3, " TMA+WS", true},
                 Variant{"f16", "bench/matmul_f16_host_desc.kite", "fill_f16",
                         2, 128, 256, 64, 8, 3, " host desc", false, true},
                 Variant{"bf16", "bench/matmul_bf16_host_desc.kite",
                         "fill_bf16", 2, 128, 256, 64, 8, 3, " host desc",
                         false, true}}) {
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
      std::vector<Arg> args = {Arg::pointer(a), Arg::pointer(b),
                               Arg::pointer(c), s.M, s.N, s.K, s.K, 1,
                               s.N, 1, s.N, 1};
      // Host descriptors: made once, as a caller keeps its tensors'.
      std::optional<TensorDescriptor> da, db, dc;
      if (v.hostDesc) {
        auto half = [](uint64_t p) { return Arg(reinterpret_cast<uint16_t *>(p)); };
        da = TensorDescriptor::create(half(a), {s.M, s.K}, {s.K, 1},
                                      {v.bm, v.bk}).value();
        db = TensorDescriptor::create(half(b), {s.K, s.N}, {s.N, 1},
                                      {v.bk, v.bn}).value();
        dc = TensorDescriptor::create(Arg(reinterpret_cast<float *>(c)),
                                      {s.M, s.N}, {s.N, 1}, {v.bm, v.bn})
                 .value();
        args = {*da, *db, *dc, s.M, s.N, s.K};
      }
      double ms = timeMs([&] { mm.launch(grid, args).value(); }, 10,
                         /*settle=*/true);
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
  // tensor descriptors, "persistent TMA+WS s3" with a producer warp.
  // The same kernels with bf16 in and out (the example's text with its
  // f16 types replaced), beside Triton's tutorial 09 likewise.
  for (const char *dtype : {"f16", "bf16"}) {
  const bool bf16 = std::strcmp(dtype, "bf16") == 0;
  if (!shapes.empty() && !fp8Only && !tunedOnly) {
    const int sms = deviceMultiprocessors().value();
    Kernel fill = load("bench/fill.kite", bf16 ? "fill_bf16" : "fill_f16");
    // The descriptor form also with a producer warp ("TMA+WS s3").
    // With the producer running ahead into the next tile, the epilogue's
    // TMA stores cannot reuse the slots: they take two 16 KB panels at a
    // time of their own beside 3 stages (4 slots of 48 KB). (With 64 KB
    // of store staging only 2 stages fit: 3-5% slower at 4096^3.)
    // "TMA+WS cluster2" is the 2-program cluster form (B multicast to the
    // pair of tiles), a grid of an even number of programs. The forms are
    // compiled first and timed one after another for each shape,
    // KITE_BENCH_ROUNDS times (default 1). KITE_BENCH_PERSISTENT_EXTRA adds
    // rows of the producer-warp form ("ws:") or the cluster form
    // ("cluster:") with other constants, e.g.
    // "cluster:BLOCK_K=32,stages=4;ws:stages=3" (stages: num_stages).
    // "TMA+WS ping-pong" is the form with two consumer warpgroups taking
    // turns over 128x128 tiles ("pp:" in KITE_BENCH_PERSISTENT_EXTRA).
    struct Compiled {
      std::string suffix;
      Kernel kernel;
      bool clustered, descriptors;
      int programs, blockN;
    };
    std::vector<Compiled> compiled;
    auto compileForm = [&](Form f, const std::string &suffix,
                           const std::map<std::string, double> &extra) {
      const char *form = f.kernel;
      bool clustered = std::strstr(form, "_cluster") != nullptr;
      bool descriptors = std::strstr(form, "descriptor") != nullptr;
      bool pingPong = std::strstr(form, "_ping_pong") != nullptr;
      const int programs = clustered ? sms / 2 * 2 : sms;
      CompileOptions o;
      o.constants = {{"NUM_SMS", programs}};
      if (descriptors && !clustered && !pingPong)
        o.constants["WARP_SPECIALIZE"] = f.ws ? 1 : 0;
      o.overrideNumStages = f.stages;
      applyExtra(o, extra);
      Kernel mm = [&] {
        if (!bf16)
          return load("dsl-examples/persistent_matmul.kite", form, o);
        o.kernel = form;
        return compileKite(kernelText("dsl-examples/persistent_matmul.kite",
                                      /*bf16=*/true),
                           o, "persistent_matmul.kite (bf16)")
            .value();
      }();
      int blockN = pingPong ? 128 : 256;
      if (auto n = extra.find("BLOCK_N"); n != extra.end())
        blockN = int(n->second);
      compiled.push_back(
          {suffix, mm, clustered, descriptors, programs, blockN});
    };
    for (Form f : {Form{"matmul_persistent", "", false, 0},
                   Form{"matmul_descriptor_persistent", " TMA", false, 3},
                   Form{"matmul_descriptor_persistent", " TMA+WS s3", true, 0},
                   Form{"matmul_descriptor_persistent_cluster",
                        " TMA+WS cluster2", true, 0},
                   Form{"matmul_descriptor_persistent_ping_pong",
                        " TMA+WS ping-pong", true, 0}})
      compileForm(f, f.suffix, {});
    for (auto &[prefix, settings, extra] : extraForms())
      if (prefix == "cluster" || prefix == "ws" || prefix == "pp")
        compileForm(
            prefix == "cluster"
                ? Form{"matmul_descriptor_persistent_cluster", "", true, 0}
            : prefix == "pp"
                ? Form{"matmul_descriptor_persistent_ping_pong", "", true, 0}
                : Form{"matmul_descriptor_persistent", "", true, 0},
            (prefix == "cluster" ? " TMA+WS cluster2 "
             : prefix == "pp"    ? " TMA+WS ping-pong "
                                 : " TMA+WS ") +
                settings,
            extra);
    for (Shape s : shapes) {
      uint64_t a = filled(fill, size_t(s.M) * s.K, 2, 4);
      uint64_t b = filled(fill, size_t(s.K) * s.N, 2, 5);
      uint64_t c = deviceAlloc(size_t(s.M) * s.N * 2).value();
      synchronize().value();
      for (int round = 0; round < benchRounds(); ++round)
        for (Compiled &f : compiled) {
          uint32_t grid =
              f.clustered
                  ? std::min<uint32_t>(uint32_t(f.programs),
                                       2 * cdiv(cdiv(s.M, 128), 2) *
                                           cdiv(s.N, f.blockN))
                  : std::min<uint32_t>(uint32_t(sms),
                                       cdiv(s.M, 128) * cdiv(s.N, f.blockN));
          std::vector<Arg> args = {
              Arg::pointer(a), Arg::pointer(b), Arg::pointer(c), s.M, s.N, s.K};
          if (!f.descriptors)
            args.insert(args.end(), {s.K, 1, s.N, 1, s.N, 1});
          double ms = timeMs([&] { f.kernel.launch(grid, args).value(); }, 10,
                             /*settle=*/true);
          double tflops = 2.0 * s.M * double(s.N) * s.K / ms / 1e9;
          std::printf(
              "{\"impl\": \"kite\", \"kernel\": \"matmul\", \"dtype\": \"%s\", "
              "\"blocks\": \"128x%dx64 persistent%s\", "
              "\"M\": %d, \"N\": %d, \"K\": %d, \"us\": %.1f, "
              "\"tflops\": %.2f}\n",
              dtype, f.blockN, f.suffix.c_str(), s.M, s.N, s.K, ms * 1e3,
              tflops);
          std::fflush(stdout);
        }
      for (uint64_t p : {a, b, c})
        deviceFree(p);
    }
    // "persistent TMA+WS tuned"
    // (bench/kernels/matmul_f16_persistent_tuned.kite): the producer-warp form
    // autotuned over one group on 128x256 tiles and ping-pong groups on 128x128
    // (its grid a function of the choice).
    {
      CompileOptions o;
      o.constants = {{"NUM_SMS", sms}};
      auto tunedKernel = compileKite(
          kernelText("bench/matmul_f16_persistent_tuned.kite", bf16), o,
          "matmul_f16_persistent_tuned.kite");
      if (!tunedKernel)
        std::fprintf(stderr, "kite-bench: %s\n",
                     tunedKernel.error().str().c_str());
      for (Shape s : tunedKernel ? shapes : std::vector<Shape>{}) {
        uint64_t a = filled(fill, size_t(s.M) * s.K, 2, 4);
        uint64_t b = filled(fill, size_t(s.K) * s.N, 2, 5);
        uint64_t c = deviceAlloc(size_t(s.M) * s.N * 2).value();
        synchronize().value();
        std::vector<Arg> args = {
            Arg::pointer(a), Arg::pointer(b), Arg::pointer(c), s.M, s.N, s.K};
        auto grid = [&](const TuningConfig &t) {
          auto m = t.constants.find("BLOCK_M");
          int bm = m == t.constants.end() ? 128 : int(m->second);
          return Grid(std::min<uint32_t>(
              uint32_t(sms),
              cdiv(s.M, bm) * cdiv(s.N, int(t.constants.at("BLOCK_N")))));
        };
        auto t0 = std::chrono::steady_clock::now();
        auto chosen = tunedKernel->tune(grid, args);
        double tuneMs = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - t0)
                            .count();
        if (chosen) {
          double ms = timeMs([&] { tunedKernel->launch(grid, args).value(); },
                             10, /*settle=*/true);
          double tflops = 2.0 * s.M * double(s.N) * s.K / ms / 1e9;
          std::printf(
              "{\"impl\": \"kite\", \"kernel\": \"matmul\", \"dtype\": "
              "\"%s\", \"blocks\": \"persistent TMA+WS tuned\", "
              "\"config\": \"%s\", \"tune_ms\": %.1f, \"M\": %d, \"N\": %d, "
              "\"K\": %d, \"us\": %.1f, \"tflops\": %.2f}\n",
              dtype, chosen->str().c_str(), tuneMs, s.M, s.N, s.K, ms * 1e3,
              tflops);
          std::fflush(stdout);
        } else {
          std::fprintf(stderr, "kite-bench: autotuning failed: %s\n",
                       chosen.error().str().c_str());
        }
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
  if (!shapes.empty() && !tunedOnly && !persistentOnly) {
    const int sms = deviceMultiprocessors().value();
    Kernel fill = load("bench/fill.kite", "fill_f8e4m3");
    std::vector<Shape> fp8Shapes = shapes;
    if (!quick)
      fp8Shapes.push_back({8192, 8192, 4096});
    auto scale =
        DeviceBuffer<float>::fromHost(std::vector<float>{1.0f}).value();
    // Compiled first, then timed one after another for each shape,
    // KITE_BENCH_ROUNDS times; KITE_BENCH_PERSISTENT_EXTRA's "fp8ws:"
    // entries add producer-warp rows with other settings ("fp8ws:stages=3").
    struct Compiled {
      std::string suffix;
      Kernel kernel;
      bool persistent;
    };
    std::vector<Compiled> compiled;
    auto compileForm = [&](Form f, const std::string &suffix,
                           const std::map<std::string, double> &extra) {
      bool persistent = f.suffix[0] != 0;
      CompileOptions o;
      if (persistent)
        o.constants = {{"NUM_SMS", sms}, {"WARP_SPECIALIZE", f.ws ? 1 : 0}};
      o.overrideNumStages = f.stages;
      applyExtra(o, extra);
      compiled.push_back({suffix,
                          load("dsl-examples/fp8_matmul.kite", f.kernel, o),
                          persistent});
    };
    for (Form f :
         {Form{"matmul_fp8", "", false, 0},
          Form{"matmul_fp8_descriptor_persistent", " persistent TMA", false, 3},
          Form{"matmul_fp8_descriptor_persistent", " persistent TMA+WS s2",
               true, 0}})
      compileForm(f, f.suffix, {});
    for (auto &[prefix, settings, extra] : extraForms())
      if (prefix == "fp8ws")
        compileForm(
            Form{"matmul_fp8_descriptor_persistent", " persistent", true, 0},
            " persistent TMA+WS " + settings, extra);
    for (Shape s : fp8Shapes) {
      uint64_t a = filled(fill, size_t(s.M) * s.K, 1, 4);
      uint64_t b = filled(fill, size_t(s.N) * s.K, 1, 5);
      uint64_t c = deviceAlloc(size_t(s.M) * s.N * 2).value();
      synchronize().value();
      for (int round = 0; round < benchRounds(); ++round)
        for (Compiled &f : compiled) {
          uint32_t tiles = cdiv(s.M, 128) * cdiv(s.N, 256);
          uint32_t grid =
              f.persistent ? std::min<uint32_t>(uint32_t(sms), tiles) : tiles;
          std::vector<Arg> args = {Arg::pointer(a),
                                   Arg::pointer(b),
                                   Arg::pointer(c),
                                   scale,
                                   scale,
                                   s.M,
                                   s.N,
                                   s.K};
          if (!f.persistent)
            args.insert(args.end(), {s.K, s.K, s.N});
          double ms = timeMs([&] { f.kernel.launch(grid, args).value(); }, 10,
                             /*settle=*/true);
          double tflops = 2.0 * s.M * double(s.N) * s.K / ms / 1e9;
          std::printf("{\"impl\": \"kite\", \"kernel\": \"matmul\", \"dtype\": "
                      "\"fp8\", "
                      "\"blocks\": \"128x256x128%s\", "
                      "\"M\": %d, \"N\": %d, \"K\": %d, \"us\": %.1f, "
                      "\"tflops\": %.2f}\n",
                      f.suffix.c_str(), s.M, s.N, s.K, ms * 1e3, tflops);
          std::fflush(stdout);
        }
      for (uint64_t p : {a, b, c})
        deviceFree(p);
    }
  }
  // Autotuned f32 (exact), tf32, f16 and bf16 (bench/kernels/matmul_*_tuned.kite):
  // the runtime times their configurations on the first launch of each
  // shape (outside the timing) and launches the fastest.
  // "TMA tuned": the same configurations reading A and B through tensor
  // descriptors (bench/kernels/matmul_*_tma_tuned.kite).
  for (std::string variant :
       fp8Only || persistentOnly ? std::vector<std::string>{}
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
}

} // namespace kitebench
