// Triton tutorial 01 from C++: z = x + y, on the GPU (or in the Kite
// interpreter where there is none), checked on the host.
//   vector_add [n]        (default 98432, the tutorial's size)
#include "common.h"

#include <cmath>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 98432;
  kite::Kernel add = kite::compileFile(examples::source("vector_add.kite")).value();

  std::mt19937 rng(0);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> x(n), y(n), z(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = u(rng), y[i] = u(rng);
  if (examples::haveGPU()) {
    auto dx = kite::DeviceBuffer<float>::fromHost(x).value();
    auto dy = kite::DeviceBuffer<float>::fromHost(y).value();
    auto dz = kite::DeviceBuffer<float>::allocate(n).value();
    add.launch(kite::cdiv(n, 1024), {dx, dy, dz, int32_t(n)}).value();
    z = dz.toHost().value();
  } else {
    add.interpret(kite::cdiv(n, 1024), {x, y, z, int32_t(n)}).value();
  }

  float maxDiff = 0;
  for (size_t i = 0; i < n; ++i)
    maxDiff = std::fmax(maxDiff, std::fabs(z[i] - (x[i] + y[i])));
  std::printf("n = %zu: z[0..3] = %.6f %.6f %.6f\n", n, z[0], n > 1 ? z[1] : 0.f,
              n > 2 ? z[2] : 0.f);
  std::printf("The maximum difference between the host and Kite is %g\n", maxDiff);
  return maxDiff == 0 ? 0 : 1;
}
