//===- Ptxas.h - PTX to cubin, compiled as a whole program ------*- C++ -*-===//
//
// How the runtime turns a kernel's PTX into machine code. The driver's JIT
// linker (cuLink*) compiles PTX as relocatable code, which costs registers
// (layer norm on an H100: 148 a thread instead of 116, one program per SM
// instead of two); whole-program compiles do not. So, in order:
//   1. ptxas from a CUDA toolkit (KITE_PTXAS, else $CUDA_HOME/bin/ptxas,
//      else /usr/local/cuda/bin/ptxas), run as a process;
//   2. else (or first, with KITE_NVJITLINK=1 or a library path) a CUDA
//      toolkit's nvJitLink library in this process (dlopen'ed from
//      KITE_NVJITLINK, $CUDA_HOME/lib64, /usr/local/cuda/lib64 or the
//      loader's path): a single PTX input compiles as a whole program (the
//      same registers as ptxas). Its one-time start-up runs on a thread
//      (prewarmPtxCompiler) beside the MLIR compile. Not the default: on the
//      H100 machine it took 56 ms for seeded dropout where the ptxas
//      process took 36 (here, without a GPU: 21 against 41);
//   3. else the driver JIT of the PTX itself (cuModuleLoadData on the PTX;
//      the driver's own compute cache serves later processes).
// 1 and 2 give cubins the disk cache keeps for later processes (what
// Triton does). KITE_NVJITLINK=0 never uses 2; KITE_PTXAS=0 forces 3.
//
// The ptxas process starts before its PTX exists (PtxasProcess): it reads
// the PTX from a pipe, so that its start-up (about 11 ms on the H100
// machine, a third of its run for seeded dropout) overlaps the MLIR
// compile of a first launch. KITE_EARLY_PTXAS=0 starts it only once the
// PTX is ready; the cubin is the same either way.
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_PTXAS_H
#define KITE_LIB_RUNTIME_PTXAS_H

#include "kite/Support/MachineCode.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace kite::detail {

/// The PTX compiler to use and a stamp of it (kind, path, size,
/// modification time, version) for cache keys; none when there is none or
/// KITE_PTXAS=0.
struct Ptxas {
  std::string path;  ///< the ptxas binary or the nvJitLink library
  std::string stamp;
  bool inProcess = false; ///< nvJitLink
};
const std::optional<Ptxas> &findPtxas();

/// Compiles `ptx` for `chip` (e.g. sm_90a) with `ptxas`; the cubin, or
/// none with the compiler's message in `error`. With `notes`: ptxas'
/// performance notes (support::performanceNotes; none from nvJitLink).
std::optional<std::string> runPtxas(const Ptxas &ptxas, const std::string &ptx,
                                    const std::string &chip, std::string &error,
                                    support::PerformanceNotes *notes = nullptr);

/// The occupancy retry (kite/Support/MachineCode.h) of the `cubin` made of
/// `ptx` for `chip`, compiling again with `ptxas`; what it did, for traces.
/// With `notes` (the first compile's): emptied where the second is kept.
std::string raiseOccupancy(const Ptxas &ptxas, const std::string &ptx,
                           const std::string &chip, std::string &cubin,
                           support::PerformanceNotes *notes = nullptr);

/// A ptxas process started before its PTX is ready: it waits on a pipe
/// (its /dev/stdin) for the PTX that finish() writes. Destroying an
/// unfinished one kills and reaps the process.
class PtxasProcess {
public:
  /// Starts `ptxas` (a binary, not nvJitLink) for `chip`; none with the
  /// reason in `error`.
  static std::unique_ptr<PtxasProcess> start(const Ptxas &ptxas,
                                             const std::string &chip,
                                             std::string &error);
  /// Hands the process its PTX and waits for the cubin; none with ptxas's
  /// message in `error`. Once only.
  std::optional<std::string> finish(std::string_view ptx, std::string &error,
                                    support::PerformanceNotes *notes = nullptr);
  const std::string &chip() const { return chip_; }
  ~PtxasProcess();
  PtxasProcess(const PtxasProcess &) = delete;
  PtxasProcess &operator=(const PtxasProcess &) = delete;

private:
  PtxasProcess() = default;
  void cleanup();
  std::string path_, chip_, dir_, out_, log_;
  pid_t pid_ = -1;
  int input_ = -1; ///< the pipe's write end
};

/// Whether a first launch starts ptxas beside its MLIR compile
/// (KITE_EARLY_PTXAS, default on).
bool earlyPtxasEnabled();

/// Starts the in-process compiler's one-time initialization on a thread (a
/// tiny compile for `chip`), once per process; nothing for the others.
void prewarmPtxCompiler(const std::string &chip);

} // namespace kite::detail

#endif
