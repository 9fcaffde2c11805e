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

#include "mlir/IR/BuiltinTypes.h"

#include <string>
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::kite {

/// Triton's blocked layout, restricted to the row-major linear index of a
/// block: thread t owns chunks of `chunk` consecutive elements, the chunks of
/// consecutive threads being adjacent; the pattern repeats every
/// numThreads * chunk elements. Blocks smaller than the thread count are
/// replicated (thread t holds element t mod numel).
struct BlockedLayout {
  int64_t numel = 1;
  int64_t numThreads = 1;
  int64_t chunk = 1;     ///< consecutive elements per thread per repetition
  int64_t perThread = 1; ///< elements held by each thread

  static BlockedLayout get(int64_t numel, int64_t numThreads,
                           int64_t vectorWidth);
  /// Whether several threads hold the same element.
  bool isReplicated() const { return numel < numThreads; }
  /// Linear index of register `e` of thread 0 (= register offset of every
  /// thread relative to its base, see threadBase).
  int64_t registerOffset(int64_t e) const {
    return (e / chunk) * numThreads * chunk + e % chunk;
  }
  /// threadBase(t) + registerOffset(e) is the linear index of register e of
  /// thread t: threadBase(t) = t * chunk, or t mod numel when replicated.
};

/// Maps kite types to their per-thread representation for one kernel.
class KiteTypeConverter : public TypeConverter {
public:
  KiteTypeConverter(MLIRContext *context, int64_t numThreads,
                    int64_t vectorWidth);
  BlockedLayout getLayout(RankedTensorType type) const;
  int64_t getNumThreads() const { return numThreads; }

private:
  int64_t numThreads;
  int64_t vectorWidth;
};

/// Options and analyses shared by the pattern families.
struct KiteLoweringState {
  const AxisInfoAnalysis &axisInfo;
  /// f32 division: approximate div.full.f32 (Triton's default) or IEEE.
  bool ieeeDivision = false;
  /// The kernel's shared-memory scratch buffer (an llvm.mlir.global in
  /// address space 3), for ops that exchange data between threads; empty
  /// when the kernel needs none.
  std::string sharedMemory;
  /// Byte offset of the dot staging slots in that buffer.
  int64_t stagingOffset = 0;
};

/// Bytes of shared memory `op` needs to exchange data between threads
/// (0 for ops that need none).
int64_t sharedMemoryBytes(Operation *op);

/// Where the register-tiled dot keeps its operands in shared memory, as
/// f32: A row-major with rows padded to K + 4 elements (16 bytes apart
/// modulo the banks' 128), then B row-major.
struct DotStaging {
  int64_t M, N, K;
  int64_t aRowStride() const { return K + 4; }
  int64_t bOffset() const { return (M * aRowStride() * 4 + 15) / 16 * 16; }
  int64_t bytes() const { return bOffset() + K * N * 4; }
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
int64_t kernelSharedMemoryBytes(Operation *kernel);
/// The byte offset of the staging slots in the kernel's shared memory.
int64_t kernelStagingOffset(Operation *kernel);

/// Static shared memory a kernel may declare; beyond it the buffer is
/// dynamic (the launch passes its size).
constexpr int64_t kMaxStaticSharedMemory = 48 * 1024;
/// Shared memory a program may use at most on sm_90 (opt-in dynamic).
constexpr int64_t kMaxSharedMemory = 227 * 1024;

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
/// broadcast (with repetition), dot and reduce: data exchanged between
/// threads through shared memory.
void populateSharedMemoryOpPatterns(KiteTypeConverter &converter,
                                    const KiteLoweringState &state,
                                    RewritePatternSet &patterns);
/// arith/math ops on blocks; f32 division.
void populateElementwisePatterns(KiteTypeConverter &converter,
                                 const KiteLoweringState &state,
                                 RewritePatternSet &patterns);

} // namespace mlir::kite

#endif // KITE_CONVERSION_KITETOGPU_KITETOGPU_H
