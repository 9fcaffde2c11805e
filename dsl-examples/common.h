// Shared by the host programs of the dsl-examples: where the kernel sources
// are, and failing with Kite's error text.
#ifndef KITE_DSL_EXAMPLES_COMMON_H
#define KITE_DSL_EXAMPLES_COMMON_H

#include "kite/Runtime/Runtime.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <utility>
#include <vector>

namespace examples {

/// The path of dsl-examples/<file>: $KITE_EXAMPLES_DIR, the source tree this
/// program was built from, or ./dsl-examples (running from a checkout).
inline std::string source(const std::string &file) {
  struct stat st;
  for (std::string dir : {std::string(std::getenv("KITE_EXAMPLES_DIR")
                                          ? std::getenv("KITE_EXAMPLES_DIR")
                                          : ""),
                          std::string(KITE_EXAMPLES_DIR),
                          std::string("dsl-examples")}) {
    if (dir.empty())
      continue;
    std::string path = dir + "/" + file;
    if (stat(path.c_str(), &st) == 0)
      return path;
  }
  return "dsl-examples/" + file;
}

/// Whether there is a GPU; says where the example runs (the interpreter
/// otherwise, with the reason).
inline bool haveGPU() {
  auto count = kite::deviceCount();
  if (count && *count > 0)
    return true;
  std::printf("(no GPU: %s; running in the Kite interpreter)\n",
              count ? "the driver reports 0 devices"
                    : kite::errorCodeName(count.error().code()));
  return false;
}

/// Milliseconds of one launch of `kernel` on the GPU, timed with events
/// after a first launch (which compiles, loads and warms up).
inline double timedLaunchMs(const kite::Kernel &kernel, kite::Grid grid,
                            const std::vector<kite::Arg> &args) {
  kernel.launch(grid, args).value();
  kite::Event start = kite::Event::create().value();
  kite::Event end = kite::Event::create().value();
  start.record().value();
  kernel.launch(grid, args).value();
  end.record().value();
  return kite::Event::elapsedMs(start, end).value();
}

/// f32 to the bits of an f16 (round to nearest even), and back.
inline uint16_t toHalf(float f) {
  _Float16 h = _Float16(f);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
inline float fromHalf(uint16_t u) {
  _Float16 h;
  std::memcpy(&h, &u, 2);
  return float(h);
}

/// Mean and 1/sqrt(variance + eps) of row `r` (`cols` f16 values), in
/// float64: the layer-norm examples' reference statistics.
inline std::pair<double, double> rowStats(const std::vector<uint16_t> &x,
                                          int r, int cols, double eps) {
  double m = 0, v = 0;
  for (int c = 0; c < cols; ++c)
    m += fromHalf(x[size_t(r) * cols + c]);
  m /= cols;
  for (int c = 0; c < cols; ++c) {
    double d = fromHalf(x[size_t(r) * cols + c]) - m;
    v += d * d;
  }
  return {m, 1 / std::sqrt(v / cols + eps)};
}

} // namespace examples

#endif
