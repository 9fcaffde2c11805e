//===- MaskRanges.h - Masks over `s + arange` blocks --------------*- C++ -*-===//
//
// Helpers of the passes that run masked code without its masks where they
// are all true (kite-version-full-blocks, kite-split-full-iterations):
// reading a block as `s + arange(lo, hi)`, and whether a mask costs a
// vector access its width.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_TRANSFORMS_MASKRANGES_H
#define KITE_LIB_TRANSFORMS_MASKRANGES_H

#include "kite/Analysis/AxisInfo.h"

#include "mlir/IR/Value.h"

namespace kite::detail {

/// `v` through the shape ops that keep a block's set of values
/// (expand_dims, broadcast, reshape).
mlir::Value throughShapes(mlir::Value v);

/// `v` as `s + arange(lo, hi)` (either order) or a bare arange: the scalar
/// s (null for a bare arange) and the arange's last element. With
/// `shapes`, also through shape ops (throughShapes) around the block and
/// its two terms.
bool matchRange(mlir::Value v, mlir::Value &start, int64_t &last,
                bool shapes = false);

/// The bytes of the elements a pointer (block) points to (8 for pointers).
int64_t pointeeBytes(mlir::Value ptr);

/// Whether an access of `ptr` (elements of `bytes`) could be wider than one
/// element while `mask` is not proved uniform over such a group (or at all,
/// with `uniform`): the lowering's rule (planAccess), before the layout's
/// run length.
bool raggedVector(const mlir::kite::AxisInfoAnalysis &info, mlir::Value ptr,
                  mlir::Value mask, int64_t bytes, bool uniform);

} // namespace kite::detail

#endif
