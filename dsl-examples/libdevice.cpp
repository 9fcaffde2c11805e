// Triton tutorial 07 from C++: y = asin(x) through libdevice, on the GPU (or
// in the Kite interpreter where there is none), checked against the host's
// asin in double.
//   libdevice [n]        (default 98432, the tutorial's size)
#include "common.h"

#include <cmath>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 98432;
  if (n < 1 || n > (size_t(1) << 30)) {
    std::fprintf(stderr, "libdevice: 1 <= n <= 2^30\n");
    return 2;
  }
  kite::Kernel asin =
      kite::compileFile(examples::source("libdevice.kite")).value();

  // The tutorial's inputs lie in [0, 1); these cover asin's whole domain.
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> x(n), y(n);
  for (float &v : x)
    v = u(rng);
  uint32_t grid = uint32_t(kite::cdiv(n, 1024));
  if (examples::haveGPU()) {
    auto dx = kite::DeviceBuffer<float>::fromHost(x).value();
    auto dy = kite::DeviceBuffer<float>::allocate(n).value();
    asin.launch(grid, {dx, dy, int32_t(n)}).value();
    y = dy.toHost().value();
  } else {
    asin.interpret(grid, {x, y, int32_t(n)}).value();
  }

  // libdevice's asinf is within a few ulp of the exact value.
  double maxRel = 0;
  for (size_t i = 0; i < n; ++i) {
    double ref = std::asin(double(x[i]));
    maxRel = std::fmax(maxRel, std::fabs(y[i] - ref) /
                                   std::fmax(std::fabs(ref), 1e-30));
  }
  std::printf("asin of %zu values: y[0..2] = %.7g %.7g %.7g\n", n, y[0],
              n > 1 ? y[1] : 0.f, n > 2 ? y[2] : 0.f);
  std::printf("The maximum relative difference from the host (double) is "
              "%.3g\n", maxRel);
  return maxRel < 5e-7 ? 0 : 1;
}
