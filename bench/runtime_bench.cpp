//===- runtime_bench.cpp - Launch overhead and compile times ----------------===//
//
//   kite-bench-runtime launch <axpby.mlir>
//       Host cost per launch of a compiled 6-argument kernel through
//       Kite::launch and through a raw cuLaunchKernel of the same PTX, in
//       the same process (batches of 2000 launches, median of 15 batches,
//       the two interleaved). Prints one JSON line.
//   kite-bench-runtime compile <kernel.mlir>
//       Time from nothing to a launched kernel in this (new) process:
//       compileFile + the first launch (compile or cache hit, load). Run it
//       with an empty KITE_CACHE_DIR (cold) and again (warm disk hit).
//       Prints one JSON line with the cache outcome and the phases
//       (Kernel::lastCompileTimes: to PTX, then ptxas, then the module
//       load; a ptxas started early runs during "to PTX"); after a tiered
//       compile's quick tier, also when the optimized code was ready.
//   kite-bench-runtime matmul <matmul.kite> SIZE
//       The tutorial matmul at SIZE^3 (default blocks), TFLOP/s.
//   kite-bench-runtime interpret <seeded_dropout.kite>
//       Seeded dropout over 2^20 elements in the interpreter (one thread).
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;

static double since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

static int launchBench(const char *path) {
  auto k = kite::compileFile(path).value();
  size_t n = 1024;
  auto x = kite::DeviceBuffer<float>::fromHost(std::vector<float>(n, 1.f)).value();
  auto y = kite::DeviceBuffer<float>::fromHost(std::vector<float>(n, 2.f)).value();
  auto out = kite::DeviceBuffer<float>::allocate(n).value();
  std::vector<kite::Arg> args = {x, y, out, int32_t(n), 2.f, 3.f};
  k.launch(1, args).value(); // compile and load
  kite::synchronize().value();

  // The raw driver path on the same PTX (Kite made its context current).
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
  using ModuleLoad = int (*)(void **, const void *);
  using GetFunction = int (*)(void **, void *, const char *);
  using Launch = int (*)(void *, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, unsigned, void *, void **, void **);
  using Sync = int (*)();
  auto load = reinterpret_cast<ModuleLoad>(dlsym(cuda, "cuModuleLoadData"));
  auto get = reinterpret_cast<GetFunction>(dlsym(cuda, "cuModuleGetFunction"));
  auto launch = reinterpret_cast<Launch>(dlsym(cuda, "cuLaunchKernel"));
  auto sync = reinterpret_cast<Sync>(dlsym(cuda, "cuCtxSynchronize"));
  std::string ptx = k.ptx(k.specializationFor(args)).value();
  void *module = nullptr, *function = nullptr;
  if (load(&module, ptx.c_str()) || get(&function, module, k.name().c_str())) {
    std::fprintf(stderr, "raw module load failed\n");
    return 1;
  }
  void *params[6];
  for (int i = 0; i < 6; ++i)
    params[i] = const_cast<void *>(args[i].storage());

  const int batch = 2000, batches = 15;
  std::vector<double> raw, viaKite;
  for (int b = 0; b < batches + 2; ++b) {
    auto t0 = Clock::now();
    for (int i = 0; i < batch; ++i)
      launch(function, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr);
    double r = since(t0) / batch;
    sync();
    t0 = Clock::now();
    for (int i = 0; i < batch; ++i)
      k.launch(1, args).value();
    double v = since(t0) / batch;
    sync();
    if (b >= 2) { // warm-up batches dropped
      raw.push_back(r);
      viaKite.push_back(v);
    }
  }
  std::sort(raw.begin(), raw.end());
  std::sort(viaKite.begin(), viaKite.end());
  double r = raw[batches / 2], v = viaKite[batches / 2];
  std::printf("{\"bench\": \"launch\", \"args\": 6, \"raw_us\": %.3f, "
              "\"kite_us\": %.3f, \"ratio\": %.3f}\n",
              r, v, v / r);
  return 0;
}

/// One "compile" record: the first launch's total and its phases (the
/// kernel's CompileTimes; a ptxas started early overlaps "to_ptx", so the
/// phases can sum to more than the total).
static void printCompile(const kite::Kernel &k, const std::string &what,
                         double parsedUs, double launchedUs,
                         double optimizedUs = 0,
                         const kite::CompileTimes *phases = nullptr) {
  const char *outcome[] = {"compiled", "memory", "disk", "quick"};
  kite::CompileTimes t = phases ? *phases : k.lastCompileTimes();
  std::printf("{\"bench\": \"compile\", \"kernel\": \"%s\", \"outcome\": "
              "\"%s\", \"ms\": %.2f, \"parse_ms\": %.2f, \"to_ptx_ms\": %.2f, "
              "\"machine_code_ms\": %.2f, \"load_ms\": %.2f, "
              "\"optimized_ms\": %.2f}\n",
              what.c_str(), outcome[int(k.lastOutcome())],
              launchedUs / 1000.0, parsedUs / 1000.0, t.toPtx, t.machineCode,
              t.load, optimizedUs / 1000.0);
}

static int compileBench(const char *path) {
  // The driver and the buffers first: driver start-up is not compiling.
  size_t n = 1 << 20;
  auto x = kite::DeviceBuffer<float>::allocate(n).value();
  auto out = kite::DeviceBuffer<float>::allocate(n).value();
  auto t0 = Clock::now();
  auto k = kite::compileFile(path).value();
  double parsed = since(t0);
  std::vector<kite::Arg> args = {x, out, int32_t(n), 0.5f, int32_t(123)};
  k.launch(kite::cdiv(n, 1024), args).value(); // compile, ptxas and load
  double launched = since(t0);
  kite::synchronize().value();
  // A tiered compile launched the quick tier: when the optimized code is
  // ready (from the start), and that a launch then switches to it.
  double optimized = 0;
  kite::CompileTimes first = k.lastCompileTimes(); // the first launch's
  if (k.lastOutcome() == kite::CacheOutcome::QuickTier) {
    k.finishCompiles().value();
    optimized = since(t0);
    k.launch(kite::cdiv(n, 1024), args).value();
    kite::synchronize().value();
  }
  printCompile(k, k.name(), parsed, launched, optimized, &first);
  return 0;
}

/// Seeded dropout over 2^20 elements in the interpreter (one thread),
/// median of 5 runs after a warm-up.
static int interpBench(const char *path) {
  auto k = kite::compileFile(path).value();
  size_t n = 1 << 20;
  std::vector<float> x(n, 1.f), out(n);
  std::vector<double> times;
  for (int r = 0; r < 6; ++r) {
    auto t0 = Clock::now();
    k.interpret(kite::cdiv(n, 1024), {x, out, int32_t(n), 0.5f, int32_t(123)})
        .value();
    if (r > 0)
      times.push_back(since(t0) / 1000.0);
  }
  std::sort(times.begin(), times.end());
  std::printf("{\"bench\": \"interpret\", \"kernel\": \"%s\", \"n\": %zu, "
              "\"ms\": %.1f}\n",
              k.name().c_str(), n, times[times.size() / 2]);
  return 0;
}

/// C = A x B through dsl-examples/matmul.kite (f32, or f16/bf16 inputs when
/// the file declares them), M = N = K = `size`: median of 10 timed runs
/// (host timing around launch + synchronize, after a warm-up).
static int matmulBench(const char *path, int size) {
  // Blocks of 64x64 for f32 (the example's defaults), 128x128 for the
  // f16/bf16 kernels; set explicitly so that the grid matches.
  auto probe = kite::compileFile(path).value();
  bool half = probe.params()[0].type != kite::ScalarType::F32;
  int block = half ? 128 : 64;
  kite::CompileOptions blocks;
  blocks.constants = {{"BLOCK_M", block}, {"BLOCK_N", block}};
  size_t n = size_t(size) * size;
  size_t elem = half ? 2 : 4;
  auto a = kite::deviceAlloc(n * elem).value();
  auto b = kite::deviceAlloc(n * elem).value();
  auto c = kite::deviceAlloc(n * 4).value();
  std::vector<uint8_t> init(n * elem, 0x3c); // small positive values
  kite::copyToDevice(a, init.data(), init.size()).value();
  kite::copyToDevice(b, init.data(), init.size()).value();
  std::vector<kite::Arg> args = {kite::Arg::pointer(a), kite::Arg::pointer(b),
                                 kite::Arg::pointer(c), int32_t(size),
                                 int32_t(size), int32_t(size), int32_t(size),
                                 int32_t(1), int32_t(size), int32_t(1),
                                 int32_t(size), int32_t(1)};
  uint32_t grid = kite::cdiv(size, block) * kite::cdiv(size, block);
  // The first launch compiles (or finds in the disk cache) the variant for
  // these arguments: its phases, as compileBench reports them.
  auto t0 = Clock::now();
  auto k = kite::compileFile(path, blocks).value();
  double parsed = since(t0);
  k.launch(grid, args).value();
  double launched = since(t0);
  kite::synchronize().value();
  printCompile(k,
               k.name() + " (" + (half ? "f16/bf16" : "f32") + ", " +
                   std::to_string(size) + ")",
               parsed, launched);
  std::vector<double> times;
  for (int r = 0; r < 10; ++r) {
    auto t0 = Clock::now();
    k.launch(grid, args).value();
    kite::synchronize().value();
    times.push_back(since(t0));
  }
  std::sort(times.begin(), times.end());
  double us = times[times.size() / 2];
  std::printf("{\"bench\": \"matmul\", \"dtype\": \"%s\", \"size\": %d, "
              "\"us\": %.1f, \"tflops\": %.3f}\n",
              half ? "f16/bf16" : "f32", size, us,
              2.0 * size * double(size) * size / us / 1e6);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && std::strcmp(argv[1], "matmul") == 0)
    return matmulBench(argv[2], std::atoi(argv[3]));
  if (argc != 3 || (std::strcmp(argv[1], "launch") &&
                    std::strcmp(argv[1], "compile") &&
                    std::strcmp(argv[1], "interpret"))) {
    std::fprintf(stderr,
                 "usage: kite-bench-runtime launch|compile|interpret <kernel>\n");
    return 2;
  }
  if (std::strcmp(argv[1], "launch") == 0)
    return launchBench(argv[2]);
  if (std::strcmp(argv[1], "interpret") == 0)
    return interpBench(argv[2]);
  return compileBench(argv[2]);
}
