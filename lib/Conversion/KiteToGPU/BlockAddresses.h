//===- BlockAddresses.h - The addresses of a block access -------*- C++ -*-===//
//
// How the load and store patterns (MemoryOpsToGPU.cpp) form the address of
// each register of a block of pointers: which registers share one address
// register (an immediate apart), and from what that address is computed.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_CONVERSION_KITETOGPU_BLOCKADDRESSES_H
#define KITE_LIB_CONVERSION_KITETOGPU_BLOCKADDRESSES_H

#include "kite/Conversion/KiteToGPU/KiteToGPU.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::kite::detail {

/// Register `e`'s address: `base` (i64) plus `bytes`, which the PTX access
/// takes as an immediate.
struct RunAddress {
  Value base;
  int64_t bytes = 0;
};

/// The addresses of the registers of one access to a block of pointers.
///
/// Segments: AxisInfo splits a block of pointers into aligned runs of
/// `contiguity` elements of consecutive addresses (along the linear index);
/// with a layout whose register and thread bits are disjoint powers of two
/// (LinearLayout::of, not replicated), element = registerOffset(e) +
/// threadOffset(t) with no carry between the two, so registers whose
/// registerOffset agree above the run's bits lie in the same run in every
/// thread, their addresses a constant apart: one address register per run
/// a thread touches (a wgmma A fragment's k-pairs of one row: one, not one
/// per pair), not one per access. Other layouts fall back to runs of
/// consecutive registers within the layout's chunk.
///
/// Offsets: in a loop, an access to `kite.addptr P, x + y` whose i32
/// offsets are defined outside the loop (kite-carry-pointer-offsets makes
/// K loops so: a carried scalar base plus fixed offsets), where a thread
/// holds fewer distinct values of x and y together than of their sums (a
/// row term k * stride_bk and a column term n: a thread's 8 x 8 elements
/// of B take 8 + 8, not 64), forms each address at the access as P's plus
/// sext(x + y) * bytes (`add.s32`, `mad.wide.s32`), in inline asm LLVM
/// does not hoist: what lives across the loop is then the terms. LLVM's
/// own form hoists the 64 sums out of the loop as 64-bit addresses (two
/// registers each: the general copy of the tutorial's 128 x 256 x 64 tile
/// spilled 368 bytes, none so). An offset that is not such a sum keeps
/// LLVM's form (the asm form of a single term measured more registers in
/// ptxas, not fewer).
class BlockAddresses {
public:
  /// The addresses of `access` (a kite.load or kite.store) to the block of
  /// pointers `ptrs`, `converted` its lowered value, in `layout`.
  BlockAddresses(ConversionPatternRewriter &rewriter,
                 const KiteTypeConverter &converter,
                 const KiteLoweringState &state, Operation *access,
                 Value ptrs, Value converted, const BlockedLayout &layout,
                 int64_t elementBytes);
  /// A scalar pointer's address (an !llvm.ptr<1>).
  explicit BlockAddresses(Value scalar) : addrs(scalar) {}

  /// Register `e`'s address as its segment's first address plus bytes.
  RunAddress run(OpBuilder &b, Location loc, int64_t e);

private:
  Value formed(OpBuilder &b, Location loc, int64_t e);

  Value addrs;                  ///< the lowered block (or scalar pointer)
  const BlockedLayout *layout = nullptr;
  int64_t elementBytes = 1;
  SmallVector<int64_t> first;   ///< per register: its segment's first
  Value base;                   ///< P's lowered addresses; null: `addrs`
  SmallVector<Value, 2> terms;  ///< the lowered i32 terms x and y
  DenseMap<int64_t, Value> cache; ///< formed addresses, by register
};

/// The address `a` as one i64 (its base plus its bytes).
Value fullAddress(OpBuilder &b, Location loc, RunAddress a);

} // namespace mlir::kite::detail

#endif // KITE_LIB_CONVERSION_KITETOGPU_BLOCKADDRESSES_H
