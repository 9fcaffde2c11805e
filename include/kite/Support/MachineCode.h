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
// So the compiler marks each kernel on 256 threads or more whose shared
// memory lets two programs share an SM with the registers that let them,
// and the spills a thread that may buy it (a comment line
// "// kite.occupancy_registers NAME N B" in the PTX, kite-convert-to-gpu):
// none for a kernel without a dot, 128 bytes for one with a dot, whose
// second program then runs while the first one's tensor cores work
// (attention at head dim 64 on 8 warps: 134-219 registers, 0-108 bytes of
// spills under 128, 1.04-1.25x; at head dim 128 it would spill 456 bytes
// and more, 0.6x, and keeps its registers). When the cubin uses more than
// N, the runtime (launches, compilePtxToCubin) and kitec (--emit=cubin,
// --emit=c) compile the PTX again with `.maxnreg N` on that entry and keep
// the second cubin if its stack frame grew by B bytes or less and ptxas
// has no performance note on it (wgmmas serialized).
// Callers decide whether it runs (KITE_OCCUPANCY=0, read by the runtime
// and kitec at their boundary, turns it off).
//
//===----------------------------------------------------------------------===//

#ifndef KITE_SUPPORT_MACHINECODE_H
#define KITE_SUPPORT_MACHINECODE_H

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

/// What the compiler asks of the retry for one kernel.
struct OccupancyHint {
  int registers = 0;  ///< the limit that lets two programs share an SM
  int spillBytes = 0; ///< the stack frame a thread it may add
};

/// The "// kite.occupancy_registers NAME N [B]" lines of `ptx`.
std::map<std::string, OccupancyHint> occupancyHints(std::string_view ptx);

/// `ptx` with ".maxnreg N" on the entry `kernel` (after its .maxntid line);
/// empty if that entry has no .maxntid line.
std::string withMaxRegisters(std::string_view ptx, std::string_view kernel,
                             int registers);

/// A compiler's notes on what costs a cubin speed (its "Potential
/// Performance Loss" lines: ptxas serialized the kernel's wgmmas, say). The
/// cubin is right; it is slower than it could be.
using PerformanceNotes = std::vector<std::string>;

/// The "Potential Performance Loss" lines of ptxas' output `log`, each
/// from its "(C7515) ..." code on.
PerformanceNotes performanceNotes(std::string_view log);

/// PTX to a cubin (none, with the compiler's message in `error`), and the
/// compiler's notes on it where it has them (ptxas; not nvJitLink).
using CompilePtx = std::function<std::optional<std::string>(
    const std::string &ptx, std::string &error, PerformanceNotes &notes)>;

/// The retry (see the file comment) for the `cubin` that `compile` made of
/// `ptx`: replaces `cubin` when the second compile fits the hints without
/// a larger stack frame than they allow, and ptxas has no performance note
/// on it (under the limit it may serialize a kernel's wgmmas for want of
/// registers, C7512: the attention backward at head dim 64 on 8 warps,
/// 200 bytes of spills). `notes` (optional), the first compile's, are
/// emptied when the second cubin, which has none, replaces `cubin`.
/// Returns what it did, for traces ("" when there was nothing to do).
std::string raiseOccupancy(const std::string &ptx, std::string &cubin,
                           const CompilePtx &compile,
                           PerformanceNotes *notes = nullptr);

} // namespace kite::support

#endif // KITE_SUPPORT_MACHINECODE_H
