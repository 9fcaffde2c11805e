// Triton tutorial 04, low-memory seeded dropout, from C++ (GPU, or the Kite
// interpreter where there is none): the tutorial's table (input; output
// with seed 123; again 123; 512). The same seed gives the same mask,
// another seed another one.
#include "common.h"

#include <random>
#include <vector>

int main() {
  const size_t n = 10;
  const float p = 0.5f;
  kite::Kernel seeded =
      kite::compileFile(examples::source("seeded_dropout.kite")).value();

  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  std::vector<float> x(n);
  for (float &v : x)
    v = normal(rng);
  bool gpu = examples::haveGPU();
  auto run = [&](int32_t seed) {
    std::vector<float> out(n);
    if (gpu) {
      auto dx = kite::DeviceBuffer<float>::fromHost(x).value();
      auto dout = kite::DeviceBuffer<float>::allocate(n).value();
      seeded.launch(kite::cdiv(n, 1024), {dx, dout, int32_t(n), p, seed}).value();
      out = dout.toHost().value();
    } else {
      seeded.interpret(kite::cdiv(n, 1024), {x, out, int32_t(n), p, seed}).value();
    }
    return out;
  };
  std::vector<float> a = run(123), b = run(123), c = run(512);

  auto row = [&](const char *label, const std::vector<float> &v) {
    std::printf("%-24s", label);
    for (float e : v)
      std::printf(" %8.4f", e);
    std::printf("\n");
  };
  row("input", x);
  row("output (seed = 123)", a);
  row("output (seed = 123)", b);
  row("output (seed = 512)", c);
  bool ok = a == b && a != c;
  for (size_t i = 0; i < n; ++i)
    ok = ok && (a[i] == 0.f || a[i] == x[i] / (1 - p));
  std::printf("%s\n", ok ? "ok: same seed, same output; another seed, another"
                         : "MISMATCH");
  return ok ? 0 : 1;
}
