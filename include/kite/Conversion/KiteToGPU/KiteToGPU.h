//===- KiteToGPU.h - Lowering Kite kernels to GPU/LLVM ------------*- C++ -*-===//
//
// The pieces of the kite -> gpu/llvm lowering: how a block is distributed
// over the threads of a program (BlockedLayout), the type converter that maps
// blocks to per-thread vectors, and the pattern families, one file each.
//
// Representation after the conversion, inside a `gpu.func`:
//   - a block tensor<d0 x ... x T> becomes vector<E x T'> holding the E
//     elements this thread owns (T' = T, or i64 addresses for pointers);
//   - a scalar !kite.ptr<T> becomes !llvm.ptr<1> (global address space);
//   - other scalars are unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_CONVERSION_KITETOGPU_KITETOGPU_H
#define KITE_CONVERSION_KITETOGPU_KITETOGPU_H

#include "kite/Analysis/AxisInfo.h"
#include "kite/Conversion/KiteToGPU/LinearLayout.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/EquivalenceClasses.h"

#include <optional>
#include <string>
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::kite {

class AsyncStageOp;
class BroadcastOp;
class DotStagedOp;
class StageOperandOp;
class DotOp;
class TransOp;
class ConvertLayoutOp;
class TmaStoreOp;

/// One factor of a layout: an index (thread or register) is a mixed-radix
/// number whose digit i (radix `size`) moves the element `stride` places
/// along the row-major linear index of the block.
struct LayoutDigit {
  int64_t size = 1;
  int64_t stride = 0;
};

/// How a block is spread over the threads of a program. Register e of
/// thread t holds the element at linear (row-major) index
///   threadBase(t) + registerOffset(e),
/// each a sum over the digits of t and of e (LayoutDigit). Two layouts:
///   - linear (BlockedLayout::get, Triton's blocked layout restricted to the
///     linear index): thread t owns chunks of `chunk` consecutive elements,
///     the chunks of consecutive threads adjacent, repeating every
///     numThreads * chunk elements. Blocks smaller than the thread count are
///     replicated (thread t holds element t mod numel: a thread digit of
///     stride 0 above the first numel threads).
///   - the dots' accumulators (DotTile, WgmmaTile, MmaTile);
///   - slices (slice()): a reduction's result in its source's layout with
///     the axis removed (thread digits along it become stride 0: copies).
/// A block value's layout is its class's (KiteTypeConverter::getLayout), and
/// so is its register count: the type conversion is per value.
struct BlockedLayout {
  int64_t numel = 1;
  int64_t numThreads = 1;
  int64_t chunk = 1;     ///< consecutive elements per run of registers
  int64_t perThread = 1; ///< elements held by each thread
  SmallVector<LayoutDigit, 4> threadDigits;   ///< lowest digit first
  SmallVector<LayoutDigit, 4> registerDigits; ///< lowest digit first

  static BlockedLayout get(int64_t numel, int64_t numThreads,
                           int64_t vectorWidth);
  /// The layout in which a K x N operand block is copied one element at a
  /// time into a K-major staging (SwizzledStaging::bKMajor): the lanes of a
  /// warp hold 8 consecutive columns of 4 consecutive rows, so that a warp's
  /// 4-byte shared-memory writes, landing in 8 rows of the swizzle atom at 4
  /// consecutive k, hit 32 different banks, and its global reads are four
  /// whole 32-byte sectors; the warps then go along N, then K, and the
  /// registers likewise. None when N % 8 or K % 4 leaves no such split.
  static std::optional<BlockedLayout> getKMajorCopy(int64_t K, int64_t N,
                                                    int64_t numThreads);
  /// The layout in which a K x N block of fp8 or f32 (tf32) read back from
  /// the block staging is stored into a K-major staging (wgmma reads both
  /// K-major only): each thread holds 4 x 4 elements, 4 consecutive
  /// columns (one read of each row: 4 bytes of fp8, 16 of f32) of 4
  /// consecutive rows (one store of each column, the elements exchanged
  /// in registers); a warp's lanes go 4 along K, then 8 along N (for fp8
  /// 2 wavefronts a read, 4 a store, where other splits of the lanes take
  /// more), the warps along N, then K, and the registers likewise. None
  /// when N % 32 or K % 16 leaves no such split.
  static std::optional<BlockedLayout> getKMajorExchange(int64_t K, int64_t N,
                                                        int64_t numThreads);
  /// Whether several threads hold the same element (a thread digit of
  /// stride 0).
  bool isReplicated() const;
  /// The layout of the reduction of a block of `shape` in this layout
  /// along `axis` (Triton's slice layout): each thread holds the results
  /// of the elements it holds, so a reduction needs no exchange beyond the
  /// lanes and warps along the axis, and broadcasting the result back
  /// (x[:, None]) moves nothing. Register bits along the axis are dropped,
  /// thread bits along it replicate. None when the layout does not factor
  /// into bits (LinearLayout::of).
  std::optional<BlockedLayout> slice(ArrayRef<int64_t> shape,
                                     int64_t axis) const;
  /// The layout of a block of `shape` that places each element where this
  /// layout places the element of `trans(block, order)` it becomes (this
  /// layout is the transposed block's: result dimension i is dimension
  /// order[i] of `shape`). A kite.trans between the two moves nothing.
  /// None when a dimension is not a power of two or the layout does not
  /// factor into bits (LinearLayout::of).
  std::optional<BlockedLayout> untranspose(ArrayRef<int64_t> shape,
                                           ArrayRef<int32_t> order) const;
  /// Linear index of register `e` relative to the thread's base.
  int64_t registerOffset(int64_t e) const;
  /// threadBase(t) as a number (the IR form is in Utils.h).
  int64_t threadOffset(int64_t t) const;
  /// Whether every register of every thread holds the same element in
  /// both layouts (then converting between them moves no data).
  bool placesLike(const BlockedLayout &other) const;
};

/// The register-tiled dot's arrangement of an M x N result over the
/// threads: each thread owns `rows` rows in groups of `rowGroup`
/// consecutive ones (lanesM * rowGroup apart) by `cols` columns in groups
/// of `group` consecutive ones (lanesN * group apart); the lanes of a warp
/// form a lanesM x lanesN grid and the warps a warpsM x warpsN grid of warp
/// tiles (rows * lanesM) x (cols * lanesN). A warp's 16-byte loads of one
/// k-row of B then cover lanesN * 16 consecutive bytes: no bank conflicts.
/// A is read per the staging (DotStaging): with rowGroup 1 (tiles of fewer
/// than 8 columns) row-major, 4 k-values of a row per 16-byte load; with
/// rowGroup 4 (8 columns or more) k-major, 4 rows of one k per load, which
/// keeps the large tiles' operands in fewer registers. Lane bit 0 selects
/// columns and the next bits rows, so that lanes l and l^1 read the same A
/// and lanes l and l^2 the same B: a warp's 16-byte shared loads of either
/// pair up and return in 2 wavefronts instead of 4 (the register file takes
/// 128 bytes a cycle; pairs of lanes with equal addresses share it).
struct DotTile {
  int64_t M = 0, N = 0;
  int64_t rows = 0, cols = 0, group = 0, rowGroup = 1;
  int64_t lanesM = 0, lanesN = 0, warpsM = 0, warpsN = 0;

  /// The tile for an M x N result with `numThreads` threads, preferring
  /// `rows` x `cols` per thread when given (0: the default choice); none
  /// when the shape does not split evenly (small or odd blocks).
  static std::optional<DotTile> choose(int64_t M, int64_t N,
                                       int64_t numThreads, int64_t rows = 0,
                                       int64_t cols = 0);
  BlockedLayout layout() const;
};

/// The accumulator of a warpgroup MMA (wgmma.mma_async.m64nNk16) dot over an
/// M x N result: the warps form warpgroups of 4, arranged wgM x wgN over
/// the block; each warpgroup computes (M / wgM) x (N / wgN) as mRep
/// instructions along M (64 rows each) by nRep along N (nInst columns
/// each). Within an instruction, lane l of warp w (of its warpgroup) holds
/// rows 16w + l/4 and 16w + l/4 + 8, columns 8j + 2(l%4) + {0, 1} for each
/// j < nInst / 8, registers in the order the instruction's accumulator
/// lists them (column pair, then the row 8 below, then the next 8 columns).
/// All of it is a BlockedLayout (digits over the row-major index).
struct WgmmaTile {
  int64_t M = 0, N = 0;
  int64_t wgM = 1, wgN = 1;
  int64_t mRep = 1, nInst = 8, nRep = 1;

  /// Rows and columns of one warpgroup's part.
  int64_t wgRows() const { return M / wgM; }
  int64_t wgCols() const { return N / wgN; }
  /// Accumulator registers per thread of one instruction.
  int64_t instRegisters() const { return nInst / 2; }

  /// The tile for an M x N result on `numWarps` warps; none when the shape
  /// does not split into m64nN instructions (M % 64, N % 16, warps % 4) or
  /// the accumulator would take more than `maxRegisters` per thread. Each
  /// warpgroup's columns and each instruction's start on a panel of B's
  /// staging (SwizzledStaging).
  static std::optional<WgmmaTile> choose(int64_t M, int64_t N,
                                         int64_t numWarps,
                                         int64_t maxRegisters = 128);
  BlockedLayout layout() const;
  /// The layout in which wgmma reads an M x K A operand of this tile from
  /// registers (wgmma.mma_async with A in registers), for elements of
  /// `elemBytes` (2: f16/bf16, 4: tf32, 1: fp8), each 32-bit register
  /// holding c = 4 / elemBytes of them: per warpgroup and 64-row
  /// instruction, lane l of warp w holds rows 16w + l/4 and 16w + l/4 + 8
  /// at columns 4cj + c(l%4) + {0 .. c-1}. For f16 that is the accumulator
  /// layout of an M x K result, so the f16 cast of one product's
  /// accumulator (attention's p) is the next one's A as it stands. Each k
  /// step's (32 bytes of K) A is the 4c registers from 4c(k / step) of an
  /// instruction's K/2 (packed into a0..a3). None when warpgroups split N
  /// (each would need every row of A) or K is not whole k steps.
  std::optional<BlockedLayout> aLayout(int64_t K, int64_t elemBytes = 2) const;
};

/// Where a tensor-core dot's operands lie in a staging slot (`elemBytes`
/// each: 2 for f16/bf16, 4 for f32 read as tf32), in the layouts wgmma
/// reads through its shared-memory descriptors and mma.sync's ldmatrix
/// reads without bank conflicts:
///   - A (M x K) K-major: panels of `aSwizzle / elemBytes` columns of K,
///     each M rows of aSwizzle bytes;
///   - B (K x N) N-major ("transposed" for wgmma): panels of
///     `bSwizzle / elemBytes` columns of N, each K rows of bSwizzle bytes;
///     or, with `bKMajor` (wgmma on tf32, which cannot transpose: its B
///     must be K-major), like A: panels of `bSwizzle / elemBytes` columns
///     of K, each N rows of bSwizzle bytes;
///   - with `aMMajor` (wgmma, f16/bf16: A staged from its K x M transpose),
///     A like an N-major B: panels of `aSwizzle / elemBytes` columns of M,
///     each K rows of aSwizzle bytes;
/// each panel swizzled in atoms of 8 rows: the 16-byte chunk c of row r is
/// stored at chunk c ^ ((r * width / 128) mod (width / 16)), i.e. byte
/// offset o within the panel becomes o ^ (((o >> 7) & (width/16 - 1)) << 4)
/// (CUTLASS's Swizzle<log2(width/16), 4, 3>; width 128, 64 or 32 bytes, the
/// largest that divides the row). Panels and slots start 1024-byte
/// aligned, as the swizzle is applied to address bits. A 16-byte chunk
/// (8 f16 or 4 f32 of a row) stays whole: ldmatrix's rows are chunks.
struct SwizzledStaging {
  int64_t M = 0, N = 0, K = 0;
  int64_t aSwizzle = 128, bSwizzle = 128;
  int64_t elemBytes = 2;
  bool bKMajor = false;
  bool aMMajor = false;
  /// A slot without A (the dot reads A from registers): B's byte offset in
  /// the slot and the slot's bytes (kite.async_stage's b_place); -1 and 0
  /// for the slot of A then B.
  int64_t bPlace = -1, slotBytes = 0;
  /// A's byte offset in the slot (kite.dot_staged's a_place; 0 otherwise).
  int64_t aPlace = 0;

  /// The staging of an M x N x K dot (rows of K and N a multiple of 32
  /// bytes).
  static SwizzledStaging get(int64_t M, int64_t N, int64_t K,
                             int64_t elemBytes = 2, bool bKMajor = false,
                             bool aMMajor = false) {
    auto width = [](int64_t rowBytes) -> int64_t {
      for (int64_t w : {128, 64, 32})
        if (rowBytes % w == 0)
          return w;
      return 0;
    };
    return SwizzledStaging{M,
                           N,
                           K,
                           width((aMMajor ? M : K) * elemBytes),
                           width((bKMajor ? K : N) * elemBytes),
                           elemBytes,
                           bKMajor,
                           aMMajor};
  }
  static int64_t swizzle(int64_t offset, int64_t width) {
    return offset ^ (((offset >> 7) & (width / 16 - 1)) << 4);
  }
  /// Elements of a row of an A or B panel.
  int64_t aPanelElems() const { return aSwizzle / elemBytes; }
  int64_t bPanelElems() const { return bSwizzle / elemBytes; }
  /// Byte offset of A's (m, k) and B's (k, n) in the slot.
  int64_t aByte(int64_t m, int64_t k) const {
    int64_t pe = aPanelElems();
    if (aMMajor)
      return (m / pe) * K * aSwizzle +
             swizzle(k * aSwizzle + (m % pe) * elemBytes, aSwizzle);
    return (k / pe) * M * aSwizzle +
           swizzle(m * aSwizzle + (k % pe) * elemBytes, aSwizzle);
  }
  int64_t bByte(int64_t k, int64_t n) const {
    int64_t pe = bPanelElems();
    if (bKMajor)
      return bOffset() + (k / pe) * N * bSwizzle +
             swizzle(n * bSwizzle + (k % pe) * elemBytes, bSwizzle);
    return bOffset() + (n / pe) * K * bSwizzle +
           swizzle(k * bSwizzle + (n % pe) * elemBytes, bSwizzle);
  }
  int64_t bOffset() const {
    if (bPlace >= 0)
      return bPlace;
    return (M * K * elemBytes + 1023) / 1024 * 1024;
  }
  /// Where operand `operand` (0: A, 1: B) starts in the slot.
  int64_t operandOffset(int operand) const {
    return operand == 0 ? aPlace : bOffset();
  }
  /// B's bytes in the slot (1024-byte aligned).
  int64_t bBytes() const { return (K * N * elemBytes + 1023) / 1024 * 1024; }
  int64_t bytes() const {
    if (slotBytes)
      return slotBytes;
    return bOffset() + bBytes();
  }
  /// Operand `operand`'s place in the slot as a linear layout (over GF(2)):
  /// the element index of the operand block as it is held in registers (A:
  /// M x K; B: K x N, or N x K when read through its transposition,
  /// `transposed`) -> its byte offset from the operand's start (aByte, and
  /// bByte - bOffset()). Shapes are powers of two, so the panels and the
  /// swizzle are linear.
  LinearLayout operandLayout(int operand, bool transposed = false) const;
  /// The descriptor's swizzle field for a width (bits 62-63).
  static int64_t swizzleMode(int64_t width) {
    return width == 128 ? 1 : width == 64 ? 2 : 3;
  }
};

/// The accumulator of a warp-synchronous MMA (mma.sync.m16n8kK) dot over an
/// M x N result: the warps form a warpsM x warpsN grid of warp tiles
/// (M / warpsM) x (N / warpsN), each mRep instructions along M (16 rows
/// each) by nRep along N (8 columns each). Within an instruction, lane l
/// holds rows l/4 and l/4 + 8, columns 2(l%4) + {0, 1}: registers in the
/// instruction's order (column pair, then the row 8 below), then the next
/// instruction along N, then along M. A BlockedLayout like the others; the
/// same fragment as a wgmma warp's 16 rows (WgmmaTile).
struct MmaTile {
  int64_t M = 0, N = 0;
  int64_t warpsM = 1, warpsN = 1;
  int64_t mRep = 1, nRep = 1;

  int64_t warpRows() const { return M / warpsM; }
  int64_t warpCols() const { return N / warpsN; }

  /// The tile for an M x N result on `numWarps` warps: the warp grid whose
  /// warp tiles are closest to square (the fewest operand fragments per
  /// k-step), warp tiles of whole 16 x 16 pairs of instructions; none when
  /// the shape does not split so or the accumulator would take more than
  /// `maxRegisters` per thread.
  static std::optional<MmaTile> choose(int64_t M, int64_t N,
                                       int64_t numWarps,
                                       int64_t maxRegisters = 128);
  BlockedLayout layout() const;
  /// What each thread reads of the M x K operand A per load, as a linear
  /// layout (load, thread) -> element index (row * K + column): one
  /// ldmatrix.x4 per 16 rows (mr) and k-step (ks: 16 columns, 8 for tf32,
  /// `elemBytes` 4), load mr + mRep * ks; lane l gives the address of row
  /// l % 16 at 16 bytes * (l / 16) into the k-step; warps along M start
  /// warpRows() apart, those along N read the same A (bases 0).
  LinearLayout aLoads(int64_t K, int64_t elemBytes) const;
  /// Likewise for the K x N operand B (element k * N + n): f16/bf16, one
  /// ldmatrix.x4.trans per 16 columns (np) and k-step, load np + nRep / 2
  /// * ks, lane l at k-row l % 16 and column 8 * (l / 16); tf32 (no 32-bit
  /// transpose in ldmatrix), one 4-byte load per fragment register (h), 8
  /// columns (nr) and k-step, load h + 2 * (nr + nRep * ks), lane l at k-row
  /// l % 4 + 4h of column l / 4. Warps along N start warpCols() apart.
  LinearLayout bLoads(int64_t K, int64_t elemBytes) const;
  /// The same fragments of f16/bf16 operands staged in the other
  /// orientation (SwizzledStaging::aMMajor / bKMajor), as the lanes of an
  /// ldmatrix.x4 of the other kind give them: an M-major A by
  /// ldmatrix.x4.trans (lane l at k-row l % 8 + 8 * (l / 16) of the 8
  /// columns 8 * ((l / 8) % 2)), a K-major B by ldmatrix.x4 (lane l at
  /// column l % 8 + 8 * (l / 16), k 8 * ((l / 8) % 2)); loads numbered as
  /// aLoads' and bLoads'.
  LinearLayout aLoadsMMajor(int64_t K) const;
  LinearLayout bLoadsKMajor(int64_t K) const;
};

/// Maps kite types to their per-thread representation for one kernel.
class KiteTypeConverter : public TypeConverter {
public:
  /// The converter of `kernel`'s body: `numThreads` per program, its
  /// vector width (kernelVectorWidth) and, for the result shape of each of
  /// its dots, the dot layout (DotTile).
  /// `vectorWidth` > 0 replaces kernelVectorWidth (coalesce-unaligned).
  KiteTypeConverter(MLIRContext *context, int64_t numThreads, Operation *kernel,
                    int64_t vectorWidth = 0);
  /// A converter with only linear layouts.
  KiteTypeConverter(MLIRContext *context, int64_t numThreads,
                    int64_t vectorWidth);
  /// The layout of a block value: values are grouped into classes that
  /// must share a layout (the operands and results of an elementwise op, a
  /// load's or store's pointers, mask and value, what goes around a loop);
  /// a class holding a dot's result takes the dot's layout (WgmmaTile,
  /// MmaTile or DotTile), every other class the linear layout of its shape.
  /// So a block of the same shape as a dot result that never meets it (the
  /// B operand's pointers of a 64x128x64 matmul) keeps the linear layout.
  BlockedLayout getLayout(Value value) const;
  /// Whether two block values are in one layout class.
  bool shareLayout(Value a, Value b) const {
    return classes.isEquivalent(a, b);
  }
  /// The linear layout of blocks of `type`'s shape (the layout of a block
  /// value whose class has no other).
  BlockedLayout getLayout(RankedTensorType type) const;
  /// The dot tile of an M x N dot result, if it has one.
  std::optional<DotTile> getDotTile(int64_t M, int64_t N) const;
  /// The wgmma accumulator tile of an M x N dot result, if its dot runs on
  /// wgmma (kite.dot_staged with engine = wgmma).
  std::optional<WgmmaTile> getWgmmaTile(int64_t M, int64_t N) const;
  /// The mma.sync accumulator tile of an M x N dot result, if its dot runs
  /// on mma.sync (kite.dot_staged with engine = mma).
  std::optional<MmaTile> getMmaTile(int64_t M, int64_t N) const;
  int64_t getNumThreads() const { return numThreads; }

private:
  void addConversions(MLIRContext *context);
  int64_t numThreads;
  int64_t vectorWidth;
  /// Groups the kernel's block values into layout classes and gives the
  /// classes of dot results their dots' layouts (see getLayout(Value)).
  void assignLayouts(Operation *kernel);
  /// Gives the classes their layouts, reductions in `unsliced` classes
  /// none of their sources' slices.
  void anchorLayouts(Operation *kernel, const DenseSet<Value> &unsliced);
  /// For each class anchored by a reduction's slice or an expand_dims of
  /// one, the leader of the reduction's class (withdrawn as a whole).
  DenseMap<Value, Value> sliceOrigins;
  /// Dot result shapes (M, N) and their tiles.
  SmallVector<DotTile> dotTiles;
  SmallVector<WgmmaTile> wgmmaTiles;
  SmallVector<MmaTile> mmaTiles;
  /// The layout classes and the dot layout of those that have one.
  llvm::EquivalenceClasses<Value> classes;
  DenseMap<Value, BlockedLayout> classLayouts; ///< keyed by class leader
};

/// Options and analyses shared by the pattern families.
struct KiteLoweringState {
  const AxisInfoAnalysis &axisInfo;
  /// f32 division: approximate div.full.f32 (Triton's default) or IEEE.
  bool ieeeDivision = false;
  /// Float multiplies, adds and subtracts carry the `contract` flag, so that
  /// LLVM fuses a multiply and an add into one fma (Triton's default,
  /// enable_fp_fusion); off: each rounds on its own (mul.rn, add.rn).
  bool fpFusion = true;
  /// The kernel's shared-memory scratch buffer (an llvm.mlir.global in
  /// address space 3), for ops that exchange data between threads; empty
  /// when the kernel needs none.
  std::string sharedMemory;
  /// Byte offset of the dot staging slots in that buffer.
  int64_t stagingOffset = 0;
  /// Byte offset of the TMA staging slots' mbarriers (8 bytes each): the
  /// `barrierSlots` full ones, then (warp-specialized) as many empty ones.
  int64_t barrierOffset = 0;
  int64_t barrierSlots = 0;
  /// Threads that compute blocks (32 x num_warps); a warp-specialized
  /// kernel's producer warp comes after them.
  int64_t numThreads = 0;
  /// Consumer groups of numThreads threads each (kite.consumer_groups,
  /// ping-pong): the producer warp comes after all of them, and each group
  /// has scratch of its own (`groupScratchBytes` apart) and named barriers
  /// of its own (docs/lowering.md, "Ping-pong consumer groups").
  int64_t consumerGroups = 1;
  int64_t groupScratchBytes = 0;
  /// kite.tma_store leaves its bulk copies reading its panels when it ends
  /// and waits for them at its next start (and the kernel at its return),
  /// so that the tile loop goes on while the TMA drains the stores
  /// (deferTmaStoreReads: the stores are the kernel's only scratch users,
  /// in scratch of their own).
  bool deferTmaStoreReads = false;
};

/// Whether `kernel`'s TMA stores may leave their panels' reads pending
/// (KiteLoweringState::deferTmaStoreReads): each has scratch of its own
/// (no staging slot reused) and no other op uses the scratch between them.
bool defersTmaStoreReads(Operation *kernel, const KiteTypeConverter *conv);

/// Named barriers (bar.sync ids) of a warp-specialized kernel: group g's
/// threads synchronize on 1 + g; group g waits for its turn on
/// 1 + groups + g (ping-pong). Barrier 0 is every thread's.
inline int64_t groupBarrierId(int64_t group) { return 1 + group; }
inline int64_t turnBarrierId(int64_t groups, int64_t group) {
  return 1 + groups + group;
}

/// Bytes of shared memory `op` needs to exchange data between threads
/// (0 for ops that need none). With the kernel's layouts (`conv`), a
/// reshape, transposition or repeating broadcast whose lowering keeps each
/// thread's elements in its registers (movesInRegisters) needs none;
/// without, they are counted (the bound the pipeline passes plan with).
int64_t sharedMemoryBytes(Operation *op,
                          const KiteTypeConverter *conv = nullptr);
/// Whether the lowering of `op` (kite.reshape, kite.trans or a repeating
/// kite.broadcast) under `conv`'s layouts moves no element between threads
/// (registers forwarded or shuffled), so it takes no scratch.
bool movesInRegisters(Operation *op, const KiteTypeConverter &conv);
/// For a repeating broadcast: the source register each result register
/// repeats, the same for every thread (the source in a slice of the
/// result's layout), if there is such a choice.
std::optional<SmallVector<int64_t>>
broadcastRegisterPick(BroadcastOp op, const KiteTypeConverter &conv);

/// Where the register-tiled dot keeps its operands in shared memory, as
/// f32: A, then B row-major (at bOffset). A is either
///   - row-major, rows padded to K + 4 elements (16 bytes apart modulo the
///     banks' 128), or
///   - k-major (aKMajor, for tiles with rowGroup 4): element (m, k) at
///     k * M + m, its 16-byte groups of 4 rows swizzled (group m / 4 of row
///     k stored at (m / 4) ^ ((k / 4) mod swizzleGroups())) so that a
///     warp's 4-byte stores of consecutive k spread over the banks.
/// The size is the same either way (room for the padded rows).
struct DotStaging {
  int64_t M, N, K;
  bool aKMajor = false;
  int64_t aRowStride() const { return K + 4; }
  /// 4, or the largest power of two dividing M / 4 (1 when M % 4 != 0).
  int64_t swizzleGroups() const {
    if (M % 4)
      return 1;
    int64_t g = 1;
    while (g < 4 && (M / 4) % (2 * g) == 0)
      g *= 2;
    return g;
  }
  /// Element index of A's (m, k) in its staging.
  int64_t aIndex(int64_t m, int64_t k) const {
    if (!aKMajor)
      return m * aRowStride() + k;
    return k * M + ((m / 4) ^ ((k / 4) % swizzleGroups())) * 4 + m % 4;
  }
  int64_t bOffset() const { return (M * aRowStride() * 4 + 127) / 128 * 128; }
  int64_t bytes() const { return (bOffset() + K * N * 4 + 127) / 128 * 128; }
};

/// Slots of an asynchronously staged dot (kite-stage-dot-operands) unless
/// the kernel says otherwise (kite.num_stages): two blocks of operands in
/// flight while the third is computed on.
constexpr int64_t kDotStages = 3;

/// The widest vector (in elements) a kernel's accesses use: 16 bytes of its
/// narrowest loaded or stored element type.
int64_t kernelVectorWidth(Operation *kernel);

/// Whether a dot of a (MxK), b (KxN) into acc takes the register-tiled path
/// under `converter`'s layouts (each thread: rows x consecutive columns of
/// the result, K a multiple of 4).
bool isRegisterTiledDot(RankedTensorType a, RankedTensorType b,
                        RankedTensorType acc,
                        const KiteTypeConverter &converter);

/// Bytes of shared memory a kernel's lowering uses: the scratch buffer of
/// the ops that exchange data (16-byte aligned), then the staging slots of
/// its kite.dot_staged ops.
/// `conv`: the kernel's layouts, as in sharedMemoryBytes.
int64_t kernelSharedMemoryBytes(Operation *kernel,
                                const KiteTypeConverter *conv = nullptr);
/// Whether a kernel stages a dot for the tensor cores (wgmma or mma.sync,
/// or kite.dot on wgmma) or stores with TMA (kite.tma_store): its slots,
/// and the scratch, then start 1024-byte aligned, as the swizzle works on
/// address bits.
bool kernelUsesTensorCores(Operation *kernel);
/// The swizzled staging of a tensor-core dot (engine wgmma or mma).
SwizzledStaging stagingOf(DotStagedOp op);
SwizzledStaging stagingOf(AsyncStageOp op);
SwizzledStaging stagingOf(StageOperandOp op);
/// The staging of a kite.dot with engine = wgmma or mma: its operands'
/// registers stored at the start of the scratch buffer (A K-major, or
/// M-major for mma when A is read through a transposition; B N-major, or
/// K-major when B is read through a transposition: stagedTranspose).
SwizzledStaging registerDotStaging(DotOp op);
/// The kite.trans [1, 0] that `dot` (engine = wgmma or mma) reads B
/// through, when it is the transposition's only user: the dot stores the
/// N x K source K-major itself and the transposition moves nothing.
TransOp stagedTranspose(DotOp dot);
/// Likewise the kite.trans [1, 0] `dot` reads A through (its K x M source,
/// memory along M): a wgmma dot's fp8 or tf32 A (wgmma reads them K-major
/// only, so the dot stores the source K-major itself), an mma dot's f16
/// or bf16 A (stored M-major, as it lies; read by ldmatrix.trans).
TransOp stagedTransposeA(DotOp dot);
/// Whether `trans` is the transposition of a tensor-core dot that stores
/// the source itself (stagedTranspose, stagedTransposeA): it moves
/// nothing.
bool isElidedTranspose(TransOp trans);
/// The byte offset of the staging slots in the kernel's shared memory:
/// after the scratch of each consumer group.
int64_t kernelStagingOffset(Operation *kernel,
                            const KiteTypeConverter *conv = nullptr);
/// A kernel's consumer groups (kite.consumer_groups, else 1) and the
/// scratch of each (aligned as the staging after it).
int64_t kernelConsumerGroups(Operation *kernel);
int64_t kernelGroupScratchBytes(Operation *kernel,
                                const KiteTypeConverter *conv = nullptr);
/// Byte offset of the TMA staging's mbarriers (after everything else in
/// the buffer), and their number (0: the kernel has none).
int64_t kernelBarrierOffset(Operation *kernel,
                            const KiteTypeConverter *conv = nullptr);
int64_t kernelBarrierCount(Operation *kernel);

/// Static shared memory a kernel may declare; beyond it the buffer is
/// dynamic (the launch passes its size).
constexpr int64_t kMaxStaticSharedMemory = 48 * 1024;
/// Shared memory a program may use at most on sm_90 (opt-in dynamic).
constexpr int64_t kMaxSharedMemory = 227 * 1024;
/// Shared memory an SM has on sm_90, and what the hardware keeps of it
/// for each program resident there.
constexpr int64_t kSharedMemoryPerSM = 228 * 1024;
constexpr int64_t kReservedSharedMemoryPerProgram = 1024;

/// The group width (elements of `elemBytes`) in which kite.async_stage
/// with a tensor-core engine copies the block behind `ptrs` (layout
/// `layout`) with `mask`, or 0 when it cannot: cp.async needs groups of at
/// least 4 bytes, contiguous and aligned, and a mask that is uniform over
/// each group or a prefix of it (`x < bound`: source bytes cut the tail).
/// `maxRun` caps the group: the block's row length, or 1 where consecutive
/// elements of a row land in different staging rows (a K-major B).
int64_t swizzledCopyWidth(const AxisInfoAnalysis &axisInfo,
                          const BlockedLayout &layout, Value ptrs, Value mask,
                          int64_t maxRun, int64_t elemBytes);

/// Gives each use of a cheap block of a dot result's shape (a splat,
/// arange, broadcast, expand_dims or constant, or side-effect-free arith on
/// such blocks: computed from each thread's coordinates) its own copy, so
/// that a value shared by a dot's epilogue and, say, an operand's address
/// computation does not tie their layouts together
/// (KiteTypeConverter::getLayout(Value)).
void separateLayoutLeaves(Operation *kernel);

/// Shared memory kite.convert_layout moves its block through
/// (ConvertLayoutToGPU.cpp).
int64_t convertLayoutBytes(ConvertLayoutOp op);
/// The exchange buffer of a block of `shape` (`elemBytes` an element) as a
/// linear layout, element index -> byte offset: row-major, and where rows
/// are a multiple of 128 bytes, the 16-byte chunk c of row r at
/// c ^ (r mod 8) within its 128 bytes (the staging's swizzle), so that a
/// warp's writes of a fragment layout, whose lanes hold pieces of 8 rows in
/// one chunk column, hit 8 different chunks (all 32 banks), and a row's 128
/// bytes stay whole for the linear layout's 16-byte reads.
LinearLayout exchangeLayout(ArrayRef<int64_t> shape, int64_t elemBytes);
/// Where kite.async_copy puts a block of `shape` in its ring slot (and
/// kite.staged_load reads it), element index -> byte offset. A 2-d block
/// whose rows are a multiple of 32 bytes lies as wgmma's K-major A of its
/// shape (SwizzledStaging::operandLayout(0): panels of the widest of 128,
/// 64 or 32 bytes dividing a row, 16-byte chunks permuted by the row within
/// 8-row atoms), so that a product may read it where it landed (the
/// asynchronous product of StagedLoads.cpp) and a warp reading a column of
/// chunks over 8 consecutive rows hits different banks (dot_scaled's A:
/// 64-byte rows read two bytes a lane in wgmma's register layout). Rows of
/// 16 bytes share 128-byte lines, whose chunk c goes to c ^ (line mod 8);
/// other rows unswizzled.
LinearLayout blockStagingLayout(ArrayRef<int64_t> shape, int64_t elemBytes);
/// The bytes of a ring slot's block (kite.async_copy, kite.staged_load).
int64_t stagedBlockBytes(RankedTensorType block);
/// Whether `op` (a kite.convert_layout or kite.tma_store) sits where no
/// staged dot operand is live (outside every pipelined loop and its
/// prologue), so that it may use the kernel's shared memory from the start,
/// staging slots included, instead of scratch of its own.
bool reusesStagingMemory(Operation *op);
/// The swizzled panels of kite.tma_store's block (boxes of rows x swizzle
/// bytes) and how many it writes to shared memory at once: all where it
/// reuses the staging memory, else at most two, in turn (TmaToGPU.cpp).
struct TmaStorePanels {
  int64_t count, atOnce, bytes; ///< bytes: one panel's
};
TmaStorePanels tmaStorePanels(TmaStoreOp op);
/// Shared memory kite.tma_store writes its swizzled panels to (TmaToGPU.cpp).
int64_t tmaStoreBytes(TmaStoreOp op);
/// Puts a kite.convert_layout before each store of a block of a
/// tensor-core dot's result shape, where the shared memory it needs leaves
/// as many programs on an SM as before (the epilogue then stores in the result's linear
/// layout: 16-byte row-contiguous stores).
void insertEpilogueConversions(Operation *kernel);

/// Rewrites each vector.extract of an elementwise op's result in `root`
/// into the scalar op on extracted operands, at the extract
/// (ScalarizeExtracts.cpp): registers computed where they are used; with
/// `onlyMasks`, only extracts of i1 (masks).
void scalarizeRegisterExtracts(Operation *root, bool onlyMasks = false);

/// program_id, num_programs.
void populateGridOpPatterns(KiteTypeConverter &converter,
                            RewritePatternSet &patterns);
/// arange, splat, expand_dims, broadcast and block constants.
void populateBlockOpPatterns(KiteTypeConverter &converter,
                             RewritePatternSet &patterns);
/// addptr, load, store.
void populateMemoryOpPatterns(KiteTypeConverter &converter,
                              const KiteLoweringState &state,
                              RewritePatternSet &patterns);
/// rand, randint, randn (Philox4x32-10).
void populateRandomOpPatterns(KiteTypeConverter &converter,
                              RewritePatternSet &patterns);
/// broadcast (with repetition) and the FMA dot: data exchanged between
/// threads through shared memory.
void populateSharedMemoryOpPatterns(KiteTypeConverter &converter,
                                    const KiteLoweringState &state,
                                    RewritePatternSet &patterns);
/// print and assert: device printf and __assertfail (DebugOpsToGPU.cpp).
void populateDebugOpPatterns(KiteTypeConverter &converter,
                             RewritePatternSet &patterns);
/// atomic_rmw and atomic_cas: once per element, by its owner
/// (AtomicOpsToGPU.cpp).
void populateAtomicOpPatterns(KiteTypeConverter &converter,
                              const KiteLoweringState &state,
                              RewritePatternSet &patterns);
/// reduce and scan: within threads, across lanes (shuffles), then across
/// warps (AxisOpsToGPU.cpp).
void populateAxisOpPatterns(KiteTypeConverter &converter,
                            const KiteLoweringState &state,
                            RewritePatternSet &patterns);
/// The tensor-core engines' staging: kite.async_stage with engine = wgmma
/// or mma (TensorCoreStaging.cpp).
void populateTensorCoreStagingPatterns(KiteTypeConverter &converter,
                                       const KiteLoweringState &state,
                                       RewritePatternSet &patterns);
/// The wgmma engine: kite.dot_staged with engine = wgmma, kite.dot_wait
/// (WgmmaToGPU.cpp).
void populateWgmmaPatterns(KiteTypeConverter &converter,
                           const KiteLoweringState &state,
                           RewritePatternSet &patterns);
/// trans and reshape: elements moved between threads (ShapeOpsToGPU.cpp).
void populateSortPatterns(KiteTypeConverter &converter,
                          const KiteLoweringState &state,
                          RewritePatternSet &patterns);
/// gather and histogram: through shared memory (GatherToGPU.cpp).
void populateGatherPatterns(KiteTypeConverter &converter,
                            const KiteLoweringState &state,
                            RewritePatternSet &patterns);
void populateConvertLayoutPatterns(KiteTypeConverter &converter,
                                   const KiteLoweringState &state,
                                   RewritePatternSet &patterns);
void populateShapeOpPatterns(KiteTypeConverter &converter,
                             const KiteLoweringState &state,
                             RewritePatternSet &patterns);
/// TMA staging: kite.tma_init, tma_stage, tma_wait (TmaToGPU.cpp).
void populateTmaPatterns(KiteTypeConverter &converter,
                         const KiteLoweringState &state,
                         RewritePatternSet &patterns);
/// The mma.sync engine: kite.dot_staged with engine = mma (MmaToGPU.cpp).
void populateMmaPatterns(KiteTypeConverter &converter,
                         const KiteLoweringState &state,
                         RewritePatternSet &patterns);
/// arith/math ops on blocks; f32 division.
void populateElementwisePatterns(KiteTypeConverter &converter,
                                 const KiteLoweringState &state,
                                 RewritePatternSet &patterns);

} // namespace mlir::kite

#endif // KITE_CONVERSION_KITETOGPU_KITETOGPU_H
