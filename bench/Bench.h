//===- Bench.h - What kite-bench's parts share ------------------*- C++ -*-===//
//
// kite-bench (kite_bench.cpp) runs its parts (BenchElementwise.cpp: the
// 1-D, row, math and perceptron kernels; BenchAttention.cpp: the attention
// forward and backward; BenchMatmul.cpp: the matmuls and fp8;
// BenchLibrary.cpp: kernels in a Triton library's style; BenchSpellings.cpp:
// attention as users write it) through
// these helpers, and prints one JSON line per measurement.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_BENCH_BENCH_H
#define KITE_BENCH_BENCH_H

#include "kite/Runtime/Runtime.h"

#include <cstdint>
#include <functional>
#include <string>

namespace kitebench {

/// The directory the kernels' sources are read from (kite-bench's DIR).
extern std::string root;
/// --quick: a small subset.
extern bool quick;

/// Whether KITE_BENCH_ONLY (default: every part but fp8 alone and tuned
/// alone) names `name`.
bool part(const char *name);

/// `path` (under root) compiled with `o`, its kernel `kernel`.
kite::Kernel load(const std::string &path, const std::string &kernel = "",
                  kite::CompileOptions o = {});

/// A device buffer of n elements of `bytes` each, filled by `fill`.
uint64_t filled(const kite::Kernel &fill, size_t n, size_t bytes, int32_t seed);

/// The median milliseconds of at least `reps` timed runs of `run`, each
/// after an L2 flush; with `settle`, as Triton's do_bench (kite_bench.cpp).
double timeMs(const std::function<void()> &run, int reps, bool settle = false);

void runElementwise();
/// Returns non-zero on a bad KITE_BENCH_BLOCKS.
int runAttention();
void runMatmul();
/// bench/kernels/library_style.py typed at launch ("library").
void runLibrary();
/// bench/kernels/attention_spellings.py: attention as users write it
/// ("spellings").
void runSpellings();

} // namespace kitebench

#endif // KITE_BENCH_BENCH_H
