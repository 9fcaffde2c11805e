//===- LayoutTest.cpp - Properties of the lowering's block layouts --------===//
//
// Every layout the GPU lowering can give a block must place each element on
// exactly one (thread, register) pair (or, replicated, on thread t mod
// numel): checked by enumerating all pairs. The dot tiles must also give
// each thread `rows` x `cols` elements in the promised arrangement.
//
//===----------------------------------------------------------------------===//

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <vector>

using namespace mlir::kite;

namespace {

/// Every element is held by exactly one (thread, register).
void expectBijective(const BlockedLayout &l) {
  ASSERT_FALSE(l.isReplicated());
  ASSERT_EQ(l.perThread * l.numThreads, l.numel);
  std::vector<int> seen(l.numel, 0);
  for (int64_t t = 0; t < l.numThreads; ++t)
    for (int64_t e = 0; e < l.perThread; ++e) {
      int64_t lin = l.threadOffset(t) + l.registerOffset(e);
      ASSERT_GE(lin, 0);
      ASSERT_LT(lin, l.numel);
      ++seen[lin];
    }
  for (int64_t i = 0; i < l.numel; ++i)
    EXPECT_EQ(seen[i], 1) << "element " << i;
  // Runs of `chunk` registers are consecutive elements.
  for (int64_t e = 0; e < l.perThread; ++e)
    EXPECT_EQ(l.registerOffset(e) - l.registerOffset(e - e % l.chunk),
              e % l.chunk);
}

TEST(Layout, LinearLayoutsAreBijective) {
  for (int64_t threads : {32, 64, 128, 256})
    for (int64_t numel : {int64_t(32), int64_t(256), int64_t(1024),
                          int64_t(4096), int64_t(1) << 16})
      for (int64_t width : {1, 4, 8}) {
        if (numel < threads)
          continue;
        BlockedLayout l = BlockedLayout::get(numel, threads, width);
        expectBijective(l);
        // Thread t starts at t * chunk.
        for (int64_t t = 0; t < threads; ++t)
          EXPECT_EQ(l.threadOffset(t), t * l.chunk);
      }
}

TEST(Layout, ReplicatedLayoutWraps) {
  BlockedLayout l = BlockedLayout::get(16, 128, 4);
  EXPECT_TRUE(l.isReplicated());
  EXPECT_EQ(l.perThread, 1);
  EXPECT_EQ(l.threadOffset(37), 37 % 16);
}

TEST(Layout, SlicesHoldWhatTheSourceRowsHold) {
  // A slice along `axis` of a 2-D layout: each thread holds, once each,
  // exactly the result indices of the elements it holds in the source; the
  // copies of one result are the threads that differ only along the axis.
  auto check = [](const BlockedLayout &src, int64_t M, int64_t N,
                  int64_t axis) {
    std::optional<BlockedLayout> s = src.slice({M, N}, axis);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->numel, axis == 1 ? M : N);
    EXPECT_EQ(s->numThreads, src.numThreads);
    for (int64_t t = 0; t < src.numThreads; ++t) {
      std::set<int64_t> want, have;
      for (int64_t e = 0; e < src.perThread; ++e) {
        int64_t lin = src.threadOffset(t) + src.registerOffset(e);
        want.insert(axis == 1 ? lin / N : lin % N);
      }
      for (int64_t e = 0; e < s->perThread; ++e)
        EXPECT_TRUE(have.insert(s->threadOffset(t) + s->registerOffset(e))
                        .second)
            << "thread " << t << " holds a result twice";
      EXPECT_EQ(want, have) << "thread " << t;
    }
  };
  for (int64_t warps : {4, 8}) {
    for (auto [M, N] : {std::pair<int64_t, int64_t>{64, 64}, {128, 64},
                        {128, 128}, {64, 256}})
      if (auto tile = WgmmaTile::choose(M, N, warps))
        for (int64_t axis : {0, 1})
          check(tile->layout(), M, N, axis);
    if (auto tile = MmaTile::choose(128, 64, warps))
      check(tile->layout(), 128, 64, 1);
    if (auto tile = DotTile::choose(64, 64, 32 * warps))
      check(tile->layout(), 64, 64, 1);
  }
  check(BlockedLayout::get(4 * 1024, 128, 4), 4, 1024, 1);
  // The wgmma accumulator's rows: 2 registers a thread (rows l/4 and
  // l/4 + 8), the 4 lanes of a row holding copies.
  BlockedLayout rows = WgmmaTile::choose(128, 64, 8)->layout().slice(
      {128, 64}, 1).value();
  EXPECT_EQ(rows.perThread, 2);
  EXPECT_TRUE(rows.isReplicated());
  EXPECT_EQ(rows.threadOffset(1), rows.threadOffset(0));
  EXPECT_EQ(rows.threadOffset(4), rows.threadOffset(0) + 1);
}

TEST(Layout, UntransposedLayoutsHoldTheTransposedElements) {
  // untranspose: register e of thread t holds, in the source's layout, the
  // element at the coordinates that the transposed block's layout gives it
  // (permuted back): a kite.trans between the two moves no data.
  auto check = [](const BlockedLayout &res, std::vector<int64_t> srcShape,
                  std::vector<int32_t> order) {
    std::optional<BlockedLayout> src = res.untranspose(srcShape, order);
    ASSERT_TRUE(src);
    int64_t rank = srcShape.size();
    std::vector<int64_t> resShape(rank);
    for (int64_t i = 0; i < rank; ++i)
      resShape[i] = srcShape[order[i]];
    for (int64_t t = 0; t < res.numThreads; ++t)
      for (int64_t e = 0; e < res.perThread; ++e) {
        int64_t lin = res.threadOffset(t) + res.registerOffset(e);
        std::vector<int64_t> c(rank), sc(rank);
        for (int64_t i = rank - 1; i >= 0; --i) {
          c[i] = lin % resShape[i];
          lin /= resShape[i];
        }
        for (int64_t i = 0; i < rank; ++i)
          sc[order[i]] = c[i];
        int64_t want = 0;
        for (int64_t i = 0; i < rank; ++i)
          want = want * srcShape[i] + sc[i];
        EXPECT_EQ(src->threadOffset(t) + src->registerOffset(e), want)
            << "thread " << t << " register " << e;
      }
    // A 2-D transposition is its own inverse: back to where it started.
    if (rank == 2) {
      EXPECT_TRUE(src->untranspose(resShape, order)->placesLike(res));
    }
  };
  // The [N, K / 32] scales of a microscaled B read as [K / 32, N] in B's
  // linear layout sliced (16 consecutive columns a thread, replicated
  // along the 32 rows of a scale).
  BlockedLayout b = BlockedLayout::get(64 * 128, 256, 16);
  std::optional<BlockedLayout> scales = b.slice({2, 32, 128}, 1);
  ASSERT_TRUE(scales);
  check(*scales, {128, 2}, {1, 0});
  check(BlockedLayout::get(64 * 32, 128, 4), {32, 64}, {1, 0});
  check(WgmmaTile::choose(128, 64, 8)->layout(), {64, 128}, {1, 0});
  check(BlockedLayout::get(8 * 16 * 4, 128, 4), {16, 4, 8}, {2, 0, 1});
  // Not a power of two: none.
  EXPECT_FALSE(BlockedLayout::get(48, 32, 1).untranspose({6, 8}, {1, 0}));
}

TEST(Layout, DotTilesAreBijectiveWarpTiles) {
  int checked = 0;
  for (int64_t threads : {64, 128, 256, 512})
    for (int64_t M : {16, 32, 64, 128, 256})
      for (int64_t N : {16, 32, 64, 128, 256}) {
        auto tile = DotTile::choose(M, N, threads);
        if (!tile)
          continue;
        ++checked;
        BlockedLayout l = tile->layout();
        SCOPED_TRACE(testing::Message() << M << "x" << N << " on " << threads);
        expectBijective(l);
        EXPECT_EQ(tile->rows * tile->cols, M * N / threads);
        EXPECT_EQ(tile->lanesM * tile->lanesN, 32);
        for (int64_t t = 0; t < threads; ++t) {
          int64_t base = l.threadOffset(t);
          int64_t m0 = base / N, n0 = base % N;
          // Register (i, j, c) is row m0 + (i / rowGroup) * lanesM *
          // rowGroup + i % rowGroup, column n0 + j*lanesN*group + c (what
          // the dot lowering computes).
          int64_t rg = tile->rowGroup;
          EXPECT_EQ(tile->rows % rg, 0);
          EXPECT_EQ(m0 % rg, 0);
          for (int64_t i = 0; i < tile->rows; ++i)
            for (int64_t j = 0; j < tile->cols / tile->group; ++j)
              for (int64_t c = 0; c < tile->group; ++c) {
                int64_t e = (i * (tile->cols / tile->group) + j) * tile->group + c;
                int64_t lin = base + l.registerOffset(e);
                EXPECT_EQ(lin / N, m0 + i / rg * tile->lanesM * rg + i % rg);
                EXPECT_EQ(lin % N, n0 + j * tile->lanesN * tile->group + c);
              }
          // The warp's lanes cover one warp tile: rows * lanesM consecutive
          // rows by cols * lanesN consecutive columns.
          int64_t warp0 = l.threadOffset(t - t % 32);
          int64_t dm = m0 - warp0 / N, dn = n0 - warp0 % N;
          EXPECT_GE(dm, 0);
          EXPECT_LT(dm, tile->lanesM * rg);
          EXPECT_GE(dn, 0);
          EXPECT_LT(dn, tile->lanesN * tile->group);
          // Shared-load pairing: lanes l and l^1 read the same rows of A,
          // lanes l and l^2 the same columns of B.
          if (tile->lanesM >= 2 && tile->lanesN >= 2) {
            int64_t pa = l.threadOffset(t ^ 1), pb = l.threadOffset(t ^ 2);
            EXPECT_EQ(pa / N, m0);
            EXPECT_NE(pa % N, n0);
            EXPECT_EQ(pb % N, n0);
            EXPECT_NE(pb / N, m0);
          }
        }
      }
  EXPECT_GT(checked, 40);
}

TEST(Layout, DotTilePreferences) {
  // The tutorial's default: 64x64 on 4 warps -> 8x4 per thread, 4x8 lanes.
  auto t = DotTile::choose(64, 64, 128);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rows, 8);
  EXPECT_EQ(t->cols, 4);
  EXPECT_EQ(t->lanesM, 4);
  EXPECT_EQ(t->lanesN, 8);
  EXPECT_EQ(t->rowGroup, 1); // A staged row-major
  // 128x128 on 8 warps -> 8x8 in two column groups of 4.
  t = DotTile::choose(128, 128, 256);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rows, 8);
  EXPECT_EQ(t->cols, 8);
  EXPECT_EQ(t->group, 4);
  EXPECT_EQ(t->rowGroup, 4); // A staged k-major
  // An explicit request wins when it fits, and is ignored when not.
  t = DotTile::choose(64, 64, 128, 4, 8);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rows, 4);
  EXPECT_EQ(t->cols, 8);
  t = DotTile::choose(64, 64, 128, 64, 64);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rows * t->cols, 32);
  // Too small for the threads (replicated), or no even split.
  EXPECT_FALSE(DotTile::choose(8, 8, 128));
  EXPECT_FALSE(DotTile::choose(3, 64, 128));
}

TEST(Layout, DotStagingPlacesEveryElementOfA) {
  for (bool kMajor : {false, true})
    for (int64_t M : {4, 8, 12, 16, 32, 48, 64, 128})
      for (int64_t K : {4, 8, 32, 64}) {
        SCOPED_TRACE(testing::Message()
                     << (kMajor ? "k-major" : "row-major") << " M " << M
                     << " K " << K);
        DotStaging d{M, 16, K, kMajor};
        // Every element of A once, inside A's area (before B).
        std::set<int64_t> seen;
        for (int64_t m = 0; m < M; ++m)
          for (int64_t k = 0; k < K; ++k) {
            int64_t i = d.aIndex(m, k);
            ASSERT_GE(i, 0);
            ASSERT_LT(i * 4, d.bOffset());
            seen.insert(i);
            // The 16-byte reads: 4 k-values of a row (row-major), 4 rows of
            // one 4-row group at one k (k-major), consecutive.
            if (!kMajor && k % 4) {
              EXPECT_EQ(i, d.aIndex(m, k - 1) + 1);
            }
            if (kMajor && m % 4) {
              EXPECT_EQ(i, d.aIndex(m - 1, k) + 1);
            }
          }
        EXPECT_EQ(int64_t(seen.size()), M * K);
        EXPECT_EQ(d.bytes() % 128, 0);
        EXPECT_GE(d.bytes(), d.bOffset() + K * 16 * 4);
        // k-major: a warp's 4-byte stores of 4 rows x 8 steps (k = 4x + c,
        // K = 32) or of 8 rows x 4 steps (K = 16) hit each of 16 banks
        // twice (without the swizzle: 4 banks, 8 times).
        auto spread = [&](int64_t rows, int64_t steps) {
          for (int64_t c = 0; c < 4; ++c) {
            std::map<int64_t, int> banks;
            for (int64_t x = 0; x < steps; ++x)
              for (int64_t y = 0; y < rows; ++y)
                ++banks[d.aIndex(y, 4 * x + c) % 32];
            EXPECT_EQ(banks.size(), 16u);
            for (auto [bank, n] : banks)
              EXPECT_EQ(n, 2);
          }
        };
        if (kMajor && M % 32 == 0 && K >= 32)
          spread(4, 8);
        if (kMajor && M % 32 == 0 && K >= 16)
          spread(8, 4);
      }
}

TEST(Layout, PlacesLikeComparesPlacement) {
  // A 1 x 512 dot tile on 4 warps places elements like the linear layout.
  auto t = DotTile::choose(1, 512, 128);
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->layout().placesLike(BlockedLayout::get(512, 128, 4)));
  auto u = DotTile::choose(64, 64, 128);
  EXPECT_FALSE(u->layout().placesLike(BlockedLayout::get(4096, 128, 4)));
}

} // namespace

// The wgmma accumulator layout: every element on one (thread, register),
// and each instruction's registers where PTX's m64nNk16 fragment puts them
// (thread t of warp w in its warpgroup: rows 16w + t/4 (+8), columns
// 8j + 2(t%4) (+1)), in the instruction's register order.
TEST(Layout, WgmmaTilesMatchTheInstructionFragment) {
  for (int64_t warps : {4, 8})
    for (int64_t M : {64, 128, 256})
      for (int64_t N : {16, 64, 128, 256}) {
        auto tile = WgmmaTile::choose(M, N, warps);
        if (!tile)
          continue;
        BlockedLayout l = tile->layout();
        SCOPED_TRACE(std::to_string(M) + "x" + std::to_string(N) + " on " +
                     std::to_string(warps) + " warps");
        expectBijective(l);
        EXPECT_EQ(l.perThread, M * N / (32 * warps));
        for (int64_t t = 0; t < 32 * warps; ++t) {
          int64_t lane = t % 32, warp = (t / 32) % 4, wg = t / 128;
          int64_t row0 = (wg % tile->wgM) * tile->wgRows() + 16 * warp + lane / 4;
          int64_t col0 = (wg / tile->wgM) * tile->wgCols() + 2 * (lane % 4);
          for (int64_t e = 0; e < l.perThread; ++e) {
            int64_t inst = e / tile->instRegisters(), r = e % tile->instRegisters();
            int64_t mr = inst / tile->nRep, nr = inst % tile->nRep;
            int64_t row = row0 + 64 * mr + 8 * ((r / 2) % 2);
            int64_t col = col0 + nr * tile->nInst + 8 * (r / 4) + r % 2;
            ASSERT_EQ(l.threadOffset(t) + l.registerOffset(e), row * N + col)
                << "thread " << t << " register " << e;
          }
        }
      }
  // Shapes wgmma cannot take.
  EXPECT_FALSE(WgmmaTile::choose(32, 128, 4));  // M < 64
  EXPECT_FALSE(WgmmaTile::choose(128, 24, 4));  // N % 16
  EXPECT_FALSE(WgmmaTile::choose(128, 128, 2)); // not a warpgroup
  EXPECT_FALSE(WgmmaTile::choose(128, 256, 4)); // 256 accumulators a thread
}

// The swizzled staging: a bijection of each operand onto its bytes, 16-byte
// chunks kept whole, and A and B apart.
TEST(Layout, SwizzledStagingIsABijection) {
  for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{128, 128, 64},
                         {128, 256, 64}, {64, 32, 16}, {256, 128, 32}}) {
    SwizzledStaging s = SwizzledStaging::get(M, N, K);
    std::set<int64_t> seen;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k) {
        int64_t o = s.aByte(m, k);
        EXPECT_TRUE(seen.insert(o).second);
        EXPECT_LT(o, s.bOffset());
        if (k % 8) {
          EXPECT_EQ(o, s.aByte(m, k - 1) + 2);
        }
      }
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n) {
        int64_t o = s.bByte(k, n);
        EXPECT_TRUE(seen.insert(o).second);
        EXPECT_GE(o, s.bOffset());
        EXPECT_LT(o, s.bytes());
        if (n % 8) {
          EXPECT_EQ(o, s.bByte(k, n - 1) + 2);
        }
      }
  }
}

// The mma.sync accumulator: lane l of warp w holds, for each m16n8
// instruction (mr, nr) of its warp tile, rows l/4 and l/4 + 8 and columns
// 2(l%4) + {0, 1}, in the instruction's register order.
TEST(Layout, MmaTilesMatchTheInstructionFragment) {
  for (int64_t warps : {1, 2, 4, 8})
    for (int64_t M : {16, 32, 64, 128, 256})
      for (int64_t N : {16, 32, 64, 128, 256}) {
        auto tile = MmaTile::choose(M, N, warps);
        if (!tile)
          continue;
        BlockedLayout l = tile->layout();
        SCOPED_TRACE(std::to_string(M) + "x" + std::to_string(N) + " on " +
                     std::to_string(warps) + " warps");
        expectBijective(l);
        EXPECT_EQ(tile->warpsM * tile->warpsN, warps);
        EXPECT_EQ(tile->warpRows() % 16, 0);
        EXPECT_EQ(tile->warpCols() % 16, 0);
        EXPECT_EQ(l.perThread, M * N / (32 * warps));
        for (int64_t t = 0; t < 32 * warps; ++t) {
          int64_t lane = t % 32, warp = t / 32;
          int64_t row0 = (warp % tile->warpsM) * tile->warpRows() + lane / 4;
          int64_t col0 = (warp / tile->warpsM) * tile->warpCols() + 2 * (lane % 4);
          for (int64_t e = 0; e < l.perThread; ++e) {
            int64_t inst = e / 4, r = e % 4;
            int64_t mr = inst / tile->nRep, nr = inst % tile->nRep;
            int64_t row = row0 + 16 * mr + 8 * (r / 2);
            int64_t col = col0 + 8 * nr + r % 2;
            ASSERT_EQ(l.threadOffset(t) + l.registerOffset(e), row * N + col)
                << "thread " << t << " register " << e;
          }
        }
      }
  // Square-ish warp tiles: 128x128 on 4 warps is 2x2 tiles of 64x64.
  auto t = MmaTile::choose(128, 128, 4);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->warpsM, 2);
  EXPECT_EQ(t->warpsN, 2);
  // Shapes mma.sync cannot take.
  EXPECT_FALSE(MmaTile::choose(8, 128, 4));   // M < 16
  EXPECT_FALSE(MmaTile::choose(128, 24, 4));  // N % 16
  EXPECT_FALSE(MmaTile::choose(16, 16, 4));   // warp tiles under 16x16
  EXPECT_FALSE(MmaTile::choose(256, 256, 4)); // 512 accumulators a thread
}

// What MmaToGPU relies on: 4-byte (tf32) stagings are bijections too; rows
// 16 apart differ by 16 rows of bytes (the swizzle depends on a row's place
// in its 16-row block only); and the 8 rows an ldmatrix phase reads (8
// consecutive rows of A, or of B's k, at one 16-byte chunk) hit 8 distinct
// 16-byte bank groups: no bank conflicts.
TEST(Layout, SwizzledStagingServesLdmatrix) {
  for (int64_t eb : {2, 4})
    for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{128, 128, 32},
                           {64, 64, 16}, {128, 256, 64}, {64, 32, 8}}) {
      if (K * eb % 32 || N * eb % 32)
        continue;
      SwizzledStaging s = SwizzledStaging::get(M, N, K, eb);
      SCOPED_TRACE(std::to_string(M) + "x" + std::to_string(N) + "x" +
                   std::to_string(K) + " of " + std::to_string(eb) + " bytes");
      std::set<int64_t> seen;
      int64_t chunk = 16 / eb;
      for (int64_t m = 0; m < M; ++m)
        for (int64_t k = 0; k < K; ++k) {
          EXPECT_TRUE(seen.insert(s.aByte(m, k)).second);
          if (k % chunk) {
            EXPECT_EQ(s.aByte(m, k), s.aByte(m, k - 1) + eb);
          }
          if (m >= 16) {
            EXPECT_EQ(s.aByte(m, k), s.aByte(m - 16, k) + 16 * s.aSwizzle);
          }
        }
      for (int64_t k = 0; k < K; ++k)
        for (int64_t n = 0; n < N; ++n) {
          EXPECT_TRUE(seen.insert(s.bByte(k, n)).second);
          EXPECT_LT(s.bByte(k, n), s.bytes());
          if (n % chunk) {
            EXPECT_EQ(s.bByte(k, n), s.bByte(k, n - 1) + eb);
          }
          if (k >= 16) {
            EXPECT_EQ(s.bByte(k, n), s.bByte(k - 16, n) + 16 * s.bSwizzle);
          }
        }
      auto distinctBanks = [](const std::vector<int64_t> &bytes) {
        std::set<int64_t> groups;
        for (int64_t b : bytes)
          groups.insert(b / 16 % 8);
        return groups.size() == bytes.size();
      };
      for (int64_t m0 = 0; m0 + 8 <= M; m0 += 8)
        for (int64_t k = 0; k < K; k += chunk) {
          std::vector<int64_t> rows;
          for (int64_t i = 0; i < 8; ++i)
            rows.push_back(s.aByte(m0 + i, k));
          EXPECT_TRUE(distinctBanks(rows)) << "A rows " << m0 << " k " << k;
        }
      for (int64_t k0 = 0; k0 + 8 <= K; k0 += 8)
        for (int64_t n = 0; n < N; n += chunk) {
          std::vector<int64_t> rows;
          for (int64_t i = 0; i < 8; ++i)
            rows.push_back(s.bByte(k0 + i, n));
          EXPECT_TRUE(distinctBanks(rows)) << "B rows " << k0 << " n " << n;
        }
    }
}

// wgmma cannot transpose tf32: its B is staged K-major (bKMajor), each
// column n of B a row of K elements, in panels like A's. Every element has
// its own place inside the slot, consecutive k of a column are adjacent
// within a 16-byte chunk, and the copy layout (getKMajorCopy) covers the
// block once with warps whose 4-byte writes of one register hit 32
// distinct banks.
TEST(Layout, KMajorStagingAndItsCopyLayout) {
  for (auto [M, N, K, warps] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t>{128, 128, 32, 8},
        {64, 64, 32, 4}, {128, 256, 64, 8}, {64, 128, 16, 4},
        {256, 128, 32, 8}}) {
    SCOPED_TRACE(std::to_string(M) + "x" + std::to_string(N) + "x" +
                 std::to_string(K) + " on " + std::to_string(warps) +
                 " warps");
    SwizzledStaging s = SwizzledStaging::get(M, N, K, 4, /*bKMajor=*/true);
    EXPECT_EQ(s.bSwizzle, std::min<int64_t>(128, K * 4));
    std::set<int64_t> seen;
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n) {
        int64_t o = s.bByte(k, n);
        EXPECT_TRUE(seen.insert(o).second);
        EXPECT_GE(o, s.bOffset());
        EXPECT_LT(o, s.bytes());
        if (k % 4) {
          EXPECT_EQ(o, s.bByte(k - 1, n) + 4);
        }
      }
    std::optional<BlockedLayout> l =
        BlockedLayout::getKMajorCopy(K, N, 32 * warps);
    ASSERT_TRUE(l.has_value());
    EXPECT_EQ(l->perThread * l->numThreads, K * N);
    std::set<int64_t> covered;
    for (int64_t t = 0; t < l->numThreads; ++t)
      for (int64_t e = 0; e < l->perThread; ++e)
        EXPECT_TRUE(covered.insert(l->threadOffset(t) + l->registerOffset(e))
                        .second);
    EXPECT_EQ(int64_t(covered.size()), K * N);
    EXPECT_EQ(*covered.rbegin(), K * N - 1);
    for (int64_t w = 0; w < warps; ++w)
      for (int64_t e = 0; e < l->perThread; ++e) {
        std::set<int64_t> banks;
        for (int64_t lane = 0; lane < 32; ++lane) {
          int64_t lin = l->threadOffset(32 * w + lane) + l->registerOffset(e);
          banks.insert(s.bByte(lin / N, lin % N) / 4 % 32);
        }
        EXPECT_EQ(banks.size(), 32u) << "warp " << w << " register " << e;
      }
  }
  // No split: N not a multiple of 8, or fewer elements than threads.
  EXPECT_FALSE(BlockedLayout::getKMajorCopy(32, 12, 128).has_value());
  EXPECT_FALSE(BlockedLayout::getKMajorCopy(4, 8, 128).has_value());
}
