//===- LaunchTyping.h - Kernels typed at launch -----------------*- C++ -*-===//
//
// A `.kite`/`.py` kernel with unannotated parameters (Triton's form) that
// CompileOptions does not type is *generic*: each launch types those
// parameters from its arguments (a DeviceBuffer<T> or T* is *T, int32_t is
// i32, a bool an i32, Arg::none() a constexpr None), and the kernel of that
// signature is compiled (compileKite with CompileOptions::signature and
// defines) once and kept by the generic kernel; it then specializes on the
// arguments' values (divisibility by 16, == 1) like any kernel, in the
// memory and disk caches (docs/runtime.md, "Kernels typed at launch").
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_LAUNCHTYPING_H
#define KITE_LIB_RUNTIME_LAUNCHTYPING_H

#include "Compile.h"

#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace kite::detail {

struct Generic {
  std::string text, sourceName;
  CompileOptions options; ///< as given (before any signature)
  DeclaredKernel kernel;
  /// The declared parameters that take launch arguments, in order.
  std::vector<size_t> argParams;
  /// Of those, how many a launch must pass (the rest have defaults).
  size_t required = 0;
  std::mutex mutex;
  /// Typed kernels by their arguments' kinds (typeKey).
  std::unordered_map<std::string, Kernel> typed;
  /// Per key (the arguments' kinds, the heuristics the launch decides):
  /// the @autotune configurations and key of the typed kernel, for
  /// heuristics that read a configuration's constexprs.
  std::unordered_map<std::string, std::pair<std::vector<TuningConfig>,
                                            std::vector<std::string>>>
      probes;
  /// The most recent typed kernel (for lastOutcome() and the like).
  std::optional<Kernel> last;
  /// Kernel::pruneConfigs' filter, applied to every typed kernel.
  Kernel::ConfigFilter keep;
};

/// The generic form of the kernel `options` selects from Kite source, or
/// null when every parameter is typed (annotated, or by `options`).
Expected<std::shared_ptr<Generic>>
genericKernel(std::string_view text, std::string_view sourceName,
              const CompileOptions &options);

/// The kernel `args` type (compiled on first use), and in `forwarded` the
/// arguments it takes: Nones dropped, bools as i32.
Expected<Kernel> typedKernel(Generic &generic, const std::vector<Arg> &args,
                             std::vector<Arg> &forwarded);

} // namespace kite::detail

#endif // KITE_LIB_RUNTIME_LAUNCHTYPING_H
