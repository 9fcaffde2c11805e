//===- KernelImpl.h - A kernel's variants and how they launch ---*- C++ -*-===//
//
// What a Kernel handle shares: its analyzed source and options, and the
// variants (Variant.h) it compiled or found, keyed by (source, options,
// specialization, chip, compiler version):
//   1. in memory, process-wide (variantCache);
//   2. on disk: the PTX under that key, and the cubin ptxas made from it
//      under (PTX key, chip, ptxas), so a new process loads a cubin without
//      compiling anything;
//   3. compiled: tiered (TierUp.h) when the kernel has a quick tier, else
//      the optimized code at once.
// A Launchable is the launch path's view of one (specialization, device):
// the loaded function and what its launch needs.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_KERNELIMPL_H
#define KITE_LIB_RUNTIME_KERNELIMPL_H

#include "kite/Pipeline/Pipeline.h"
#include "kite/Runtime/Runtime.h"

#include "Autotune.h"
#include "Compile.h"
#include "LaunchTyping.h"
#include "CudaDriver.h"
#include "TensorMaps.h"
#include "TierUp.h"
#include "Variant.h"

#include <array>
#include <optional>
#include <shared_mutex>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace kite {
using cuda::CUfunction;
using detail::TierUp;
using detail::Variant;

class KernelImpl {
public:
  detail::Analyzed source;
  CompileOptions options;
  /// Set when the kernel has autotuning configurations (Autotune.h).
  std::shared_ptr<detail::Tuning> tuning;
  /// Set when the kernel is typed at launch (LaunchTyping.h): every call
  /// with arguments goes to the kernel of their signature.
  std::shared_ptr<detail::Generic> generic;
  std::atomic<int> lastOutcome{int(CacheOutcome::Compiled)};
  std::atomic<double> toPtxMs{0}, machineCodeMs{0}, loadMs{0};
  /// Variants this kernel already resolved, by (spec, chip): the launch
  /// path's lock-free-ish fast lookup.
  mutable std::shared_mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<Variant>> resolved;
  /// The chip per device, resolved once.
  std::array<std::string, 64> deviceChips;
  /// Launch fast path: (specialization, device) -> function, once loaded.
  struct Launchable {
    Specialization spec;
    int device;
    CUfunction function;
    unsigned dynamicShared;
    /// The tensor maps its launch encodes (TensorMaps.h).
    std::shared_ptr<const std::vector<detail::TensorMapRecipe>> tensorMaps;
    /// Threads a program (the PTX's .maxntid: a warp-specialized variant
    /// has a producer warp beyond num_warps).
    unsigned threads;
    /// A quick tier's optimized compile, until the launch switches to it.
    std::shared_ptr<TierUp> tierUp;
    /// Programs a cluster along x, y, z (the PTX's .reqnctapercluster;
    /// @kernel(cluster_dims=...) on sm_90+): the grid must be a multiple.
    std::array<unsigned, 3> cluster = {1, 1, 1};
  };
  std::vector<Launchable> launchables; ///< guarded by `mutex`
  /// Tier-ups this kernel started (finishCompiles); guarded by `mutex`.
  std::vector<std::shared_ptr<TierUp>> pending;

  std::optional<Launchable> findLaunchable(Specialization spec,
                                           int device) const {
    std::shared_lock<std::shared_mutex> lock(mutex);
    for (const Launchable &l : launchables)
      if (l.spec == spec && l.device == device)
        return l;
    return std::nullopt;
  }

  std::string keyText(Specialization spec, const std::string &chip) const {
    std::ostringstream os;
    os << "compiler=" << detail::compilerVersion()
       << "\nllvm=" << ::kite::llvmCodegenSettings() << "\nchip=" << chip
       << "\nnum_warps=" << options.numWarps << "\nopt=" << options.optLevel
       << "\nieee_div=" << options.ieeeDivision
       << "\nfp_fusion=" << options.fpFusion
       << "\ntma=" << detail::tmaEnabled(options)
       << "\nws=" << detail::warpSpecializeEnabled(options)
       << "\nspec=" << spec.str() << "\nsource=\n"
       << source.keySource;
    return os.str();
  }

  Expected<std::string> chipFor(int device) {
    if (!options.chip.empty())
      return options.chip;
    return nativeChip(device);
  }

  /// The chip of `device` itself (what its machine code must be built
  /// for, whatever the PTX targets).
  Expected<std::string> nativeChip(int device) {
    if (device < 0 || device >= 64)
      return Error(ErrorCode::NoDevice,
                   "device " + std::to_string(device) + " is out of range");
    {
      std::shared_lock<std::shared_mutex> lock(mutex);
      if (!deviceChips[device].empty())
        return deviceChips[device];
    }
    auto chip = cuda::chipOf(device);
    if (!chip)
      return chip;
    std::unique_lock<std::shared_mutex> lock(mutex);
    deviceChips[device] = *chip;
    return chip;
  }

  /// The variant for (spec, chip): from this kernel, the process, the disk,
  /// or compiled. A compile for a launch on `device` (>= 0) starts ptxas
  /// for that device's chip beside it.
  Expected<std::shared_ptr<Variant>>
  variant(Specialization spec, const std::string &chip, int device = -1);

  /// The variant's function on `device` (loading its module once).
  Expected<CUfunction> function(Variant &v, int device);

  /// How `v` launches on `device`: its function loaded, its tensor maps
  /// and threads read from its PTX.
  Expected<Launchable> makeLaunchable(Specialization spec, int device,
                                      const std::shared_ptr<Variant> &v);

  /// Switches the quick tier `quick` (its tier-up ready) to the optimized
  /// code; keeps the quick tier, said under KITE_TRACE, if that failed.
  Launchable applyTierUp(const Launchable &quick);

  /// The bytes of dynamic shared memory the PTX's marker line gives for
  /// `name` ("// kite.dynamic_shared_memory NAME BYTES"), else 0.
  static unsigned dynamicSharedOf(const std::string &ptx,
                                  const std::string &name) {
    std::string marker = "// kite.dynamic_shared_memory " + name + " ";
    size_t at = ptx.find(marker);
    if (at == std::string::npos)
      return 0;
    return unsigned(
        std::strtoul(ptx.c_str() + at + marker.size(), nullptr, 10));
  }
};
} // namespace kite

#endif // KITE_LIB_RUNTIME_KERNELIMPL_H
