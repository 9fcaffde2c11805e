//===- Compile.h - The runtime's view of the compiler ----------*- C++ -*-===//
//
// The only part of the runtime that sees MLIR: turns kernel source into a
// canonical module text (one kernel, constexprs bound) with its signature,
// and a canonical module plus a specialization into PTX.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_COMPILE_H
#define KITE_LIB_RUNTIME_COMPILE_H

#include "kite/Frontend/HostValue.h"
#include "kite/Runtime/Runtime.h"

#include <functional>

namespace kite::detail {

struct Signature {
  std::string name;
  std::vector<Param> params;
  int threads = 128;
  int sharedBytes = 0;
};

struct Analyzed {
  std::string canonical; ///< the module, one kernel, constexprs bound
  std::string keySource; ///< the same without locations (cache keys)
  Signature signature;
  /// The kernel's autotuning configurations and key (parameter indices),
  /// when compiled as written (CompileOptions::autotuneConfig < 0). The
  /// canonical module does not carry them (a config edit leaves the other
  /// configurations' cache keys alone).
  std::vector<TuningConfig> configs;
  std::vector<int> key;
};

/// A `.kite` kernel's parameters as declared (Frontend.h's DeclaredParam,
/// without MLIR types): which are annotated, constexpr or unannotated.
struct DeclaredParam {
  std::string name;
  enum Kind { Typed, Constexpr, Untyped } kind = Typed;
  bool hasDefault = false;
};
struct DeclaredKernel {
  std::string name;
  std::vector<DeclaredParam> params;
  /// Its @triton.heuristics lambdas Kite evaluates, in order.
  std::vector<::kite::DeclaredHeuristic> heuristics;
};
/// The kernels of Kite language source, parsed only (no MLIR is made);
/// a ParseError with the diagnostics when the source does not parse.
Expected<std::vector<DeclaredKernel>>
declareKernels(std::string_view text, std::string_view sourceName);

/// Parses (kite dialect, or the Kite language when `isKite`), verifies,
/// selects the kernel and binds the constants.
Expected<Analyzed> analyzeSource(std::string_view text,
                                 std::string_view sourceName,
                                 const CompileOptions &options, bool isKite);

using StageFn = std::function<void(IRStage, const std::string &)>;

/// What a tiered compile's first lowering made (lowerToPTX).
struct QuickTier {
  int warps = 0;   ///< the quick tier's warps; 0: the optimized form
  std::string why; ///< why the kernel has no quick tier
};

/// Lowers a canonical module to PTX for `chip`, with `spec`'s divisibility
/// facts; `onStage` (optional) sees the IR after every stage. With `quick`,
/// the kernel's quick tier (kite::planQuickTier) when it has one, else the
/// optimized form, and `quick` says which.
Expected<std::string> lowerToPTX(const std::string &canonical,
                                 const Signature &signature,
                                 Specialization spec,
                                 const CompileOptions &options,
                                 const std::string &chip,
                                 const StageFn &onStage = {},
                                 QuickTier *quick = nullptr);

/// Whether a first launch compiles tiered (CompileOptions::tiered, unless
/// KITE_TIERED says 0 or 1).
bool tieredEnabled(const CompileOptions &options);

/// Runs the kernel in the interpreter; empty string or the error.
std::string interpret(const std::string &canonical, const Grid &grid,
                      const std::vector<Arg> &args,
                      const std::vector<Param> &params);

/// Identifies the compiler in cache keys.
const char *compilerVersion();

/// Whether TMA staging is on: CompileOptions::tma, unless KITE_TMA=0.
bool tmaEnabled(const ::kite::CompileOptions &options);
/// Whether warp specialization is on: CompileOptions::warpSpecialize,
/// unless KITE_WS is 0 or 1.
bool warpSpecializeEnabled(const ::kite::CompileOptions &options);

/// KITE_TRACE=1 (read once): one line on stderr per compile, cache lookup,
/// cubin compile, module load and autotuning trial, with its duration.
bool tracing();

} // namespace kite::detail

#endif // KITE_LIB_RUNTIME_COMPILE_H
