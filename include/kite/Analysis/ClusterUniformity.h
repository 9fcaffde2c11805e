//===- ClusterUniformity.h - Values alike in a cluster -----*- C++ -*-===//
//
// In a kernel whose programs run in clusters (`@kernel(cluster_dims=...)`),
// which values are the same in every program of a cluster, and which ops
// run under control flow that every program of a cluster takes alike. A
// TMA copy whose block is alike in the whole cluster, issued alike, can be
// multicast: each program fetches a share of it for all (docs/lowering.md,
// "Clusters").
//
// The rules (conservative: "not uniform" is always safe):
//   - constants, kernel parameters and num_programs are uniform;
//   - program_id(a) is uniform when the cluster is 1 program wide along a;
//     program_id(a) / c (divsi, divui) is when c is a multiple of the
//     cluster's width along a (a cluster's programs have consecutive ids
//     from a multiple of its width);
//   - a pure op without regions is uniform when its operands are;
//   - an scf.for's induction variable is uniform when its bounds and step
//     are; loop-carried values, scf.if results and anything read from
//     memory are not.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_ANALYSIS_CLUSTERUNIFORMITY_H
#define KITE_ANALYSIS_CLUSTERUNIFORMITY_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <array>

namespace mlir::kite {

class ClusterUniformity {
public:
  /// `kernel`'s programs in clusters of `dims` (x, y, z) programs.
  ClusterUniformity(Operation *kernel, llvm::ArrayRef<int32_t> dims);

  /// The cluster dimensions of `kernel` (its kite.cluster_dims; 1, 1, 1
  /// without).
  static std::array<int32_t, 3> clusterDimsOf(Operation *kernel);

  /// Whether `v` is the same in every program of a cluster.
  bool isUniform(Value v);
  /// Whether every program of a cluster reaches `op` alike: each region
  /// around it up to the kernel is an scf.for with uniform bounds and step
  /// or an scf.if with a uniform condition.
  bool uniformControl(Operation *op);

private:
  bool compute(Value v);
  Operation *kernel;
  std::array<int32_t, 3> dims;
  llvm::DenseMap<Value, bool> known;
};

} // namespace mlir::kite

#endif // KITE_ANALYSIS_CLUSTERUNIFORMITY_H
