//===- Ptxas.h - PTX to cubin, compiled as a whole program ------*- C++ -*-===//
//
// How the runtime turns a kernel's PTX into machine code. The driver's JIT
// linker (cuLink*) compiles PTX as relocatable code, which costs registers
// (layer norm on an H100: 148 a thread instead of 116, one program per SM
// instead of two); whole-program compiles do not. So, in order:
//   1. ptxas from a CUDA toolkit (KITE_PTXAS, else $CUDA_HOME/bin/ptxas, else
//      /usr/local/cuda/bin/ptxas), run as a process: a cubin the disk cache
//      keeps for later processes (what Triton does);
//   2. else the driver JIT of the PTX itself (cuModuleLoadData on the PTX;
//      the driver's own compute cache serves later processes).
// KITE_PTXAS=0 forces 2.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_PTXAS_H
#define KITE_LIB_RUNTIME_PTXAS_H

#include <optional>
#include <string>

namespace kite::detail {

/// The ptxas to use and a stamp of it (path, size, modification time) for
/// cache keys; none when there is none or KITE_PTXAS=0.
struct Ptxas {
  std::string path;
  std::string stamp;
};
const std::optional<Ptxas> &findPtxas();

/// Compiles `ptx` for `chip` (e.g. sm_90a) with `ptxas`; the cubin, or
/// none with ptxas's message in `error`.
std::optional<std::string> runPtxas(const Ptxas &ptxas, const std::string &ptx,
                                    const std::string &chip,
                                    std::string &error);

} // namespace kite::detail

#endif
