//===- MachineCode.h - Cubin resources and the occupancy retry --*- C++ -*-===//
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
// "// kite.occupancy_registers NAME N" in the PTX, kite-convert-to-gpu).
// When the cubin uses more, the runtime (launches, compilePtxToCubin) and
// kitec (--emit=cubin, --emit=c) compile the PTX again with `.maxnreg N` on
// that entry and keep the second cubin if its stack frame (spills) is no
// larger. KITE_OCCUPANCY=0 turns it off. Kernels with a dot are left
// alone: their tiles want the registers.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_SUPPORT_MACHINECODE_H
#define KITE_SUPPORT_MACHINECODE_H

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kite::support {

/// What a cubin's function uses.
struct FunctionResources {
  int registers = 0;  ///< registers a thread
  int stackBytes = 0; ///< stack frame a thread: spills and local arrays
};

/// Per function of a cubin (by name): its resources, read from the ELF's
/// .nv.info attributes (EIATTR_REGCOUNT, EIATTR_FRAME_SIZE); empty if the
/// image is not a readable cubin.
std::map<std::string, FunctionResources> cubinFunctions(std::string_view cubin);

/// The "// kite.occupancy_registers NAME N" lines of `ptx`: NAME -> N.
std::map<std::string, int> occupancyHints(std::string_view ptx);

/// `ptx` with ".maxnreg N" on the entry `kernel` (after its .maxntid line);
/// empty if that entry has no .maxntid line.
std::string withMaxRegisters(std::string_view ptx, std::string_view kernel,
                             int registers);

/// Whether the occupancy retry runs (KITE_OCCUPANCY, default on).
bool occupancyEnabled();

/// PTX to a cubin (none, with the compiler's message in `error`).
using CompilePtx = std::function<std::optional<std::string>(
    const std::string &ptx, std::string &error)>;

/// The retry (see the file comment) for the `cubin` that `compile` made of
/// `ptx`: replaces `cubin` when the second compile fits the hints without
/// a larger stack frame. Returns what it did, for traces ("" when there
/// was nothing to do).
std::string raiseOccupancy(const std::string &ptx, std::string &cubin,
                           const CompilePtx &compile);

} // namespace kite::support

#endif // KITE_SUPPORT_MACHINECODE_H
