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
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_PTXAS_H
#define KITE_LIB_RUNTIME_PTXAS_H

#include <optional>
#include <string>

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
/// none with the compiler's message in `error`.
std::optional<std::string> runPtxas(const Ptxas &ptxas, const std::string &ptx,
                                    const std::string &chip,
                                    std::string &error);

/// Starts the in-process compiler's one-time initialization on a thread (a
/// tiny compile for `chip`), once per process; nothing for the others.
void prewarmPtxCompiler(const std::string &chip);

} // namespace kite::detail

#endif
