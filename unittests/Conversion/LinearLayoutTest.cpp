//===- LinearLayoutTest.cpp - The GF(2) layout representation -------------===//
//
// Every register layout Kite builds and every tensor-core staging is a
// linear map over GF(2): checked by enumerating every input against the
// closed forms (BlockedLayout's digits, SwizzledStaging's aByte/bByte); the
// split of a composed address into a thread part and a register part, and
// the IR that evaluates a layout (applyLinear), against the same.
//
//===----------------------------------------------------------------------===//

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"
#include "kite/Conversion/KiteToGPU/LinearLayout.h"

#include "Scratch.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

using namespace mlir;
using namespace mlir::kite;
using In = LinearLayout::In;

namespace {

/// The layouts of the blocks of a kernel with `threads` threads: linear,
/// the dots' tiles and the copy layout of a K-major B.
std::vector<BlockedLayout> kiteLayouts() {
  std::vector<BlockedLayout> all;
  for (int64_t threads : {32, 128, 256})
    for (int64_t numel : {int64_t(64), int64_t(1024), int64_t(1) << 15})
      for (int64_t width : {1, 4, 8})
        all.push_back(BlockedLayout::get(numel, threads, width));
  for (auto [M, N, threads] : {std::tuple<int64_t, int64_t, int64_t>{64, 64, 128},
                               {128, 256, 256},
                               {32, 32, 128}})
    if (auto t = DotTile::choose(M, N, threads))
      all.push_back(t->layout());
  for (auto [M, N, warps] : {std::tuple<int64_t, int64_t, int64_t>{64, 128, 4},
                             {128, 256, 8},
                             {256, 128, 8},
                             {128, 64, 4}}) {
    if (auto t = WgmmaTile::choose(M, N, warps)) {
      all.push_back(t->layout());
      if (auto a = t->aLayout(64))
        all.push_back(*a);
    }
    if (auto t = MmaTile::choose(M, N, warps))
      all.push_back(t->layout());
  }
  if (auto k = BlockedLayout::getKMajorCopy(32, 128, 128))
    all.push_back(*k);
  if (auto k = BlockedLayout::getKMajorExchange(64, 128, 256))
    all.push_back(*k);
  return all;
}

TEST(LinearLayout, EveryKiteLayoutIsLinear) {
  for (const BlockedLayout &l : kiteLayouts()) {
    std::optional<LinearLayout> ll = LinearLayout::of(l);
    ASSERT_TRUE(ll) << "numel " << l.numel << " threads " << l.numThreads;
    EXPECT_EQ(ll->size(In::Register), l.perThread);
    EXPECT_EQ(ll->size(In::Thread), l.numThreads);
    for (int64_t t = 0; t < l.numThreads; ++t)
      for (int64_t e = 0; e < l.perThread; ++e)
        ASSERT_EQ(ll->apply(e, t), l.threadOffset(t) + l.registerOffset(e))
            << ll->str() << " thread " << t << " register " << e;
    // Each element on one (thread, register), up to copies: the zero
    // bases are exactly the replication.
    EXPECT_TRUE(ll->isInjective()) << ll->str();
    EXPECT_EQ(ll->replicatedThreads() != 0, l.isReplicated()) << ll->str();
  }
}

TEST(LinearLayout, ReplicationIsAZeroBasis) {
  // 16 elements on 128 threads: thread t holds element t mod 16.
  BlockedLayout l = BlockedLayout::get(16, 128, 4);
  std::optional<LinearLayout> ll = LinearLayout::of(l);
  ASSERT_TRUE(ll);
  EXPECT_EQ(ll->replicatedThreads(), 0b1110000);
  EXPECT_EQ(ll->apply(0, 37), 37 % 16);
  EXPECT_TRUE(ll->isInjective()); // zero bases are copies, not collisions
}

TEST(LinearLayout, DigitsThatAreNotBitsAreRejected) {
  BlockedLayout l = BlockedLayout::get(1024, 128, 4);
  l.threadDigits[0].stride = 3; // not a power of two
  EXPECT_FALSE(LinearLayout::of(l));
  // Two bits moving an element alike.
  LinearLayout dup({1, 2}, {2, 4});
  EXPECT_FALSE(dup.isInjective());
  EXPECT_TRUE(LinearLayout({1, 2}, {4, 8}).isInjective());
  // Dependent without being equal: 3 = 1 ^ 2.
  EXPECT_FALSE(LinearLayout({1, 2}, {3}).isInjective());
}

TEST(LinearLayout, ComposeMapsEachBasis) {
  LinearLayout regs({1, 2}, {4, 8});
  // A swizzle of 16 elements: bit 2 also flips bit 0.
  LinearLayout mem = LinearLayout::probe(16, [](int64_t i) {
    return i ^ ((i >> 2) & 1);
  });
  LinearLayout both = regs.compose(mem);
  EXPECT_EQ(both.str(), "register: [1, 2], thread: [5, 8]");
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t e = 0; e < 4; ++e)
      EXPECT_EQ(both.apply(e, t), mem.apply(In::Index, regs.apply(e, t)));
}

/// Every staging Kite builds: shapes, element sizes, B's majorness.
struct StagingCase {
  SwizzledStaging st;
  int operand;
  bool transposed;
};
std::vector<StagingCase> stagings() {
  std::vector<StagingCase> all;
  for (int64_t eb : {1, 2, 4})
    for (int64_t M : {64, 128, 256})
      for (int64_t N : {16, 64, 128, 256})
        for (int64_t K : {16, 32, 64, 128})
          for (bool kMajor : {false, true}) {
            if ((K * eb) % 32 || (N * eb) % 32)
              continue;
            SwizzledStaging st = SwizzledStaging::get(M, N, K, eb, kMajor);
            all.push_back({st, 0, false});
            all.push_back({st, 1, false});
            if (kMajor)
              all.push_back({st, 1, true});
          }
  return all;
}

TEST(LinearLayout, SwizzledStagingIsLinear) {
  for (const StagingCase &c : stagings()) {
    const SwizzledStaging &st = c.st;
    LinearLayout l = st.operandLayout(c.operand, c.transposed);
    int64_t rows = c.operand == 0 ? st.M : c.transposed ? st.N : st.K;
    int64_t cols = c.operand == 0 ? st.K : c.transposed ? st.K : st.N;
    int64_t start = c.operand == 0 ? 0 : st.bOffset();
    std::set<int64_t> seen;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < cols; ++k) {
        int64_t want = c.operand == 0  ? st.aByte(r, k)
                       : c.transposed ? st.bByte(k, r)
                                      : st.bByte(r, k);
        int64_t got = start + l.apply(In::Index, r * cols + k);
        ASSERT_EQ(got, want) << "eb " << st.elemBytes << " M " << st.M
                             << " N " << st.N << " K " << st.K << " operand "
                             << c.operand << " (" << r << ", " << k << ")";
        seen.insert(got);
      }
    EXPECT_EQ(int64_t(seen.size()), rows * cols);
    EXPECT_TRUE(l.isInjective());
  }
}

TEST(LinearLayout, TheWorkedExampleOfTheDocs) {
  // docs/lowering.md: A (128 x 64 f16) of a 128x256x64 wgmma matmul on 8
  // warps, its pointers in the linear layout with 16-byte chunks.
  std::optional<LinearLayout> regs =
      LinearLayout::of(BlockedLayout::get(128 * 64, 256, 8));
  ASSERT_TRUE(regs);
  EXPECT_EQ(regs->str(), "register: [1, 2, 4, 2048, 4096], thread: [8, 16, "
                         "32, 64, 128, 256, 512, 1024]");
  LinearLayout staging = SwizzledStaging::get(128, 256, 64, 2).operandLayout(0);
  EXPECT_EQ(staging.str(), "index: [2, 4, 8, 16, 32, 64, 144, 288, 576, 1024, "
                           "2048, 4096, 8192]");
  LinearLayout addr = regs->compose(staging);
  EXPECT_EQ(addr.str(), "register: [2, 4, 8, 4096, 8192], thread: [16, 32, "
                        "64, 144, 288, 576, 1024, 2048]");
  EXPECT_EQ(addr.span(In::Thread), 0xff0);
}

TEST(LinearLayout, StagingAddressesSplitIntoThreadAndRegisterParts) {
  // What TensorCoreStaging emits: register e of thread t at
  // (T(t) ^ (R(e) & span(T))) + (R(e) & ~span(T)).
  for (auto [M, K, threads] : {std::tuple<int64_t, int64_t, int64_t>{128, 64, 256},
                               {64, 64, 128},
                               {256, 32, 256}}) {
    SwizzledStaging st = SwizzledStaging::get(M, 128, K, 2);
    BlockedLayout l = BlockedLayout::get(M * K, threads, 8);
    LinearLayout addr = LinearLayout::of(l)->compose(st.operandLayout(0));
    int64_t span = addr.span(In::Thread);
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t e = 0; e < l.perThread; ++e) {
        int64_t T = addr.apply(In::Thread, t), R = addr.apply(In::Register, e);
        int64_t lin = l.threadOffset(t) + l.registerOffset(e);
        ASSERT_EQ((T ^ (R & span)) + (R & ~span), st.aByte(lin / K, lin % K));
      }
  }
}

TEST(LinearLayout, MmaLoadsReadTheInstructionFragments) {
  // Each lane's ldmatrix row (or tf32 B element), from the instructions'
  // definitions: warp w = t / 32 at warp row w % warpsM, column w / warpsM.
  for (auto [M, N, warps] : {std::tuple<int64_t, int64_t, int64_t>{64, 64, 4},
                             {64, 32, 4},
                             {128, 128, 8},
                             {128, 256, 8},
                             {256, 128, 8}})
    for (int64_t eb : {2, 4}) {
      std::optional<MmaTile> tile = MmaTile::choose(M, N, warps);
      ASSERT_TRUE(tile);
      const int64_t K = 64, kStep = eb == 4 ? 8 : 16;
      LinearLayout a = tile->aLoads(K, eb), b = tile->bLoads(K, eb);
      for (int64_t t = 0; t < warps * 32; ++t) {
        int64_t l = t % 32, w = t / 32;
        int64_t wRow = w % tile->warpsM * tile->warpRows();
        int64_t wCol = w / tile->warpsM * tile->warpCols();
        for (int64_t ks = 0; ks < K / kStep; ++ks) {
          for (int64_t mr = 0; mr < tile->mRep; ++mr)
            ASSERT_EQ(a.apply(mr + tile->mRep * ks, t),
                      (wRow + mr * 16 + l % 16) * K + ks * kStep +
                          l / 16 * (16 / eb))
                << "A " << M << "x" << N << " thread " << t;
          if (eb == 2) {
            for (int64_t np = 0; np < tile->nRep / 2; ++np)
              ASSERT_EQ(b.apply(np + tile->nRep / 2 * ks, t),
                        (ks * 16 + l % 16) * N + wCol + np * 16 + 8 * (l / 16))
                  << "B " << M << "x" << N << " thread " << t;
            continue;
          }
          for (int64_t nr = 0; nr < tile->nRep; ++nr)
            for (int64_t h = 0; h < 2; ++h)
              ASSERT_EQ(b.apply(h + 2 * (nr + tile->nRep * ks), t),
                        (ks * 8 + l % 4 + 4 * h) * N + wCol + nr * 8 + l / 4)
                  << "tf32 B " << M << "x" << N << " thread " << t;
        }
      }
    }
}

/// Shared-memory wavefronts a warp's access of `bytes` per lane takes at
/// `addr[lane]`: per 4-byte bank, the distinct 4-byte words mapped to it.
int64_t wavefronts(const std::vector<int64_t> &addr, int64_t bytes) {
  std::map<int64_t, std::set<int64_t>> words;
  for (int64_t a : addr)
    for (int64_t w = a / 4; w < (a + bytes) / 4; ++w)
      words[w % 32].insert(w);
  int64_t most = 0;
  for (auto &[bank, ws] : words)
    most = std::max<int64_t>(most, ws.size());
  return most;
}

TEST(LinearLayout, ExchangeBufferIsConflictFree) {
  // The epilogue's conversion of a 128 x 256 wgmma accumulator (8 warps) to
  // the linear layout, through the exchange buffer: a bijection onto the
  // buffer; each warp store of a register pair (8 bytes of f32, 8 rows x 4
  // lanes) takes the minimum 2 wavefronts (8 in plain row-major rows of
  // 1024 bytes), and each 16-byte load of the linear layout 4.
  const int64_t M = 128, N = 256, eb = 4;
  LinearLayout buffer = exchangeLayout({M, N}, eb);
  std::set<int64_t> seen;
  for (int64_t i = 0; i < M * N; ++i) {
    int64_t o = buffer.apply(In::Index, i);
    ASSERT_EQ(o % eb, 0);
    seen.insert(o);
    ASSERT_LT(o, M * N * eb);
  }
  EXPECT_EQ(int64_t(seen.size()), M * N);
  BlockedLayout acc = WgmmaTile::choose(M, N, 8)->layout();
  BlockedLayout lin = BlockedLayout::get(M * N, 256, 4);
  LinearLayout in = LinearLayout::of(acc)->compose(buffer);
  LinearLayout out = LinearLayout::of(lin)->compose(buffer);
  LinearLayout plain = LinearLayout::of(acc)->compose(
      LinearLayout::probe(M * N, [&](int64_t i) { return i * eb; }));
  for (int64_t warp = 0; warp < 8; ++warp) {
    for (int64_t e = 0; e < acc.perThread; e += 2) {
      std::vector<int64_t> swizzled, rowMajor;
      for (int64_t l = 0; l < 32; ++l) {
        swizzled.push_back(in.apply(e, warp * 32 + l));
        rowMajor.push_back(plain.apply(e, warp * 32 + l));
      }
      ASSERT_EQ(wavefronts(swizzled, 8), 2) << "register " << e;
      ASSERT_EQ(wavefronts(rowMajor, 8), 8) << "register " << e;
    }
    for (int64_t e = 0; e < lin.perThread; e += 4) {
      std::vector<int64_t> a;
      for (int64_t l = 0; l < 32; ++l)
        a.push_back(out.apply(e, warp * 32 + l));
      ASSERT_EQ(wavefronts(a, 16), 4) << "register " << e;
    }
  }
}

/// Evaluates the straight-line arith IR in `block` with its argument x.
int64_t evaluate(Block &block, int64_t x) {
  DenseMap<Value, int64_t> v;
  v[block.getArgument(0)] = x;
  Value last;
  for (Operation &op : block) {
    auto in = [&](int i) { return v.lookup(op.getOperand(i)); };
    int64_t r = 0;
    if (auto c = dyn_cast<arith::ConstantIntOp>(op))
      r = c.value();
    else if (isa<arith::ShRUIOp>(op))
      r = uint32_t(in(0)) >> in(1);
    else if (isa<arith::ShLIOp>(op))
      r = uint32_t(in(0) << in(1));
    else if (isa<arith::AndIOp>(op))
      r = in(0) & in(1);
    else if (isa<arith::XOrIOp>(op))
      r = in(0) ^ in(1);
    else if (isa<arith::MulIOp>(op))
      r = uint32_t(in(0) * in(1));
    else
      ADD_FAILURE() << "unexpected op " << op.getName().getStringRef().str();
    v[op.getResult(0)] = r;
    last = op.getResult(0);
  }
  return v.lookup(last);
}

TEST(LinearLayout, ApplyLinearEmitsTheSameMap) {
  MLIRContext ctx;
  ctx.loadDialect<arith::ArithDialect>();
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  SwizzledStaging st = SwizzledStaging::get(128, 256, 64, 2);
  std::vector<std::pair<LinearLayout, In>> cases;
  for (const BlockedLayout &l : kiteLayouts())
    cases.push_back({*LinearLayout::of(l), In::Thread});
  cases.push_back({st.operandLayout(0), In::Index});
  cases.push_back({st.operandLayout(1), In::Index});
  std::optional<BlockedLayout> a = WgmmaTile::choose(128, 256, 8)->aLayout(64);
  ASSERT_TRUE(a);
  cases.push_back(
      {LinearLayout::of(*a)->compose(st.operandLayout(0)), In::Thread});
  for (auto &[layout, dim] : cases) {
    Block block;
    block.addArgument(b.getI32Type(), loc);
    b.setInsertionPointToEnd(&block);
    Value out = mlir::kite::detail::applyLinear(b, loc, layout, dim, block.getArgument(0));
    ASSERT_TRUE(out);
    for (int64_t x = 0; x < layout.size(dim); ++x)
      ASSERT_EQ(evaluate(block, x), layout.apply(dim, x))
          << layout.str() << " at " << x;
    // Bits above the dimension's are ignored.
    EXPECT_EQ(evaluate(block, layout.size(dim)), 0) << layout.str();
  }
}

// The stores of a K x N block in `l` into a K-major staging of elements
// of `elemBytes` (addressRuns): every register in a group of 4 consecutive
// k, at consecutive, group-aligned addresses for every thread, each where
// the staging places its element. Returns the registers' address layout
// and their groups.
struct KMajorStores {
  LinearLayout addr;
  SmallVector<SmallVector<int64_t>> groups;
};
static KMajorStores expectKMajorGroupsOf4(const BlockedLayout &l, int64_t K,
                                          int64_t N, int64_t elemBytes) {
  SwizzledStaging st =
      SwizzledStaging::get(128, N, K, elemBytes, /*bKMajor=*/true);
  LinearLayout addr = LinearLayout::of(l)->compose(st.operandLayout(1));
  auto groups = mlir::kite::detail::addressRuns(
      addr, st.operandOffset(1), l.perThread, elemBytes, 16);
  int64_t stores = 0;
  for (int64_t e = 0; e < l.perThread; ++e) {
    if (groups[e].empty())
      continue;
    ++stores;
    EXPECT_EQ(groups[e].size(), 4u) << "register " << e;
    if (groups[e].size() != 4)
      continue;
    for (int64_t t = 0; t < l.numThreads; ++t) {
      int64_t first = addr.apply(groups[e][0], t);
      EXPECT_EQ(first % (4 * elemBytes), 0);
      for (int64_t i = 0; i < 4; ++i) {
        int64_t lin = l.threadOffset(t) + l.registerOffset(groups[e][i]);
        EXPECT_EQ(addr.apply(groups[e][i], t), first + i * elemBytes);
        EXPECT_EQ(st.bByte(lin / N, lin % N) - st.bOffset(),
                  first + i * elemBytes);
      }
    }
  }
  EXPECT_EQ(stores * 4, l.perThread);
  return {std::move(addr), std::move(groups)};
}

// The stores of a block into a staging group registers by their addresses
// there, not by their order (addressRuns): an fp8 K x N block in the byte
// K-major copy layout (getKMajorExchange) stored K-major for wgmma groups
// each column's 4 consecutive k into one 4-byte store, every group's bytes
// consecutive and aligned for every thread; the layout covers the block
// once, its reads of the block staging (rows of N bytes) are 4-byte runs,
// and a warp's reads take at most 2 wavefronts, its stores at most 4.
TEST(LinearLayout, ByteKMajorStoresGroupByAddress) {
  auto wavefronts = [](const std::vector<int64_t> &bytes) {
    std::map<int64_t, std::set<int64_t>> words; // bank -> 4-byte words
    for (int64_t o : bytes)
      words[o / 4 % 32].insert(o / 4);
    size_t most = 0;
    for (auto &[bank, w] : words)
      most = std::max(most, w.size());
    return int64_t(most);
  };
  for (auto [K, N, warps] :
       {std::tuple<int64_t, int64_t, int64_t>{64, 128, 8}, {32, 128, 4},
        {32, 64, 4}, {64, 256, 8}, {128, 128, 4}}) {
    SCOPED_TRACE(std::to_string(K) + "x" + std::to_string(N) + " on " +
                 std::to_string(warps) + " warps");
    std::optional<BlockedLayout> l =
        BlockedLayout::getKMajorExchange(K, N, 32 * warps);
    ASSERT_TRUE(l);
    std::set<int64_t> covered;
    for (int64_t t = 0; t < l->numThreads; ++t)
      for (int64_t e = 0; e < l->perThread; ++e)
        EXPECT_TRUE(covered.insert(l->threadOffset(t) + l->registerOffset(e))
                        .second);
    EXPECT_EQ(int64_t(covered.size()), K * N);
    std::optional<LinearLayout> ll = LinearLayout::of(*l);
    ASSERT_TRUE(ll);
    auto [addr, groups] = expectKMajorGroupsOf4(*l, K, N, /*elemBytes=*/1);
    // Reads: 4-byte runs of a row; wavefronts of a warp's access.
    SmallVector<int64_t> runs =
        mlir::kite::detail::registerRuns(*l, N, 16);
    LinearLayout staged =
        ll->compose(blockStagingLayout({K, N}, /*elemBytes=*/1));
    for (int64_t e = 0; e < l->perThread; ++e) {
      if (runs[e]) {
        EXPECT_EQ(runs[e], 4) << "register " << e;
        std::vector<int64_t> bytes;
        for (int64_t lane = 0; lane < 32; ++lane)
          bytes.push_back(staged.apply(e, lane));
        EXPECT_LE(wavefronts(bytes), 2) << "read of register " << e;
      }
      if (!groups[e].empty()) {
        std::vector<int64_t> bytes;
        for (int64_t lane = 0; lane < 32; ++lane)
          bytes.push_back(addr.apply(e, lane));
        EXPECT_LE(wavefronts(bytes), 4) << "store of register " << e;
      }
    }
  }
  EXPECT_FALSE(BlockedLayout::getKMajorExchange(64, 48, 128));
  EXPECT_FALSE(BlockedLayout::getKMajorExchange(8, 128, 128));
}

// The ring of staged loads lays a 2-d block whose rows are a multiple of
// 32 bytes exactly where wgmma reads a K-major A of its shape from (so a
// product reads an A copied as loaded where it landed): every element at
// its own bytes, the block's bytes all used, each 16-byte chunk of a row
// whole, and a column of chunks over 8 consecutive rows spread over the 8
// chunk positions of 128 bytes (no bank conflict), for 1-, 2- and 4-byte
// elements and rows of 32 to 256 bytes.
TEST(LinearLayout, BlockStagingIsWgmmaKMajorA) {
  for (auto [rows, cols, eb] :
       {std::tuple<int64_t, int64_t, int64_t>{128, 32, 1}, {128, 64, 1},
        {64, 128, 1}, {128, 32, 2}, {64, 64, 2}, {128, 128, 2},
        {128, 32, 4}, {64, 64, 4}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " of " +
                 std::to_string(eb) + "-byte elements");
    LinearLayout staged = blockStagingLayout({rows, cols}, eb);
    SwizzledStaging wgmma = SwizzledStaging::get(rows, 64, cols, eb);
    std::set<int64_t> bytes;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        int64_t o = staged.apply(LinearLayout::In::Index, r * cols + c);
        EXPECT_EQ(o, wgmma.aByte(r, c)) << "element (" << r << ", " << c << ")";
        EXPECT_TRUE(bytes.insert(o).second);
        EXPECT_LT(o, rows * cols * eb);
        EXPECT_EQ(o % eb, 0);
        // The element's chunk is its row's chunk of the same 16 bytes.
        int64_t first = staged.apply(LinearLayout::In::Index,
                                     r * cols + c / (16 / eb) * (16 / eb));
        EXPECT_EQ(o - first, c % (16 / eb) * eb);
      }
    for (int64_t r0 = 0; r0 < rows; r0 += 8)
      for (int64_t c = 0; c < cols; c += 16 / eb) {
        std::set<int64_t> positions;
        for (int64_t r = r0; r < r0 + 8; ++r)
          positions.insert(
              staged.apply(LinearLayout::In::Index, r * cols + c) % 128 / 16);
        EXPECT_EQ(positions.size(), 8u) << "rows " << r0 << "+, column " << c;
      }
  }
}

// The same exchange layout for f32 (tf32's B along N, or its A along M read
// through a transposition): each column's 4 consecutive k go into one
// 16-byte store of the K-major staging, aligned for every thread, and each
// row's 4 consecutive columns come from one 16-byte read of the block
// staging.
TEST(LinearLayout, Tf32KMajorExchangeStoresAndReadsVectors) {
  for (auto [K, N, warps] :
       {std::tuple<int64_t, int64_t, int64_t>{32, 128, 4}, {32, 128, 8},
        {32, 64, 4}, {64, 128, 8}}) {
    SCOPED_TRACE(std::to_string(K) + "x" + std::to_string(N) + " on " +
                 std::to_string(warps) + " warps");
    std::optional<BlockedLayout> l =
        BlockedLayout::getKMajorExchange(K, N, 32 * warps);
    ASSERT_TRUE(l);
    expectKMajorGroupsOf4(*l, K, N, /*elemBytes=*/4);
    SmallVector<int64_t> runs = mlir::kite::detail::registerRuns(*l, N, 4);
    int64_t reads = 0;
    for (int64_t e = 0; e < l->perThread; ++e)
      if (runs[e]) {
        ++reads;
        EXPECT_EQ(runs[e], 4) << "register " << e;
      }
    EXPECT_EQ(reads * 4, l->perThread);
  }
}

} // namespace
