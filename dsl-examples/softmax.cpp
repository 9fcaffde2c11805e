// Triton tutorial 02, fused softmax, from C++: the softmax of each row of a
// rows x cols matrix on the GPU (or in the Kite interpreter where there is
// none), checked against the host in double.
//   softmax [rows cols]   (default 1823 x 781, the tutorial's check; 64 rows
//                          in the interpreter)
#include "common.h"

#include <cmath>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  bool gpu = examples::haveGPU();
  int rows = argc > 2 ? std::atoi(argv[1]) : gpu ? 1823 : 64;
  int cols = argc > 2 ? std::atoi(argv[2]) : 781;
  if (rows < 1 || cols < 1 || cols > 16384) {
    std::fprintf(stderr, "softmax: rows >= 1 and 1 <= cols <= 16384\n");
    return 2;
  }
  int block = 1;
  while (block < cols)
    block *= 2;
  kite::CompileOptions options;
  options.constants = {{"BLOCK_SIZE", block}};
  kite::Kernel softmax =
      kite::compileFile(examples::source("softmax.kite"), options).value();

  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  std::vector<float> x(size_t(rows) * cols), y(x.size());
  for (float &v : x)
    v = normal(rng);
  // One program per row (the kernel also loops when given fewer).
  uint32_t programs = uint32_t(rows);
  if (gpu) {
    auto dx = kite::DeviceBuffer<float>::fromHost(x).value();
    auto dy = kite::DeviceBuffer<float>::allocate(x.size()).value();
    softmax.launch(programs, {dy, dx, cols, cols, rows, cols}).value();
    y = dy.toHost().value();
  } else {
    softmax.interpret(programs, {y, x, cols, cols, rows, cols}).value();
  }

  double maxErr = 0;
  for (int r = 0; r < rows; ++r) {
    const float *in = &x[size_t(r) * cols];
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; ++c)
      m = std::fmax(m, in[c]);
    for (int c = 0; c < cols; ++c)
      s += std::exp(double(in[c]) - m);
    for (int c = 0; c < cols; ++c)
      maxErr = std::fmax(maxErr, std::fabs(y[size_t(r) * cols + c] -
                                           std::exp(double(in[c]) - m) / s));
  }
  std::printf("softmax of %d x %d: y[0][0..2] = %.6g %.6g %.6g\n", rows, cols,
              y[0], cols > 1 ? y[1] : 0.f, cols > 2 ? y[2] : 0.f);
  std::printf("The maximum difference from the host (double) is %g\n", maxErr);
  return maxErr < 1e-6 ? 0 : 1;
}
