// A perceptron layer from C++: Y = sigmoid(X W + b) in f16 with f32
// accumulation (dsl-examples/perceptron.kite), autotuned on the GPU on the
// first launch of each shape, checked against float64 on the host (sampled
// elements on large problems). Without a GPU one configuration runs in the
// Kite interpreter on a small problem, every element checked.
//   perceptron [M N K]   (default 4096 x 4096 x 4096 on a GPU, 70 x 90 x 50
//                         without)
#include "common.h"

#include <cmath>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  bool gpu = examples::haveGPU();
  int M = gpu ? 4096 : 70, N = gpu ? 4096 : 90, K = gpu ? 4096 : 50;
  if (argc > 3)
    M = std::atoi(argv[1]), N = std::atoi(argv[2]), K = std::atoi(argv[3]);
  if (M < 1 || N < 1 || K < 1) {
    std::fprintf(stderr, "usage: perceptron [M N K] (each >= 1)\n");
    return 2;
  }
  std::mt19937 rng(0);
  std::normal_distribution<float> g(0.f, 1.f);
  std::vector<uint16_t> x(size_t(M) * K), w(size_t(K) * N);
  std::vector<float> bias(N);
  // Weights scaled by 1/sqrt(K): pre-activations of order 1, where the
  // sigmoid is not saturated.
  float scale = 1.f / std::sqrt(float(K));
  for (uint16_t &v : x)
    v = examples::toHalf(g(rng));
  for (uint16_t &v : w)
    v = examples::toHalf(g(rng) * scale);
  for (float &v : bias)
    v = 0.5f * g(rng);
  std::vector<uint16_t> y(size_t(M) * N, 0x7e00); // NaN until written

  std::string src = examples::source("perceptron.kite");
  auto grid = [&](const kite::TuningConfig &t) {
    return kite::Grid(uint32_t(kite::cdiv(M, int(t.constants.at("BLOCK_M"))) *
                               kite::cdiv(N, int(t.constants.at("BLOCK_N")))));
  };
  std::vector<kite::Arg> shape = {M, N, K, K, N, N};
  kite::Kernel layer = kite::compileFile(src).value();
  if (gpu) {
    auto dx = kite::DeviceBuffer<uint16_t>::fromHost(x).value();
    auto dw = kite::DeviceBuffer<uint16_t>::fromHost(w).value();
    auto db = kite::DeviceBuffer<float>::fromHost(bias).value();
    auto dy = kite::DeviceBuffer<uint16_t>::fromHost(y).value();
    std::vector<kite::Arg> args = {dx, dw, db, dy};
    args.insert(args.end(), shape.begin(), shape.end());
    kite::TuningConfig chosen = layer.tune(grid, args).value();
    layer.launch(grid, args).value();
    kite::Event start = kite::Event::create().value();
    kite::Event end = kite::Event::create().value();
    start.record().value();
    layer.launch(grid, args).value();
    end.record().value();
    double ms = kite::Event::elapsedMs(start, end).value();
    y = dy.toHost().value();
    std::printf("%d x %d x %d: %s, %.1f TFLOP/s\n", M, N, K,
                chosen.str().c_str(), 2.0 * M * double(N) * K / ms / 1e9);
  } else {
    kite::CompileOptions o;
    o.autotuneConfig = 2; // 64 x 128 x 32
    kite::Kernel one = kite::compileFile(src, o).value();
    std::vector<kite::Arg> args = {x, w, bias, y};
    args.insert(args.end(), shape.begin(), shape.end());
    one.interpret(grid(layer.configs()[2]), args).value();
  }

  std::vector<std::pair<int, int>> cells;
  if (size_t(M) * N <= 16384) {
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j)
        cells.push_back({i, j});
  } else {
    std::mt19937 pick(7);
    cells = {{0, 0}, {M - 1, N - 1}, {0, N - 1}, {M - 1, 0}};
    for (int s = 0; s < 4096; ++s)
      cells.push_back({int(pick() % M), int(pick() % N)});
  }
  // f16 output: within 1e-3 of the exact sigmoid (half an f16 ulp below 1
  // is 2.4e-4; the f32 sum of K f16 products adds less).
  double maxErr = 0;
  for (auto [i, j] : cells) {
    double s = bias[j];
    for (int k = 0; k < K; ++k)
      s += double(examples::fromHalf(x[size_t(i) * K + k])) *
           examples::fromHalf(w[size_t(k) * N + j]);
    double ref = 1 / (1 + std::exp(-s));
    maxErr = std::fmax(maxErr,
                       std::fabs(examples::fromHalf(y[size_t(i) * N + j]) - ref));
  }
  std::printf("Y[0][0..2] = %.5g %.5g %.5g; the maximum difference from "
              "float64 over %zu elements is %.3g\n",
              examples::fromHalf(y[0]), N > 1 ? examples::fromHalf(y[1]) : 0.f,
              N > 2 ? examples::fromHalf(y[2]) : 0.f, cells.size(), maxErr);
  return maxErr < 1e-3 ? 0 : 1;
}
