// Triton tutorial 04, dropout with an explicit keep mask, from C++ (GPU, or
// the Kite interpreter where there is none): prints the tutorial's table
// (input, keep mask, output) and checks every element.
#include "common.h"

#include <random>
#include <vector>

int main() {
  const size_t n = 10;
  const float p = 0.5f;
  kite::Kernel dropout = kite::compileFile(examples::source("dropout.kite")).value();

  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  std::vector<float> x(n), out(n);
  std::vector<int32_t> keep(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = normal(rng), keep[i] = (rng() & 1) ? 1 : 0;
  if (examples::haveGPU()) {
    auto dx = kite::DeviceBuffer<float>::fromHost(x).value();
    auto dk = kite::DeviceBuffer<int32_t>::fromHost(keep).value();
    auto dout = kite::DeviceBuffer<float>::allocate(n).value();
    dropout.launch(kite::cdiv(n, 1024), {dx, dk, dout, int32_t(n), p}).value();
    out = dout.toHost().value();
  } else {
    dropout.interpret(kite::cdiv(n, 1024), {x, keep, out, int32_t(n), p}).value();
  }

  bool ok = true;
  std::printf("%-12s", "input");
  for (float v : x) std::printf(" %8.4f", v);
  std::printf("\n%-12s", "keep mask");
  for (int32_t v : keep) std::printf(" %8d", v);
  std::printf("\n%-12s", "output");
  for (size_t i = 0; i < n; ++i) {
    std::printf(" %8.4f", out[i]);
    float expect = keep[i] ? x[i] / (1 - p) : 0.f;
    ok = ok && out[i] == expect;
  }
  std::printf("\n%s\n", ok ? "ok: output == keep ? x / (1 - p) : 0" : "MISMATCH");
  return ok ? 0 : 1;
}
