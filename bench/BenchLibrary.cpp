//===- BenchLibrary.cpp - Kernels in a Triton library's style ------------===//
//
// bench/kernels/library_style.py, one source for both sides: Triton runs it
// in scripts/gpu/bench_triton.py, Kite compiles it here as a library file
// (host code left out) and types its unannotated parameters from each
// launch's arguments (bf16 buffers, i32 sizes, f32 scalars), specializing
// on their values as Triton's launcher does. The launch settings are the
// library's (Liger-Kernel's calculate_settings: the row's power of two,
// 4 to 32 warps; the cross entropy's 32 KB blocks and 32 warps). GB/s
// counts each row read once and written once (the cross entropy writes its
// gradient over its input).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace kite;

namespace kitebench {

namespace {
int nextPowerOf2(int n) {
  int p = 1;
  while (p < n)
    p *= 2;
  return p;
}
/// Liger-Kernel's calculate_settings: (BLOCK_SIZE, num_warps).
std::pair<int, int> settings(int cols) {
  int block = nextPowerOf2(cols);
  int warps = block >= 32768 ? 32 : block >= 8192 ? 16 : block >= 2048 ? 8 : 4;
  return {block, warps};
}
Arg bf16(uint64_t p) { return Arg::pointer(p, ScalarType::BF16); }
/// One result line: `bytes` moved in `ms`.
void report(const char *kernel, int rows, int cols, double ms, double bytes) {
  std::printf("{\"impl\": \"kite\", \"kernel\": \"%s\", \"rows\": %d, "
              "\"cols\": %d, \"us\": %.2f, \"GBps\": %.1f}\n",
              kernel, rows, cols, ms * 1e3, bytes / ms / 1e6);
  std::fflush(stdout);
}
} // namespace

void runLibrary() {
  if (!part("library"))
    return;
  const std::string file = "bench/library_style.py";
  Kernel fill = load("bench/fill.kite", "fill_bf16");
  Kernel labels = load("bench/fill.kite", "fill_labels");
  const int rows = 4096;
  std::vector<int> widths = quick ? std::vector<int>{4096}
                                  : std::vector<int>{2048, 4096, 8192};
  for (int cols : widths) {
    auto [block, warps] = settings(cols);
    CompileOptions o;
    o.constants = {{"BLOCK_SIZE", block}};
    o.defines = {{"casting_mode", "0"}};
    o.overrideNumWarps = warps;
    Kernel rms = load(file, "_rms_norm_fwd", o);
    size_t n = size_t(rows) * cols;
    uint64_t x = filled(fill, n, 2, 11), w = filled(fill, cols, 2, 12);
    uint64_t y = deviceAlloc(n * 2).value(), rstd = deviceAlloc(rows * 4).value();
    synchronize().value();
    double ms = timeMs(
        [&] {
          rms.launch(rows, {bf16(y), int32_t(cols), bf16(x), int32_t(cols),
                            bf16(w), Arg::pointer(rstd, ScalarType::F32),
                            int32_t(cols), 1e-6f, 0.0f})
              .value();
        },
        25);
    report("rms_norm (library)", rows, cols, ms, 4.0 * n);
    for (uint64_t p : {x, w, y, rstd})
      deviceFree(p);
  }
  std::vector<int> mlp = quick ? std::vector<int>{4096}
                               : std::vector<int>{4096, 11008, 14336};
  for (int cols : mlp) {
    auto [block, warps] = settings(cols);
    CompileOptions o;
    o.constants = {{"BLOCK_SIZE", block}};
    o.overrideNumWarps = warps;
    Kernel swiglu = load(file, "_swiglu_fwd", o);
    size_t n = size_t(rows) * cols;
    uint64_t a = filled(fill, n, 2, 13), b = filled(fill, n, 2, 14);
    uint64_t c = deviceAlloc(n * 2).value();
    synchronize().value();
    double ms = timeMs(
        [&] {
          swiglu.launch(rows, {bf16(a), bf16(b), bf16(c), int32_t(cols),
                               int32_t(cols)})
              .value();
        },
        25);
    report("swiglu (library)", rows, cols, ms, 6.0 * n);
    for (uint64_t p : {a, b, c})
      deviceFree(p);
  }
  // Cross entropy over a vocabulary: (tokens, classes).
  std::vector<std::pair<int, int>> vocab =
      quick ? std::vector<std::pair<int, int>>{{4096, 32000}}
            : std::vector<std::pair<int, int>>{{4096, 32000}, {2048, 128256}};
  for (auto [tokens, classes] : vocab) {
    CompileOptions o;
    o.constants = {{"BLOCK_SIZE", std::min(32768, nextPowerOf2(classes))}};
    o.defines = {{"reduction", "'mean'"}};
    o.overrideNumWarps = 32;
    Kernel ce = load(file, "_cross_entropy_fwd", o);
    size_t n = size_t(tokens) * classes;
    uint64_t x = filled(fill, n, 2, 15);
    uint64_t y = deviceAlloc(size_t(tokens) * 8).value();
    labels.launch(cdiv(tokens, 1024), {Arg::pointer(y), int32_t(tokens),
                                       int32_t(16), int32_t(classes)})
        .value();
    uint64_t loss = deviceAlloc(size_t(tokens) * 4).value();
    synchronize().value();
    double ms = timeMs(
        [&] {
          ce.launch(tokens, {bf16(x), int32_t(classes),
                             Arg::pointer(y, ScalarType::I64),
                             Arg::pointer(loss, ScalarType::F32),
                             int32_t(classes), int32_t(tokens), int32_t(-100)})
              .value();
        },
        10);
    report("cross_entropy (library)", tokens, classes, ms, 4.0 * n);
    for (uint64_t p : {x, y, loss})
      deviceFree(p);
  }
}

} // namespace kitebench
