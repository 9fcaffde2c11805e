//===- AxisInfo.h - Contiguity, divisibility and constancy -------*- C++ -*-===//
//
// A forward analysis over a Kite kernel (in the spirit of Triton's AxisInfo)
// that tells, for every integer or pointer value, how its elements behave
// along the block's row-major linear index:
//   - contiguity c: the index space splits into aligned runs of c elements
//     whose values increase by exactly 1 (pointers: by one element);
//   - divisibility d: the first value of every run is divisible by d
//     (pointers: in bytes);
//   - constancy k: aligned runs of k elements hold equal values.
// Loop-carried values (scf.for) are solved to a fixed point from their
// initial values; scf.if results hold what both branches yield.
// Scalars have c = k = 1. The lowering uses it to emit 16-byte vector
// accesses and to know when a mask is uniform over a vector.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_ANALYSIS_AXISINFO_H
#define KITE_ANALYSIS_AXISINFO_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
class Block;
class Operation;
namespace kite {

struct AxisInfo {
  /// Divisibility assumed for "known to be 0" and capped products.
  static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;
  int64_t contiguity = 1;
  int64_t divisibility = 1;
  int64_t constancy = 1;
};

class AxisInfoAnalysis {
public:
  /// Analyses every value defined in `root` (a kernel function).
  explicit AxisInfoAnalysis(Operation *root);

  /// The facts known about `value`; conservative ({1, 1, 1}) if unknown.
  AxisInfo get(Value value) const;

  /// How many consecutive elements of `elementBytes` each one access of the
  /// block of pointers `ptrs` may move at once: at most 16 bytes, within a
  /// contiguous run and as aligned as its start (at least 1; not yet
  /// rounded to a power of two).
  int64_t vectorElements(Value ptrs, int64_t elementBytes) const;

private:
  void visitBlock(Block &block);
  /// Visits `op` and what it nests (loops to a fixed point).
  void visitOp(Operation *op);
  /// The transfer function of a single-result op.
  void visit(Operation *op);
  llvm::DenseMap<Value, AxisInfo> infos;
};

} // namespace kite
} // namespace mlir

#endif // KITE_ANALYSIS_AXISINFO_H
