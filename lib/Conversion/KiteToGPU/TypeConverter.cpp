//===- TypeConverter.cpp - Kite blocks to per-thread vectors --------------===//
//
// The blocked layout and the type converter of the kite -> gpu lowering:
// tensor<... x T> -> vector<E x T> (E elements per thread), blocks of
// pointers -> vector<E x i64> addresses, !kite.ptr -> !llvm.ptr<1>.
//
//===----------------------------------------------------------------------===//

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"

#include "Utils.h"

#include "kite/Dialect/Kite/IR/KiteDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace mlir::kite;

BlockedLayout BlockedLayout::get(int64_t numel, int64_t numThreads,
                                 int64_t vectorWidth) {
  BlockedLayout layout;
  layout.numel = numel;
  layout.numThreads = numThreads;
  int64_t perThread = numel / numThreads;
  layout.chunk = std::clamp<int64_t>(perThread, 1, vectorWidth);
  layout.perThread = std::max<int64_t>(perThread, 1);
  if (numel < numThreads) {
    // Thread t holds element t mod numel.
    layout.threadDigits = {{numel, 1}, {numThreads / numel, 0}};
  } else {
    layout.threadDigits = {{numThreads, layout.chunk}};
    layout.registerDigits = {{layout.chunk, 1},
                             {layout.perThread / layout.chunk,
                              numThreads * layout.chunk}};
  }
  return layout;
}

bool BlockedLayout::isReplicated() const {
  return llvm::any_of(threadDigits, [](const LayoutDigit &d) {
    return d.size > 1 && d.stride == 0;
  });
}

/// Digits of size 2, one per bit move (0: replication), with runs of
/// doubling moves merged into one digit.
static SmallVector<LayoutDigit, 4> digitsOfMoves(ArrayRef<int64_t> moves) {
  SmallVector<LayoutDigit, 4> digits;
  for (int64_t m : moves) {
    if (!digits.empty()) {
      LayoutDigit &last = digits.back();
      if (m == 0 ? last.stride == 0 : last.stride * last.size == m) {
        last.size *= 2;
        continue;
      }
    }
    digits.push_back({2, m});
  }
  return digits;
}

/// The layout of `numel` elements whose register and thread index bits
/// move the element as `regMoves` and `threadMoves` say (0: a copy).
static BlockedLayout layoutOfMoves(int64_t numel, int64_t numThreads,
                                   ArrayRef<int64_t> regMoves,
                                   ArrayRef<int64_t> threadMoves) {
  BlockedLayout out;
  out.numel = numel;
  out.numThreads = numThreads;
  out.perThread = int64_t(1) << regMoves.size();
  out.registerDigits = digitsOfMoves(regMoves);
  out.threadDigits = digitsOfMoves(threadMoves);
  out.chunk = !out.registerDigits.empty() && out.registerDigits[0].stride == 1
                  ? out.registerDigits[0].size
                  : 1;
  return out;
}

std::optional<BlockedLayout> BlockedLayout::slice(ArrayRef<int64_t> shape,
                                                  int64_t axis) const {
  std::optional<LinearLayout> bits = LinearLayout::of(*this);
  if (!bits)
    return std::nullopt;
  // The axis's field of the row-major index's bits.
  int64_t lo = 0;
  for (int64_t d = int64_t(shape.size()) - 1; d > axis; --d)
    lo += llvm::Log2_64(shape[d]);
  int64_t width = llvm::Log2_64(shape[axis]);
  int64_t axisMask = ((int64_t(1) << width) - 1) << lo;
  auto drop = [&](int64_t move) {
    return ((move >> (lo + width)) << lo) | (move & ((int64_t(1) << lo) - 1));
  };
  SmallVector<int64_t, 8> regMoves, threadMoves;
  for (int64_t m : bits->bases(LinearLayout::In::Register))
    if (!(m & axisMask))
      regMoves.push_back(drop(m));
  for (int64_t m : bits->bases(LinearLayout::In::Thread))
    threadMoves.push_back(m & axisMask ? 0 : drop(m));
  return layoutOfMoves(numel >> width, numThreads, regMoves, threadMoves);
}

std::optional<BlockedLayout>
BlockedLayout::untranspose(ArrayRef<int64_t> shape,
                           ArrayRef<int32_t> order) const {
  int64_t rank = shape.size();
  if (int64_t(order.size()) != rank ||
      llvm::any_of(shape, [](int64_t d) { return !llvm::isPowerOf2_64(d); }))
    return std::nullopt;
  std::optional<LinearLayout> bits = LinearLayout::of(*this);
  if (!bits)
    return std::nullopt;
  // The lowest bit of each dimension in the row-major index of `shape`.
  SmallVector<int64_t> srcLow(rank, 0);
  for (int64_t d = rank - 2; d >= 0; --d)
    srcLow[d] = srcLow[d + 1] + llvm::Log2_64(shape[d + 1]);
  // Bit j of the transposed block's index -> its bit in `shape`'s.
  SmallVector<int64_t> bitOf;
  for (int64_t i = rank - 1; i >= 0; --i)
    for (int64_t p = 0; p < int64_t(llvm::Log2_64(shape[order[i]])); ++p)
      bitOf.push_back(srcLow[order[i]] + p);
  auto map = [&](int64_t move) {
    int64_t out = 0;
    for (int64_t j = 0; j < int64_t(bitOf.size()); ++j)
      if (move >> j & 1)
        out |= int64_t(1) << bitOf[j];
    return out;
  };
  SmallVector<int64_t, 8> regMoves, threadMoves;
  for (int64_t m : bits->bases(LinearLayout::In::Register))
    regMoves.push_back(map(m));
  for (int64_t m : bits->bases(LinearLayout::In::Thread))
    threadMoves.push_back(map(m));
  return layoutOfMoves(numel, numThreads, regMoves, threadMoves);
}

std::optional<BlockedLayout>
BlockedLayout::getKMajorCopy(int64_t K, int64_t N, int64_t numThreads) {
  int64_t warps = numThreads / 32;
  if (numThreads % 32 || N % 8 || K % 4 || K * N < numThreads)
    return std::nullopt;
  // Warps along N as far as N allows, the rest along K.
  int64_t wn = 1;
  while (wn * 2 <= warps && warps % (wn * 2) == 0 && N % (16 * wn) == 0)
    wn *= 2;
  int64_t wk = warps / wn;
  if (warps % wn || K % (4 * wk))
    return std::nullopt;
  int64_t rn = N / (8 * wn), rk = K / (4 * wk);
  BlockedLayout layout;
  layout.numel = K * N;
  layout.numThreads = numThreads;
  layout.chunk = 1;
  layout.perThread = rn * rk;
  layout.threadDigits = {{8, 1}, {4, N}, {wn, 8}, {wk, 4 * N}};
  layout.registerDigits = {{rn, 8 * wn}, {rk, 4 * N * wk}};
  return layout;
}

std::optional<BlockedLayout>
BlockedLayout::getKMajorExchange(int64_t K, int64_t N, int64_t numThreads) {
  int64_t warps = numThreads / 32;
  if (numThreads % 32 || N % 32 || K % 16 || !llvm::isPowerOf2_64(warps))
    return std::nullopt;
  int64_t wn = std::min(warps, N / 32), wk = warps / wn;
  if (!llvm::isPowerOf2_64(wn) || (K / 16) % wk)
    return std::nullopt;
  int64_t rn = N / (32 * wn), rk = K / (16 * wk);
  BlockedLayout layout;
  layout.numel = K * N;
  layout.numThreads = numThreads;
  layout.chunk = 1;
  layout.perThread = 16 * rn * rk;
  layout.threadDigits = {{4, 4 * N}, {8, 4}, {wn, 32}, {wk, 16 * N}};
  layout.registerDigits = {{4, 1}, {4, N}, {rn, 32 * wn}, {rk, 16 * N * wk}};
  return layout;
}

/// The value of mixed-radix number `index` in `digits`.
static int64_t digitsOffset(ArrayRef<LayoutDigit> digits, int64_t index) {
  int64_t offset = 0;
  for (const LayoutDigit &d : digits) {
    offset += (index % d.size) * d.stride;
    index /= d.size;
  }
  return offset;
}

int64_t BlockedLayout::registerOffset(int64_t e) const {
  return digitsOffset(registerDigits, e);
}

int64_t BlockedLayout::threadOffset(int64_t t) const {
  return digitsOffset(threadDigits, t);
}

bool BlockedLayout::placesLike(const BlockedLayout &other) const {
  if (numel != other.numel || numThreads != other.numThreads ||
      perThread != other.perThread)
    return false;
  for (int64_t e = 0; e < perThread; ++e)
    if (registerOffset(e) != other.registerOffset(e))
      return false;
  for (int64_t t = 0; t < numThreads; ++t)
    if (threadOffset(t) != other.threadOffset(t))
      return false;
  return true;
}

std::optional<DotTile> DotTile::choose(int64_t M, int64_t N,
                                       int64_t numThreads, int64_t rows,
                                       int64_t cols) {
  if (M * N < numThreads || numThreads % 32)
    return std::nullopt;
  int64_t perThread = M * N / numThreads;
  int64_t warps = numThreads / 32;
  // Columns per thread: 8 (two groups of 4) for large tiles, else 4, else
  // fewer; rows take the rest. Lanes: 4 x 8 first, then the others.
  SmallVector<std::pair<int64_t, int64_t>> shapes;
  if (rows && cols)
    shapes.push_back({rows, cols});
  for (int64_t c : {8, 4, 2, 1})
    if (perThread % c == 0 && (c < 8 || perThread >= 64))
      shapes.push_back({perThread / c, c});
  for (auto [r, c] : shapes) {
    if (r * c != perThread)
      continue;
    for (auto [lm, ln] : {std::pair<int64_t, int64_t>{4, 8}, {8, 4}, {2, 16},
                          {16, 2}, {1, 32}, {32, 1}}) {
      DotTile t;
      t.M = M;
      t.N = N;
      t.rows = r;
      t.cols = c;
      t.group = std::min<int64_t>(c, 4);
      t.rowGroup = c >= 8 && r % 4 == 0 ? 4 : 1;
      t.lanesM = lm;
      t.lanesN = ln;
      if (M % (r * lm) || N % (c * ln))
        continue;
      t.warpsM = M / (r * lm);
      t.warpsN = N / (c * ln);
      if (t.warpsM * t.warpsN == warps)
        return t;
    }
  }
  return std::nullopt;
}

BlockedLayout DotTile::layout() const {
  BlockedLayout l;
  l.numel = M * N;
  l.numThreads = lanesM * lanesN * warpsM * warpsN;
  l.perThread = rows * cols;
  l.chunk = group;
  // Register (i, r, j, c): row r of row group i, column c of column group
  // j.
  l.registerDigits = {{group, 1}, {cols / group, lanesN * group}};
  if (rowGroup > 1)
    l.registerDigits.push_back({rowGroup, N});
  l.registerDigits.push_back({rows / rowGroup, lanesM * rowGroup * N});
  // Thread: lane (m, n), warp (m, n). Lane bit 0 is n's lowest bit and the
  // next bits are m (see DotTile).
  if (lanesM >= 2 && lanesN >= 2)
    l.threadDigits = {
        {2, group}, {lanesM, rowGroup * N}, {lanesN / 2, 2 * group}};
  else
    l.threadDigits = {{lanesN, group}, {lanesM, rowGroup * N}};
  l.threadDigits.append({{warpsN, lanesN * cols}, {warpsM, lanesM * rows * N}});
  return l;
}

std::optional<WgmmaTile> WgmmaTile::choose(int64_t M, int64_t N,
                                           int64_t numWarps,
                                           int64_t maxRegisters) {
  if (numWarps % 4 || M % 64 || N % 16)
    return std::nullopt;
  int64_t groups = numWarps / 4;
  int64_t panel = SwizzledStaging::get(M, N, 16).bSwizzle / 2;
  // Warpgroups along M first (each keeps whole rows of B), then along N.
  for (int64_t wgM = std::min(groups, M / 64); wgM >= 1; wgM /= 2) {
    if (groups % wgM || (M / 64) % wgM)
      continue;
    WgmmaTile t;
    t.M = M;
    t.N = N;
    t.wgM = wgM;
    t.wgN = groups / wgM;
    if (N % t.wgN || t.wgCols() % panel)
      continue;
    t.mRep = t.wgRows() / 64;
    // The widest instruction (<= 256 columns, whole panels) that tiles the
    // warpgroup's columns.
    int64_t cols = t.wgCols();
    t.nInst = 0;
    for (int64_t n = std::min<int64_t>(256, cols); n >= panel; n -= panel)
      if (cols % n == 0 && n % panel == 0) {
        t.nInst = n;
        break;
      }
    if (!t.nInst)
      continue;
    t.nRep = cols / t.nInst;
    if (t.mRep * t.nRep * t.instRegisters() > maxRegisters)
      return std::nullopt;
    return t;
  }
  return std::nullopt;
}

BlockedLayout WgmmaTile::layout() const {
  BlockedLayout l;
  l.numel = M * N;
  l.numThreads = 128 * wgM * wgN;
  l.perThread = mRep * nRep * instRegisters();
  l.chunk = 2;
  // Register (j, i, n8, nr, mr): column pair j, row +8 i, 8-column group
  // n8 of instruction (mr, nr).
  l.registerDigits = {{2, 1},
                      {2, 8 * N},
                      {nInst / 8, 8},
                      {nRep, nInst},
                      {mRep, 64 * N}};
  // Thread: lane % 4 (column pairs), lane / 4 (rows), warp of the
  // warpgroup (16 rows each), then the warpgroup (wgM first).
  l.threadDigits = {{4, 2},
                    {8, N},
                    {4, 16 * N},
                    {wgM, wgRows() * N},
                    {wgN, wgCols()}};
  return l;
}

std::optional<BlockedLayout> WgmmaTile::aLayout(int64_t K,
                                                int64_t elemBytes) const {
  const int64_t c = 4 / elemBytes; // elements a 32-bit register
  if (wgN != 1 || K * elemBytes % 32)
    return std::nullopt;
  if (c == 2) {
    WgmmaTile a = *this;
    a.N = K;
    a.nInst = K;
    a.nRep = 1;
    return a.layout();
  }
  // As the accumulator's layout with the column pair widened to c
  // elements: register (j, i, g, mr): element j of the register, row +8
  // i, group g of 4c columns, instruction row mr.
  BlockedLayout l;
  l.numel = M * K;
  l.numThreads = 128 * wgM;
  l.perThread = mRep * K / 2;
  l.chunk = c;
  l.registerDigits = {{c, 1}, {2, 8 * K}, {K / (4 * c), 4 * c}, {mRep, 64 * K}};
  l.threadDigits = {{4, c}, {8, K}, {4, 16 * K}, {wgM, wgRows() * K}};
  return l;
}

std::optional<MmaTile> MmaTile::choose(int64_t M, int64_t N,
                                       int64_t numWarps,
                                       int64_t maxRegisters) {
  if (M % 16 || N % 16 || M * N % (32 * numWarps))
    return std::nullopt;
  if (M * N / (32 * numWarps) > maxRegisters)
    return std::nullopt;
  std::optional<MmaTile> best;
  for (int64_t wm = 1; wm <= numWarps; wm *= 2) {
    int64_t wn = numWarps / wm;
    if (numWarps % wm || M % (16 * wm) || N % (16 * wn))
      continue;
    MmaTile t;
    t.M = M;
    t.N = N;
    t.warpsM = wm;
    t.warpsN = wn;
    t.mRep = t.warpRows() / 16;
    t.nRep = t.warpCols() / 8;
    if (!best || t.warpRows() + t.warpCols() <
                     best->warpRows() + best->warpCols())
      best = t;
  }
  return best;
}

BlockedLayout MmaTile::layout() const {
  BlockedLayout l;
  l.numel = M * N;
  l.numThreads = 32 * warpsM * warpsN;
  l.perThread = mRep * nRep * 4;
  l.chunk = 2;
  // Register (j, i, nr, mr): column pair j, row +8 i, instruction (mr, nr).
  l.registerDigits = {{2, 1}, {2, 8 * N}, {nRep, 8}, {mRep, 16 * N}};
  // Thread: lane % 4 (column pairs), lane / 4 (rows), then the warp
  // (warpsM first).
  l.threadDigits = {
      {4, 2}, {8, N}, {warpsM, warpRows() * N}, {warpsN, warpCols()}};
  return l;
}

KiteTypeConverter::KiteTypeConverter(MLIRContext *context, int64_t numThreads,
                                     int64_t vectorWidth)
    : numThreads(numThreads), vectorWidth(vectorWidth) {
  addConversions(context);
}

KiteTypeConverter::KiteTypeConverter(MLIRContext *context, int64_t numThreads,
                                     Operation *kernel, int64_t vectorWidth)
    : numThreads(numThreads),
      vectorWidth(vectorWidth > 0 ? vectorWidth : kernelVectorWidth(kernel)) {
  int64_t rows = 0, cols = 0;
  if (auto tile = kernel->getAttrOfType<DenseI64ArrayAttr>(
          KiteDialect::getDotTileAttrName())) {
    rows = tile[0];
    cols = tile[1];
  }
  auto add = [&](RankedTensorType type) {
    int64_t M = type.getDimSize(0), N = type.getDimSize(1);
    if (getDotTile(M, N) || getWgmmaTile(M, N) || getMmaTile(M, N))
      return;
    if (auto tile = DotTile::choose(M, N, numThreads, rows, cols))
      dotTiles.push_back(*tile);
  };
  // Dots on the tensor cores first: their result shapes take the wgmma or
  // mma.sync accumulator layout (an FMA dot of the same shape then takes
  // the generic path); staged dots, then dots from registers.
  auto chooseTensorCoreTile = [&](RankedTensorType type, DotEngine engine) {
    int64_t M = type.getDimSize(0), N = type.getDimSize(1);
    if (engine == DotEngine::FMA || getWgmmaTile(M, N) || getMmaTile(M, N))
      return;
    if (engine == DotEngine::WGMMA) {
      if (auto tile = WgmmaTile::choose(M, N, numThreads / 32))
        wgmmaTiles.push_back(*tile);
    } else if (auto tile = MmaTile::choose(M, N, numThreads / 32)) {
      mmaTiles.push_back(*tile);
    }
  };
  kernel->walk([&](DotStagedOp dot) {
    chooseTensorCoreTile(dot.getType(), dot.getEngine());
  });
  kernel->walk([&](DotOp dot) {
    chooseTensorCoreTile(dot.getType(), dot.getEngine());
  });
  kernel->walk([&](Operation *op) {
    if (auto dot = dyn_cast<DotOp>(op))
      add(dot.getType());
    else if (auto dot = dyn_cast<DotStagedOp>(op))
      add(dot.getType());
  });
  assignLayouts(kernel);
  addConversions(context);
}

void KiteTypeConverter::addConversions(MLIRContext *context) {
  addConversion([](Type type) { return type; });
  addConversion([context](PointerType) -> Type {
    return LLVM::LLVMPointerType::get(context, /*addressSpace=*/1);
  });
  // A tensor map parameter: the generic address of the kernel's 128-byte
  // .param (a __grid_constant__ CUtensorMap).
  addConversion([context](TensorDescType) -> Type {
    return LLVM::LLVMPointerType::get(context);
  });
  // fp8 values are their bits: LLVM has no fp8 type.
  addConversion([context](Float8E4M3FNType) -> Type {
    return IntegerType::get(context, 8);
  });
  addConversion([context](Float8E5M2Type) -> Type {
    return IntegerType::get(context, 8);
  });
  // A block's registers: i64 addresses for pointers, fp8 as its bits.
  auto registers = [context](RankedTensorType type, int64_t count) -> Type {
    Type element = type.getElementType();
    if (isa<PointerType>(element))
      element = IntegerType::get(context, 64);
    if (mlir::kite::isFp8(element))
      element = IntegerType::get(context, 8);
    return VectorType::get({count}, element);
  };
  addConversion([this, registers](RankedTensorType type) -> Type {
    return registers(type, getLayout(type).perThread);
  });
  // A block value: its own layout's register count (context-aware: tried
  // before the conversion of its type, which gives the linear layout's).
  addConversion([this, registers](Value value) -> std::optional<Type> {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return std::nullopt;
    return registers(type, getLayout(value).perThread);
  });
  auto materialize = [](OpBuilder &builder, Type type, ValueRange inputs,
                        Location loc) -> Value {
    return UnrealizedConversionCastOp::create(builder, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}

std::optional<DotTile> KiteTypeConverter::getDotTile(int64_t M,
                                                     int64_t N) const {
  for (const DotTile &t : dotTiles)
    if (t.M == M && t.N == N)
      return t;
  return std::nullopt;
}

std::optional<WgmmaTile> KiteTypeConverter::getWgmmaTile(int64_t M,
                                                         int64_t N) const {
  for (const WgmmaTile &t : wgmmaTiles)
    if (t.M == M && t.N == N)
      return t;
  return std::nullopt;
}

std::optional<MmaTile> KiteTypeConverter::getMmaTile(int64_t M,
                                                     int64_t N) const {
  for (const MmaTile &t : mmaTiles)
    if (t.M == M && t.N == N)
      return t;
  return std::nullopt;
}

BlockedLayout KiteTypeConverter::getLayout(RankedTensorType type) const {
  return BlockedLayout::get(type.getNumElements(), numThreads, vectorWidth);
}

Value mlir::kite::detail::ownerPredicate(
    OpBuilder &b, Location loc, const std::optional<BlockedLayout> &layout) {
  Value tid = threadId(b, loc);
  int64_t replicated = 0;
  if (!layout) {
    replicated = -1; // a scalar: thread 0
  } else if (auto bits = LinearLayout::of(*layout)) {
    replicated = bits->replicatedThreads();
  } else if (layout->isReplicated()) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                                 i32Const(b, loc, layout->numel));
  }
  if (!replicated)
    return {};
  Value bitsOfTid =
      arith::AndIOp::create(b, loc, tid, i32Const(b, loc, replicated));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bitsOfTid,
                               i32Const(b, loc, 0));
}

Value mlir::kite::detail::toPointer(OpBuilder &b, Location loc, Value addr) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), addr);
}
