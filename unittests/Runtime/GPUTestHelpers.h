//===- GPUTestHelpers.h - Shared by the GPU test files ----------*- C++ -*-===//
//
// REQUIRE_GPU (skip, saying why, without a GPU), REQUIRE_SM90, the
// dsl-examples' sources and f16/bf16 bits for the test files of
// KiteRuntimeGPUTests.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_UNITTESTS_RUNTIME_GPUTESTHELPERS_H
#define KITE_UNITTESTS_RUNTIME_GPUTESTHELPERS_H

#include "kite/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    auto count = ::kite::deviceCount();                                        \
    if (!count)                                                                \
      GTEST_SKIP() << "no GPU: " << count.error().str();                       \
    if (*count == 0)                                                           \
      GTEST_SKIP() << "no GPU: the CUDA driver reports 0 devices";             \
  } while (0)

/// REQUIRE_GPU, and skip saying `why` on a GPU older than sm_90 (clusters,
/// TMA, producer warps).
#define REQUIRE_SM90(why)                                                      \
  do {                                                                         \
    REQUIRE_GPU();                                                             \
    if (std::atoi(::kite::deviceChip().value().c_str() + 3) < 90)              \
      GTEST_SKIP() << why;                                                     \
  } while (0)

namespace kite::test {

/// The text of dsl-examples/<name> (empty when not found).
inline std::string source(const std::string &name) {
  for (std::string dir : {std::string(KITE_SOURCE_DIR) + "/dsl-examples",
                          std::string("dsl-examples")}) {
    std::ifstream in(dir + "/" + name);
    if (in) {
      std::stringstream ss;
      ss << in.rdbuf();
      return ss.str();
    }
  }
  return "";
}

/// f16 (or bf16, rounded to nearest even) bits of `f`, and back.
inline uint16_t toHalfBits(float f, bool bf16) {
  if (bf16) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
  }
  _Float16 h = _Float16(f);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
inline float fromHalfBits(uint16_t u, bool bf16) {
  if (bf16) {
    uint32_t v = uint32_t(u) << 16;
    float f;
    std::memcpy(&f, &v, 4);
    return f;
  }
  _Float16 h;
  std::memcpy(&h, &u, 2);
  return float(h);
}

} // namespace kite::test

#endif // KITE_UNITTESTS_RUNTIME_GPUTESTHELPERS_H
