//===- Autotune.h - Choosing among a kernel's configurations ----*- C++ -*-===//
//
// A kernel with `@autotune` configurations keeps its source; each
// configuration compiles as a plain kernel (CompileOptions::autotuneConfig).
// For the values of the key parameters, the choice comes from memory, else
// from the disk cache (`.tune` entries: the time of one configuration, keyed
// by the device, that configuration's own compiled identity and the key
// values: editing one configuration re-times only that one), else from
// timing the configurations not timed yet.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_AUTOTUNE_H
#define KITE_LIB_RUNTIME_AUTOTUNE_H

#include "kite/Runtime/Runtime.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kite::detail {

struct Tuning {
  std::string text, sourceName;
  bool isKite = false;
  CompileOptions options;
  std::vector<TuningConfig> configs;
  std::vector<int> key; ///< indices of the key parameters

  std::mutex mutex;
  std::vector<std::optional<Kernel>> kernels; ///< per config, compiled once
  std::map<std::string, int> chosen;          ///< key values -> config
  Kernel::ConfigFilter keep;                  ///< Kernel::pruneConfigs
};

/// The configuration index for `args` (see the file comment).
Expected<int> chooseConfig(Tuning &tuning, const Kernel::GridFn &grid,
                           const std::vector<Arg> &args,
                           const LaunchOptions &options);
/// The plain kernel of configuration `index`.
Expected<Kernel> configKernel(Tuning &tuning, int index);

} // namespace kite::detail

#endif
