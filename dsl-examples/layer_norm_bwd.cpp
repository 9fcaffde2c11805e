// Triton tutorial 05, layer normalization backward, from C++: dx, dw and db
// of an f16 rows x cols layer norm for an upstream gradient dy, on the GPU
// (or in the Kite interpreter where there is none): the dx kernel adds each
// row's dw/db to its group's partial sums under a spin lock, the second
// kernel sums the groups. Checked against the host in double.
//   layer_norm_bwd [rows cols]   (default 1151 x 8192, the tutorial's
//                                 check; 600 x 200 in the interpreter,
//                                 2-3 rows per lock group)
#include "common.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

using examples::fromHalf;
using examples::toHalf;

int main(int argc, char **argv) {
  bool gpu = examples::haveGPU();
  int rows = argc > 2 ? std::atoi(argv[1]) : gpu ? 1151 : 600;
  int cols = argc > 2 ? std::atoi(argv[2]) : gpu ? 8192 : 200;
  if (rows < 1 || cols < 1 || cols > 32768) {
    std::fprintf(stderr, "layer_norm_bwd: rows >= 1 and 1 <= cols <= 32768\n");
    return 2;
  }
  // The tutorial's choices: the row's next power of two, block / 256 warps
  // (1..8), and more lock groups for narrower rows.
  int block = 1;
  while (block < cols)
    block *= 2;
  int group = cols <= 1024 ? 256 : cols <= 4096 ? 128 : cols <= 8192 ? 96 : 64;
  kite::CompileOptions dxOptions;
  dxOptions.kernel = "_layer_norm_bwd_dx_fused";
  dxOptions.constants = {{"BLOCK_SIZE_N", block}, {"GROUP_SIZE_M", group}};
  dxOptions.overrideNumWarps = std::clamp(block / 256, 1, 8);
  kite::CompileOptions sumOptions;
  sumOptions.kernel = "_layer_norm_bwd_dwdb";
  std::string src = examples::source("layer_norm_bwd.kite");
  kite::Kernel dxKernel = kite::compileFile(src, dxOptions).value();
  kite::Kernel sumKernel = kite::compileFile(src, sumOptions).value();

  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> u(0.f, 1.f);
  size_t n = size_t(rows) * cols;
  std::vector<uint16_t> x(n), dy(n), dx(n), w(cols);
  for (uint16_t &v : x)
    v = toHalf(-2.3f + 0.5f * normal(rng));
  for (uint16_t &v : dy)
    v = toHalf(0.1f * normal(rng));
  for (int c = 0; c < cols; ++c)
    w[c] = toHalf(u(rng));
  // The forward pass's statistics, as its kernel stores them (f32).
  const double eps = 1e-5;
  std::vector<float> mean(rows), rstd(rows);
  std::vector<double> meanD(rows), rstdD(rows);
  for (int r = 0; r < rows; ++r) {
    std::tie(meanD[r], rstdD[r]) = examples::rowStats(x, r, cols, eps);
    mean[r] = float(meanD[r]);
    rstd[r] = float(rstdD[r]);
  }

  std::vector<uint16_t> partialDw(size_t(group) * cols, 0),
      partialDb(partialDw.size(), 0), dw(cols), db(cols);
  std::vector<int32_t> locks(2 * size_t(group), 0); // locks, then counts
  int32_t stride = cols;
  uint32_t sumGrid = kite::cdiv(cols, 128);
  if (gpu) {
    auto dX = kite::DeviceBuffer<uint16_t>::fromHost(x).value();
    auto dDY = kite::DeviceBuffer<uint16_t>::fromHost(dy).value();
    auto dW = kite::DeviceBuffer<uint16_t>::fromHost(w).value();
    auto dDX = kite::DeviceBuffer<uint16_t>::allocate(n).value();
    auto dMean = kite::DeviceBuffer<float>::fromHost(mean).value();
    auto dRstd = kite::DeviceBuffer<float>::fromHost(rstd).value();
    auto dPDw = kite::DeviceBuffer<uint16_t>::fromHost(partialDw).value();
    auto dPDb = kite::DeviceBuffer<uint16_t>::fromHost(partialDb).value();
    auto dLocks = kite::DeviceBuffer<int32_t>::fromHost(locks).value();
    auto dDw = kite::DeviceBuffer<uint16_t>::allocate(cols).value();
    auto dDb = kite::DeviceBuffer<uint16_t>::allocate(cols).value();
    dxKernel
        .launch(uint32_t(rows), {dDX, dDY, dPDw, dPDb, dX, dW, dMean, dRstd,
                                 dLocks, stride, cols})
        .value();
    sumKernel.launch(sumGrid, {dPDw, dPDb, dDw, dDb, int32_t(group), cols})
        .value();
    dx = dDX.toHost().value();
    dw = dDw.toHost().value();
    db = dDb.toHost().value();
  } else {
    dxKernel
        .interpret(uint32_t(rows), {dx, dy, partialDw, partialDb, x, w, mean,
                                    rstd, locks, stride, cols})
        .value();
    sumKernel
        .interpret(sumGrid, {partialDw, partialDb, dw, db, int32_t(group), cols})
        .value();
  }

  // The host in double: dx = (w dy - (xhat c1 + c2)) rstd, dw = sum dy xhat,
  // db = sum dy. f16 results: errors relative to each value's scale.
  double dxErr = 0, dwErr = 0, dbErr = 0;
  std::vector<double> wantDw(cols, 0), wantDb(cols, 0);
  for (int r = 0; r < rows; ++r) {
    double c1 = 0, c2 = 0;
    std::vector<double> xhat(cols), wdy(cols);
    for (int c = 0; c < cols; ++c) {
      size_t i = size_t(r) * cols + c;
      xhat[c] = (fromHalf(x[i]) - meanD[r]) * rstdD[r];
      wdy[c] = fromHalf(w[c]) * fromHalf(dy[i]);
      c1 += xhat[c] * wdy[c];
      c2 += wdy[c];
      wantDw[c] += fromHalf(dy[i]) * xhat[c];
      wantDb[c] += fromHalf(dy[i]);
    }
    c1 /= cols;
    c2 /= cols;
    for (int c = 0; c < cols; ++c) {
      double want = (wdy[c] - (xhat[c] * c1 + c2)) * rstdD[r];
      dxErr = std::fmax(dxErr, std::fabs(fromHalf(dx[size_t(r) * cols + c]) -
                                         want) /
                                   (0.1 + std::fabs(want)));
    }
  }
  for (int c = 0; c < cols; ++c) {
    dwErr = std::fmax(dwErr, std::fabs(fromHalf(dw[c]) - wantDw[c]) /
                                 (1 + std::fabs(wantDw[c])));
    dbErr = std::fmax(dbErr, std::fabs(fromHalf(db[c]) - wantDb[c]) /
                                 (1 + std::fabs(wantDb[c])));
  }
  std::printf("layer norm backward of %d x %d (f16), %d lock groups: "
              "dx[0][0..2] = %.5g %.5g %.5g, dw[0] = %.5g, db[0] = %.5g\n",
              rows, cols, group, fromHalf(dx[0]),
              cols > 1 ? fromHalf(dx[1]) : 0.f, cols > 2 ? fromHalf(dx[2]) : 0.f,
              fromHalf(dw[0]), fromHalf(db[0]));
  std::printf("Largest relative differences from the host (double): dx %g, "
              "dw %g, db %g\n",
              dxErr, dwErr, dbErr);
  return dxErr < 2e-2 && dwErr < 5e-2 && dbErr < 5e-2 ? 0 : 1;
}
