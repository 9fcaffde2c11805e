//===- Occupancy.h - Two programs an SM for kernels without a dot -*- C++ -*-===//
//
// ptxas gives a kernel the registers its schedule likes, up to 255 a
// thread. For a kernel of 256 threads, anything above 128 leaves room for
// one program per SM: while that program waits on a barrier, a lock or its
// loads, the SM has nothing else to run. (Layer norm backward at 8192
// columns: 159 registers, 0.79x Triton's kernel, whose different
// instruction order happens to fit 128; the same PTX under `.maxnreg 128`,
// without spills, 1.01x.)
//
// So the compiler marks each kernel without a dot on 256 threads or more
// with the registers that let two programs share an SM (a comment line
// "// kite.occupancy_registers NAME N" in the PTX, kite-convert-to-gpu),
// and when the cubin uses more, the runtime compiles the PTX again with
// `.maxnreg N` on that entry and keeps the second cubin if its stack frame
// (spills) is no larger. KITE_OCCUPANCY=0 turns it off. Kernels with a dot
// are left alone: their tiles want the registers.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_LIB_RUNTIME_OCCUPANCY_H
#define KITE_LIB_RUNTIME_OCCUPANCY_H

#include "kite/Runtime/Runtime.h"

#include <map>
#include <string>
#include <string_view>

namespace kite::detail {

struct Ptxas;

/// Per function of a cubin (by name): its registers a thread and stack
/// frame bytes, read from the ELF's .nv.info attributes (EIATTR_REGCOUNT,
/// EIATTR_FRAME_SIZE); empty if the image is not a readable cubin.
std::map<std::string, MachineCodeInfo> cubinFunctions(std::string_view cubin);

/// The "// kite.occupancy_registers NAME N" lines of `ptx`: NAME -> N.
std::map<std::string, int> occupancyHints(std::string_view ptx);

/// `ptx` with ".maxnreg N" on the entry `kernel` (after its .maxntid line);
/// empty if that entry has no .maxntid line.
std::string withMaxRegisters(std::string_view ptx, std::string_view kernel,
                             int registers);

/// Whether the occupancy retry runs (KITE_OCCUPANCY, default on).
bool occupancyEnabled();

/// The retry (see the file comment) for the `cubin` that `ptxas` made of
/// `ptx` for `chip`: replaces `cubin` when the second compile fits the
/// hints without a larger stack frame. Returns what it did, for traces
/// ("" when there was nothing to do).
std::string raiseOccupancy(const Ptxas &ptxas, const std::string &ptx,
                           const std::string &chip, std::string &cubin);

} // namespace kite::detail

#endif // KITE_LIB_RUNTIME_OCCUPANCY_H
