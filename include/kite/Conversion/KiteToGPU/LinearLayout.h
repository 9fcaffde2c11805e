//===- LinearLayout.h - Layouts as linear maps over GF(2) ---------*- C++ -*-===//
//
// The one representation every lowering speaks when it needs to know where
// an element is: a linear map over GF(2) (Triton's linear layouts) from the
// bits of an input (a register index, a thread index, or an element index)
// to the bits of an output (a block's row-major element index, or a byte
// offset in shared memory). Each input bit has a basis vector; the image of
// an input is the XOR of the bases of its set bits.
//
// What it expresses, all with power-of-two shapes (the only ones Kite's
// blocks have):
//   - every register layout Kite builds (BlockedLayout: the linear layout,
//     the FMA dot tiles, the mma.sync and wgmma accumulators and the wgmma A
//     operand in registers, slices): (register, thread) -> element index;
//     a replicated block has thread bases of 0;
//   - the swizzled shared-memory staging of tensor-core operands
//     (SwizzledStaging): element index -> byte offset, where the 128/64/32B
//     swizzle XORs row bits into the 16-byte chunk bits;
//   - their composition: (register, thread) -> byte offset, from which the
//     lowerings take each register's shared-memory address as a per-thread
//     value XOR (or plus) a constant (TensorCoreStaging.cpp).
// Reductions and scans read the bases directly: which register and thread
// bits move along the reduced axis (AxisOpsToGPU.cpp).
//
// docs/lowering.md ("Layouts") works an example through.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_CONVERSION_KITETOGPU_LINEARLAYOUT_H
#define KITE_CONVERSION_KITETOGPU_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::kite {

struct BlockedLayout;

class LinearLayout {
public:
  /// The input dimensions. Thread bits 0-4 are lane bits, the rest warp
  /// bits; Index is a block's element index (the input of a layout of
  /// memory, whose output is a byte offset).
  enum class In { Register = 0, Thread = 1, Index = 2 };
  static constexpr int kNumIns = 3;

  LinearLayout() = default;
  /// A (register, thread) layout with these bases.
  LinearLayout(llvm::ArrayRef<int64_t> registerBases,
               llvm::ArrayRef<int64_t> threadBases);

  /// The layout of `layout` when every digit has a power-of-two size and
  /// stride and no two bits move an element alike (all the layouts Kite
  /// builds); none otherwise.
  static std::optional<LinearLayout> of(const BlockedLayout &layout);
  /// The Index layout of `size` (a power of two) inputs whose bit i maps to
  /// f(1 << i); f must be linear over GF(2) (the staging layouts are; the
  /// unit tests check each against its closed form exhaustively).
  static LinearLayout probe(int64_t size,
                            llvm::function_ref<int64_t(int64_t)> f);

  llvm::ArrayRef<int64_t> bases(In d) const {
    return basesOf[static_cast<int>(d)];
  }
  size_t numBits(In d) const { return bases(d).size(); }
  int64_t size(In d) const { return int64_t(1) << numBits(d); }

  /// The XOR of the bases of the set bits of `x` (an input of `d`).
  int64_t apply(In d, int64_t x) const;
  /// The element of register `reg` of thread `thread`.
  int64_t apply(int64_t reg, int64_t thread) const {
    return apply(In::Register, reg) ^ apply(In::Thread, thread);
  }
  /// The output bits that inputs of `d` can set (the OR of its bases).
  int64_t span(In d) const;
  /// Thread bits whose basis is 0 (copies of the same elements), as a mask
  /// of the thread index.
  int64_t replicatedThreads() const;
  /// `this`, then `outer` (whose input is In::Index): the same inputs, each
  /// basis mapped through `outer`.
  LinearLayout compose(const LinearLayout &outer) const;
  /// Whether the non-zero bases are linearly independent (no two inputs
  /// that differ in bits with non-zero bases reach the same output).
  bool isInjective() const;

  bool operator==(const LinearLayout &other) const;
  bool operator!=(const LinearLayout &other) const { return !(*this == other); }
  /// "register: [1, 2], thread: [4, 0, 8]" (for tests and diagnostics).
  std::string str() const;

private:
  llvm::SmallVector<int64_t, 8> basesOf[kNumIns];
};

} // namespace mlir::kite

#endif // KITE_CONVERSION_KITETOGPU_LINEARLAYOUT_H
