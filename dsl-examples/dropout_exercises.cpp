// Triton tutorial 04's exercises from C++ (dsl-examples/dropout_exercises.kite),
// on the GPU or in the Kite interpreter where there is none:
//   1. seeded dropout of a matrix with a seed per row and row strides,
//      checked element for element against the host's Philox (Triton's
//      stream), and that rows with the same seed drop the same columns;
//   2. a sparse Johnson-Lindenstrauss transform that regenerates its
//      projection from a seed, checked against the host's (the same random
//      projection, in float64), and that it roughly keeps distances.
//   dropout_exercises [rows cols n d k]   (default 300 x 5000, 200 x 1000 -> 128
//                                          on a GPU; 6 x 1500, 40 x 100 -> 48 without)
#include "common.h"

#include <cmath>
#include <random>
#include <vector>


int main(int argc, char **argv) {
  bool gpu = examples::haveGPU();
  int rows = gpu ? 300 : 6, cols = gpu ? 5000 : 1500;
  int n = gpu ? 200 : 40, d = gpu ? 1000 : 100, k = gpu ? 128 : 48;
  if (argc == 6)
    rows = std::atoi(argv[1]), cols = std::atoi(argv[2]), n = std::atoi(argv[3]),
    d = std::atoi(argv[4]), k = std::atoi(argv[5]);
  if (rows < 1 || cols < 1 || n < 1 || d < 1 || k < 1) {
    std::fprintf(stderr, "usage: dropout_exercises [rows cols n d k] (each >= 1)\n");
    return 2;
  }
  std::string src = examples::source("dropout_exercises.kite");
  kite::CompileOptions o;
  o.kernel = "seeded_dropout_rows";
  kite::Kernel drop = kite::compileFile(src, o).value();
  o.kernel = "sparse_jl";
  kite::Kernel jl = kite::compileFile(src, o).value();
  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  bool ok = true;

  // 1. Seeded dropout, one seed per row (rows 0 and 2 share one); the
  // matrix sits in rows of stride cols + 3, the output in rows of cols.
  {
    const float p = 0.3f;
    int strideX = cols + 3;
    std::vector<float> x(size_t(rows) * strideX), out(size_t(rows) * cols, NAN);
    for (float &v : x)
      v = normal(rng);
    std::vector<int32_t> seeds(rows);
    for (int r = 0; r < rows; ++r)
      seeds[r] = r == 2 ? 17 : 17 + 1000 * r;
    kite::Grid grid(uint32_t(rows), uint32_t(kite::cdiv(cols, 1024)));
    if (gpu) {
      auto dx = kite::DeviceBuffer<float>::fromHost(x).value();
      auto dout = kite::DeviceBuffer<float>::fromHost(out).value();
      auto ds = kite::DeviceBuffer<int32_t>::fromHost(seeds).value();
      drop.launch(grid, {dx, dout, ds, cols, strideX, cols, p}).value();
      out = dout.toHost().value();
    } else {
      drop.interpret(grid, {x, out, seeds, cols, strideX, cols, p}).value();
    }
    size_t wrong = 0, dropped = 0;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        bool keep = examples::rand(seeds[r], uint32_t(c)) > p;
        dropped += !keep;
        // The mask exactly; the kept values within 2 ulp (the GPU's f32
        // division is div.full, as Triton's).
        double want = keep ? double(x[size_t(r) * strideX + c]) / (1 - p) : 0.0;
        float got = out[size_t(r) * cols + c];
        wrong += keep ? !(std::fabs(got - want) <= 2.5e-7 * std::fabs(want))
                      : got != 0.f;
      }
    bool same = rows < 3 || std::equal(out.begin(), out.begin() + cols,
                                       out.begin() + 2 * size_t(cols),
                                       [](float a, float b) {
                                         return (a == 0.f) == (b == 0.f);
                                       });
    std::printf("seeded dropout, %d x %d, a seed per row: %.3f dropped, %zu "
                "differ from the host%s\n",
                rows, cols, double(dropped) / (double(rows) * cols), wrong,
                same ? "; rows 0 and 2 (one seed) drop the same columns" : "");
    ok &= wrong == 0 && same;
  }

  // 2. The sparse JL transform: Y = X R / sqrt(k), R regenerated from the
  // seed.
  {
    const int32_t seed = 99;
    std::vector<float> x(size_t(n) * d), y(size_t(n) * k, NAN);
    for (float &v : x)
      v = normal(rng);
    kite::Grid grid(uint32_t(kite::cdiv(n, 32)), uint32_t(kite::cdiv(k, 32)));
    if (gpu) {
      auto dx = kite::DeviceBuffer<float>::fromHost(x).value();
      auto dy = kite::DeviceBuffer<float>::fromHost(y).value();
      jl.launch(grid, {dx, dy, n, d, k, seed}).value();
      y = dy.toHost().value();
    } else {
      jl.interpret(grid, {x, y, n, d, k, seed}).value();
    }
    std::vector<double> R(size_t(d) * k);
    size_t nonzero = 0;
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < k; ++j) {
        float u = examples::rand(seed, uint32_t(i * k + j));
        R[size_t(i) * k + j] = u < 1.f / 6.f ? -1 : u > 5.f / 6.f ? 1 : 0;
        nonzero += R[size_t(i) * k + j] != 0;
      }
    double worst = 0, scale = std::sqrt(3.0 / k);
    std::vector<double> ref(size_t(n) * k);
    for (int r = 0; r < n; ++r)
      for (int j = 0; j < k; ++j) {
        double s = 0;
        for (int i = 0; i < d; ++i)
          s += double(x[size_t(r) * d + i]) * R[size_t(i) * k + j];
        ref[size_t(r) * k + j] = s * scale;
        worst = std::fmax(worst, std::fabs(y[size_t(r) * k + j] - s * scale));
      }
    // Distances: |y0 - y1| / |x0 - x1| near 1 (within a few 1/sqrt(k)).
    double dx2 = 0, dy2 = 0;
    for (int i = 0; i < d; ++i)
      dx2 += std::pow(double(x[i]) - x[size_t(d) + i], 2);
    for (int j = 0; j < k && n > 1; ++j)
      dy2 += std::pow(double(y[j]) - y[size_t(k) + j], 2);
    double ratio = n > 1 ? std::sqrt(dy2 / dx2) : 1;
    std::printf("sparse JL, %d x %d -> %d: %.3f of R nonzero, max difference "
                "from the host %.2e, |y0 - y1| / |x0 - x1| = %.3f\n",
                n, d, k, double(nonzero) / (double(d) * k), worst, ratio);
    ok &= worst < 1e-3 && std::fabs(ratio - 1) < 6 / std::sqrt(double(k));
  }
  std::printf(ok ? "ok\n" : "FAILED\n");
  return ok ? 0 : 1;
}
