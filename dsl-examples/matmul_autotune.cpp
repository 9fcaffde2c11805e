// Triton tutorial 03 as the tutorial runs it, from C++: f16 C = A x B with
// @autotune over the tutorial's CUDA configurations
// (dsl-examples/matmul_autotune.kite). On a GPU the runtime times the
// configurations on the first launch of each (M, N, K), keeps the choice
// (in memory and on disk: a second run times nothing) and launches it; the
// program tunes two problems, prints each choice, and checks sampled
// elements of C against float64 on the host. Without a GPU it runs two of
// the configurations, chosen by index, in the Kite interpreter on a small
// problem and checks every element.
//   matmul_autotune [M N K ...]   (problems; default 1024^3 and 8192^3 on a
//                                  GPU, 100 x 90 x 70 without)
#include "common.h"

#include <chrono>
#include <cmath>
#include <random>
#include <vector>

namespace {

struct Problem {
  int M, N, K;
};

/// Random f16 matrices A (M x K) and B (K x N), as bits.
void fill(const Problem &p, std::vector<uint16_t> &a, std::vector<uint16_t> &b) {
  std::mt19937 rng(uint32_t(p.M * 131 + p.N * 17 + p.K));
  std::normal_distribution<float> g(0.f, 1.f);
  a.resize(size_t(p.M) * p.K);
  b.resize(size_t(p.K) * p.N);
  for (uint16_t &v : a)
    v = examples::toHalf(g(rng));
  for (uint16_t &v : b)
    v = examples::toHalf(g(rng));
}

/// C[i][j] in float64 from the f16 inputs.
double reference(const Problem &p, const std::vector<uint16_t> &a,
                 const std::vector<uint16_t> &b, int i, int j) {
  double s = 0;
  for (int k = 0; k < p.K; ++k)
    s += double(examples::fromHalf(a[size_t(i) * p.K + k])) *
         examples::fromHalf(b[size_t(k) * p.N + j]);
  return s;
}

/// The relative Frobenius error of C over `cells` (i, j) pairs; f16 output
/// and f32 accumulation stay within 2e-3 (Triton's tests use similar bounds).
double relativeError(const Problem &p, const std::vector<uint16_t> &a,
                     const std::vector<uint16_t> &b,
                     const std::vector<uint16_t> &c,
                     const std::vector<std::pair<int, int>> &cells) {
  double num = 0, den = 0;
  for (auto [i, j] : cells) {
    double r = reference(p, a, b, i, j);
    double d = examples::fromHalf(c[size_t(i) * p.N + j]) - r;
    num += d * d;
    den += r * r;
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

constexpr double kBound = 2e-3;

} // namespace

int main(int argc, char **argv) {
  bool gpu = examples::haveGPU();
  std::vector<Problem> problems;
  for (int i = 1; i + 2 < argc; i += 3)
    problems.push_back(
        {std::atoi(argv[i]), std::atoi(argv[i + 1]), std::atoi(argv[i + 2])});
  if (problems.empty())
    problems = gpu ? std::vector<Problem>{{1024, 1024, 1024}, {8192, 8192, 8192}}
                   : std::vector<Problem>{{100, 90, 70}};
  for (const Problem &p : problems)
    if (p.M < 1 || p.N < 1 || p.K < 1) {
      std::fprintf(stderr, "usage: matmul_autotune [M N K ...] (each >= 1)\n");
      return 2;
    }
  std::string src = examples::source("matmul_autotune.kite");
  kite::Kernel mm = kite::compileFile(src).value();
  std::printf("%zu configurations of %s\n", mm.configs().size(), src.c_str());
  auto grid = [](const Problem &p) {
    return [p](const kite::TuningConfig &t) {
      return kite::Grid(uint32_t(
          kite::cdiv(p.M, int(t.constants.at("BLOCK_M"))) *
          kite::cdiv(p.N, int(t.constants.at("BLOCK_N")))));
    };
  };
  bool ok = true;
  std::vector<std::string> choices;
  for (const Problem &p : problems) {
    std::vector<uint16_t> a, b;
    fill(p, a, b);
    std::vector<uint16_t> c(size_t(p.M) * p.N, 0x7e00); // NaN until written
    std::vector<kite::Arg> extra = {p.M, p.N, p.K, p.K, 1, p.N, 1, p.N, 1};
    if (gpu) {
      auto da = kite::DeviceBuffer<uint16_t>::fromHost(a).value();
      auto db = kite::DeviceBuffer<uint16_t>::fromHost(b).value();
      auto dc = kite::DeviceBuffer<uint16_t>::fromHost(c).value();
      std::vector<kite::Arg> args = {da, db, dc};
      args.insert(args.end(), extra.begin(), extra.end());
      // The first launch of this (M, N, K) tunes (or finds the choice on
      // disk: no timing runs); later ones reuse it.
      auto t0 = std::chrono::steady_clock::now();
      kite::TuningConfig chosen = mm.tune(grid(p), args).value();
      double tuneMs = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - t0)
                          .count();
      mm.launch(grid(p), args).value();
      kite::Event start = kite::Event::create().value();
      kite::Event end = kite::Event::create().value();
      start.record().value();
      mm.launch(grid(p), args).value();
      end.record().value();
      double ms = kite::Event::elapsedMs(start, end).value();
      c = dc.toHost().value();
      // Sampled cells (every cell of a small C), corners included.
      std::vector<std::pair<int, int>> cells;
      std::mt19937 pick(7);
      if (size_t(p.M) * p.N <= 4096) {
        for (int i = 0; i < p.M; ++i)
          for (int j = 0; j < p.N; ++j)
            cells.push_back({i, j});
      } else {
        cells = {{0, 0}, {p.M - 1, p.N - 1}, {0, p.N - 1}, {p.M - 1, 0}};
        for (int s = 0; s < 2048; ++s)
          cells.push_back({int(pick() % p.M), int(pick() % p.N)});
      }
      double err = relativeError(p, a, b, c, cells);
      bool good = err <= kBound;
      ok &= good;
      choices.push_back(chosen.str());
      std::printf("%d x %d x %d: chose %s in %.1f ms; %.1f TFLOP/s; relative "
                  "error %.2e over %zu elements%s\n",
                  p.M, p.N, p.K, chosen.str().c_str(), tuneMs,
                  2.0 * p.M * double(p.N) * p.K / ms / 1e9, err, cells.size(),
                  good ? "" : "  FAILED");
    } else {
      // The interpreter runs one configuration at a time: two of the
      // tutorial's, by index.
      for (int index : {4, 7}) {
        kite::CompileOptions o;
        o.autotuneConfig = index;
        kite::Kernel one = kite::compileFile(src, o).value();
        const kite::TuningConfig &t = mm.configs()[index];
        std::fill(c.begin(), c.end(), uint16_t(0x7e00));
        std::vector<kite::Arg> args = {a, b, c};
        args.insert(args.end(), extra.begin(), extra.end());
        one.interpret(grid(p)(t), args).value();
        std::vector<std::pair<int, int>> cells;
        for (int i = 0; i < p.M; ++i)
          for (int j = 0; j < p.N; ++j)
            cells.push_back({i, j});
        double err = relativeError(p, a, b, c, cells);
        bool good = err <= kBound;
        ok &= good;
        std::printf("%d x %d x %d, config %d (%s), in the interpreter: relative "
                    "error %.2e%s\n",
                    p.M, p.N, p.K, index, t.str().c_str(), err,
                    good ? "" : "  FAILED");
      }
    }
  }
  if (choices.size() == 2)
    std::printf("the choices %s\n", choices[0] == choices[1]
                                        ? "are the same"
                                        : "differ between the two problems");
  std::printf(ok ? "ok: every result within 2e-3 of float64\n" : "FAILED\n");
  return ok ? 0 : 1;
}
