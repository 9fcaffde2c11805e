// An elementwise sigmoid from C++, on the GPU (or in the Kite interpreter
// where there is none), checked against the host in double.
//   sigmoid [n]        (default 98432)
#include "common.h"

#include <cmath>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 98432;
  if (n < 1 || n > (size_t(1) << 30)) {
    std::fprintf(stderr, "sigmoid: 1 <= n <= 2^30\n");
    return 2;
  }
  kite::Kernel sigmoid =
      kite::compileFile(examples::source("sigmoid.kite")).value();

  std::mt19937 rng(0);
  std::normal_distribution<float> normal(0.f, 4.f);
  std::vector<float> x(n), y(n);
  for (float &v : x)
    v = normal(rng);
  x[0] = 100.f; // exp(-x) underflows: 1
  if (n > 1)
    x[1] = -100.f; // exp(-x) overflows: 0
  uint32_t grid = uint32_t(kite::cdiv(n, 1024));
  if (examples::haveGPU()) {
    auto dx = kite::DeviceBuffer<float>::fromHost(x).value();
    auto dy = kite::DeviceBuffer<float>::allocate(n).value();
    sigmoid.launch(grid, {dx, dy, int32_t(n)}).value();
    y = dy.toHost().value();
  } else {
    sigmoid.interpret(grid, {x, y, int32_t(n)}).value();
  }

  double maxErr = 0;
  for (size_t i = 0; i < n; ++i)
    maxErr = std::fmax(maxErr, std::fabs(y[i] - 1 / (1 + std::exp(-double(x[i])))));
  std::printf("sigmoid of %zu values: y[0..3] = %.7g %.7g %.7g %.7g\n", n, y[0],
              n > 1 ? y[1] : 0.f, n > 2 ? y[2] : 0.f, n > 3 ? y[3] : 0.f);
  std::printf("The maximum difference from the host (double) is %.3g\n", maxErr);
  return maxErr < 1e-6 ? 0 : 1;
}
