// A histogram of integers from C++ (dsl-examples/histogram.kite), on the
// GPU (or in the Kite interpreter where there is none), checked bin for bin
// against the host.
//   histogram [n]        (default 1000003)
#include "common.h"

#include <random>
#include <vector>

int main(int argc, char **argv) {
  size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000003;
  if (n < 1 || n > (size_t(1) << 30)) {
    std::fprintf(stderr, "histogram: 1 <= n <= 2^30\n");
    return 2;
  }
  const int bins = 256, block = 8192;
  kite::Kernel kernel =
      kite::compileFile(examples::source("histogram.kite")).value();

  // Mostly small values (a skewed distribution, as token ids are), some
  // outside the bins (negative or too large: not counted).
  std::mt19937 rng(0);
  std::geometric_distribution<int> geometric(0.02);
  std::vector<int32_t> x(n), hist(bins, 0);
  for (size_t i = 0; i < n; ++i)
    x[i] = i % 97 == 0 ? -int32_t(i % 5) - 1 : geometric(rng);
  uint32_t grid = uint32_t(kite::cdiv(n, block));
  if (examples::haveGPU()) {
    auto dx = kite::DeviceBuffer<int32_t>::fromHost(x).value();
    auto dh = kite::DeviceBuffer<int32_t>::fromHost(hist).value();
    kernel.launch(grid, {dx, dh, int32_t(n)}).value();
    hist = dh.toHost().value();
  } else {
    kernel.interpret(grid, {x, hist, int32_t(n)}).value();
  }

  std::vector<int64_t> want(bins, 0);
  for (int32_t v : x)
    if (v >= 0 && v < bins)
      ++want[v];
  int wrong = 0;
  int64_t counted = 0;
  for (int b = 0; b < bins; ++b) {
    counted += hist[b];
    if (hist[b] != want[b])
      ++wrong;
  }
  std::printf("histogram of %zu values in %d bins: %lld counted, bins 0..3 = "
              "%d %d %d %d\n",
              n, bins, (long long)counted, hist[0], hist[1], hist[2], hist[3]);
  std::printf("%d bins differ from the host's\n", wrong);
  return wrong == 0 ? 0 : 1;
}
