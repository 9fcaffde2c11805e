//===- Ptxas.h - PTX to cubin, compiled as a whole program ------*- C++ -*-===//
//
// How the runtime turns a kernel's PTX into machine code. The driver's JIT
// linker (cuLink*) compiles PTX as relocatable code, which costs registers
// (layer norm on an H100: 148 a thread instead of 116, one program per SM
// instead of two); whole-program compiles do not. So, in order:
//   1. a CUDA toolkit's nvJitLink library, in this process (dlopen'ed:
//      KITE_NVJITLINK, else $CUDA_HOME/lib64, /usr/local/cuda/lib64, the
//      loader's path); a single PTX input compiles as a whole program, the
//      same machine code as ptxas gives, without starting a process (the
//      ptxas binary spends ~20 ms starting up). Its own start-up (~20 ms the
//      first time) overlaps the MLIR compile: prewarmPtxCompiler starts it
//      on a thread when a kernel starts compiling;
//   2. else ptxas from a CUDA toolkit (KITE_PTXAS, else $CUDA_HOME/bin/ptxas,
//      else /usr/local/cuda/bin/ptxas), run as a process;
//   3. else the driver JIT of the PTX itself (cuModuleLoadData on the PTX;
//      the driver's own compute cache serves later processes).
// 1 and 2 give cubins the disk cache keeps for later processes (what
// Triton does). KITE_NVJITLINK=0 skips 1; KITE_PTXAS=<path> forces 2;
// KITE_PTXAS=0 forces 3.
//
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
