// Shared by the host programs of the dsl-examples: where the kernel sources
// are, and failing with Kite's error text.
#ifndef KITE_DSL_EXAMPLES_COMMON_H
#define KITE_DSL_EXAMPLES_COMMON_H

#include "kite/Runtime/Runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <utility>
#include <vector>

namespace examples {

/// The path of dsl-examples/<file>: $KITE_EXAMPLES_DIR, the source tree this
/// program was built from, or ./dsl-examples (running from a checkout).
inline std::string source(const std::string &file) {
  struct stat st;
  for (std::string dir : {std::string(std::getenv("KITE_EXAMPLES_DIR")
                                          ? std::getenv("KITE_EXAMPLES_DIR")
                                          : ""),
                          std::string(KITE_EXAMPLES_DIR),
                          std::string("dsl-examples")}) {
    if (dir.empty())
      continue;
    std::string path = dir + "/" + file;
    if (stat(path.c_str(), &st) == 0)
      return path;
  }
  return "dsl-examples/" + file;
}

/// Whether there is a GPU; says where the example runs (the interpreter
/// otherwise, with the reason).
inline bool haveGPU() {
  auto count = kite::deviceCount();
  if (count && *count > 0)
    return true;
  std::printf("(no GPU: %s; running in the Kite interpreter)\n",
              count ? "the driver reports 0 devices"
                    : kite::errorCodeName(count.error().code()));
  return false;
}

/// Milliseconds of one launch of `kernel` on the GPU, timed with events
/// after a first launch (which compiles, loads and warms up); `grid` a
/// Grid, or a Kernel::GridFn for an autotuned kernel.
template <typename GridOrFn>
inline double timedLaunchMs(const kite::Kernel &kernel, const GridOrFn &grid,
                            const std::vector<kite::Arg> &args) {
  kernel.launch(grid, args).value();
  kite::Event start = kite::Event::create().value();
  kite::Event end = kite::Event::create().value();
  start.record().value();
  kernel.launch(grid, args).value();
  end.record().value();
  return kite::Event::elapsedMs(start, end).value();
}

/// f32 to the bits of an f16 (round to nearest even), and back.
inline uint16_t toHalf(float f) {
  _Float16 h = _Float16(f);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
inline float fromHalf(uint16_t u) {
  _Float16 h;
  std::memcpy(&h, &u, 2);
  return float(h);
}

/// Mean and 1/sqrt(variance + eps) of row `r` (`cols` f16 values), in
/// float64: the layer-norm examples' reference statistics.
inline std::pair<double, double> rowStats(const std::vector<uint16_t> &x,
                                          int r, int cols, double eps) {
  double m = 0, v = 0;
  for (int c = 0; c < cols; ++c)
    m += fromHalf(x[size_t(r) * cols + c]);
  m /= cols;
  for (int c = 0; c < cols; ++c) {
    double d = fromHalf(x[size_t(r) * cols + c]) - m;
    v += d * d;
  }
  return {m, 1 / std::sqrt(v / cols + eps)};
}

/// Philox4x32-10, Triton's random stream (../shared/notes/random.md):
/// counter `c` under key (k0, k1), in place; `rounds` is Triton's n_rounds.
/// The host references of the examples that use random numbers regenerate
/// them with it.
inline void philox(uint32_t k0, uint32_t k1, uint32_t c[4], int rounds = 10) {
  for (int r = 0; r < rounds; ++r) {
    uint64_t pb = uint64_t(0xCD9E8D57u) * c[2], pa = uint64_t(0xD2511F53u) * c[0];
    uint32_t n0 = uint32_t(pb >> 32) ^ c[1] ^ k0;
    uint32_t n2 = uint32_t(pa >> 32) ^ c[3] ^ k1;
    c[1] = uint32_t(pb);
    c[3] = uint32_t(pa);
    c[0] = n0;
    c[2] = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

/// Triton's tl.randint(seed, offset): word 0 of Philox under the seed
/// sign-extended to 64 bits, counter (offset, 0, 0, 0).
inline uint32_t randint(int32_t seed, uint32_t offset) {
  uint64_t key = uint64_t(int64_t(seed));
  uint32_t c[4] = {offset, 0, 0, 0};
  philox(uint32_t(key), uint32_t(key >> 32), c);
  return c[0];
}

/// Triton's tl.rand(seed, offset): the randint word as a float in [0, 1).
inline float rand(int32_t seed, uint32_t offset) {
  int32_t x = int32_t(randint(seed, offset));
  if (x < 0)
    x = ~x;
  return float(x) * 4.6566127342e-10f;
}

/// The float64 attention forward of f16 tensors [heads, N, D] (Q, K, V of
/// the tutorials' layout, heads = Z * H): out = softmax(Q K^T * scale) V,
/// row i seeing columns 0..i when `causal`. `weight(head, i, j, w)` may
/// change each softmax weight after the denominator is summed (dropout);
/// `lse`, if given, gets each row's log2 of its denominator plus its
/// maximum (the tutorial's M, in base-2 units).
template <typename Weight>
inline void attentionReference(const std::vector<uint16_t> &q,
                               const std::vector<uint16_t> &k,
                               const std::vector<uint16_t> &v, int heads, int N,
                               int D, bool causal, double scale,
                               std::vector<double> &out,
                               std::vector<double> *lse, Weight weight) {
  out.assign(size_t(heads) * N * D, 0.0);
  if (lse)
    lse->assign(size_t(heads) * N, 0.0);
  std::vector<double> s(N);
  for (int zh = 0; zh < heads; ++zh) {
    size_t base = size_t(zh) * N * D;
    for (int i = 0; i < N; ++i) {
      double mx = -INFINITY;
      int last = causal ? i : N - 1;
      for (int j = 0; j <= last; ++j) {
        double d = 0;
        for (int c = 0; c < D; ++c)
          d += double(fromHalf(q[base + size_t(i) * D + c])) *
               fromHalf(k[base + size_t(j) * D + c]);
        s[j] = d * scale;
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      for (int j = 0; j <= last; ++j)
        sum += (s[j] = std::exp(s[j] - mx));
      for (int j = 0; j <= last; ++j)
        s[j] = weight(zh, i, j, s[j]);
      for (int c = 0; c < D; ++c) {
        double o = 0;
        for (int j = 0; j <= last; ++j)
          o += s[j] * fromHalf(v[base + size_t(j) * D + c]);
        out[base + size_t(i) * D + c] = o / sum;
      }
      if (lse)
        (*lse)[size_t(zh) * N + i] = (mx + std::log(sum)) / std::log(2.0);
    }
  }
}

} // namespace examples

#endif
