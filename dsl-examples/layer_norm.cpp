// Triton tutorial 05, layer normalization (forward), from C++: y = (x -
// mean) / sqrt(var + eps) * w + b over each row of an f16 rows x cols
// matrix on the GPU (or in the Kite interpreter where there is none),
// checked against the host in double.
//   layer_norm [rows cols]   (default 1151 x 8192, the tutorial's check;
//                             32 x 1000 in the interpreter)
#include "common.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using examples::fromHalf;
using examples::toHalf;

int main(int argc, char **argv) {
  bool gpu = examples::haveGPU();
  int rows = argc > 2 ? std::atoi(argv[1]) : gpu ? 1151 : 32;
  int cols = argc > 2 ? std::atoi(argv[2]) : gpu ? 8192 : 1000;
  if (rows < 1 || cols < 1) {
    std::fprintf(stderr, "layer_norm: rows >= 1 and cols >= 1\n");
    return 2;
  }
  // The tutorial's block: the row's next power of two, at most 64 KB of
  // f16; its warps: block / 256, 1..8.
  int block = 1;
  while (block < cols && block < 32768)
    block *= 2;
  kite::CompileOptions options;
  options.constants = {{"BLOCK_SIZE", block}};
  options.overrideNumWarps = std::clamp(block / 256, 1, 8);
  kite::Kernel ln =
      kite::compileFile(examples::source("layer_norm.kite"), options).value();

  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<uint16_t> x(size_t(rows) * cols), y(x.size()), w(cols), b(cols);
  for (uint16_t &v : x)
    v = toHalf(-2.3f + 0.5f * normal(rng));
  for (int c = 0; c < cols; ++c)
    w[c] = toHalf(u(rng)), b[c] = toHalf(u(rng));
  std::vector<float> mean(rows), rstd(rows);
  const float eps = 1e-5f;
  int32_t stride = cols;
  if (gpu) {
    auto dx = kite::DeviceBuffer<uint16_t>::fromHost(x).value();
    auto dw = kite::DeviceBuffer<uint16_t>::fromHost(w).value();
    auto db = kite::DeviceBuffer<uint16_t>::fromHost(b).value();
    auto dy = kite::DeviceBuffer<uint16_t>::allocate(x.size()).value();
    auto dm = kite::DeviceBuffer<float>::allocate(rows).value();
    auto dr = kite::DeviceBuffer<float>::allocate(rows).value();
    ln.launch(uint32_t(rows), {dx, dy, dw, db, dm, dr, stride, cols, eps})
        .value();
    y = dy.toHost().value();
    mean = dm.toHost().value();
    rstd = dr.toHost().value();
  } else {
    ln.interpret(uint32_t(rows), {x, y, w, b, mean, rstd, stride, cols, eps})
        .value();
  }

  // f16 output: allow its rounding (2^-11 relative) on |y| up to a few.
  double maxErr = 0, statErr = 0;
  for (int r = 0; r < rows; ++r) {
    auto [m, rs] = examples::rowStats(x, r, cols, eps);
    statErr = std::fmax(statErr, std::fabs(mean[r] - m) +
                                     std::fabs(rstd[r] - rs) / rs);
    for (int c = 0; c < cols; ++c) {
      size_t i = size_t(r) * cols + c;
      double want = (fromHalf(x[i]) - m) * rs * fromHalf(w[c]) + fromHalf(b[c]);
      maxErr = std::fmax(maxErr, std::fabs(fromHalf(y[i]) - want));
    }
  }
  std::printf("layer norm of %d x %d (f16): y[0][0..2] = %.5g %.5g %.5g\n",
              rows, cols, fromHalf(y[0]), cols > 1 ? fromHalf(y[1]) : 0.f,
              cols > 2 ? fromHalf(y[2]) : 0.f);
  std::printf("The maximum difference from the host (double) is %g (mean and "
              "rstd: %g)\n",
              maxErr, statErr);
  return maxErr < 1e-2 && statErr < 1e-4 ? 0 : 1;
}
