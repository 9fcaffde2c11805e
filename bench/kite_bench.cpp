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
//     and 128, causal and not; on 8 warps also its form with K and V
//     through tensor descriptors (dsl-examples/attention_tma.kite: TMA,
//     a producer warpgroup, and its persistent form on #SMs programs;
//     KITE_BENCH_ATTN_TMA=0 leaves them out).
// The parts are in BenchElementwise.cpp, BenchAttention.cpp and
// BenchMatmul.cpp (Bench.h: what they share).
// KITE_BENCH_SOURCES=DIR2: a kernel file that DIR2 also has (at the same
// relative path) is compiled from there (an A/B of two versions of a
// kernel: scripts/gpu/ab_env.sh KITE_BENCH_SOURCES=DIR2).
// Protocol: inputs generated on the device with Philox (never zeros);
// before every timed launch the L2 is flushed (a 256 MB memset); CUDA
// events around the launch; 3 warm-up runs; the median of 25 runs (10 for
// matmul). --quick: 2^20 and 2^24 only, matmul at 1024^3.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace kite;

namespace kitebench {

std::string root;
bool quick = false;

bool part(const char *name) {
  // KITE_BENCH_ONLY=1d,rows,matmul (any of them): only those parts, each
  // a whole name ("fp8" is not the one in "mxfp8").
  static const std::string only = [] {
    const char *env = std::getenv("KITE_BENCH_ONLY");
    return "," +
           std::string(
               env ? env
                   : "1d,rows,math,perceptron,attention,attnbwd,matmul,library,"
                     "spellings") +
           ",";
  }();
  return only.find("," + std::string(name) + ",") != std::string::npos;
}

Kernel load(const std::string &path, const std::string &kernel,
            CompileOptions o) {
  o.kernel = kernel;
  std::string file = root + "/" + path;
  if (const char *dir = std::getenv("KITE_BENCH_SOURCES"))
    if (std::string other = std::string(dir) + "/" + path;
        std::ifstream(other).good())
      file = other;
  return compileFile(file, o).value();
}

/// Device buffer of n elements of `bytes` each, filled by `fill`.
uint64_t filled(const Kernel &fill, size_t n, size_t bytes, int32_t seed) {
  uint64_t p = deviceAlloc(n * bytes).value();
  fill.launch(cdiv(n, 1024), {Arg::pointer(p), int32_t(n), seed}).value();
  return p;
}

static uint64_t flushBuffer;
static const size_t kFlushBytes = size_t(256) << 20;

/// The median of at least `reps` timed runs, each after an L2 flush. With
/// `settle` (the matmul rows, as bench_triton.py's Triton and cuBLAS rows):
/// 300 ms idle first, warm-up runs for 25 ms and timed runs for at least
/// 100 ms (Triton's do_bench defaults). Right after heavy kernels (the
/// 8192^3 matmuls) the H100 runs the next ones up to 25% slower for a few
/// hundred milliseconds (4096x4096x512 f16: 63.8 us instead of 50.8 after
/// 8 s of 8192^3 matmuls), which a 1 ms measurement took for the kernel's
/// speed; longer warm-ups instead let sustained power limits lower the
/// clocks of the large shapes.
double timeMs(const std::function<void()> &run, int reps, bool settle) {
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

} // namespace kitebench

using namespace kitebench;

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kite-bench DIR [--quick]\n");
    return 2;
  }
  root = argv[1];
  quick = argc > 2 && std::strcmp(argv[2], "--quick") == 0;
  // The kernels' optimized code from the first launch: a tiered compile's
  // quick tier would otherwise run the first launches of every size. (The
  // optimized code is the same either way: same PTX, same cache key.)
  setenv("KITE_TIERED", "0", /*overwrite=*/0);
  flushBuffer = deviceAlloc(kFlushBytes).value();
  runElementwise();
  if (int status = runAttention())
    return status;
  runMatmul();
  runLibrary();
  runSpellings();
  return 0;
}
