//===- Environment.h - Every environment variable the runtime reads -*- C++ -*-===//
//
// The runtime's one boundary with the process environment: readEnvironment()
// is the only place in lib/Runtime that calls getenv. Compile choices it
// finds (KITE_TMA, KITE_WS, KITE_TIERED, KITE_F32_DEFAULT, KITE_OCCUPANCY)
// override CompileOptions fields and are part of the cache keys; the rest
// say where things are (the cache, ptxas, libcuda) and what to report.
// docs/runtime.md, "Environment", lists every variable.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_ENVIRONMENT_H
#define KITE_LIB_RUNTIME_ENVIRONMENT_H

#include <optional>
#include <string>

namespace kite::detail {

struct Environment {
  // Compile choices (override CompileOptions; keyed).
  std::optional<bool> tma;            ///< KITE_TMA=0 turns TMA staging off
  std::optional<bool> warpSpecialize; ///< KITE_WS=0 / 1
  std::optional<bool> tiered;         ///< KITE_TIERED=0 / 1
  /// KITE_F32_DEFAULT: how f32 dots without input_precision multiply.
  std::optional<std::string> f32Default;
  bool occupancyRetry = true; ///< KITE_OCCUPANCY=0 turns the retry off
  // How the runtime works.
  bool earlyPtxas = true; ///< KITE_EARLY_PTXAS=0 / off
  bool autotune = true;   ///< KITE_AUTOTUNE=0: first configuration only
  bool trace = false;     ///< KITE_TRACE (not 0)
  /// KITE_DUMP_IR: unset or 0: none; 1: stderr (""); else a directory.
  std::optional<std::string> dumpIr;
  // Where things are.
  /// KITE_CACHE_DIR, else $XDG_CACHE_HOME/kite, else $HOME/.cache/kite;
  /// empty when KITE_CACHE_DISABLE (not 0) or none of them is set.
  std::string cacheDir;
  std::string cudaLibrary = "libcuda.so.1"; ///< KITE_CUDA_LIBRARY
  std::string ptxas;     ///< KITE_PTXAS as set ("0"/"off": no ptxas)
  std::string nvJitLink; ///< KITE_NVJITLINK as set (0/off, 1/on, a path)
  std::string cudaHome;  ///< CUDA_HOME
  std::string tmpDir = "/tmp"; ///< TMPDIR
};

/// Reads every variable now (a process may change them between compiles).
Environment readEnvironment();

} // namespace kite::detail

#endif // KITE_LIB_RUNTIME_ENVIRONMENT_H
