//===- Variant.h - One compiled specialization of a kernel ------*- C++ -*-===//
//
// A variant is a kernel's PTX for one (specialization, chip), the
// CUfunction loaded from it per device, and how its machine code is had
// (Runtime.cpp). The process keeps variants by their disk-cache key
// (variantCache) so that Kernels of the same source share them.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_VARIANT_H
#define KITE_LIB_RUNTIME_VARIANT_H

#include "CudaDriver.h"
#include "Ptxas.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace kite::detail {

struct TierUp;

struct Variant {
  std::string key; ///< disk-cache key of the PTX
  std::string ptx;
  /// Dynamic shared memory a launch provides (the PTX's marker, see
  /// compileToPTX), set when a function is loaded.
  std::atomic<unsigned> dynamicShared{0};
  std::mutex loadMutex;
  /// CUfunction per device ordinal (null until loaded).
  std::array<std::atomic<cuda::CUfunction>, 64> functions{};
  /// A ptxas started while this variant's PTX was compiled, for the chip
  /// of the device that launches it (Ptxas.h); guarded by loadMutex.
  std::unique_ptr<PtxasProcess> earlyPtxas;
  /// Machine code made beside the PTX (a tier-up's ptxas run) for
  /// `imageChip`; used once, by the first load for that chip.
  std::string image, imageChip;
  /// A tiered compile's quick tier: never cached (memory or disk) under
  /// `key`, which is the optimized code's; `tierUp` brings that code.
  bool quick = false;
  std::shared_ptr<TierUp> tierUp;
};

/// The process-wide variants by key, and their lock.
std::mutex &variantMutex();
std::unordered_map<std::string, std::shared_ptr<Variant>> &variantCache();

/// The disk-cache key of the cubin `ptxas` makes of the PTX under `ptxKey`
/// for `chip`.
std::string cubinKeyText(const std::string &ptxKey, const std::string &chip,
                         const Ptxas &ptxas);

} // namespace kite::detail

#endif // KITE_LIB_RUNTIME_VARIANT_H
