//===- TensorMaps.h - CUtensorMaps a kernel's launch encodes ----*- C++ -*-===//
//
// A kernel whose dot is staged with TMA (sm_90a) takes, after its own
// parameters, one CUtensorMap per descriptor it reads that way; its PTX
// says how to make each from the launch arguments in a line
//   // kite.tensor_map KERNEL PARAM DTYPE base=B shape=S0,S1 strides=T0,T1
//                      box=ROWS,COLS swizzle=BYTES
// (each value "aN": argument N, or a constant; see docs/lowering.md).
// The launch encodes them with the driver's cuTensorMapEncodeTiled.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_TENSORMAPS_H
#define KITE_LIB_RUNTIME_TENSORMAPS_H

#include "CudaDriver.h"
#include "kite/Runtime/Runtime.h"

#include <array>
#include <string>
#include <vector>

namespace kite::detail {

/// An argument's index (>= 0) or a constant (value).
struct MapOperand {
  int arg = -1;
  int64_t value = 0;
};

struct TensorMapRecipe {
  unsigned param = 0;        ///< the kernel parameter it is passed as
  std::string dtype;         ///< f16, bf16, f32
  MapOperand base;
  std::array<MapOperand, 2> shape, strides; ///< row-major, in elements
  std::array<unsigned, 2> box{};            ///< rows, columns
  int swizzle = 128;                        ///< bytes: 32, 64, 128
  /// Made by the compiler from pointer loads (kite-raise-to-descriptors),
  /// not by the kernel: an empty shape (no access reads it then, e.g. K =
  /// 0) is encoded as 1 instead of refused.
  bool raised = false;
};

/// The recipes of `kernel` in `ptx`, ordered by parameter; an error for a
/// line that does not parse.
Expected<std::vector<TensorMapRecipe>>
parseTensorMaps(const std::string &ptx, const std::string &kernel);

/// A CUtensorMap: 128 bytes, 64-byte aligned. Left uninitialized (every
/// launch has room for some on its stack; encodeTensorMap writes them).
struct alignas(64) TensorMap {
  std::array<unsigned char, 128> bytes;
};

/// Encodes `recipe` for `args` into `out`; InvalidArgument naming the TMA
/// rule an argument breaks (base or row stride not a multiple of 16 bytes,
/// a size out of range).
Expected<void> encodeTensorMap(const cuda::Driver &driver,
                               const TensorMapRecipe &recipe,
                               const std::vector<Arg> &args,
                               const std::string &kernel, TensorMap &out);

} // namespace kite::detail

#endif // KITE_LIB_RUNTIME_TENSORMAPS_H
