//===- AtomicGPUTest.cpp - Atomics on a GPU --------------------------------===//
//
// Triton's atomics on a real GPU against the host and the interpreter: a
// histogram (atomic_add on i32 from many programs), float sums, float
// max/min over negative and positive values (the integer trick), scalar
// atomics done once per program (not once per thread), and a spin lock
// with atomic_cas/atomic_xchg (layer-norm backward's pattern). Skipped,
// with the reason, without a GPU.
//
//===----------------------------------------------------------------------===//

#include "kite/Runtime/Runtime.h"

#include "GPUTestHelpers.h"
#include "TestHelpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(GPU, AtomicsAgreeWithTheHost) {
  REQUIRE_GPU();
  const char *src = R"(@kernel
def k(x: *i32, f: *f32, bins: *i32, sums: *f32, extremes: *f32, calls: *i32,
      n: i32, BLOCK: constexpr = 256):
    offs = program_id(0) * BLOCK + arange(0, BLOCK)
    m = offs < n
    v = load(x + offs, mask=m, other=0)
    atomic_add(bins + v, 1, mask=m)
    y = load(f + offs, mask=m, other=0.0)
    atomic_add(sums + v, y, mask=m)
    atomic_max(extremes + v, y, mask=m)
    atomic_min(extremes + 16 + v, y, mask=m)
    atomic_add(calls, 1)
)";
  auto k = compileKite(src, {}, "atomics.kite");
  ASSERT_TRUE(k.ok()) << k.error().str();
  int n = 100003;
  std::vector<int32_t> x(n);
  auto f = randomVector(n, 5);
  for (int i = 0; i < n; ++i)
    x[i] = int32_t((uint32_t(i) * 2654435761u) >> 28); // 0..15
  std::vector<float> extremes(32);
  std::fill(extremes.begin(), extremes.begin() + 16, -INFINITY);
  std::fill(extremes.begin() + 16, extremes.end(), INFINITY);
  auto dx = DeviceBuffer<int32_t>::fromHost(x).value();
  auto df = DeviceBuffer<float>::fromHost(f).value();
  auto dbins = DeviceBuffer<int32_t>::fromHost(std::vector<int32_t>(16)).value();
  auto dsums = DeviceBuffer<float>::fromHost(std::vector<float>(16)).value();
  auto dext = DeviceBuffer<float>::fromHost(extremes).value();
  auto dcalls = DeviceBuffer<int32_t>::fromHost(std::vector<int32_t>(1)).value();
  uint32_t grid = cdiv(n, 256);
  ASSERT_TRUE(k->launch(grid, {dx, df, dbins, dsums, dext, dcalls, n}).ok());
  std::vector<int32_t> bins(16);
  std::vector<double> sums(16);
  std::vector<float> want = extremes;
  for (int i = 0; i < n; ++i) {
    bins[x[i]]++;
    sums[x[i]] += f[i];
    want[x[i]] = std::max(want[x[i]], f[i]);
    want[16 + x[i]] = std::min(want[16 + x[i]], f[i]);
  }
  EXPECT_EQ(dbins.toHost().value(), bins);
  auto gotSums = dsums.toHost().value();
  for (int b = 0; b < 16; ++b)
    EXPECT_NEAR(gotSums[b], sums[b], 1e-3) << "bin " << b;
  EXPECT_EQ(dext.toHost().value(), want);
  // A scalar atomic: once per program.
  EXPECT_EQ(dcalls.toHost().value()[0], int32_t(grid));
}

TEST(GPU, SpinLockWithCasAndXchg) {
  REQUIRE_GPU();
  // Every program adds its block's sum to one total under a lock, with
  // plain loads and stores inside it (layer-norm backward's pattern).
  const char *src = R"(@kernel
def k(x: *f32, total: *f32, lock: *i32, n: i32, BLOCK: constexpr = 128):
    offs = program_id(0) * BLOCK + arange(0, BLOCK)
    s = sum(load(x + offs, mask=offs < n, other=0.0), axis=0)
    while atomic_cas(lock, 0, 1) == 1:
        pass
    store(total, load(total) + s)
    atomic_xchg(lock, 0)
)";
  auto k = compileKite(src, {}, "lock.kite");
  ASSERT_TRUE(k.ok()) << k.error().str();
  int n = 20000;
  auto x = randomVector(n, 8);
  auto dx = DeviceBuffer<float>::fromHost(x).value();
  auto dt = DeviceBuffer<float>::fromHost(std::vector<float>(1)).value();
  auto dl = DeviceBuffer<int32_t>::fromHost(std::vector<int32_t>(1)).value();
  ASSERT_TRUE(k->launch(cdiv(n, 128), {dx, dt, dl, n}).ok());
  double want = 0;
  for (float v : x)
    want += v;
  EXPECT_NEAR(dt.toHost().value()[0], want, 1e-2);
  EXPECT_EQ(dl.toHost().value()[0], 0);
}

// inline_asm_elementwise on the GPU: a rotate (shf.l.wrap) with a scalar
// argument, two results from one call, and pack=4 / pack=2 calls, against
// the host.
TEST(GPU, InlineAsmElementwise) {
  REQUIRE_GPU();
  const char *src = R"(@kernel
def k(x: *i32, y: *i32, z: *f32, n: i32):
    i = program_id(0) * 256 + arange(0, 256)
    m = i < n
    v = load(x + i, mask=m)
    r = inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $1, $2;", "=r,r,r",
                               [v, 8], dtype=i32, is_pure=True, pack=1)
    store(y + i, r, mask=m)
    lo, hi = inline_asm_elementwise(
        "{ mov.b32 $0, $2;"
        " add.f32 $1, $3, $3; }", "=r,=f,r,f",
        [v, v.to(f32)], dtype=(i32, f32), is_pure=True)
    store(z + i, hi + lo.to(f32), mask=m)
)";
  auto k = compileKite(src, {}, "asm.kite").value();
  int n = 1000;
  std::vector<int32_t> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = int32_t(uint32_t(i) * 2654435761u);
  auto dx = DeviceBuffer<int32_t>::fromHost(x).value();
  auto dy = DeviceBuffer<int32_t>::allocate(n).value();
  auto dz = DeviceBuffer<float>::allocate(n).value();
  ASSERT_TRUE(k.launch(cdiv(n, 256), {dx, dy, dz, int32_t(n)}).ok());
  auto y = dy.toHost().value();
  auto z = dz.toHost().value();
  for (int i = 0; i < n; ++i) {
    uint32_t u = uint32_t(x[i]);
    ASSERT_EQ(uint32_t(y[i]), (u << 8) | (u >> 24)) << i;
    ASSERT_EQ(z[i], 2.0f * float(x[i]) + float(x[i])) << i;
  }

  // pack=N: Triton's example (four bytes in one register, widened to four
  // words) and f16 pairs (add.f16x2), each call N elements.
  const char *packed = R"(@kernel(num_warps=4)
def p(b: *i8, w: *i32, h: *f16, n: i32):
    i = program_id(0) * 1024 + arange(0, 1024)
    m = i < n
    x = load(b + i, mask=m, other=0)
    y = inline_asm_elementwise("""
    {
        .reg .b8 a<4>;
        mov.b32 {a0, a1, a2, a3}, $4;
        cvt.u32.u8 $0, a0;
        cvt.u32.u8 $1, a1;
        cvt.u32.u8 $2, a2;
        cvt.u32.u8 $3, a3;
    }
    """, "=r,=r,=r,=r,r", [x], dtype=i32, is_pure=True, pack=4)
    store(w + i, y, mask=m)
    v = load(h + i, mask=m, other=0.0)
    store(h + i, inline_asm_elementwise("add.f16x2 $0, $1, $2;", "=r,r,r",
                                        [v, v], dtype=f16, is_pure=True,
                                        pack=2), mask=m)
)";
  auto pk = compileKite(packed, {}, "packed.kite").value();
  int m = 3000;
  std::vector<int8_t> bytes(m);
  std::vector<uint16_t> halves(m);
  for (int i = 0; i < m; ++i) {
    bytes[i] = int8_t(uint8_t(i * 37 + 11));
    halves[i] = toHalfBits(float(i % 200) - 100.0f, false);
  }
  auto db = DeviceBuffer<int8_t>::fromHost(bytes).value();
  auto dw = DeviceBuffer<int32_t>::allocate(m).value();
  auto dh = DeviceBuffer<uint16_t>::fromHost(halves).value();
  ASSERT_TRUE(pk.launch(cdiv(m, 1024), {db, dw, dh, int32_t(m)}).ok());
  auto w = dw.toHost().value();
  auto h = dh.toHost().value();
  for (int i = 0; i < m; ++i) {
    ASSERT_EQ(w[i], int32_t(uint8_t(bytes[i]))) << i;
    ASSERT_EQ(fromHalfBits(h[i], false), 2.0f * (float(i % 200) - 100.0f)) << i;
  }
}
